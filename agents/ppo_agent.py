"""A trained MaskablePPO policy (sb3-contrib) as a player of any mode.

The agent sees what the environments show a learner: the observation of the seat that
decides (suburbia_env.observation, public information only, R10) and the legal-action
mask. Models trained with the compact extractor (training.features.SuburbiaFeatures)
load as well: the class is imported before the model is unpickled.

Deterministic play takes the most probable legal action (`model.predict`). Stochastic
play (`deterministic=False`) samples from the masked policy with the agent's own seeded
generator (reseeded by `reset(seed)`), never from torch's global random state.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np

from suburbia_env import Game
from suburbia_env.action_space import NUM_ACTIONS
from suburbia_env.errors import ConfigError
from suburbia_env.gym_env import observation_spaces
from suburbia_env.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.tile_data import TILES

from .base import Agent


def load_model(path: str | Path):
    """`MaskablePPO.load(path, device="cpu")` with a clear error for a missing file.

    stable-baselines3 pickles the spaces into the model file, and a space pickled under
    numpy 2 (as `models/baseline.zip` was) does not unpickle under numpy 1.x. The spaces
    are then rebuilt from the readable description beside the pickle
    (`substitute_spaces`); the weights do not depend on numpy.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no saved model at {path} (expected a MaskablePPO .zip file)")
    import training.features  # noqa: F401  (the compact extractor must be importable)
    from sb3_contrib import MaskablePPO
    try:
        return MaskablePPO.load(path, device="cpu")
    except (ImportError, ValueError):
        return MaskablePPO.load(path, device="cpu", custom_objects=substitute_spaces(path))


def substitute_spaces(path: str | Path) -> dict:
    """The observation and action spaces of a saved model, built from the plain JSON
    fields of its `data` entry instead of its pickles: a Dict space is the environments'
    dict observation space, a Box gets the environments' bounds when it has their shape,
    the action space is Discrete(n)."""
    with zipfile.ZipFile(path) as archive:
        description = json.loads(archive.read("data"))
    observation = description["observation_space"]
    if "Dict" in observation[":type:"]:
        observation_space = observation_spaces("dict")
    elif tuple(observation["_shape"]) == (OBSERVATION_SIZE,):
        observation_space = observation_spaces("flat")
    else:
        observation_space = gym.spaces.Box(-np.inf, np.inf, tuple(observation["_shape"]),
                                           np.float32)
    action_space = gym.spaces.Discrete(int(description["action_space"]["n"]))
    return {"observation_space": observation_space, "action_space": action_space}


class PPOAgent(Agent):
    """Plays with a saved MaskablePPO model; `act(game)` or `act_on_observation`."""

    name = "ppo"

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int | None = None):
        self.path = Path(path)
        self.model = load_model(self.path)
        self.deterministic = bool(deterministic)
        space = self.model.observation_space
        self._dict_observations = isinstance(space, gym.spaces.Dict)
        box = space["observation"] if self._dict_observations else space
        if tuple(box.shape) != (OBSERVATION_SIZE,):
            raise ConfigError(f"{self.path}: the model expects observations of shape {box.shape}, "
                              f"the environment gives ({OBSERVATION_SIZE},)")
        if getattr(self.model.action_space, "n", None) != NUM_ACTIONS:
            raise ConfigError(f"{self.path}: the model has {self.model.action_space} actions, "
                              f"the environment {NUM_ACTIONS}")
        self._observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self._generator = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._generator = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        encode_observation(game.state, TILES.table, game.current_player, self._observation)
        return self.act_on_observation(self._observation, game.legal_action_mask())

    def act_on_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            raise ValueError("the action mask has no legal action")
        model_input = observation
        if self._dict_observations:
            model_input = {"observation": observation, "action_mask": mask.astype(np.int8)}
        if self.deterministic:
            action, _ = self.model.predict(model_input, action_masks=mask, deterministic=True)
            return int(np.asarray(action).reshape(-1)[0])
        return int(self._generator.choice(NUM_ACTIONS, p=self.action_probabilities(model_input,
                                                                                  mask)))

    def action_probabilities(self, model_input, mask: np.ndarray) -> np.ndarray:
        """The masked policy's probabilities over the flat action space (float64, sum 1)."""
        import torch
        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(model_input)
        with torch.no_grad():
            distribution = policy.get_distribution(tensor, action_masks=mask[None, :])
            probabilities = distribution.distribution.probs[0].cpu().numpy().astype(np.float64)
        probabilities[~mask] = 0.0
        return probabilities / probabilities.sum()

    def __repr__(self) -> str:
        return f"PPOAgent(path={str(self.path)!r}, deterministic={self.deterministic})"
