"""Reading our JSON documents (states, records): bounded text, exact fields, typed
values, known names, the configuration and the format version; StateFormatError names
the field at fault. Shared by the state reader and the records."""

from __future__ import annotations

import json

from ..engine import constants as c
from ..errors import ConfigError, StateFormatError
from ..engine.game_config import GameConfig
from ..engine.tile_data import GOALS, TILES
from ..versions import MODES_UNCHANGED_SINCE, revision_after

SEALED_FORMAT = "suburbia-sealed-game"  # a browser save, sealed by the server (web/sealing.py)

_INT32_MAX = 2**31 - 1
_BEYOND = float("inf")  # `_int` bounds of a value only type-checked
_SEED_BITS = 8192
_WORD_MAX = 2**32 - 1
MAX_DOCUMENT_SIZE = 1_000_000
"""Characters (or bytes) a state or record document may have: a finished 4-player game's
state takes about 30,000 and its record about 8,000; anything longer is refused before
parsing, so a load takes bounded time and memory whatever its input."""

_CONFIG_FIELDS = ("players", "mode", "edition", "random_private_goals")

_TILE_KINDS = {name: kind for kind, name in enumerate(TILES.names) if kind != TILES.lake}
_GOAL_INDICES = {name: index for index, name in enumerate(GOALS.names)}


def _fail(path: str, message: str):
    raise StateFormatError(f"{path}: {message}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def quoted(value) -> str:
    """`repr` of a name or number from a document, cut to a readable length (a message
    quoting a 10 MB string, or a 5,000-digit number Python cannot print, helps nobody)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return f"{'-' if value < 0 else ''}<an integer of {value.bit_length()} bits>"
    if isinstance(value, str) and len(value) > 60:
        return f"{value[:40]!r}... ({len(value)} characters)"
    try:
        text = repr(value)
    except Exception:  # a foreign object of a dict given directly
        return f"<{type(value).__name__} object>"
    return text if len(text) <= 80 else text[:60] + "..."


def _describe(value) -> str:
    """A JSON value as the error messages show it, e.g. `'3' (a string)`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"{quoted(value)} (a string)"
    if isinstance(value, float):
        return f"{value!r} (not a whole number)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return quoted(value)


def _parse_json(text, what: str):
    """JSON text (str, or bytes in UTF-8, -16 or -32) as Python values; StateFormatError for
    anything else: too long, not text, bad syntax, nested too deeply, numbers too long."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise StateFormatError(f"{what}: expected JSON text, not {type(text).__name__}")
    if len(text) > MAX_DOCUMENT_SIZE:
        raise StateFormatError(f"{what}: {len(text):,} characters, more than the "
                               f"{MAX_DOCUMENT_SIZE:,} any game's document needs")
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicate_fields)
    except StateFormatError:
        raise
    except json.JSONDecodeError as error:
        raise StateFormatError(f"{what}: JSON syntax error: {error}") from None
    except UnicodeDecodeError as error:
        raise StateFormatError(f"{what}: not UTF-8 text: {error.reason} at byte "
                               f"{error.start}") from None
    except RecursionError:
        raise StateFormatError(f"{what}: JSON nested too deeply (a saved game nests 5 "
                               f"levels)") from None
    except ValueError as error:  # e.g. an integer of more digits than Python converts
        raise StateFormatError(f"{what}: unreadable JSON: {str(error)[:200]}") from None


def _reject_duplicate_fields(pairs: list) -> dict:
    result = {}
    for key, value in pairs:
        if key in result:
            raise StateFormatError(f"JSON: field {quoted(key)} appears twice in one object")
        result[key] = value
    return result


def _object(value, path: str, fields: tuple[str, ...], document: str = "state") -> dict:
    """An object with exactly these fields; `document` names it when `path` is empty."""
    if not isinstance(value, dict):
        _fail(path or document, f"must be an object, not {_describe(value)}")
    for field in fields:
        if field not in value:
            _fail(_join(path, field), "missing field")
    for field in value:
        if field not in fields:
            name = field if isinstance(field, str) and len(field) <= 60 else quoted(field)
            _fail(_join(path, name), f"unknown field (expected: {', '.join(fields)})")
    return value


def _int(value, path: str, low: int = -_INT32_MAX - 1, high: int = _INT32_MAX,
         why: str = "") -> int:
    """An integer within low..high; `why` explains the bounds in the error message."""
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, f"must be an integer, not {_describe(value)}")
    if not low <= value <= high:
        _fail(path, f"{quoted(value)} is outside {low}..{high}" + (f" ({why})" if why else ""))
    return value


def _bool(value, path: str) -> bool:
    if not isinstance(value, bool):
        _fail(path, f"must be true or false, not {_describe(value)}")
    return value


def _list(value, path: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        _fail(path, f"must be a list, not {_describe(value)}")
    if length is not None and len(value) != length:
        _fail(path, f"must hold {length} entries, not {len(value)}")
    return value


def _choice(value, path: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        _fail(path, f"must be one of {', '.join(repr(a) for a in allowed)}, "
                    f"not {_describe(value)}")
    return value


def _tile_kind(value, path: str) -> int:
    """Kind of a tile name (exact spelling of tiles.csv, or One More Round)."""
    if not isinstance(value, str):
        _fail(path, f"must be a tile name, not {_describe(value)}")
    if value not in _TILE_KINDS:
        _fail(path, f"unknown tile {quoted(value)}")
    return _TILE_KINDS[value]


def _goal_index(value, path: str) -> int:
    if not isinstance(value, str):
        _fail(path, f"must be a goal name, not {_describe(value)}")
    if value not in _GOAL_INDICES:
        _fail(path, f"unknown goal {quoted(value)}")
    return _GOAL_INDICES[value]


def _read_config(value, path: str) -> GameConfig:
    fields = _object(value, path, _CONFIG_FIELDS)
    players = _int(fields["players"], _join(path, "players"), 1, c.MAX_PLAYERS)
    mode = _choice(fields["mode"], _join(path, "mode"), c.MODE_NAMES)
    edition = _choice(fields["edition"], _join(path, "edition"), c.EDITION_NAMES)
    random_goals = _bool(fields["random_private_goals"], _join(path, "random_private_goals"))
    try:
        return GameConfig(players, mode, edition, random_goals)
    except ConfigError as error:
        raise StateFormatError(f"{_join(path, 'players')}: {error}") from None


def _read_seed(value, path: str, required: bool) -> int | None:
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        _fail(path, f"must be a non-negative integer{'' if required else ' or null'}, "
                    f"not {_describe(value)}")
    if value.bit_length() > _SEED_BITS:
        _fail(path, f"an integer of {value.bit_length()} bits; seeds have at most "
                    f"{_SEED_BITS} (so that they survive JSON text)")
    return value


def _read_header(data: dict, name: str, version: int) -> int:
    """The document's format version: the current one, or an older one still readable."""
    if not isinstance(data["format"], str) or data["format"] != name:
        _fail("format", f"must be {name!r}, not {_describe(data['format'])}")
    found = _int(data["version"], "version", 1)
    if found != version and found not in MODES_UNCHANGED_SINCE:
        _fail("version", f"version {found} is not supported (this library reads versions "
                         f"{', '.join(map(str, sorted({version, *MODES_UNCHANGED_SINCE})))})")
    return found


def _check_rules_of_version(found: int, config: GameConfig) -> None:
    """An older document loads only where the rules it was played under are today's
    (RULES.md "Revisions"); it never goes on under rules it was not played with."""
    unchanged_modes = MODES_UNCHANGED_SINCE.get(found)
    if unchanged_modes is not None and config.mode not in unchanged_modes:
        revision = revision_after(found)
        _fail("version", f"version {found} was written under the rules before the revision of "
                         f"{revision.rules} ({', '.join(revision.rule_ids)} changed the "
                         f"{config.mode} game); it "
                         f"cannot be loaded or replayed under the revised rules. Version "
                         f"{found} is read for {' and '.join(unchanged_modes)} games only")


def refuse_sealed_save(data) -> None:
    """StateFormatError saying what a sealed browser save is and how to open it, for a
    document that is one (no state or record can be read from it, R10.2)."""
    if isinstance(data, dict) and isinstance(data.get("format"), str) \
            and data["format"] == SEALED_FORMAT:
        raise StateFormatError(
            "this is a sealed browser save (made by 'suburbia serve'), which only the "
            "server that sealed it can open: run `suburbia serve` as the same user on the "
            "same machine and open this file in the browser (\"Open a file…\") to continue")
