"""Checks of the goals: ranges (`check_invariants`), then what setup deals and the
players keep (`check_reachable`, R3.6, R9)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import constants as c
from .. import state_layout as s
from ..tile_table import goal_excluded_with_dale
from .bounds import NUM_GOALS
from .codes import (CASE_COUNT, CASE_DALE, CASE_EXPECTED, CASE_NOT_DRAWN, CASE_RANGE,
                    CASE_TWICE, GOALS_DEALT_WRONG, GOALS_KEPT_WRONG, GOALS_WRONG, OK,
                    PUBLIC_GOALS_WRONG, _error, _found)
from .structure import _GOAL_TABLE


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
def _goal_options_held(state, player):
    return (1 if s.goal_option(state, player, 0) >= 0 else 0) + (
        1 if s.goal_option(state, player, 1) >= 0 else 0)


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
