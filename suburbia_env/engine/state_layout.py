"""The flat int32 state vector that holds one whole game: its layout and its accessors.

A game is one `np.int32` vector of `STATE_SIZE` entries so that copying, hashing,
batching (N x STATE_SIZE) and passing it to numba kernels are all trivial. Only the
compiled core writes it; formats/ turns it into the documented JSON format.
Derived entries (feature counts, placeable flags) are rebuilt from the borough on load.

This module is the only one that knows where a value lives: every other module reads
and writes the state through the accessors below (`money(state, player)`,
`cell_kind(state, player, cell)`, ...), never through `state[base + OFFSET + ...]`
(tests/engine/test_state_access.py enforces it). The accessors are kernels compiled
with `inline='always'`: numba pastes their body into each calling kernel, so compiled code
runs as if it indexed the state itself (docs/architecture.md, "The state and its
accessors", has the measured cost). Python code calls the same functions.
"""

import numpy as np
from numba import njit

from .constants import (ATTR_INCOME, ATTR_MONEY, ATTR_POPULATION, ATTR_REPUTATION, MAX_PLAYERS,
                        NUM_FEATURES, NUM_SLOTS)
from .hex_grid import NUM_CELLS
from .refcount_free import inline_accessor

MAX_KINDS = 64  # room for the tile kinds of tiles.csv plus lake and One More Round
PILE_CAPACITY = 96  # the largest layout (Dale: 3 x 25 + One More Round) fits

# Game header.
NUM_PLAYERS = 0
MODE = 1
EDITION = 2
FIRST_PLAYER = 3
CURRENT_PLAYER = 4
PENDING_DECISION = 5
ROUND = 6  # 0-based
FINAL_ROUND = 7  # the round after which the game ends, -1 until One More Round is drawn (R4.3)
GAME_OVER = 8
PLACEMENT_COUNTER = 9  # global placement sequence (R7.2, R6.5)
RANDOM_PRIVATE_GOALS = 10  # config: the engine keeps a random goal for each player (R3.6)
PILE_POSITION = 11  # index of the next tile to draw
PILE_A_END = 12  # the A stack is PILE[0:PILE_A_END]
PILE_B_END = 13  # B is PILE[PILE_A_END:PILE_B_END], C is PILE[PILE_B_END:PILE_END]
PILE_END = 14
RNG_STATE = 15  # four 32-bit words of xoshiro128** (see rng.py)
SUPPLY = RNG_STATE + 4  # basic tiles left, in notation order: suburbs, park, factory (R3.5)
MARKET = SUPPLY + 3  # kind per slot 0..6, -1 when empty (R4.1)
PUBLIC_GOALS = MARKET + NUM_SLOTS  # goal index per public goal, -1 when unused
PILE = PUBLIC_GOALS + MAX_PLAYERS  # every stack in draw order: A, then B, then C (R4.2)
DISCARDED = PILE + PILE_CAPACITY  # count per kind of discarded tiles (and One More Round once set aside)
BOX = DISCARDED + MAX_KINDS  # count per kind of tiles not used in this game
PLAYERS = BOX + MAX_KINDS

# Player block, at PLAYERS + player * PLAYER_STRIDE.
MONEY = 0
INCOME = 1
REPUTATION = 2
POPULATION = 3
MARKERS_LEFT = 4
PRIVATE_GOAL = 5  # -1 until kept
GOAL_OPTIONS = 6  # the two goals drawn at setup (R3.6)
TILE_COUNT = 8  # tiles in the borough, lakes and starting tiles included
LAKE_COUNT = 9
FEATURE_COUNT = 10  # tiles per type / icon feature (NUM_FEATURES entries)
SCORE = FEATURE_COUNT + NUM_FEATURES  # final-scoring breakdown (R8.2), filled at the end
SCORE_POPULATION_BEFORE_GOALS = SCORE
SCORE_PUBLIC_GOALS = SCORE + 1  # one entry per public goal
SCORE_PRIVATE_GOAL = SCORE_PUBLIC_GOALS + MAX_PLAYERS
SCORE_MONEY_CONVERTED = SCORE_PRIVATE_GOAL + 1
SCORE_FINAL_POPULATION = SCORE_MONEY_CONVERTED + 1
SCORE_WINNER = SCORE_FINAL_POPULATION + 1
ORDER = SCORE_WINNER + 1  # cells in placement order, TILE_COUNT of them
CELL_KIND = ORDER + NUM_CELLS  # kind per cell, -1 when empty; a lake keeps the kind of its tile
CELL_FLAGS = CELL_KIND + NUM_CELLS
CELL_SEQUENCE = CELL_FLAGS + NUM_CELLS  # global placement number per cell
PLAYER_STRIDE = CELL_SEQUENCE + NUM_CELLS

STATE_SIZE = PLAYERS + MAX_PLAYERS * PLAYER_STRIDE

# Bits of CELL_FLAGS.
FLAG_LAKE = 1
FLAG_INVESTED = 2
FLAG_PLACEABLE = 4  # empty and adjacent to a tile or lake of the borough (R2.4)


_accessor = inline_accessor


# Tables: the last two rows of the tile table are the lake and One More Round (tile_data).
@_accessor
def lake_kind(tiles):
    """The tile-table row of a lake (R6.7); also the number of printed tile kinds."""
    return tiles.shape[0] - 2


@_accessor
def one_more_round_kind(tiles):
    """The tile-table row of the One More Round tile (R4.3)."""
    return tiles.shape[0] - 1


# Header arrays.
@_accessor
def market_slot(state, slot):
    """Kind in a market slot, -1 when empty (R4.1)."""
    return state[MARKET + slot]


@_accessor
def set_market_slot(state, slot, kind):
    state[MARKET + slot] = kind


@_accessor
def pile_tile(state, position):
    """Kind at a position of the stacks in draw order (R4.2)."""
    return state[PILE + position]


@_accessor
def set_pile_tile(state, position, kind):
    state[PILE + position] = kind


@_accessor
def stack_end(state, stack):
    """End (exclusive) of stack 0 (A), 1 (B) or 2 (C) in the pile."""
    return state[PILE_A_END + stack]


@_accessor
def set_stack_end(state, stack, end):
    state[PILE_A_END + stack] = end


@_accessor
def supply(state, basic):
    """Basic tiles left of kind `basic` in notation order (R3.5)."""
    return state[SUPPLY + basic]


@_accessor
def set_supply(state, basic, count):
    state[SUPPLY + basic] = count


@_accessor
def public_goal(state, index):
    """Goal of public goal `index`, -1 when unused (R3.6)."""
    return state[PUBLIC_GOALS + index]


@_accessor
def set_public_goal(state, index, goal):
    state[PUBLIC_GOALS + index] = goal


@_accessor
def discarded(state, kind):
    return state[DISCARDED + kind]


@_accessor
def add_discarded(state, kind, amount):
    state[DISCARDED + kind] += amount


@_accessor
def boxed(state, kind):
    """Tiles of `kind` not used in this game (R3.2, R3.3)."""
    return state[BOX + kind]


@_accessor
def add_boxed(state, kind, amount):
    state[BOX + kind] += amount


@_accessor
def rng_word(state, index):
    return state[RNG_STATE + index]


@_accessor
def set_rng_word(state, index, word):
    state[RNG_STATE + index] = word


# The player block.
@_accessor
def player_base(player):
    """Index of a player's first entry; only this module adds offsets to it."""
    return PLAYERS + player * PLAYER_STRIDE


@_accessor
def same_player_block(state, other_state, player):
    """Whether a player's whole block is the same in two states."""
    start = PLAYERS + player * PLAYER_STRIDE
    for index in range(start, start + PLAYER_STRIDE):
        if state[index] != other_state[index]:
            return False
    return True


@_accessor
def attribute_offset(attribute):
    """Offset in the player block of what an effect moves (constants.ATTR_*)."""
    if attribute == ATTR_INCOME:
        return INCOME
    if attribute == ATTR_REPUTATION:
        return REPUTATION
    if attribute == ATTR_POPULATION:
        return POPULATION
    return MONEY


@_accessor
def attribute_value(state, player, attribute):
    """Income, reputation, population or money of a player, by constants.ATTR_*."""
    return state[player_base(player) + attribute_offset(attribute)]


@_accessor
def set_attribute_value(state, player, attribute, value):
    state[player_base(player) + attribute_offset(attribute)] = value


@_accessor
def money(state, player):
    return state[player_base(player) + MONEY]


@_accessor
def set_money(state, player, value):
    state[player_base(player) + MONEY] = value


@_accessor
def add_money(state, player, amount):
    state[player_base(player) + MONEY] += amount


@_accessor
def income(state, player):
    return state[player_base(player) + INCOME]


@_accessor
def set_income(state, player, value):
    state[player_base(player) + INCOME] = value


@_accessor
def reputation(state, player):
    return state[player_base(player) + REPUTATION]


@_accessor
def set_reputation(state, player, value):
    state[player_base(player) + REPUTATION] = value


@_accessor
def population(state, player):
    return state[player_base(player) + POPULATION]


@_accessor
def set_population(state, player, value):
    state[player_base(player) + POPULATION] = value


@_accessor
def markers_left(state, player):
    """Investment markers not yet placed (R3.4, R7.3)."""
    return state[player_base(player) + MARKERS_LEFT]


@_accessor
def set_markers_left(state, player, count):
    state[player_base(player) + MARKERS_LEFT] = count


@_accessor
def private_goal(state, player):
    """The kept private goal, -1 until kept (R3.6)."""
    return state[player_base(player) + PRIVATE_GOAL]


@_accessor
def set_private_goal(state, player, goal):
    state[player_base(player) + PRIVATE_GOAL] = goal


@_accessor
def goal_option(state, player, option):
    """Goal drawn at setup as option 0 or 1, -1 when none (R3.6)."""
    return state[player_base(player) + GOAL_OPTIONS + option]


@_accessor
def set_goal_option(state, player, option, goal):
    state[player_base(player) + GOAL_OPTIONS + option] = goal


@_accessor
def tile_count(state, player):
    """Tiles in the borough, lakes and starting tiles included."""
    return state[player_base(player) + TILE_COUNT]


@_accessor
def set_tile_count(state, player, count):
    state[player_base(player) + TILE_COUNT] = count


@_accessor
def lake_count(state, player):
    return state[player_base(player) + LAKE_COUNT]


@_accessor
def set_lake_count(state, player, count):
    state[player_base(player) + LAKE_COUNT] = count


@_accessor
def feature_count(state, player, feature):
    """Tiles of the borough carrying a type or icon feature (R6.4)."""
    return state[player_base(player) + FEATURE_COUNT + feature]


@_accessor
def set_feature_count(state, player, feature, count):
    state[player_base(player) + FEATURE_COUNT + feature] = count


@_accessor
def add_feature_count(state, player, feature, amount):
    state[player_base(player) + FEATURE_COUNT + feature] += amount


@_accessor
def score_entry(state, player, entry):
    """An entry of the final-scoring breakdown (R8.2): SCORE_* of this module."""
    return state[player_base(player) + entry]


@_accessor
def set_score_entry(state, player, entry, value):
    state[player_base(player) + entry] = value


@_accessor
def placed_cell(state, player, position):
    """The cell of the player's `position`-th placed tile (placement order)."""
    return state[player_base(player) + ORDER + position]


@_accessor
def set_placed_cell(state, player, position, cell):
    state[player_base(player) + ORDER + position] = cell


@_accessor
def cell_kind(state, player, cell):
    """Kind on a cell, -1 when empty; a lake keeps the kind of its tile."""
    return state[player_base(player) + CELL_KIND + cell]


@_accessor
def set_cell_kind(state, player, cell, kind):
    state[player_base(player) + CELL_KIND + cell] = kind


@_accessor
def cell_flags(state, player, cell):
    """FLAG_* bits of a cell."""
    return state[player_base(player) + CELL_FLAGS + cell]


@_accessor
def set_cell_flags(state, player, cell, flags):
    state[player_base(player) + CELL_FLAGS + cell] = flags


@_accessor
def add_cell_flags(state, player, cell, flags):
    """Set the bits `flags` of a cell, keeping the others."""
    state[player_base(player) + CELL_FLAGS + cell] |= flags


@_accessor
def clear_cell_flags(state, player, cell, flags):
    """Clear the bits `flags` of a cell, keeping the others."""
    state[player_base(player) + CELL_FLAGS + cell] &= ~flags


@_accessor
def is_lake(state, player, cell):
    return state[player_base(player) + CELL_FLAGS + cell] & FLAG_LAKE != 0


@_accessor
def is_invested(state, player, cell):
    return state[player_base(player) + CELL_FLAGS + cell] & FLAG_INVESTED != 0


@_accessor
def is_placeable(state, player, cell):
    """Empty and next to the borough (R2.4)."""
    return state[player_base(player) + CELL_FLAGS + cell] & FLAG_PLACEABLE != 0


@_accessor
def cell_sequence(state, player, cell):
    """Global placement number of the tile on a cell (R7.2, R6.5)."""
    return state[player_base(player) + CELL_SEQUENCE + cell]


@_accessor
def set_cell_sequence(state, player, cell, sequence):
    state[player_base(player) + CELL_SEQUENCE + cell] = sequence


@_accessor
def borough_kinds(state, player):
    """Kind per cell of a borough as a view, for a kernel's loop over every cell (the
    observation encoder): the player's base is added once, not at each cell."""
    start = player_base(player) + CELL_KIND
    return state[start:start + NUM_CELLS]


@_accessor
def borough_flags(state, player):
    """FLAG_* bits per cell of a borough as a view, as `borough_kinds`."""
    start = player_base(player) + CELL_FLAGS
    return state[start:start + NUM_CELLS]


# Views for Python code that reads or writes whole rows at once (numpy views: writing
# to one writes to the state).
def player_block(state: np.ndarray, player: int) -> np.ndarray:
    """The whole block of a player (PLAYER_STRIDE entries)."""
    start = PLAYERS + player * PLAYER_STRIDE
    return state[start:start + PLAYER_STRIDE]


def _player_row(state: np.ndarray, player: int, offset: int, length: int) -> np.ndarray:
    start = PLAYERS + player * PLAYER_STRIDE + offset
    return state[start:start + length]


def cell_kinds(state: np.ndarray, player: int) -> np.ndarray:
    """Kind per cell of a borough (NUM_CELLS entries), -1 when empty."""
    return _player_row(state, player, CELL_KIND, NUM_CELLS)


def cell_flag_row(state: np.ndarray, player: int) -> np.ndarray:
    """FLAG_* bits per cell of a borough (NUM_CELLS entries)."""
    return _player_row(state, player, CELL_FLAGS, NUM_CELLS)


def cell_sequences(state: np.ndarray, player: int) -> np.ndarray:
    """Global placement number per cell of a borough (NUM_CELLS entries)."""
    return _player_row(state, player, CELL_SEQUENCE, NUM_CELLS)


def placement_order(state: np.ndarray, player: int) -> np.ndarray:
    """Cells in placement order; the first tile_count entries are in use."""
    return _player_row(state, player, ORDER, NUM_CELLS)


def goal_options(state: np.ndarray, player: int) -> np.ndarray:
    """The two goals drawn at setup (R3.6)."""
    return _player_row(state, player, GOAL_OPTIONS, 2)


def public_goal_bonuses(state: np.ndarray, player: int) -> np.ndarray:
    """Bonus scored per public goal (MAX_PLAYERS entries, R8.2)."""
    return _player_row(state, player, SCORE_PUBLIC_GOALS, MAX_PLAYERS)


def score_block(state: np.ndarray, player: int) -> np.ndarray:
    """The final-scoring breakdown of a player, SCORE to ORDER (R8.2)."""
    return _player_row(state, player, SCORE, ORDER - SCORE)


def feature_counts(state: np.ndarray, player: int) -> np.ndarray:
    return _player_row(state, player, FEATURE_COUNT, NUM_FEATURES)


def market_slots(state: np.ndarray) -> np.ndarray:
    """Kind per market slot (NUM_SLOTS entries), -1 when empty."""
    return state[MARKET:MARKET + NUM_SLOTS]


def public_goals(state: np.ndarray) -> np.ndarray:
    """Goal per public goal (MAX_PLAYERS entries), -1 when unused."""
    return state[PUBLIC_GOALS:PUBLIC_GOALS + MAX_PLAYERS]


def supply_counts(state: np.ndarray) -> np.ndarray:
    """Basic tiles left per basic kind in notation order (3 entries)."""
    return state[SUPPLY:SUPPLY + 3]


def discarded_counts(state: np.ndarray) -> np.ndarray:
    """Discarded tiles per kind (MAX_KINDS entries)."""
    return state[DISCARDED:DISCARDED + MAX_KINDS]


def box_counts(state: np.ndarray) -> np.ndarray:
    """Tiles per kind not used in this game (MAX_KINDS entries)."""
    return state[BOX:BOX + MAX_KINDS]


def rng_words(state: np.ndarray) -> np.ndarray:
    """The four words of the game's generator (rng.py)."""
    return state[RNG_STATE:RNG_STATE + 4]

@_accessor
def public_goal_bonus(state, player, index):
    """Bonus a player scored on public goal `index` (R8.2)."""
    return state[player_base(player) + SCORE_PUBLIC_GOALS + index]


@_accessor
def set_public_goal_bonus(state, player, index, bonus):
    state[player_base(player) + SCORE_PUBLIC_GOALS + index] = bonus


@njit(cache=True)
def pile_view(state):
    """The stacks in draw order as a view (PILE_CAPACITY entries), for setup's shuffles."""
    return state[PILE:PILE + PILE_CAPACITY]


@_accessor
def set_boxed(state, kind, count):
    state[BOX + kind] = count


@_accessor
def set_discarded(state, kind, count):
    state[DISCARDED + kind] = count


@_accessor
def player_entry(state, player, offset):
    """Entry `offset` of a player's block, for checks that scan the whole block
    (invariants.py); everything else reads a value by its own accessor."""
    return state[player_base(player) + offset]


@_accessor
def set_player_entry(state, player, offset, value):
    state[player_base(player) + offset] = value
