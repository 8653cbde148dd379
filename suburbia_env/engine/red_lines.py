"""The red lines of the population track (R8.1): where they lie, what crossing one upward
costs and falling back below one gives, and the tiles that react to a crossing (R6.6).

The one home of the rule: play crosses lines here (`cross_red_lines`, called by every
population change: `resolution.adjust` and the income step), the observation and the
display's words (display/vocabulary.py) ask `next_red_line`, the greedy player's
projection asks `red_line_level_change`, and Dale's sums (dale.py) take the penalty and
the fall-back gain from here.
"""

import numpy as np

from . import constants as c
from . import event_log as ev
from . import state_layout as s
from .adjustments import change_level, effective_kind, trigger_adjustments
from .refcount_free import njit_without_refcounts
from .tile_table import (conditional_amount, conditional_attribute, conditional_scope,
                         conditional_term_count)

_FIRST_RED_LINES = np.array([15, 22, 29, 35, 41, 47, 53, 59, 64, 69, 74, 78, 82, 86, 89, 92,
                             95, 98], dtype=np.int64)
_FIRST_ODD_LINE = 101
_LINES_AT_OR_BELOW = np.searchsorted(_FIRST_RED_LINES, np.arange(_FIRST_ODD_LINE),
                                     side="right").astype(np.int64)
"""_LINES_AT_OR_BELOW[p]: red lines at or below population p < 101, looked up on the hot
path of every population change."""


@njit_without_refcounts
def red_lines_at_or_below(population):
    """How many red lines lie at or below a population value (R8.1)."""
    if population >= _FIRST_ODD_LINE:
        return _FIRST_RED_LINES.shape[0] + (population - _FIRST_ODD_LINE) // 2 + 1
    if population < 0:
        return 0
    return _LINES_AT_OR_BELOW[population]


@njit_without_refcounts
def red_line_value(index):
    """Population value of the index-th red line (0-based)."""
    if index < _FIRST_RED_LINES.shape[0]:
        return _FIRST_RED_LINES[index]
    return _FIRST_ODD_LINE + 2 * (index - _FIRST_RED_LINES.shape[0])


@njit_without_refcounts
def next_red_line(population):
    """The population value of the next red line a player would cross upward: the lowest
    line above `population` (R8.1; 15 from 0..14, 22 from 15). The one computation of the
    "next red line" the observation encodes and every display shows (through
    display/vocabulary.py); Python callers get an int."""
    return red_line_value(red_lines_at_or_below(population))


RED_LINE_FALL_BACK_GAIN = 1
"""Income and reputation given back per red line fallen below, in every mode (R8.1; R9.1
as revised on 2026-11-25 changes only the crossing)."""


@njit_without_refcounts
def red_line_penalty(state):
    """Income and reputation lost per red line crossed upward: 1, or 2 in Solitary
    Architect (R8.1, R9.1)."""
    return 2 if state[s.MODE] == c.MODE_SOLITARY else 1


@njit_without_refcounts
def red_line_level_change(state, old_population, new_population):
    """What the red lines between two population values do to income and to reputation
    taken together, before clamps: -penalty per line crossed upward, +1 per line fallen
    below (R8.1, R9.1). For projections that move a turn's population at once (the greedy
    player); play handles each line in turn, with clamps and reactions (`cross_red_lines`)."""
    lines = red_lines_at_or_below(new_population) - red_lines_at_or_below(old_population)
    if lines > 0:
        return -red_line_penalty(state) * lines
    return -RED_LINE_FALL_BACK_GAIN * lines


@njit_without_refcounts
def cross_red_lines(state, tiles, log, player, old_population, new_population):
    """Handle, one at a time in the order passed, the red lines between two values (R8.1).

    Upward: income -1, reputation -1 (-2/-2 in Solitary Architect, R9.1), then the owner's
    `redline_own` reactions in placement order (R6.6). Downward: +1/+1 in every mode.
    """
    lines_before = red_lines_at_or_below(old_population)
    lines_after = red_lines_at_or_below(new_population)
    if lines_before == lines_after:
        return
    if lines_after > lines_before:
        penalty = red_line_penalty(state)
        for line in range(lines_before, lines_after):
            ev.record(log, ev.EVENT_RED_LINE, player, 0, 1, red_line_value(line), -1, -1, -1)
            value = change_level(state, player, c.ATTR_INCOME, -penalty)
            ev.record(log, ev.EVENT_EFFECT, player, c.ATTR_INCOME, -penalty, value, -1, -1, -1)
            value = change_level(state, player, c.ATTR_REPUTATION, -penalty)
            ev.record(log, ev.EVENT_EFFECT, player, c.ATTR_REPUTATION, -penalty, value, -1, -1, -1)
            _red_line_reactions(state, tiles, log, player)
    else:
        gain = RED_LINE_FALL_BACK_GAIN
        for line in range(lines_before - 1, lines_after - 1, -1):
            ev.record(log, ev.EVENT_RED_LINE, player, 0, -1, red_line_value(line), -1, -1, -1)
            value = change_level(state, player, c.ATTR_INCOME, gain)
            ev.record(log, ev.EVENT_EFFECT, player, c.ATTR_INCOME, gain, value, -1, -1, -1)
            value = change_level(state, player, c.ATTR_REPUTATION, gain)
            ev.record(log, ev.EVENT_EFFECT, player, c.ATTR_REPUTATION, gain, value, -1, -1, -1)


@njit_without_refcounts
def _red_line_reactions(state, tiles, log, player):
    """The owner's tiles with a `redline_own` term react, oldest first (R6.6, R8.1)."""
    for position in range(s.tile_count(state, player)):
        cell = s.placed_cell(state, player, position)
        kind = effective_kind(state, tiles, player, cell)
        times = trigger_adjustments(s.is_invested(state, player, cell))
        for term in range(conditional_term_count(tiles, kind)):
            if conditional_scope(tiles, kind, term) != c.SCOPE_REDLINE_OWN:
                continue
            attribute = conditional_attribute(tiles, kind, term)
            amount = conditional_amount(tiles, kind, term)
            for _ in range(times):
                if attribute == c.ATTR_INCOME or attribute == c.ATTR_REPUTATION:
                    value = change_level(state, player, attribute, amount)
                else:
                    value = max(0, s.attribute_value(state, player, c.ATTR_MONEY) + amount)
                    s.set_attribute_value(state, player, c.ATTR_MONEY, value)
                ev.record(log, ev.EVENT_EFFECT, player, attribute, amount, value, player, cell,
                          kind)
