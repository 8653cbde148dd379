"""The placement log: what each action caused, as rows of an int32 array.

Kernels append rows with `record`; the facade turns them into text (render.py) so a
player can check the engine against the rulebook by eye. Row 0 holds the row count
and the number of rows dropped; a log of one row records nothing (the fast path).
"""

import numpy as np

from .refcount_free import njit_without_refcounts


# Columns of an event row.
EVENT = 0
PLAYER = 1  # the player whose value changed
ATTRIBUTE = 2  # constants.INCOME / REPUTATION / POPULATION / MONEY, or an event detail
AMOUNT = 3
VALUE_AFTER = 4
SOURCE_PLAYER = 5  # owner of the tile whose effect it is, -1 for rules (steps 2-3, red lines)
SOURCE_CELL = 6  # cell of that tile, or a market slot for market events
SOURCE_KIND = 7
NUM_EVENT_FIELDS = 8

# Event kinds.
EFFECT = 1  # a single adjustment of R7.2
RED_LINE = 2  # AMOUNT +1 crossed upward, -1 fell back; VALUE_AFTER the line's value (R8.1)
PLACE = 3  # AMOUNT the price paid; ATTRIBUTE 1 when placed as a lake
INVEST = 4  # AMOUNT the price paid (R7.3)
INCOME_STEP = 5  # R5.2; AMOUNT the income level, VALUE_AFTER the money
POPULATION_STEP = 6  # R5.3; AMOUNT the reputation level, VALUE_AFTER the population
DISCARD = 7  # AMOUNT the premium paid
DRAW = 8
ONE_MORE_ROUND = 9  # VALUE_AFTER the final round
PASS = 10
DALE_BUY = 11  # AMOUNT what Dale paid (R9.2)
KEEP_GOAL = 12
GAME_OVER = 13
SHORTFALL = 14  # population lost or money paid because a step could not be paid in full

EVENT_NAMES = {EFFECT: "effect", RED_LINE: "red line", PLACE: "place", INVEST: "invest",
               INCOME_STEP: "income", POPULATION_STEP: "population", DISCARD: "discard",
               DRAW: "draw", ONE_MORE_ROUND: "one more round", PASS: "pass",
               DALE_BUY: "dale buys", KEEP_GOAL: "keep goal", GAME_OVER: "game over",
               SHORTFALL: "shortfall"}


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
    log[row, EVENT] = event
    log[row, PLAYER] = player
    log[row, ATTRIBUTE] = attribute
    log[row, AMOUNT] = amount
    log[row, VALUE_AFTER] = value_after
    log[row, SOURCE_PLAYER] = source_player
    log[row, SOURCE_CELL] = source_cell
    log[row, SOURCE_KIND] = source_kind
    log[0, 0] = count + 1
