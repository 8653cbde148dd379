"""Consistency checks of a game state, compiled so they can run at every step of many games.

`check_invariants(state, tiles)` returns 0 when the state is consistent, else an error
code `reason * 100 + detail` (detail: the seat, or the tile kind for the tile count);
`describe_invariant_error(code)` turns a code into a message. Checked:
- R1.2, R1.3: money and population >= 0, income and reputation within -5..15;
- every physical tile is in exactly one place (R3.2, R3.5): per kind, undrawn stacks +
  market + basic supply + boroughs (a lake counts as its tile) + discarded + box equals
  the copies printed in tiles.csv; One More Round is in the stacks or set aside, once;
- the derived entries agree with the borough: tile, lake and feature counts, the
  placement order, the placeable flags (R2.4), markers left = 3 - invested tiles;
- the pending decision agrees with the game being over, and the current player is a seat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import constants as c
from . import state_layout as s
from .hex_grid import NEIGHBOURS, NUM_CELLS
from .tile_data import COLUMN_COPIES, COLUMN_FEATURES, TILES

_BASIC_KINDS = np.array(TILES.basic_kinds, dtype=np.int64)  # supply order: suburbs, park, factory

OK = 0
MONEY_NEGATIVE = 1
POPULATION_NEGATIVE = 2
INCOME_OUT_OF_RANGE = 3
REPUTATION_OUT_OF_RANGE = 4
TILE_COUNT_BROKEN = 5  # detail: kind
ONE_MORE_ROUND_BROKEN = 6
TILE_COUNT_WRONG = 7
LAKE_COUNT_WRONG = 8
FEATURE_COUNT_WRONG = 9
ORDER_WRONG = 10
PLACEABLE_WRONG = 11
MARKERS_WRONG = 12
DECISION_WRONG = 13
CURRENT_PLAYER_WRONG = 14
MARKET_WRONG = 15
CELL_FLAGS_WRONG = 16
UNUSED_SEAT_NOT_EMPTY = 17
PILE_WRONG = 18
SUPPLY_WRONG = 19

_MESSAGES = {
    MONEY_NEGATIVE: "money is negative (R1.3)",
    POPULATION_NEGATIVE: "population is negative (R1.3)",
    INCOME_OUT_OF_RANGE: "income is outside -5..15 (R1.2)",
    REPUTATION_OUT_OF_RANGE: "reputation is outside -5..15 (R1.2)",
    TILE_COUNT_BROKEN: ("physical tiles of this kind do not add up to its copies: stacks + "
                        "market + supply + boroughs + discarded + box (R3.2, R3.5)"),
    ONE_MORE_ROUND_BROKEN: "One More Round is not exactly once in the stacks or set aside (R4.3)",
    TILE_COUNT_WRONG: "TILE_COUNT differs from the occupied cells of the borough",
    LAKE_COUNT_WRONG: "LAKE_COUNT differs from the lakes of the borough",
    FEATURE_COUNT_WRONG: "FEATURE_COUNT differs from the types and icons of the borough (R6.4)",
    ORDER_WRONG: "ORDER does not list each occupied cell once, in placement order (R7.2)",
    PLACEABLE_WRONG: "FLAG_PLACEABLE is not exactly the empty cells next to a tile (R2.4)",
    MARKERS_WRONG: "markers left differ from 3 minus the invested tiles (R3.4, R5.1d)",
    DECISION_WRONG: "the pending decision does not agree with the game being over or the mode",
    CURRENT_PLAYER_WRONG: "the current player is not a seat that may decide now",
    MARKET_WRONG: "the market holds a lake, One More Round or a tile outside its slots (R4.1, R9.2)",
    CELL_FLAGS_WRONG: "an empty cell is flagged as a lake or invested",
    UNUSED_SEAT_NOT_EMPTY: "a seat beyond the player count holds tiles",
    PILE_WRONG: "the stack bounds are out of order (R3.2)",
    SUPPLY_WRONG: "the basic supply is outside 0..4 (R3.5)",
}
_SEAT_REASONS = (MONEY_NEGATIVE, POPULATION_NEGATIVE, INCOME_OUT_OF_RANGE,
                 REPUTATION_OUT_OF_RANGE, TILE_COUNT_WRONG, LAKE_COUNT_WRONG, FEATURE_COUNT_WRONG,
                 ORDER_WRONG, PLACEABLE_WRONG, MARKERS_WRONG, CELL_FLAGS_WRONG,
                 UNUSED_SEAT_NOT_EMPTY)


def describe_invariant_error(code: int) -> str:
    """The message of a code returned by `check_invariants`; 'ok' for 0."""
    if code == OK:
        return "ok"
    reason, detail = divmod(int(code), 100)
    if reason not in _MESSAGES:
        return f"unknown invariant code {code}"
    message = _MESSAGES[reason]
    if reason in _SEAT_REASONS:
        return f"seat {detail}: {message}"
    if reason == TILE_COUNT_BROKEN:
        return f"{TILES.names[detail]}: {message}"
    if reason == SUPPLY_WRONG:
        return f"{c.BASIC_TILE_NAMES[detail]}: {message}"
    return message


@njit(cache=True)
def _error(reason, detail):
    return reason * 100 + detail


@njit(cache=True)
def _check_values(state, base, player):
    if state[base + s.MONEY] < 0:
        return _error(MONEY_NEGATIVE, player)
    if state[base + s.POPULATION] < 0:
        return _error(POPULATION_NEGATIVE, player)
    income = state[base + s.INCOME]
    if income < c.LEVEL_MIN or income > c.LEVEL_MAX:
        return _error(INCOME_OUT_OF_RANGE, player)
    reputation = state[base + s.REPUTATION]
    if reputation < c.LEVEL_MIN or reputation > c.LEVEL_MAX:
        return _error(REPUTATION_OUT_OF_RANGE, player)
    return OK


@njit(cache=True)
def _check_borough(state, tiles, base, player):
    """Derived counts, placement order, placeable flags and markers of one borough."""
    occupied = 0
    lakes = 0
    invested = 0
    features = np.zeros(c.NUM_FEATURES, dtype=np.int64)
    for cell in range(NUM_CELLS):
        kind = state[base + s.CELL_KIND + cell]
        flags = state[base + s.CELL_FLAGS + cell]
        if kind < 0:
            if flags & (s.FLAG_LAKE | s.FLAG_INVESTED):
                return _error(CELL_FLAGS_WRONG, player)
            next_to_tile = False
            for index in range(6):
                neighbour = NEIGHBOURS[cell, index]
                if neighbour >= 0 and state[base + s.CELL_KIND + neighbour] >= 0:
                    next_to_tile = True
            if next_to_tile != (flags & s.FLAG_PLACEABLE != 0):
                return _error(PLACEABLE_WRONG, player)
            continue
        if flags & s.FLAG_PLACEABLE:
            return _error(PLACEABLE_WRONG, player)
        occupied += 1
        if flags & s.FLAG_INVESTED:
            invested += 1
        if flags & s.FLAG_LAKE:
            lakes += 1
        else:
            for feature in range(c.NUM_FEATURES):
                if tiles[kind, COLUMN_FEATURES] & (1 << feature):
                    features[feature] += 1
    if state[base + s.TILE_COUNT] != occupied:
        return _error(TILE_COUNT_WRONG, player)
    if state[base + s.LAKE_COUNT] != lakes:
        return _error(LAKE_COUNT_WRONG, player)
    for feature in range(c.NUM_FEATURES):
        if state[base + s.FEATURE_COUNT + feature] != features[feature]:
            return _error(FEATURE_COUNT_WRONG, player)
    listed = np.zeros(NUM_CELLS, dtype=np.bool_)
    previous_sequence = -1
    for position in range(occupied):
        cell = state[base + s.ORDER + position]
        if cell < 0 or cell >= NUM_CELLS or listed[cell] or state[base + s.CELL_KIND + cell] < 0:
            return _error(ORDER_WRONG, player)
        listed[cell] = True
        sequence = state[base + s.CELL_SEQUENCE + cell]
        if sequence < previous_sequence or sequence >= state[s.PLACEMENT_COUNTER]:
            return _error(ORDER_WRONG, player)
        previous_sequence = sequence
    if state[base + s.MARKERS_LEFT] != c.START_MARKERS - invested:
        return _error(MARKERS_WRONG, player)
    return OK


@njit(cache=True)
def _check_tiles(state, tiles, num_players):
    """Each physical tile in exactly one place (R3.2, R3.5, R4.3)."""
    num_kinds = tiles.shape[0]
    lake = num_kinds - 2
    one_more_round = num_kinds - 1
    if not (0 <= state[s.PILE_A_END] <= state[s.PILE_B_END] <= state[s.PILE_END]
            <= s.PILE_CAPACITY and 0 <= state[s.PILE_POSITION] <= state[s.PILE_END]):
        return _error(PILE_WRONG, 0)
    places = np.zeros(num_kinds, dtype=np.int64)
    for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
        kind = state[s.PILE + position]
        if kind < 0 or kind >= num_kinds:
            return _error(PILE_WRONG, 0)
        places[kind] += 1
    for slot in range(c.NUM_SLOTS):
        kind = state[s.MARKET + slot]
        if kind < 0:
            continue
        outside_dale_slots = slot < c.DALE_FIRST_SLOT or slot > c.DALE_LAST_SLOT
        if (kind >= lake or (state[s.MODE] == c.MODE_DALE and outside_dale_slots)):
            return _error(MARKET_WRONG, 0)
        places[kind] += 1
    for basic in range(3):
        if state[s.SUPPLY + basic] < 0 or state[s.SUPPLY + basic] > c.BASIC_SUPPLY_PER_KIND:
            return _error(SUPPLY_WRONG, basic)
    for player in range(num_players):
        base = s.PLAYERS + player * s.PLAYER_STRIDE
        for cell in range(NUM_CELLS):
            kind = state[base + s.CELL_KIND + cell]
            if kind >= 0:
                if kind >= lake:
                    return _error(TILE_COUNT_BROKEN, kind)
                places[kind] += 1
    for basic in range(3):
        places[_BASIC_KINDS[basic]] += state[s.SUPPLY + basic]
    for kind in range(num_kinds):
        if state[s.DISCARDED + kind] < 0 or state[s.BOX + kind] < 0:
            return _error(TILE_COUNT_BROKEN, kind)
        places[kind] += state[s.DISCARDED + kind] + state[s.BOX + kind]
        if places[kind] != tiles[kind, COLUMN_COPIES]:
            return _error(TILE_COUNT_BROKEN, kind)
    # One More Round (one copy) is never in the market or a borough (checked above) nor
    # left in the box: it is in the undrawn stacks or set aside, exactly once (R4.3).
    if state[s.BOX + one_more_round] != 0:
        return _error(ONE_MORE_ROUND_BROKEN, 0)
    return OK


@njit(cache=True)
def _check_decision(state, num_players):
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    mode = state[s.MODE]
    if state[s.GAME_OVER] != 0:
        if state[s.GAME_OVER] != 1 or decision != c.DECISION_NONE:
            return _error(DECISION_WRONG, 0)
        if player != -1:
            return _error(CURRENT_PLAYER_WRONG, 0)
        return OK
    if decision == c.DECISION_NONE or decision > c.DECISION_REMOVE:
        return _error(DECISION_WRONG, 0)
    if decision == c.DECISION_KEEP_GOAL and mode == c.MODE_SOLITARY:
        return _error(DECISION_WRONG, 0)
    if decision == c.DECISION_REMOVE and mode != c.MODE_SOLITARY:
        return _error(DECISION_WRONG, 0)
    if player < 0 or player >= num_players:
        return _error(CURRENT_PLAYER_WRONG, 0)
    if mode == c.MODE_DALE and player != 0:  # Dale never waits for a decision (R9.2)
        return _error(CURRENT_PLAYER_WRONG, 0)
    return OK


@njit(cache=True)
def check_invariants(state, tiles):
    """0 when `state` is consistent, else `reason * 100 + detail` (see module docstring)."""
    num_players = state[s.NUM_PLAYERS]
    if num_players < 1 or num_players > c.MAX_PLAYERS:
        return _error(CURRENT_PLAYER_WRONG, 0)
    for player in range(c.MAX_PLAYERS):
        base = s.PLAYERS + player * s.PLAYER_STRIDE
        if player >= num_players:
            if state[base + s.TILE_COUNT] != 0:
                return _error(UNUSED_SEAT_NOT_EMPTY, player)
            continue
        code = _check_values(state, base, player)
        if code != OK:
            return code
        code = _check_borough(state, tiles, base, player)
        if code != OK:
            return code
    code = _check_tiles(state, tiles, num_players)
    if code != OK:
        return code
    return _check_decision(state, num_players)
