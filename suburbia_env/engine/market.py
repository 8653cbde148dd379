"""The market: drawing, sliding and refilling (R4), and Dale's fixed four slots (R9.2)."""

import numpy as np

from . import constants as c
from . import event_log as ev
from . import state_layout as s
from .refcount_free import njit_without_refcounts


_PREMIUMS = np.array(c.SLOT_PREMIUMS, dtype=np.int64)


@njit_without_refcounts
def slot_premium(slot):
    return _PREMIUMS[slot]


@njit_without_refcounts
def first_slot(state):
    return c.DALE_FIRST_SLOT if state[s.MODE] == c.MODE_DALE else 0


@njit_without_refcounts
def last_slot(state):
    return c.DALE_LAST_SLOT if state[s.MODE] == c.MODE_DALE else c.NUM_SLOTS - 1


@njit_without_refcounts
def draw_tile(state):
    """Next tile of the stacks (A, then B, then C), or -1 when all are empty (R4.2)."""
    position = state[s.PILE_POSITION]
    if position >= state[s.PILE_END]:
        return -1
    state[s.PILE_POSITION] = position + 1
    return s.pile_tile(state, position)


@njit_without_refcounts
def take_from_market(state, slot):
    kind = s.market_slot(state, slot)
    s.set_market_slot(state, slot, -1)
    return kind


@njit_without_refcounts
def discard_from_market(state, log, player, slot, premium_paid):
    kind = take_from_market(state, slot)
    s.add_discarded(state, kind, 1)
    ev.record(log, ev.EVENT_DISCARD, player, 0, premium_paid, 0, -1, slot, kind)


@njit_without_refcounts
def slide_market(state):
    """Close gaps by sliding tiles toward slot 6, keeping their order (R4.2)."""
    write = c.NUM_SLOTS - 1
    for read in range(c.NUM_SLOTS - 1, -1, -1):
        kind = s.market_slot(state, read)
        if kind >= 0:
            s.set_market_slot(state, read, -1)
            s.set_market_slot(state, write, kind)
            write -= 1


@njit_without_refcounts
def refill_market(state, tiles, log, draws):
    """Slide and draw into slot 0, `draws` times (R4.2; two in Solitary Architect, R9.1).

    One More Round is set aside and replaced; the round after the current one becomes
    the final round (R4.3).
    """
    one_more_round = s.one_more_round_kind(tiles)
    for _ in range(draws):
        slide_market(state)
        if s.market_slot(state, 0) >= 0:
            continue
        kind = draw_tile(state)
        while kind == one_more_round:
            s.add_discarded(state, kind, 1)
            if state[s.FINAL_ROUND] < 0:
                state[s.FINAL_ROUND] = state[s.ROUND] + 1
            ev.record(log, ev.EVENT_ONE_MORE_ROUND, -1, 0, 0, state[s.FINAL_ROUND], -1, -1, kind)
            kind = draw_tile(state)
        s.set_market_slot(state, 0, kind)
        if kind >= 0:
            ev.record(log, ev.EVENT_DRAW, -1, 0, 0, 0, -1, 0, kind)


@njit_without_refcounts
def fill_dale_market(state, tiles, log):
    """Round start with Dale: fill slots 2..5; True when One More Round ends the game (R9.2)."""
    one_more_round = s.one_more_round_kind(tiles)
    for slot in range(c.DALE_FIRST_SLOT, c.DALE_LAST_SLOT + 1):
        kind = draw_tile(state)
        if kind == one_more_round:
            s.add_discarded(state, kind, 1)
            state[s.FINAL_ROUND] = state[s.ROUND] - 1
            ev.record(log, ev.EVENT_ONE_MORE_ROUND, -1, 0, 0, state[s.FINAL_ROUND], -1, -1, kind)
            return True
        s.set_market_slot(state, slot, kind)
        if kind >= 0:
            ev.record(log, ev.EVENT_DRAW, -1, 0, 0, 0, -1, slot, kind)
    return False


@njit_without_refcounts
def clear_market(state, log):
    """Dale mode: the tiles left at the end of a round are discarded (R9.2)."""
    for slot in range(c.NUM_SLOTS):
        if s.market_slot(state, slot) >= 0:
            discard_from_market(state, log, -1, slot, 0)
