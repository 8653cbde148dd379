"""What play implies of the boroughs: the starting tiles, each tile's place and number,
placements against turns taken (`check_reachable`; R2.3, R2.4, R3.4, R5.1, R7.2, R9.2)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import constants as c
from .. import state_layout as s
from ..hex_grid import NEIGHBOURS, NUM_CELLS
from .codes import (ADJACENCY_WRONG, CASE_COUNT, CASE_MISSING, CASE_POSITION, CASE_RANGE,
                    CASE_TWICE, LAKE_SOURCE_WRONG, OK, SEQUENCE_WRONG, STARTING_TILES_WRONG,
                    START_VALUES_WRONG, TURNS_WRONG, _error, _found)
from .structure import _BASIC_KINDS, _NUM_STARTING, _STARTING_CELLS, _is_lettered


@njit(cache=True)
def _check_starting_tiles(state, player, finding):
    """A borough opens with Suburbs (0, 0), Community Park (0, 1) and Heavy Factory (0, 2),
    face up, numbered 0 (R2.3). Made before the borough's derived entries are checked, it
    reads an entry of the placement order only when that is a cell."""
    occupied = 0
    for cell in range(NUM_CELLS):
        if s.cell_kind(state, player, cell) >= 0:
            occupied += 1
    for position in range(min(occupied, _NUM_STARTING)):
        cell = s.placed_cell(state, player, position)
        if cell < 0 or cell >= NUM_CELLS:
            return OK  # the placement order is `_check_borough`'s
        if (cell != _STARTING_CELLS[position]
                or s.cell_kind(state, player, cell) != _BASIC_KINDS[position]
                or s.cell_flags(state, player, cell) & s.FLAG_LAKE
                or s.cell_sequence(state, player, cell) != 0):
            return _found(finding, STARTING_TILES_WRONG, player, CASE_POSITION, position,
                          s.cell_kind(state, player, cell), 0, 0)
    if occupied < _NUM_STARTING:
        return _found(finding, STARTING_TILES_WRONG, player, CASE_COUNT, -1, occupied,
                      _NUM_STARTING, 0)
    return OK


@njit(cache=True)
def _check_placements(state, tiles, player, finding):
    """After the starting tiles (R2.3), each tile next to an earlier one (R2.4), lakes of
    market tiles (R5.1c)."""
    count = s.tile_count(state, player)
    reached = np.zeros(NUM_CELLS, dtype=np.bool_)
    for position in range(count):
        cell = s.placed_cell(state, player, position)
        kind = s.cell_kind(state, player, cell)
        flags = s.cell_flags(state, player, cell)
        if position < _NUM_STARTING:  # `_check_starting_tiles` checked them
            reached[cell] = True
            continue
        next_to_earlier = False
        for index in range(6):
            neighbour = NEIGHBOURS[cell, index]
            if neighbour >= 0 and reached[neighbour]:
                next_to_earlier = True
        if not next_to_earlier:
            return _found(finding, ADJACENCY_WRONG, player, CASE_POSITION, position, cell, 0, 0)
        reached[cell] = True
        if flags & s.FLAG_LAKE and not _is_lettered(tiles, kind):
            return _found(finding, LAKE_SOURCE_WRONG, player, CASE_POSITION, position, kind,
                          0, 0)
    return OK


@njit(cache=True)
def _check_sequences(state, finding):
    """Placement numbers 1 .. counter - 1, each once (R7.2)."""
    counter = state[s.PLACEMENT_COUNTER]
    numbered = np.zeros(counter, dtype=np.bool_)
    placed = 0
    for player in range(state[s.NUM_PLAYERS]):
        for position in range(_NUM_STARTING, s.tile_count(state, player)):
            sequence = s.cell_sequence(state, player, s.placed_cell(state, player, position))
            if sequence < 1:
                return _found(finding, SEQUENCE_WRONG, 0, CASE_RANGE, position, sequence, 1,
                              player)
            if numbered[sequence]:
                return _found(finding, SEQUENCE_WRONG, 0, CASE_TWICE, position, sequence, 0,
                              player)
            numbered[sequence] = True
            placed += 1
    if placed != counter - 1:
        missing = 1
        while missing < counter - 1 and numbered[missing]:
            missing += 1
        return _found(finding, SEQUENCE_WRONG, 0, CASE_MISSING, -1, counter, missing, 0)
    return OK


@njit(cache=True)
def _turns_completed(state):
    """Turns finished since the first turn (standard and Solitary Architect): the round's
    turns from the first player, and every turn at game over (R1.5)."""
    num_players = state[s.NUM_PLAYERS]
    if state[s.GAME_OVER]:
        return (state[s.ROUND] + 1) * num_players
    if state[s.PENDING_DECISION] == c.DECISION_KEEP_GOAL:
        return 0
    offset = (state[s.CURRENT_PLAYER] - state[s.FIRST_PLAYER]) % num_players
    return state[s.ROUND] * num_players + offset


@njit(cache=True)
def _check_players_turns(state):
    """Placements and investments against turns taken; start values before the first
    finished turn (R3.4, R5.1); Dale's one tile a round, no lake, no marker (R9.2)."""
    num_players = state[s.NUM_PLAYERS]
    decision = state[s.PENDING_DECISION]
    dale = state[s.MODE] == c.MODE_DALE
    over = state[s.GAME_OVER] != 0
    turns = 0 if dale else _turns_completed(state)
    for player in range(num_players):
        if dale:
            taken = state[s.ROUND]
        else:
            offset = (player - state[s.FIRST_PLAYER]) % num_players
            taken = turns // num_players + (1 if offset < turns % num_players else 0)
        mid_turn = (not over and player == state[s.CURRENT_PLAYER]
                    and (decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE))
        placed = s.tile_count(state, player) - _NUM_STARTING
        invested = c.START_MARKERS - s.markers_left(state, player)
        if dale and player == c.DALE_SEAT:
            if placed != taken or invested != 0 or s.lake_count(state, player) != 0:
                return _error(TURNS_WRONG, player)
        elif placed + invested > taken + (1 if mid_turn else 0):
            return _error(TURNS_WRONG, player)
        if taken == 0 and not mid_turn and (
                s.money(state, player) != c.START_MONEY
                or s.income(state, player) != c.START_INCOME
                or s.reputation(state, player) != c.START_REPUTATION
                or s.population(state, player) != c.START_POPULATION):
            return _error(START_VALUES_WRONG, player)
    return OK
