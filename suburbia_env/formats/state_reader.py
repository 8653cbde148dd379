"""Reading the state format (docs/state-format.md) into a state vector that
`check_reachable` judges; the reader keeps no rule of its own."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine import constants as c
from ..engine import state_layout as s
from ..engine.checks.codes import FINDING_SIZE
from ..engine.checks.explain import explain_finding
from ..engine.checks.invariants import check_reachable_at
from ..engine.hex_grid import MAX_COLUMN, MIN_COLUMN, NUM_ROWS, cell_index
from ..engine.resolution import put_tile
from ..engine.setup import stack_sizes
from ..engine.tile_data import TILES
from ..errors import StateFormatError
from ..engine.game_config import GameConfig
from .reading import (_BEYOND, _INT32_MAX, _WORD_MAX, _bool, _check_rules_of_version, _choice,
                      _describe, _fail, _goal_index, _int, _list, _object, _parse_json,
                      _read_config, _read_header, _read_seed, quoted, _tile_kind,
                      refuse_sealed_save)
from .records import HINTS_FIELD, read_hints_used
from .state_writer import STATE_FORMAT, STATE_VERSION

_STATE_FIELDS = ("format", "version", "config", "seed", "round", "final_round",
                 "first_player", "current_player", "pending_decision", "game_over",
                 "placement_counter", "rng_state", "market", "stacks", "drawn", "supply",
                 "discarded", "box", "public_goals", "players")
_PLAYER_FIELDS = ("money", "income", "reputation", "population", "markers_left",
                  "private_goal", "goal_options", "borough", "score")
_CELL_FIELDS = ("col", "row", "tile", "lake", "invested", "sequence")
_SCORE_FIELDS = ("population_before_goals", "public_goals", "private_goal", "money_converted",
                 "final_population", "winner")
_STACKS = ("A", "B", "C")


class LoadedState(NamedTuple):
    """What a Game is built from (`Game.from_state`): the state passed `check_reachable`."""

    config: GameConfig
    state: np.ndarray
    seed: int | None


def read_state_json(text: str | bytes) -> LoadedState:
    """The state of a state-format text (str, or bytes in UTF-8, -16 or -32)."""
    return read_state(_parse_json(text, "state"))


def read_state(data) -> LoadedState:
    """The state of a state-format dict, read field by field and judged by the rules
    (`check_reachable`); StateFormatError names the field at fault and the rule. Only
    states that play can reach load, as far as that shows without replaying."""
    refuse_sealed_save(data)
    loader = _StateLoader(data)
    return LoadedState(loader.config, loader.state, loader.seed)


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
        optional = (HINTS_FIELD,) if isinstance(data, dict) and HINTS_FIELD in data else ()
        data = _object(data, "", _STATE_FIELDS + optional)
        version = _read_header(data, STATE_FORMAT, STATE_VERSION)
        self.data = data
        self.config = _read_config(data["config"], "config")
        if optional:
            read_hints_used(data, self.config.players)
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
        if path in self.nulls:
            return "null"
        return quoted(self.written[path]) if path in self.written else str(value)

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
                shown = name if isinstance(name, str) and len(name) <= 60 else quoted(name)
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
