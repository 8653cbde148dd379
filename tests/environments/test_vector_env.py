"""The batched vector environment (vector_env.py) and its stable-baselines3 adapter
(sb3.py): shapes, masks, same-step autoreset, errors naming the environment, seeding
and threads, copies, and agreement with the Gymnasium environment on the same states.
"""

from __future__ import annotations

import copy
import os
import pickle

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch loads (via sb3)

import numpy as np
import pytest
import torch

from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.errors import ConfigError, GameOverError, IllegalActionError
from suburbia_env.envs.gym_env import SuburbiaEnv
from suburbia_env.engine.observation import (OBSERVATION_PARTS, OBSERVATION_SIZE,
                                             encode_observation)
from suburbia_env.envs.sb3 import SB3VectorEnv
from suburbia_env.engine.tile_data import TILES
from suburbia_env.envs.vector_env import SuburbiaVectorEnv

torch.set_num_threads(1)

GAME_PART = OBSERVATION_PARTS["game"][0]


def random_legal_batch(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean mask batch."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


def expected_observation(state: np.ndarray, seat: int) -> np.ndarray:
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(state, TILES.table, seat, out)
    return out


# Shapes, masks, observations ---------------------------------------------------------------

@pytest.mark.parametrize("options", [
    dict(),
    dict(mode="solitary"),
    dict(mode="standard", players=3, opponents="random", learner_seat="random"),
])
def test_batches_match_each_game_of_the_batch(options):
    """Every row is encode_observation of its game from its learner's seat, and the
    mask (observation and action_masks()) is that game's legal mask."""
    env = SuburbiaVectorEnv(5, num_threads=1, **options)
    observations, infos = env.reset(seed=1)
    assert infos == {}
    assert env.observation_space.contains(observations)
    assert observations["observation"].shape == (5, OBSERVATION_SIZE)
    assert observations["action_mask"].shape == (5, a.NUM_ACTIONS)
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = env.action_masks()
        np.testing.assert_array_equal(masks, observations["action_mask"] == 1)
        for index in range(5):
            game = env.game(index)
            learner = int(env.learners[index])
            assert game.current_player == learner
            np.testing.assert_array_equal(masks[index], game.legal_action_mask())
            np.testing.assert_array_equal(observations["observation"][index],
                                          expected_observation(env.states[index], learner))
        observations, rewards, terminated, truncated, _ = env.step(random_legal_batch(masks, rng))
        assert rewards.shape == terminated.shape == truncated.shape == (5,)
        assert not truncated.any()
        assert env.observation_space.contains(observations)


def test_same_step_autoreset_reports_the_final_observation_and_reward():
    """A finished game is reset in the same step: the final observation (game part:
    pending decision 'none') is in infos, the reward is the final one, the returned
    observation is round 1 of a new game."""
    env = SuburbiaVectorEnv(4, num_threads=1)
    observations, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    finished = 0
    while finished < 6:
        previous_rounds = env.states[:, s.ROUND].copy()
        observations, rewards, terminated, _, infos = env.step(
            random_legal_batch(env.action_masks(), rng))
        if not terminated.any():
            assert "final_obs" not in infos
            assert (rewards == 0).all()
            continue
        np.testing.assert_array_equal(infos["_final_obs"], terminated)
        for index in np.flatnonzero(terminated):
            finished += 1
            final = infos["final_obs"][index]
            final_game = final["observation"][GAME_PART]
            assert final_game[3 + c.DECISION_NONE] == 1.0  # the game is over
            assert np.flatnonzero(final["action_mask"]).tolist() == [a.ACTION_PASS]  # terminal mask
            assert rewards[index] in (-1.0, 0.0, 1.0)
            assert previous_rounds[index] > 5
            assert env.states[index, s.ROUND] == 0 and not env.states[index, s.GAME_OVER]
            np.testing.assert_array_equal(observations["observation"][index],
                                          expected_observation(env.states[index], 0))
        assert (rewards[~terminated] == 0).all()


# Errors ------------------------------------------------------------------------------------

def test_wrong_action_shapes_and_types_are_rejected():
    env = SuburbiaVectorEnv(3, num_threads=1)
    with pytest.raises(GameOverError, match=r"call reset\(\) before step\(\)"):
        env.step(np.zeros(3, dtype=np.int64))  # as in every environment (issue 21)
    env.reset(seed=0)
    states = env.states.copy()
    for bad in (np.zeros(2, dtype=np.int64), np.zeros((3, 1), dtype=np.int64), 5,
                np.zeros(3, dtype=np.float32), np.zeros(3, dtype=bool)):
        with pytest.raises(IllegalActionError, match=r"actions must be 3 integers, not an array "
                                                     r"of shape"):
            env.step(bad)
    np.testing.assert_array_equal(env.states, states)


@pytest.mark.parametrize("num_threads", [1, 2])
@pytest.mark.parametrize("bad_action,message", [
    (a.ACTION_PASS, r"environment 1: illegal action 'pass' \(number 2122\)"),
    (5000, r"environment 1: action 5000 is outside 0\.\.2122"),
    (-1, r"environment 1: action -1 is outside 0\.\.2122"),
])
def test_an_illegal_action_names_its_environment(bad_action, message, num_threads):
    """With two threads the games are checked in two chunks (game 0, games 1 and 2):
    the illegal action in the second chunk still stops the first chunk's game."""
    env = SuburbiaVectorEnv(3, num_threads=num_threads)
    env.reset(seed=5)
    states = env.states.copy()
    actions = random_legal_batch(env.action_masks(), np.random.default_rng(0))
    actions[1] = bad_action
    with pytest.raises(IllegalActionError, match=message + r".*\(no game was stepped\)"):
        env.step(actions)
    np.testing.assert_array_equal(env.states, states)  # the whole batch is checked first
    env.step(random_legal_batch(env.action_masks(), np.random.default_rng(0)))
    assert not np.array_equal(env.states[0], states[0])  # and the env goes on


def test_the_first_of_several_illegal_games_is_named_across_chunks():
    """Illegal actions in both chunks of a two-thread batch: the lowest index is named."""
    env = SuburbiaVectorEnv(4, num_threads=2)
    env.reset(seed=6)
    actions = random_legal_batch(env.action_masks(), np.random.default_rng(1))
    actions[1] = actions[3] = 5000
    with pytest.raises(IllegalActionError, match=r"environment 1: action 5000"):
        env.step(actions)
    actions[1] = random_legal_batch(env.action_masks(), np.random.default_rng(1))[1]
    with pytest.raises(IllegalActionError, match=r"environment 3: action 5000"):
        env.step(actions)


@pytest.mark.parametrize("options,message", [
    (dict(num_envs=0), r"num_envs must be a positive integer, not 0"),
    (dict(num_envs=2.5), r"num_envs must be a positive integer"),
    (dict(players=3), r"wrong player count: mode 'dale' is played by 1 player, not 3"),
    (dict(mode="standard", players=5), r"wrong player count.*not 5"),
    (dict(opponents=lambda game: 0), r"compiled opponents only"),
    (dict(opponents="greedy"), r"unknown opponent 'greedy'"),
    (dict(reward="points"), r"reward must be one of"),
    (dict(mode="standard", players=2, learner_seat=2), r"learner_seat must be 'random' or a seat 0\.\.1"),
    (dict(observation_format="image"), r"observation_format must be 'dict' or 'flat'"),
])
def test_bad_options_raise_config_error(options, message):
    options = {"num_envs": 2, **options}
    with pytest.raises(ConfigError, match=message):
        SuburbiaVectorEnv(**options)


# Seeding, threads, copies --------------------------------------------------------------------

def _trajectory(env: SuburbiaVectorEnv, seed: int, steps: int):
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    record = [observations["observation"].copy()]
    for _ in range(steps):
        observations, rewards, terminated, _, infos = env.step(
            random_legal_batch(env.action_masks(), rng))
        finished = infos.get("_final_obs", np.zeros(env.num_envs, dtype=bool))
        np.testing.assert_array_equal(finished, terminated)  # final info exactly when a game ends
        record += [observations["observation"].copy(), observations["action_mask"].copy(),
                   rewards, terminated, finished,
                   infos.get("final_populations", np.zeros((env.num_envs, 4), np.int32))]
    return record


@pytest.mark.parametrize("options", [dict(), dict(mode="standard", players=4, opponents="random",
                                                  learner_seat="random")])
def test_same_seed_same_trajectory_for_one_or_two_threads(options):
    """Each game draws from its own generator, so the chunking over threads changes
    nothing; a different seed gives different games."""
    first = _trajectory(SuburbiaVectorEnv(6, num_threads=1, **options), 11, 40)
    second = _trajectory(SuburbiaVectorEnv(6, num_threads=1, **options), 11, 40)
    threaded = _trajectory(SuburbiaVectorEnv(6, num_threads=2, **options), 11, 40)
    for one, two, three in zip(first, second, threaded):
        np.testing.assert_array_equal(one, two)
        np.testing.assert_array_equal(one, three)
    assert any(record.any() for record in first[4::6])  # some game finished within the run
    other = SuburbiaVectorEnv(6, num_threads=1, **options).reset(seed=12)[0]["observation"]
    assert not np.array_equal(first[0], other)


def test_random_learner_seats_vary_between_games():
    env = SuburbiaVectorEnv(16, mode="standard", players=4, opponents="random",
                            learner_seat="random", num_threads=1)
    env.reset(seed=3)
    assert set(env.learners.tolist()) == {0, 1, 2, 3}
    np.testing.assert_array_equal(env.states[:, s.CURRENT_PLAYER], env.learners)


@pytest.mark.parametrize("learner_seat", ["random", 2])
def test_final_infos_name_the_seat_each_finished_game_was_played_from(learner_seat):
    """`learner_seats` holds the seats before the same-step reset (which may draw new
    random seats), and the finished game's winners agree with its populations."""
    env = SuburbiaVectorEnv(6, mode="standard", players=4, opponents="random",
                            learner_seat=learner_seat, num_threads=1)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    finished_games = 0
    while finished_games < 12:
        seats_before = env.learners.copy()
        _, _, terminated, _, infos = env.step(random_legal_batch(env.action_masks(), rng))
        if not terminated.any():
            continue
        finished_games += int(terminated.sum())
        np.testing.assert_array_equal(infos["learner_seats"], seats_before)
        for index in np.flatnonzero(terminated):
            populations = infos["final_populations"][index]
            assert infos["final_winners"][index][np.argmax(populations)] or (
                np.sort(populations)[-1] == np.sort(populations)[-2])  # ties: R8.3 tie-breaks
    if learner_seat == 2:
        assert set(env.learners.tolist()) == {2}


def test_pickled_and_deep_copied_vector_env_continues_identically():
    env = SuburbiaVectorEnv(4, mode="standard", players=3, opponents="random", num_threads=1)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(12):
        env.step(random_legal_batch(env.action_masks(), rng))
    runs = []
    for each in (env, pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        actions = np.random.default_rng(9)
        run = []
        for _ in range(60):
            observations, rewards, terminated, _, _ = each.step(
                random_legal_batch(each.action_masks(), actions))
            run += [observations["observation"], rewards, terminated]
        runs.append(run)
    for other in runs[1:]:
        for one, two in zip(runs[0], other):
            np.testing.assert_array_equal(one, two)


def test_buffers_replaced_by_arrays_of_another_type_are_refused():
    """The compiled entry points trust the buffers' types: a replacement of another dtype,
    shape or layout is refused with a ConfigError naming the buffer, and the env still
    steps; a replacement of the same type is taken and used."""
    env = SuburbiaVectorEnv(3, num_threads=1)
    env.reset(seed=1)
    for name, bad in [("states", env.states.astype(np.int64)),
                      ("rng_words", env.rng_words[:2]),
                      ("masks", np.asfortranarray(np.zeros((3, a.NUM_ACTIONS, 2), bool))[..., 0]),
                      ("observations", [[0.0]])]:
        with pytest.raises(ConfigError, match=name):
            setattr(env, name, bad)
    frozen = env.states.copy()
    frozen.flags.writeable = False
    with pytest.raises(ConfigError, match="writeable"):
        env.states = frozen
    other = SuburbiaVectorEnv(3, num_threads=1)
    other.reset(seed=2)
    env.states = other.states.copy()
    env.step(random_legal_batch(other.action_masks(), np.random.default_rng(0)))
    assert not np.array_equal(env.states, other.states)  # env moved, from other's games

# Agreement with the Gymnasium environment ----------------------------------------------------

@pytest.mark.parametrize("options", [
    dict(),
    dict(mode="standard", players=3, opponents="random", learner_seat=1),
    dict(mode="standard", players=4, opponents=["dale", "random"], learner_seat=2),
])
def test_vector_env_of_one_agrees_with_the_gymnasium_env(options):
    """The one-game vector env is given the Gymnasium env's game and its compiled
    opponents' generator; the same actions then give the same observations, masks,
    rewards and ends in both (opponents draw from the same generator words)."""
    gym_env = SuburbiaEnv(**options)
    vector = SuburbiaVectorEnv(1, num_threads=1, **options)
    for episode in range(2):
        gym_observation, info = gym_env.reset(seed=episode)
        vector.reset(seed=episode)
        vector.states[0] = gym_env.state
        vector.rng_words[0] = gym_env._opponent_words
        vector.learners[0] = info["learner_seat"]
        rng = np.random.default_rng(episode)
        steps = 0
        while True:
            action = int(rng.choice(np.flatnonzero(gym_observation["action_mask"])))
            gym_observation, gym_reward, gym_done, _, _ = gym_env.step(action)
            vector_observation, rewards, terminated, _, infos = vector.step(np.array([action]))
            steps += 1
            assert rewards[0] == gym_reward and terminated[0] == gym_done
            if gym_done:
                np.testing.assert_array_equal(infos["final_obs"][0]["observation"],
                                              gym_observation["observation"])
                np.testing.assert_array_equal(infos["final_obs"][0]["action_mask"],
                                              gym_observation["action_mask"])
                break
            np.testing.assert_array_equal(vector.states[0], gym_env.state)
            np.testing.assert_array_equal(vector_observation["observation"][0],
                                          gym_observation["observation"])
            np.testing.assert_array_equal(vector_observation["action_mask"][0],
                                          gym_observation["action_mask"])
        assert steps > 15


def test_make_vec_builds_the_compiled_vector_env_with_the_given_options():
    """`gymnasium.make_vec("Suburbia-v1")` gives the compiled vector env (the registered
    vector entry point), not N Python envs; the options reach it, so it starts the same
    games as the class built directly."""
    import gymnasium as gym

    options = dict(players=3, mode="standard", opponents="random", learner_seat="random")
    made = gym.make_vec("Suburbia-v1", num_envs=5, num_threads=1, **options)
    direct = SuburbiaVectorEnv(5, num_threads=1, **options)
    assert type(made) is SuburbiaVectorEnv and made.num_envs == 5 and made.seats == 3
    assert made.spec.id == "Suburbia-v1" and made.spec.kwargs["num_envs"] == 5
    made_observation, _ = made.reset(seed=11)
    direct_observation, _ = direct.reset(seed=11)
    np.testing.assert_array_equal(made.states, direct.states)
    np.testing.assert_array_equal(made_observation["observation"],
                                  direct_observation["observation"])
    with pytest.raises(ConfigError, match="compiled opponents only"):
        gym.make_vec("Suburbia-v1", num_envs=2, opponents=lambda game: 0)
    synchronous = gym.make_vec("Suburbia-v1", num_envs=2, vectorization_mode="sync")
    assert isinstance(synchronous, gym.vector.SyncVectorEnv)
    synchronous.close()


# The stable-baselines3 adapter ------------------------------------------------------------------

def test_sb3_adapter_steps_masks_and_terminal_observations():
    venv = SB3VectorEnv(num_envs=3, num_threads=1)
    venv.seed(7)
    observations = venv.reset()
    assert observations.shape == (3, OBSERVATION_SIZE) and observations.dtype == np.float32
    again = SB3VectorEnv(num_envs=3, num_threads=1)
    again.seed(7)
    np.testing.assert_array_equal(again.reset(), observations)  # seed() is honoured
    rng = np.random.default_rng(1)
    finished = 0
    while finished < 3:
        masks = np.stack(venv.env_method("action_masks"))
        np.testing.assert_array_equal(masks, venv.vector_env.action_masks())
        np.testing.assert_array_equal(np.stack(venv.env_method("action_masks", indices=[2])),
                                      masks[2:])
        observations, rewards, dones, infos = venv.step(random_legal_batch(masks, rng))
        assert rewards.dtype == np.float32 and len(infos) == 3
        for index in range(3):
            if dones[index]:
                finished += 1
                terminal = infos[index]["terminal_observation"]
                assert terminal.shape == (OBSERVATION_SIZE,)
                assert terminal[GAME_PART][3 + c.DECISION_NONE] == 1.0
                assert infos[index]["TimeLimit.truncated"] is False
            else:
                assert "terminal_observation" not in infos[index]
    assert venv.get_attr("num_envs") == [3, 3, 3]
    assert venv.env_is_wrapped(object) == [False, False, False]


def test_sb3_adapter_needs_flat_observations():
    with pytest.raises(ValueError, match="observation_format='flat'"):
        SB3VectorEnv(SuburbiaVectorEnv(2, num_threads=1))


def test_copy_false_hands_out_the_env_buffers_and_matches_copy_true():
    """copy=False returns the env's own observation, mask, reward and terminal arrays
    (overwritten by the next step); copy=True returns fresh arrays. Both envs, stepped
    with the same seed and actions, produce the same values."""
    fresh = SuburbiaVectorEnv(4, observation_format="flat", num_threads=1)
    shared = SuburbiaVectorEnv(4, observation_format="flat", num_threads=1, copy=False)
    fresh_observations, _ = fresh.reset(seed=9)
    shared_observations, _ = shared.reset(seed=9)
    assert shared_observations is shared.observations
    assert fresh_observations is not fresh.observations
    assert shared.action_masks() is shared.masks
    rng = np.random.default_rng(1)
    saw_final = False
    for _ in range(60):
        actions = random_legal_batch(fresh.action_masks(), rng)
        expected = fresh.step(actions)
        got = shared.step(actions)
        assert got[0] is shared.observations and got[1] is shared.rewards
        for expected_part, got_part in zip(expected[:4], got[:4]):
            np.testing.assert_array_equal(expected_part, got_part)
        if "final_obs" in expected[4]:
            saw_final = True
            assert got[4]["final_obs"] is shared.final_observations
            rows = expected[4]["_final_obs"]
            np.testing.assert_array_equal(expected[4]["final_obs"][rows],
                                          got[4]["final_obs"][rows])
            assert expected[4]["final_obs"][rows].any()
            assert not expected[4]["final_obs"][~rows].any()  # copy=True copies finished rows
    assert saw_final
