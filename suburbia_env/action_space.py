"""The flat integer action space, one decision per action (R5, R3.6, R9.1).

| range                  | action                         | notation                        |
|------------------------|--------------------------------|---------------------------------|
| BUY + slot*117 + cell  | buy market slot, place at cell | `buy <slot> @ <col>,<row>`      |
| LAKE + slot*117 + cell | take slot face down as a lake  | `lake <slot> @ <col>,<row>`     |
| BASIC + b*117 + cell   | buy basic b (suburbs, park, factory) | `basic <name> @ <col>,<row>` |
| INVEST + cell          | put a marker on a tile          | `invest <col>,<row>`            |
| DISCARD + slot         | discard after basic / invest    | `discard <slot>`                |
| REMOVE + slot          | Solitary Architect removal      | `remove <slot>`                 |
| KEEP_GOAL + option     | keep the first or second goal   | `keep <goal name>`              |
| PASS                   | no option of step 1 is possible | `pass`                          |

Cells are numbered row-major (hex_grid.py); slots are 0..6.
"""

import numpy as np

from .constants import NUM_SLOTS
from .hex_grid import NUM_CELLS

BUY = 0
LAKE = BUY + NUM_SLOTS * NUM_CELLS
BASIC = LAKE + NUM_SLOTS * NUM_CELLS
INVEST = BASIC + 3 * NUM_CELLS
DISCARD = INVEST + NUM_CELLS
REMOVE = DISCARD + NUM_SLOTS
KEEP_GOAL = REMOVE + NUM_SLOTS
PASS = KEEP_GOAL + 2
NUM_ACTIONS = PASS + 1


def is_action_integer(action) -> bool:
    """Python and numpy integers are action numbers; bools are not (True would be 1)."""
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
