"""The observation encoder shared by the Gymnasium, PettingZoo and vector environments.

One flat float32 vector per decision, from the point of view of the seat that decides:
seat slot 0 is that player, slots 1..3 the following seats in turn order (zeros when
the table has fewer seats), so one network serves 2 to 4 players. Only public
information (R10.1) and the observer's own private goal and drawn goals enter it;
other players' private goals and the order of the stacks never do (R10.2).

| part      | shape            | content (scaled to about 0..1 or -1..1)                          |
|-----------|------------------|-------------------------------------------------------------------|
| boroughs  | 4 x 17 x 9 x 13  | per seat and cell: type (4), icon (6), lake, invested, placeable, cost/25, immediate income/5, reputation/5, population/10 |
| players   | 4 x 22           | present, is Dale, first player, money/50, income/15, reputation/15, population/100, distance to next red line/10, markers left/3, tiles/30, tiles per type/10 (4), per icon/5 (6), lakes/5, markers placed/3 |
| market    | 7 x 72           | occupied, premium/10, total price/35, the 17 cell features of the tile (lake, invested, placeable left 0), tile identity one-hot (52) |
| supply    | 3                | basic tiles left /4: suburbs, park, factory                       |
| stacks    | 6                | tiles left in A, B, C /30; current stack one-hot (A, B, C)        |
| goals     | 7 x 20           | public goals one-hot (4 rows), own private goal, own two drawn goals |
| game      | 17               | round/30, One More Round drawn, final round now, pending decision one-hot (5), mode one-hot (3), edition one-hot (2), seats one-hot (1-4) |
| goal_races | 5 x 9           | per goal row (the 4 public goals as in "goals", then the own private goal): each seat slot's value on the goal's criterion (4), each seat slot strictly alone in front on it (4), the observer's lead (1) |

"goal_races" shows who leads each goal race (R8.2), which a network did not learn to
work out from the boroughs. Values and lead come from scoring.py's rule functions
(`goal_values`, once per goal, then `winner_of_values` and `lead_of_values`, the rules
`public_goal_winner` and `goal_lead` apply) and are divided by one scale per
criterion kind (`GOAL_RACE_SCALES`): tiles with a type or icon, lakes and the largest
groups /10, money /50, markers placed /3, income and reputation /15 (the players part's
scales); the lead, in the goal's direction (above 0: alone in front), is clipped to
[-1, 1] after scaling. The "alone in front" flag is the rule's: the one seat strictly
ahead, none on a tie. A row whose goal is absent (solitary mode has no goals, R9.1; the
Dale game three public goals, R9.2; no private goal yet, or Dale's seat, which has none)
and the slots of absent seats hold zeros. Dale is a seat like any other: his values and
his lead count, as in final scoring. Only the observer's own private goal enters (R10.2).
The part comes last, so the first 8714 entries (`OBSERVATION_SIZE_V1`, what the models
released before it read) mean what they meant.

`OBSERVATION_PARTS` gives the slice and shape of each part for unpacking.
"""

import numpy as np
from numba import njit

from . import constants as c
from . import state_layout as s
from .hex_grid import NUM_CELLS, NUM_COLUMNS, NUM_ROWS
from .market import slot_premium
from .refcount_free import njit_without_refcounts
from .red_lines import next_red_line
from .scoring import goal_values, lead_of_values, winner_of_values
from .tile_data import GOALS, NUM_GOALS, NUM_KINDS
from .tile_table import (goal_criterion, immediate_amount, immediate_attribute, immediate_term_count, tile_cost,
                         tile_icon, tile_type)

# Feature planes of a borough cell (the 17 of the table above), each NUM_CELLS long.
PLANE_TYPE = 0  # one plane per type (c.NUM_TYPES)
PLANE_ICON = PLANE_TYPE + c.NUM_TYPES  # one plane per icon (c.NUM_ICONS)
PLANE_LAKE = PLANE_ICON + c.NUM_ICONS
PLANE_INVESTED = PLANE_LAKE + 1
PLANE_PLACEABLE = PLANE_INVESTED + 1
PLANE_COST = PLANE_PLACEABLE + 1
PLANE_INCOME = PLANE_COST + 1
PLANE_REPUTATION = PLANE_INCOME + 1
PLANE_POPULATION = PLANE_REPUTATION + 1
CELL_FEATURES = PLANE_POPULATION + 1
PLAYER_FEATURES = 22
SLOT_FEATURES = 3 + CELL_FEATURES + NUM_KINDS
GOAL_ROWS = c.MAX_PLAYERS + 3
GAME_FEATURES = 17
GOAL_RACE_ROWS = c.MAX_PLAYERS + 1
GOAL_RACE_VALUES = 0  # one per seat slot
GOAL_RACE_ALONE = c.MAX_PLAYERS  # one per seat slot
GOAL_RACE_LEAD = 2 * c.MAX_PLAYERS
GOAL_RACE_FEATURES = GOAL_RACE_LEAD + 1
GOAL_RACE_SCALES = np.array([10.0, 10.0, 50.0, 3.0, 15.0, 15.0, 10.0, 10.0], dtype=np.float32)
"""The scale of each criterion kind (c.CRITERION_*): feature count, lake count, money,
markers placed, income, reputation, largest lake group, largest feature group."""
_GOAL_TABLE = GOALS.table  # frozen into the kernels, so every caller keeps its arguments

BOROUGHS_START = 0
BOROUGH_SIZE = CELL_FEATURES * NUM_CELLS
PLAYERS_START = BOROUGHS_START + c.MAX_PLAYERS * BOROUGH_SIZE
MARKET_START = PLAYERS_START + c.MAX_PLAYERS * PLAYER_FEATURES
SUPPLY_START = MARKET_START + c.NUM_SLOTS * SLOT_FEATURES
STACKS_START = SUPPLY_START + 3
GOALS_START = STACKS_START + 6
GAME_START = GOALS_START + GOAL_ROWS * NUM_GOALS
GOAL_RACES_START = GAME_START + GAME_FEATURES
OBSERVATION_SIZE = GOAL_RACES_START + GOAL_RACE_ROWS * GOAL_RACE_FEATURES
OBSERVATION_SIZE_V1 = GOAL_RACES_START
"""The observation's size before "goal_races" (8714): models trained then read this prefix."""
OBSERVATION_SIZES = (OBSERVATION_SIZE_V1, OBSERVATION_SIZE)
"""Every size the observation has had, oldest first; each is a prefix of today's."""

OBSERVATION_PARTS = {
    "boroughs": (slice(BOROUGHS_START, PLAYERS_START),
                 (c.MAX_PLAYERS, CELL_FEATURES, NUM_ROWS, NUM_COLUMNS)),
    "players": (slice(PLAYERS_START, MARKET_START), (c.MAX_PLAYERS, PLAYER_FEATURES)),
    "market": (slice(MARKET_START, SUPPLY_START), (c.NUM_SLOTS, SLOT_FEATURES)),
    "supply": (slice(SUPPLY_START, STACKS_START), (3,)),
    "stacks": (slice(STACKS_START, GOALS_START), (6,)),
    "goals": (slice(GOALS_START, GAME_START), (GOAL_ROWS, NUM_GOALS)),
    "game": (slice(GAME_START, GOAL_RACES_START), (GAME_FEATURES,)),
    "goal_races": (slice(GOAL_RACES_START, OBSERVATION_SIZE),
                   (GOAL_RACE_ROWS, GOAL_RACE_FEATURES)),
}


def unpack_observation(observation: np.ndarray) -> dict[str, np.ndarray]:
    """Views of the parts of a flat observation, shaped as in the table above."""
    return {name: observation[part].reshape(shape)
            for name, (part, shape) in OBSERVATION_PARTS.items()}


@njit_without_refcounts
def _immediate(tiles, kind, attribute):
    total = 0
    for term in range(immediate_term_count(tiles, kind)):
        if immediate_attribute(tiles, kind, term) == attribute:
            total += immediate_amount(tiles, kind, term)
    return total


@njit_without_refcounts
def _write_tile_features(tiles, kind, out, start, stride):
    """The tile part of the 17 cell features: type, icon, cost and immediate income,
    reputation and population (PLANE_*); entries are `stride` apart."""
    out[start + (PLANE_TYPE + tile_type(tiles, kind)) * stride] = 1.0
    if tile_icon(tiles, kind) >= 0:
        out[start + (PLANE_ICON + tile_icon(tiles, kind)) * stride] = 1.0
    out[start + PLANE_COST * stride] = tile_cost(tiles, kind) / 25.0
    out[start + PLANE_INCOME * stride] = _immediate(tiles, kind, c.ATTR_INCOME) / 5.0
    out[start + PLANE_REPUTATION * stride] = _immediate(tiles, kind, c.ATTR_REPUTATION) / 5.0
    out[start + PLANE_POPULATION * stride] = _immediate(tiles, kind, c.ATTR_POPULATION) / 10.0


ENCODED_SEAT = 0
ENCODED_KIND = 1
ENCODED_FLAGS = 1 + NUM_CELLS
ENCODED_STRIDE = 1 + 2 * NUM_CELLS
ENCODING_CACHE_SIZE = c.MAX_PLAYERS * ENCODED_STRIDE
_NOTHING_ENCODED = -2


def new_encoding_cache() -> np.ndarray:
    """A cache for an observation buffer whose borough planes hold nothing known yet."""
    return np.full(ENCODING_CACHE_SIZE, _NOTHING_ENCODED, dtype=np.int32)


@njit_without_refcounts
def _clear_borough(out, slot, encoded, seat):
    start = BOROUGHS_START + slot * BOROUGH_SIZE
    for index in range(start, start + BOROUGH_SIZE):
        out[index] = 0.0
    row = slot * ENCODED_STRIDE
    encoded[row + ENCODED_SEAT] = seat
    for cell in range(NUM_CELLS):
        encoded[row + ENCODED_KIND + cell] = -1
        encoded[row + ENCODED_FLAGS + cell] = 0


@njit_without_refcounts
def _update_borough(state, tiles, seat, slot, out, encoded):
    """Rewrite the cells whose kind or flags differ from what `out` holds (`encoded`):
    between two decisions of a player only a few cells change, most of them empty cells
    that became placeable, which touch one feature plane instead of seventeen."""
    row = slot * ENCODED_STRIDE
    if encoded[row + ENCODED_SEAT] != seat:
        _clear_borough(out, slot, encoded, seat)
    if seat < 0:
        return
    start = BOROUGHS_START + slot * BOROUGH_SIZE
    kinds = s.borough_kinds(state, seat)
    flag_row = s.borough_flags(state, seat)
    for cell in range(NUM_CELLS):
        flags = flag_row[cell]
        kind = kinds[cell]
        same_kind = encoded[row + ENCODED_KIND + cell] == kind
        changed_flags = encoded[row + ENCODED_FLAGS + cell] ^ flags
        if same_kind and changed_flags == 0:
            continue
        encoded[row + ENCODED_KIND + cell] = kind
        encoded[row + ENCODED_FLAGS + cell] = flags
        if same_kind and changed_flags == s.FLAG_PLACEABLE:  # most changes: an empty cell
            out[start + PLANE_PLACEABLE * NUM_CELLS + cell] = (
                1.0 if flags & s.FLAG_PLACEABLE else 0.0)
            continue
        for feature in range(CELL_FEATURES):
            out[start + feature * NUM_CELLS + cell] = 0.0
        if flags & s.FLAG_PLACEABLE:
            out[start + PLANE_PLACEABLE * NUM_CELLS + cell] = 1.0
        if kind < 0:
            continue
        if flags & s.FLAG_INVESTED:
            out[start + PLANE_INVESTED * NUM_CELLS + cell] = 1.0
        if flags & s.FLAG_LAKE:
            out[start + PLANE_LAKE * NUM_CELLS + cell] = 1.0
        else:
            _write_tile_features(tiles, kind, out, start + cell, NUM_CELLS)


@njit_without_refcounts
def _encode_player(state, seat, slot, out):
    start = PLAYERS_START + slot * PLAYER_FEATURES
    population = s.population(state, seat)
    next_line = next_red_line(population)
    out[start + 0] = 1.0
    out[start + 1] = 1.0 if state[s.MODE] == c.MODE_DALE and seat == c.DALE_SEAT else 0.0
    out[start + 2] = 1.0 if state[s.FIRST_PLAYER] == seat else 0.0
    out[start + 3] = s.money(state, seat) / 50.0
    out[start + 4] = s.income(state, seat) / 15.0
    out[start + 5] = s.reputation(state, seat) / 15.0
    out[start + 6] = population / 100.0
    out[start + 7] = (next_line - population) / 10.0
    out[start + 8] = s.markers_left(state, seat) / 3.0
    out[start + 9] = s.tile_count(state, seat) / 30.0
    for feature in range(c.NUM_FEATURES):
        scale = 10.0 if feature < c.NUM_TYPES else 5.0
        out[start + 10 + feature] = s.feature_count(state, seat, feature) / scale
    out[start + 20] = s.lake_count(state, seat) / 5.0
    out[start + 21] = (c.START_MARKERS - s.markers_left(state, seat)) / 3.0


@njit_without_refcounts
def _encode_goal_race(state, tiles, goal, seat, num_players, row, out):
    """One row of "goal_races" (module docstring): the seats' values on `goal`'s
    criterion, who alone is in front and the observer's lead, by the rules of R8.2."""
    start = GOAL_RACES_START + row * GOAL_RACE_FEATURES
    scale = GOAL_RACE_SCALES[goal_criterion(_GOAL_TABLE, goal)]
    values = goal_values(state, tiles, _GOAL_TABLE, goal)
    winner = winner_of_values(_GOAL_TABLE, goal, values, num_players)
    for slot in range(num_players):
        other = (seat + slot) % num_players
        out[start + GOAL_RACE_VALUES + slot] = values[other] / scale
        if other == winner:
            out[start + GOAL_RACE_ALONE + slot] = 1.0
    lead = lead_of_values(_GOAL_TABLE, goal, values, num_players, seat) / scale
    out[start + GOAL_RACE_LEAD] = min(1.0, max(-1.0, lead))


@njit_without_refcounts
def copy_observation(source, target, num_players):
    """`target` = `source`, two observations of one table of `num_players` seats: the
    borough planes of the empty seat slots hold zeros in both (`update_observation`
    clears them once and never writes them again), so only the seats in play and the
    parts after the boroughs are copied, through views (no negative-index checks)."""
    for part_start, part_stop in ((BOROUGHS_START, BOROUGHS_START + num_players * BOROUGH_SIZE),
                                  (PLAYERS_START, OBSERVATION_SIZE)):
        source_part = source[part_start:part_stop]
        target_part = target[part_start:part_stop]
        for index in range(source_part.shape[0]):
            target_part[index] = source_part[index]


@njit(cache=True)
def encode_observation(state, tiles, seat, out):
    """Write the observation of `seat` into `out` (float32[OBSERVATION_SIZE]) from scratch."""
    encoded = np.full(ENCODING_CACHE_SIZE, _NOTHING_ENCODED, dtype=np.int32)
    update_observation(state, tiles, seat, out, encoded)


@njit_without_refcounts
def update_observation(state, tiles, seat, out, encoded):
    """Bring `out` to the observation of `seat`, rewriting only what changed.

    `encoded` (int32[ENCODING_CACHE_SIZE], from `new_encoding_cache`) records which seat
    and which cell contents each borough plane of `out` holds; the borough planes are
    nine tenths of the vector, and between two decisions only a few cells change. A
    buffer and its cache go together: anything else that writes the buffer must start a
    new cache. The small parts after the boroughs are rewritten every time.
    """
    num_players = state[s.NUM_PLAYERS]
    if seat < 0:
        seat = 0
    for index in range(PLAYERS_START, OBSERVATION_SIZE):
        out[index] = 0.0
    for slot in range(c.MAX_PLAYERS):
        other = (seat + slot) % num_players if slot < num_players else -1
        _update_borough(state, tiles, other, slot, out, encoded)
        if other >= 0:
            _encode_player(state, other, slot, out)
    for slot in range(c.NUM_SLOTS):
        kind = s.market_slot(state, slot)
        if kind < 0:
            continue
        start = MARKET_START + slot * SLOT_FEATURES
        premium = slot_premium(slot)
        out[start + 0] = 1.0
        out[start + 1] = premium / 10.0
        out[start + 2] = (tile_cost(tiles, kind) + premium) / 35.0
        _write_tile_features(tiles, kind, out, start + 3, 1)
        out[start + 3 + CELL_FEATURES + kind] = 1.0
    for basic in range(3):
        out[SUPPLY_START + basic] = s.supply(state, basic) / 4.0
    position = state[s.PILE_POSITION]
    current = -1
    for stack in range(3):
        start = 0 if stack == 0 else s.stack_end(state, stack - 1)
        left = s.stack_end(state, stack) - max(start, position)
        out[STACKS_START + stack] = max(0, left) / 30.0
        if current < 0 and left > 0:
            current = stack
    if current >= 0:
        out[STACKS_START + 3 + current] = 1.0
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if goal >= 0:
            out[GOALS_START + index * NUM_GOALS + goal] = 1.0
    for row in range(3):
        goal = s.private_goal(state, seat) if row == 0 else s.goal_option(state, seat, row - 1)
        if goal >= 0:
            out[GOALS_START + (c.MAX_PLAYERS + row) * NUM_GOALS + goal] = 1.0
    game = GAME_START
    out[game + 0] = state[s.ROUND] / 30.0
    out[game + 1] = 1.0 if state[s.FINAL_ROUND] >= 0 else 0.0
    out[game + 2] = 1.0 if 0 <= state[s.FINAL_ROUND] <= state[s.ROUND] else 0.0
    out[game + 3 + state[s.PENDING_DECISION]] = 1.0
    out[game + 8 + state[s.MODE]] = 1.0
    out[game + 11 + state[s.EDITION]] = 1.0
    out[game + 13 + num_players - 1] = 1.0
    for row in range(GOAL_RACE_ROWS):
        goal = s.public_goal(state, row) if row < c.MAX_PLAYERS else s.private_goal(state, seat)
        if goal >= 0:
            _encode_goal_race(state, tiles, goal, seat, num_players, row, out)
