"""Offsets into the flat int32 state vector that holds one whole game.

A game is one `np.int32` vector of `STATE_SIZE` entries so that copying, hashing,
batching (N x STATE_SIZE) and passing it to numba kernels are all trivial. Only the
compiled core writes it; `serialization` turns it into the documented JSON format.
Derived entries (feature counts, placeable flags) are rebuilt from the borough on load.
"""

from .constants import MAX_PLAYERS, NUM_FEATURES, NUM_SLOTS
from .hex_grid import NUM_CELLS

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


def player_base(player: int) -> int:
    return PLAYERS + player * PLAYER_STRIDE
