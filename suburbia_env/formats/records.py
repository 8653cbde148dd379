"""The game record format (docs/state-format.md): the configuration, the seed and every
decision in notation, replayed move by move to the identical state."""

from __future__ import annotations

import numpy as np

from ..errors import StateFormatError, SuburbiaError
from ..game import Game
from ..versions import FORMAT_VERSION
from .reading import (_check_rules_of_version, _describe, _fail, _list, _object, _parse_json,
                      _read_config, _read_header, _read_seed, _text, refuse_sealed_save)

RECORD_FORMAT = "suburbia-record"
RECORD_VERSION = FORMAT_VERSION
_RECORD_FIELDS = ("format", "version", "config", "seed", "actions")


def game_record(game: Game) -> dict:
    """The record of a game: config, seed and every action in notation.

    The record is checked by replaying it: a game loaded from a state file or edited by
    hand (positions.py) has a history that does not lead to its state, and its record
    would silently replay into another game, so StateFormatError is raised instead.
    """
    if game.seed is None:
        raise StateFormatError("seed: this game has no seed (it was loaded from a state file "
                               "without one), so no record can set it up again")
    record = {"format": RECORD_FORMAT, "version": RECORD_VERSION,
              "config": game.config.to_dict(), "seed": int(game.seed),
              "actions": list(game.history)}
    try:
        replayed = replay_record(record)
    except StateFormatError as error:
        raise StateFormatError(f"this game's history cannot be replayed from its seed ({error}); "
                               f"was it loaded from a state file or edited by hand?") from None
    if not np.array_equal(replayed.state, game.state):
        raise StateFormatError("actions: replaying this game's history from its seed does not "
                               "reach its state; a game loaded from a state file or edited by "
                               "hand has no record")
    return record


def replay_record(record: dict | str | bytes) -> Game:
    """Set the game of a record up again and apply its actions in order.

    StateFormatError names the first field at fault, for actions the index of the first
    one that is malformed or illegal, e.g. ``actions[12]: 'buy 9 @ 0,3': ...``.
    """
    if not isinstance(record, dict):
        record = _parse_json(record, "record")
    refuse_sealed_save(record)
    data = _object(record, "", _RECORD_FIELDS, document="record")
    version = _read_header(data, RECORD_FORMAT, RECORD_VERSION)
    config = _read_config(data["config"], "config")
    _check_rules_of_version(version, config)
    seed = _read_seed(data["seed"], "seed", required=True)
    actions = _list(data["actions"], "actions")
    game = Game(config.players, config.mode, config.edition, seed, config.random_private_goals)
    for index, action in enumerate(actions):
        if not isinstance(action, str):
            _fail(f"actions[{index}]", f"must be an action in notation, not {_describe(action)}")
        try:
            game.apply(action)
        except SuburbiaError as error:  # NotationError, IllegalActionError, GameOverError
            raise StateFormatError(f"actions[{index}]: {_text(action)}: {error}") from None
    return game
