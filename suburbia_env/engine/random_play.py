"""Whole games of uniformly random legal play inside compiled code.

Used by the speed benchmark and by the property tests: at every decision the legal
mask is computed and an action sampled among the legal ones.
"""

import numpy as np
from numba import njit, prange

from . import action_space as a
from . import event_log as ev
from . import state_layout as s
from .env_core import chunk_bounds
from .legal_actions import legal_action_mask
from .rng import random_below
from .setup import new_game
from .turn import apply_legal_action



@njit(cache=True)
def play_random_game(state, tiles, goals, basic_kinds, player_words, mask, actions, log):
    """Play the game in `state` to its end with random legal actions; return the decisions."""
    decisions = 0
    while state[s.GAME_OVER] == 0:
        count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
        action = actions[random_below(player_words, 0, count)]
        apply_legal_action(state, tiles, goals, basic_kinds, action, log)
        decisions += 1
    return decisions


@njit(cache=True)
def _play_range(first, stop, num_players, mode, edition, game_seeds, player_seeds, tiles,
                goals, basic_kinds, decisions):
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    player_words = np.zeros(4, dtype=np.int32)
    no_log = np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32)
    for game in range(first, stop):
        new_game(state, tiles, goals, basic_kinds, num_players, mode, edition, 1,
                 game_seeds[game])
        player_words[:] = player_seeds[game]
        decisions[game] = play_random_game(state, tiles, goals, basic_kinds, player_words,
                                           mask, actions, no_log)


@njit(cache=True)
def play_random_games(num_players, mode, edition, game_seeds, player_seeds, tiles, goals,
                      basic_kinds):
    """One game per row of `game_seeds`, on one core; decisions per game."""
    decisions = np.zeros(game_seeds.shape[0], dtype=np.int64)
    _play_range(0, game_seeds.shape[0], num_players, mode, edition, game_seeds, player_seeds,
                tiles, goals, basic_kinds, decisions)
    return decisions


@njit(cache=True, parallel=True)
def play_random_games_parallel(num_players, mode, edition, game_seeds, player_seeds, tiles,
                               goals, basic_kinds, num_chunks):
    """The same games spread over the cores in `num_chunks` chunks (numba prange)."""
    num_games = game_seeds.shape[0]
    decisions = np.zeros(num_games, dtype=np.int64)
    for chunk in prange(num_chunks):
        first, stop = chunk_bounds(chunk, num_games, num_chunks)
        _play_range(first, stop, num_players, mode, edition, game_seeds, player_seeds, tiles,
                    goals, basic_kinds, decisions)
    return decisions
