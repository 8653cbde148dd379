"""The Gymnasium environment (gym_env.py): API conformance, rewards (R8.3), errors,
copies, rendering and determinism.

Gymnasium's and stable-baselines3's checkers step the environment with unmasked
random actions, which are almost always illegal here; the default
`illegal_action="lose"` (the episode ends with reward -1, as PettingZoo's
TerminateIllegalWrapper does) lets them run with default settings (issue 20). Tests of
the refusals pass `illegal_action="raise"`.
"""

from __future__ import annotations

import copy
import os
import pickle
import re
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch loads (via sb3)

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

import suburbia_env  # noqa: F401  (registers Suburbia-v1)
from suburbia_env.engine import action_space as a
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.env_core import OPPONENT_DALE, OPPONENT_RANDOM
from suburbia_env.errors import ConfigError, GameOverError, IllegalActionError
from suburbia_env.envs.gym_env import SuburbiaEnv
from suburbia_env.engine.hex_grid import cell_index
from suburbia_env.engine.observation import (OBSERVATION_SIZE, encode_observation,
                                             unpack_observation)
from suburbia_env.display.drawing import HEX_RADIUS, TYPE_FILLS
from suburbia_env.display.picture import picture_layout
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import tile_type

CHECKED_CONFIGS = [
    dict(),  # dale mode, dict observations
    dict(observation_format="flat"),
    dict(mode="solitary"),
    dict(mode="standard", players=2, opponents="random"),
    dict(mode="standard", players=3, opponents="dale"),
    dict(mode="standard", players=4, opponents=["random", "dale"], learner_seat="random"),
]


def random_legal(env_or_mask, rng: np.random.Generator) -> int:
    mask = env_or_mask if isinstance(env_or_mask, np.ndarray) else env_or_mask.action_masks()
    return int(rng.choice(np.flatnonzero(mask)))


def play_episode(env: SuburbiaEnv, seed: int | None, action_seed: int):
    """Reset (with `seed`) and play random legal actions to the end; the trajectory."""
    rng = np.random.default_rng(action_seed)
    observation, info = env.reset(seed=seed)
    trajectory = [(observation, info["learner_seat"])]
    while True:
        observation, reward, terminated, truncated, info = env.step(random_legal(env, rng))
        trajectory.append((observation, reward, terminated, truncated))
        if terminated:
            return trajectory, info


def assert_same_trajectory(first, second):
    assert len(first) == len(second)
    for one, two in zip(first, second):
        for x, y in zip(one, two):
            if isinstance(x, dict):
                for key in x:
                    np.testing.assert_array_equal(x[key], y[key])
            else:
                np.testing.assert_array_equal(x, y)


# Conformance -------------------------------------------------------------------------------

def test_the_registered_env_passes_both_checkers_with_default_settings():
    """Issue 20: `check_env(gym.make("Suburbia-v1").unwrapped)` as users write it, and
    stable-baselines3's check_env with its defaults, on the default environment."""
    import torch
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        gymnasium_check_env(gym.make("Suburbia-v1").unwrapped)
        sb3_check_env(gym.make("Suburbia-v1").unwrapped)


@pytest.mark.parametrize("options", CHECKED_CONFIGS)
@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_gymnasium_check_env(options, render_mode):
    env = gym.make("Suburbia-v1", render_mode=render_mode, disable_env_checker=True,
                   **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        gymnasium_check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("options", [dict(), dict(mode="solitary"),
                                     dict(mode="standard", players=4, opponents="random")])
def test_stable_baselines3_check_env_flat(options):
    import torch
    from stable_baselines3.common.env_checker import check_env
    torch.set_num_threads(1)
    env = SuburbiaEnv(observation_format="flat", **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, warn=True)


@pytest.mark.parametrize("options", [dict(), dict(mode="standard", players=3,
                                                  opponents="random")])
def test_the_standard_random_loop_runs_to_the_end_of_a_game(options):
    """The loop of Gymnasium's documentation: with `mask=` every sampled action is legal
    and the game is played to its end (final scores in info); without a mask the first
    action outside it ends the episode with -1 (the default illegal_action="lose")."""
    env = gym.make("Suburbia-v1", **options)
    env.action_space.seed(5)
    observation, info = env.reset(seed=5)
    steps, terminated, truncated = 0, False, False
    while not (terminated or truncated):
        action = env.action_space.sample(mask=observation["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        steps += 1
    assert "illegal_action" not in info and env.unwrapped.game.is_over
    assert len(info["final_scores"]) == env.unwrapped.seats and steps >= 10
    assert reward in (-1.0, 0.0, 1.0)
    episodes = []
    for episode in range(3):
        observation, info = env.reset(seed=episode)
        terminated = truncated = False
        while not (terminated or truncated):
            action = env.action_space.sample()
            legal = bool(observation["action_mask"][action])
            observation, reward, terminated, truncated, info = env.step(action)
        episodes.append((legal, reward, info.get("illegal_action", False)))
        assert terminated and not truncated
        assert reward == -1.0 if not legal else reward in (-1.0, 0.0, 1.0)
    assert (False, -1.0, True) in episodes


def test_registered_id_makes_the_environment():
    env = gym.make("Suburbia-v1", mode="solitary")
    assert isinstance(env.unwrapped, SuburbiaEnv)
    assert env.unwrapped.config.mode == "solitary"
    assert env.action_space.n == a.NUM_ACTIONS == 2123


# Masks, observations, terminal states ----------------------------------------------------------

@pytest.mark.parametrize("options", CHECKED_CONFIGS[:1] + CHECKED_CONFIGS[2:])
def test_masks_match_the_engine_and_terminal_mask_is_pass_alone(options):
    """action_masks() == observation mask == the engine's legal mask of the learner's
    decision; observation == encode_observation of the learner's seat; at the end the
    mask holds PASS alone (never all false)."""
    env = SuburbiaEnv(**options)
    rng = np.random.default_rng(8)
    for episode in range(3):
        observation, info = env.reset(seed=100 + episode)
        while True:
            game = env.game
            learner = info["learner_seat"]
            np.testing.assert_array_equal(env.action_masks(), observation["action_mask"] == 1)
            np.testing.assert_array_equal(env.action_masks(), game.legal_action_mask())
            expected = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
            encode_observation(env.state, TILES.table, learner, expected)
            np.testing.assert_array_equal(observation["observation"], expected)
            if game.is_over:
                assert np.flatnonzero(observation["action_mask"]).tolist() == [a.ACTION_PASS]
                break
            assert game.current_player == learner == info["current_player"]
            observation, _, terminated, _, info = env.step(random_legal(env, rng))
            assert terminated == game.is_over


# Rewards (R8.3) ------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [dict(), dict(mode="standard", players=3, opponents="random",
                                                  learner_seat="random")])
def test_win_loss_reward_follows_the_winners_r8_3(options):
    env = SuburbiaEnv(**options)
    seen = set()
    for episode in range(6):
        trajectory, info = play_episode(env, seed=episode, action_seed=episode)
        learner = trajectory[0][1]
        rewards = [step[1] for step in trajectory[1:]]
        assert rewards[:-1] == [0.0] * (len(rewards) - 1)
        winners = info["winners"]
        expected = (1.0 if winners == [learner] else 0.0 if learner in winners else -1.0)
        assert rewards[-1] == expected
        seen.add(expected)
    assert -1.0 in seen  # random play loses to Dale / random opponents at least once


def test_margin_reward_and_population_shaping():
    """margin: (own - best other final population) / 100; shaping pays 0.01 per
    population point gained from the learner's first decision (population 2, R3.4)
    to the end (final scoring included)."""
    env = SuburbiaEnv(reward="margin", population_shaping=0.01)
    for episode in range(3):
        trajectory, info = play_episode(env, seed=episode, action_seed=episode)
        scores = info["final_scores"]
        margin = (scores[0]["population"] - scores[1]["population"]) / 100
        shaping = 0.01 * (scores[0]["population"] - 2)
        total = sum(step[1] for step in trajectory[1:])
        assert total == pytest.approx(margin + shaping)


# Errors ------------------------------------------------------------------------------------------

def test_illegal_action_raises_naming_it_and_leaves_the_state_untouched():
    env = SuburbiaEnv(illegal_action="raise")
    env.reset(seed=3)
    state = env.state.copy()
    mask = env.action_masks()
    assert not mask[a.ACTION_PASS]  # step 1 options exist at the first turn (R5.1)
    with pytest.raises(IllegalActionError, match=r"illegal action 'pass' \(number 2122\)"):
        env.step(a.ACTION_PASS)
    with pytest.raises(IllegalActionError, match=r"action 5000 is outside 0\.\.2122"):
        env.step(5000)
    for beyond_int64 in (2**63, -2**63 - 1):  # the compiled entry point cannot take these
        with pytest.raises(IllegalActionError, match=rf"action {beyond_int64} is outside"):
            env.step(beyond_int64)
    with pytest.raises(IllegalActionError, match=r"integer"):
        env.step(1.5)
    with pytest.raises(IllegalActionError, match=r"integer"):
        env.step(True)
    np.testing.assert_array_equal(env.state, state)
    np.testing.assert_array_equal(env.action_masks(), mask)
    env.step(np.int64(np.flatnonzero(mask)[0]))  # numpy integers are accepted


def test_dale_game_starts_with_the_learners_keep_decision():
    """R9.2 as revised on 2026-11-25: the learner keeps one of two drawn goals before its
    first turn; the observation shows both, the mask holds exactly the two keeps, and Dale
    never holds a goal. The kept goal is scored at the end against Dale (R8.2)."""
    env = SuburbiaEnv()
    observation, _ = env.reset(seed=12)
    options = env.game.goal_options(0)
    assert env.game.pending_decision == "keep_goal" and len(options) == 2
    assert np.flatnonzero(observation["action_mask"]).tolist() == [a.ACTION_KEEP_GOAL, a.ACTION_KEEP_GOAL + 1]
    goals = unpack_observation(observation["observation"])["goals"]
    assert [np.flatnonzero(goals[row]).tolist() for row in (5, 6)] == [
        [GOALS.goal(name)] for name in options]
    observation, reward, terminated, _, _ = env.step(a.ACTION_KEEP_GOAL + 1)
    assert (reward, terminated) == (0.0, False) and env.game.private_goal(0) == options[1]
    assert env.game.private_goal(1) is None and env.game.goal_options(1) == []
    assert env.game.pending_decision == "turn" and env.game.round == 0
    while not terminated:
        observation, reward, terminated, _, _ = env.step(
            int(np.flatnonzero(observation["action_mask"])[0]))
    scores = env.game.final_scores()
    assert scores[0]["private_goal"] == options[1] and scores[1]["private_goal"] is None
    assert scores[1]["private_goal_bonus"] == 0


def test_illegal_action_lose_is_the_default_and_ends_the_episode_with_minus_one():
    env = SuburbiaEnv(mode="standard", players=2, opponents="random")
    assert env.illegal_action == "lose"
    env.reset(seed=4)
    observation, reward, terminated, truncated, info = env.step(a.ACTION_PASS)  # keep_goal is pending
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True
    with pytest.raises(GameOverError, match="episode is over"):
        env.step(a.ACTION_KEEP_GOAL)
    env.reset(seed=4)
    env.step(a.ACTION_KEEP_GOAL)  # a new episode plays normally


def test_stepping_a_finished_or_unstarted_episode_raises_game_over():
    env = SuburbiaEnv(mode="solitary")
    with pytest.raises(GameOverError, match="reset"):
        env.step(a.ACTION_PASS)
    play_episode(env, seed=0, action_seed=0)
    with pytest.raises(GameOverError, match="episode is over"):
        env.step(a.ACTION_PASS)


@pytest.mark.parametrize("options,message", [
    (dict(players=2), r"wrong player count: mode 'dale' is played by 1 player, not 2"),
    (dict(mode="standard", players=1), r"wrong player count.*2 to 4 players, not 1"),
    (dict(mode="standard", players=5), r"wrong player count.*not 5"),
    (dict(mode="solitary", players=0), r"wrong player count.*not 0"),
    (dict(mode="chess"), r"mode must be one of"),
    (dict(edition="3rd"), r"edition must be '2nd' or '1st'"),
    (dict(reward="points"), r"reward must be one of win_loss, margin"),
    (dict(illegal_action="ignore"), r"illegal_action must be 'raise' or 'lose'"),
    (dict(mode="standard", players=3, learner_seat=3), r"learner_seat must be 'random' or a seat 0\.\.2"),
    (dict(learner_seat=1), r"with Dale the player always takes seat 0"),
    (dict(opponents="greedy"), r"unknown opponent 'greedy'"),
    (dict(opponents=[42]), r"opponent 42 is neither a name, an agent nor a callable"),
    (dict(opponents=[]), r"opponents is an empty list"),
    (dict(render_mode="human"), r"render_mode must be one of"),
    (dict(observation_format="image"), r"observation_format must be 'dict' or 'flat'"),
])
def test_bad_options_raise_config_error(options, message):
    with pytest.raises(ConfigError, match=message):
        SuburbiaEnv(**options)


# Opponents and seats --------------------------------------------------------------------------

def test_random_learner_seat_varies_and_the_observation_is_from_that_seat():
    env = SuburbiaEnv(mode="standard", players=4, opponents="random", learner_seat="random")
    seats = set()
    for seed in range(12):
        observation, info = env.reset(seed=seed)
        seat = info["learner_seat"]
        seats.add(seat)
        assert env.state[s.CURRENT_PLAYER] == seat
        expected = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        encode_observation(env.state, TILES.table, seat, expected)
        np.testing.assert_array_equal(observation["observation"], expected)
    assert seats == {0, 1, 2, 3}


def test_python_opponents_are_asked_for_their_seats_only():
    """A callable and an agent with act(): each is called only when its seat decides;
    a text answer in notation is accepted; the list of opponents is indexed by seat."""
    calls = {1: 0, 2: 0}

    def first_legal(game):
        assert game.current_player == 1
        calls[1] += 1
        return int(game.legal_actions()[0])

    class LastLegalText:
        def act(self, game):
            assert game.current_player == 2
            calls[2] += 1
            return game.legal_actions_text()[-1]

    env = SuburbiaEnv(mode="standard", players=3, opponents=["random", first_legal, LastLegalText()])
    _, info = play_episode(env, seed=1, action_seed=1)
    assert calls[1] > 10 and calls[2] > 10
    assert len(info["final_scores"]) == 3


def test_opponent_list_is_indexed_by_seat_and_a_short_list_repeats_its_last_entry():
    env = SuburbiaEnv(mode="standard", players=4, opponents=["random", "dale"])
    np.testing.assert_array_equal(env.opponent_kinds, [OPPONENT_RANDOM, OPPONENT_DALE,
                                                       OPPONENT_DALE, OPPONENT_DALE])
    env = SuburbiaEnv(mode="standard", players=3, opponents=["dale", "random", "dale"])
    np.testing.assert_array_equal(env.opponent_kinds[:3], [OPPONENT_DALE, OPPONENT_RANDOM,
                                                           OPPONENT_DALE])


def test_python_opponent_with_an_illegal_action_is_named():
    env = SuburbiaEnv(mode="standard", players=2, opponents=lambda game: a.ACTION_PASS)
    with pytest.raises(IllegalActionError, match=r"opponent in seat \d chose an illegal action"):
        env.reset(seed=0)  # raises here if the opponent chooses its goal first (R3.6) ...
        env.step(a.ACTION_KEEP_GOAL)  # ... else after the learner's choice


# Copies -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [dict(), dict(mode="standard", players=3, opponents="random",
                                                  learner_seat="random")])
@pytest.mark.parametrize("steps_before_copy", [0, 7])
def test_pickled_and_deep_copied_env_continues_identically(options, steps_before_copy):
    env = SuburbiaEnv(**options)
    env.reset(seed=12)
    rng = np.random.default_rng(5)
    for _ in range(steps_before_copy):
        env.step(random_legal(env, rng))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    runs = []
    final_infos = []
    for each in [env] + copies:
        assert each.game.state is each.state  # the facade follows the copy's own game
        actions = np.random.default_rng(77)
        steps = []
        while True:
            observation, reward, terminated, truncated, info = each.step(random_legal(each, actions))
            steps.append((observation, reward, terminated, truncated))
            if terminated:
                break
        final_infos.append(info)
        steps.append(each.reset())  # unseeded reset: the copied generator continues too
        steps[-1] = (steps[-1][0], steps[-1][1]["learner_seat"])
        runs.append(steps)
    for other in runs[1:]:
        assert_same_trajectory(runs[0], other)
    assert final_infos[0]["final_scores"] and final_infos[1:] == final_infos[:1] * 2


def test_the_state_is_written_into_not_replaced():
    """The compiled step holds the state array: replacing it is refused, writing a saved
    state into it continues from that state (here the game of another env, stepped alike)."""
    env, other = SuburbiaEnv(), SuburbiaEnv()
    env.reset(seed=1)
    other.reset(seed=2)
    with pytest.raises(AttributeError, match="state"):
        env.state = other.state.copy()
    env.state[:] = other.state
    action = random_legal(other, np.random.default_rng(3))
    env_result = env.step(action)
    other_result = other.step(action)
    np.testing.assert_array_equal(env.state, other.state)
    for part in ("observation", "action_mask"):
        np.testing.assert_array_equal(env_result[0][part], other_result[0][part])


# Determinism ------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", CHECKED_CONFIGS)
def test_same_seed_same_trajectory(options):
    first, _ = play_episode(SuburbiaEnv(**options), seed=31, action_seed=2)
    second, _ = play_episode(SuburbiaEnv(**options), seed=31, action_seed=2)
    assert_same_trajectory(first, second)
    other = SuburbiaEnv(**options).reset(seed=32)[0]
    first_observation = first[0][0]
    if isinstance(first_observation, dict):
        first_observation, other = first_observation["observation"], other["observation"]
    assert not np.array_equal(first_observation, other)  # the seed matters


class _ZeroBits:
    def random_raw(self, count):
        return np.zeros(count, dtype=np.uint64)


class _ZeroGenerator:
    """A generator whose raw draws are all zero: the worst case for the xoshiro words."""
    bit_generator = _ZeroBits()

    def integers(self, high):
        return 0


def test_all_zero_generator_words_are_repaired_before_a_game_starts():
    """All-zero xoshiro128** words are a fixed point (rng.py): every draw would be zero
    and every shuffle the identity. The reset makes them usable before the game is set
    up, so the random opponent still varies its moves."""
    env = SuburbiaEnv(mode="standard", players=2, opponents="random")
    env.reset(seed=0)
    env.np_random = _ZeroGenerator()
    env.reset()
    assert env.state[s.RNG_STATE:s.RNG_STATE + 4].tolist() != [0, 0, 0, 0]
    assert env._opponent_words.tolist() == [1, 0, 0, 0]
    steps, info = play_episode_without_reset(env, np.random.default_rng(3))
    assert steps > 10 and info["winners"]
    assert env._opponent_words.tolist() != [1, 0, 0, 0]  # the random opponent drew from them


def play_episode_without_reset(env: SuburbiaEnv, rng: np.random.Generator):
    steps = 0
    while True:
        _, _, terminated, _, info = env.step(random_legal(env, rng))
        steps += 1
        if terminated:
            return steps, info


# Rendering --------------------------------------------------------------------------------------

def test_ansi_render_shows_market_and_boroughs():
    env = SuburbiaEnv(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "Market (R4.1" in text
    for row in env.game.market():
        assert re.search(rf"\n\s+{row['slot']}\s+\+{row['premium']}\s+{re.escape(row['tile'])}"
                         rf"\s+{row['cost']}\s+{row['price']}\n", text), row
    assert "\nPlayer 0" in text and "\nDale\n" in text
    assert text.count("money $15, income 0, reputation 1, population 2") == 2  # R3.4


def test_rgb_render_changes_where_the_learner_placed_a_tile():
    env = SuburbiaEnv(render_mode="rgb_array")
    env.reset(seed=2)
    assert env.game.pending_decision == "keep_goal"  # R9.2, revised 2026-11-25
    env.step(env.game.legal_actions()[0])
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    choice = next(text for text in env.game.legal_actions_text()
                  if text.startswith("buy") and text.endswith("@ 1,0"))
    slot = int(choice.split()[1])
    kind = int(env.state[s.MARKET + slot])
    env.step(env.game.text_to_action(choice))
    after = env.render()
    assert after.shape == before.shape
    # The picture is the drawing of drawing.py: cells are found by the layout's centres.
    layout = picture_layout(env.game)

    def hexagon(cell):
        x, y = layout.cell_centre(0, cell)
        ys, xs = np.mgrid[0:after.shape[0], 0:after.shape[1]]
        dx, dy = np.abs(xs - x), np.abs(ys - y)
        inner = HEX_RADIUS - 4
        return (dy <= np.sqrt(3) / 2 * inner) & (np.sqrt(3) * dx + dy <= np.sqrt(3) * inner)

    placed, far = hexagon(cell_index(1, 0)), hexagon(cell_index(-6, 8))
    assert placed.sum() > 1000 and far.sum() > 1000
    assert (before[placed] != after[placed]).any(axis=1).mean() > 0.5
    fill = TYPE_FILLS[tile_type(TILES.table, kind)]
    colour = tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))
    assert (after[placed] == colour).all(axis=1).mean() > 0.5  # the type colour, under the name
    np.testing.assert_array_equal(before[far], after[far])


def test_render_without_mode_returns_none():
    env = SuburbiaEnv()
    env.reset(seed=0)
    assert env.render() is None
