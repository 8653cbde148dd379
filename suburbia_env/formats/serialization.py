"""Saving and loading games: the `suburbia-state` JSON format and the `suburbia-record`
game record, specified in docs/state-format.md. The work is done by state_writer.py,
state_reader.py, records.py and reading.py; this module keeps the names callers use."""

from .reading import MAX_DOCUMENT_SIZE, SEALED_FORMAT, refuse_sealed_save
from .records import RECORD_FORMAT, RECORD_VERSION, game_record, replay_record
from .state_reader import game_from_dict, game_from_json
from .state_writer import STATE_FORMAT, STATE_VERSION, game_to_dict, game_to_json

__all__ = ["MAX_DOCUMENT_SIZE", "RECORD_FORMAT", "RECORD_VERSION", "SEALED_FORMAT",
           "STATE_FORMAT", "STATE_VERSION", "game_from_dict", "game_from_json", "game_record",
           "game_to_dict", "game_to_json", "refuse_sealed_save", "replay_record"]
