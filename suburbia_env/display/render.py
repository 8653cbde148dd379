"""Text rendering of a game and of its event log, so a player can check the engine by eye.

`render_game` shows only public information (R10.1): the market, the stacks, the basic
supply, the public goals and every seat's values and borough. Private goals and the
goals returned at setup are never shown (R10.2), not even the current player's.
Rounds are shown counting from 1, in the event lines too (the state counts them from 0).
"""

from __future__ import annotations

import numpy as np

from ..engine import constants as c
from ..engine.action_space import decode_action
from ..engine import event_log as ev
from ..engine import state_layout as s
from ..engine.hex_grid import MAX_COLUMN, MIN_COLUMN, NUM_CELLS, NUM_ROWS, cell_coordinates
from ..engine.tile_data import GOALS, TILES
from ..engine.tile_table import public_goal_bonus, tile_cost
from .vocabulary import (ATTRIBUTE_WORDS, DECISION_WORDS, player_name, red_line_distance,
                         seat_name)

CELL_WIDTH = 5  # characters per borough column; a label is at most 4 (3 + marker)
EMPTY_CELL = "."
PLACEABLE_CELL = "+"
LAKE_LABEL = "~~~"
INVESTED_MARK = "*"

# Event log ---------------------------------------------------------------------------

def _player_name(player: int, dale_mode: bool) -> str:
    return player_name("dale" if dale_mode else "standard", player)


def _source(row: np.ndarray, dale_mode: bool, words: bool = False) -> str:
    kind = int(row[ev.FIELD_SOURCE_KIND])
    cell = int(row[ev.FIELD_SOURCE_CELL])
    owner = int(row[ev.FIELD_SOURCE_PLAYER])
    if kind < 0 or owner < 0:  # only the red lines adjust a value without a tile (R8.1)
        return "red line, R8.1" if words else "the rules"
    column, row_number = cell_coordinates(cell)
    return f"{TILES.names[kind]} at {column},{row_number} of {_player_name(owner, dale_mode)}"


def _change_in_words(attribute: int, amount: int, value: int) -> str:
    if c.ATTRIBUTE_NAMES[attribute] == "$":
        return f"money {'+' if amount >= 0 else '-'}${abs(amount)}, now ${value}"
    return f"{ATTRIBUTE_WORDS[attribute]} {amount:+d}, now {value}"


def describe_event(row: np.ndarray, dale_mode: bool = False, words: bool = False) -> str:
    """One line of text for one event row (event_log.py). `words=True` spells the value
    changes out ("income +1, now 3 (Office Building at -1,0 of player 0)") for people
    who do not know the short forms; the default keeps the golden logs' short forms."""
    event = int(row[ev.FIELD_EVENT])
    who = _player_name(int(row[ev.FIELD_PLAYER]), dale_mode)
    amount = int(row[ev.FIELD_AMOUNT])
    value = int(row[ev.FIELD_VALUE_AFTER])
    kind = int(row[ev.FIELD_SOURCE_KIND])
    name = TILES.names[kind] if kind >= 0 else "?"
    if event == ev.EVENT_EFFECT:
        attribute = int(row[ev.FIELD_ATTRIBUTE])
        if words:
            return (f"{who}: {_change_in_words(attribute, amount, value)} "
                    f"({_source(row, dale_mode, True)})")
        return (f"{who}: {c.ATTRIBUTE_NAMES[attribute]}{amount:+d} -> {value} "
                f"({_source(row, dale_mode)})")
    if event == ev.EVENT_RED_LINE:
        direction = "crosses the red line at" if amount > 0 else "falls back below the red line at"
        return f"{who} {direction} {value}"
    if event in (ev.EVENT_PLACE, ev.EVENT_DALE_BUY):
        column, row_number = cell_coordinates(int(row[ev.FIELD_SOURCE_CELL]))
        what = f"a lake (from {name})" if int(row[ev.FIELD_ATTRIBUTE]) == 1 else name
        return f"{who} pays ${amount} and places {what} at {column},{row_number}"
    if event == ev.EVENT_INVEST:
        column, row_number = cell_coordinates(int(row[ev.FIELD_SOURCE_CELL]))
        return f"{who} pays ${amount} to invest in {name} at {column},{row_number}"
    if event == ev.EVENT_INCOME_STEP:
        return f"{who}: income step {amount:+d}, money now ${value}"
    if event == ev.EVENT_POPULATION_STEP:
        return f"{who}: population step {amount:+d}, population now {value}"
    if event == ev.EVENT_SHORTFALL:
        if words:
            return (f"{who} cannot pay in full: "
                    f"{_change_in_words(int(row[ev.FIELD_ATTRIBUTE]), amount, value)}")
        attribute = c.ATTRIBUTE_NAMES[int(row[ev.FIELD_ATTRIBUTE])]
        return f"{who}: shortfall, {attribute}{amount:+d} -> {value}"
    if event == ev.EVENT_DISCARD:
        if words and int(row[ev.FIELD_PLAYER]) < 0:
            return f"{name} is discarded from slot {int(row[ev.FIELD_SOURCE_CELL])}"
        return f"{who} discards {name} from slot {int(row[ev.FIELD_SOURCE_CELL])} paying ${amount}"
    if event == ev.EVENT_DRAW:
        return f"{name} is drawn into slot {int(row[ev.FIELD_SOURCE_CELL])}"
    if event == ev.EVENT_ONE_MORE_ROUND:
        if dale_mode:
            return "One More Round is drawn: the game ends now (R9.2)"
        return f"One More Round is drawn: round {value + 1} is the final round (R4.3)"
    if event == ev.EVENT_PASS:
        return f"{who} passes"
    if event == ev.EVENT_KEEP_GOAL:
        return f"{who} keeps a private goal"
    if event == ev.EVENT_GAME_OVER:
        return "the game is over"
    return f"event {event}"


def describe_events(events: np.ndarray, dale_mode: bool = False,
                    words: bool = False) -> list[str]:
    return [describe_event(row, dale_mode, words) for row in events]


def describe_action(action: int, state: np.ndarray) -> str:
    """A decision in words, read from the state it is taken in ("buys Office Building from
    slot 2 and places it at -1,0"); the notation (notation.py) stays what records hold.
    Which goal a `keep` keeps is named: callers hide it from the other players (R10.2)."""
    move = decode_action(int(action))
    if move.kind == "pass":
        return "passes"
    if move.kind == "keep":
        goal = int(s.goal_option(state, int(state[s.CURRENT_PLAYER]), move.option))
        return f"keeps {GOALS.names[goal]} as private goal" if goal >= 0 else "keeps a goal"
    if move.kind in ("discard", "remove"):
        return f"{move.kind}s {_market_name(state, move.slot)} from slot {move.slot}"
    if move.kind == "invest":
        return f"invests in {_cell_name(state, move.cell)} at {_cell_words(move.cell)}"
    if move.kind == "basic":
        name = TILES.names[int(TILES.basic_kinds[move.basic])]
        return (f"buys a {name} from the basic supply and places it at "
                f"{_cell_words(move.cell)}")
    if move.kind == "lake":
        return (f"takes {_market_name(state, move.slot)} from slot {move.slot} face down as "
                f"a lake at {_cell_words(move.cell)}")
    return (f"buys {_market_name(state, move.slot)} from slot {move.slot} and places it at "
            f"{_cell_words(move.cell)}")


def _market_name(state: np.ndarray, slot: int) -> str:
    kind = int(s.market_slot(state, slot))
    return TILES.names[kind] if kind >= 0 else "an empty slot"


def _cell_name(state: np.ndarray, cell: int) -> str:
    player = int(state[s.CURRENT_PLAYER])
    kind = int(s.cell_kind(state, player, cell))
    if kind < 0:
        return "an empty cell"
    return "a lake" if s.is_lake(state, player, cell) else TILES.names[kind]


def _cell_words(cell: int) -> str:
    column, row = cell_coordinates(cell)
    return f"{column},{row}"


def render_events(game) -> str:
    """The events of the last `Game.apply`, numbered, one per line."""
    lines = describe_events(game.last_events, game.config.mode == "dale")
    if not lines:
        return "(no events)"
    width = len(str(len(lines)))
    return "\n".join(f"{index:>{width}}. {line}" for index, line in enumerate(lines, 1))


# Tile labels ------------------------------------------------------------------------

def _label_candidates(name: str) -> list[str]:
    """Short labels to try for a tile name, most readable first."""
    words = name.split()
    if len(words) == 1:
        word = words[0]
        return [word[:3], word[:2] + word[3:4], word[:1] + word[2:4]]
    initials = "".join(word[0] for word in words)
    return [initials[:3], words[0][0] + words[-1][:2], initials[:2] + words[-1][1:2]]


def _make_labels(names: tuple[str, ...]) -> tuple[str, ...]:
    """A distinct label of at most 3 characters for each tile kind.

    Names whose label collides all move on to their next candidate (so the result does
    not depend on which name comes first); the last resort is a numbered label.
    """
    choice = [0] * len(names)
    candidates = [_label_candidates(name) for name in names]
    while True:
        labels = [candidates[i][min(choice[i], len(candidates[i]) - 1)] if choice[i] < 3
                  else f"{names[i][0]}{i}" for i in range(len(names))]
        seen: dict[str, list[int]] = {}
        for index, label in enumerate(labels):
            seen.setdefault(label, []).append(index)
        clashes = [group for group in seen.values() if len(group) > 1]
        if not clashes:
            return tuple(labels)
        for group in clashes:
            for index in group:
                choice[index] += 1


TILE_LABELS = _make_labels(TILES.names)
"""TILE_LABELS[kind]: the short label of a tile kind in borough maps."""


def cell_label(kind: int, flags: int) -> str:
    """The text of one borough cell: `.` empty, `~~~` a lake, `*` an investment marker."""
    if kind < 0:
        return EMPTY_CELL
    label = LAKE_LABEL if flags & s.FLAG_LAKE else TILE_LABELS[kind]
    return label + (INVESTED_MARK if flags & s.FLAG_INVESTED else "")


# Borough map -----------------------------------------------------------------------

def _occupied_cells(state: np.ndarray, player: int) -> list[tuple[int, int, int, int]]:
    cells = []
    for cell in range(NUM_CELLS):
        kind = int(s.cell_kind(state, player, cell))
        if kind >= 0:
            column, row = cell_coordinates(cell)
            cells.append((column, row, kind, int(s.cell_flags(state, player, cell))))
    return cells


def render_borough(state: np.ndarray, player: int, mark_placeable: bool = False,
                   row_margin: int = 1) -> tuple[list[str], set[int]]:
    """The borough of a seat as a hex map (R2.1) and the tile kinds shown on it.

    Flat-top odd-q hexes: every grid row takes two text lines, the even columns on the
    first and the odd columns, half a cell lower, on the second. Only the bounding box
    of the occupied cells plus a one-cell margin (clipped to the grid; `row_margin` rows
    above and below) is drawn. `mark_placeable` shows the cells where a tile may go now
    (R2.4, the engine's own flag) as PLACEABLE_CELL instead of EMPTY_CELL.
    """
    occupied = _occupied_cells(state, player)
    if not occupied:
        return ["(empty borough)"], set()
    columns = [cell[0] for cell in occupied]
    rows = [cell[1] for cell in occupied]
    first_column = max(MIN_COLUMN, min(columns) - 1)
    last_column = min(MAX_COLUMN, max(columns) + 1)
    first_row = max(0, min(rows) - row_margin)
    last_row = min(NUM_ROWS - 1, max(rows) + row_margin)
    by_position = {(column, row): (kind, flags) for column, row, kind, flags in occupied}
    shown_kinds = {kind for (column, row), (kind, flags) in by_position.items()
                   if not flags & s.FLAG_LAKE}
    placeable = set()
    if mark_placeable:
        placeable = {cell_coordinates(cell) for cell in range(NUM_CELLS)
                     if s.is_placeable(state, player, cell)}
    margin = " " * 4
    header = margin + "".join(f"{column:^{CELL_WIDTH}}"
                              for column in range(first_column, last_column + 1))
    lines = [header.rstrip()]
    for row in range(first_row, last_row + 1):
        for parity, prefix in ((0, f"{row:>3} "), (1, margin)):
            text = prefix
            for column in range(first_column, last_column + 1):
                if column % 2 != parity:
                    text += " " * CELL_WIDTH
                    continue
                kind, flags = by_position.get((column, row), (-1, 0))
                label = (PLACEABLE_CELL if kind < 0 and (column, row) in placeable
                         else cell_label(kind, flags))
                text += f"{label:^{CELL_WIDTH}}"
            lines.append(text.rstrip())
    return lines, shown_kinds


def _legend(kinds: set[int], lakes: bool, invested: bool) -> list[str]:
    entries = sorted((TILE_LABELS[kind], TILES.names[kind]) for kind in kinds)
    if lakes:
        entries.append((LAKE_LABEL, "lake (a tile placed face down, R6.7)"))
    if invested:
        entries.append((INVESTED_MARK, "investment marker on the tile (R7.3)"))
    entries.append((EMPTY_CELL, "empty cell"))
    return [f"  {label:<4} {meaning}" for label, meaning in entries]


# Whole game -------------------------------------------------------------------------

def _header(game) -> list[str]:
    state = game.state
    config = game.config
    people = "1 player" if config.players == 1 else f"{config.players} players"
    mode = {"standard": "standard game", "solitary": "Solitary Architect (R9.1)",
            "dale": "against Dale the bot (R9.2)"}[config.mode]
    lines = [f"Suburbia: {mode}, {people}, edition {config.edition}"]
    final_round = int(state[s.FINAL_ROUND])
    if config.mode == "dale":
        final = "One More Round drawn, the game ends" if final_round >= 0 else "not known yet"
    else:
        final = f"round {final_round + 1}" if final_round >= 0 else "not known yet"
    lines.append(f"Round {game.round + 1}; final round: {final}")
    if game.is_over:
        winners = ", ".join(seat_name(config.mode, p) for p in game.winners)
        lines.append(f"Game over. Winner(s): {winners}")
    else:
        decision = int(state[s.PENDING_DECISION])
        first = seat_name(config.mode, int(state[s.FIRST_PLAYER]))
        lines.append(f"{seat_name(config.mode, game.current_player)} to decide: "
                     f"{DECISION_WORDS[c.DECISION_NAMES[decision]].rules}; "
                     f"first player: {first}")
    return lines


def _market(game) -> list[str]:
    state = game.state
    dale = game.config.mode == "dale"
    slots = range(c.DALE_FIRST_SLOT, c.DALE_LAST_SLOT + 1) if dale else range(c.NUM_SLOTS)
    lines = ["Market (R4.1" + (", slots 2-5 only, R9.2)" if dale else ")"),
             f"  {'slot':>4}  {'premium':>7}  {'tile':<24} {'cost':>4}  {'price':>5}"]
    for slot in slots:
        premium = c.SLOT_PREMIUMS[slot]
        kind = int(s.market_slot(state, slot))
        if kind < 0:
            lines.append(f"  {slot:>4}  {f'+{premium}':>7}  (empty)")
            continue
        cost = tile_cost(TILES.table, kind)
        lines.append(f"  {slot:>4}  {f'+{premium}':>7}  {TILES.names[kind]:<24} {cost:>4}  "
                     f"{cost + premium:>5}")
    return lines


def _supplies_and_goals(game) -> list[str]:
    stacks = ", ".join(f"{name} {count}" for name, count in game.stack_sizes().items())
    supply = ", ".join(f"{name} {count}" for name, count in
                       zip(c.BASIC_TILE_NAMES, game.supply().values()))
    lines = [f"Stacks left: {stacks}", f"Basic supply (R3.5): {supply}"]
    goals = [int(g) for g in s.public_goals(game.state) if g >= 0]
    if goals:
        lines.append("Public goals (R8.2):")
        for goal in goals:
            lines.append(f"  {GOALS.names[goal]}: {GOALS.criteria[goal]} "
                         f"(+{public_goal_bonus(GOALS.table, goal)} population)")
    else:
        lines.append("Public goals: none")
    if game.config.mode == "standard":
        lines.append("Private goals: hidden (R10.2)")
    return lines


def _seat(game, player: int, legend_kinds: set[int]) -> tuple[list[str], bool, bool]:
    state = game.state
    population = int(s.population(state, player))
    title = seat_name(game.config.mode, player)
    if player == int(state[s.FIRST_PLAYER]) and game.config.mode == "standard":
        title += " (first player)"
    if not game.is_over and player == game.current_player:
        title += " <- to decide"
    lines = [title,
             f"  money ${int(s.money(state, player))}, income {int(s.income(state, player))}, "
             f"reputation {int(s.reputation(state, player))}, population {population}, "
             f"markers left {int(s.markers_left(state, player))}, "
             f"next red line at {red_line_distance(population)}"]
    if game.is_over:
        before_goals = int(s.score_entry(state, player, s.SCORE_POPULATION_BEFORE_GOALS))
        lines.append(f"  final score: population {before_goals}"
                     f" + goals {_goal_points(state, player)} + money "
                     f"{int(s.score_entry(state, player, s.SCORE_MONEY_CONVERTED))}"
                     f" = {int(s.score_entry(state, player, s.SCORE_FINAL_POPULATION))}")
    borough, kinds = render_borough(state, player)
    legend_kinds |= kinds
    lines += ["  " + text for text in borough]
    flags = [int(s.cell_flags(state, player, cell)) for cell in range(NUM_CELLS)
             if s.cell_kind(state, player, cell) >= 0]
    return (lines, any(f & s.FLAG_LAKE for f in flags), any(f & s.FLAG_INVESTED for f in flags))


def _goal_points(state: np.ndarray, player: int) -> int:
    return (int(s.public_goal_bonuses(state, player).sum())
            + int(s.score_entry(state, player, s.SCORE_PRIVATE_GOAL)))


def render_game(game) -> str:
    """The public state of a game as text (R10.1): header, market, stacks, supply, public
    goals, then each seat's values and borough map, and a legend of the tile labels."""
    sections = [_header(game), _market(game), _supplies_and_goals(game)]
    legend_kinds: set[int] = set()
    any_lake = any_invested = False
    for player in range(game.num_seats):
        lines, lake, invested = _seat(game, player, legend_kinds)
        any_lake |= lake
        any_invested |= invested
        sections.append(lines)
    sections.append(["Legend (odd columns are drawn half a cell lower, R2.1):"]
                    + _legend(legend_kinds, any_lake, any_invested))
    return "\n\n".join("\n".join(section) for section in sections)
