"""Error codes of the state checks, `reason * 100 + detail`, and the finding a failed
check fills (where, which rule, the value at fault) for `explain.explain_finding`."""

from __future__ import annotations

from numba import njit

OK = 0
MONEY_NEGATIVE = 1
POPULATION_NEGATIVE = 2
INCOME_OUT_OF_RANGE = 3
REPUTATION_OUT_OF_RANGE = 4
TILE_COUNT_BROKEN = 5  # detail: kind
ONE_MORE_ROUND_BROKEN = 6
TILE_COUNT_WRONG = 7
LAKE_COUNT_WRONG = 8
FEATURE_COUNT_WRONG = 9
ORDER_WRONG = 10
PLACEABLE_WRONG = 11
MARKERS_WRONG = 12
DECISION_WRONG = 13
CURRENT_PLAYER_WRONG = 14
MARKET_WRONG = 15
CELL_FLAGS_WRONG = 16
UNUSED_SEAT_NOT_EMPTY = 17
PILE_WRONG = 18
SUPPLY_WRONG = 19  # detail: basic tile
CONFIG_WRONG = 20
FIRST_PLAYER_WRONG = 21
ROUND_WRONG = 22
COUNTER_WRONG = 23
GOALS_WRONG = 24
PUBLIC_GOALS_WRONG = 25
SCORE_WRONG = 26
MONEY_TOO_LARGE = 27
POPULATION_TOO_LARGE = 28
NO_LEGAL_ACTION = 29
DALE_CANNOT_PLACE = 30
CELL_WRONG = 31
PADDING_NOT_EMPTY = 32
# check_reachable only
PILE_POSITION_WRONG = 40
FINAL_ROUND_WRONG = 41
MARKET_SHAPE_WRONG = 42
DRAWN_WRONG = 43  # detail: kind
SUPPLY_USED_WRONG = 44  # detail: basic tile
START_VALUES_WRONG = 45
TURNS_WRONG = 46
ADJACENCY_WRONG = 47
SEQUENCE_WRONG = 48
SCORE_MISMATCH = 49
STARTING_TILES_WRONG = 50
LAKE_SOURCE_WRONG = 51
GOALS_DEALT_WRONG = 52
GOALS_KEPT_WRONG = 53
RNG_WRONG = 54
DISCARDED_WRONG = 55  # detail: kind

# Where a check failed (`check_reachable_at`): the entry and the value at fault, so that a
# message can name the field of the state format and the rule (`explain_finding`).
FINDING_SIZE = 12
F_CODE, F_CASE, F_INDEX, F_VALUE, F_LOW, F_HIGH, F_PLACES = 0, 1, 2, 3, 4, 5, 6
PLACES = ("stacks", "market", "supply", "boroughs", "discarded", "box")  # F_PLACES onward
# Which rule of a reason failed (F_CASE); 0 when the reason says it all.
CASE_RANGE = 1  # F_VALUE outside F_LOW..F_HIGH
CASE_GAME_OVER = 2  # does not agree with game over
CASE_MODE = 3  # not a decision of this configuration
CASE_ROUND = 4  # a goal chosen after round 0 (F_LOW the round)
CASE_DALE = 5  # a rule of the game with Dale (R9.2)
CASE_COUNT = 6  # F_VALUE found where F_LOW are expected
CASE_TWICE = 7  # F_VALUE already dealt or numbered
CASE_NOT_DRAWN = 8  # a private goal not among the drawn goals
CASE_EXPECTED = 9  # F_VALUE where F_LOW is expected
CASE_POSITION = 10  # at position F_INDEX (of the pile or the borough)
CASE_BLOCK = 11  # One More Round outside its block F_LOW..F_HIGH
CASE_MISSING = 12  # absent
CASE_SET_ASIDE = 13  # One More Round not set aside exactly when drawn
CASE_ORDER = 14  # placement number F_VALUE after F_LOW
CASE_KIND = 15  # a kind that does not belong there
CASE_SEQUENCE = 16  # placement number F_VALUE outside 0..F_HIGH
CASE_FINAL_ROUND = 17  # final round F_VALUE outside F_LOW..F_HIGH
CASE_SUM = 18  # the final population is not the sum of its parts (F_LOW)
CASE_MONEY_LEFT = 19  # $5 or more left after final scoring
CASE_ENTRY = 20  # player entry F_INDEX is F_VALUE, final scoring gives F_LOW

_SEAT_REASONS = (MONEY_NEGATIVE, POPULATION_NEGATIVE, INCOME_OUT_OF_RANGE,
                 REPUTATION_OUT_OF_RANGE, TILE_COUNT_WRONG, LAKE_COUNT_WRONG, FEATURE_COUNT_WRONG,
                 ORDER_WRONG, PLACEABLE_WRONG, MARKERS_WRONG, CELL_FLAGS_WRONG,
                 UNUSED_SEAT_NOT_EMPTY, GOALS_WRONG, SCORE_WRONG, MONEY_TOO_LARGE,
                 POPULATION_TOO_LARGE, CELL_WRONG, START_VALUES_WRONG, TURNS_WRONG,
                 ADJACENCY_WRONG, SCORE_MISMATCH, STARTING_TILES_WRONG, LAKE_SOURCE_WRONG,
                 GOALS_DEALT_WRONG, GOALS_KEPT_WRONG)
_KIND_REASONS = (TILE_COUNT_BROKEN, DRAWN_WRONG, DISCARDED_WRONG)
_BASIC_REASONS = (SUPPLY_WRONG, SUPPLY_USED_WRONG)


@njit(cache=True)
def _error(reason, detail):
    return reason * 100 + detail


@njit(cache=True)
def _found(finding, reason, detail, case, index, value, low, high):
    """`_error`, recording where the check failed and the value at fault in `finding`
    (F_CASE .. F_HIGH) so that the message can name the entry and the rule."""
    code = reason * 100 + detail
    finding[F_CODE] = code
    finding[F_CASE] = case
    finding[F_INDEX] = index
    finding[F_VALUE] = value
    finding[F_LOW] = low
    finding[F_HIGH] = high
    return code
