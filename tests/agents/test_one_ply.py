"""The one-ply players' fast trial scoring (agents/one_ply.py `trial_values`) agrees
exactly with its reference (`trial_values_reference`, every trial scored by
`style_value`): the fast form reuses the other players' goal values, read once per
decision, in every trial that leaves their blocks as they were."""

import numpy as np
import pytest

from agents.greedy import DEFAULT_MONEY_WEIGHT, GreedyAgent
from agents.one_ply import (FULL_TURN, MONEY, NUM_WEIGHTS, OWN_TURN, trial_values,
                            trial_values_reference)
from agents.styles import STYLES, StyleAgent
from suburbia_env import Game
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.tile_data import GOALS, TILES


def positions(players: int, mode: str, seed: int, every: int):
    """Every `every`-th position of a game between the styles and greedy (the keep-goal
    decisions at setup included: a trial there changes the private goal)."""
    game = Game(players, mode, "2nd", seed)
    names = list(STYLES)
    seats = [StyleAgent(names[(seed + seat) % len(names)], seed=seed + seat)
             if seat % 2 == 0 else GreedyAgent() for seat in range(game.num_seats)]
    index = 0
    while not game.is_over:
        if index % every == 0 or game.pending_decision == "keep_goal":
            yield game.state.copy()
        index += 1
        game.apply(seats[game.current_player].act(game))


def all_weights():
    greedy = np.zeros(NUM_WEIGHTS)
    greedy[MONEY] = DEFAULT_MONEY_WEIGHT
    return [(greedy, FULL_TURN)] + [(np.array(STYLES[name], dtype=np.float64), OWN_TURN)
                                    for name in STYLES]


@pytest.mark.parametrize("players, mode, seed", [(2, "standard", 1), (3, "standard", 2),
                                                 (4, "standard", 3), (1, "dale", 4)])
def test_the_fast_trial_scores_are_the_reference_ones(players, mode, seed):
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int64)
    reference_mask, reference_actions = mask.copy(), actions.copy()
    compared = 0
    for state in positions(players, mode, seed, every=4):
        before = state.copy()
        for weights, full_turn in all_weights():
            fast = trial_values(state, TILES.table, GOALS.table, TILES.basic_kinds, weights,
                                full_turn, mask, actions)
            slow = trial_values_reference(state, TILES.table, GOALS.table,
                                          TILES.basic_kinds, weights, full_turn,
                                          reference_mask, reference_actions)
            assert np.array_equal(fast, slow)  # bit for bit, not approximately
            assert np.array_equal(actions[:len(fast)], reference_actions[:len(slow)])
            compared += len(fast)
        assert np.array_equal(state, before)
    assert compared > 1000
