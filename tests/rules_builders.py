"""Hand-built positions and small drivers shared by the rules tests (R1-R5, R8-R10, E1-E6).

Everything starts from a real game (`Game(..., random_private_goals=True)`, so turns
start at once) and is changed with suburbia_env.positions; the few edits positions.py
does not offer (goals, the order of the stacks, a full borough) are made here, each
documented with the rule it serves.
"""

from __future__ import annotations

import numpy as np

from suburbia_env import Game
from suburbia_env.engine import action_space as a
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.hex_grid import NUM_CELLS, cell_coordinates, cell_index
from suburbia_env.positions import invest_without_effects, put_tile_without_effects
from suburbia_env.engine.resolution import put_tile
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.turn import finish_game

SLOT_PREMIUMS = (10, 8, 6, 4, 2, 0, 0)  # R4.1, written out by hand


def new_game(players: int = 2, seed: int = 0, **options) -> Game:
    """A game whose first turn can be played at once (private goals kept at random)."""
    return Game(players=players, seed=seed, random_private_goals=True, **options)


def player_values(game: Game, player: int) -> dict:
    """money, income, reputation, population and markers_left of a seat."""
    state = game.player_state(player)
    return {key: state[key] for key in ("money", "income", "reputation", "population",
                                        "markers_left")}


def tile_at(game: Game, player: int, column: int, row: int) -> str | None:
    for entry in game.player_state(player)["borough"]:
        if (entry["col"], entry["row"]) == (column, row):
            return entry["tile"]
    return None


def kind_of(name: str) -> int:
    return TILES.kind(name)


def market_kinds(game: Game) -> list[int]:
    """The kind in each slot 0..6, -1 when empty."""
    return [int(k) for k in game.state[s.MARKET:s.MARKET + 7]]


def pile_position(game: Game) -> int:
    return int(game.state[s.PILE_POSITION])


def pile(game: Game) -> np.ndarray:
    """Every stack in draw order: A, then B, then C (state_layout.PILE)."""
    return game.state[s.PILE:s.PILE + int(game.state[s.PILE_END])].copy()


def discarded_count(game: Game, kind: int) -> int:
    return int(game.state[s.DISCARDED + kind])


# Events of the last Game.apply ----------------------------------------------------------

def events(game: Game, event: int | None = None) -> list[np.ndarray]:
    """Rows of the event log of the last apply, optionally only one event kind."""
    rows = list(game.last_events)
    return [row for row in rows if event is None or int(row[ev.FIELD_EVENT]) == event]


def effects_on(game: Game, player: int, attribute: int) -> list[int]:
    """Amounts of the single adjustments (R7.2) that moved one attribute of a player."""
    return [int(row[ev.FIELD_AMOUNT]) for row in events(game, ev.EVENT_EFFECT)
            if int(row[ev.FIELD_PLAYER]) == player and int(row[ev.FIELD_ATTRIBUTE]) == attribute]


def values_after_step_one(game: Game, player: int) -> dict:
    """Money, income and reputation of `player` at the end of step 1 of the last turn.

    Read from the log: the income step (R5.2) records the income level and the money
    after it; the population step (R5.3) records the reputation level it used.
    Valid when the income is >= 0 and step 2 crossed no red line.
    """
    (income_row,) = [r for r in events(game, ev.EVENT_INCOME_STEP) if int(r[ev.FIELD_PLAYER]) == player]
    (population_row,) = [r for r in events(game, ev.EVENT_POPULATION_STEP)
                         if int(r[ev.FIELD_PLAYER]) == player]
    income = int(income_row[ev.FIELD_AMOUNT])
    assert income >= 0, "values_after_step_one needs a non-negative income"
    return {"money": int(income_row[ev.FIELD_VALUE_AFTER]) - income, "income": income,
            "reputation": int(population_row[ev.FIELD_AMOUNT])}


# Actions ----------------------------------------------------------------------------------

def cells_of(actions, start: int) -> set[tuple[int, int]]:
    """The cells of the placement actions in [start, start + NUM_CELLS)."""
    return {cell_coordinates(int(act) - start) for act in actions
            if start <= int(act) < start + NUM_CELLS}


def free_lake_action(game: Game) -> int:
    """A lake from the rightmost occupied slot whose premium is 0, at the first legal cell.

    With a full market that is slot 6 (slot 5 with Dale): step 1 then costs nothing.
    """
    legal = set(int(x) for x in game.legal_actions())
    for slot in range(6, -1, -1):
        if SLOT_PREMIUMS[slot] != 0 or game.state[s.MARKET + slot] < 0:
            continue
        start = a.ACTION_LAKE + slot * NUM_CELLS
        for cell in range(NUM_CELLS):
            if start + cell in legal:
                return start + cell
    raise AssertionError("no free lake is legal")


def cheapest_slot_action(game: Game) -> int:
    """For a discard or removal decision: the legal slot with the highest number."""
    return int(max(game.legal_actions()))


def play_free_turn(game: Game) -> list[np.ndarray]:
    """One whole turn: a free lake, then the cheapest removal if one is asked (R9.1).

    Returns the event rows of every decision of the turn.
    """
    assert game.pending_decision == "turn"
    game.apply(free_lake_action(game))
    rows = events(game)
    while game.pending_decision in ("discard", "remove"):
        game.apply(cheapest_slot_action(game))
        rows += events(game)
    return rows


def has_event(rows: list[np.ndarray], event: int) -> bool:
    return any(int(row[ev.FIELD_EVENT]) == event for row in rows)


def prepare_neutral_lake(game: Game, player: int) -> str:
    """Make step 1 of `player` a lake that changes nothing; returns its notation.

    A lake is put (without effects) at (0,3), below the Heavy Factory; a new lake at
    (0,4) then touches only that lake: it pays nothing and nothing reacts (R6.7).
    Slot 6 has premium 0 (R4.1), so the lake is free.
    """
    if tile_at(game, player, 0, 3) is None:
        put_tile_without_effects(game, player, "Convenience Store", 0, 3, lake=True)
    return "lake 6 @ 0,4"


def use_up_markers(game: Game, player: int) -> None:
    """Put the player's markers left on his starting tiles, without effects (R5.1d)."""
    for column, row in ((0, 0), (0, 1), (0, 2)):
        if game.state[s.player_base(player) + s.MARKERS_LEFT] > 0 and not (
                game.state[s.player_base(player) + s.CELL_FLAGS + cell_index(column, row)]
                & s.FLAG_INVESTED):
            invest_without_effects(game, player, column, row)


def fill_borough(game: Game, player: int) -> None:
    """Fill every empty cell of a borough with lakes, outside the box accounting.

    Only for R5.1 passing, which needs a player with no placeable cell left.
    """
    base = s.player_base(player)
    lake_source = kind_of("Suburbs")
    for cell in range(NUM_CELLS):
        if game.state[base + s.CELL_KIND + cell] < 0:
            sequence = int(game.state[s.PLACEMENT_COUNTER])
            game.state[s.PLACEMENT_COUNTER] = sequence + 1
            put_tile(game.state, TILES.table, player, cell, lake_source, True, sequence)


# Stacks and One More Round (R3.2, R4.3, R9) ----------------------------------------------

def one_more_round_index(game: Game) -> int:
    """Position of One More Round in the pile (draw order)."""
    (where,) = np.flatnonzero(pile(game) == TILES.one_more_round)
    return int(where)


def move_one_more_round(game: Game, index: int) -> None:
    """Swap One More Round with the tile at pile position `index` (both still undrawn).

    Tests keep `index` inside the block One More Round is shuffled into (R3.2), so the
    result is one of the orders the setup shuffle can produce.
    """
    current = one_more_round_index(game)
    assert index >= pile_position(game) and current >= pile_position(game)
    state = game.state
    state[s.PILE + current], state[s.PILE + index] = (state[s.PILE + index],
                                                      state[s.PILE + current])


def exhaust_stacks(game: Game) -> None:
    """Pretend every stack has been drawn (R4.2: nothing left to draw)."""
    game.state[s.PILE_POSITION] = game.state[s.PILE_END]


# Goals and final scoring (R8.2) ------------------------------------------------------------

def set_goals(game: Game, public: list[str], private: dict[int, str | None]) -> None:
    """Replace the public goals and the private goals of the listed seats."""
    state = game.state
    state[s.PUBLIC_GOALS:s.PUBLIC_GOALS + 4] = -1
    for index, name in enumerate(public):
        state[s.PUBLIC_GOALS + index] = GOALS.goal(name)
    for player, name in private.items():
        state[s.player_base(player) + s.PRIVATE_GOAL] = -1 if name is None else GOALS.goal(name)


def score_now(game: Game) -> list[dict]:
    """Run final scoring (turn.finish_game) on the position as it stands."""
    finish_game(game.state, TILES.table, GOALS.table, ev.new_log(0))
    return game.final_scores()
