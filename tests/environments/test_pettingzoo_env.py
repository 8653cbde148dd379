"""The PettingZoo AEC environment (pettingzoo.py): PettingZoo's API and seed tests,
truncation after `max_cycles`, masks, end-of-game rewards (R8.3), illegal actions,
copies, rendering, and agreement with the Gymnasium environment on the same states.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from suburbia_env.engine import action_space as a
from suburbia_env.engine import state_layout as s
from suburbia_env.errors import ConfigError, IllegalActionError
from suburbia_env.game import Game, GameConfig
from suburbia_env.envs.gym_env import SuburbiaEnv
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.envs.pettingzoo import env as make_env
from suburbia_env.envs.pettingzoo import raw_env
from suburbia_env.engine.tile_data import TILES

# PettingZoo's api_test warns about every Dict observation with an action mask (its own
# classic environments do the same); those two warnings are expected, others are not.
EXPECTED_API_WARNINGS = ("Observation space for each agent probably should be",
                         "Observation is not a NumPy array")


def play_to_end(env, rng: np.random.Generator):
    """The standard AEC loop with random legal actions; the (agent, last()) pairs."""
    seen = []
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        seen.append((agent, observation, reward, termination, truncation))
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test(players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make_env(players=players), num_cycles=1000, verbose_progress=False)
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(EXPECTED_API_WARNINGS)]
    assert unexpected == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: make_env(players=players), num_cycles=500)


@pytest.mark.parametrize("players,max_cycles", [(2, 4), (3, 5), (4, 3)])
def test_max_cycles_truncates_every_agent_and_ends_the_iteration(players, max_cycles):
    """After max_cycles x players actions the game is cut: each agent sees
    truncation=True (not termination) once, steps None, and agent_iter ends."""
    env = make_env(players=players, max_cycles=max_cycles)
    env.reset(seed=9)
    seen = play_to_end(env, np.random.default_rng(1))
    live = [entry for entry in seen if not (entry[3] or entry[4])]
    dead = seen[len(live):]
    assert len(live) == max_cycles * players
    assert sorted(entry[0] for entry in dead) == sorted(env.possible_agents)
    assert all(entry[4] and not entry[3] and entry[2] == 0.0 for entry in dead)
    assert env.agents == []
    assert not env.unwrapped.game.is_over


def test_without_max_cycles_the_game_ends_by_termination():
    env = make_env(players=2, max_cycles=10_000)
    env.reset(seed=3)
    seen = play_to_end(env, np.random.default_rng(2))
    dead = [entry for entry in seen if entry[3] or entry[4]]
    assert len(dead) == 2 and all(entry[3] and not entry[4] for entry in dead)
    assert env.unwrapped.game.is_over


@pytest.mark.parametrize("players", [2, 3, 4])
def test_masks_observations_and_win_loss_rewards_r8_3(players):
    """The acting agent's mask is the engine's legal mask; every other agent's (and
    everyone's at the end) is PASS alone; observations are encode_observation of the
    agent's seat; final rewards: +1 sole winner, 0 shared win, -1 otherwise."""
    env = raw_env(players=players)
    env.reset(seed=40 + players)
    rng = np.random.default_rng(players)
    pass_alone = np.zeros(a.NUM_ACTIONS, dtype=np.int8)
    pass_alone[a.ACTION_PASS] = 1
    while not env.game.is_over:
        acting = env.agent_selection
        assert env.possible_agents.index(acting) == env.game.current_player
        for seat, agent in enumerate(env.possible_agents):
            observation = env.observe(agent)
            expected = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
            encode_observation(env.game.state, TILES.table, seat, expected)
            np.testing.assert_array_equal(observation["observation"], expected)
            if agent == acting:
                np.testing.assert_array_equal(observation["action_mask"] == 1,
                                              env.game.legal_action_mask())
            else:
                np.testing.assert_array_equal(observation["action_mask"], pass_alone)
        assert all(reward == 0.0 for reward in env.rewards.values())
        env.step(int(rng.choice(np.flatnonzero(env.observe(acting)["action_mask"]))))
    winners = env.game.winners
    for seat, agent in enumerate(env.possible_agents):
        expected = 1.0 if winners == [seat] else 0.0 if seat in winners else -1.0
        assert env.rewards[agent] == expected
        assert env.terminations[agent]
        assert env.infos[agent]["final_score"] == env.game.final_scores()[seat]
        np.testing.assert_array_equal(env.observe(agent)["action_mask"], pass_alone)


def test_margin_rewards_r8_2():
    """margin: (own - best other final population) / 100 for every agent."""
    env = raw_env(players=3, reward="margin")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    while not env.game.is_over:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    populations = [score["population"] for score in env.game.final_scores()]
    for seat, agent in enumerate(env.possible_agents):
        best_other = max(p for other, p in enumerate(populations) if other != seat)
        assert env.rewards[agent] == pytest.approx((populations[seat] - best_other) / 100)


# Errors --------------------------------------------------------------------------------------

def test_illegal_action_raises_naming_it():
    env = raw_env(players=2)
    env.reset(seed=1)
    state = env.game.state.copy()
    with pytest.raises(IllegalActionError, match=r"illegal action 'pass' \(number 2122\)"):
        env.step(a.ACTION_PASS)  # the pending decision is a goal choice (R3.6)
    with pytest.raises(IllegalActionError, match=r"chose 'keep'"):
        env.step("keep")
    np.testing.assert_array_equal(env.game.state, state)


def test_illegal_action_lose_gives_minus_one_and_ends_the_game():
    env = make_env(players=3, illegal_action="lose")
    env.reset(seed=2)
    offender = env.agent_selection
    env.step(a.ACTION_PASS)
    seen = play_to_end(env, np.random.default_rng(0))
    assert sorted(entry[0] for entry in seen) == sorted(env.possible_agents)
    for agent, _, reward, termination, truncation in seen:
        assert termination and not truncation
        assert reward == (-1.0 if agent == offender else 0.0)


@pytest.mark.parametrize("options,message", [
    (dict(players=1), r"wrong player count.*2 to 4 players, not 1"),
    (dict(players=5), r"wrong player count.*not 5"),
    (dict(reward="points"), r"reward must be one of"),
    (dict(illegal_action="skip"), r"illegal_action must be 'raise' or 'lose'"),
    (dict(render_mode="human"), r"render_mode must be one of"),
    (dict(edition="3rd"), r"edition must be '2nd' or '1st'"),
])
def test_bad_options_raise_config_error(options, message):
    with pytest.raises(ConfigError, match=message):
        env = raw_env(**options)
        env.reset(seed=0)


# Copies, determinism, rendering ----------------------------------------------------------------

@pytest.mark.parametrize("moves", [0, 11])
def test_pickled_and_deep_copied_env_continues_identically(moves):
    env = make_env(players=3)
    env.reset(seed=6)
    rng = np.random.default_rng(1)
    for _ in range(moves):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    runs = []
    for each in (env, pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        seen = play_to_end(each, np.random.default_rng(3))
        runs.append(seen)
    for other in runs[1:]:
        assert len(other) == len(runs[0])
        for one, two in zip(runs[0], other):
            assert one[0] == two[0] and one[2:] == two[2:]
            np.testing.assert_array_equal(one[1]["observation"], two[1]["observation"])
            np.testing.assert_array_equal(one[1]["action_mask"], two[1]["action_mask"])


def test_same_seed_same_game_and_different_seed_different_game():
    games = []
    for seed in (8, 8, 9):
        env = make_env(players=4)
        env.reset(seed=seed)
        seen = play_to_end(env, np.random.default_rng(4))
        games.append(([entry[0] for entry in seen], env.unwrapped.game.state.copy()))
    assert games[0][0] == games[1][0]
    np.testing.assert_array_equal(games[0][1], games[1][1])
    assert not np.array_equal(games[0][1], games[2][1])


def test_render_modes():
    env = raw_env(players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Market (R4.1)" in text and "\nPlayer 0" in text and "\nPlayer 1" in text
    for row in env.game.market():
        assert row["tile"] in text
    images = {}
    for players in (2, 4):
        picture = raw_env(players=players, render_mode="rgb_array")
        picture.reset(seed=0)
        images[players] = picture.render()
        assert images[players].dtype == np.uint8 and images[players].ndim == 3
        assert images[players].shape[2] == 3
    # Boroughs two by two (picture.py): four players take a second row of panels.
    assert images[4].shape[1] == images[2].shape[1] and images[4].shape[0] > images[2].shape[0]
    silent = raw_env(players=2)
    silent.reset(seed=0)
    assert silent.render() is None


# Agreement with the Gymnasium environment --------------------------------------------------------

def _deterministic_policy(game: Game) -> int:
    """Any fixed function of the state: both environments see the same states."""
    legal = game.legal_actions()
    return int(legal[int(game.state.astype(np.int64).sum()) % legal.size])


@pytest.mark.parametrize("players,seed", [(2, 3), (3, 14), (4, 15)])
def test_pettingzoo_and_gymnasium_agree_on_the_same_game(players, seed):
    """Both environments start from the same new game (the Gymnasium one, its learner
    being the first player so that no opponent has moved yet); the learner plays the
    same random actions in both, the other seats the same Python policy. At every
    learner decision both give encode_observation of the same state and the same mask;
    at the end both give the learner the same reward (R8.3)."""
    probe = SuburbiaEnv(mode="standard", players=players, opponents="random")
    probe.reset(seed=seed)
    learner = int(probe.state[s.FIRST_PLAYER])
    gym_env = SuburbiaEnv(mode="standard", players=players, learner_seat=learner,
                          opponents=_deterministic_policy)
    gym_observation, _ = gym_env.reset(seed=seed)  # same seed: same game as the probe
    # Same seed, same new game: the learner is its first player, so nobody has decided yet.
    assert gym_env.state[s.FIRST_PLAYER] == learner == gym_env.state[s.CURRENT_PLAYER]
    assert all(gym_env.state[s.player_base(seat) + s.PRIVATE_GOAL] == -1
               for seat in range(players))
    pz_env = raw_env(players=players)
    pz_env.reset(seed=0)
    pz_env.game = Game.from_state(GameConfig(players, "standard"), gym_env.state)
    pz_env.agent_selection = pz_env.possible_agents[learner]
    learner_agent = pz_env.possible_agents[learner]
    rng = np.random.default_rng(seed)
    decisions = 0
    while True:
        np.testing.assert_array_equal(gym_env.state, pz_env.game.state)
        pz_observation = pz_env.observe(learner_agent)
        expected = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        encode_observation(gym_env.state, TILES.table, learner, expected)
        np.testing.assert_array_equal(gym_observation["observation"], expected)
        np.testing.assert_array_equal(pz_observation["observation"], expected)
        np.testing.assert_array_equal(gym_observation["action_mask"], pz_observation["action_mask"])
        if pz_env.game.is_over:
            break
        assert pz_env.agent_selection == learner_agent
        action = int(rng.choice(np.flatnonzero(gym_observation["action_mask"])))
        gym_observation, gym_reward, terminated, _, _ = gym_env.step(action)
        decisions += 1
        pz_env.step(action)
        while not pz_env.game.is_over and pz_env.agent_selection != learner_agent:
            pz_env.step(_deterministic_policy(pz_env.game))
        assert terminated == pz_env.game.is_over
    assert gym_reward == pz_env.rewards[learner_agent]
    assert decisions > 15
