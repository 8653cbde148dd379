"""Consistency checks of a game state, compiled so they can run at every step of many games.

Three levels, each returning 0 when the state passes, else an error code
`reason * 100 + detail` (detail: the seat, the tile kind or the basic tile);
`describe_invariant_error(code)` turns a code into a message and `invariant_field(code)`
names the field of the state format (docs/state-format.md) at fault. `check_reachable_at`
also fills a finding (where, which rule, the value at fault) that `explain_finding`
turns into the exact field and rule: the state loader keeps no rule of its own.

`check_invariants(state, tiles)`: what every state the engine is given must satisfy,
hand-made positions (positions.py) included. The compiled kernels index arrays by the
values it checks, so on a state that passes they never read or write out of place, and
the money and population bounds leave int32 arithmetic far from overflow. Checked:
- the configuration entries: players 2-4 in standard, 1 in Solitary Architect, 2 seats
  with Dale (R3.1, R9); mode, edition and the random-goals flag are their values; the
  first player is a seat, 0 in the solo modes (R9.2); the round is within 0..`last_round`
  of the configuration and the final round within -1..round + 1 (R4.3); the placement
  counter within 1..1 + the cells of every borough less the starting tiles;
- R1.2, R1.3: income and reputation within -5..15; money within 0..`MONEY_BOUND` and
  population within 0..`POPULATION_BOUND` (the bounds are derived below);
- each cell holds -1 (empty) or a kind of tiles.csv, flag bits of state_layout only, a
  placement number below the counter (0 when empty); the derived entries agree with the
  borough: tile, lake and feature counts, the placement order (R7.2; entries past the
  tile count 0), the placeable flags (R2.4), markers left = 3 - invested tiles;
- goals: public goals, each seat's private goal and drawn goals -1 or goals, both drawn
  goals set or neither;
- the score block is all 0 until the game is over, then within the bonuses of the goals;
- every physical tile is in exactly one place (R3.2, R3.5): per kind, undrawn stacks +
  market + basic supply + boroughs (a lake counts as its tile) + discarded + box equals
  the copies printed in tiles.csv; the stack bounds are those of the configuration
  (R3.2, R3.3, R9.2) and every pile position holds a tile of its stack, One More Round
  once, inside the block it is shuffled into, set aside exactly when drawn (R4.3);
- the market holds A, B and C tiles only, Dale's in slots 2..5 (R4.1, R9.2);
- the pending decision agrees with the game being over and the mode; the current player
  is a seat that may decide (never Dale); the decision has a legal action: a discard or
  removal has a payable occupied slot (R5.1b, d, R9.1: with none the engine skips it), a
  goal choice has two drawn goals, and no seat still to choose (from the current player
  to the first, R3.6) has kept one; while a Dale game runs, Dale's borough has a
  placeable cell for his next tile (R9.2);
- seats beyond the player count and the padding of the layout are empty;
- One More Round drawn exactly when the final round is set, and with Dale only at game
  over (R4.3, R9.1, R9.2): otherwise a game whose One More Round is gone never ends.

`check_consistency(state, tiles)`: `check_invariants` with the tight bounds of money,
population, round and placement counter (`MONEY_BOUND`, `POPULATION_BOUND`, `last_round`,
`MOST_PLACEMENTS`) raised to `HEADROOM` (2**24). The tight bounds hold for every state
play reaches from a setup, but not for play from any state within them: a hand-made
position (positions.py) with money at the bound, or round at the last round and the
stacks still full, goes beyond them in a few turns. Every other check is kept by play
from any state that passes `check_invariants` (tests/engine/test_fuzz.py plays such
states to the end under this check), and the game still ends within a few dozen rounds (each turn
draws a tile, the stacks hold at most `PILE_CAPACITY`), so nothing comes near HEADROOM,
let alone 2**31. The compiled code that takes states already in play (the redraw of
hidden information for searches) checks this, so a game continued from a hand-made
position is never refused halfway.

`check_reachable(state, tiles)`: `check_invariants` and what play itself implies, as far
as it can be checked without replaying (the state loader refuses any state that fails;
tests/engine/test_properties.py checks it at every decision of thousands of random games):
- the tiles drawn match the turns played: 7 tiles fill the market at setup, every turn
  draws one (two in Solitary Architect) while the stacks last, One More Round is set
  aside and replaced (R3.2, R4.2, R4.3, R9.1); with Dale four per round, and the game ends
  at the round start that draws One More Round (R9.2);
- the final round is the round after the turn that drew One More Round (R4.3, R9.1) or,
  with Dale, the round before the one whose start drew it (R9.2);
- the market has a shape R4.2 can produce: its tiles packed toward slot 6 in the order
  they were drawn, the newest in slot 0, all seven slots full while the stacks hold tiles;
  during a Solitary Architect removal one slot of that shape is empty; with Dale, slots
  2..5 hold the four tiles drawn at the round start, or at game over those drawn before
  One More Round (R9.2);
- the drawn tiles are exactly the lettered tiles now on the table, in the market and
  discarded; the basic tiles on the table are the starting tiles plus those taken from the
  supply (R3.5);
- goals: the public goals of the mode (as many as players, 3 with Dale and none about lakes
  or investment markers, none in Solitary Architect); two drawn goals for each player who
  draws (every player in standard, the player and not Dale in the Dale game, nobody in
  Solitary Architect), none for the others, a private goal that is none or one of them, no
  goal dealt twice; goals kept in turn order from the first player before the first turn,
  nobody choosing with random private goals (R3.6, R9);
- the generator's four words not all 0 (rng.py); only market tiles and One More Round
  discarded (R4.3, R5.1);
- boroughs: the starting tiles first (R2.3), then each tile next to an earlier one in
  placement order (R2.4), lakes made of market tiles (R5.1c), placement numbers 1 ..
  counter - 1 each used once (R7.2);
- a player places or invests at most once per turn taken (R5.1); a player who has not
  finished a turn yet still has the start values (R3.4: tiles only pay their owner, and
  the starting tiles react to their own borough only); Dale places exactly one tile per
  round, never a lake, never invests (R9.2);
- after the game, the score block and the final money and population are what
  scoring.py computes from the board (R8.2, R8.3).

Bounds of money and population (R1.3 leaves them unbounded above; play does not)
---------------------------------------------------------------------------------
`last_round` is the highest round a configuration can reach: One More Round lies at
most at the last position of its block (R3.2, R3.3, R9.2), the turn that draws it is
fixed by the draws per turn, and one more round follows (R4.3, R9.1; with Dale the game
ends at the round start that draws it). A player takes at most `MOST_TURNS` turns (the
largest `last_round` + 1 over all configurations) and at most `MOST_TILES` tiles are ever
on the table (three starting tiles per seat plus one placement per turn). The money a
player can ever receive is then at most: $15 (R3.4); $15 of income per turn (R1.2,
R5.2); for each copy of each tile with a money term of amount A (the player may own every
copy), 2A per immediate term (placed, then once more when invested, R7.3) and 4A *
MOST_TILES per conditional term (current matches at placement, again at investment, two
per later match once invested); and for each lake (at most MOST_TILES), six $4 payments
for its neighbours, six $2 more for investing in it (R6.7) and, after each of the six
payments, the bonus of every Waterfront Realty copy, invested. `MONEY_BOUND` is that sum.
Population likewise: 2 (R3.4), 15 per turn from reputation (R5.3), the tiles' population
terms, then final scoring: every public goal bonus, the largest private bonus and
MONEY_BOUND // 5 (R8.2). Both are far beyond what games reach (a few hundred) and far below
2**31, so no kernel can overflow on a state within them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import constants as c
from .. import state_layout as s
from ...errors import StateFormatError
from ..hex_grid import NEIGHBOURS, NUM_CELLS, STARTING_CELLS, cell_coordinates
from ..scoring import score_game
from ..setup import stack_sizes
from ..tile_data import GOALS, TILES
from ..tile_table import (conditional_amount, conditional_attribute, conditional_scope,
                          conditional_term_count, goal_excluded_with_dale, immediate_amount,
                          immediate_attribute, immediate_term_count, private_goal_bonus,
                          public_goal_bonus, tile_copies, tile_features, tile_stack)

_BASIC_KINDS = np.array(TILES.basic_kinds, dtype=np.int64)  # supply order: suburbs, park, factory
_STARTING_CELLS = np.array(STARTING_CELLS, dtype=np.int64)
_NUM_STARTING = len(STARTING_CELLS)
_GOAL_TABLE = GOALS.table
NUM_GOALS = GOALS.table.shape[0]
_VALID_FLAGS = s.FLAG_LAKE | s.FLAG_INVESTED | s.FLAG_PLACEABLE
_SCORE_ENTRIES = s.ORDER - s.SCORE  # the score block of a player, SCORE .. SCORE_WINNER

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


# Bounds ---------------------------------------------------------------------------------

@njit(cache=True)
def last_round(num_players, mode, edition):
    """The highest round number (from 0) a game of this configuration can reach (see the
    module docstring): the round after the turn that draws One More Round at the last
    position of its block (R4.3, R9.1), or with Dale the round whose start draws it (R9.2)."""
    sizes = stack_sizes(num_players, mode, edition)
    last_position = sizes[0] + sizes[1] + sizes[2] + sizes[3]  # the block's last entry
    if mode == c.MODE_DALE:
        return last_position // (c.DALE_LAST_SLOT - c.DALE_FIRST_SLOT + 1)
    draws = 2 if mode == c.MODE_SOLITARY else 1
    return (last_position - c.NUM_SLOTS) // draws // num_players + 1


CONFIGURATIONS = tuple((seats, mode, edition)
                       for seats, mode in ((2, c.MODE_STANDARD), (3, c.MODE_STANDARD),
                                           (4, c.MODE_STANDARD), (1, c.MODE_SOLITARY),
                                           (2, c.MODE_DALE))
                       for edition in (c.EDITION_SECOND, c.EDITION_FIRST))
"""Every (seats, mode, edition) of R3.1, R3.2, R3.3 and R9."""

MOST_TURNS = max(int(last_round(*config)) + 1 for config in CONFIGURATIONS)
"""The most turns one player can take in any configuration."""
MOST_TILES = max(3 * seats + seats * (int(last_round(seats, mode, edition)) + 1)
                 for seats, mode, edition in CONFIGURATIONS)
"""The most tiles ever on the table in any configuration: starting tiles plus one
placement per turn."""


def _gains_from_tiles(attribute: int) -> int:
    """The most a player can gain of `attribute` from tile terms (module docstring)."""
    table = TILES.table
    total = 0
    for kind in range(TILES.lake):
        per_copy = 0
        for term in range(immediate_term_count(table, kind)):
            amount = immediate_amount(table, kind, term)
            if immediate_attribute(table, kind, term) == attribute and amount > 0:
                per_copy += 2 * amount
        for term in range(conditional_term_count(table, kind)):
            amount = conditional_amount(table, kind, term)
            scope = conditional_scope(table, kind, term)
            if conditional_attribute(table, kind, term) != attribute or amount <= 0:
                continue
            if scope == c.SCOPE_LAKE_ADJACENT_OWN:
                continue  # counted with the lakes
            if scope == c.SCOPE_REDLINE_OWN:  # matches are red lines: not bounded here
                raise RuntimeError(f"{TILES.names[kind]}: a red-line term of money or "
                                   f"population is outside the derivation of the bounds")
            per_copy += 4 * amount * MOST_TILES
        total += tile_copies(table, kind) * per_copy
    return total


def _lake_money() -> int:
    table = TILES.table
    lake_amount = max(conditional_amount(table, TILES.lake, term)
                      for term in range(conditional_term_count(table, TILES.lake)))
    bonus = 0
    for kind in range(TILES.lake):
        for term in range(conditional_term_count(table, kind)):
            if conditional_scope(table, kind, term) == c.SCOPE_LAKE_ADJACENT_OWN:
                bonus += (tile_copies(table, kind) * 2
                          * max(0, conditional_amount(table, kind, term)))
    return MOST_TILES * (6 * 2 * lake_amount + 6 * lake_amount + 6 * bonus)


MONEY_BOUND = (c.START_MONEY + c.LEVEL_MAX * MOST_TURNS + _gains_from_tiles(c.ATTR_MONEY)
               + _lake_money())
"""No game gives a player more money than this (module docstring)."""
POPULATION_BOUND = (c.START_POPULATION + c.LEVEL_MAX * MOST_TURNS
                    + _gains_from_tiles(c.ATTR_POPULATION)
                    + c.MAX_PLAYERS * max(public_goal_bonus(GOALS.table, goal)
                                          for goal in range(NUM_GOALS))
                    + max(private_goal_bonus(GOALS.table, goal) for goal in range(NUM_GOALS))
                    + MONEY_BOUND // 5)
"""No game gives a player a larger population than this (module docstring)."""
MOST_PLACEMENTS = c.MAX_PLAYERS * (NUM_CELLS - len(STARTING_CELLS))
"""The largest placement counter a state can hold is MOST_PLACEMENTS + 1."""
HEADROOM = 2**24
"""`check_consistency`'s bound of money, population, round and placement counter (module
docstring): far above what play from any state within the tight bounds reaches, and 2**31
is 128 times further."""

# Messages -------------------------------------------------------------------------------

_MESSAGES = {
    MONEY_NEGATIVE: "money is negative (R1.3)",
    POPULATION_NEGATIVE: "population is negative (R1.3)",
    INCOME_OUT_OF_RANGE: "income is outside -5..15 (R1.2)",
    REPUTATION_OUT_OF_RANGE: "reputation is outside -5..15 (R1.2)",
    TILE_COUNT_BROKEN: ("physical tiles of this kind do not add up to its copies: stacks + "
                        "market + supply + boroughs + discarded + box (R3.2, R3.5)"),
    ONE_MORE_ROUND_BROKEN: ("One More Round is not exactly once in the stacks (inside its "
                            "block) or set aside, set aside exactly when drawn (R3.2, R4.3)"),
    TILE_COUNT_WRONG: "TILE_COUNT differs from the occupied cells of the borough",
    LAKE_COUNT_WRONG: "LAKE_COUNT differs from the lakes of the borough",
    FEATURE_COUNT_WRONG: "FEATURE_COUNT differs from the types and icons of the borough (R6.4)",
    ORDER_WRONG: "ORDER does not list each occupied cell once, in placement order (R7.2)",
    PLACEABLE_WRONG: "FLAG_PLACEABLE is not exactly the empty cells next to a tile (R2.4)",
    MARKERS_WRONG: "markers left differ from 3 minus the invested tiles (R3.4, R5.1d)",
    DECISION_WRONG: "the pending decision does not agree with the game being over or the mode",
    CURRENT_PLAYER_WRONG: "the current player is not a seat that may decide now",
    MARKET_WRONG: ("the market holds a basic tile, a lake, One More Round, an unknown kind or "
                   "a tile outside its slots (R4.1, R9.2)"),
    CELL_FLAGS_WRONG: "an empty cell is flagged as a lake or invested",
    UNUSED_SEAT_NOT_EMPTY: "a seat beyond the player count is not empty",
    PILE_WRONG: ("the stacks are not those of the configuration: bounds (R3.2, R3.3, R9.2), "
                 "position, or a tile of another stack at a pile position"),
    SUPPLY_WRONG: "the basic supply is outside 0..4 (R3.5)",
    CONFIG_WRONG: ("the player count, mode, edition or random-goals flag is not a "
                   "configuration of R3.1, R3.2, R3.3, R9"),
    FIRST_PLAYER_WRONG: "the first player is not a seat (0 in the solo modes, R3.6, R9.2)",
    ROUND_WRONG: ("the round is beyond the last round the stacks allow, or the final round "
                  "is not -1..round + 1 (R4.3)"),
    COUNTER_WRONG: "the placement counter is outside 1..1 + the free cells of every borough",
    GOALS_WRONG: ("the private goal or a drawn goal is neither a goal nor none, or only one "
                  "of the two drawn goals is set"),
    PUBLIC_GOALS_WRONG: ("a public goal is neither a goal nor none, or the public goals are not "
                         "as many as the mode deals (R3.6, R9), or a goal is dealt twice"),
    GOALS_DEALT_WRONG: ("the goals of this seat are not what setup deals: two drawn goals for "
                        "each player who draws (none for Dale or in Solitary Architect), "
                        "the private goal one of them or none, no goal dealt twice (R3.6, R9)"),
    SCORE_WRONG: ("the score block is not all 0 before the game is over, or holds values no "
                  "final scoring gives (R8.2)"),
    MONEY_TOO_LARGE: f"money is above {MONEY_BOUND}, more than any game can give (R1.3)",
    POPULATION_TOO_LARGE: (f"population is above {POPULATION_BOUND}, more than any game can "
                           f"give (R1.3)"),
    NO_LEGAL_ACTION: ("the pending decision has no legal action: a discard or removal with no "
                      "payable slot (the engine skips it, R5.1b, d, R9.1) or a goal choice "
                      "without two drawn goals (R3.6)"),
    DALE_CANNOT_PLACE: "Dale's borough has no placeable cell for his next tile (R9.2, R2.4)",
    CELL_WRONG: ("a cell holds an unknown kind or flag bits, or a placement number outside "
                 "0..counter - 1 (0 when empty)"),
    PADDING_NOT_EMPTY: ("an entry the layout leaves unused holds a value (the pile past its "
                        "end, counts past the tile kinds, public goals past their number)"),
    PILE_POSITION_WRONG: ("the tiles drawn do not match the turns played: 7 at setup, then one "
                          "a turn (two in Solitary Architect, four a round with Dale) while "
                          "the stacks last, One More Round replaced (R3.2, R4.2, R4.3, R9)"),
    FINAL_ROUND_WRONG: ("the final round does not follow from where One More Round was drawn "
                        "(R4.3, R9.1, R9.2)"),
    MARKET_SHAPE_WRONG: ("the market has a shape R4.2 cannot produce: tiles packed toward slot "
                         "6 in draw order, the newest in slot 0, full while the stacks hold "
                         "tiles (one slot open during a removal, R9.1); with Dale the tiles "
                         "drawn at the round start in slots 2..5 (R9.2)"),
    DRAWN_WRONG: ("the tiles drawn from the stacks are not exactly the tiles of this kind on "
                  "the table, in the market and discarded"),
    SUPPLY_USED_WRONG: ("the basic tiles on the table are not the starting tiles plus those "
                        "taken from the supply (R2.3, R3.5)"),
    START_VALUES_WRONG: ("a player who has not finished a turn yet must still have the start "
                         "values: $15, income 0, reputation 1, population 2 (R3.4)"),
    TURNS_WRONG: ("more placements and investments than turns taken (one a turn, R5.1), or "
                  "Dale not with one tile per round, no lake, no investment (R9.2)"),
    ADJACENCY_WRONG: "a tile is not next to an earlier tile in placement order (R2.4)",
    SEQUENCE_WRONG: ("the placement numbers are not 1 .. placement counter - 1, each once "
                     "(R7.2)"),
    SCORE_MISMATCH: ("the score block or the final money and population differ from what "
                     "final scoring computes from the board (R8.2, R8.3)"),
    STARTING_TILES_WRONG: ("the borough does not start with Suburbs (0, 0), Community Park "
                           "(0, 1) and Heavy Factory (0, 2), face up, numbered 0 (R2.3)"),
    LAKE_SOURCE_WRONG: "a lake is not a market tile turned face down (R5.1c)",
    GOALS_KEPT_WRONG: ("the private goals are not kept in turn order from the first player "
                       "before the first turn, by the players who draw, or a goal is being "
                       "chosen with random private goals (R3.6, R9.2)"),
    RNG_WRONG: "all four words are 0, a state xoshiro128** never reaches (rng.py)",
    DISCARDED_WRONG: ("only market tiles (and One More Round, once drawn) are discarded, "
                      "and basic tiles never are (R4.3, R5.1, R9.2)"),
}

_SEAT_FIELDS = {
    MONEY_NEGATIVE: "money", MONEY_TOO_LARGE: "money", POPULATION_NEGATIVE: "population",
    POPULATION_TOO_LARGE: "population", INCOME_OUT_OF_RANGE: "income",
    REPUTATION_OUT_OF_RANGE: "reputation", MARKERS_WRONG: "markers_left",
    GOALS_WRONG: "goal_options", GOALS_DEALT_WRONG: "goal_options",
    GOALS_KEPT_WRONG: "private_goal", SCORE_WRONG: "score", SCORE_MISMATCH: "score",
    START_VALUES_WRONG: "",
}
_FIELDS = {
    ONE_MORE_ROUND_BROKEN: "stacks.C", DECISION_WRONG: "pending_decision",
    NO_LEGAL_ACTION: "pending_decision", CURRENT_PLAYER_WRONG: "current_player",
    MARKET_WRONG: "market", MARKET_SHAPE_WRONG: "market", UNUSED_SEAT_NOT_EMPTY: "players",
    PILE_WRONG: "stacks", CONFIG_WRONG: "config", FIRST_PLAYER_WRONG: "first_player",
    ROUND_WRONG: "round", COUNTER_WRONG: "placement_counter",
    SEQUENCE_WRONG: "placement_counter", PUBLIC_GOALS_WRONG: "public_goals",
    DALE_CANNOT_PLACE: "players[1].borough", PADDING_NOT_EMPTY: "state",
    PILE_POSITION_WRONG: "drawn", FINAL_ROUND_WRONG: "final_round", RNG_WRONG: "rng_state",
}


def describe_invariant_error(code: int) -> str:
    """The message of a code returned by `check_invariants` or `check_reachable`; 'ok'
    for 0."""
    if code == OK:
        return "ok"
    reason, detail = divmod(int(code), 100)
    if reason not in _MESSAGES:
        return f"unknown invariant code {code}"
    message = _MESSAGES[reason]
    if reason in _SEAT_REASONS:
        return f"seat {detail}: {message}"
    if reason in _KIND_REASONS:
        name = TILES.names[detail] if 0 <= detail < TILES.num_kinds else f"kind {detail}"
        return f"{name}: {message}"
    if reason in _BASIC_REASONS:
        return f"{c.BASIC_TILE_NAMES[detail]}: {message}"
    return message


def invariant_field(code: int) -> str:
    """The field of the state format (serialization.py) that a code points at, e.g.
    ``players[1].money`` or ``tiles.Farm``."""
    reason, detail = divmod(int(code), 100)
    if reason in _FIELDS:
        return _FIELDS[reason]
    if reason in _SEAT_FIELDS:
        field = _SEAT_FIELDS[reason]
        return f"players[{detail}]" + (f".{field}" if field else "")
    if reason in _SEAT_REASONS:
        return f"players[{detail}].borough"
    if reason == TILE_COUNT_BROKEN:
        return f"tiles.{TILES.names[detail]}" if 0 <= detail < TILES.num_kinds else "tiles"
    if reason == DRAWN_WRONG:
        return "drawn"
    if reason == DISCARDED_WRONG:
        return f"discarded.{TILES.names[detail]}" if 0 <= detail < TILES.num_kinds else "discarded"
    if reason in _BASIC_REASONS:
        return f"supply.{c.BASIC_NOTATION_NAMES[detail]}"
    return "state"


def invariant_message(code: int) -> str:
    """`describe_invariant_error` without the seat, which `invariant_field` names."""
    reason, detail = divmod(int(code), 100)
    if (reason in _SEAT_REASONS or reason in (TILE_COUNT_BROKEN, DISCARDED_WRONG)
            or reason in _BASIC_REASONS):
        return _MESSAGES[reason]
    return describe_invariant_error(code)


def invariant_error(code: int) -> StateFormatError:
    """The StateFormatError of a failed check: the field, then the rule broken."""
    return StateFormatError(f"{invariant_field(code)}: {invariant_message(code)}")


def validate_state(state, config=None) -> None:
    """Raise StateFormatError unless `state` is an int32 state vector that passes
    `check_invariants` (and, given a GameConfig, is a game of that configuration).

    The check every door by which an outside state enters the engine makes (Game.from_state,
    the loader, positions.py, hidden_information); compiled, a few microseconds. The
    message names the field of the state format at fault and the rule.
    """
    if (not isinstance(state, np.ndarray) or state.dtype != np.int32
            or state.shape != (s.STATE_SIZE,)):
        described = (f"an array of shape {state.shape} and dtype {state.dtype}"
                     if isinstance(state, np.ndarray) else type(state).__name__)
        raise StateFormatError(f"state: a game state is an int32 array of shape "
                               f"({s.STATE_SIZE},), not {described}")
    code = int(check_invariants(state, TILES.table))
    if code != OK:
        raise invariant_error(code)
    if config is not None:
        found = (int(state[s.NUM_PLAYERS]), int(state[s.MODE]), int(state[s.EDITION]),
                 bool(state[s.RANDOM_PRIVATE_GOALS]))
        expected = (config.seats, config.mode_id, config.edition_id,
                    bool(config.random_private_goals))
        if found != expected:
            raise StateFormatError(f"config: the state is a game of {found[0]} seats, mode "
                                   f"{c.MODE_NAMES[found[1]]!r}, edition "
                                   f"{c.EDITION_NAMES[found[2]]!r}, random private goals "
                                   f"{found[3]}; the configuration given is {config}")


def explain_finding(finding, state, shown=None) -> tuple[str, str]:
    """(field of the state format, message naming the rule and the value at fault) of a
    failed `check_reachable_at`; `shown(field, value)` prints a value as its document had
    it (default: the number)."""
    shown = shown or (lambda field, value: str(value))
    code, case, index, value, low, high = (int(x) for x in finding[:F_PLACES])
    reason, detail = divmod(code, 100)
    explain = _EXPLAIN.get((reason, case))
    if explain is None:
        return invariant_field(code), invariant_message(code)
    found = _Finding(state, detail, index, value, low, high, shown)
    found.places = [int(count) for count in finding[F_PLACES:F_PLACES + len(PLACES)]]
    return explain(found)


class _Finding:
    """What `explain_finding` reads of a finding, with the paths of the state format."""

    def __init__(self, state, detail, index, value, low, high, shown):
        self.state, self.detail, self.index = state, detail, index
        self.value, self.low, self.high, self._shown = value, low, high, shown

    def shown(self, field: str) -> str:
        return self._shown(field, self.value)

    def borough(self, player: int, position: int | None = None) -> str:
        path = f"players[{player}].borough"
        return path if position is None or position < 0 else f"{path}[{position}]"

    def position_of_cell(self, player: int, cell: int) -> int | None:
        count = min(int(s.tile_count(self.state, player)), NUM_CELLS)
        for position in range(max(count, 0)):
            if int(s.placed_cell(self.state, player, position)) == cell:
                return position
        return None

    def pile_path(self, position: int) -> str:
        """`drawn[i]` or `stacks.X[j]` of a pile position."""
        state = self.state
        drawn = int(state[s.PILE_POSITION])
        if position < drawn:
            return f"drawn[{position}]"
        ends = {"A": (0, int(state[s.PILE_A_END])),
                "B": (int(state[s.PILE_A_END]), int(state[s.PILE_B_END])),
                "C": (int(state[s.PILE_B_END]), int(state[s.PILE_END]))}
        for name, (start, end) in ends.items():
            if start <= position < end:
                return f"stacks.{name}[{position - max(start, drawn)}]"
        return "stacks"

    def first_dealt(self, goal: int) -> str:
        """Where a goal was first dealt: public goals, then each seat's drawn goals."""
        for index in range(c.MAX_PLAYERS):
            if int(s.public_goal(self.state, index)) == goal:
                return f"public_goals[{index}]"
        for player in range(int(self.state[s.NUM_PLAYERS])):
            for option in range(2):
                if int(s.goal_option(self.state, player, option)) == goal:
                    return f"players[{player}].goal_options[{option}]"
        return "public_goals"

    def sequence_owner(self, sequence: int) -> str:
        for player in range(int(self.state[s.NUM_PLAYERS])):
            for position in range(_NUM_STARTING, int(s.tile_count(self.state, player))):
                cell = int(s.placed_cell(self.state, player, position))
                if int(s.cell_sequence(self.state, player, cell)) == sequence:
                    return f"{self.borough(player, position)}.sequence"
        return "placement_counter"


def _range(field, why):
    """A value outside F_LOW..F_HIGH at `field` (a function of the finding)."""
    def explain(f):
        path = field(f)
        return path, f"{f.shown(path)} is outside {f.low}..{f.high} ({why})"
    return explain


def _fixed(field, message):
    return lambda f: (field(f), message(f))


def _seat(name):
    return lambda f: f"players[{f.detail}].{name}"


def _tile(kind: int) -> str:
    return TILES.names[kind] if 0 <= kind < TILES.num_kinds else f"kind {kind}"


def _goal(goal: int) -> str:
    return GOALS.names[goal] if 0 <= goal < NUM_GOALS else f"goal {goal}"


def _cell_path(f, suffix=""):
    position = f.position_of_cell(f.detail, f.index)
    return f.borough(f.detail, position) + (suffix if position is not None else "")


def _starting_tile(f):
    column, row = cell_coordinates(int(_STARTING_CELLS[f.index]))
    return (f.borough(f.detail, f.index),
            f"expected the starting {_tile(int(_BASIC_KINDS[f.index]))} at ({column}, {row}), "
            f"not a lake, sequence 0 (R2.3)")


def _not_adjacent(f):
    column, row = cell_coordinates(f.value)
    return (f.borough(f.detail, f.index),
            f"cell ({column}, {row}) is not connected: it is not next to an earlier tile in "
            f"placement order (R2.4)")


def _kept_goals(f):
    expected = "a kept goal" if f.low else "null (not chosen yet)"
    return (f"players[{f.detail}].private_goal",
            f"must be {expected}: goals are kept in turn order from the first player before "
            f"the first turn (R3.6)")


def _not_drawn(f):
    options = [_goal(int(g)) for g in s.goal_options(f.state, f.detail) if g >= 0]
    return (f"players[{f.detail}].private_goal",
            f"{_goal(f.value)!r} is not one of the goals this player drew "
            f"({', '.join(options) or 'none in this mode'}, R3.6)")


def _tile_count(f):
    places = ", ".join(f"{place} {count}" for place, count in zip(PLACES, f.places))
    return (f"tiles.{_tile(f.detail)}",
            f"{f.value} found ({places}), but tiles.csv has {f.low}: every physical tile "
            f"must be in exactly one place (R3.2, R3.5)")


def _bonus(f):
    if f.index == s.SCORE_PRIVATE_GOAL:
        return (f"players[{f.detail}].score.private_goal",
                f"{f.value}: the private goal bonus is {f.low} or 0 (R8.2)")
    index = f.index - s.SCORE_PUBLIC_GOALS
    return (f"players[{f.detail}].score.public_goals[{index}]",
            f"{f.value}: the bonus of {_goal(f.high)} is {f.low} or 0 (R8.2)")


_ENTRY_NAMES = {s.MONEY: "money", s.INCOME: "income", s.REPUTATION: "reputation",
                s.POPULATION: "population",
                s.SCORE_POPULATION_BEFORE_GOALS: "score.population_before_goals",
                s.SCORE_PRIVATE_GOAL: "score.private_goal",
                s.SCORE_MONEY_CONVERTED: "score.money_converted",
                s.SCORE_FINAL_POPULATION: "score.final_population"}


def _rescored(f):
    if f.index == s.SCORE_WINNER:
        return (f"players[{f.detail}].score.winner",
                f"must be {str(bool(f.low)).lower()}: the winners have the highest "
                f"population, then reputation, income and money (R8.3)")
    name = _ENTRY_NAMES.get(f.index)
    if name is None and s.SCORE_PUBLIC_GOALS <= f.index < s.SCORE_PRIVATE_GOAL:
        name = f"score.public_goals[{f.index - s.SCORE_PUBLIC_GOALS}]"
    return (f"players[{f.detail}].score",
            f"{_MESSAGES[SCORE_MISMATCH]}: {name or f'entry {f.index}'} is {f.value}, final "
            f"scoring gives {f.low}")


def _decision_name(f):
    return (c.DECISION_NAMES[f.value] if 0 <= f.value < len(c.DECISION_NAMES)
            else str(f.value))


def _decision_of_mode(f):
    if f.value == c.DECISION_REMOVE:
        return "pending_decision", "'remove' happens in Solitary Architect only (R9.1)"
    return ("pending_decision", f"{_decision_name(f)!r}: in this configuration nobody chooses "
                                f"a private goal (R3.6, R9)")


def _set_aside(f):
    if f.low:
        drawn = next(position for position in range(int(f.state[s.PILE_POSITION]))
                     if s.pile_tile(f.state, position) == TILES.one_more_round)
        return ("discarded", f"One More Round was drawn ({f.pile_path(drawn)}), so it is set "
                             f"aside with the discarded tiles (R4.3)")
    return ("tiles.One More Round", "One More Round is still in the stacks, so it is not "
                                    "set aside with the discarded tiles (R4.3)")


def _stack_name(stack: int) -> str:
    return c.STACK_NAMES[stack] if 0 <= stack < len(c.STACK_NAMES) else str(stack)


_LEVELS = "R1.2"
_EXPLAIN = {
    (FIRST_PLAYER_WRONG, CASE_RANGE): _range(lambda f: "first_player",
                                             "the first player is a seat, 0 in the solo "
                                             "modes, R3.6, R9.2"),
    (ROUND_WRONG, CASE_RANGE): _range(lambda f: "round", "the last round the stacks of this "
                                                         "configuration allow, R3.2, R3.3, "
                                                         "R4.3, R9"),
    (ROUND_WRONG, CASE_FINAL_ROUND): _fixed(
        lambda f: "final_round",
        lambda f: f"{f.shown('final_round')} is beyond round + 1 = {f.high}: One More Round "
                  f"makes the next round the last one (R4.3)"),
    (COUNTER_WRONG, CASE_RANGE): _range(lambda f: "placement_counter",
                                        "one number per free cell of every borough, R7.2"),
    (MONEY_NEGATIVE, CASE_RANGE): _range(_seat("money"), "R1.3"),
    (MONEY_TOO_LARGE, CASE_RANGE): _range(_seat("money"), "no game gives more, R1.3; "
                                                          "invariants.MONEY_BOUND"),
    (POPULATION_NEGATIVE, CASE_RANGE): _range(_seat("population"), "R1.3"),
    (POPULATION_TOO_LARGE, CASE_RANGE): _range(_seat("population"),
                                               "no game gives more, R1.3; "
                                               "invariants.POPULATION_BOUND"),
    (INCOME_OUT_OF_RANGE, CASE_RANGE): _range(_seat("income"), _LEVELS),
    (REPUTATION_OUT_OF_RANGE, CASE_RANGE): _range(_seat("reputation"), _LEVELS),
    (CELL_WRONG, CASE_KIND): _fixed(
        lambda f: _cell_path(f, ".tile"),
        lambda f: ("One More Round is never placed (R4.3)" if f.value == TILES.one_more_round
                   else f"{_tile(f.value)}: {_MESSAGES[CELL_WRONG]}")),
    (CELL_WRONG, CASE_SEQUENCE): _fixed(
        lambda f: _cell_path(f, ".sequence"),
        lambda f: f"{f.value} is outside "
                  f"{0 if (f.position_of_cell(f.detail, f.index) or 0) < _NUM_STARTING else 1}"
                  f"..{f.high} (placed tiles are numbered from 1 up to placement_counter - 1, "
                  f"R7.2)"),
    (ORDER_WRONG, CASE_ORDER): _fixed(
        lambda f: f"{f.borough(f.detail, f.index)}.sequence",
        lambda f: f"{f.value} comes after {f.low}: cells are listed in placement order (R7.2)"),
    (MARKERS_WRONG, CASE_RANGE): _range(_seat("markers_left"), "R3.4"),
    (MARKERS_WRONG, CASE_EXPECTED): _fixed(
        _seat("markers_left"),
        lambda f: f"{f.value}, but {c.START_MARKERS - f.low} tiles of the borough carry a "
                  f"marker: {f.low} are left of {c.START_MARKERS} (R3.4, R5.1d)"),
    (PUBLIC_GOALS_WRONG, CASE_COUNT): _fixed(
        lambda f: "public_goals",
        lambda f: f"holds {f.value} goals, but {c.MODE_NAMES[int(f.state[s.MODE])]} is played "
                  f"with {f.low} (R3.6, R9.1, R9.2)"),
    (PUBLIC_GOALS_WRONG, CASE_TWICE): _fixed(
        lambda f: f"public_goals[{f.index}]",
        lambda f: f"{_goal(f.value)!r} is already dealt as {f.first_dealt(f.value)} (each "
                  f"goal tile exists once, R3.6)"),
    (PUBLIC_GOALS_WRONG, CASE_DALE): _fixed(
        lambda f: f"public_goals[{f.index}]",
        lambda f: f"{_goal(f.value)!r} is about lakes or investment markers and is not played "
                  f"with Dale (R9.2)"),
    (GOALS_DEALT_WRONG, CASE_COUNT): _fixed(
        _seat("goal_options"),
        lambda f: f"must hold {f.low} entries, not {f.value}: two drawn goals for each player "
                  f"who draws, none for Dale or in Solitary Architect (R3.6, R9.1, R9.2)"),
    (GOALS_DEALT_WRONG, CASE_TWICE): _fixed(
        lambda f: f"players[{f.detail}].goal_options[{f.index}]",
        lambda f: f"{_goal(f.value)!r} is already dealt as {f.first_dealt(f.value)} (each "
                  f"goal tile exists once, R3.6)"),
    (GOALS_DEALT_WRONG, CASE_NOT_DRAWN): _not_drawn,
    (GOALS_KEPT_WRONG, CASE_EXPECTED): _kept_goals,
    (SCORE_WRONG, CASE_GAME_OVER): _fixed(_seat("score"),
                                          lambda f: "must be null until the game is over "
                                                    "(R8.2)"),
    (SCORE_WRONG, CASE_ENTRY): _bonus,
    (PILE_WRONG, CASE_POSITION): _fixed(
        lambda f: f.pile_path(f.index),
        lambda f: f"{_tile(f.value)!r} is not a tile of the {_stack_name(f.low)} stack, which "
                  f"this pile position belongs to (R3.2, R3.3, R9.2)"),
    (ONE_MORE_ROUND_BROKEN, CASE_TWICE): _fixed(
        lambda f: f.pile_path(f.index),
        lambda f: "a second One More Round; the game has one (R4.3)"),
    (ONE_MORE_ROUND_BROKEN, CASE_BLOCK): _fixed(
        lambda f: f.pile_path(f.index),
        lambda f: f"One More Round is at pile position {f.index}, outside the block "
                  f"{f.low}..{f.high} of C tiles it is shuffled into (R3.2, R3.3, R9.2)"),
    (ONE_MORE_ROUND_BROKEN, CASE_MISSING): _fixed(
        lambda f: "stacks.C",
        lambda f: "One More Round is neither in the stacks nor drawn (R3.2, R4.3)"),
    (ONE_MORE_ROUND_BROKEN, CASE_SET_ASIDE): _set_aside,
    (FINAL_ROUND_WRONG, CASE_EXPECTED): _fixed(
        lambda f: "final_round",
        lambda f: f"{'null' if f.value < 0 else f.shown('final_round')}, but One More Round "
                  f"{'has been drawn' if f.low else 'is still in the stacks'} (R4.3)"),
    (FINAL_ROUND_WRONG, CASE_GAME_OVER): _fixed(
        lambda f: "final_round",
        lambda f: f"{f.value}: the game ends after the final round, so at game over it "
                  f"equals round ({f.low}) (R4.3)"),
    (FINAL_ROUND_WRONG, CASE_DALE): _fixed(
        lambda f: "final_round",
        lambda f: f"{'null' if f.value < 0 else f.value}: with Dale, drawing One More Round "
                  f"at round start ends the game at once, so the game is over and "
                  f"final_round is round - 1 = {f.low} (R9.2)"),
    (MARKET_WRONG, CASE_KIND): _fixed(
        lambda f: f"market[{f.index}]",
        lambda f: f"{_tile(f.value)!r} cannot be in the market: it holds A, B and C tiles "
                  f"(R4.1)"),
    (MARKET_WRONG, CASE_DALE): _fixed(
        lambda f: f"market[{f.index}]",
        lambda f: f"the game with Dale uses slots {c.DALE_FIRST_SLOT}..{c.DALE_LAST_SLOT} only "
                  f"(R9.2); this slot must be null"),
    (SUPPLY_WRONG, CASE_RANGE): _range(lambda f: f"supply.{c.BASIC_NOTATION_NAMES[f.detail]}",
                                       "R3.5"),
    (TILE_COUNT_BROKEN, CASE_COUNT): _tile_count,
    (DECISION_WRONG, CASE_GAME_OVER): _fixed(
        lambda f: "pending_decision",
        lambda f: f"{_decision_name(f)!r} does not fit game_over {str(bool(f.low)).lower()} "
                  f"('none' exactly when the game is over)"),
    (DECISION_WRONG, CASE_MODE): _decision_of_mode,
    (DECISION_WRONG, CASE_ROUND): _fixed(
        lambda f: "pending_decision",
        lambda f: f"'keep_goal': goals are kept before the first turn (R3.6), but round is "
                  f"{f.low}"),
    (CURRENT_PLAYER_WRONG, CASE_GAME_OVER): _fixed(
        lambda f: "current_player",
        lambda f: f"must be null when the game is over, not {f.shown('current_player')}"),
    (CURRENT_PLAYER_WRONG, CASE_RANGE): _range(lambda f: "current_player",
                                               "a seat decides while the game goes on"),
    (CURRENT_PLAYER_WRONG, CASE_DALE): _fixed(
        lambda f: "current_player",
        lambda f: f"{f.value} is Dale, who takes no decision: only seat 0 decides (R9.2)"),
    (STARTING_TILES_WRONG, CASE_POSITION): _starting_tile,
    (STARTING_TILES_WRONG, CASE_COUNT): _fixed(
        lambda f: f.borough(f.detail),
        lambda f: f"holds {f.value} cells; the starting tiles alone are {f.low} (R2.3)"),
    (ADJACENCY_WRONG, CASE_POSITION): _not_adjacent,
    (LAKE_SOURCE_WRONG, CASE_POSITION): _fixed(
        lambda f: f"{f.borough(f.detail, f.index)}.lake",
        lambda f: f"a lake is a market tile turned face down (R5.1c); {_tile(f.value)!r} "
                  f"never is in the market"),
    (SEQUENCE_WRONG, CASE_RANGE): _fixed(
        lambda f: f"{f.borough(f.high, f.index)}.sequence",
        lambda f: f"{f.value} is outside 1..{int(f.state[s.PLACEMENT_COUNTER]) - 1} (placed "
                  f"tiles are numbered from 1 up to placement_counter - 1, R7.2)"),
    (SEQUENCE_WRONG, CASE_TWICE): _fixed(
        lambda f: f"{f.borough(f.high, f.index)}.sequence",
        lambda f: f"{f.value} is also the number of {f.sequence_owner(f.value)} (R7.2)"),
    (SEQUENCE_WRONG, CASE_MISSING): _fixed(
        lambda f: "placement_counter",
        lambda f: f"{f.value}, but no tile has placement number {f.low} (every placement takes "
                  f"the next number, R7.2)"),
    (SCORE_MISMATCH, CASE_EXPECTED): _fixed(
        lambda f: f"players[{f.detail}].score.final_population",
        lambda f: f"{f.value} differs from the population {f.low} (R8.2)"),
    (SCORE_MISMATCH, CASE_SUM): _fixed(
        lambda f: f"players[{f.detail}].score.final_population",
        lambda f: f"{f.value} is not population_before_goals + goal bonuses + money_converted "
                  f"= {f.low} (R8.2)"),
    (SCORE_MISMATCH, CASE_MONEY_LEFT): _fixed(
        _seat("money"),
        lambda f: f"{f.value} left after final scoring, where each $5 became 1 population "
                  f"(R8.2)"),
    (SCORE_MISMATCH, CASE_ENTRY): _rescored,
}


def check_reachable_or_raise(state, shown=None) -> None:
    """Raise StateFormatError naming the field and the rule unless `check_reachable`
    passes; `shown` as for `explain_finding`."""
    finding = np.zeros(FINDING_SIZE, dtype=np.int64)
    if int(check_reachable_at(state, TILES.table, finding)) != OK:
        field, message = explain_finding(finding, state, shown)
        raise StateFormatError(f"{field}: {message}")


# check_invariants --------------------------------------------------------------------------

@njit(cache=True)
def _error(reason, detail):
    return reason * 100 + detail


@njit(cache=True)
def _is_lettered(tiles, kind):
    """A kind of the A, B or C stacks (never a basic tile, the lake or One More Round)."""
    return 0 <= kind < s.lake_kind(tiles) and tile_stack(tiles, kind) != c.STACK_BASIC


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



@njit(cache=True)
def _check_decision_kind(state, reachable, finding):
    """The pending decision against game over, the mode and the round, and the current
    player against the seats; scalars only, so it runs before any entry is used as an
    index (R3.6, R5.1, R9.1, R9.2)."""
    over = state[s.GAME_OVER]
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    mode = state[s.MODE]
    if over != 0:
        if over != 1:
            return _error(DECISION_WRONG, 0)
        if decision != c.DECISION_NONE:
            return _found(finding, DECISION_WRONG, 0, CASE_GAME_OVER, -1, decision, 1, 0)
        if player != -1:
            return _found(finding, CURRENT_PLAYER_WRONG, 0, CASE_GAME_OVER, -1, player, 0, 0)
        return OK
    if decision == c.DECISION_NONE:
        return _found(finding, DECISION_WRONG, 0, CASE_GAME_OVER, -1, decision, 0, 0)
    if decision < c.DECISION_NONE or decision > c.DECISION_REMOVE:
        return _found(finding, DECISION_WRONG, 0, CASE_RANGE, -1, decision, 1,
                      c.DECISION_REMOVE)
    if decision == c.DECISION_KEEP_GOAL and (
            mode == c.MODE_SOLITARY or (reachable and state[s.RANDOM_PRIVATE_GOALS])):
        return _found(finding, DECISION_WRONG, 0, CASE_MODE, -1, decision, 0, 0)
    if decision == c.DECISION_REMOVE and mode != c.MODE_SOLITARY:
        return _found(finding, DECISION_WRONG, 0, CASE_MODE, -1, decision, 0, 0)
    if reachable and decision == c.DECISION_KEEP_GOAL and state[s.ROUND] != 0:
        return _found(finding, DECISION_WRONG, 0, CASE_ROUND, -1, decision, state[s.ROUND], 0)
    if player < 0 or player >= state[s.NUM_PLAYERS]:
        return _found(finding, CURRENT_PLAYER_WRONG, 0, CASE_RANGE, -1, player, 0,
                      state[s.NUM_PLAYERS] - 1)
    if mode == c.MODE_DALE and player != 0:  # Dale never waits for a decision (R9.2)
        return _found(finding, CURRENT_PLAYER_WRONG, 0, CASE_DALE, -1, player, 0, 0)
    return OK



@njit(cache=True)
def _goal_options_held(state, player):
    return (1 if s.goal_option(state, player, 0) >= 0 else 0) + (
        1 if s.goal_option(state, player, 1) >= 0 else 0)



@njit(cache=True)
def _check_pile_order(state, tiles, finding):
    """The stack bounds of the configuration (R3.2, R3.3, R9.2), each pile position a tile
    of its stack, One More Round once, inside the block it is shuffled into."""
    one_more_round = s.one_more_round_kind(tiles)
    sizes = stack_sizes(state[s.NUM_PLAYERS], state[s.MODE], state[s.EDITION])
    a_end = sizes[0]
    b_end = a_end + sizes[1]
    block_start = b_end + sizes[2]
    block_stop = block_start + sizes[3] + 1
    end = block_stop + sizes[4]
    if (state[s.PILE_A_END] != a_end or state[s.PILE_B_END] != b_end
            or state[s.PILE_END] != end or state[s.PILE_POSITION] < 0
            or state[s.PILE_POSITION] > end):
        return _error(PILE_WRONG, 0)
    found = 0
    for position in range(end):
        kind = s.pile_tile(state, position)
        if kind == one_more_round:
            if found:
                return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_TWICE, position, kind,
                              0, 0)
            if position < block_start or position >= block_stop:
                return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_BLOCK, position, kind,
                              block_start, block_stop - 1)
            found += 1
            continue
        stack = c.STACK_A if position < a_end else (c.STACK_B if position < b_end else c.STACK_C)
        if not _is_lettered(tiles, kind) or tile_stack(tiles, kind) != stack:
            return _found(finding, PILE_WRONG, 0, CASE_POSITION, position, kind, stack, 0)
    if found != 1:
        return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_MISSING, -1, 0, 0, 0)
    for position in range(end, s.PILE_CAPACITY):
        if s.pile_tile(state, position) != 0:
            return _error(PADDING_NOT_EMPTY, 0)
    return OK



@njit(cache=True)
def _check_one_more_round_aside(state, tiles, finding):
    """One More Round set aside exactly when drawn, never boxed (R4.3); drawing it sets
    the final round (R4.3, R9.1), with Dale it ends the game at once (R9.2)."""
    one_more_round = s.one_more_round_kind(tiles)
    drawn = False
    for position in range(state[s.PILE_POSITION]):
        if s.pile_tile(state, position) == one_more_round:
            drawn = True
    if s.discarded(state, one_more_round) != (1 if drawn else 0):
        return _found(finding, ONE_MORE_ROUND_BROKEN, 0, CASE_SET_ASIDE, -1,
                      s.discarded(state, one_more_round), 1 if drawn else 0, 0)
    # One More Round (one copy) is never in the market or a borough (checked before) nor
    # left in the box: it is in the undrawn stacks or set aside, exactly once (R4.3).
    if s.boxed(state, one_more_round) != 0:
        return _error(ONE_MORE_ROUND_BROKEN, 0)
    # Without this a game whose One More Round is gone would never end.
    if drawn != (state[s.FINAL_ROUND] >= 0):
        return _found(finding, FINAL_ROUND_WRONG, 0, CASE_EXPECTED, -1, state[s.FINAL_ROUND],
                      1 if drawn else 0, 0)
    if drawn and state[s.MODE] == c.MODE_DALE and state[s.GAME_OVER] == 0:
        return _found(finding, FINAL_ROUND_WRONG, 0, CASE_DALE, -1, state[s.FINAL_ROUND],
                      state[s.ROUND] - 1, 0)
    return OK



@njit(cache=True)
def _count_places(state, tiles, kind, finding):
    """The copies of `kind` in each of PLACES, into finding[F_PLACES:]."""
    for index in range(len(PLACES)):
        finding[F_PLACES + index] = 0
    for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
        if s.pile_tile(state, position) == kind:
            finding[F_PLACES] += 1
    for slot in range(c.NUM_SLOTS):
        if s.market_slot(state, slot) == kind:
            finding[F_PLACES + 1] += 1
    for basic in range(3):
        if _BASIC_KINDS[basic] == kind:
            finding[F_PLACES + 2] += s.supply(state, basic)
    for player in range(state[s.NUM_PLAYERS]):
        for cell in range(NUM_CELLS):
            if s.cell_kind(state, player, cell) == kind:
                finding[F_PLACES + 3] += 1
    finding[F_PLACES + 4] = s.discarded(state, kind)
    finding[F_PLACES + 5] = s.boxed(state, kind)



@njit(cache=True)
def _check_sequences(state, finding):
    """Placement numbers 1 .. counter - 1, each once (R7.2)."""
    counter = state[s.PLACEMENT_COUNTER]
    numbered = np.zeros(counter, dtype=np.bool_)
    placed = 0
    for player in range(state[s.NUM_PLAYERS]):
        for position in range(_NUM_STARTING, s.tile_count(state, player)):
            sequence = s.cell_sequence(state, player, s.placed_cell(state, player, position))
            if sequence < 1:
                return _found(finding, SEQUENCE_WRONG, 0, CASE_RANGE, position, sequence, 1,
                              player)
            if numbered[sequence]:
                return _found(finding, SEQUENCE_WRONG, 0, CASE_TWICE, position, sequence, 0,
                              player)
            numbered[sequence] = True
            placed += 1
    if placed != counter - 1:
        missing = 1
        while missing < counter - 1 and numbered[missing]:
            missing += 1
        return _found(finding, SEQUENCE_WRONG, 0, CASE_MISSING, -1, counter, missing, 0)
    return OK



@njit(cache=True)
def check_reachable_at(state, tiles, finding):
    """`check_reachable`, filling `finding` (int64[FINDING_SIZE]) with where it failed:
    `explain_finding` turns it into the field of the state format and the rule."""
    finding[:] = 0
    finding[F_INDEX] = -1
    code = _check_state(state, tiles, True, True, finding)
    if code == OK:
        code = _check_generator_and_discards(state, tiles)
    if code == OK:
        code = _check_progress(state, tiles, finding)
    if code == OK:
        code = _check_drawn(state, tiles)
    if code == OK:
        code = _check_market_shape(state, tiles)
    if code == OK:
        code = _check_players_turns(state)
    if code == OK:
        code = _check_scores(state, tiles, finding)
    if code != OK and finding[F_CODE] != code:  # a check that records no more than its code
        finding[:] = 0
        finding[F_CODE] = code
        finding[F_INDEX] = -1
    return code



@njit(cache=True)
def _check_header(state, entry, finding):
    num_players = state[s.NUM_PLAYERS]
    mode = state[s.MODE]
    edition = state[s.EDITION]
    if (mode < 0 or mode > c.MODE_DALE or edition < 0 or edition > c.EDITION_FIRST
            or state[s.RANDOM_PRIVATE_GOALS] < 0 or state[s.RANDOM_PRIVATE_GOALS] > 1):
        return _error(CONFIG_WRONG, 0)
    if mode == c.MODE_STANDARD:
        if num_players < 2 or num_players > c.MAX_PLAYERS:
            return _error(CONFIG_WRONG, 0)
    elif num_players != (1 if mode == c.MODE_SOLITARY else 2):
        return _error(CONFIG_WRONG, 0)
    first = state[s.FIRST_PLAYER]
    last_first = num_players - 1 if mode == c.MODE_STANDARD else 0
    if first < 0 or first > last_first:
        return _found(finding, FIRST_PLAYER_WRONG, 0, CASE_RANGE, -1, first, 0, last_first)
    current_round = state[s.ROUND]
    highest = last_round(num_players, mode, edition) if entry else HEADROOM
    if current_round < 0 or current_round > highest:
        return _found(finding, ROUND_WRONG, 0, CASE_RANGE, -1, current_round, 0, highest)
    final_round = state[s.FINAL_ROUND]
    if final_round < -1 or final_round > current_round + 1:
        return _found(finding, ROUND_WRONG, 0, CASE_FINAL_ROUND, -1, final_round, -1,
                      current_round + 1)
    counter = state[s.PLACEMENT_COUNTER]
    most = 1 + num_players * (NUM_CELLS - 3) if entry else HEADROOM
    if counter < 1 or counter > most:
        return _found(finding, COUNTER_WRONG, 0, CASE_RANGE, -1, counter, 1, most)
    return OK


@njit(cache=True)
def _check_values(state, player, entry, finding):
    money = s.money(state, player)
    most_money = MONEY_BOUND if entry else HEADROOM
    if money < 0:
        return _found(finding, MONEY_NEGATIVE, player, CASE_RANGE, -1, money, 0, most_money)
    if money > most_money:
        return _found(finding, MONEY_TOO_LARGE, player, CASE_RANGE, -1, money, 0, most_money)
    population = s.population(state, player)
    most_population = POPULATION_BOUND if entry else HEADROOM
    if population < 0:
        return _found(finding, POPULATION_NEGATIVE, player, CASE_RANGE, -1, population, 0,
                      most_population)
    if population > most_population:
        return _found(finding, POPULATION_TOO_LARGE, player, CASE_RANGE, -1, population, 0,
                      most_population)
    income = s.income(state, player)
    if income < c.LEVEL_MIN or income > c.LEVEL_MAX:
        return _found(finding, INCOME_OUT_OF_RANGE, player, CASE_RANGE, -1, income,
                      c.LEVEL_MIN, c.LEVEL_MAX)
    reputation = s.reputation(state, player)
    if reputation < c.LEVEL_MIN or reputation > c.LEVEL_MAX:
        return _found(finding, REPUTATION_OUT_OF_RANGE, player, CASE_RANGE, -1, reputation,
                      c.LEVEL_MIN, c.LEVEL_MAX)
    return OK


@njit(cache=True)
def _check_cells(state, tiles, player, finding):
    """Each cell: -1 or a kind of tiles.csv, known flag bits, a placement number below the
    counter (0 when empty)."""
    lake = s.lake_kind(tiles)
    for cell in range(NUM_CELLS):
        kind = s.cell_kind(state, player, cell)
        sequence = s.cell_sequence(state, player, cell)
        if kind < -1 or kind >= lake or s.cell_flags(state, player, cell) & ~_VALID_FLAGS:
            return _found(finding, CELL_WRONG, player, CASE_KIND, cell, kind, 0, 0)
        if kind < 0 and sequence != 0:
            return _error(CELL_WRONG, player)
        if kind >= 0 and (sequence < 0 or sequence >= state[s.PLACEMENT_COUNTER]):
            return _found(finding, CELL_WRONG, player, CASE_SEQUENCE, cell, sequence, 0,
                          state[s.PLACEMENT_COUNTER] - 1)
    return OK


@njit(cache=True)
def _check_borough(state, tiles, player, finding):
    """Derived counts, placement order, placeable flags and markers of one borough."""
    occupied = 0
    lakes = 0
    invested = 0
    features = np.zeros(c.NUM_FEATURES, dtype=np.int64)
    for cell in range(NUM_CELLS):
        kind = s.cell_kind(state, player, cell)
        flags = s.cell_flags(state, player, cell)
        if kind < 0:
            if flags & (s.FLAG_LAKE | s.FLAG_INVESTED):
                return _error(CELL_FLAGS_WRONG, player)
            next_to_tile = False
            for index in range(6):
                neighbour = NEIGHBOURS[cell, index]
                if neighbour >= 0 and s.cell_kind(state, player, neighbour) >= 0:
                    next_to_tile = True
            if next_to_tile != (flags & s.FLAG_PLACEABLE != 0):
                return _error(PLACEABLE_WRONG, player)
            continue
        if flags & s.FLAG_PLACEABLE:
            return _error(PLACEABLE_WRONG, player)
        occupied += 1
        if flags & s.FLAG_INVESTED:
            invested += 1
        if flags & s.FLAG_LAKE:
            lakes += 1
        else:
            for feature in range(c.NUM_FEATURES):
                if tile_features(tiles, kind) & (1 << feature):
                    features[feature] += 1
    if s.tile_count(state, player) != occupied:
        return _error(TILE_COUNT_WRONG, player)
    if s.lake_count(state, player) != lakes:
        return _error(LAKE_COUNT_WRONG, player)
    for feature in range(c.NUM_FEATURES):
        if s.feature_count(state, player, feature) != features[feature]:
            return _error(FEATURE_COUNT_WRONG, player)
    listed = np.zeros(NUM_CELLS, dtype=np.bool_)
    previous_sequence = -1
    for position in range(occupied):
        cell = s.placed_cell(state, player, position)
        if cell < 0 or cell >= NUM_CELLS or listed[cell] or s.cell_kind(state, player, cell) < 0:
            return _error(ORDER_WRONG, player)
        listed[cell] = True
        sequence = s.cell_sequence(state, player, cell)
        if sequence >= state[s.PLACEMENT_COUNTER]:
            return _error(ORDER_WRONG, player)
        if sequence < previous_sequence:
            return _found(finding, ORDER_WRONG, player, CASE_ORDER, position, sequence,
                          previous_sequence, 0)
        previous_sequence = sequence
    for position in range(occupied, NUM_CELLS):
        if s.placed_cell(state, player, position) != 0:
            return _error(ORDER_WRONG, player)
    markers = s.markers_left(state, player)
    if markers < 0 or markers > c.START_MARKERS:
        return _found(finding, MARKERS_WRONG, player, CASE_RANGE, -1, markers, 0,
                      c.START_MARKERS)
    if markers != c.START_MARKERS - invested:
        return _found(finding, MARKERS_WRONG, player, CASE_EXPECTED, -1, markers,
                      c.START_MARKERS - invested, 0)
    return OK


@njit(cache=True)
def _draws_goals(mode, player):
    """Every player draws two goals in standard, the player (not Dale) with Dale, nobody in
    Solitary Architect (R3.6, R9.1, R9.2)."""
    return mode == c.MODE_STANDARD or (mode == c.MODE_DALE and player == 0)


@njit(cache=True)
def _public_goal_count(state):
    """As many as players in standard, 3 with Dale, none in Solitary Architect (R3.6, R9)."""
    mode = state[s.MODE]
    return state[s.NUM_PLAYERS] if mode == c.MODE_STANDARD else (
        3 if mode == c.MODE_DALE else 0)


@njit(cache=True)
def _check_goals(state, finding):
    """Public goals, each seat's private goal and drawn goals: -1 or goals (both drawn
    goals or neither). How many public goals, which seats draw and that no goal is dealt
    twice is for `check_reachable`: hand-made positions may set any goals (tests of R8.2)."""
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if goal < -1 or goal >= NUM_GOALS:
            return _found(finding, PUBLIC_GOALS_WRONG, 0, CASE_RANGE, index, goal, -1,
                          NUM_GOALS - 1)
    for player in range(state[s.NUM_PLAYERS]):
        for goal in (s.private_goal(state, player), s.goal_option(state, player, 0),
                     s.goal_option(state, player, 1)):
            if goal < -1 or goal >= NUM_GOALS:
                return _error(GOALS_WRONG, player)
        if (s.goal_option(state, player, 0) < 0) != (s.goal_option(state, player, 1) < 0):
            return _error(GOALS_WRONG, player)
    return OK


@njit(cache=True)
def _check_goals_dealt(state, finding):
    """Two drawn goals for each seat that draws, none for the others, the private goal -1
    or one of them, no goal dealt twice (R3.6, R9.1, R9.2)."""
    mode = state[s.MODE]
    dealt = np.zeros(NUM_GOALS, dtype=np.bool_)
    public = _public_goal_count(state)
    held = 0
    for index in range(c.MAX_PLAYERS):
        if s.public_goal(state, index) >= 0:
            held += 1
    if held != public:
        return _found(finding, PUBLIC_GOALS_WRONG, 0, CASE_COUNT, -1, held, public, 0)
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if index >= public:
            if goal != -1:
                return _error(PUBLIC_GOALS_WRONG, 0)
            continue
        if goal < 0:
            return _error(PUBLIC_GOALS_WRONG, 0)
        if dealt[goal]:
            return _found(finding, PUBLIC_GOALS_WRONG, 0, CASE_TWICE, index, goal, 0, 0)
        if mode == c.MODE_DALE and goal_excluded_with_dale(_GOAL_TABLE, goal):
            return _found(finding, PUBLIC_GOALS_WRONG, 0, CASE_DALE, index, goal, 0, 0)
        dealt[goal] = True
    for player in range(state[s.NUM_PLAYERS]):
        private = s.private_goal(state, player)
        draws = _draws_goals(mode, player)
        held = _goal_options_held(state, player)
        if held != (2 if draws else 0):
            return _found(finding, GOALS_DEALT_WRONG, player, CASE_COUNT, -1, held,
                          2 if draws else 0, 0)
        for option in range(held):
            goal = s.goal_option(state, player, option)
            if dealt[goal]:
                return _found(finding, GOALS_DEALT_WRONG, player, CASE_TWICE, option, goal,
                              0, 0)
            dealt[goal] = True
        if private != -1 and private != s.goal_option(state, player, 0) and (
                private != s.goal_option(state, player, 1) or not draws):
            return _found(finding, GOALS_DEALT_WRONG, player, CASE_NOT_DRAWN, -1, private, 0,
                          0)
    return _check_goals_kept(state, finding)


@njit(cache=True)
def _check_goals_kept(state, finding):
    """Goals are kept in turn order from the first player before the first turn, by the
    players who draw (R3.6, R9.2)."""
    mode = state[s.MODE]
    if mode == c.MODE_SOLITARY:
        return OK
    num_players = state[s.NUM_PLAYERS]
    choosing = state[s.GAME_OVER] == 0 and state[s.PENDING_DECISION] == c.DECISION_KEEP_GOAL
    first = state[s.FIRST_PLAYER]
    drawers = num_players if mode == c.MODE_STANDARD else 1
    kept = (state[s.CURRENT_PLAYER] - first) % num_players if choosing else drawers
    for offset in range(drawers):
        player = (first + offset) % num_players
        has_goal = s.private_goal(state, player) >= 0
        if has_goal != (offset < kept):
            return _found(finding, GOALS_KEPT_WRONG, player, CASE_EXPECTED, -1,
                          s.private_goal(state, player), 1 if offset < kept else 0, 0)
    return OK


@njit(cache=True)
def _check_generator_and_discards(state, tiles):
    """The generator never holds four zero words (xoshiro128** never reaches them, rng.py);
    only market tiles and One More Round are ever discarded (R4.3, R5.1, R9.2)."""
    if (s.rng_word(state, 0) == 0 and s.rng_word(state, 1) == 0
            and s.rng_word(state, 2) == 0 and s.rng_word(state, 3) == 0):
        return _error(RNG_WRONG, 0)
    for kind in range(s.one_more_round_kind(tiles)):
        if s.discarded(state, kind) != 0 and not _is_lettered(tiles, kind):
            return _error(DISCARDED_WRONG, kind)
    return OK


@njit(cache=True)
def _check_score_block(state, player, entry, finding):
    """All 0 until the game is over; then values final scoring can give (R8.2)."""
    if state[s.GAME_OVER] == 0:
        for index in range(_SCORE_ENTRIES):
            if s.player_entry(state, player, s.SCORE + index) != 0:
                return _found(finding, SCORE_WRONG, player, CASE_GAME_OVER, -1, 0, 0, 0)
        return OK
    for field in (s.SCORE_POPULATION_BEFORE_GOALS, s.SCORE_FINAL_POPULATION):
        value = s.score_entry(state, player, field)
        if value < 0 or value > (POPULATION_BOUND if entry else HEADROOM):
            return _error(SCORE_WRONG, player)
    converted = s.score_entry(state, player, s.SCORE_MONEY_CONVERTED)
    if converted < 0 or converted > (MONEY_BOUND if entry else HEADROOM) // 5:
        return _error(SCORE_WRONG, player)
    winner = s.score_entry(state, player, s.SCORE_WINNER)
    if winner != 0 and winner != 1:
        return _error(SCORE_WRONG, player)
    for index in range(c.MAX_PLAYERS):
        bonus = s.public_goal_bonus(state, player, index)
        goal = s.public_goal(state, index)
        if bonus != 0 and (goal < 0 or bonus != public_goal_bonus(_GOAL_TABLE, goal)):
            allowed = public_goal_bonus(_GOAL_TABLE, goal) if goal >= 0 else 0
            return _found(finding, SCORE_WRONG, player, CASE_ENTRY,
                          s.SCORE_PUBLIC_GOALS + index, bonus, allowed, goal)
    bonus = s.score_entry(state, player, s.SCORE_PRIVATE_GOAL)
    goal = s.private_goal(state, player)
    if bonus != 0 and (goal < 0 or bonus != private_goal_bonus(_GOAL_TABLE, goal)):
        allowed = private_goal_bonus(_GOAL_TABLE, goal) if goal >= 0 else 0
        return _found(finding, SCORE_WRONG, player, CASE_ENTRY, s.SCORE_PRIVATE_GOAL, bonus,
                      allowed, goal)
    return OK


@njit(cache=True)
def _unused_seat_is_empty(state, player):
    """A seat beyond the player count holds what new_game leaves there."""
    for offset in range(s.PLAYER_STRIDE):
        expected = 0
        if s.CELL_KIND <= offset < s.CELL_KIND + NUM_CELLS or (
                s.PRIVATE_GOAL <= offset < s.GOAL_OPTIONS + 2):
            expected = -1
        if s.player_entry(state, player, offset) != expected:
            return False
    return True


@njit(cache=True)
def _check_tiles(state, tiles, num_players, finding):
    """Each physical tile in exactly one place (R3.2, R3.5, R4.3)."""
    num_kinds = tiles.shape[0]
    if not (0 <= state[s.PILE_A_END] <= state[s.PILE_B_END] <= state[s.PILE_END]
            <= s.PILE_CAPACITY and 0 <= state[s.PILE_POSITION] <= state[s.PILE_END]):
        return _error(PILE_WRONG, 0)
    code = _check_pile_order(state, tiles, finding)
    if code != OK:
        return code
    places = np.zeros(num_kinds, dtype=np.int64)
    for position in range(state[s.PILE_POSITION], state[s.PILE_END]):
        places[s.pile_tile(state, position)] += 1
    for slot in range(c.NUM_SLOTS):
        kind = s.market_slot(state, slot)
        if kind == -1:
            continue
        if not _is_lettered(tiles, kind):
            return _found(finding, MARKET_WRONG, 0, CASE_KIND, slot, kind, 0, 0)
        if state[s.MODE] == c.MODE_DALE and (slot < c.DALE_FIRST_SLOT
                                             or slot > c.DALE_LAST_SLOT):
            return _found(finding, MARKET_WRONG, 0, CASE_DALE, slot, kind, 0, 0)
        places[kind] += 1
    for basic in range(3):
        if s.supply(state, basic) < 0 or s.supply(state, basic) > c.BASIC_SUPPLY_PER_KIND:
            return _found(finding, SUPPLY_WRONG, basic, CASE_RANGE, -1, s.supply(state, basic),
                          0, c.BASIC_SUPPLY_PER_KIND)
    for player in range(num_players):
        for cell in range(NUM_CELLS):
            kind = s.cell_kind(state, player, cell)
            if kind >= 0:
                places[kind] += 1
    for basic in range(3):
        places[_BASIC_KINDS[basic]] += s.supply(state, basic)
    for kind in range(num_kinds):
        if s.discarded(state, kind) < 0 or s.boxed(state, kind) < 0:
            return _error(TILE_COUNT_BROKEN, kind)
        places[kind] += s.discarded(state, kind) + s.boxed(state, kind)
        if places[kind] != tile_copies(tiles, kind):
            _count_places(state, tiles, kind, finding)
            return _found(finding, TILE_COUNT_BROKEN, kind, CASE_COUNT, -1, places[kind],
                          tile_copies(tiles, kind), 0)
    for kind in range(num_kinds, s.MAX_KINDS):
        if s.discarded(state, kind) != 0 or s.boxed(state, kind) != 0:
            return _error(PADDING_NOT_EMPTY, 0)
    return _check_one_more_round_aside(state, tiles, finding)


@njit(cache=True)
def _premium_payable(state, player):
    """Some occupied slot of the mode's market has a premium the player can pay."""
    dale = state[s.MODE] == c.MODE_DALE
    first = c.DALE_FIRST_SLOT if dale else 0
    last = c.DALE_LAST_SLOT if dale else c.NUM_SLOTS - 1
    money = s.money(state, player)
    for slot in range(first, last + 1):
        if s.market_slot(state, slot) >= 0 and money >= c.SLOT_PREMIUMS[slot]:
            return True
    return False


@njit(cache=True)
def _check_decision(state, num_players, finding):
    """The pending decision has a legal action (its kind and the current player are
    `_check_decision_kind`'s): R3.6, R5.1b, d, R9.1, R9.2."""
    if state[s.GAME_OVER] != 0:
        return OK
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    if decision == c.DECISION_KEEP_GOAL:
        if s.goal_option(state, player, 0) < 0:
            return _error(NO_LEGAL_ACTION, 0)
        # The engine asks each later seat with drawn goals in turn until the first player
        # (turn.py); none of them may have kept a goal already, or play would reach a
        # second choice of the same player (R3.6).
        first = state[s.FIRST_PLAYER]
        for offset in range((player - first) % num_players, num_players):
            seat = (first + offset) % num_players
            if s.goal_option(state, seat, 0) >= 0 and s.private_goal(state, seat) >= 0:
                return _found(finding, GOALS_KEPT_WRONG, seat, CASE_EXPECTED, -1,
                              s.private_goal(state, seat), 0, 0)
    if (decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE) and (
            not _premium_payable(state, player)):
        return _error(NO_LEGAL_ACTION, 0)
    if state[s.MODE] == c.MODE_DALE:
        for cell in range(NUM_CELLS):
            if s.is_placeable(state, c.DALE_SEAT, cell):
                return OK
        return _error(DALE_CANNOT_PLACE, 0)
    return OK


@njit(cache=True)
def check_invariants(state, tiles):
    """0 when `state` may enter the engine, else `reason * 100 + detail` (module
    docstring)."""
    return _check_state(state, tiles, True, False, np.empty(FINDING_SIZE, dtype=np.int64))


@njit(cache=True)
def check_consistency(state, tiles):
    """`check_invariants` with HEADROOM for the bounds of money, population, round and
    placement counter: what play keeps from any state that entered (module docstring)."""
    return _check_state(state, tiles, False, False, np.empty(FINDING_SIZE, dtype=np.int64))


@njit(cache=True)
def _check_state(state, tiles, entry, reachable, finding):
    """`check_invariants` (entry) or `check_consistency`; with `reachable`, the checks of
    `check_reachable` that must come before the derived counts are trusted are made in
    the order of the state format (the starting tiles and each later tile's place before
    the tiles are counted), so that a failure names the entry at fault first."""
    code = _check_header(state, entry, finding)
    if code != OK:
        return code
    code = _check_goals(state, finding)  # before the score blocks index the goal table by them
    if code != OK:
        return code
    code = _check_decision_kind(state, reachable, finding)
    if code != OK:
        return code
    if reachable:
        code = _check_goals_dealt(state, finding)
        if code != OK:
            return code
    num_players = state[s.NUM_PLAYERS]
    for player in range(c.MAX_PLAYERS):
        if player >= num_players:
            if not _unused_seat_is_empty(state, player):
                return _error(UNUSED_SEAT_NOT_EMPTY, player)
            continue
        code = _check_values(state, player, entry, finding)
        if code != OK:
            return code
        code = _check_cells(state, tiles, player, finding)
        if code != OK:
            return code
        if reachable:
            code = _check_starting_tiles(state, player, finding)
            if code != OK:
                return code
        code = _check_borough(state, tiles, player, finding)
        if code != OK:
            return code
        if reachable:
            code = _check_placements(state, tiles, player, finding)
            if code != OK:
                return code
        code = _check_score_block(state, player, entry, finding)
        if code != OK:
            return code
    if reachable:
        code = _check_sequences(state, finding)
        if code != OK:
            return code
    code = _check_tiles(state, tiles, num_players, finding)
    if code != OK:
        return code
    return _check_decision(state, num_players, finding)


# check_reachable ---------------------------------------------------------------------------

@njit(cache=True)
def _one_more_round_position(state, tiles):
    one_more_round = s.one_more_round_kind(tiles)
    for position in range(state[s.PILE_END]):
        if s.pile_tile(state, position) == one_more_round:
            return position
    return -1


@njit(cache=True)
def _turns_completed(state):
    """Turns finished since the first turn (standard and Solitary Architect): the round's
    turns from the first player, and every turn at game over (R1.5)."""
    num_players = state[s.NUM_PLAYERS]
    if state[s.GAME_OVER]:
        return (state[s.ROUND] + 1) * num_players
    if state[s.PENDING_DECISION] == c.DECISION_KEEP_GOAL:
        return 0
    offset = (state[s.CURRENT_PLAYER] - state[s.FIRST_PLAYER]) % num_players
    return state[s.ROUND] * num_players + offset


@njit(cache=True)
def _check_progress(state, tiles, finding):
    """Tiles drawn against turns played, and the final round (R4.2, R4.3, R9.1, R9.2)."""
    num_players = state[s.NUM_PLAYERS]
    position = state[s.PILE_POSITION]
    end = state[s.PILE_END]
    current_round = state[s.ROUND]
    final_round = state[s.FINAL_ROUND]
    over = state[s.GAME_OVER] != 0
    omr = _one_more_round_position(state, tiles)
    drawn = omr < position
    if state[s.MODE] == c.MODE_DALE:
        per_round = c.DALE_LAST_SLOT - c.DALE_FIRST_SLOT + 1
        if over:
            before = position - 1 - per_round * current_round  # drawn before One More Round
            if not drawn or omr != position - 1 or before < 0 or before >= per_round:
                return _error(PILE_POSITION_WRONG, 0)
            if final_round != current_round - 1:
                return _found(finding, FINAL_ROUND_WRONG, 0, CASE_DALE, -1, final_round,
                              current_round - 1, 0)
        else:
            if drawn or position != per_round * (current_round + 1):
                return _error(PILE_POSITION_WRONG, 0)
            if final_round != -1:
                return _error(FINAL_ROUND_WRONG, 0)
        return OK
    draws = 2 if state[s.MODE] == c.MODE_SOLITARY else 1
    attempts = c.NUM_SLOTS + draws * _turns_completed(state)
    expected = min(end, attempts + (1 if omr < attempts else 0))
    if position != expected:
        return _error(PILE_POSITION_WRONG, 0)
    if drawn:
        if over and current_round != final_round:
            return _found(finding, FINAL_ROUND_WRONG, 0, CASE_GAME_OVER, -1, final_round,
                          current_round, 0)
        if final_round != (omr - c.NUM_SLOTS) // draws // num_players + 1:
            return _error(FINAL_ROUND_WRONG, 0)
        if current_round > final_round:
            return _error(FINAL_ROUND_WRONG, 0)
    elif final_round != -1 or over:
        return _error(FINAL_ROUND_WRONG, 0)
    return OK


@njit(cache=True)
def _check_players_turns(state):
    """Placements and investments against turns taken; start values before the first
    finished turn (R3.4, R5.1); Dale's one tile a round, no lake, no marker (R9.2)."""
    num_players = state[s.NUM_PLAYERS]
    decision = state[s.PENDING_DECISION]
    dale = state[s.MODE] == c.MODE_DALE
    over = state[s.GAME_OVER] != 0
    turns = 0 if dale else _turns_completed(state)
    for player in range(num_players):
        if dale:
            taken = state[s.ROUND]
        else:
            offset = (player - state[s.FIRST_PLAYER]) % num_players
            taken = turns // num_players + (1 if offset < turns % num_players else 0)
        mid_turn = (not over and player == state[s.CURRENT_PLAYER]
                    and (decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE))
        placed = s.tile_count(state, player) - _NUM_STARTING
        invested = c.START_MARKERS - s.markers_left(state, player)
        if dale and player == c.DALE_SEAT:
            if placed != taken or invested != 0 or s.lake_count(state, player) != 0:
                return _error(TURNS_WRONG, player)
        elif placed + invested > taken + (1 if mid_turn else 0):
            return _error(TURNS_WRONG, player)
        if taken == 0 and not mid_turn and (
                s.money(state, player) != c.START_MONEY
                or s.income(state, player) != c.START_INCOME
                or s.reputation(state, player) != c.START_REPUTATION
                or s.population(state, player) != c.START_POPULATION):
            return _error(START_VALUES_WRONG, player)
    return OK


@njit(cache=True)
def _check_placements(state, tiles, player, finding):
    """After the starting tiles (R2.3), each tile next to an earlier one (R2.4), lakes of
    market tiles (R5.1c)."""
    count = s.tile_count(state, player)
    reached = np.zeros(NUM_CELLS, dtype=np.bool_)
    for position in range(count):
        cell = s.placed_cell(state, player, position)
        kind = s.cell_kind(state, player, cell)
        flags = s.cell_flags(state, player, cell)
        if position < _NUM_STARTING:  # `_check_starting_tiles` checked them
            reached[cell] = True
            continue
        next_to_earlier = False
        for index in range(6):
            neighbour = NEIGHBOURS[cell, index]
            if neighbour >= 0 and reached[neighbour]:
                next_to_earlier = True
        if not next_to_earlier:
            return _found(finding, ADJACENCY_WRONG, player, CASE_POSITION, position, cell, 0, 0)
        reached[cell] = True
        if flags & s.FLAG_LAKE and not _is_lettered(tiles, kind):
            return _found(finding, LAKE_SOURCE_WRONG, player, CASE_POSITION, position, kind,
                          0, 0)
    return OK


@njit(cache=True)
def _check_starting_tiles(state, player, finding):
    """A borough opens with Suburbs (0, 0), Community Park (0, 1) and Heavy Factory (0, 2),
    face up, numbered 0 (R2.3). Made before the borough's derived entries are checked, it
    reads an entry of the placement order only when that is a cell."""
    occupied = 0
    for cell in range(NUM_CELLS):
        if s.cell_kind(state, player, cell) >= 0:
            occupied += 1
    for position in range(min(occupied, _NUM_STARTING)):
        cell = s.placed_cell(state, player, position)
        if cell < 0 or cell >= NUM_CELLS:
            return OK  # the placement order is `_check_borough`'s
        if (cell != _STARTING_CELLS[position]
                or s.cell_kind(state, player, cell) != _BASIC_KINDS[position]
                or s.cell_flags(state, player, cell) & s.FLAG_LAKE
                or s.cell_sequence(state, player, cell) != 0):
            return _found(finding, STARTING_TILES_WRONG, player, CASE_POSITION, position,
                          s.cell_kind(state, player, cell), 0, 0)
    if occupied < _NUM_STARTING:
        return _found(finding, STARTING_TILES_WRONG, player, CASE_COUNT, -1, occupied,
                      _NUM_STARTING, 0)
    return OK


@njit(cache=True)
def _draw_order(state, tiles, out):
    """The tiles drawn so far, One More Round left out, in the order the market keeps them
    from slot 6 to slot 0: the setup's seven (slot 0 got the first, R4.1) from the last to
    the first, then every later draw (each enters at slot 0, R4.2). Returns their count."""
    one_more_round = s.one_more_round_kind(tiles)
    position = state[s.PILE_POSITION]
    count = 0
    for index in range(min(position, c.NUM_SLOTS) - 1, -1, -1):
        out[count] = s.pile_tile(state, index)
        count += 1
    for index in range(c.NUM_SLOTS, position):
        if s.pile_tile(state, index) != one_more_round:
            out[count] = s.pile_tile(state, index)
            count += 1
    return count


@njit(cache=True)
def _check_market_shape(state, tiles):
    """A market R4.2 (R9.1, R9.2) can produce at this decision."""
    position = state[s.PILE_POSITION]
    if state[s.MODE] == c.MODE_DALE:
        per_round = c.DALE_LAST_SLOT - c.DALE_FIRST_SLOT + 1
        start = position - per_round
        filled = per_round
        if state[s.GAME_OVER]:
            start = per_round * state[s.ROUND]
            filled = position - 1 - start
        for slot in range(c.NUM_SLOTS):
            index = slot - c.DALE_FIRST_SLOT
            expected = s.pile_tile(state, start + index) if 0 <= index < filled else -1
            if s.market_slot(state, slot) != expected:
                return _error(MARKET_SHAPE_WRONG, 0)
        return OK
    occupied = 0
    lowest = c.NUM_SLOTS
    for slot in range(c.NUM_SLOTS - 1, -1, -1):
        if s.market_slot(state, slot) >= 0:
            occupied += 1
            lowest = slot
    holes = c.NUM_SLOTS - lowest - occupied
    removing = state[s.GAME_OVER] == 0 and state[s.PENDING_DECISION] == c.DECISION_REMOVE
    stacks_left = position < state[s.PILE_END]
    if removing:
        if holes > 1 or (stacks_left and occupied != c.NUM_SLOTS - 1):
            return _error(MARKET_SHAPE_WRONG, 0)
    elif holes != 0 or (stacks_left and occupied != c.NUM_SLOTS):
        return _error(MARKET_SHAPE_WRONG, 0)
    order = np.empty(s.PILE_CAPACITY, dtype=np.int64)
    count = _draw_order(state, tiles, order)
    if stacks_left and not removing and s.market_slot(state, 0) != order[count - 1]:
        return _error(MARKET_SHAPE_WRONG, 0)
    matched = 0
    for slot in range(c.NUM_SLOTS - 1, -1, -1):
        kind = s.market_slot(state, slot)
        if kind < 0:
            continue
        while matched < count and order[matched] != kind:
            matched += 1
        if matched == count:
            return _error(MARKET_SHAPE_WRONG, 0)
        matched += 1
    return OK


@njit(cache=True)
def _check_drawn(state, tiles):
    """The drawn tiles are the lettered tiles on the table, in the market and discarded;
    the basic tiles on the table are the starting ones plus those taken from the supply."""
    num_kinds = tiles.shape[0]
    one_more_round = num_kinds - 1
    num_players = state[s.NUM_PLAYERS]
    balance = np.zeros(num_kinds, dtype=np.int64)
    for index in range(state[s.PILE_POSITION]):
        balance[s.pile_tile(state, index)] += 1
    balance[one_more_round] -= s.discarded(state, one_more_round)
    for slot in range(c.NUM_SLOTS):
        if s.market_slot(state, slot) >= 0:
            balance[s.market_slot(state, slot)] -= 1
    for player in range(num_players):
        for cell in range(NUM_CELLS):
            if s.cell_kind(state, player, cell) >= 0:
                balance[s.cell_kind(state, player, cell)] -= 1
    for kind in range(num_kinds - 2):
        if not _is_lettered(tiles, kind):
            continue
        if balance[kind] != s.discarded(state, kind):
            return _error(DRAWN_WRONG, kind)
    for basic in range(3):
        on_table = -balance[_BASIC_KINDS[basic]]
        if on_table != num_players + c.BASIC_SUPPLY_PER_KIND - s.supply(state, basic):
            return _error(SUPPLY_USED_WRONG, basic)
    return OK


@njit(cache=True)
def _check_scores(state, tiles, finding):
    """At game over: the final population is the population and the sum of its parts,
    no $5 is left unconverted, and scoring the board again (R8.2, R8.3) gives the same
    state."""
    if state[s.GAME_OVER] == 0:
        return OK
    for player in range(state[s.NUM_PLAYERS]):
        final = s.score_entry(state, player, s.SCORE_FINAL_POPULATION)
        if final != s.population(state, player):
            return _found(finding, SCORE_MISMATCH, player, CASE_EXPECTED,
                          s.SCORE_FINAL_POPULATION, final, s.population(state, player), 0)
        parts = (s.score_entry(state, player, s.SCORE_POPULATION_BEFORE_GOALS)
                 + s.score_entry(state, player, s.SCORE_PRIVATE_GOAL)
                 + s.score_entry(state, player, s.SCORE_MONEY_CONVERTED))
        for index in range(c.MAX_PLAYERS):
            parts += s.public_goal_bonus(state, player, index)
        if final != parts:
            return _found(finding, SCORE_MISMATCH, player, CASE_SUM,
                          s.SCORE_FINAL_POPULATION, final, parts, 0)
        if s.money(state, player) >= 5:
            return _found(finding, SCORE_MISMATCH, player, CASE_MONEY_LEFT, s.MONEY,
                          s.money(state, player), 0, 0)
    before = state.copy()
    for player in range(state[s.NUM_PLAYERS]):
        s.add_money(before, player, 5 * s.score_entry(state, player, s.SCORE_MONEY_CONVERTED))
        s.set_population(before, player,
                         s.score_entry(state, player, s.SCORE_POPULATION_BEFORE_GOALS))
        for index in range(_SCORE_ENTRIES):
            s.set_player_entry(before, player, s.SCORE + index, 0)
    score_game(before, tiles, _GOAL_TABLE)
    for player in range(state[s.NUM_PLAYERS]):
        for offset in range(s.ORDER):
            found = s.player_entry(state, player, offset)
            computed = s.player_entry(before, player, offset)
            if found != computed:
                return _found(finding, SCORE_MISMATCH, player, CASE_ENTRY, offset, found,
                              computed, 0)
    return OK


@njit(cache=True)
def check_reachable(state, tiles):
    """`check_invariants`, then what play implies (module docstring); 0 or a code."""
    return check_reachable_at(state, tiles, np.empty(FINDING_SIZE, dtype=np.int64))
