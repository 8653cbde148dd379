"""Redraw what a player cannot see, so that look-ahead never uses hidden information.

A player who searches ahead (agents.value_search) must not read the true order of the
stacks, the position of One More Round, or other players' private goals (R10.2). It
plays its trials on a copy of the game in which those are redrawn from what it can
know (R10.1): `redraw_hidden_information` replaces them in place by a sample consistent
with the public information and the viewer's own goals.

- Stacks: the tiles of a stack letter that the viewer has not seen (those left in the
  stack together with those left in the box, R3.2) are shuffled and dealt back to the
  stack's undrawn positions; the rest return to the box. Stack sizes stay as they are.
- One More Round: if not drawn yet, it goes to a uniform undrawn position of the block
  it was shuffled into (R3.3, R9.2).
- Goals: every other player's two goal options are dealt from the goals the viewer has
  not seen; a kept private goal becomes the first of them (R3.6).

The game's own generator words (setup shuffles) are replaced as well, since they could
reproduce the setup.
"""

import numpy as np
from numba import njit

from . import constants as c
from . import state_layout as s
from ..errors import StateFormatError
from .checks.invariants import check_consistency
from .rng import random_below, shuffle_range
from .setup import stack_sizes
from .tile_table import tile_stack

_STACKS = (c.STACK_A, c.STACK_B, c.STACK_C)


@njit(cache=True)
def _stack_of_position(state, position):
    if position < state[s.PILE_A_END]:
        return c.STACK_A
    if position < state[s.PILE_B_END]:
        return c.STACK_B
    return c.STACK_C


@njit(cache=True)
def _place_one_more_round(state, tiles, rng_words):
    """Undrawn position (absolute pile index) for One More Round, or -1 if it is drawn."""
    one_more_round = s.one_more_round_kind(tiles)
    still_in_pile = False
    for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
        if s.pile_tile(state, position) == one_more_round:
            still_in_pile = True
    if not still_in_pile:
        return -1
    sizes = stack_sizes(state[s.NUM_PLAYERS], state[s.MODE], state[s.EDITION])
    block_start = state[s.PILE_B_END] + sizes[2]
    block_stop = block_start + sizes[3] + 1
    first = max(block_start, state[s.PILE_POSITION])
    return first + random_below(rng_words, 0, block_stop - first)


@njit(cache=True)
def _redraw_stacks(state, tiles, rng_words):
    """The unseen tiles of each letter are pooled in kind order, so the draw depends on
    what the viewer may know and on `rng_words`, never on the true order."""
    one_more_round = s.one_more_round_kind(tiles)
    unseen = np.zeros(tiles.shape[0], dtype=np.int64)
    for kind in range(s.lake_kind(tiles)):  # the printed kinds
        if tile_stack(tiles, kind) != c.STACK_BASIC:
            unseen[kind] = s.boxed(state, kind)
            s.set_boxed(state, kind, 0)
    for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
        kind = s.pile_tile(state, position)
        if kind != one_more_round:
            unseen[kind] += 1
    omr_position = _place_one_more_round(state, tiles, rng_words)
    pool = np.empty(256, dtype=np.int32)
    for stack in _STACKS:
        total = 0
        for kind in range(s.lake_kind(tiles)):  # the printed kinds
            if tile_stack(tiles, kind) == stack:
                for _ in range(unseen[kind]):
                    pool[total] = kind
                    total += 1
        shuffle_range(pool, 0, total, rng_words, 0)
        dealt = 0
        for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
            if position == omr_position or _stack_of_position(state, position) != stack:
                continue
            s.set_pile_tile(state, position, pool[dealt])
            dealt += 1
        for index in range(dealt, total):
            s.add_boxed(state, pool[index], 1)
    if omr_position >= 0:
        s.set_pile_tile(state, omr_position, one_more_round)


@njit(cache=True)
def _redraw_goals(state, goals, viewer, rng_words):
    num_goals = goals.shape[0]
    seen = np.zeros(num_goals, dtype=np.bool_)
    for index in range(c.MAX_PLAYERS):
        if s.public_goal(state, index) >= 0:
            seen[s.public_goal(state, index)] = True
    for option in range(2):
        if s.goal_option(state, viewer, option) >= 0:
            seen[s.goal_option(state, viewer, option)] = True
    pool = np.empty(num_goals, dtype=np.int32)
    total = 0
    for goal in range(num_goals):
        if not seen[goal]:
            pool[total] = goal
            total += 1
    shuffle_range(pool, 0, total, rng_words, 0)
    dealt = 0
    for player in range(state[s.NUM_PLAYERS]):
        if player == viewer or s.goal_option(state, player, 0) < 0:
            continue
        s.set_goal_option(state, player, 0, pool[dealt])
        s.set_goal_option(state, player, 1, pool[dealt + 1])
        dealt += 2
        if s.private_goal(state, player) >= 0:
            s.set_private_goal(state, player, s.goal_option(state, player, 0))


@njit(cache=True)
def redraw_hidden_information(state, tiles, goals, viewer, rng_words):
    """Replace in place what `viewer` cannot see by a draw from `rng_words` (int32[4]).

    A door by which outside states enter the engine: StateFormatError, before anything
    is written, unless `viewer` is a seat and the state passes `check_consistency` (the
    redraw indexes by the state's kinds, goals and stack bounds; a game continued from a
    hand-made position may be past the tight bounds of check_invariants)."""
    if viewer < 0 or viewer >= state[s.NUM_PLAYERS]:
        raise StateFormatError("viewer: the viewer of a redraw must be a seat of the game")
    if check_consistency(state, tiles) != 0:
        raise StateFormatError("state: the state to redraw breaks the invariants "
                               "(invariants.validate_state names the field)")
    _redraw_stacks(state, tiles, rng_words)
    _redraw_goals(state, goals, viewer, rng_words)
    for index in range(4):
        s.set_rng_word(state, index, rng_words[index])
