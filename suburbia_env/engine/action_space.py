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

Cells are numbered row-major (hex_grid.py); slots are 0..6. `action_fields` and
`action_number` are the one decoder and encoder of these numbers, compiled for the
kernels; `decode_action` and `encode_action` are the same functions for Python, with
the fields named (`Action`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .constants import NUM_SLOTS
from .hex_grid import NUM_CELLS
from .refcount_free import njit_without_refcounts

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


# The decoder: action number <-> (kind, choice, cell) -----------------------------------------

KIND_BUY = 0
KIND_LAKE = 1
KIND_BASIC = 2
KIND_INVEST = 3
KIND_DISCARD = 4
KIND_REMOVE = 5
KIND_KEEP_GOAL = 6
KIND_PASS = 7
KIND_VERBS = ("buy", "lake", "basic", "invest", "discard", "remove", "keep", "pass")
"""KIND_VERBS[kind]: the verb of the action's notation (formats/notation.py)."""
_KIND_STARTS = (ACTION_BUY, ACTION_LAKE, ACTION_BASIC, ACTION_INVEST, ACTION_DISCARD,
                ACTION_REMOVE, ACTION_KEEP_GOAL, ACTION_PASS)


@njit_without_refcounts
def action_fields(action):
    """(kind, choice, cell) of an action number: `choice` is the market slot (buy, lake,
    discard, remove), the basic tile (basic) or the goal option (keep), else -1; `cell`
    the borough cell of a placement or an investment, else -1."""
    if action < ACTION_LAKE:
        choice, cell = divmod(action - ACTION_BUY, NUM_CELLS)
        return KIND_BUY, choice, cell
    if action < ACTION_BASIC:
        choice, cell = divmod(action - ACTION_LAKE, NUM_CELLS)
        return KIND_LAKE, choice, cell
    if action < ACTION_INVEST:
        choice, cell = divmod(action - ACTION_BASIC, NUM_CELLS)
        return KIND_BASIC, choice, cell
    if action < ACTION_DISCARD:
        return KIND_INVEST, -1, action - ACTION_INVEST
    if action < ACTION_REMOVE:
        return KIND_DISCARD, action - ACTION_DISCARD, -1
    if action < ACTION_KEEP_GOAL:
        return KIND_REMOVE, action - ACTION_REMOVE, -1
    if action < ACTION_PASS:
        return KIND_KEEP_GOAL, action - ACTION_KEEP_GOAL, -1
    return KIND_PASS, -1, -1


@njit_without_refcounts
def action_number(kind, choice, cell):
    """The action number of (kind, choice, cell), the inverse of `action_fields`; a field
    the kind does not have is ignored."""
    if kind <= KIND_BASIC:
        return _KIND_STARTS[kind] + choice * NUM_CELLS + cell
    if kind == KIND_INVEST:
        return ACTION_INVEST + cell
    if kind == KIND_PASS:
        return ACTION_PASS
    return _KIND_STARTS[kind] + choice


_CHOICE_FIELD = {"buy": "slot", "lake": "slot", "basic": "basic", "discard": "slot",
                 "remove": "slot", "keep": "option"}
_HAS_CELL = ("buy", "lake", "basic", "invest")
_FIELD_LIMITS = {"slot": NUM_SLOTS, "basic": 3, "cell": NUM_CELLS, "option": 2}


class Action(NamedTuple):
    """An action number decoded: its kind (a verb of KIND_VERBS) and the fields of that
    kind, the others None: the market `slot` (buy, lake, discard, remove), the `basic`
    tile 0..2 (c.BASIC_TILE_NAMES), the borough `cell` (buy, lake, basic, invest) and the
    drawn goal `option` 0 or 1 (keep)."""

    kind: str
    slot: int | None = None
    basic: int | None = None
    cell: int | None = None
    option: int | None = None

    @property
    def number(self) -> int:
        """The action number (`encode_action`)."""
        return encode_action(self)


def decode_action(number) -> Action:
    """The `Action` of an action number 0..NUM_ACTIONS-1 (ValueError for any other)."""
    if not is_action_integer(number) or not 0 <= number < NUM_ACTIONS:
        raise ValueError(f"an action number is an integer 0..{NUM_ACTIONS - 1}, "
                         f"not {number!r}")
    return _DECODED[number]


def _decoded(number: int) -> Action:
    kind, choice, cell = action_fields.py_func(number)
    verb = KIND_VERBS[kind]
    fields = {_CHOICE_FIELD[verb]: choice} if verb in _CHOICE_FIELD else {}
    if verb in _HAS_CELL:
        fields["cell"] = cell
    return Action(verb, **fields)


def encode_action(action: Action) -> int:
    """The action number of an `Action` (ValueError for a kind that is none, or a field
    of its kind missing or out of range)."""
    if action.kind not in KIND_VERBS:
        raise ValueError(f"an action's kind is one of {', '.join(KIND_VERBS)}, "
                         f"not {action.kind!r}")
    needed = ([_CHOICE_FIELD[action.kind]] if action.kind in _CHOICE_FIELD else []) + \
        (["cell"] if action.kind in _HAS_CELL else [])
    for name in needed:
        value = getattr(action, name)
        if not is_action_integer(value) or not 0 <= value < _FIELD_LIMITS[name]:
            raise ValueError(f"{action.kind}: the {name} is an integer "
                             f"0..{_FIELD_LIMITS[name] - 1}, not {value!r}")
    choice = getattr(action, _CHOICE_FIELD[action.kind]) if action.kind in _CHOICE_FIELD else -1
    cell = action.cell if action.kind in _HAS_CELL else -1
    return int(action_number.py_func(KIND_VERBS.index(action.kind), int(choice), int(cell)))


_DECODED = tuple(_decoded(number) for number in range(NUM_ACTIONS))
"""Every action decoded once (`decode_action` is called for each legal action shown)."""
