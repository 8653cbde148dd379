"""Positions of seeded random games, for tests that compare two ways of computing one
thing at many positions (Dale's cell choice and trial gains, R9.2).

Not cached on purpose: numba's cache of a function is only invalidated by changes to
its own file, so a cached copy of these loops could go on playing an old engine.
"""

import numpy as np
from numba import njit

from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.red_lines import red_line_value
from suburbia_env.engine.rng import random_below, seed_words
from suburbia_env.engine.setup import new_game
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.turn import apply_legal_action


@njit(cache=False)
def _set_levels_near_limits(state, player, words):
    """Income and reputation within 3 of -5 or 15 (R1.2), population within 3 of a red
    line (R8.1): where the order of a placement's adjustments decides most often."""
    base = s.PLAYERS + player * s.PLAYER_STRIDE
    for field in (s.INCOME, s.REPUTATION):
        state[base + field] = (c.LEVEL_MAX - random_below(words, 0, 4) if random_below(words, 0, 2)
                               else c.LEVEL_MIN + random_below(words, 0, 4))
    line = red_line_value(random_below(words, 0, 20))
    state[base + s.POPULATION] = line - 3 + random_below(words, 0, 7)


@njit(cache=False)
def _play_probe_positions(num_players, mode, edition, game_seeds, player_seeds, tiles, goals,
                          basic_kinds, near_limits, positions):
    """The position before every decision of random games, into the rows of `positions`
    while they last; returns how many there were. With `near_limits` each copy has every
    seat's levels and population moved near a limit (`_set_levels_near_limits`); the game
    itself goes on unchanged."""
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    words = np.zeros(4, dtype=np.int32)
    log = np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32)
    count = 0
    for game in range(game_seeds.shape[0]):
        new_game(state, tiles, goals, basic_kinds, num_players, mode, edition, 1,
                 game_seeds[game])
        words[:] = player_seeds[game]
        while state[s.GAME_OVER] == 0:
            if count < positions.shape[0]:
                positions[count] = state
                if near_limits:
                    for player in range(num_players):
                        _set_levels_near_limits(positions[count], player, words)
            count += 1
            legal = legal_action_mask(state, tiles, basic_kinds, mask, actions)
            apply_legal_action(state, tiles, goals, basic_kinds,
                               actions[random_below(words, 0, legal)], log)
    return count


def probe_positions(seats, mode, edition, seed, games, near_limits):
    """`_play_probe_positions` of `games` seeded games, as an array of positions."""
    arguments = (seats, mode, edition, seed_words(seed, games), seed_words(seed + 1, games),
                 TILES.table, GOALS.table, TILES.basic_kinds, near_limits)
    count = _play_probe_positions(*arguments, np.zeros((0, s.STATE_SIZE), dtype=np.int32))
    positions = np.zeros((count, s.STATE_SIZE), dtype=np.int32)
    _play_probe_positions(*arguments, positions)
    return positions
