"""A new game: boroughs, supply, stacks, market, goals and the first player (R2.3, R3, R9).

All randomness comes from the generator words passed in and kept in the state (rng.py).
"""

import numpy as np
from numba import njit

from . import constants as c
from . import state_layout as s
from .hex_grid import NUM_CELLS, STARTING_CELLS
from .market import draw_tile, fill_dale_market
from .resolution import put_tile
from .rng import random_below, shuffle_range
from .tile_table import goal_excluded_with_dale, tile_copies, tile_stack
from . import event_log as ev

# Stack sizes, indexed by [players 1-2, 3, 4] (R3.2, R3.3, R9.2): A, B, C drawn first,
# C shuffled with One More Round, C drawn last.
_SECOND_EDITION = np.array([[14, 12, 6, 6, 5], [18, 15, 9, 9, 5], [22, 20, 12, 12, 5]],
                           dtype=np.int64)
_FIRST_EDITION = np.array([[15, 15, 9, 6, 4], [18, 18, 9, 9, 4], [21, 21, 9, 12, 4]],
                          dtype=np.int64)
_DALE = np.array([25, 25, 13, 12, 0], dtype=np.int64)


def seats(players: int, mode: int) -> int:
    """Seats at the table: Dale takes a seat of his own beside the one player (R9.2)."""
    return 2 if mode == c.MODE_DALE else players


@njit(cache=True)
def stack_sizes(num_players, mode, edition):
    """(A, B, C first, C block with One More Round, C last) for a configuration."""
    if mode == c.MODE_DALE:
        return _DALE
    row = 0 if num_players <= 2 else num_players - 2
    return _SECOND_EDITION[row] if edition == c.EDITION_SECOND else _FIRST_EDITION[row]


@njit(cache=True)
def _take_from_box(state, tiles, stack, count, destination):
    """Shuffle the box's tiles of one stack and move `count` of them to `destination`."""
    physical = np.empty(256, dtype=np.int32)
    total = 0
    for kind in range(s.lake_kind(tiles)):  # the printed kinds
        if tile_stack(tiles, kind) == stack:
            for _ in range(s.boxed(state, kind)):
                physical[total] = kind
                total += 1
    shuffle_range(physical, 0, total, state, s.RNG_STATE)
    for index in range(count):
        destination[index] = physical[index]
        s.add_boxed(state, physical[index], -1)


@njit(cache=True)
def _build_pile(state, tiles):
    sizes = stack_sizes(state[s.NUM_PLAYERS], state[s.MODE], state[s.EDITION])
    count_a, count_b, c_first, c_block, c_last = sizes[0], sizes[1], sizes[2], sizes[3], sizes[4]
    pile = s.pile_view(state)
    _take_from_box(state, tiles, c.STACK_A, count_a, pile[:count_a])
    _take_from_box(state, tiles, c.STACK_B, count_b, pile[count_a:count_a + count_b])
    start_c = count_a + count_b
    count_c = c_first + c_block + c_last
    # The C tiles in order, then One More Round shuffled into its block (R3.2, R3.3, R9.2).
    c_tiles = np.empty(count_c + 1, dtype=np.int32)
    _take_from_box(state, tiles, c.STACK_C, count_c, c_tiles)
    one_more_round = s.one_more_round_kind(tiles)
    s.add_boxed(state, one_more_round, -1)
    position = start_c
    for index in range(c_first):
        pile[position] = c_tiles[index]
        position += 1
    block_start = position
    for index in range(c_first, c_first + c_block):
        pile[position] = c_tiles[index]
        position += 1
    pile[position] = one_more_round
    position += 1
    shuffle_range(pile, block_start, position, state, s.RNG_STATE)
    for index in range(c_first + c_block, count_c):
        pile[position] = c_tiles[index]
        position += 1
    s.set_stack_end(state, 0, count_a)
    s.set_stack_end(state, 1, start_c)
    s.set_stack_end(state, 2, position)


@njit(cache=True)
def _deal_goals(state, goals):
    """Public goals face up, then two goals for each player to keep one (R3.6, R9.1, R9.2).

    With Dale, three public goals are turned up, each one about lakes or investment
    markers discarded and replaced (R9.2); then the player draws two goals from the rest,
    as in any 2-player game (RULES.md revision of 2026-11-25). Dale draws none.
    """
    mode = state[s.MODE]
    if mode == c.MODE_SOLITARY:
        return
    order = np.arange(goals.shape[0]).astype(np.int32)
    shuffle_range(order, 0, order.shape[0], state, s.RNG_STATE)
    num_players = state[s.NUM_PLAYERS]
    drawn = 0
    if mode == c.MODE_DALE:
        public = 0
        while public < 3:
            goal = order[drawn]
            drawn += 1
            if not goal_excluded_with_dale(goals, goal):
                s.set_public_goal(state, public, goal)
                public += 1
        goal_drawers = 1
    else:
        for index in range(num_players):
            s.set_public_goal(state, index, order[index])
        drawn = num_players
        goal_drawers = num_players
    for offset in range(goal_drawers):
        player = (state[s.FIRST_PLAYER] + offset) % num_players
        s.set_goal_option(state, player, 0, order[drawn + 2 * offset])
        s.set_goal_option(state, player, 1, order[drawn + 2 * offset + 1])
        if state[s.RANDOM_PRIVATE_GOALS]:
            option = random_below(state, s.RNG_STATE, 2)
            s.set_private_goal(state, player, s.goal_option(state, player, option))


@njit(cache=True)
def new_game(state, tiles, goals, basic_kinds, num_players, mode, edition, random_private_goals,
             seed):
    """Fill `state` with a new game. `num_players` counts seats (Dale included, R9.2)."""
    state[:] = 0
    state[s.NUM_PLAYERS] = num_players
    state[s.MODE] = mode
    state[s.EDITION] = edition
    state[s.FINAL_ROUND] = -1
    state[s.RANDOM_PRIVATE_GOALS] = random_private_goals
    state[s.PLACEMENT_COUNTER] = 1
    for word in range(4):
        s.set_rng_word(state, word, seed[word])
    for slot in range(c.NUM_SLOTS):
        s.set_market_slot(state, slot, -1)
    for index in range(c.MAX_PLAYERS):
        s.set_public_goal(state, index, -1)
    for kind in range(tiles.shape[0]):
        s.add_boxed(state, kind, tile_copies(tiles, kind))
    for basic in range(3):
        s.set_supply(state, basic, c.BASIC_SUPPLY_PER_KIND)
        s.add_boxed(state, basic_kinds[basic], -c.BASIC_SUPPLY_PER_KIND)
    for player in range(c.MAX_PLAYERS):
        for cell in range(NUM_CELLS):
            s.set_cell_kind(state, player, cell, -1)
        s.set_private_goal(state, player, -1)
        s.set_goal_option(state, player, 0, -1)
        s.set_goal_option(state, player, 1, -1)
        if player >= num_players:
            continue
        s.set_money(state, player, c.START_MONEY)
        s.set_income(state, player, c.START_INCOME)
        s.set_reputation(state, player, c.START_REPUTATION)
        s.set_population(state, player, c.START_POPULATION)
        s.set_markers_left(state, player, c.START_MARKERS)
        for basic in range(3):  # Suburbs, Park, Factory at (0,0), (0,1), (0,2) (R2.3)
            put_tile(state, tiles, player, STARTING_CELLS[basic], basic_kinds[basic], False, 0)
            s.add_boxed(state, basic_kinds[basic], -1)
    _build_pile(state, tiles)
    if mode == c.MODE_STANDARD:
        state[s.FIRST_PLAYER] = random_below(state, s.RNG_STATE, num_players)
    state[s.CURRENT_PLAYER] = state[s.FIRST_PLAYER]
    if mode == c.MODE_DALE:
        fill_dale_market(state, tiles, np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32))
    else:
        for slot in range(c.NUM_SLOTS):
            s.set_market_slot(state, slot, draw_tile(state))
    _deal_goals(state, goals)
    if mode != c.MODE_SOLITARY and not random_private_goals:
        state[s.PENDING_DECISION] = c.DECISION_KEEP_GOAL
    else:
        state[s.PENDING_DECISION] = c.DECISION_TURN
