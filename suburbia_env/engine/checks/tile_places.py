"""Where the tiles are: the pile, the market, the supply, discards and box, each
physical tile once (R3.2, R3.5, R4.3), and the drawn tiles against those on the table."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import constants as c
from .. import state_layout as s
from ..hex_grid import NUM_CELLS
from ..setup import stack_sizes
from ..tile_table import tile_copies, tile_stack
from .codes import (CASE_BLOCK, CASE_COUNT, CASE_DALE, CASE_EXPECTED, CASE_KIND, CASE_MISSING,
                    CASE_POSITION, CASE_RANGE, CASE_SET_ASIDE, CASE_TWICE, DISCARDED_WRONG,
                    DRAWN_WRONG, FINAL_ROUND_WRONG, F_PLACES, MARKET_WRONG, OK,
                    ONE_MORE_ROUND_BROKEN, PADDING_NOT_EMPTY, PILE_WRONG, PLACES, RNG_WRONG,
                    SUPPLY_USED_WRONG, SUPPLY_WRONG, TILE_COUNT_BROKEN, _error, _found)
from .structure import _BASIC_KINDS, _is_lettered


@njit(cache=True)
def _check_pile_order(state, tiles, finding):
    """The stack bounds of the configuration (R3.2, R3.3, R9.2), each pile position a tile
    of its stack, One More Round once, inside the block it is shuffled into."""
    one_more_round = s.one_more_round_kind(tiles)
    sizes = stack_sizes(state[s.NUM_PLAYERS], state[s.MODE], state[s.EDITION])
    a_end = sizes[0]
    b_end = a_end + sizes[1]
    block_start = b_end + sizes[2]
    block_stop = block_start + sizes[3] + 1
    end = block_stop + sizes[4]
    if (state[s.PILE_A_END] != a_end or state[s.PILE_B_END] != b_end
            or state[s.PILE_END] != end or state[s.PILE_POSITION] < 0
            or state[s.PILE_POSITION] > end):
        return _error(PILE_WRONG, 0)
    found = 0
    for position in range(end):
        kind = s.pile_tile(state, position)
        if kind == one_more_round:
            if found:
                return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_TWICE, position, kind,
                              0, 0)
            if position < block_start or position >= block_stop:
                return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_BLOCK, position, kind,
                              block_start, block_stop - 1)
            found += 1
            continue
        stack = c.STACK_A if position < a_end else (c.STACK_B if position < b_end else c.STACK_C)
        if not _is_lettered(tiles, kind) or tile_stack(tiles, kind) != stack:
            return _found(finding, PILE_WRONG, 0, CASE_POSITION, position, kind, stack, 0)
    if found != 1:
        return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_MISSING, -1, 0, 0, 0)
    for position in range(end, s.PILE_CAPACITY):
        if s.pile_tile(state, position) != 0:
            return _error(PADDING_NOT_EMPTY, 0)
    return OK


@njit(cache=True)
def _check_one_more_round_aside(state, tiles, finding):
    """One More Round set aside exactly when drawn, never boxed (R4.3); drawing it sets
    the final round (R4.3, R9.1), with Dale it ends the game at once (R9.2)."""
    one_more_round = s.one_more_round_kind(tiles)
    drawn = False
    for position in range(state[s.PILE_POSITION]):
        if s.pile_tile(state, position) == one_more_round:
            drawn = True
    if s.discarded(state, one_more_round) != (1 if drawn else 0):
        return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_SET_ASIDE, -1,
                      s.discarded(state, one_more_round), 1 if drawn else 0, 0)
    # One More Round (one copy) is never in the market or a borough (checked before) nor
    # left in the box: it is in the undrawn stacks or set aside, exactly once (R4.3).
    if s.boxed(state, one_more_round) != 0:
        return _error(ONE_MORE_ROUND_BROKEN, 0)
    # Without this a game whose One More Round is gone would never end.
    if drawn != (state[s.FINAL_ROUND] >= 0):
        return _found(finding, FINAL_ROUND_WRONG, 0, CASE_EXPECTED, -1, state[s.FINAL_ROUND],
                      1 if drawn else 0, 0)
    if drawn and state[s.MODE] == c.MODE_DALE and state[s.GAME_OVER] == 0:
        return _found(finding, FINAL_ROUND_WRONG, 0, CASE_DALE, -1, state[s.FINAL_ROUND],
                      state[s.ROUND] - 1, 0)
    return OK


@njit(cache=True)
def _count_places(state, tiles, kind, finding):
    """The copies of `kind` in each of PLACES, into finding[F_PLACES:]."""
    for index in range(len(PLACES)):
        finding[F_PLACES + index] = 0
    for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
        if s.pile_tile(state, position) == kind:
            finding[F_PLACES] += 1
    for slot in range(c.NUM_SLOTS):
        if s.market_slot(state, slot) == kind:
            finding[F_PLACES + 1] += 1
    for basic in range(3):
        if _BASIC_KINDS[basic] == kind:
            finding[F_PLACES + 2] += s.supply(state, basic)
    for player in range(state[s.NUM_PLAYERS]):
        for cell in range(NUM_CELLS):
            if s.cell_kind(state, player, cell) == kind:
                finding[F_PLACES + 3] += 1
    finding[F_PLACES + 4] = s.discarded(state, kind)
    finding[F_PLACES + 5] = s.boxed(state, kind)


@njit(cache=True)
def _check_tiles(state, tiles, num_players, finding):
    """Each physical tile in exactly one place (R3.2, R3.5, R4.3)."""
    num_kinds = tiles.shape[0]
    if not (0 <= state[s.PILE_A_END] <= state[s.PILE_B_END] <= state[s.PILE_END]
            <= s.PILE_CAPACITY and 0 <= state[s.PILE_POSITION] <= state[s.PILE_END]):
        return _error(PILE_WRONG, 0)
    code = _check_pile_order(state, tiles, finding)
    if code != OK:
        return code
    places = np.zeros(num_kinds, dtype=np.int64)
    for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
        places[s.pile_tile(state, position)] += 1
    for slot in range(c.NUM_SLOTS):
        kind = s.market_slot(state, slot)
        if kind == -1:
            continue
        if not _is_lettered(tiles, kind):
            return _found(finding, MARKET_WRONG, 0, CASE_KIND, slot, kind, 0, 0)
        if state[s.MODE] == c.MODE_DALE and (slot < c.DALE_FIRST_SLOT
                                             or slot > c.DALE_LAST_SLOT):
            return _found(finding, MARKET_WRONG, 0, CASE_DALE, slot, kind, 0, 0)
        places[kind] += 1
    for basic in range(3):
        if s.supply(state, basic) < 0 or s.supply(state, basic) > c.BASIC_SUPPLY_PER_KIND:
            return _found(finding, SUPPLY_WRONG, basic, CASE_RANGE, -1, s.supply(state, basic),
                          0, c.BASIC_SUPPLY_PER_KIND)
    for player in range(num_players):
        for cell in range(NUM_CELLS):
            kind = s.cell_kind(state, player, cell)
            if kind >= 0:
                places[kind] += 1
    for basic in range(3):
        places[_BASIC_KINDS[basic]] += s.supply(state, basic)
    for kind in range(num_kinds):
        if s.discarded(state, kind) < 0 or s.boxed(state, kind) < 0:
            return _error(TILE_COUNT_BROKEN, kind)
        places[kind] += s.discarded(state, kind) + s.boxed(state, kind)
        if places[kind] != tile_copies(tiles, kind):
            _count_places(state, tiles, kind, finding)
            return _found(finding, TILE_COUNT_BROKEN, kind, CASE_COUNT, -1, places[kind],
                          tile_copies(tiles, kind), 0)
    for kind in range(num_kinds, s.MAX_KINDS):
        if s.discarded(state, kind) != 0 or s.boxed(state, kind) != 0:
            return _error(PADDING_NOT_EMPTY, 0)
    return _check_one_more_round_aside(state, tiles, finding)


@njit(cache=True)
def _check_generator_and_discards(state, tiles):
    """The generator never holds four zero words (xoshiro128** never reaches them, rng.py);
    only market tiles and One More Round are ever discarded (R4.3, R5.1, R9.2)."""
    if (s.rng_word(state, 0) == 0 and s.rng_word(state, 1) == 0
            and s.rng_word(state, 2) == 0 and s.rng_word(state, 3) == 0):
        return _error(RNG_WRONG, 0)
    for kind in range(s.one_more_round_kind(tiles)):
        if s.discarded(state, kind) != 0 and not _is_lettered(tiles, kind):
            return _error(DISCARDED_WRONG, kind)
    return OK


@njit(cache=True)
def _check_drawn(state, tiles):
    """The drawn tiles are the lettered tiles on the table, in the market and discarded;
    the basic tiles on the table are the starting ones plus those taken from the supply."""
    num_kinds = tiles.shape[0]
    one_more_round = num_kinds - 1
    num_players = state[s.NUM_PLAYERS]
    balance = np.zeros(num_kinds, dtype=np.int64)
    for index in range(state[s.PILE_POSITION]):
        balance[s.pile_tile(state, index)] += 1
    balance[one_more_round] -= s.discarded(state, one_more_round)
    for slot in range(c.NUM_SLOTS):
        if s.market_slot(state, slot) >= 0:
            balance[s.market_slot(state, slot)] -= 1
    for player in range(num_players):
        for cell in range(NUM_CELLS):
            if s.cell_kind(state, player, cell) >= 0:
                balance[s.cell_kind(state, player, cell)] -= 1
    for kind in range(num_kinds - 2):
        if not _is_lettered(tiles, kind):
            continue
        if balance[kind] != s.discarded(state, kind):
            return _error(DRAWN_WRONG, kind)
    for basic in range(3):
        on_table = -balance[_BASIC_KINDS[basic]]
        if on_table != num_players + c.BASIC_SUPPLY_PER_KIND - s.supply(state, basic):
            return _error(SUPPLY_USED_WRONG, basic)
    return OK
