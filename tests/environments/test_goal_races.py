"""The observation's "goal_races" part (observation.py): the goal races of final scoring
as the rules judge them (R8.2), from public information and the observer's own private
goal only (R10.2); and the models of the 8714-entry observation before it, which read
that prefix and decide exactly as before, also when a training run starts from them."""

from __future__ import annotations

import numpy as np
import pytest

from hidden_facts import seen_by, with_other_hidden_facts
from suburbia_env import Game
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.observation import (GOAL_RACE_ALONE, GOAL_RACE_LEAD, GOAL_RACE_ROWS,
                                             GOAL_RACE_SCALES, GOAL_RACE_VALUES,
                                             OBSERVATION_PARTS, OBSERVATION_SIZE,
                                             OBSERVATION_SIZE_V1, unpack_observation)
from suburbia_env.engine.scoring import goal_lead, goal_value, public_goal_winner
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import goal_criterion

from repository import REPO

SETUPS = ((2, "standard"), (3, "standard"), (4, "standard"), (1, "dale"), (1, "solitary"))


def _positions(count_per_game: int = 25, seeds=(0, 1)):
    """(state copy, seat to act) along random games of every setup."""
    positions = []
    for players, mode in SETUPS:
        for seed in seeds:
            game = Game(players, mode, "2nd" if seed else "1st", seed=seed)
            generator = np.random.default_rng(seed)
            step = 0
            while not game.is_over:
                if step % 7 == 0:
                    positions.append((game.state.copy(), game.current_player))
                game.apply(int(generator.choice(game.legal_actions())))
                step += 1
            positions.append((game.state.copy(), 0))
    return positions


POSITIONS = _positions()


def _goal_of_row(state, seat, row):
    return s.public_goal(state, row) if row < c.MAX_PLAYERS else s.private_goal(state, seat)


def test_the_part_comes_last_and_leaves_the_old_entries_where_they_were():
    part, shape = OBSERVATION_PARTS["goal_races"]
    assert shape == (5, 9) and part == slice(8714, 8759)
    assert OBSERVATION_SIZE_V1 == 8714 and OBSERVATION_SIZE == 8714 + 45
    assert OBSERVATION_PARTS["game"][0] == slice(8697, 8714)


def test_R8_2_values_winner_and_lead_are_the_rules_answers():
    """Each seat slot's value is goal_value scaled, the flag marks public_goal_winner (the
    one seat strictly in front, none on a tie), the lead is goal_lead scaled and clipped."""
    goals = GOALS.table
    checked_rows = 0
    for state, seat in POSITIONS:
        seat = max(seat, 0)
        races = unpack_observation(seen_by(state, seat))["goal_races"]
        players = state[s.NUM_PLAYERS]
        for row in range(GOAL_RACE_ROWS):
            goal = _goal_of_row(state, seat, row)
            if goal < 0:
                assert not races[row].any()
                continue
            checked_rows += 1
            scale = GOAL_RACE_SCALES[goal_criterion(goals, goal)]
            winner = public_goal_winner(state, TILES.table, goals, goal)
            for slot in range(c.MAX_PLAYERS):
                if slot >= players:
                    assert races[row, GOAL_RACE_VALUES + slot] == 0
                    assert races[row, GOAL_RACE_ALONE + slot] == 0
                    continue
                other = (seat + slot) % players
                value = goal_value(state, TILES.table, goals, goal, other)
                assert races[row, GOAL_RACE_VALUES + slot] == np.float32(value / scale)
                assert races[row, GOAL_RACE_ALONE + slot] == (1.0 if other == winner else 0.0)
                alone = players > 1 and goal_lead(state, TILES.table, goals, goal, other) > 0
                assert (other == winner) == alone or players == 1
            lead = goal_lead(state, TILES.table, goals, goal, seat) / scale
            assert races[row, GOAL_RACE_LEAD] == np.float32(min(1.0, max(-1.0, lead)))
    assert checked_rows > 200


def test_R8_2_a_race_with_a_sole_leader_and_one_with_a_tie():
    """Seen on real positions: some public race has exactly one seat alone in front and
    some has none (a tie, nobody would score it)."""
    sole = tie = 0
    for state, seat in POSITIONS:
        races = unpack_observation(seen_by(state, max(seat, 0)))["goal_races"]
        for row in range(c.MAX_PLAYERS):
            if s.public_goal(state, row) >= 0:
                flags = races[row, GOAL_RACE_ALONE:GOAL_RACE_ALONE + c.MAX_PLAYERS].sum()
                assert flags in (0, 1)
                sole += flags == 1
                tie += flags == 0
    assert sole > 50 and tie > 50


def test_R9_modes_solitary_has_no_races_and_dale_races_as_a_seat():
    for state, seat in POSITIONS:
        races = unpack_observation(seen_by(state, max(seat, 0)))["goal_races"]
        if state[s.MODE] == c.MODE_SOLITARY:
            assert not races.any()  # no goals (R9.1)
        if state[s.MODE] == c.MODE_DALE:
            assert not races[3].any()  # three public goals (R9.2)
            dale_view = unpack_observation(seen_by(state, c.DALE_SEAT))["goal_races"]
            assert not dale_view[4].any()  # Dale has no private goal
            for row in range(3):
                goal = s.public_goal(state, row)
                value = goal_value(state, TILES.table, GOALS.table, goal, c.DALE_SEAT)
                scale = GOAL_RACE_SCALES[goal_criterion(GOALS.table, goal)]
                assert races[row, GOAL_RACE_VALUES + 1] == np.float32(value / scale)


def test_R10_2_other_players_private_goals_never_change_the_observation():
    changed_goals = 0
    for index, (state, seat) in enumerate(POSITIONS):
        if state[s.CURRENT_PLAYER] < 0 or state[s.NUM_PLAYERS] < 2:
            continue
        viewer = state[s.CURRENT_PLAYER]
        other = with_other_hidden_facts(state, index)
        changed_goals += any(s.private_goal(other, p) != s.private_goal(state, p)
                             for p in range(state[s.NUM_PLAYERS]) if p != viewer)
        assert np.array_equal(seen_by(state, viewer), seen_by(other, viewer))
    assert changed_goals > 20


# Models of the observation before "goal_races" ------------------------------------------------

def _observations_and_masks(count: int = 120):
    """Observations (full size) and masks of the deciding seat along random games."""
    observations, masks = [], []
    for players, mode in SETUPS:
        game = Game(players, mode, seed=7)
        generator = np.random.default_rng(7)
        while not game.is_over and len(observations) < count * (SETUPS.index((players, mode))
                                                                 + 1) // len(SETUPS):
            observations.append(seen_by(game.state, game.current_player))
            masks.append(game.legal_action_mask())
            game.apply(int(generator.choice(game.legal_actions())))
    return np.stack(observations), np.stack(masks)


@pytest.fixture(scope="module")
def positions():
    return _observations_and_masks()


def _probabilities(policy, observations, masks):
    import torch
    with torch.no_grad():
        return policy.get_distribution(torch.as_tensor(observations),
                                       action_masks=masks).distribution.probs.numpy()


@pytest.mark.parametrize("name", ["multiplayer-styles", "dale", "baseline"])
def test_a_released_model_decides_the_same_on_the_old_prefix_and_the_full_observation(
        name, positions):
    from agents import PPOAgent
    from agents.model_format import network_observation_size
    observations, masks = positions
    agent = PPOAgent(REPO / "models" / f"{name}.safetensors")
    policy = agent.model.policy
    assert network_observation_size(policy) == OBSERVATION_SIZE_V1
    assert agent.model.observation_space.shape == (OBSERVATION_SIZE,)
    old = _probabilities(policy, observations[:, :OBSERVATION_SIZE_V1], masks)
    new = _probabilities(policy, observations, masks)
    assert np.array_equal(old, new)
    assert np.array_equal(agent.action_probabilities(observations[0], masks[0]),
                          agent.policy_probabilities(observations[0], masks[0]))


def test_a_warm_start_from_a_released_model_begins_at_its_outputs(positions, tmp_path):
    """The fast learner's --init-model widens an 8714-entry network with zero weights for
    "goal_races": the same probabilities and values on real positions; saved, its
    description says 8759."""
    import torch
    from agents.model_format import load_safe_model, save_safe_model
    from agents.networks import SparseActorCritic, SparsePolicy, compact_size
    from training.fast_ppo import load_initial_network
    from types import SimpleNamespace
    observations, masks = positions
    for name in ("multiplayer-styles", "baseline"):
        released = load_safe_model(REPO / "models" / f"{name}.safetensors").policy
        network = SparseActorCritic(256, (128,))
        assert network.observation_size == OBSERVATION_SIZE
        load_initial_network(SimpleNamespace(network=network, generator=None),
                             REPO / "models" / f"{name}.safetensors")
        assert not network.encoder.weight[compact_size(OBSERVATION_SIZE_V1):].any()
        started = SparsePolicy(network)
        started.set_training_mode(False)
        expected = _probabilities(released, observations, masks)
        got = _probabilities(started, observations, masks)
        if name == "multiplayer-styles":
            assert np.array_equal(expected, got)
        else:  # the sb3 compact policy as the fast network: the same function, other sums
            np.testing.assert_allclose(expected, got, rtol=1e-4, atol=1e-6)
        with torch.no_grad():
            tensor = torch.as_tensor(observations)
            np.testing.assert_allclose(released.predict_values(tensor).numpy(),
                                       started.predict_values(tensor).numpy(),
                                       rtol=1e-5, atol=1e-5)
        path = save_safe_model(started, tmp_path / f"{name}.safetensors", 0.99)
        description = load_safe_model(path).description
        assert description["environment"]["observation_size"] == OBSERVATION_SIZE
        assert description["observation_space"]["shape"] == [OBSERVATION_SIZE]


def test_a_released_model_saved_again_keeps_its_size(tmp_path):
    from agents.model_format import load_safe_model, save_safe_model
    for name in ("multiplayer-styles", "baseline"):
        policy = load_safe_model(REPO / "models" / f"{name}.safetensors").policy
        path = save_safe_model(policy, tmp_path / f"{name}.safetensors", 0.99)
        description = load_safe_model(path).description
        assert description["environment"]["observation_size"] == OBSERVATION_SIZE_V1
        assert description["observation_space"]["shape"] == [OBSERVATION_SIZE_V1]


def test_training_reads_the_old_observation_unless_told_and_names_a_bad_size(tmp_path):
    """`suburbia train` keeps the released recipes' input (8714 entries, so they train what
    they trained) unless --observation-size 8759 asks for the goal races; the learner's
    network and its snapshots read that many."""
    from training.config import parse_config
    from training.fast_ppo import FastPPO
    assert parse_config([]).observation_size == OBSERVATION_SIZE_V1
    config = parse_config(["--learner", "fast", "--mode", "self_play", "--num-envs", "2",
                           "--observation-size", str(OBSERVATION_SIZE),
                           "--output-dir", "unused"])
    learner = FastPPO(config)
    assert learner.network.observation_size == OBSERVATION_SIZE
    assert learner._new_policy().network.observation_size == OBSERVATION_SIZE
    with pytest.raises(SystemExit):  # argparse names the choices
        parse_config(["--observation-size", "8000"])
    bad = tmp_path / "bad.json"
    bad.write_text('{"observation_size": 8760}')
    with pytest.raises(SystemExit, match="--observation-size must be 8714 or 8759"):
        parse_config(["--config", str(bad)])
    with pytest.raises(SystemExit, match="needs --features compact"):
        parse_config(["--observation-size", str(OBSERVATION_SIZE), "--features", "flat"])


def test_a_network_refuses_inputs_of_a_wider_observation_and_a_fit_other_sizes():
    """The compiled first layer does not check its indices, so an 8714-entry network is
    told, not fed, the compact entries of the full observation; a fit refuses
    demonstrations encoded for another size than its network's."""
    import torch
    from agents.networks import SparseActorCritic, SparseInputs
    from training.imitation import EncodedDemonstrations, fit_network
    game = Game(2, seed=5)
    states, actions = [], []
    for _ in range(6):
        states.append(game.state.copy())
        actions.append(game.legal_actions()[0])
        game.apply(actions[-1])
    observation = np.zeros((1, OBSERVATION_SIZE), dtype=np.float32)
    from suburbia_env.engine.observation import encode_observation
    encode_observation(states[-1], TILES.table, game.current_player, observation[0])
    assert observation[0, OBSERVATION_SIZE_V1:].any()
    old = SparseActorCritic(16, (8,), observation_size=OBSERVATION_SIZE_V1)
    wide = SparseInputs.from_observations(torch.from_numpy(observation))
    with pytest.raises(ValueError, match="the network reads"):
        old.latents(wide)
    old.latents(old.inputs(torch.from_numpy(observation)))  # its own entries: fine
    data = {"states": np.stack(states), "actions": np.array(actions, dtype=np.int64),
            "returns": np.zeros(len(states))}
    for network_size, encoded_size in ((OBSERVATION_SIZE_V1, OBSERVATION_SIZE),
                                       (OBSERVATION_SIZE, OBSERVATION_SIZE_V1)):
        network = SparseActorCritic(16, (8,), observation_size=network_size)
        encoded = EncodedDemonstrations(data, observation_size=encoded_size)
        with pytest.raises(ValueError, match="demonstrations encoded for"):
            fit_network(network, encoded, epochs=1, batch_size=4)
