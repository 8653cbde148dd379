"""Saving, loading and replaying games by the functions of earlier releases (the facade
layer, beside game.py). `Game.to_json`, `Game.from_json`, `Game.record` and `Game.replay`
do the same as methods; the formats themselves live in formats/ and are specified in
docs/state-format.md."""

from __future__ import annotations

from .formats.reading import MAX_DOCUMENT_SIZE, SEALED_FORMAT, refuse_sealed_save
from .formats.records import RECORD_FORMAT, RECORD_VERSION
from .formats.state_reader import read_state
from .formats.state_writer import STATE_FORMAT, STATE_VERSION, game_to_dict, game_to_json
from .game import Game

__all__ = ["MAX_DOCUMENT_SIZE", "RECORD_FORMAT", "RECORD_VERSION", "SEALED_FORMAT",
           "STATE_FORMAT", "STATE_VERSION", "game_from_dict", "game_from_json", "game_record",
           "game_to_dict", "game_to_json", "refuse_sealed_save", "replay_record"]


def game_from_json(text: str | bytes) -> Game:
    """`Game.from_json`: the game of a state-format text."""
    return Game.from_json(text)


def game_from_dict(data) -> Game:
    """The game of a state-format dict; StateFormatError names the field and the rule."""
    return Game.from_state(*read_state(data))


def game_record(game: Game) -> dict:
    """`game.record()`: config, seed and every action in notation, checked by replaying."""
    return game.record()


def replay_record(record: dict | str | bytes) -> Game:
    """`Game.replay`: the game of a record, replayed move by move."""
    return Game.replay(record)
