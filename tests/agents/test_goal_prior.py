"""The policy with a goal prior (agents/goal_prior.py): its goal term is the expected goal
bonus of each action's own-turn trial, read from what its player may know (R8.2, R10.2),
and with weight 0 it is the policy itself."""

import numpy as np
import pytest

from agents.goal_prior import GOAL_WEIGHT, GoalPriorAgent
from agents.one_ply import (OWN_TURN, expected_goal_bonus, play_trial, trial_goal_bonuses,
                            turns_left)
from agents.ppo_agent import PPOAgent
from agents.registry import AgentSpecError, make_agent
from agents.styles import STYLES, StyleAgent
from hidden_facts import with_other_hidden_facts
from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.event_log import NUM_EVENT_FIELDS
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.tile_data import GOALS, TILES

MODEL = "models/multiplayer-styles.safetensors"


def positions(players: int, seed: int, every: int):
    """Every `every`-th position of a game among the styles (goal choices included)."""
    game = Game(players, "standard", "2nd", seed)
    names = list(STYLES)
    seats = [StyleAgent(names[(seed + seat) % len(names)], seed=seed + seat)
             for seat in range(game.num_seats)]
    index = 0
    while not game.is_over:
        if index % every == 0 or game.pending_decision == "keep_goal":
            yield game
        index += 1
        game.apply(seats[game.current_player].act(game))


def reference_bonuses(state) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, expected goal bonus after each one's own-turn trial), every trial
    scored by `expected_goal_bonus` alone."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    count = legal_action_mask(state, TILES.table, TILES.basic_kinds, mask, actions)
    bonuses = np.zeros(count)
    if count > 1:
        player, future = state[s.CURRENT_PLAYER], turns_left(state)
        scratch = np.empty_like(state)
        log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
        for index in range(count):
            play_trial(scratch, state, TILES.table, GOALS.table, TILES.basic_kinds, OWN_TURN,
                       actions[index], log)
            bonuses[index] = expected_goal_bonus(scratch, TILES.table, GOALS.table, player,
                                                 future)
    return actions[:count].copy(), bonuses


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12), (4, 13)])
def test_the_goal_bonuses_of_the_trials_are_the_reference_ones(players, seed):
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
    compared = varied = 0
    for game in positions(players, seed, every=3):
        before = game.state.copy()
        fast = trial_goal_bonuses(game.state, TILES.table, GOALS.table, TILES.basic_kinds,
                                  mask, actions)
        legal, slow = reference_bonuses(game.state)
        assert np.array_equal(actions[:len(fast)], legal)
        assert np.array_equal(fast, slow)  # bit for bit
        assert np.array_equal(game.state, before)
        compared += len(fast)
        varied += int(len(fast) > 1 and fast.max() > fast.min() + 0.5)
    assert compared > 1000
    assert varied > 10  # some decisions move a goal's chances by half a population or more


def test_with_weight_zero_it_plays_as_the_policy():
    prior, policy = make_agent(f"ppo-goals:{MODEL},0"), make_agent(f"ppo:{MODEL}")
    game, moves = Game(3, seed=5), 0
    while not game.is_over:
        action = prior.act(game)
        assert action == policy.act(game)
        game.apply(action)
        moves += 1
    assert moves > 60


def test_its_choice_is_the_best_prior_score_and_sometimes_not_the_policys():
    agent = make_agent(f"ppo-goals:{MODEL}")
    assert isinstance(agent, GoalPriorAgent) and agent.weight == GOAL_WEIGHT
    policy = PPOAgent(MODEL)
    game, differ, decided = Game(2, seed=7), 0, 0
    while not game.is_over:
        legal, bonuses = reference_bonuses(game.state)
        chosen = agent.act(game)
        if len(legal) > 1:
            probabilities = agent.probabilities(game)
            scores = np.log(np.maximum(probabilities[legal], 1e-12)) + GOAL_WEIGHT * bonuses
            assert chosen == legal[np.argmax(scores)]
            differ += int(chosen != policy.act(game))
            decided += 1
        game.apply(chosen)
    assert decided > 20 and differ >= 1


def test_hidden_facts_do_not_change_its_choice():
    """R10.2: other players' goals, the stack order and One More Round's place are not read."""
    agent = make_agent(f"ppo-goals:{MODEL}")
    checked = differing = 0
    for seed in range(3):
        for game in positions(3, 40 + seed, every=7):
            twin = Game.from_state(game.config, with_other_hidden_facts(game.state, seed))
            differing += int((twin.state != game.state).any())
            assert agent.act(twin) == agent.act(game)
            checked += 1
    assert checked > 20 and differing > 20


@pytest.mark.parametrize("spec, message", [
    ("ppo-goals:", "give the model file"),
    (f"ppo-goals:{MODEL},-1", "at least 0"),
    (f"ppo-goals:{MODEL},inf", "finite"),
    (f"ppo-goals:{MODEL},heavy", "finite number"),
    (f"ppo-goals:{MODEL},1,2", "at most one setting"),
])
def test_bad_goal_prior_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)
