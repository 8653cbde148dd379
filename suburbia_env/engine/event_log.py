"""The placement log: what each action caused, as rows of an int32 array.

Kernels append rows with `record`; the facade turns them into text (render.py) so a
player can check the engine against the rulebook by eye. Row 0 holds the row count
and the number of rows dropped; a log of one row records nothing (the fast path).
"""

import numpy as np

from .refcount_free import njit_without_refcounts


# Columns of an event row (FIELD_*); the kinds of event in FIELD_EVENT are EVENT_*.
FIELD_EVENT = 0
FIELD_PLAYER = 1  # the player whose value changed
FIELD_ATTRIBUTE = 2  # constants.ATTR_*, or an event detail
FIELD_AMOUNT = 3
FIELD_VALUE_AFTER = 4
FIELD_SOURCE_PLAYER = 5  # owner of the tile whose effect it is, -1 for rules (steps 2-3, red lines)
FIELD_SOURCE_CELL = 6  # cell of that tile, or a market slot for market events
FIELD_SOURCE_KIND = 7
NUM_EVENT_FIELDS = 8

# Event kinds.
EVENT_EFFECT = 1  # a single adjustment of R7.2
EVENT_RED_LINE = 2  # AMOUNT +1 crossed upward, -1 fell back; VALUE_AFTER the line (R8.1)
EVENT_PLACE = 3  # AMOUNT the price paid; ATTRIBUTE 1 when placed as a lake
EVENT_INVEST = 4  # AMOUNT the price paid (R7.3)
EVENT_INCOME_STEP = 5  # R5.2; AMOUNT the income level, VALUE_AFTER the money
EVENT_POPULATION_STEP = 6  # R5.3; AMOUNT the reputation level, VALUE_AFTER the population
EVENT_DISCARD = 7  # AMOUNT the premium paid
EVENT_DRAW = 8
EVENT_ONE_MORE_ROUND = 9  # VALUE_AFTER the final round
EVENT_PASS = 10
EVENT_DALE_BUY = 11  # AMOUNT what Dale paid (R9.2)
EVENT_KEEP_GOAL = 12
EVENT_GAME_OVER = 13
EVENT_SHORTFALL = 14  # population lost or money paid because a step could not be paid in full

EVENT_NAMES = {EVENT_EFFECT: "effect", EVENT_RED_LINE: "red line", EVENT_PLACE: "place",
               EVENT_INVEST: "invest", EVENT_INCOME_STEP: "income",
               EVENT_POPULATION_STEP: "population", EVENT_DISCARD: "discard",
               EVENT_DRAW: "draw", EVENT_ONE_MORE_ROUND: "one more round", EVENT_PASS: "pass",
               EVENT_DALE_BUY: "dale buys", EVENT_KEEP_GOAL: "keep goal",
               EVENT_GAME_OVER: "game over", EVENT_SHORTFALL: "shortfall"}


def new_log(capacity: int) -> np.ndarray:
    """An empty log with room for `capacity` events (0: record nothing)."""
    return np.zeros((capacity + 1, NUM_EVENT_FIELDS), dtype=np.int32)


@njit_without_refcounts
def record(log, event, player, attribute, amount, value_after, source_player, source_cell,
           source_kind):
    count = log[0, 0]
    if count + 1 >= log.shape[0]:
        if log.shape[0] > 1:
            log[0, 1] += 1
        return
    row = count + 1
    log[row, FIELD_EVENT] = event
    log[row, FIELD_PLAYER] = player
    log[row, FIELD_ATTRIBUTE] = attribute
    log[row, FIELD_AMOUNT] = amount
    log[row, FIELD_VALUE_AFTER] = value_after
    log[row, FIELD_SOURCE_PLAYER] = source_player
    log[row, FIELD_SOURCE_CELL] = source_cell
    log[row, FIELD_SOURCE_KIND] = source_kind
    log[0, 0] = count + 1
