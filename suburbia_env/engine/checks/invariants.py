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
  population within 0..`POPULATION_BOUND` (bounds.py derives them);
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

The checks live beside this module by job (structure, goals, tile_places, placements,
progress, scores; bounds, codes, messages, explain); this one runs them in order and
holds the doors: `validate_state`, `check_reachable_or_raise`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import constants as c
from .. import state_layout as s
from ...errors import StateFormatError
from ..tile_data import TILES
# The bounds, codes and messages are re-exported: callers name them through this module.
from .bounds import (CONFIGURATIONS, HEADROOM, MONEY_BOUND, MOST_PLACEMENTS,  # noqa: F401
                     MOST_TILES, MOST_TURNS, NUM_GOALS, POPULATION_BOUND, last_round)
from .codes import *  # noqa: F401, F403
from .codes import F_CODE, F_INDEX, FINDING_SIZE, OK, UNUSED_SEAT_NOT_EMPTY, _error
from .explain import explain_finding
from .goals import _check_goals, _check_goals_dealt
from .messages import (describe_invariant_error, invariant_error, invariant_field,  # noqa: F401
                       invariant_message)
from .placements import (_check_placements, _check_players_turns, _check_sequences,
                         _check_starting_tiles)
from .progress import _check_market_shape, _check_progress
from .scores import _check_score_block, _check_scores
from .structure import (_check_borough, _check_cells, _check_decision, _check_decision_kind,
                        _check_header, _check_values, _unused_seat_is_empty)
from .tile_places import _check_drawn, _check_generator_and_discards, _check_tiles


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


def check_reachable_or_raise(state, shown=None) -> None:
    """Raise StateFormatError naming the field and the rule unless `check_reachable`
    passes; `shown` as for `explain_finding`."""
    finding = np.zeros(FINDING_SIZE, dtype=np.int64)
    if int(check_reachable_at(state, TILES.table, finding)) != OK:
        field, message = explain_finding(finding, state, shown)
        raise StateFormatError(f"{field}: {message}")


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


@njit(cache=True)
def check_reachable(state, tiles):
    """`check_invariants`, then what play implies (module docstring); 0 or a code."""
    return check_reachable_at(state, tiles, np.empty(FINDING_SIZE, dtype=np.int64))
