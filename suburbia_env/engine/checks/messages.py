"""The message of each code of the state checks and the field of the state format
(docs/state-format.md) it points at."""

from __future__ import annotations

from .. import constants as c
from ...errors import StateFormatError
from ..tile_data import TILES
from .bounds import MONEY_BOUND, POPULATION_BOUND
from .codes import (ADJACENCY_WRONG, CELL_FLAGS_WRONG, CELL_WRONG, CONFIG_WRONG, COUNTER_WRONG,
                    CURRENT_PLAYER_WRONG, DALE_CANNOT_PLACE, DECISION_WRONG, DISCARDED_WRONG,
                    DRAWN_WRONG, FEATURE_COUNT_WRONG, FINAL_ROUND_WRONG, FIRST_PLAYER_WRONG,
                    GOALS_DEALT_WRONG, GOALS_KEPT_WRONG, GOALS_WRONG, INCOME_OUT_OF_RANGE,
                    LAKE_COUNT_WRONG, LAKE_SOURCE_WRONG, MARKERS_WRONG, MARKET_SHAPE_WRONG,
                    MARKET_WRONG, MONEY_NEGATIVE, MONEY_TOO_LARGE, NO_LEGAL_ACTION, OK,
                    ONE_MORE_ROUND_BROKEN, ORDER_WRONG, PADDING_NOT_EMPTY, PILE_POSITION_WRONG,
                    PILE_WRONG, PLACEABLE_WRONG, POPULATION_NEGATIVE, POPULATION_TOO_LARGE,
                    PUBLIC_GOALS_WRONG, REPUTATION_OUT_OF_RANGE, RNG_WRONG, ROUND_WRONG,
                    SCORE_MISMATCH, SCORE_WRONG, SEQUENCE_WRONG, STARTING_TILES_WRONG,
                    START_VALUES_WRONG, SUPPLY_USED_WRONG, SUPPLY_WRONG, TILE_COUNT_BROKEN,
                    TILE_COUNT_WRONG, TURNS_WRONG, UNUSED_SEAT_NOT_EMPTY, _BASIC_REASONS,
                    _KIND_REASONS, _SEAT_REASONS)
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
    """The field of the state format (docs/state-format.md) that a code points at, e.g.
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
