"""The score block: values final scoring can give (`check_invariants`), and at game over
what scoring the board again gives (`check_reachable`; R8.2, R8.3)."""

from __future__ import annotations

from numba import njit

from .. import constants as c
from .. import state_layout as s
from ..scoring import score_game
from ..tile_table import private_goal_bonus, public_goal_bonus
from .bounds import HEADROOM, MONEY_BOUND, POPULATION_BOUND
from .codes import (CASE_ENTRY, CASE_EXPECTED, CASE_GAME_OVER, CASE_MONEY_LEFT, CASE_SUM, OK,
                    SCORE_MISMATCH, SCORE_WRONG, _error, _found)
from .structure import _GOAL_TABLE, _SCORE_ENTRIES


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
