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
HINTS_FIELD = "hints_used"
"""Optional, written only for a game that allowed hints (issue 33): {seat: hints asked}."""


class LoadedRecord(NamedTuple):
    """What a record sets up and plays (`Game.replay`)."""

    config: GameConfig
    seed: int
    actions: list[str]


def record_document(config: GameConfig, seed: int, actions: list[str],
                    hints_used: dict[int, int] | None = None) -> dict:
    """The record of a game set up with `config` and `seed` that took `actions`;
    `hints_used` (a game that allowed hints) adds how many hints each person asked for."""
    document = {"format": RECORD_FORMAT, "version": RECORD_VERSION,
                "config": config.to_dict(), "seed": int(seed), "actions": list(actions)}
    if hints_used is not None:
        document[HINTS_FIELD] = {str(seat): int(count)
                                 for seat, count in sorted(hints_used.items())}
    return document


def read_record(record: dict | str | bytes) -> LoadedRecord:
    """The configuration, seed and actions of a record (dict or JSON text); StateFormatError
    names the field at fault. Whether the actions are legal is for the replay to say."""
    if not isinstance(record, dict):
        record = _parse_json(record, "record")
    refuse_sealed_save(record)
    optional = (HINTS_FIELD,) if isinstance(record, dict) and HINTS_FIELD in record else ()
    data = _object(record, "", _RECORD_FIELDS + optional, document="record")
    version = _read_header(data, RECORD_FORMAT, RECORD_VERSION)
    config = _read_config(data["config"], "config")
    if optional:
        read_hints_used(data, config.players)
    _check_rules_of_version(version, config)
    seed = _read_seed(data["seed"], "seed", required=True)
    actions = _list(data["actions"], "actions")
    for index, action in enumerate(actions):
        if not isinstance(action, str):
            _fail(f"actions[{index}]", f"must be an action in notation, not {_describe(action)}")
    return LoadedRecord(config, seed, actions)


def read_hints_used(record: dict, players: int) -> dict[int, int] | None:
    """A record's `hints_used` ({seat: count}, seats as text), None when it has none."""
    if HINTS_FIELD not in record:
        return None
    value = record[HINTS_FIELD]
    if not isinstance(value, dict):
        _fail(HINTS_FIELD, f"must be an object of seat: count, not {_describe(value)}")
    counts = {}
    for key, count in value.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < players):
            _fail(HINTS_FIELD, f"{_describe(key)} is not a seat 0..{players - 1}")
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 10**6:
            _fail(f"{HINTS_FIELD}.{key}", f"must be a count 0..1000000, not {_describe(count)}")
        counts[int(key)] = count
    return counts
