"""`check_invariants`' checks of the header, the decision, each seat's values and
borough: what every state the engine is given must satisfy (invariants.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import constants as c
from .. import state_layout as s
from ..hex_grid import NEIGHBOURS, NUM_CELLS, STARTING_CELLS
from ..tile_data import GOALS, TILES
from ..tile_table import tile_features, tile_stack
from .bounds import HEADROOM, MONEY_BOUND, POPULATION_BOUND, last_round
from .codes import (CASE_DALE, CASE_EXPECTED, CASE_FINAL_ROUND, CASE_GAME_OVER, CASE_KIND,
                    CASE_MODE, CASE_ORDER, CASE_RANGE, CASE_ROUND, CASE_SEQUENCE,
                    CELL_FLAGS_WRONG, CELL_WRONG, CONFIG_WRONG, COUNTER_WRONG,
                    CURRENT_PLAYER_WRONG, DALE_CANNOT_PLACE, DECISION_WRONG,
                    FEATURE_COUNT_WRONG, FIRST_PLAYER_WRONG, GOALS_KEPT_WRONG,
                    INCOME_OUT_OF_RANGE, LAKE_COUNT_WRONG, MARKERS_WRONG, MONEY_NEGATIVE,
                    MONEY_TOO_LARGE, NO_LEGAL_ACTION, OK, ORDER_WRONG, PLACEABLE_WRONG,
                    POPULATION_NEGATIVE, POPULATION_TOO_LARGE, REPUTATION_OUT_OF_RANGE,
                    ROUND_WRONG, TILE_COUNT_WRONG, _error, _found)
_BASIC_KINDS = np.array(TILES.basic_kinds, dtype=np.int64)  # supply order: suburbs, park, factory
_STARTING_CELLS = np.array(STARTING_CELLS, dtype=np.int64)
_NUM_STARTING = len(STARTING_CELLS)
_GOAL_TABLE = GOALS.table
_VALID_FLAGS = s.FLAG_LAKE | s.FLAG_INVESTED | s.FLAG_PLACEABLE
_SCORE_ENTRIES = s.ORDER - s.SCORE  # the score block of a player, SCORE .. SCORE_WINNER


@njit(cache=True)
def _is_lettered(tiles, kind):
    """A kind of the A, B or C stacks (never a basic tile, the lake or One More Round)."""
    return 0 <= kind < s.lake_kind(tiles) and tile_stack(tiles, kind) != c.STACK_BASIC


@njit(cache=True)
def _check_header(state, entry, finding):
    num_players = state[s.NUM_PLAYERS]
    mode = state[s.MODE]
    edition = state[s.EDITION]
    if (mode < 0 or mode > c.MODE_DALE or edition < 0 or edition > c.EDITION_FIRST
            or state[s.RANDOM_PRIVATE_GOALS] < 0 or state[s.RANDOM_PRIVATE_GOALS] > 1):
        return _error(CONFIG_WRONG, 0)
    if mode == c.MODE_STANDARD:
        if num_players < 2 or num_players > c.MAX_PLAYERS:
            return _error(CONFIG_WRONG, 0)
    elif num_players != (1 if mode == c.MODE_SOLITARY else 2):
        return _error(CONFIG_WRONG, 0)
    first = state[s.FIRST_PLAYER]
    last_first = num_players - 1 if mode == c.MODE_STANDARD else 0
    if first < 0 or first > last_first:
        return _found(finding, FIRST_PLAYER_WRONG, 0, CASE_RANGE, -1, first, 0, last_first)
    current_round = state[s.ROUND]
    highest = last_round(num_players, mode, edition) if entry else HEADROOM
    if current_round < 0 or current_round > highest:
        return _found(finding, ROUND_WRONG, 0, CASE_RANGE, -1, current_round, 0, highest)
    final_round = state[s.FINAL_ROUND]
    if final_round < -1 or final_round > current_round + 1:
        return _found(finding, ROUND_WRONG, 0, CASE_FINAL_ROUND, -1, final_round, -1,
                      current_round + 1)
    counter = state[s.PLACEMENT_COUNTER]
    most = 1 + num_players * (NUM_CELLS - 3) if entry else HEADROOM
    if counter < 1 or counter > most:
        return _found(finding, COUNTER_WRONG, 0, CASE_RANGE, -1, counter, 1, most)
    return OK


@njit(cache=True)
def _check_decision_kind(state, reachable, finding):
    """The pending decision against game over, the mode and the round, and the current
    player against the seats; scalars only, so it runs before any entry is used as an
    index (R3.6, R5.1, R9.1, R9.2)."""
    over = state[s.GAME_OVER]
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    mode = state[s.MODE]
    if over != 0:
        if over != 1:
            return _error(DECISION_WRONG, 0)
        if decision != c.DECISION_NONE:
            return _found(finding, DECISION_WRONG, 0, CASE_GAME_OVER, -1, decision, 1, 0)
        if player != -1:
            return _found(finding, CURRENT_PLAYER_WRONG, 0, CASE_GAME_OVER, -1, player, 0, 0)
        return OK
    if decision == c.DECISION_NONE:
        return _found(finding, DECISION_WRONG, 0, CASE_GAME_OVER, -1, decision, 0, 0)
    if decision < c.DECISION_NONE or decision > c.DECISION_REMOVE:
        return _found(finding, DECISION_WRONG, 0, CASE_RANGE, -1, decision, 1,
                      c.DECISION_REMOVE)
    if decision == c.DECISION_KEEP_GOAL and (
            mode == c.MODE_SOLITARY or (reachable and state[s.RANDOM_PRIVATE_GOALS])):
        return _found(finding, DECISION_WRONG, 0, CASE_MODE, -1, decision, 0, 0)
    if decision == c.DECISION_REMOVE and mode != c.MODE_SOLITARY:
        return _found(finding, DECISION_WRONG, 0, CASE_MODE, -1, decision, 0, 0)
    if reachable and decision == c.DECISION_KEEP_GOAL and state[s.ROUND] != 0:
        return _found(finding, DECISION_WRONG, 0, CASE_ROUND, -1, decision, state[s.ROUND], 0)
    if player < 0 or player >= state[s.NUM_PLAYERS]:
        return _found(finding, CURRENT_PLAYER_WRONG, 0, CASE_RANGE, -1, player, 0,
                      state[s.NUM_PLAYERS] - 1)
    if mode == c.MODE_DALE and player != 0:  # Dale never waits for a decision (R9.2)
        return _found(finding, CURRENT_PLAYER_WRONG, 0, CASE_DALE, -1, player, 0, 0)
    return OK


@njit(cache=True)
def _check_values(state, player, entry, finding):
    money = s.money(state, player)
    most_money = MONEY_BOUND if entry else HEADROOM
    if money < 0:
        return _found(finding, MONEY_NEGATIVE, player, CASE_RANGE, -1, money, 0, most_money)
    if money > most_money:
        return _found(finding, MONEY_TOO_LARGE, player, CASE_RANGE, -1, money, 0, most_money)
    population = s.population(state, player)
    most_population = POPULATION_BOUND if entry else HEADROOM
    if population < 0:
        return _found(finding, POPULATION_NEGATIVE, player, CASE_RANGE, -1, population, 0,
                      most_population)
    if population > most_population:
        return _found(finding, POPULATION_TOO_LARGE, player, CASE_RANGE, -1, population, 0,
                      most_population)
    income = s.income(state, player)
    if income < c.LEVEL_MIN or income > c.LEVEL_MAX:
        return _found(finding, INCOME_OUT_OF_RANGE, player, CASE_RANGE, -1, income,
                      c.LEVEL_MIN, c.LEVEL_MAX)
    reputation = s.reputation(state, player)
    if reputation < c.LEVEL_MIN or reputation > c.LEVEL_MAX:
        return _found(finding, REPUTATION_OUT_OF_RANGE, player, CASE_RANGE, -1, reputation,
                      c.LEVEL_MIN, c.LEVEL_MAX)
    return OK


@njit(cache=True)
def _check_cells(state, tiles, player, finding):
    """Each cell: -1 or a kind of tiles.csv, known flag bits, a placement number below the
    counter (0 when empty)."""
    lake = s.lake_kind(tiles)
    for cell in range(NUM_CELLS):
        kind = s.cell_kind(state, player, cell)
        sequence = s.cell_sequence(state, player, cell)
        if kind < -1 or kind >= lake or s.cell_flags(state, player, cell) & ~_VALID_FLAGS:
            return _found(finding, CELL_WRONG, player, CASE_KIND, cell, kind, 0, 0)
        if kind < 0 and sequence != 0:
            return _error(CELL_WRONG, player)
        if kind >= 0 and (sequence < 0 or sequence >= state[s.PLACEMENT_COUNTER]):
            return _found(finding, CELL_WRONG, player, CASE_SEQUENCE, cell, sequence, 0,
                          state[s.PLACEMENT_COUNTER] - 1)
    return OK


@njit(cache=True)
def _check_borough(state, tiles, player, finding):
    """Derived counts, placement order, placeable flags and markers of one borough."""
    occupied = 0
    lakes = 0
    invested = 0
    features = np.zeros(c.NUM_FEATURES, dtype=np.int64)
    for cell in range(NUM_CELLS):
        kind = s.cell_kind(state, player, cell)
        flags = s.cell_flags(state, player, cell)
        if kind < 0:
            if flags & (s.FLAG_LAKE | s.FLAG_INVESTED):
                return _error(CELL_FLAGS_WRONG, player)
            next_to_tile = False
            for index in range(6):
                neighbour = NEIGHBOURS[cell, index]
                if neighbour >= 0 and s.cell_kind(state, player, neighbour) >= 0:
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
                if tile_features(tiles, kind) & (1 << feature):
                    features[feature] += 1
    if s.tile_count(state, player) != occupied:
        return _error(TILE_COUNT_WRONG, player)
    if s.lake_count(state, player) != lakes:
        return _error(LAKE_COUNT_WRONG, player)
    for feature in range(c.NUM_FEATURES):
        if s.feature_count(state, player, feature) != features[feature]:
            return _error(FEATURE_COUNT_WRONG, player)
    listed = np.zeros(NUM_CELLS, dtype=np.bool_)
    previous_sequence = -1
    for position in range(occupied):
        cell = s.placed_cell(state, player, position)
        if cell < 0 or cell >= NUM_CELLS or listed[cell] or s.cell_kind(state, player, cell) < 0:
            return _error(ORDER_WRONG, player)
        listed[cell] = True
        sequence = s.cell_sequence(state, player, cell)
        if sequence >= state[s.PLACEMENT_COUNTER]:
            return _error(ORDER_WRONG, player)
        if sequence < previous_sequence:
            return _found(finding, ORDER_WRONG, player, CASE_ORDER, position, sequence,
                          previous_sequence, 0)
        previous_sequence = sequence
    for position in range(occupied, NUM_CELLS):
        if s.placed_cell(state, player, position) != 0:
            return _error(ORDER_WRONG, player)
    markers = s.markers_left(state, player)
    if markers < 0 or markers > c.START_MARKERS:
        return _found(finding, MARKERS_WRONG, player, CASE_RANGE, -1, markers, 0,
                      c.START_MARKERS)
    if markers != c.START_MARKERS - invested:
        return _found(finding, MARKERS_WRONG, player, CASE_EXPECTED, -1, markers,
                      c.START_MARKERS - invested, 0)
    return OK


@njit(cache=True)
def _unused_seat_is_empty(state, player):
    """A seat beyond the player count holds what new_game leaves there."""
    for offset in range(s.PLAYER_STRIDE):
        expected = 0
        if s.CELL_KIND <= offset < s.CELL_KIND + NUM_CELLS or (
                s.PRIVATE_GOAL <= offset < s.GOAL_OPTIONS + 2):
            expected = -1
        if s.player_entry(state, player, offset) != expected:
            return False
    return True


@njit(cache=True)
def _premium_payable(state, player):
    """Some occupied slot of the mode's market has a premium the player can pay."""
    dale = state[s.MODE] == c.MODE_DALE
    first = c.DALE_FIRST_SLOT if dale else 0
    last = c.DALE_LAST_SLOT if dale else c.NUM_SLOTS - 1
    money = s.money(state, player)
    for slot in range(first, last + 1):
        if s.market_slot(state, slot) >= 0 and money >= c.SLOT_PREMIUMS[slot]:
            return True
    return False


@njit(cache=True)
def _check_decision(state, num_players, finding):
    """The pending decision has a legal action (its kind and the current player are
    `_check_decision_kind`'s): R3.6, R5.1b, d, R9.1, R9.2."""
    if state[s.GAME_OVER] != 0:
        return OK
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    if decision == c.DECISION_KEEP_GOAL:
        if s.goal_option(state, player, 0) < 0:
            return _error(NO_LEGAL_ACTION, 0)
        # The engine asks each later seat with drawn goals in turn until the first player
        # (turn.py); none of them may have kept a goal already, or play would reach a
        # second choice of the same player (R3.6).
        first = state[s.FIRST_PLAYER]
        for offset in range((player - first) % num_players, num_players):
            seat = (first + offset) % num_players
            if s.goal_option(state, seat, 0) >= 0 and s.private_goal(state, seat) >= 0:
                return _found(finding, GOALS_KEPT_WRONG, seat, CASE_EXPECTED, -1,
                              s.private_goal(state, seat), 0, 0)
    if (decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE) and (
            not _premium_payable(state, player)):
        return _error(NO_LEGAL_ACTION, 0)
    if state[s.MODE] == c.MODE_DALE:
        for cell in range(NUM_CELLS):
            if s.is_placeable(state, c.DALE_SEAT, cell):
                return OK
        return _error(DALE_CANNOT_PLACE, 0)
    return OK
