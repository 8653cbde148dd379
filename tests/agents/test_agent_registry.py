"""Agents built from text specs (agents/registry.py) and the MaskablePPO player
(agents/ppo_agent.py): the agent each spec names, clear errors, and a saved model that
plays only legal actions, the most probable one when deterministic. Models are in the
safe format (agents/model_format.py); pickled zips load only with allow_pickle=True."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import greedy_weight_names
from agents import (AgentSpecError, DaleAgent, GreedyAgent, PPOAgent, RandomAgent,
                    make_agent)
from suburbia_env import NUM_ACTIONS, Game
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.tile_data import TILES


def test_plain_specs_name_their_agents():
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("dale"), DaleAgent)
    assert isinstance(make_agent(" Greedy "), GreedyAgent)


def _settings(agent) -> str:
    return repr({k: v for k, v in vars(agent).items() if not k.startswith("_") and k != "name"})


def test_greedy_weights_from_the_spec():
    """The spec's numbers are GreedyAgent's constructor arguments, in order."""
    names = greedy_weight_names()
    values = [0.25 * (index + 1) for index in range(len(names))]
    spec = "greedy:" + ",".join(str(value) for value in values)
    agent = make_agent(spec)
    assert isinstance(agent, GreedyAgent)
    assert agent.name == spec
    assert _settings(agent) == _settings(GreedyAgent(*values))
    assert _settings(agent) != _settings(GreedyAgent())


def test_random_agents_from_the_same_seed_play_alike():
    game = Game(2, seed=3)
    first = make_agent("random", seed=9)
    second = make_agent("random", seed=9)
    assert [first.act(game) for _ in range(20)] == [second.act(game) for _ in range(20)]


@pytest.mark.parametrize("spec, message", [
    ("alphazero", "unknown agent spec 'alphazero'"),
    ("greedy:" + ",".join(["1"] * 9), "greedy takes up to"),
    ("greedy:a", "must be numbers"),
    ("greedy:inf", "finite"),
    ("random:3", "unknown agent spec"),
    ("ppo:", "give the model file"),
    (7, "an agent spec is text"),
])
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_missing_model_file_is_named(tmp_path):
    missing = tmp_path / "nowhere.zip"
    with pytest.raises(FileNotFoundError, match="nowhere.zip"):
        make_agent(f"ppo:{missing}")
    with pytest.raises(FileNotFoundError, match="no saved model"):
        PPOAgent(missing)


def test_ppo_agent_plays_a_whole_dale_game_legally(safe_path):
    agent = make_agent(f"ppo:{safe_path}")
    assert isinstance(agent, PPOAgent) and agent.deterministic
    game = Game(1, "dale", seed=2)
    while not game.is_over:
        action = agent.act(game)
        assert game.is_legal(action)
        game.apply(action)
    assert len(game.final_scores()) == 2


def test_deterministic_choice_is_the_most_probable_legal_action(safe_path):
    agent = PPOAgent(safe_path)
    game = Game(3, seed=4)
    game.apply(game.legal_actions()[0])  # keep goals until a turn
    while game.pending_decision == "keep_goal":
        game.apply(game.legal_actions()[0])
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(game.state, TILES.table, game.current_player, observation)
    mask = game.legal_action_mask()
    probabilities = agent.action_probabilities(observation, mask)
    assert probabilities[~mask].sum() == 0.0
    assert probabilities.sum() == pytest.approx(1.0)
    assert agent.act(game) == int(np.argmax(probabilities))
    assert agent.act_on_observation(observation, mask) == agent.act(game)


def test_sampling_agent_is_reproducible_and_legal(safe_path):
    game = Game(1, "dale", seed=5)
    first = make_agent(f"ppo-sample:{safe_path}", seed=11)
    second = make_agent(f"ppo-sample:{safe_path}", seed=11)
    choices = [first.act(game) for _ in range(15)]
    assert choices == [second.act(game) for _ in range(15)]
    assert all(game.is_legal(action) for action in choices)
    first.reset(11)
    assert [first.act(game) for _ in range(15)] == choices
    other = make_agent(f"ppo-sample:{safe_path}", seed=12)
    assert [other.act(game) for _ in range(15)] != choices


def test_empty_mask_is_refused(safe_path):
    agent = PPOAgent(safe_path)
    with pytest.raises(ValueError, match="no legal action"):
        agent.act_on_observation(np.zeros(OBSERVATION_SIZE, dtype=np.float32),
                                 np.zeros(NUM_ACTIONS, dtype=bool))


def _spaces_as_pickled(path):
    from sb3_contrib import MaskablePPO
    model = MaskablePPO.load(path, device="cpu")
    return model.observation_space, model.action_space


@pytest.mark.filterwarnings("ignore::agents.model_format.PickledModelWarning")
@pytest.mark.parametrize("which", ["flat", "dict"])
def test_substitute_spaces_equal_the_pickled_spaces(model_path, tmp_path, which):
    """What a numpy that cannot unpickle the spaces gets instead: the same spaces, for a
    model of the flat and one of the dict observations."""
    from sb3_contrib import MaskablePPO

    from agents.ppo_agent import substitute_spaces
    from suburbia_env.envs.gym_env import SuburbiaEnv
    path = model_path
    if which == "dict":
        path = tmp_path / "dict.zip"
        MaskablePPO("MultiInputPolicy", SuburbiaEnv(), n_steps=8, batch_size=8, device="cpu",
                    policy_kwargs={"net_arch": [8]}).save(path)
    substitutes = substitute_spaces(path)
    observation_space, action_space = _spaces_as_pickled(path)
    assert substitutes["observation_space"] == observation_space
    assert substitutes["action_space"] == action_space


@pytest.mark.filterwarnings("ignore::agents.model_format.PickledModelWarning")
def test_a_model_whose_spaces_do_not_unpickle_still_loads_and_plays_alike(model_path,
                                                                          tmp_path):
    """The space pickles replaced by one that needs a missing module (what numpy 1.x meets
    in a file saved under numpy 2): load_model falls back to substitute_spaces and the
    policy chooses exactly as the intact file's."""
    import base64
    import json
    import zipfile

    from agents.ppo_agent import load_model
    broken = tmp_path / "broken.zip"
    needs_missing_module = base64.b64encode(b"cno_such_module_here\nSpace\n.").decode()
    with zipfile.ZipFile(model_path) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == "data":
                description = json.loads(content)
                for key in ("observation_space", "action_space"):
                    description[key][":serialized:"] = needs_missing_module
                content = json.dumps(description).encode()
            target.writestr(item, content)
    from sb3_contrib import MaskablePPO
    with pytest.raises(ModuleNotFoundError, match="no_such_module_here"):
        MaskablePPO.load(broken, device="cpu")
    intact = PPOAgent(model_path, allow_pickle=True)
    repaired = PPOAgent(broken, allow_pickle=True)
    assert repaired.model.observation_space == intact.model.observation_space
    game = Game(1, "dale", seed=6)
    while not game.is_over:
        action = intact.act(game)
        assert repaired.act(game) == action
        game.apply(action)
    assert load_model(broken, allow_pickle=True).action_space.n == NUM_ACTIONS


@pytest.mark.filterwarnings("ignore::agents.model_format.PickledModelWarning")
def test_exported_model_drops_the_rollout_state_and_plays_alike(model_path, tmp_path):
    """training/export.py: the released file holds no rollout buffer nor last observations,
    and its policy chooses exactly as the trained one."""
    import json
    import zipfile

    from training.export import DROPPED_ATTRIBUTES, export_model
    exported = export_model(model_path, tmp_path / "release" / "model.zip", allow_pickle=True)

    def saved_attributes(path):
        with zipfile.ZipFile(path) as archive:
            return set(json.loads(archive.read("data")))
    assert "_last_obs" in saved_attributes(model_path)
    assert saved_attributes(exported).isdisjoint(DROPPED_ATTRIBUTES)
    trained = PPOAgent(model_path, allow_pickle=True)
    released = PPOAgent(exported, allow_pickle=True)
    game = Game(1, "dale", seed=8)
    while not game.is_over:
        action = trained.act(game)
        assert released.act(game) == action
        game.apply(action)
