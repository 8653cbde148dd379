"""Saving and loading games: a versioned JSON state format and a replayable game record.

Versions of both formats
========================

=======  ==================================================================================
version  rules
=======  ==================================================================================
2        RULES.md as revised on 2026-11-25: the player of the Dale game draws two goals and
         keeps one (R9.2); falling back below a red line in Solitary Architect gives +1/+1
         (R9.1). Written by this library.
1        the rules before that revision. Still read for standard games, whose rules did not
         change; a solitary or Dale game of version 1 is refused with `StateFormatError`
         naming the version, never continued or replayed under the revised rules.
=======  ==================================================================================

State format ``suburbia-state``, version 2
==========================================

A complete game state, like FEN for chess: loading it restores the engine's state
vector element for element, and saving a loaded game gives back the same text. Tiles
and goals are named as in tiles.csv and goals.csv (exact spelling); cells are
``col`` -6..6, ``row`` 0..8 (R2.1). Seats are numbered from 0; with Dale, seat 1 is Dale.

=================================  =================================================================
field                              meaning
=================================  =================================================================
``format``                         ``"suburbia-state"``
``version``                        ``2`` (``1`` read for standard games, see above)
``config.players``                 people at the table: 2-4 in standard, 1 in solitary, dale (R3.1)
``config.mode``                    ``"standard"``, ``"solitary"`` (R9.1) or ``"dale"`` (R9.2)
``config.edition``                 ``"2nd"`` (R3.2) or ``"1st"`` (R3.3)
``config.random_private_goals``    true: the engine kept a random goal for each player (R3.6)
``seed``                           the integer the game was set up with, or null (informational)
``round``                          current round, counted from 0 (R1.5)
``final_round``                    the last round to be played, null until One More Round is drawn
                                   (R4.3); with Dale the game ends at once and it is ``round - 1``
``first_player``                   seat of the first player (R3.6); 0 in the solo modes
``current_player``                 seat that decides now; null when the game is over
``pending_decision``               ``"keep_goal"``, ``"turn"``, ``"discard"``, ``"remove"`` or
                                   ``"none"`` (game over)
``game_over``                      true once the game has been scored (R8.2)
``placement_counter``              sequence number of the next placement; the starting tiles are 0
``rng_state``                      the four 32-bit words (0..2**32-1) of the xoshiro128** generator
``market``                         7 entries for slots 0..6 (R4.1): tile name or null; Dale uses
                                   slots 2..5 only (R9.2)
``stacks.A``, ``.B``, ``.C``       the tiles still to draw from each stack, in draw order; One More
                                   Round sits in C until it is drawn (R3.2, R3.3, R9.2)
``drawn``                          the tiles already drawn from the stacks, in draw order, One More
                                   Round included. With the stack sizes of the configuration this
                                   restores the pile and its position exactly
``supply``                         basic tiles left: ``suburbs``, ``park``, ``factory``, 0..4 (R3.5)
``discarded``                      count per tile name of discarded tiles, One More Round included
                                   once set aside (R4.3); names with a count of 0 are left out
``box``                            count per tile name of the tiles not used in this game
``public_goals``                   goal names: as many as players in standard, 3 with Dale, none in
                                   solitary (R3.6, R9)
``players``                        one object per seat
``players[i].money``               dollars, >= 0 (R1.3)
``players[i].income``              income level -5..15 (R1.2)
``players[i].reputation``          reputation level -5..15 (R1.2)
``players[i].population``          population, >= 0 (R1.3)
``players[i].markers_left``        investment markers not yet placed: 3 minus the invested tiles
``players[i].private_goal``        the kept goal, or null (not chosen yet, Solitary Architect, Dale)
``players[i].goal_options``        the two goals drawn at setup (R3.6, R9.2); ``[]`` in Solitary
                                   Architect and for Dale
``players[i].borough``             the cells in placement order, the starting tiles (R2.3) first;
                                   each ``{"col", "row", "tile", "lake", "invested", "sequence"}``
                                   where ``tile`` is the tile's name (a lake keeps the name of
                                   the tile turned face down), ``lake`` and ``invested`` are
                                   true/false and ``sequence`` is the global placement number
                                   (0 for the starting tiles, R6.5, R7.2)
``players[i].score``               null until the game is over; then (R8.2, R8.3)
                                   ``population_before_goals``, ``public_goals`` (the bonus won
                                   on each public goal, in the order of ``public_goals``),
                                   ``private_goal`` (the bonus won), ``money_converted``,
                                   ``final_population`` and ``winner`` (true/false)
=================================  =================================================================

Everything the engine derives (tile, lake and feature counts, the placeable cells, the
placement order index) is rebuilt from the boroughs on load, never read from the file.

What loading checks
-------------------
A state loads only if play can reach it, as far as that can be checked without
replaying; anything else raises `StateFormatError` naming the field at fault and the
rule, e.g. ``players[1].income: 17 is outside -5..15 (R1.2)``. A failed load builds no
game. The loader itself checks only what the text must be to fill a state vector:

- the text: at most `MAX_DOCUMENT_SIZE` characters, JSON (UTF-8, -16 or -32), each
  object's fields exactly those above, each once, the types above; malformed text, deep
  nesting or numbers of thousands of digits are refused like any other error, so a load
  takes bounded time and memory whatever its input;
- the version (above) and the configuration (R3.1, R3.2, R3.3, R9); ``rng_state`` four
  words 0..2**32-1; names of tiles and goals; the lengths that lay the document out
  (7 market slots, one entry per seat, the stacks of the configuration, at most 4 public
  and 2 drawn goals); cells on the grid (R2.1), each once; null where the format has it.

Everything else is the rules, checked once, by `invariants.check_reachable` (compiled;
the engine's own invariants, `invariants.check_invariants`, with it), whose finding
names the field and the rule (`invariants.explain_finding`); a number beyond int32 is
shown as the document wrote it. That covers:

- every integer within what the rules allow: levels -5..15 (R1.2); money
  0..`invariants.MONEY_BOUND` and population 0..`invariants.POPULATION_BOUND`, bounds
  derived from the tiles and the number of turns (R1.3 puts none above; play does, see
  invariants.py); ``round`` 0..`invariants.last_round` of the configuration, the last
  round the stacks allow; ``placement_counter`` at most one number per free cell;
  supply 0..4 (R3.5); seats, slots and cells on their ranges;
- the stacks: the sizes of the configuration, each position a tile of its stack, One
  More Round once inside its block (R3.2, R3.3, R9.2), set aside once drawn (R4.3);
- every physical tile in exactly one place (tiles.csv copies), and ``drawn`` exactly
  the lettered tiles now on the table (lakes included), in the market and discarded,
  nothing on the table that was never drawn; the basic tiles on the table are the
  starting tiles plus those taken from the supply (R3.5);
- the tiles drawn match the turns played: 7 at setup, then one a turn (two in Solitary
  Architect, four a round with Dale) while the stacks last (R4.2, R9); ``final_round`` is
  the round after the turn that drew One More Round, with Dale the round before the one
  whose start drew it (R4.3, R9.1, R9.2);
- a market that R4.2 can produce: A, B and C tiles packed toward slot 6 in the order they
  were drawn, the newest in slot 0, full while the stacks hold tiles, one slot open only
  during a Solitary Architect removal (R9.1); with Dale slots 2..5 only, holding the tiles
  drawn at the round start (R9.2);
- boroughs: the starting tiles first (R2.3), each later tile next to an earlier one in
  placement order (R2.4), lakes made of market tiles (R5.1c), placement numbers 1 ..
  ``placement_counter - 1`` each used once, in order within a borough (R7.2), markers
  left = 3 - invested tiles (R3.4, R5.1d);
- turns: at most one placement or investment per turn taken (R5.1), the start values
  (R3.4) for a player who has not finished a turn; the player always first against Dale,
  who places exactly one tile per round, never a lake, never invests, and has a free cell
  whenever he must still place (R9.2);
- goals: the public goals of the mode, two drawn goals per player who draws (not Dale),
  kept in turn order before the first turn, none dealt twice (R3.6, R9);
- the pending decision: one of the current player's (never Dale's, R9.2) with a legal
  action: a pending discard or removal needs a slot whose premium the player can pay
  (with none the engine skips it, R5.1b, d, R9.1); goals are kept in round 0 only;
- the end: ``game_over`` with ``pending_decision`` "none" and no current player; the
  score block null until then, afterwards exactly what scoring.py computes from the board
  (goal bonuses, money converted, final population, winners, R8.2, R8.3).

tests/engine/test_properties.py runs `check_reachable` at every decision of thousands of
random games: every state play reaches loads.

Game record format ``suburbia-record``, version 2
=================================================

``{"format": "suburbia-record", "version": 2, "config": {...}, "seed": 7, "actions": [...]}``:
the configuration and seed of the setup and every decision in the action notation
(notation.py), in order. Replaying sets the game up again and applies the actions one by
one, reaching the identical state.
"""

from __future__ import annotations

import json

import numpy as np

from ..engine import constants as c
from ..engine import state_layout as s
from ..errors import ConfigError, StateFormatError, SuburbiaError
from ..game import Game, GameConfig
from ..engine.hex_grid import MAX_COLUMN, MIN_COLUMN, NUM_ROWS, cell_index
from ..engine.checks.codes import FINDING_SIZE
from ..engine.checks.explain import explain_finding
from ..engine.checks.invariants import check_reachable_at
from ..engine.resolution import put_tile
from ..engine.setup import stack_sizes
from ..engine.tile_data import GOALS, TILES
from ..versions import FORMAT_VERSION, MODES_UNCHANGED_SINCE, RULES_REVISION

STATE_FORMAT = "suburbia-state"
STATE_VERSION = FORMAT_VERSION
RECORD_FORMAT = "suburbia-record"
RECORD_VERSION = FORMAT_VERSION
SEALED_FORMAT = "suburbia-sealed-game"  # a browser save, sealed by the server (web/sealing.py)

_INT32_MAX = 2**31 - 1
_BEYOND = float("inf")  # `_int` bounds of a value only type-checked
_SEED_BITS = 8192
_WORD_MAX = 2**32 - 1
MAX_DOCUMENT_SIZE = 1_000_000
"""Characters (or bytes) a state or record document may have: a finished 4-player game's
state takes about 30,000 and its record about 8,000; anything longer is refused before
parsing, so a load takes bounded time and memory whatever its input."""
_LINE_WIDTH = 116  # a borough cell with the longest tile name fits on one line

_STATE_FIELDS = ("format", "version", "config", "seed", "round", "final_round",
                 "first_player", "current_player", "pending_decision", "game_over",
                 "placement_counter", "rng_state", "market", "stacks", "drawn", "supply",
                 "discarded", "box", "public_goals", "players")
_CONFIG_FIELDS = ("players", "mode", "edition", "random_private_goals")
_PLAYER_FIELDS = ("money", "income", "reputation", "population", "markers_left",
                  "private_goal", "goal_options", "borough", "score")
_CELL_FIELDS = ("col", "row", "tile", "lake", "invested", "sequence")
_SCORE_FIELDS = ("population_before_goals", "public_goals", "private_goal", "money_converted",
                 "final_population", "winner")
_RECORD_FIELDS = ("format", "version", "config", "seed", "actions")
_STACKS = ("A", "B", "C")

_TILE_KINDS = {name: kind for kind, name in enumerate(TILES.names) if kind != TILES.lake}
_GOAL_INDICES = {name: index for index, name in enumerate(GOALS.names)}


# Saving -------------------------------------------------------------------------------

def game_to_dict(game: Game) -> dict:
    """The state format as a dict of plain JSON values (see the module docstring)."""
    state = game.state
    over = game.is_over
    final_round = int(state[s.FINAL_ROUND])
    position = int(state[s.PILE_POSITION])
    a_end, b_end, end = (int(state[s.PILE_A_END]), int(state[s.PILE_B_END]),
                         int(state[s.PILE_END]))
    pile = [TILES.names[kind] for kind in s.pile_view(state)[:end]]
    scores = game.final_scores() if over else [None] * game.num_seats
    return {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "config": game.config.to_dict(),
        "seed": None if game.seed is None else int(game.seed),
        "round": game.round,
        "final_round": final_round if final_round >= 0 else None,
        "first_player": int(state[s.FIRST_PLAYER]),
        "current_player": None if over else game.current_player,
        "pending_decision": game.pending_decision,
        "game_over": over,
        "placement_counter": int(state[s.PLACEMENT_COUNTER]),
        "rng_state": [int(word) & _WORD_MAX for word in s.rng_words(state)],
        "market": [TILES.names[kind] if kind >= 0 else None
                   for kind in s.market_slots(state)],
        "stacks": {"A": pile[min(position, a_end):a_end],
                   "B": pile[max(position, a_end):b_end],
                   "C": pile[max(position, b_end):end]},
        "drawn": pile[:position],
        "supply": game.supply(),
        "discarded": _counts_by_name(s.discarded_counts(state)[:TILES.num_kinds]),
        "box": _counts_by_name(s.box_counts(state)[:TILES.num_kinds]),
        "public_goals": game.public_goals,
        "players": [_player_to_dict(game, player, scores[player])
                    for player in range(game.num_seats)],
    }


def game_to_json(game: Game) -> str:
    """The state format as JSON text; `game_from_json` of it restores the game exactly."""
    return _format_json(game_to_dict(game)) + "\n"


def _counts_by_name(counts: np.ndarray) -> dict[str, int]:
    return {TILES.names[kind]: int(count) for kind, count in enumerate(counts) if count}


def _player_to_dict(game: Game, player: int, score: dict | None) -> dict:
    public = game.player_state(player)
    sequences = s.cell_sequences(game.state, player)
    borough = [dict(cell, sequence=int(sequences[cell_index(cell["col"], cell["row"])]))
               for cell in public["borough"]]
    if score is not None:
        score = {"population_before_goals": score["population_before_goals"],
                 "public_goals": list(score["public_goals"].values()),
                 "private_goal": score["private_goal_bonus"],
                 "money_converted": score["money_converted"],
                 "final_population": score["population"],
                 "winner": score["winner"]}
    return {
        "money": public["money"],
        "income": public["income"],
        "reputation": public["reputation"],
        "population": public["population"],
        "markers_left": public["markers_left"],
        "private_goal": game.private_goal(player),
        "goal_options": game.goal_options(player),
        "borough": borough,
        "score": score,
    }


def _format_json(value, indent: int = 0, key: str = "") -> str:
    """`key` and JSON `value` on one line when they fit; otherwise the items go one per
    line, or, when they are all plain values (names, numbers), as many per line as fit."""
    flat = key + json.dumps(value, separators=(", ", ": "))
    if not isinstance(value, (dict, list)) or not value or indent + len(flat) < _LINE_WIDTH:
        return flat
    if isinstance(value, dict):
        items = [_format_json(item, indent + 2, json.dumps(name) + ": ")
                 for name, item in value.items()]
        opening, closing, values = "{", "}", value.values()
    else:
        items = [_format_json(item, indent + 2) for item in value]
        opening, closing, values = "[", "]", value
    inner = " " * (indent + 2)
    lines = items
    if not any(isinstance(item, (dict, list)) for item in values):
        lines = [items[0]]
        for item in items[1:]:
            if len(inner) + len(lines[-1]) + len(", ") + len(item) < _LINE_WIDTH:
                lines[-1] += ", " + item
            else:
                lines.append(item)
    body = ",\n".join(inner + line for line in lines)
    return f"{key}{opening}\n{body}\n{' ' * indent}{closing}"


# Reading values -----------------------------------------------------------------------

def _fail(path: str, message: str):
    raise StateFormatError(f"{path}: {message}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _text(value) -> str:
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
        return f"{_text(value)} (a string)"
    if isinstance(value, float):
        return f"{value!r} (not a whole number)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return _text(value)


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
            raise StateFormatError(f"JSON: field {_text(key)} appears twice in one object")
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
            name = field if isinstance(field, str) and len(field) <= 60 else _text(field)
            _fail(_join(path, name), f"unknown field (expected: {', '.join(fields)})")
    return value


def _int(value, path: str, low: int = -_INT32_MAX - 1, high: int = _INT32_MAX,
         why: str = "") -> int:
    """An integer within low..high; `why` explains the bounds in the error message."""
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, f"must be an integer, not {_describe(value)}")
    if not low <= value <= high:
        _fail(path, f"{_text(value)} is outside {low}..{high}" + (f" ({why})" if why else ""))
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
        _fail(path, f"unknown tile {_text(value)}")
    return _TILE_KINDS[value]


def _goal_index(value, path: str) -> int:
    if not isinstance(value, str):
        _fail(path, f"must be a goal name, not {_describe(value)}")
    if value not in _GOAL_INDICES:
        _fail(path, f"unknown goal {_text(value)}")
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
        _fail("version", f"version {found} was written under the rules before the revision of "
                         f"{RULES_REVISION} (R9.1, R9.2 changed the {config.mode} game); it "
                         f"cannot be loaded or replayed under the revised rules. Version "
                         f"{found} is read for {' and '.join(unchanged_modes)} games only")


# Loading --------------------------------------------------------------------------------

def game_from_json(text: str | bytes) -> Game:
    """The game saved by `game_to_json`; StateFormatError names the first field at fault."""
    return game_from_dict(_parse_json(text, "state"))


def refuse_sealed_save(data) -> None:
    """StateFormatError saying what a sealed browser save is and how to open it, for a
    document that is one (no state or record can be read from it, R10.2)."""
    if isinstance(data, dict) and isinstance(data.get("format"), str) \
            and data["format"] == SEALED_FORMAT:
        raise StateFormatError(
            "this is a sealed browser save (made by 'suburbia serve'), which only the "
            "server that sealed it can open: run `suburbia serve` as the same user on the "
            "same machine and open this file in the browser (\"Open a file…\") to continue")


def game_from_dict(data) -> Game:
    """The game of a state-format dict, checked field by field and against the rules
    (the module docstring lists the checks); StateFormatError names the first field at
    fault. Only states that play can reach load, as far as that shows without replaying."""
    refuse_sealed_save(data)
    loader = _StateLoader(data)
    return Game.from_state(loader.config, loader.state, loader.seed)


class _StateLoader:
    """Reads a state-format dict into a fresh state vector, then lets
    `invariants.check_reachable` judge it.

    The reader checks what the text must be to fill a state vector at all: fields, types,
    names, lengths, cells on the grid and each once. Every rule of the game, ranges
    included, is `check_reachable`'s; its finding names the field (`explain_finding`),
    and a value the document held beyond int32 or as null is shown as it was written.
    Nothing outside this object is touched until the load has succeeded.
    """

    def __init__(self, data):
        data = _object(data, "", _STATE_FIELDS)
        version = _read_header(data, STATE_FORMAT, STATE_VERSION)
        self.data = data
        self.config = _read_config(data["config"], "config")
        _check_rules_of_version(version, self.config)
        self.seed = _read_seed(data["seed"], "seed", required=False)
        self.mode = self.config.mode_id
        self.seats = self.config.seats
        self.written: dict[str, object] = {}  # values beyond int32, as the document had them
        self.nulls: dict[str, str] = {}  # fields left null that the game needs filled
        self.state = self._empty_state()
        self._read_progress()
        self._read_market()
        self._read_pile()
        self._read_supply_discarded_box()
        self._read_goals()
        players = _list(data["players"], "players", self.seats)
        for player, value in enumerate(players):
            self._read_player(player, value, f"players[{player}]")
        self._check_reachable()

    def _number(self, value, path: str) -> int:
        """An integer for the state vector: one beyond int32 is kept at the nearest bound,
        which no rule allows, and shown as written when the check refuses it."""
        value = _int(value, path, -_BEYOND, _BEYOND)
        if not -_INT32_MAX - 1 <= value <= _INT32_MAX:
            self.written[path] = value
            return _INT32_MAX if value > 0 else -_INT32_MAX - 1
        return value

    def _shown(self, path: str, value: int) -> str:
        return _text(self.written[path]) if path in self.written else str(value)

    def _check_reachable(self) -> None:
        """`check_reachable` (engine/checks), its finding named by field and rule."""
        finding = np.zeros(FINDING_SIZE, dtype=np.int64)
        if int(check_reachable_at(self.state, TILES.table, finding)) == 0:
            return
        field, message = explain_finding(finding, self.state, self._shown)
        for path, expected in self.nulls.items():
            if field == path or field.startswith(path + "."):
                field, message = path, f"must be {expected}, not null: {message}"
        raise StateFormatError(f"{field}: {message}")

    def _empty_state(self) -> np.ndarray:
        """A state with the configuration and every 'empty' marker as new_game sets it."""
        state = np.zeros(s.STATE_SIZE, dtype=np.int32)
        state[s.NUM_PLAYERS] = self.seats
        state[s.MODE] = self.mode
        state[s.EDITION] = self.config.edition_id
        state[s.RANDOM_PRIVATE_GOALS] = int(self.config.random_private_goals)
        s.market_slots(state)[:] = -1
        s.public_goals(state)[:] = -1
        for player in range(c.MAX_PLAYERS):
            s.cell_kinds(state, player)[:] = -1
            s.set_private_goal(state, player, -1)
            s.goal_options(state, player)[:] = -1
        return state

    # Turn progress ---------------------------------------------------------------------

    def _read_progress(self) -> None:
        data, state = self.data, self.state
        state[s.ROUND] = self._number(data["round"], "round")
        final_round = data["final_round"]
        if final_round is not None and not (isinstance(final_round, int)
                                            and not isinstance(final_round, bool)
                                            and final_round >= 0):
            _fail("final_round", f"must be null or a round (an integer >= 0), not "
                                 f"{_describe(final_round)}")
        state[s.FINAL_ROUND] = (-1 if final_round is None
                                else self._number(final_round, "final_round"))
        state[s.FIRST_PLAYER] = self._number(data["first_player"], "first_player")
        self.over = _bool(data["game_over"], "game_over")
        state[s.GAME_OVER] = int(self.over)
        state[s.PENDING_DECISION] = c.DECISION_NAMES.index(
            _choice(data["pending_decision"], "pending_decision", c.DECISION_NAMES))
        current_player = data["current_player"]
        if current_player is None:
            if not self.over:
                self.nulls["current_player"] = "an integer"
            state[s.CURRENT_PLAYER] = -1
        else:
            state[s.CURRENT_PLAYER] = self._number(current_player, "current_player")
        state[s.PLACEMENT_COUNTER] = self._number(data["placement_counter"],
                                                  "placement_counter")
        words = _list(data["rng_state"], "rng_state", 4)
        for index, word in enumerate(words):
            word = _int(word, f"rng_state[{index}]", 0, _WORD_MAX)
            s.set_rng_word(state, index, word - 2**32 if word > _INT32_MAX else word)

    # Market and stacks -----------------------------------------------------------------

    def _read_market(self) -> None:
        slots = _list(self.data["market"], "market", c.NUM_SLOTS)
        for slot, value in enumerate(slots):
            if value is not None:
                s.set_market_slot(self.state, slot, _tile_kind(value, f"market[{slot}]"))

    def _read_pile(self) -> None:
        """The remaining stacks and the drawn tiles make up the whole pile, laid out by the
        stack sizes of the configuration (R3.2, R3.3, R9.2)."""
        sizes = [int(size) for size in stack_sizes(self.seats, self.mode, self.config.edition_id)]
        count_a, count_b, c_first, c_block, c_last = sizes
        ends = {"A": count_a, "B": count_a + count_b,
                "C": count_a + count_b + c_first + c_block + 1 + c_last}
        starts = {"A": 0, "B": ends["A"], "C": ends["B"]}
        stacks = _object(self.data["stacks"], "stacks", _STACKS)
        drawn = _list(self.data["drawn"], "drawn")
        position = len(drawn)
        if position > ends["C"]:
            _fail("drawn", f"{position} tiles drawn, but the stacks of this configuration hold "
                           f"{ends['C']} (R3.2, R3.3, R9.2)")
        entries = [(value, f"drawn[{index}]") for index, value in enumerate(drawn)]
        for name in _STACKS:
            remaining = _list(stacks[name], f"stacks.{name}")
            expected = ends[name] - max(starts[name], min(position, ends[name]))
            if len(remaining) != expected:
                _fail(f"stacks.{name}", f"holds {len(remaining)} tiles, but the {name} stack of "
                                        f"this configuration has {ends[name] - starts[name]} "
                                        f"and {ends[name] - starts[name] - expected} of them "
                                        f"were drawn, so {expected} are left (R3.2, R3.3, R9.2)")
            entries += [(value, f"stacks.{name}[{index}]") for index, value in enumerate(remaining)]
        for index, (value, path) in enumerate(entries):
            s.set_pile_tile(self.state, index, _tile_kind(value, path))
        self.state[s.PILE_POSITION] = position
        self.state[s.PILE_A_END] = ends["A"]
        self.state[s.PILE_B_END] = ends["B"]
        self.state[s.PILE_END] = ends["C"]

    def _read_supply_discarded_box(self) -> None:
        supply = _object(self.data["supply"], "supply", c.BASIC_NOTATION_NAMES)
        for basic, name in enumerate(c.BASIC_NOTATION_NAMES):
            s.set_supply(self.state, basic, self._number(supply[name], f"supply.{name}"))
        for field, counts_of in (("discarded", s.discarded_counts), ("box", s.box_counts)):
            counts = self.data[field]
            if not isinstance(counts, dict):
                _fail(field, f"must be an object of tile counts, not {_describe(counts)}")
            for name, count in counts.items():
                shown = name if isinstance(name, str) and len(name) <= 60 else _text(name)
                path = f"{field}.{shown}"
                counts_of(self.state)[_tile_kind(name, path)] = self._number(count, path)

    # Goals -----------------------------------------------------------------------------

    def _read_goals(self) -> None:
        goals = _list(self.data["public_goals"], "public_goals")
        if len(goals) > c.MAX_PLAYERS:
            _fail("public_goals", f"holds {len(goals)} goals; no mode deals more than "
                                  f"{c.MAX_PLAYERS} (R3.6, R9)")
        for index, value in enumerate(goals):
            s.set_public_goal(self.state, index, _goal_index(value, f"public_goals[{index}]"))
        self.public_goals = len(goals)

    # Players ---------------------------------------------------------------------------

    def _read_player(self, player: int, value, path: str) -> None:
        fields = _object(value, path, _PLAYER_FIELDS)
        state = self.state
        s.set_money(state, player, self._number(fields["money"], f"{path}.money"))
        s.set_income(state, player, self._number(fields["income"], f"{path}.income"))
        s.set_reputation(state, player,
                         self._number(fields["reputation"], f"{path}.reputation"))
        s.set_population(state, player,
                         self._number(fields["population"], f"{path}.population"))
        s.set_markers_left(state, player,
                           self._number(fields["markers_left"], f"{path}.markers_left"))
        options = _list(fields["goal_options"], f"{path}.goal_options")
        if len(options) > 2:
            _fail(f"{path}.goal_options", f"holds {len(options)} goals; a player draws two "
                                          f"(R3.6)")
        for index, option in enumerate(options):
            s.set_goal_option(state, player, index,
                              _goal_index(option, f"{path}.goal_options[{index}]"))
        if fields["private_goal"] is not None:
            s.set_private_goal(state, player,
                               _goal_index(fields["private_goal"], f"{path}.private_goal"))
        self._read_borough(player, fields["borough"], f"{path}.borough")
        self._read_score(player, fields["score"], f"{path}.score")

    def _read_borough(self, player: int, value, path: str) -> None:
        """Put the cells in the order listed; the derived entries come from put_tile."""
        taken: dict[int, int] = {}
        for index, entry in enumerate(_list(value, path)):
            where = f"{path}[{index}]"
            fields = _object(entry, where, _CELL_FIELDS)
            column = _int(fields["col"], f"{where}.col", MIN_COLUMN, MAX_COLUMN)
            row = _int(fields["row"], f"{where}.row", 0, NUM_ROWS - 1)
            kind = _tile_kind(fields["tile"], f"{where}.tile")
            lake = _bool(fields["lake"], f"{where}.lake")
            invested = _bool(fields["invested"], f"{where}.invested")
            sequence = self._number(fields["sequence"], f"{where}.sequence")
            cell = cell_index(column, row)
            if cell in taken:
                _fail(where, f"cell ({column}, {row}) is already taken by "
                             f"{path}[{taken[cell]}]")
            taken[cell] = index
            put_tile(self.state, TILES.table, player, cell, kind, lake, sequence)
            if invested:
                s.add_cell_flags(self.state, player, cell, s.FLAG_INVESTED)

    def _read_score(self, player: int, value, path: str) -> None:
        if value is None:
            if self.over:
                self.nulls[path] = "an object"
            return
        if not self.over:
            _fail(path, "must be null until the game is over (R8.2)")
        fields = _object(value, path, _SCORE_FIELDS)
        state = self.state
        bonuses = _list(fields["public_goals"], f"{path}.public_goals", self.public_goals)
        for index, bonus in enumerate(bonuses):
            s.set_public_goal_bonus(state, player, index,
                                    self._number(bonus, f"{path}.public_goals[{index}]"))
        for field, entry in (("population_before_goals", s.SCORE_POPULATION_BEFORE_GOALS),
                             ("private_goal", s.SCORE_PRIVATE_GOAL),
                             ("money_converted", s.SCORE_MONEY_CONVERTED),
                             ("final_population", s.SCORE_FINAL_POPULATION)):
            s.set_score_entry(state, player, entry,
                              self._number(fields[field], f"{path}.{field}"))
        s.set_score_entry(state, player, s.SCORE_WINNER,
                          int(_bool(fields["winner"], f"{path}.winner")))


# Game records ---------------------------------------------------------------------------

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
