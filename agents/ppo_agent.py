"""A trained MaskablePPO policy (sb3-contrib) as a player of any mode.

The agent sees what the environments show a learner: the observation of the seat that
decides (suburbia_env.engine.observation, public information only, R10) and the legal-action
mask. A model is loaded from the safe format of agents/model_format.py (NAME.safetensors
with NAME.json: tensors and plain data, nothing executed). A pickled stable-baselines3
zip runs code stored in the file when loaded, so it loads only with `allow_pickle=True`
(with a PickledModelWarning); without it the error says how to convert the file.

Deterministic play takes the most probable legal action (`model.predict`). Stochastic
play (`deterministic=False`) samples from the masked policy with the agent's own seeded
generator (reseeded by `reset(seed)`), never from torch's global random state.

A network trained with the goal prior's term (`suburbia train --goal-prior-weight W`)
carries W, and its policy is the softmax of its scores plus W x each legal action's
expected goal bonus (agents/goal_prior.py): `act(game)` plays that policy. The term
reads the game's state, so such a model does not play from an observation alone.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np

from suburbia_env import Game
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.errors import (ConfigError, ModelFileNotFoundError,
                                 ModelFormatError)
from suburbia_env.envs.env_options import observation_spaces
from suburbia_env.engine.observation import (OBSERVATION_SIZE, OBSERVATION_SIZES,
                                             encode_observation)
from suburbia_env.engine.tile_data import TILES

from .base import Agent, checked_policy_input
from .model_files import check_regular_file
from .model_format import (PickledModelWarning, accept_current_observations,
                           is_pickled_model, load_safe_model, model_paths, pickle_refusal)


def load_model(path: str | Path, allow_pickle: bool = False):
    """The model at `path`: a SafePolicyModel from NAME.safetensors / NAME.json (nothing
    executed), or, only with `allow_pickle=True`, a MaskablePPO unpickled from a
    stable-baselines3 zip, with a PickledModelWarning. Every failure is a
    ModelFormatError naming the file (ModelFileNotFoundError for a missing one).
    """
    path = Path(path)
    if is_pickled_model(path):
        check_regular_file(path, "saved model")
        if not allow_pickle:
            raise ModelFormatError(pickle_refusal(path))
        warnings.warn(f"{path}: loading a pickled stable-baselines3 model runs code stored in "
                      f"the file; load only files you trust, or convert it once with "
                      f"`suburbia convert-model {path} {path.with_suffix('.safetensors')}`",
                      PickledModelWarning, stacklevel=2)
        return load_pickled_model(path)
    if not any(candidate.is_file() for candidate in (path, *model_paths(path))):
        raise ModelFileNotFoundError(f"no saved model at {path} (expected NAME.safetensors "
                                     f"with NAME.json beside it)")
    return load_safe_model(path)


def load_pickled_model(path: Path):
    """`MaskablePPO.load(path, device="cpu")`: runs the pickles stored in the file.

    stable-baselines3 pickles the spaces into the model file, and a space pickled under
    numpy 2 (as `models/baseline.zip` was) does not unpickle under numpy 1.x. The spaces
    are then rebuilt from the readable description beside the pickle
    (`substitute_spaces`); the weights do not depend on numpy.
    """
    import agents.features  # noqa: F401  (the compact extractor must be importable)
    from sb3_contrib import MaskablePPO
    try:
        try:
            model = MaskablePPO.load(path, device="cpu")
        except (ImportError, ValueError):
            model = MaskablePPO.load(path, device="cpu", custom_objects=substitute_spaces(path))
    except Exception as error:  # a corrupted archive fails anywhere inside SB3 or pickle
        raise ModelFormatError(f"{path}: not a loadable stable-baselines3 model "
                               f"({type(error).__name__}: {str(error)[:300]})") from error
    model.observation_space = accept_current_observations(model.policy).observation_space
    return model


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
    elif tuple(observation["_shape"]) in [(size,) for size in OBSERVATION_SIZES]:
        observation_space = observation_spaces("flat", observation["_shape"][0])
    else:
        observation_space = gym.spaces.Box(-np.inf, np.inf, tuple(observation["_shape"]),
                                           np.float32)
    action_space = gym.spaces.Discrete(int(description["action_space"]["n"]))
    return {"observation_space": observation_space, "action_space": action_space}


def carried_goal_prior_weight(model) -> float:
    """The goal prior weight a model's network carries (agents/networks.py; 0 for a
    MaskablePPO model or a network trained without one). `model`: a loaded model, its
    policy, or a fast learner's SparsePolicy."""
    policy = getattr(model, "policy", model)
    return float(getattr(getattr(policy, "network", None), "goal_prior_weight", 0.0))


def carried_goal_prior_denial(model) -> float:
    """The denial of the others' public goals in the goal term a model's network carries
    (agents/one_ply.trial_goal_bonuses; 0 when none), as `carried_goal_prior_weight`."""
    policy = getattr(model, "policy", model)
    return float(getattr(getattr(policy, "network", None), "goal_prior_denial", 0.0))


def carried_goal_chances(model) -> np.ndarray:
    """The refit goal chances of the goal term a model's network carries
    (agents/one_ply.chance_with; OWN_CHANCES when none), as `carried_goal_prior_weight`."""
    from .one_ply import OWN_CHANCES
    policy = getattr(model, "policy", model)
    return getattr(getattr(policy, "network", None), "goal_chances", OWN_CHANCES)


class PPOAgent(Agent):
    """Plays with a saved MaskablePPO model; `act(game)` or `act_on_observation`."""

    name = "ppo"

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int | None = None,
                 allow_pickle: bool = False):
        self.path = Path(path)
        self.model = load_model(self.path, allow_pickle=allow_pickle)
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
        self.goal_prior_weight = carried_goal_prior_weight(self.model)
        self.goal_prior_denial = carried_goal_prior_denial(self.model)
        self.goal_chances = carried_goal_chances(self.model)
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        self._actions = np.zeros(NUM_ACTIONS, dtype=np.int32)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._generator = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        encode_observation(game.state, TILES.table, game.current_player, self._observation)
        if not self.goal_prior_weight:
            return self.act_on_observation(self._observation, game.legal_action_mask())
        from .goal_term import goal_prior_scores
        probabilities = self.policy_probabilities(self._observation, game.legal_action_mask())
        actions, scores = goal_prior_scores(game.state, probabilities, self.goal_prior_weight,
                                            self._mask, self._actions, self.goal_prior_denial,
                                            self.goal_chances)
        if self.deterministic:
            return int(actions[np.argmax(scores)])
        weights = np.exp(scores - scores.max())
        return int(self._generator.choice(actions, p=weights / weights.sum()))

    def act_on_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        if self.goal_prior_weight:
            raise ConfigError(f"{self.path}: this model plays with a goal prior (weight "
                              f"{self.goal_prior_weight}), which reads the game's state: "
                              f"call act(game), not act_on_observation")
        probabilities = self.policy_probabilities(observation, mask)
        if self.deterministic:  # the mode of the masked distribution, as model.predict
            return int(np.argmax(probabilities))
        return int(self._generator.choice(NUM_ACTIONS, p=probabilities))

    def policy_probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked policy's probabilities over the flat action space for an observation
        and its legal-action mask (both checked, ArgumentError naming the problem)."""
        mask = checked_policy_input(observation, mask)
        model_input = observation
        if self._dict_observations:
            model_input = {"observation": observation, "action_mask": mask.astype(np.int8)}
        return self.action_probabilities(model_input, mask)

    def action_probabilities(self, model_input, mask: np.ndarray) -> np.ndarray:
        """The masked policy's probabilities over the flat action space (float64, sum 1).

        ModelFormatError when the network's output is not finite: weights that are finite
        but huge (a corrupted file passes every check of the format) overflow to NaN, and
        the mode of NaN scores was an illegal action."""
        import torch
        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(model_input)
        try:
            with torch.no_grad():
                distribution = policy.get_distribution(tensor, action_masks=mask[None, :])
                probabilities = distribution.distribution.probs[0].cpu().numpy().astype(
                    np.float64)
            probabilities[~mask] = 0.0
            total = probabilities.sum()
        except ValueError:  # torch's check of the distribution's arguments: NaN scores
            total = np.nan
        if not np.isfinite(total) or total <= 0:
            raise ModelFormatError(f"{self.path}: the network's output for this position is not "
                                   f"a probability distribution (NaN or infinite scores): its "
                                   f"weights overflow, the file is corrupted or not a trained "
                                   f"policy")
        return probabilities / total

    def __repr__(self) -> str:
        return f"PPOAgent(path={str(self.path)!r}, deterministic={self.deterministic})"
