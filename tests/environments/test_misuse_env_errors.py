"""Misuse of the environments (Gymnasium, vector, PettingZoo, self-play, OpenSpiel) raises
the project's own exception with a message naming the problem, and no game moves; with
illegal_action="lose" anything that is not a legal action loses (issue 22, item 3). Each
kind of misuse raises the same SuburbiaError subclass from every environment (issue 21,
item 3): a bad option ConfigError, a bad seed ArgumentError, a step before reset or on a
finished game GameOverError, an illegal action IllegalActionError."""

from __future__ import annotations

import numpy as np
import pytest

from misuse_inputs import NOT_ACTION_NUMBERS, assert_names_the_problem, case_id
from suburbia_env.errors import (ArgumentError, ConfigError, GameOverError,
                                 IllegalActionError)
from suburbia_env.envs.gym_env import SuburbiaEnv
from suburbia_env.envs.pettingzoo import env as aec_env
from suburbia_env.envs.pettingzoo import raw_env
from suburbia_env.envs.vector_env import SuburbiaVectorEnv
from suburbia_env.envs.sb3 import SB3VectorEnv
from training.self_play import SelfPlayVecEnv


# Gymnasium environment ----------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    (dict(population_shaping="0.1"), "population_shaping must be a finite number"),
    (dict(population_shaping=float("nan")), "population_shaping must be a finite number"),
    (dict(population_shaping=None), "population_shaping"),
    (dict(learner_seat=1.0), "learner_seat must be 'random' or a seat"),
    (dict(learner_seat=np.array([0])), "learner_seat must be"),
    (dict(learner_seat=True), "learner_seat must be"),
    (dict(mode="standard", players=2, learner_seat=2**63), "learner_seat must be"),
    (dict(opponents=5), "opponents must be a name, an agent, a callable or a list"),
    (dict(opponents=[object()]), "is neither a name, an agent nor a callable"),
    (dict(reward=["win_loss"]), "reward must be one of"),
    (dict(reward=np.array(["margin"])), "reward must be one of"),
    (dict(illegal_action=None), "illegal_action must be 'raise' or 'lose'"),
    (dict(observation_format=np.array(["flat"])), "observation_format must be"),
    (dict(render_mode=3), "render_mode must be one of"),
    (dict(players=10**5000), "wrong player count"),
], ids=case_id)
def test_gym_configuration_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        SuburbiaEnv(**options)


@pytest.mark.parametrize("seed", [-1, "1", 1.5, True, 2**64 * -1])
def test_gym_reset_refuses_bad_seeds(seed):
    with pytest.raises(ArgumentError, match="seed must be None or a non-negative integer"):
        SuburbiaEnv().reset(seed=seed)


def test_gym_reset_takes_numpy_integer_seeds():
    first, _ = SuburbiaEnv().reset(seed=np.int64(4))
    second, _ = SuburbiaEnv().reset(seed=4)
    assert np.array_equal(first["observation"], second["observation"])


def test_gym_step_before_reset_is_refused():
    with pytest.raises(GameOverError, match="call reset"):
        SuburbiaEnv().step(0)


ENV_BAD_ACTIONS = [action for action in NOT_ACTION_NUMBERS if not isinstance(action, float)
                   or not np.isfinite(action) or action != int(action)] + [0, "pass", "buy 1"]


@pytest.mark.parametrize("action", ENV_BAD_ACTIONS, ids=case_id)
def test_gym_step_refuses_and_leaves_the_game_as_it_was(action):
    env = SuburbiaEnv(illegal_action="raise")
    observation, _ = env.reset(seed=1)
    state = env.state.copy()
    with pytest.raises(IllegalActionError) as raised:
        env.step(action)
    assert_names_the_problem(str(raised.value))
    assert np.array_equal(env.state, state)
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    env.step(legal)  # the episode goes on


@pytest.mark.parametrize("action", ENV_BAD_ACTIONS, ids=case_id)
def test_gym_lose_mode_loses_on_any_illegal_action(action):
    env = SuburbiaEnv()  # illegal_action="lose" is the default (issue 20)
    env.reset(seed=1)
    state = env.state.copy()
    _, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert np.array_equal(env.state, state)
    with pytest.raises(GameOverError):
        env.step(0)


def test_a_python_opponent_answering_nonsense_is_named():
    for answer in (2**63, 3.5, "buy 99 @ 0,0", None):
        env = SuburbiaEnv(mode="standard", players=2, opponents=lambda game, a=answer: a,
                          learner_seat=1)
        with pytest.raises(IllegalActionError, match="opponent in seat 0 chose an illegal"):
            observation, _ = env.reset(seed=2)
            for _ in range(10):  # the learner keeps its goal, then the opponent decides
                observation, *_ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))


# Vector environment ---------------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    (dict(num_envs=True), "num_envs must be a positive integer"),
    (dict(num_envs=2.0), "num_envs must be a positive integer"),
    (dict(num_envs="2"), "num_envs must be a positive integer"),
    (dict(num_threads=0), "num_threads must be None or a positive integer"),
    (dict(num_threads="2"), "num_threads"),
    (dict(learner_seat=1), "with Dale the player always takes seat 0"),
    (dict(population_shaping="x"), "population_shaping"),
    (dict(reward=None), "reward must be one of"),
    (dict(opponents=3), "opponents must be"),
], ids=case_id)
def test_vector_configuration_errors(options, message):
    options = {"num_envs": 2, **options}
    with pytest.raises(ConfigError, match=message):
        SuburbiaVectorEnv(**options)


@pytest.fixture(scope="module")
def vector_env():
    env = SuburbiaVectorEnv(3, num_threads=1, observation_format="flat")
    env.reset(seed=5)
    return env


@pytest.mark.parametrize("actions, message", [
    ([[1, 2], [3]], "actions must be 3 integers, not"),  # ragged: numpy's ValueError before
    ([1, [2, 3], 4], "actions must be 3 integers"),
    ([0, 0], r"shape \(2,\)"), ([[0, 0, 0]], r"shape \(1, 3\)"),
    ([0.0, 0.0, 0.0], "dtype float64"), (["pass"] * 3, "dtype <U4"), ([None] * 3, "dtype object"),
    ([2**70] * 3, "dtype object"), ([True] * 3, "dtype bool"), (None, "shape ()"),
    ("pass", "shape ()"), (np.array([2**64 - 1] * 3, dtype=np.uint64), "environment 0: action "
                                                                       "18446744073709551615"),
    (np.array([-1, 0, 0]), r"environment 0: action -1 is outside 0\.\.2122"),
    (np.array([2**63 - 1, 0, 0]), "environment 0: action 9223372036854775807 is outside"),
    (np.array([0, 0, 0]), r"environment 0: illegal action"),
], ids=case_id)
def test_vector_step_refuses_and_no_game_moves(vector_env, actions, message):
    states = vector_env.states.copy()
    with pytest.raises(IllegalActionError, match=message) as raised:
        vector_env.step(actions)
    assert_names_the_problem(str(raised.value))
    assert np.array_equal(vector_env.states, states)


@pytest.mark.parametrize("index", [-1, 3, 2**63, 1.0, "0", None, True])
def test_vector_game_index_is_checked(vector_env, index):
    with pytest.raises(ArgumentError, match=r"index must be an environment 0\.\.2"):
        vector_env.game(index)


@pytest.mark.parametrize("seed", [-1, "1", 1.5, True])
def test_vector_reset_refuses_bad_seeds(seed):
    with pytest.raises(ArgumentError, match="seed must be"):
        SuburbiaVectorEnv(2, num_threads=1).reset(seed=seed)


# PettingZoo environment ----------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    (dict(players=1), "seats 2 to 4"), (dict(players="2"), "seats 2 to 4"),
    (dict(players=2.0), "seats 2 to 4"), (dict(players=True), "seats 2 to 4"),
    (dict(edition="3rd"), "edition must be"), (dict(reward="points"), "reward must be"),
    (dict(illegal_action="ignore"), "illegal_action must be"),
    (dict(max_cycles=0), "max_cycles must be None or a positive integer"),
    (dict(max_cycles="10"), "max_cycles"), (dict(render_mode="human"), "render_mode"),
], ids=case_id)
def test_pettingzoo_configuration_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        raw_env(**options)


def test_pettingzoo_order_and_agent_names():
    for make in (raw_env, aec_env):
        env = make()
        with pytest.raises(GameOverError, match="call reset"):
            env.step(0)
        with pytest.raises(GameOverError, match="call reset"):
            env.observe("player_0")
        env.reset(seed=1)
        for agent in ("player_9", None, 0, ["player_0"]):
            with pytest.raises(ArgumentError, match="no agent .*the agents are player_0"):
                env.observe(agent)
        with pytest.raises(ArgumentError, match="seed must be"):
            env.reset(seed=-3)


@pytest.mark.parametrize("action", ENV_BAD_ACTIONS, ids=case_id)
def test_pettingzoo_step_refuses_or_loses(action):
    env = raw_env()
    env.reset(seed=2)
    state = env.game.state.copy()
    with pytest.raises(IllegalActionError) as raised:
        env.step(action)
    assert_names_the_problem(str(raised.value))
    assert np.array_equal(env.game.state, state)
    losing = raw_env(illegal_action="lose")
    losing.reset(seed=2)
    agent = losing.agent_selection
    losing.step(action)
    assert losing.rewards[agent] == -1.0 and all(losing.terminations.values())
    with pytest.raises(IllegalActionError, match="its only step is step"):
        losing.step(0)  # a done agent steps with None only
    losing.step(None)


# The same exception for the same misuse, from every environment ------------------------------

def _openspiel():
    from suburbia_env.envs import openspiel_game
    return openspiel_game


BAD_OPTIONS = {
    "gymnasium": lambda: SuburbiaEnv(reward="points"),
    "vector": lambda: SuburbiaVectorEnv(2, reward="points"),
    "sb3": lambda: SB3VectorEnv(num_envs=2, reward="points"),
    "pettingzoo": lambda: raw_env(reward="points"),
    "self-play": lambda: SelfPlayVecEnv(num_envs=2, reward="points"),
    "openspiel": lambda: _openspiel().load_game(reward="points"),
}


@pytest.mark.parametrize("environment", list(BAD_OPTIONS))
def test_a_bad_option_is_a_config_error_everywhere(environment):
    with pytest.raises(ConfigError, match="reward must be one of win_loss, margin, not 'points'"):
        BAD_OPTIONS[environment]()


@pytest.mark.parametrize("options, message", [
    (dict(players=(2, 5)), "self-play seats 2 to 4 players"),
    (dict(players=True), "self-play seats 2 to 4 players"),
    (dict(dale_share=0.7, greedy_share=0.5), "shares adding up to at most 1"),
    (dict(dale_share="0.1"), "dale_share must be a finite number"),
    (dict(population_shaping=float("inf")), "population_shaping must be a finite number"),
    (dict(pool_size=0), "pool_size must be a positive integer"),
    (dict(num_envs=0), "num_envs must be a positive integer"),
    (dict(edition="3rd"), "edition must be"),
], ids=case_id)
def test_self_play_configuration_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        SelfPlayVecEnv(**{"num_envs": 2, **options})


def test_openspiel_observer_options_are_config_errors():
    openspiel_game = _openspiel()
    with pytest.raises(ConfigError, match="observers take no parameters"):
        openspiel_game.load_game().make_py_observer(None, {"x": 1})


def test_a_bad_seed_is_an_argument_error_everywhere():
    self_play = SelfPlayVecEnv(num_envs=2)
    self_play.seed(-5)
    for reset in (lambda: SuburbiaEnv().reset(seed=-5),
                  lambda: SuburbiaVectorEnv(2, num_threads=1).reset(seed=-5),
                  lambda: raw_env().reset(seed=-5),
                  self_play.reset):
        with pytest.raises(ArgumentError, match="seed must be None or a non-negative integer, "
                                                "not -5"):
            reset()
    with pytest.raises(ArgumentError, match="seed must be"):
        SelfPlayVecEnv(num_envs=2, seed=-1)


def test_a_step_before_reset_is_a_game_over_error_everywhere():
    steps = {
        "gymnasium": lambda: SuburbiaEnv().step(0),
        "vector": lambda: SuburbiaVectorEnv(2, num_threads=1).step(np.zeros(2, np.int64)),
        "sb3": lambda: SB3VectorEnv(num_envs=2, num_threads=1).step(np.zeros(2, np.int64)),
        "pettingzoo": lambda: raw_env().step(0),
        "self-play": lambda: SelfPlayVecEnv(num_envs=2).step(np.zeros(2, np.int64)),
    }
    for name, step in steps.items():
        with pytest.raises(GameOverError, match=r"call reset\(\) before step\(\)"):
            step()


def test_a_step_on_a_finished_game_is_a_game_over_error_everywhere():
    """The vector and self-play environments reset a finished game in the same step, so
    only the environments with an end of their own are asked."""
    env = SuburbiaEnv(mode="solitary", illegal_action="raise")
    observation, _ = env.reset(seed=1)
    done = False
    while not done:
        observation, _, done, _, _ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    with pytest.raises(GameOverError, match="call reset"):
        env.step(0)
    aec = raw_env()
    aec.reset(seed=1)
    for agent in aec.agent_iter():
        _, _, termination, truncation, _ = aec.last()
        aec.step(None if termination or truncation
                 else int(np.flatnonzero(aec.observe(agent)["action_mask"])[0]))
    with pytest.raises(GameOverError, match="call reset"):
        aec.step(0)
    openspiel_game = _openspiel()
    state = openspiel_game.load_game(players=2).new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(GameOverError):
        state.apply_action(0)


def test_an_illegal_action_is_an_illegal_action_error_everywhere():
    """Action 0 (PASS) is not legal while a goal is to be kept (R3.6), the first decision
    of every game here; no game moves."""
    gym_env = SuburbiaEnv(mode="standard", players=2, opponents="random",
                          illegal_action="raise")
    gym_env.reset(seed=3)
    vector = SuburbiaVectorEnv(2, mode="standard", players=2, opponents="random",
                               num_threads=1)
    vector.reset(seed=3)
    self_play = SelfPlayVecEnv(num_envs=2, players=2, greedy_share=1.0, dale_share=0.0)
    self_play.seed(3)
    self_play.reset()
    aec = raw_env()
    aec.reset(seed=3)
    openspiel_game = _openspiel()
    state = openspiel_game.load_game(players=2).new_initial_state()
    for _ in range(openspiel_game.SEED_BYTES):
        state.apply_action(7)
    cases = [(lambda: gym_env.step(0), lambda: gym_env.state),
             (lambda: vector.step(np.zeros(2, np.int64)), lambda: vector.states),
             (lambda: self_play.step(np.zeros(2, np.int64)), lambda: self_play.states),
             (lambda: aec.step(0), lambda: aec.game.state),
             (lambda: state.apply_action(0), lambda: state.suburbia_game().state)]
    for step, states in cases:
        before = states().copy()
        with pytest.raises(IllegalActionError, match="illegal action|not legal") as raised:
            step()
        assert_names_the_problem(str(raised.value))
        assert np.array_equal(states(), before)


def test_self_play_refuses_actions_that_are_not_a_batch_of_integers():
    env = SelfPlayVecEnv(num_envs=2, players=2, greedy_share=1.0, dale_share=0.0)
    env.seed(1)
    env.reset()
    states = env.states.copy()
    for actions, message in [([1, [2, 3]], "actions must be 2 integers"),
                             ([0.0, 0.0], "dtype float64"), ([0, 0, 0], "actions must be 2")]:
        with pytest.raises(IllegalActionError, match=message):
            env.step(actions)
    assert np.array_equal(env.states, states)


def test_an_openspiel_chance_outcome_outside_the_bytes_is_illegal():
    state = _openspiel().load_game().new_initial_state()
    for outcome in (256, 1000):
        with pytest.raises(IllegalActionError, match=r"seed byte 0\.\.255"):
            state.apply_action(outcome)
    assert str(state).startswith("dealing: 0 of")
