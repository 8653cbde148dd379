"""The layout of the tile and goal tables and their accessors.

`tile_data.py` builds two read-only int32 tables from the package's CSV files: a row per
tile kind (`TILES.table`, the `tiles` every kernel takes) and a row per goal
(`GOALS.table`, `goals`). This module is the only one that knows what each column holds
and where a tile's effect terms lie; every other module reads the tables through the
accessors below (`tile_cost(tiles, kind)`, `conditional_scope(tiles, kind, term)`,
`public_goal_bonus(goals, goal)`, ...), never as `tiles[kind, COLUMN_...]`
(tests/engine/test_tile_table_access.py enforces it; `tile_data.py`, which fills the
tables, is the one other module that names a column). Like the state's accessors
(state_layout.py, docs/architecture.md "The state and its accessors") they are kernels
numba pastes into each calling kernel (`refcount_free.inline_accessor`), so compiled
code runs as if it indexed the table itself; Python code calls the same functions.

A tile carries up to MAX_TERMS immediate terms (R6.1: an attribute and an amount) and up
to MAX_TERMS conditional terms (R6.2-R6.7: a scope, a target, an attribute and an amount),
numbered 0.. below their count.
"""

from .refcount_free import inline_accessor

MAX_TERMS = 4

# Columns of the tile table.
COLUMN_TYPE = 0
COLUMN_ICON = 1
COLUMN_FEATURES = 2  # bit t for type t, bit NUM_TYPES + i for icon i
COLUMN_COST = 3
COLUMN_STACK = 4
COLUMN_COPIES = 5
COLUMN_IMMEDIATE_COUNT = 6
COLUMN_IMMEDIATE_ATTRIBUTE = 7  # + term index
COLUMN_IMMEDIATE_AMOUNT = COLUMN_IMMEDIATE_ATTRIBUTE + MAX_TERMS
COLUMN_CONDITIONAL_COUNT = COLUMN_IMMEDIATE_AMOUNT + MAX_TERMS
COLUMN_CONDITIONAL_SCOPE = COLUMN_CONDITIONAL_COUNT + 1  # + term index
COLUMN_CONDITIONAL_TARGET = COLUMN_CONDITIONAL_SCOPE + MAX_TERMS
COLUMN_CONDITIONAL_ATTRIBUTE = COLUMN_CONDITIONAL_TARGET + MAX_TERMS
COLUMN_CONDITIONAL_AMOUNT = COLUMN_CONDITIONAL_ATTRIBUTE + MAX_TERMS
COLUMN_REACTS_TO = COLUMN_CONDITIONAL_AMOUNT + MAX_TERMS  # union of targets of tile-matching terms
COLUMN_NEGATIVE_POPULATION = COLUMN_REACTS_TO + 1  # Dale avoids these (R9.2, edition 2nd)
NUM_TILE_COLUMNS = COLUMN_NEGATIVE_POPULATION + 1

# Columns of the goal table.
GOAL_COLUMN_CRITERION = 0
GOAL_COLUMN_FEATURES = 1
GOAL_COLUMN_DIRECTION = 2
GOAL_COLUMN_PUBLIC_BONUS = 3
GOAL_COLUMN_PRIVATE_BONUS = 4
GOAL_COLUMN_EXCLUDED_WITH_DALE = 5  # about lakes or investment markers (R9.2)
NUM_GOAL_COLUMNS = 6


# A tile kind's printed values.
@inline_accessor
def tile_type(tiles, kind):
    """constants.TYPE_* of a kind (R1.4); NO_TYPE for the lake and One More Round."""
    return tiles[kind, COLUMN_TYPE]


@inline_accessor
def tile_icon(tiles, kind):
    """constants.ICON_* of a kind (R1.4), NO_ICON when it has none."""
    return tiles[kind, COLUMN_ICON]


@inline_accessor
def tile_features(tiles, kind):
    """A kind's feature bits: bit t for its type t, bit NUM_TYPES + i for its icon i: what
    a target (R6.4) or a goal's count (R8.2) matches."""
    return tiles[kind, COLUMN_FEATURES]


@inline_accessor
def tile_cost(tiles, kind):
    """A kind's printed price (R5.1a), before the market slot's premium."""
    return tiles[kind, COLUMN_COST]


@inline_accessor
def tile_stack(tiles, kind):
    """constants.STACK_* a kind is dealt from (R3.2, R3.3): A, B, C or the basic supply."""
    return tiles[kind, COLUMN_STACK]


@inline_accessor
def tile_copies(tiles, kind):
    """How many tiles of a kind the box holds (R3.2, R3.5)."""
    return tiles[kind, COLUMN_COPIES]


# A tile kind's effect terms (R6).
@inline_accessor
def immediate_term_count(tiles, kind):
    """How many immediate terms a kind has (R6.1)."""
    return tiles[kind, COLUMN_IMMEDIATE_COUNT]


@inline_accessor
def immediate_attribute(tiles, kind, term):
    """What an immediate term moves: constants.ATTR_* (R6.1)."""
    return tiles[kind, COLUMN_IMMEDIATE_ATTRIBUTE + term]


@inline_accessor
def immediate_amount(tiles, kind, term):
    """By how much an immediate term moves its attribute, signed (R6.1)."""
    return tiles[kind, COLUMN_IMMEDIATE_AMOUNT + term]


@inline_accessor
def conditional_term_count(tiles, kind):
    """How many conditional terms a kind has (R6.2)."""
    return tiles[kind, COLUMN_CONDITIONAL_COUNT]


@inline_accessor
def conditional_scope(tiles, kind, term):
    """constants.SCOPE_* of a conditional term: where and when it matches (R6.3,
    R6.5-R6.7)."""
    return tiles[kind, COLUMN_CONDITIONAL_SCOPE + term]


@inline_accessor
def conditional_target(tiles, kind, term):
    """Feature bits a conditional term matches (R6.4); 0 for a scope without targets."""
    return tiles[kind, COLUMN_CONDITIONAL_TARGET + term]


@inline_accessor
def conditional_attribute(tiles, kind, term):
    """What a conditional term moves per match: constants.ATTR_* (R6.2)."""
    return tiles[kind, COLUMN_CONDITIONAL_ATTRIBUTE + term]


@inline_accessor
def conditional_amount(tiles, kind, term):
    """By how much a conditional term moves its attribute per match, signed (R6.2)."""
    return tiles[kind, COLUMN_CONDITIONAL_AMOUNT + term]


@inline_accessor
def reacts_to(tiles, kind):
    """The feature bits of the tiles whose placement can trigger a kind's terms: the union
    of its tile-matching targets (R7.1 steps 4, 5, 7)."""
    return tiles[kind, COLUMN_REACTS_TO]


@inline_accessor
def can_lower_population(tiles, kind):
    """Whether a kind has a term that takes population away, which Dale avoids (R9.2,
    2nd edition)."""
    return tiles[kind, COLUMN_NEGATIVE_POPULATION] != 0


# A goal's row.
@inline_accessor
def goal_criterion(goals, goal):
    """constants.CRITERION_* of a goal: what it counts (R8.2)."""
    return goals[goal, GOAL_COLUMN_CRITERION]


@inline_accessor
def goal_features(goals, goal):
    """Feature bits a goal counts, 0 for criteria about other things (R8.2)."""
    return goals[goal, GOAL_COLUMN_FEATURES]


@inline_accessor
def goal_direction(goals, goal):
    """constants.GOAL_MOST or GOAL_FEWEST (R8.2)."""
    return goals[goal, GOAL_COLUMN_DIRECTION]


@inline_accessor
def public_goal_bonus(goals, goal):
    """The population a goal gives as a public goal (R8.2)."""
    return goals[goal, GOAL_COLUMN_PUBLIC_BONUS]


@inline_accessor
def private_goal_bonus(goals, goal):
    """The population a goal gives as a private goal (R8.2)."""
    return goals[goal, GOAL_COLUMN_PRIVATE_BONUS]


@inline_accessor
def goal_excluded_with_dale(goals, goal):
    """Whether a goal is left out of a game with Dale: it counts lakes or investment
    markers (R9.2)."""
    return goals[goal, GOAL_COLUMN_EXCLUDED_WITH_DALE] != 0
