"""The self-play VecEnv (training/self_play.py): mixed tables, opponents, goals, episodes."""

from collections import Counter

import numpy as np
import pytest

from suburbia_env.engine import action_space as a
from suburbia_env.engine import state_layout as s
from training.self_play import DALE_SEAT_POLICY, GREEDY_SEAT_POLICY, SelfPlayVecEnv


def _play(env, steps, seed=0):
    """Random legal learner actions; returns (episodes, their player counts, rewards)."""
    generator = np.random.default_rng(seed)
    env.seed(seed)
    env.reset()
    counts, rewards = [], []
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.array([generator.choice(np.flatnonzero(mask)) for mask in masks])
        players = env.players.copy()
        _, reward, dones, infos = env.step(actions)
        for index in np.flatnonzero(dones):
            counts.append(int(players[index]))
            rewards.append(float(reward[index]))
            assert infos[index]["terminal_observation"].shape == (env.observations.shape[1],)
    return counts, rewards


def test_one_env_mixes_two_three_and_four_player_games():
    env = SelfPlayVecEnv(num_envs=6, players=(2, 3, 4), greedy_share=0.5, dale_share=0.5)
    counts, rewards = _play(env, 400)
    assert set(counts) == {2, 3, 4}
    # margin reward: (own - best other population) / 100; random play loses to them
    assert all(np.isfinite(rewards)) and np.mean(rewards) < -0.3


def test_the_learner_keeps_its_own_goal_and_opponents_theirs():
    """R3.6: every seat draws two goals and keeps one; the learner decides its own."""
    env = SelfPlayVecEnv(num_envs=8, players=4, greedy_share=1.0, dale_share=0.0)
    env.seed(3)
    env.reset()
    pending = env.states[:, s.PENDING_DECISION]
    keeping = np.flatnonzero(pending == 1)  # DECISION_KEEP_GOAL
    assert keeping.size > 0
    for index in keeping:
        mask = env.action_masks()[index]
        assert np.flatnonzero(mask).tolist() == [a.ACTION_KEEP_GOAL, a.ACTION_KEEP_GOAL + 1]
    for index in range(8):
        seat_policies = env.seat_policies[index, :4]
        learner = env.learners[index]
        assert seat_policies[learner] == -1
        assert all(policy == GREEDY_SEAT_POLICY for seat, policy in enumerate(seat_policies)
                   if seat != learner)


@pytest.mark.parametrize("dale_share,greedy_share,expected", [
    (1.0, 0.0, {DALE_SEAT_POLICY}), (0.0, 1.0, {GREEDY_SEAT_POLICY}),
    (0.0, 0.0, {DALE_SEAT_POLICY}),  # an empty pool falls back on Dale's procedure
])
def test_opponents_follow_the_shares(dale_share, greedy_share, expected):
    env = SelfPlayVecEnv(num_envs=16, players=3, dale_share=dale_share,
                         greedy_share=greedy_share)
    env.seed(1)
    env.reset()
    seen = Counter()
    for index in range(16):
        for seat in range(3):
            if seat != env.learners[index]:
                seen[int(env.seat_policies[index, seat])] += 1
    assert set(seen) == expected


def test_bad_player_counts_and_shares_are_refused():
    with pytest.raises(ValueError, match="2 to 4"):
        SelfPlayVecEnv(num_envs=2, players=(2, 5))
    with pytest.raises(ValueError, match="shares"):
        SelfPlayVecEnv(num_envs=2, dale_share=0.7, greedy_share=0.5)


def test_same_seed_same_games():
    first = _play(SelfPlayVecEnv(num_envs=4, players=(2, 3), greedy_share=0.5), 150, seed=9)
    second = _play(SelfPlayVecEnv(num_envs=4, players=(2, 3), greedy_share=0.5), 150, seed=9)
    assert first == second and len(first[0]) > 0


def test_seats_decided_on_two_threads_play_the_same_games():
    """The greedy and style seats spread over the cores choose what one thread chooses:
    every state of every game is the same after many rounds of them."""
    states = []
    for threads in (1, 2):
        env = SelfPlayVecEnv(num_envs=8, players=(2, 3, 4), greedy_share=0.6,
                             style_share=0.4, dale_share=0.0, num_threads=threads)
        played = _play(env, 120, seed=4)
        states.append((played, env.states.copy()))
    (first_played, first_states), (second_played, second_states) = states
    assert len(first_played[0]) > 0 and first_played == second_played
    np.testing.assert_array_equal(first_states, second_states)
    with pytest.raises(ValueError, match="num_threads"):
        SelfPlayVecEnv(num_envs=2, num_threads=0)


def test_training_config_mixes_player_counts_and_opponents():
    from training.config import parse_config
    config = parse_config(["--mode", "self_play", "--players", "2", "3", "4",
                           "--greedy-share", "0.5", "--dale-share", "0.1"])
    assert (config.players, config.greedy_share, config.dale_share) == ([2, 3, 4], 0.5, 0.1)
    with pytest.raises(SystemExit, match="player counts 2..4"):
        parse_config(["--mode", "self_play", "--players", "2", "5"])
    with pytest.raises(SystemExit, match="add up to more than 1"):
        parse_config(["--mode", "self_play", "--greedy-share", "0.7", "--dale-share", "0.4"])


class FirstLegalPolicy:
    """The lowest legal action: a yardstick that loses to the greedy player."""

    def predict(self, observation, action_masks, deterministic=True):
        return int(np.flatnonzero(action_masks)[0]), None


@pytest.mark.parametrize("players", [2, 4])
def test_evaluation_against_greedy_rotates_the_learners_seat(players):
    from training.evaluation import evaluate_against_greedy
    result = evaluate_against_greedy(FirstLegalPolicy(), games=players, seed=5, players=players)
    assert (result["games"], result["players"], result["win_rate"]) == (players, players, 0.0)
    assert result["mean_population"] < result["mean_best_other_population"]
    assert result["mean_margin"] < 0 and result["win_rate_low"] == 0.0
