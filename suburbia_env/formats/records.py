"""The game record format (docs/state-format.md): the configuration, the seed and every
decision in notation, which `Game.replay` plays move by move to the identical state."""

from __future__ import annotations

from typing import NamedTuple

from ..engine.game_config import GameConfig
from ..versions import FORMAT_VERSION
from .reading import (_check_rules_of_version, _describe, _fail, _list, _object, _parse_json,
                      _read_config, _read_header, _read_seed, refuse_sealed_save)

RECORD_FORMAT = "suburbia-record"
RECORD_VERSION = FORMAT_VERSION
_RECORD_FIELDS = ("format", "version", "config", "seed", "actions")


class LoadedRecord(NamedTuple):
    """What a record sets up and plays (`Game.replay`)."""

    config: GameConfig
    seed: int
    actions: list[str]


def record_document(config: GameConfig, seed: int, actions: list[str]) -> dict:
    """The record of a game set up with `config` and `seed` that took `actions`."""
    return {"format": RECORD_FORMAT, "version": RECORD_VERSION, "config": config.to_dict(),
            "seed": int(seed), "actions": list(actions)}


def read_record(record: dict | str | bytes) -> LoadedRecord:
    """The configuration, seed and actions of a record (dict or JSON text); StateFormatError
    names the field at fault. Whether the actions are legal is for the replay to say."""
    if not isinstance(record, dict):
        record = _parse_json(record, "record")
    refuse_sealed_save(record)
    data = _object(record, "", _RECORD_FIELDS, document="record")
    version = _read_header(data, RECORD_FORMAT, RECORD_VERSION)
    config = _read_config(data["config"], "config")
    _check_rules_of_version(version, config)
    seed = _read_seed(data["seed"], "seed", required=True)
    actions = _list(data["actions"], "actions")
    for index, action in enumerate(actions):
        if not isinstance(action, str):
            _fail(f"actions[{index}]", f"must be an action in notation, not {_describe(action)}")
    return LoadedRecord(config, seed, actions)
