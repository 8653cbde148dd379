"""The flat integer action space, one decision per action (R5, R3.6, R9.1).

| range                         | action                          | notation                     |
|-------------------------------|---------------------------------|------------------------------|
| ACTION_BUY + slot*117 + cell  | buy market slot, place at cell  | `buy <slot> @ <col>,<row>`   |
| ACTION_LAKE + slot*117 + cell | take slot face down as a lake   | `lake <slot> @ <col>,<row>`  |
| ACTION_BASIC + b*117 + cell   | buy basic b (suburbs, park, factory) | `basic <name> @ <col>,<row>` |
| ACTION_INVEST + cell          | put a marker on a tile          | `invest <col>,<row>`         |
| ACTION_DISCARD + slot         | discard after basic / invest    | `discard <slot>`             |
| ACTION_REMOVE + slot          | Solitary Architect removal      | `remove <slot>`              |
| ACTION_KEEP_GOAL + option     | keep the first or second goal   | `keep <goal name>`           |
| ACTION_PASS                   | no option of step 1 is possible | `pass`                       |

Cells are numbered row-major (hex_grid.py); slots are 0..6.
"""

import numpy as np

from .constants import NUM_SLOTS
from .hex_grid import NUM_CELLS

ACTION_BUY = 0
ACTION_LAKE = ACTION_BUY + NUM_SLOTS * NUM_CELLS
ACTION_BASIC = ACTION_LAKE + NUM_SLOTS * NUM_CELLS
ACTION_INVEST = ACTION_BASIC + 3 * NUM_CELLS
ACTION_DISCARD = ACTION_INVEST + NUM_CELLS
ACTION_REMOVE = ACTION_DISCARD + NUM_SLOTS
ACTION_KEEP_GOAL = ACTION_REMOVE + NUM_SLOTS
ACTION_PASS = ACTION_KEEP_GOAL + 2
NUM_ACTIONS = ACTION_PASS + 1


def is_action_integer(action) -> bool:
    """Python and numpy integers are action numbers; bools are not (True would be 1)."""
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
