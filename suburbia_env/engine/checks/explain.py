"""What a failed `check_reachable_at` found, in words: the field of the state format
(docs/state-format.md), the rule and the value at fault."""

from __future__ import annotations

from .. import constants as c
from .. import state_layout as s
from ..hex_grid import NUM_CELLS, cell_coordinates
from ..tile_data import GOALS, TILES
from .codes import (ADJACENCY_WRONG, CASE_BLOCK, CASE_COUNT, CASE_DALE, CASE_ENTRY,
                    CASE_EXPECTED, CASE_FINAL_ROUND, CASE_GAME_OVER, CASE_KIND, CASE_MISSING,
                    CASE_MODE, CASE_MONEY_LEFT, CASE_NOT_DRAWN, CASE_ORDER, CASE_POSITION,
                    CASE_RANGE, CASE_ROUND, CASE_SEQUENCE, CASE_SET_ASIDE, CASE_SUM,
                    CASE_TWICE, CELL_WRONG, COUNTER_WRONG, CURRENT_PLAYER_WRONG,
                    DECISION_WRONG, FINAL_ROUND_WRONG, FIRST_PLAYER_WRONG, F_PLACES,
                    GOALS_DEALT_WRONG, GOALS_KEPT_WRONG, INCOME_OUT_OF_RANGE,
                    LAKE_SOURCE_WRONG, MARKERS_WRONG, MARKET_WRONG, MONEY_NEGATIVE,
                    MONEY_TOO_LARGE, ONE_MORE_ROUND_BROKEN, ORDER_WRONG, PILE_WRONG, PLACES,
                    POPULATION_NEGATIVE, POPULATION_TOO_LARGE, PUBLIC_GOALS_WRONG,
                    REPUTATION_OUT_OF_RANGE, ROUND_WRONG, SCORE_MISMATCH, SCORE_WRONG,
                    SEQUENCE_WRONG, STARTING_TILES_WRONG, SUPPLY_WRONG, TILE_COUNT_BROKEN)
from .messages import _MESSAGES, invariant_field, invariant_message
from .bounds import NUM_GOALS
from .structure import _BASIC_KINDS, _NUM_STARTING, _STARTING_CELLS


def explain_finding(finding, state, shown=None) -> tuple[str, str]:
    """(field of the state format, message naming the rule and the value at fault) of a
    failed `check_reachable_at`; `shown(field, value)` prints a value as its document had
    it (default: the number)."""
    shown = shown or (lambda field, value: str(value))
    code, case, index, value, low, high = (int(x) for x in finding[:F_PLACES])
    reason, detail = divmod(code, 100)
    explain = _EXPLAIN.get((reason, case))
    if explain is None:
        return invariant_field(code), invariant_message(code)
    found = _Finding(state, detail, index, value, low, high, shown)
    found.places = [int(count) for count in finding[F_PLACES:F_PLACES + len(PLACES)]]
    return explain(found)


class _Finding:
    """What `explain_finding` reads of a finding, with the paths of the state format."""

    def __init__(self, state, detail, index, value, low, high, shown):
        self.state, self.detail, self.index = state, detail, index
        self.value, self.low, self.high, self._shown = value, low, high, shown

    def shown(self, field: str) -> str:
        return self._shown(field, self.value)

    def borough(self, player: int, position: int | None = None) -> str:
        path = f"players[{player}].borough"
        return path if position is None or position < 0 else f"{path}[{position}]"

    def position_of_cell(self, player: int, cell: int) -> int | None:
        count = min(int(s.tile_count(self.state, player)), NUM_CELLS)
        for position in range(max(count, 0)):
            if int(s.placed_cell(self.state, player, position)) == cell:
                return position
        return None

    def pile_path(self, position: int) -> str:
        """`drawn[i]` or `stacks.X[j]` of a pile position."""
        state = self.state
        drawn = int(state[s.PILE_POSITION])
        if position < drawn:
            return f"drawn[{position}]"
        ends = {"A": (0, int(state[s.PILE_A_END])),
                "B": (int(state[s.PILE_A_END]), int(state[s.PILE_B_END])),
                "C": (int(state[s.PILE_B_END]), int(state[s.PILE_END]))}
        for name, (start, end) in ends.items():
            if start <= position < end:
                return f"stacks.{name}[{position - max(start, drawn)}]"
        return "stacks"

    def first_dealt(self, goal: int) -> str:
        """Where a goal was first dealt: public goals, then each seat's drawn goals."""
        for index in range(c.MAX_PLAYERS):
            if int(s.public_goal(self.state, index)) == goal:
                return f"public_goals[{index}]"
        for player in range(int(self.state[s.NUM_PLAYERS])):
            for option in range(2):
                if int(s.goal_option(self.state, player, option)) == goal:
                    return f"players[{player}].goal_options[{option}]"
        return "public_goals"

    def sequence_owner(self, sequence: int) -> str:
        for player in range(int(self.state[s.NUM_PLAYERS])):
            for position in range(_NUM_STARTING, int(s.tile_count(self.state, player))):
                cell = int(s.placed_cell(self.state, player, position))
                if int(s.cell_sequence(self.state, player, cell)) == sequence:
                    return f"{self.borough(player, position)}.sequence"
        return "placement_counter"


def _range(field, why):
    """A value outside F_LOW..F_HIGH at `field` (a function of the finding)."""
    def explain(f):
        path = field(f)
        return path, f"{f.shown(path)} is outside {f.low}..{f.high} ({why})"
    return explain


def _fixed(field, message):
    return lambda f: (field(f), message(f))


def _seat(name):
    return lambda f: f"players[{f.detail}].{name}"


def _tile(kind: int) -> str:
    return TILES.names[kind] if 0 <= kind < TILES.num_kinds else f"kind {kind}"


def _goal(goal: int) -> str:
    return GOALS.names[goal] if 0 <= goal < NUM_GOALS else f"goal {goal}"


def _cell_path(f, suffix=""):
    position = f.position_of_cell(f.detail, f.index)
    return f.borough(f.detail, position) + (suffix if position is not None else "")


def _starting_tile(f):
    column, row = cell_coordinates(int(_STARTING_CELLS[f.index]))
    return (f.borough(f.detail, f.index),
            f"expected the starting {_tile(int(_BASIC_KINDS[f.index]))} at ({column}, {row}), "
            f"not a lake, sequence 0 (R2.3)")


def _not_adjacent(f):
    column, row = cell_coordinates(f.value)
    return (f.borough(f.detail, f.index),
            f"cell ({column}, {row}) is not connected: it is not next to an earlier tile in "
            f"placement order (R2.4)")


def _kept_goals(f):
    expected = "a kept goal" if f.low else "null (not chosen yet)"
    return (f"players[{f.detail}].private_goal",
            f"must be {expected}: goals are kept in turn order from the first player before "
            f"the first turn (R3.6)")


def _not_drawn(f):
    options = [_goal(int(g)) for g in s.goal_options(f.state, f.detail) if g >= 0]
    return (f"players[{f.detail}].private_goal",
            f"{_goal(f.value)!r} is not one of the goals this player drew "
            f"({', '.join(options) or 'none in this mode'}, R3.6)")


def _tile_count(f):
    places = ", ".join(f"{place} {count}" for place, count in zip(PLACES, f.places))
    return (f"tiles.{_tile(f.detail)}",
            f"{f.value} found ({places}), but tiles.csv has {f.low}: every physical tile "
            f"must be in exactly one place (R3.2, R3.5)")


def _bonus(f):
    if f.index == s.SCORE_PRIVATE_GOAL:
        return (f"players[{f.detail}].score.private_goal",
                f"{f.value}: the private goal bonus is {f.low} or 0 (R8.2)")
    index = f.index - s.SCORE_PUBLIC_GOALS
    return (f"players[{f.detail}].score.public_goals[{index}]",
            f"{f.value}: the bonus of {_goal(f.high)} is {f.low} or 0 (R8.2)")


_ENTRY_NAMES = {s.MONEY: "money", s.INCOME: "income", s.REPUTATION: "reputation",
                s.POPULATION: "population",
                s.SCORE_POPULATION_BEFORE_GOALS: "score.population_before_goals",
                s.SCORE_PRIVATE_GOAL: "score.private_goal",
                s.SCORE_MONEY_CONVERTED: "score.money_converted",
                s.SCORE_FINAL_POPULATION: "score.final_population"}


def _rescored(f):
    if f.index == s.SCORE_WINNER:
        return (f"players[{f.detail}].score.winner",
                f"must be {str(bool(f.low)).lower()}: the winners have the highest "
                f"population, then reputation, income and money (R8.3)")
    name = _ENTRY_NAMES.get(f.index)
    if name is None and s.SCORE_PUBLIC_GOALS <= f.index < s.SCORE_PRIVATE_GOAL:
        name = f"score.public_goals[{f.index - s.SCORE_PUBLIC_GOALS}]"
    return (f"players[{f.detail}].score",
            f"{_MESSAGES[SCORE_MISMATCH]}: {name or f'entry {f.index}'} is {f.value}, final "
            f"scoring gives {f.low}")


def _decision_name(f):
    return (c.DECISION_NAMES[f.value] if 0 <= f.value < len(c.DECISION_NAMES)
            else str(f.value))


def _decision_of_mode(f):
    if f.value == c.DECISION_REMOVE:
        return "pending_decision", "'remove' happens in Solitary Architect only (R9.1)"
    return ("pending_decision", f"{_decision_name(f)!r}: in this configuration nobody chooses "
                                f"a private goal (R3.6, R9)")


def _set_aside(f):
    if f.low:
        drawn = next(position for position in range(int(f.state[s.PILE_POSITION]))
                     if s.pile_tile(f.state, position) == TILES.one_more_round)
        return ("discarded", f"One More Round was drawn ({f.pile_path(drawn)}), so it is set "
                             f"aside with the discarded tiles (R4.3)")
    return ("tiles.One More Round", "One More Round is still in the stacks, so it is not "
                                    "set aside with the discarded tiles (R4.3)")


def _stack_name(stack: int) -> str:
    return c.STACK_NAMES[stack] if 0 <= stack < len(c.STACK_NAMES) else str(stack)


_LEVELS = "R1.2"
_EXPLAIN = {
    (FIRST_PLAYER_WRONG, CASE_RANGE): _range(lambda f: "first_player",
                                             "the first player is a seat, 0 in the solo "
                                             "modes, R3.6, R9.2"),
    (ROUND_WRONG, CASE_RANGE): _range(lambda f: "round", "the last round the stacks of this "
                                                         "configuration allow, R3.2, R3.3, "
                                                         "R4.3, R9"),
    (ROUND_WRONG, CASE_FINAL_ROUND): _fixed(
        lambda f: "final_round",
        lambda f: f"{f.shown('final_round')} is beyond round + 1 = {f.high}: One More Round "
                  f"makes the next round the last one (R4.3)"),
    (COUNTER_WRONG, CASE_RANGE): _range(lambda f: "placement_counter",
                                        "one number per free cell of every borough, R7.2"),
    (MONEY_NEGATIVE, CASE_RANGE): _range(_seat("money"), "R1.3"),
    (MONEY_TOO_LARGE, CASE_RANGE): _range(_seat("money"), "no game gives more, R1.3; "
                                                          "invariants.MONEY_BOUND"),
    (POPULATION_NEGATIVE, CASE_RANGE): _range(_seat("population"), "R1.3"),
    (POPULATION_TOO_LARGE, CASE_RANGE): _range(_seat("population"),
                                               "no game gives more, R1.3; "
                                               "invariants.POPULATION_BOUND"),
    (INCOME_OUT_OF_RANGE, CASE_RANGE): _range(_seat("income"), _LEVELS),
    (REPUTATION_OUT_OF_RANGE, CASE_RANGE): _range(_seat("reputation"), _LEVELS),
    (CELL_WRONG, CASE_KIND): _fixed(
        lambda f: _cell_path(f, ".tile"),
        lambda f: ("One More Round is never placed (R4.3)" if f.value == TILES.one_more_round
                   else f"{_tile(f.value)}: {_MESSAGES[CELL_WRONG]}")),
    (CELL_WRONG, CASE_SEQUENCE): _fixed(
        lambda f: _cell_path(f, ".sequence"),
        lambda f: f"{f.value} is outside "
                  f"{0 if (f.position_of_cell(f.detail, f.index) or 0) < _NUM_STARTING else 1}"
                  f"..{f.high} (placed tiles are numbered from 1 up to placement_counter - 1, "
                  f"R7.2)"),
    (ORDER_WRONG, CASE_ORDER): _fixed(
        lambda f: f"{f.borough(f.detail, f.index)}.sequence",
        lambda f: f"{f.value} comes after {f.low}: cells are listed in placement order (R7.2)"),
    (MARKERS_WRONG, CASE_RANGE): _range(_seat("markers_left"), "R3.4"),
    (MARKERS_WRONG, CASE_EXPECTED): _fixed(
        _seat("markers_left"),
        lambda f: f"{f.value}, but {c.START_MARKERS - f.low} tiles of the borough carry a "
                  f"marker: {f.low} are left of {c.START_MARKERS} (R3.4, R5.1d)"),
    (PUBLIC_GOALS_WRONG, CASE_COUNT): _fixed(
        lambda f: "public_goals",
        lambda f: f"holds {f.value} goals, but {c.MODE_NAMES[int(f.state[s.MODE])]} is played "
                  f"with {f.low} (R3.6, R9.1, R9.2)"),
    (PUBLIC_GOALS_WRONG, CASE_TWICE): _fixed(
        lambda f: f"public_goals[{f.index}]",
        lambda f: f"{_goal(f.value)!r} is already dealt as {f.first_dealt(f.value)} (each "
                  f"goal tile exists once, R3.6)"),
    (PUBLIC_GOALS_WRONG, CASE_DALE): _fixed(
        lambda f: f"public_goals[{f.index}]",
        lambda f: f"{_goal(f.value)!r} is about lakes or investment markers and is not played "
                  f"with Dale (R9.2)"),
    (GOALS_DEALT_WRONG, CASE_COUNT): _fixed(
        _seat("goal_options"),
        lambda f: f"must hold {f.low} entries, not {f.value}: two drawn goals for each player "
                  f"who draws, none for Dale or in Solitary Architect (R3.6, R9.1, R9.2)"),
    (GOALS_DEALT_WRONG, CASE_TWICE): _fixed(
        lambda f: f"players[{f.detail}].goal_options[{f.index}]",
        lambda f: f"{_goal(f.value)!r} is already dealt as {f.first_dealt(f.value)} (each "
                  f"goal tile exists once, R3.6)"),
    (GOALS_DEALT_WRONG, CASE_NOT_DRAWN): _not_drawn,
    (GOALS_KEPT_WRONG, CASE_EXPECTED): _kept_goals,
    (SCORE_WRONG, CASE_GAME_OVER): _fixed(_seat("score"),
                                          lambda f: "must be null until the game is over "
                                                    "(R8.2)"),
    (SCORE_WRONG, CASE_ENTRY): _bonus,
    (PILE_WRONG, CASE_POSITION): _fixed(
        lambda f: f.pile_path(f.index),
        lambda f: f"{_tile(f.value)!r} is not a tile of the {_stack_name(f.low)} stack, which "
                  f"this pile position belongs to (R3.2, R3.3, R9.2)"),
    (ONE_MORE_ROUND_BROKEN, CASE_TWICE): _fixed(
        lambda f: f.pile_path(f.index),
        lambda f: "a second One More Round; the game has one (R4.3)"),
    (ONE_MORE_ROUND_BROKEN, CASE_BLOCK): _fixed(
        lambda f: f.pile_path(f.index),
        lambda f: f"One More Round is at pile position {f.index}, outside the block "
                  f"{f.low}..{f.high} of C tiles it is shuffled into (R3.2, R3.3, R9.2)"),
    (ONE_MORE_ROUND_BROKEN, CASE_MISSING): _fixed(
        lambda f: "stacks.C",
        lambda f: "One More Round is neither in the stacks nor drawn (R3.2, R4.3)"),
    (ONE_MORE_ROUND_BROKEN, CASE_SET_ASIDE): _set_aside,
    (FINAL_ROUND_WRONG, CASE_EXPECTED): _fixed(
        lambda f: "final_round",
        lambda f: f"{'null' if f.value < 0 else f.shown('final_round')}, but One More Round "
                  f"{'has been drawn' if f.low else 'is still in the stacks'} (R4.3)"),
    (FINAL_ROUND_WRONG, CASE_GAME_OVER): _fixed(
        lambda f: "final_round",
        lambda f: f"{f.value}: the game ends after the final round, so at game over it "
                  f"equals round ({f.low}) (R4.3)"),
    (FINAL_ROUND_WRONG, CASE_DALE): _fixed(
        lambda f: "final_round",
        lambda f: f"{'null' if f.value < 0 else f.value}: with Dale, drawing One More Round "
                  f"at round start ends the game at once, so the game is over and "
                  f"final_round is round - 1 = {f.low} (R9.2)"),
    (MARKET_WRONG, CASE_KIND): _fixed(
        lambda f: f"market[{f.index}]",
        lambda f: f"{_tile(f.value)!r} cannot be in the market: it holds A, B and C tiles "
                  f"(R4.1)"),
    (MARKET_WRONG, CASE_DALE): _fixed(
        lambda f: f"market[{f.index}]",
        lambda f: f"the game with Dale uses slots {c.DALE_FIRST_SLOT}..{c.DALE_LAST_SLOT} only "
                  f"(R9.2); this slot must be null"),
    (SUPPLY_WRONG, CASE_RANGE): _range(lambda f: f"supply.{c.BASIC_NOTATION_NAMES[f.detail]}",
                                       "R3.5"),
    (TILE_COUNT_BROKEN, CASE_COUNT): _tile_count,
    (DECISION_WRONG, CASE_GAME_OVER): _fixed(
        lambda f: "pending_decision",
        lambda f: f"{_decision_name(f)!r} does not fit game_over {str(bool(f.low)).lower()} "
                  f"('none' exactly when the game is over)"),
    (DECISION_WRONG, CASE_MODE): _decision_of_mode,
    (DECISION_WRONG, CASE_ROUND): _fixed(
        lambda f: "pending_decision",
        lambda f: f"'keep_goal': goals are kept before the first turn (R3.6), but round is "
                  f"{f.low}"),
    (CURRENT_PLAYER_WRONG, CASE_GAME_OVER): _fixed(
        lambda f: "current_player",
        lambda f: f"must be null when the game is over, not {f.shown('current_player')}"),
    (CURRENT_PLAYER_WRONG, CASE_RANGE): _range(lambda f: "current_player",
                                               "a seat decides while the game goes on"),
    (CURRENT_PLAYER_WRONG, CASE_DALE): _fixed(
        lambda f: "current_player",
        lambda f: f"{f.value} is Dale, who takes no decision: only seat 0 decides (R9.2)"),
    (STARTING_TILES_WRONG, CASE_POSITION): _starting_tile,
    (STARTING_TILES_WRONG, CASE_COUNT): _fixed(
        lambda f: f.borough(f.detail),
        lambda f: f"holds {f.value} cells; the starting tiles alone are {f.low} (R2.3)"),
    (ADJACENCY_WRONG, CASE_POSITION): _not_adjacent,
    (LAKE_SOURCE_WRONG, CASE_POSITION): _fixed(
        lambda f: f"{f.borough(f.detail, f.index)}.lake",
        lambda f: f"a lake is a market tile turned face down (R5.1c); {_tile(f.value)!r} "
                  f"never is in the market"),
    (SEQUENCE_WRONG, CASE_RANGE): _fixed(
        lambda f: f"{f.borough(f.high, f.index)}.sequence",
        lambda f: f"{f.value} is outside 1..{int(f.state[s.PLACEMENT_COUNTER]) - 1} (placed "
                  f"tiles are numbered from 1 up to placement_counter - 1, R7.2)"),
    (SEQUENCE_WRONG, CASE_TWICE): _fixed(
        lambda f: f"{f.borough(f.high, f.index)}.sequence",
        lambda f: f"{f.value} is also the number of {f.sequence_owner(f.value)} (R7.2)"),
    (SEQUENCE_WRONG, CASE_MISSING): _fixed(
        lambda f: "placement_counter",
        lambda f: f"{f.value}, but no tile has placement number {f.low} (every placement takes "
                  f"the next number, R7.2)"),
    (SCORE_MISMATCH, CASE_EXPECTED): _fixed(
        lambda f: f"players[{f.detail}].score.final_population",
        lambda f: f"{f.value} differs from the population {f.low} (R8.2)"),
    (SCORE_MISMATCH, CASE_SUM): _fixed(
        lambda f: f"players[{f.detail}].score.final_population",
        lambda f: f"{f.value} is not population_before_goals + goal bonuses + money_converted "
                  f"= {f.low} (R8.2)"),
    (SCORE_MISMATCH, CASE_MONEY_LEFT): _fixed(
        _seat("money"),
        lambda f: f"{f.value} left after final scoring, where each $5 became 1 population "
                  f"(R8.2)"),
    (SCORE_MISMATCH, CASE_ENTRY): _rescored,
}
