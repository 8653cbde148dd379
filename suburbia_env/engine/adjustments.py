"""The parts of one adjustment (R7.2) that the resolution of a tile (resolution.py) and
the red lines (red_lines.py) share: the kind whose terms a cell carries (R6.7), the
adjustments a trigger makes (R7.3) and a level moved with its clamp (R1.2).
"""

from . import constants as c
from . import state_layout as s
from .refcount_free import njit_without_refcounts


@njit_without_refcounts
def effective_kind(state, tiles, player, cell):
    """Kind whose effects a cell carries: the lake kind for a face-down tile (R6.7)."""
    if s.is_lake(state, player, cell):
        return s.lake_kind(tiles)
    return s.cell_kind(state, player, cell)


@njit_without_refcounts
def trigger_adjustments(invested):
    """Adjustments per match of a tile's trigger: two once it carries a marker (R7.3)."""
    return 2 if invested else 1


@njit_without_refcounts
def clamped_level(value):
    """An income or reputation value brought back into -5..15 (R1.2)."""
    if value < c.LEVEL_MIN:
        return c.LEVEL_MIN
    if value > c.LEVEL_MAX:
        return c.LEVEL_MAX
    return value


@njit_without_refcounts
def change_level(state, player, attribute, amount):
    """Move income or reputation (constants.ATTR_*) by one adjustment, clamped (R1.2)."""
    value = clamped_level(s.attribute_value(state, player, attribute) + amount)
    s.set_attribute_value(state, player, attribute, value)
    return value
