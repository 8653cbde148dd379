"""What play implies of its progress: tiles drawn against turns played, the final
round and the market's shape (`check_reachable`; R4.2, R4.3, R9.1, R9.2)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import constants as c
from .. import state_layout as s
from .codes import (CASE_DALE, CASE_GAME_OVER, FINAL_ROUND_WRONG, MARKET_SHAPE_WRONG, OK,
                    PILE_POSITION_WRONG, _error, _found)
from .placements import _turns_completed


@njit(cache=True)
def _one_more_round_position(state, tiles):
    one_more_round = s.one_more_round_kind(tiles)
    for position in range(state[s.PILE_END]):
        if s.pile_tile(state, position) == one_more_round:
            return position
    return -1


@njit(cache=True)
def _check_progress(state, tiles, finding):
    """Tiles drawn against turns played, and the final round (R4.2, R4.3, R9.1, R9.2)."""
    num_players = state[s.NUM_PLAYERS]
    position = state[s.PILE_POSITION]
    end = state[s.PILE_END]
    current_round = state[s.ROUND]
    final_round = state[s.FINAL_ROUND]
    over = state[s.GAME_OVER] != 0
    omr = _one_more_round_position(state, tiles)
    drawn = omr < position
    if state[s.MODE] == c.MODE_DALE:
        per_round = c.DALE_LAST_SLOT - c.DALE_FIRST_SLOT + 1
        if over:
            before = position - 1 - per_round * current_round  # drawn before One More Round
            if not drawn or omr != position - 1 or before < 0 or before >= per_round:
                return _error(PILE_POSITION_WRONG, 0)
            if final_round != current_round - 1:
                return _found(finding, FINAL_ROUND_WRONG, 0, CASE_DALE, -1, final_round,
                              current_round - 1, 0)
        else:
            if drawn or position != per_round * (current_round + 1):
                return _error(PILE_POSITION_WRONG, 0)
            if final_round != -1:
                return _error(FINAL_ROUND_WRONG, 0)
        return OK
    draws = 2 if state[s.MODE] == c.MODE_SOLITARY else 1
    attempts = c.NUM_SLOTS + draws * _turns_completed(state)
    expected = min(end, attempts + (1 if omr < attempts else 0))
    if position != expected:
        return _error(PILE_POSITION_WRONG, 0)
    if drawn:
        if over and current_round != final_round:
            return _found(finding, FINAL_ROUND_WRONG, 0, CASE_GAME_OVER, -1, final_round,
                          current_round, 0)
        if final_round != (omr - c.NUM_SLOTS) // draws // num_players + 1:
            return _error(FINAL_ROUND_WRONG, 0)
        if current_round > final_round:
            return _error(FINAL_ROUND_WRONG, 0)
    elif final_round != -1 or over:
        return _error(FINAL_ROUND_WRONG, 0)
    return OK


@njit(cache=True)
def _draw_order(state, tiles, out):
    """The tiles drawn so far, One More Round left out, in the order the market keeps them
    from slot 6 to slot 0: the setup's seven (slot 0 got the first, R4.1) from the last to
    the first, then every later draw (each enters at slot 0, R4.2). Returns their count."""
    one_more_round = s.one_more_round_kind(tiles)
    position = state[s.PILE_POSITION]
    count = 0
    for index in range(min(position, c.NUM_SLOTS) - 1, -1, -1):
        out[count] = s.pile_tile(state, index)
        count += 1
    for index in range(c.NUM_SLOTS, position):
        if s.pile_tile(state, index) != one_more_round:
            out[count] = s.pile_tile(state, index)
            count += 1
    return count


@njit(cache=True)
def _check_market_shape(state, tiles):
    """A market R4.2 (R9.1, R9.2) can produce at this decision."""
    position = state[s.PILE_POSITION]
    if state[s.MODE] == c.MODE_DALE:
        per_round = c.DALE_LAST_SLOT - c.DALE_FIRST_SLOT + 1
        start = position - per_round
        filled = per_round
        if state[s.GAME_OVER]:
            start = per_round * state[s.ROUND]
            filled = position - 1 - start
        for slot in range(c.NUM_SLOTS):
            index = slot - c.DALE_FIRST_SLOT
            expected = s.pile_tile(state, start + index) if 0 <= index < filled else -1
            if s.market_slot(state, slot) != expected:
                return _error(MARKET_SHAPE_WRONG, 0)
        return OK
    occupied = 0
    lowest = c.NUM_SLOTS
    for slot in range(c.NUM_SLOTS - 1, -1, -1):
        if s.market_slot(state, slot) >= 0:
            occupied += 1
            lowest = slot
    holes = c.NUM_SLOTS - lowest - occupied
    removing = state[s.GAME_OVER] == 0 and state[s.PENDING_DECISION] == c.DECISION_REMOVE
    stacks_left = position < state[s.PILE_END]
    if removing:
        if holes > 1 or (stacks_left and occupied != c.NUM_SLOTS - 1):
            return _error(MARKET_SHAPE_WRONG, 0)
    elif holes != 0 or (stacks_left and occupied != c.NUM_SLOTS):
        return _error(MARKET_SHAPE_WRONG, 0)
    order = np.empty(s.PILE_CAPACITY, dtype=np.int64)
    count = _draw_order(state, tiles, order)
    if stacks_left and not removing and s.market_slot(state, 0) != order[count - 1]:
        return _error(MARKET_SHAPE_WRONG, 0)
    matched = 0
    for slot in range(c.NUM_SLOTS - 1, -1, -1):
        kind = s.market_slot(state, slot)
        if kind < 0:
            continue
        while matched < count and order[matched] != kind:
            matched += 1
        if matched == count:
            return _error(MARKET_SHAPE_WRONG, 0)
        matched += 1
    return OK
