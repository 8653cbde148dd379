"""Enumerations shared by the loader, the compiled core and the facade.

Plain module-level integers so that numba folds them into compiled code as constants.
"""

import numpy as np

# Tile types (R1.4). A lake has no type.
NO_TYPE = -1
RESIDENTIAL = 0
COMMERCIAL = 1
CIVIC = 2
INDUSTRIAL = 3
NUM_TYPES = 4
TYPE_NAMES = ("residential", "commercial", "civic", "industrial")

# Icons (R1.4). A feature bit exists for each type and each icon, so that one
# bitmask answers "does this tile match that target" (R6.4).
NO_ICON = -1
RESTAURANT = 0
AIRPORT = 1
OFFICE = 2
SCHOOL = 3
SKYSCRAPER = 4
CAR_DEALERSHIP = 5
NUM_ICONS = 6
ICON_NAMES = ("restaurant", "airport", "office", "school", "skyscraper", "car_dealership")
NUM_FEATURES = NUM_TYPES + NUM_ICONS
TYPE_FEATURE_MASK = (1 << NUM_TYPES) - 1
ICON_FEATURE_MASK = ((1 << NUM_FEATURES) - 1) & ~TYPE_FEATURE_MASK

# What an effect term moves (R6.1, R6.8): the attribute of a term and of a logged
# change. Not offsets into the state: those are state_layout's INCOME, MONEY, ...
ATTR_INCOME = 0
ATTR_REPUTATION = 1
ATTR_POPULATION = 2
ATTR_MONEY = 3
ATTRIBUTE_NAMES = ("inc", "rep", "pop", "$")

# Scopes of conditional terms (R6.3, R6.5, R6.6, R6.7).
SCOPE_ADJACENT = 0
SCOPE_OWN = 1
SCOPE_EVERY = 2
SCOPE_OTHERS = 3
SCOPE_AFTER_EVERY = 4
SCOPE_REDLINE_OWN = 5
SCOPE_LAKE_ADJACENT_OWN = 6
SCOPE_NAMES = ("adjacent", "own", "every", "others", "after_every", "redline_own", "lake_adj_own")

# Stacks (R3.2). Basic tiles are in the supply, never in a stack.
STACK_BASIC = 0
STACK_A = 1
STACK_B = 2
STACK_C = 3
STACK_NAMES = ("basic", "A", "B", "C")

# Game modes (R3.1, R9) and editions (R3.2, R3.3).
MODE_STANDARD = 0
MODE_SOLITARY = 1
MODE_DALE = 2
MODE_NAMES = ("standard", "solitary", "dale")
EDITION_SECOND = 0
EDITION_FIRST = 1
EDITION_NAMES = ("2nd", "1st")

# Decisions a player can be asked for (R3.6, R5.1, R9.1).
DECISION_NONE = 0  # the game is over
DECISION_KEEP_GOAL = 1
DECISION_TURN = 2
DECISION_DISCARD = 3
DECISION_REMOVE = 4
DECISION_NAMES = ("none", "keep_goal", "turn", "discard", "remove")

# Market (R4.1) and Dale (R9.2).
NUM_SLOTS = 7
SLOT_PREMIUMS = (10, 8, 6, 4, 2, 0, 0)
DALE_SEAT = np.int32(1)
"""Dale's seat in a Dale game (R9.2). An np.int32, as a seat read from the state is:
a bare 1 handed to a kernel would compile the whole resolution once more for that
literal (docs/architecture.md, K5)."""
DALE_FIRST_SLOT = 2
DALE_LAST_SLOT = 5

# Start values (R3.4, R3.5).
START_MONEY = 15
START_INCOME = 0
START_REPUTATION = 1
START_POPULATION = 2
START_MARKERS = 3
BASIC_SUPPLY_PER_KIND = 4
LEVEL_MIN = -5
LEVEL_MAX = 15
MAX_PLAYERS = 4

# Goal criteria (R8.2), parsed from the `counts` column of goals.csv.
CRITERION_FEATURE_COUNT = 0  # tiles carrying a type or icon feature
CRITERION_LAKE_COUNT = 1
CRITERION_MONEY = 2
CRITERION_MARKERS_PLACED = 3
CRITERION_INCOME = 4
CRITERION_REPUTATION = 5
CRITERION_LARGEST_LAKE_GROUP = 6
CRITERION_LARGEST_FEATURE_GROUP = 7
NUM_CRITERIA = 8
GOAL_MOST = 0
GOAL_FEWEST = 1

# Basic tiles in the order of the action notation: `basic <suburbs|park|factory>`.
BASIC_NOTATION_NAMES = ("suburbs", "park", "factory")
BASIC_TILE_NAMES = ("Suburbs", "Community Park", "Heavy Factory")
