"""A policy trained with RLlib (`suburbia train --backend rllib`) as a player of any mode.

The trainer writes, beside RLlib's own checkpoint files, the policy's weights in a safe
format: POLICY_FILE (safetensors, tensors only) and DESCRIPTION_FILE (JSON: the network's
settings and the run's provenance). The agent loads only these two, so nothing stored in
the checkpoint is unpickled or run; RLlib's pickles stay for resuming training.

The agent sees what the environments show a learner (R10): the observation of the seat
that decides and the legal-action mask; it plays the most probable legal action.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from suburbia_env import Game
from suburbia_env.action_space import NUM_ACTIONS
from suburbia_env.errors import (ConfigError, ModelFileNotFoundError,
                                 ModelFormatError)
from suburbia_env.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.tile_data import TILES

from .base import Agent, checked_policy_input

POLICY_FILE = "suburbia_policy.safetensors"
DESCRIPTION_FILE = "suburbia_policy.json"
DESCRIPTION_FORMAT = "suburbia-rllib-policy"


def save_policy(checkpoint: str | Path, weights: dict, description: dict) -> Path:
    """Write the policy files into the checkpoint folder `checkpoint`; `weights` are the
    module's tensors by name (numpy arrays), `description` its settings and provenance."""
    from safetensors.numpy import save_file
    folder = Path(checkpoint)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({name: np.ascontiguousarray(value) for name, value in weights.items()},
              str(folder / POLICY_FILE))
    document = {"format": DESCRIPTION_FORMAT, "observation_size": OBSERVATION_SIZE,
                "num_actions": NUM_ACTIONS, **description}
    (folder / DESCRIPTION_FILE).write_text(json.dumps(document, indent=2) + "\n")
    return folder


def load_policy(checkpoint: str | Path):
    """(description, module) from a checkpoint folder; ModelFileNotFoundError when there is
    no such folder, ModelFormatError when it holds no readable policy of ours."""
    folder = Path(checkpoint)
    if not folder.is_dir():
        raise ModelFileNotFoundError(f"no RLlib checkpoint folder at {folder}")
    if not (folder / POLICY_FILE).is_file() or not (folder / DESCRIPTION_FILE).is_file():
        raise ModelFormatError(f"{folder}: no {POLICY_FILE} with {DESCRIPTION_FILE} in it; an "
                               f"rllib agent loads checkpoints written by `suburbia train "
                               f"--backend rllib`")
    try:
        description = json.loads((folder / DESCRIPTION_FILE).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ModelFormatError(f"{folder / DESCRIPTION_FILE}: not readable JSON ({error})") \
            from None
    if not isinstance(description, dict) or description.get("format") != DESCRIPTION_FORMAT:
        raise ModelFormatError(f"{folder / DESCRIPTION_FILE}: not a description of format "
                               f"{DESCRIPTION_FORMAT!r}")
    if (description.get("observation_size"), description.get("num_actions")) \
            != (OBSERVATION_SIZE, NUM_ACTIONS):
        raise ConfigError(f"{folder}: the policy was trained on observations of size "
                          f"{description.get('observation_size')} and "
                          f"{description.get('num_actions')} actions; this version has "
                          f"{OBSERVATION_SIZE} and {NUM_ACTIONS}")
    try:
        from safetensors.torch import load_file
        from training.rllib_module import build_module
    except ImportError:
        raise ConfigError('an rllib agent needs the distributed extra: '
                          'pip install -e ".[distributed]"') from None
    try:
        weights = load_file(str(folder / POLICY_FILE))
    except Exception as error:  # a damaged file fails inside safetensors
        raise ModelFormatError(f"{folder / POLICY_FILE}: not a readable safetensors file "
                               f"({type(error).__name__}: {str(error)[:200]})") from None
    module = build_module(description.get("model_config"), inference_only=True)
    try:
        module.load_state_dict(weights, strict=True)
    except RuntimeError as error:
        raise ModelFormatError(f"{folder / POLICY_FILE}: its tensors do not fit the network "
                               f"its description gives ({str(error).splitlines()[0]})") from None
    module.eval()
    return description, module


class RLlibAgent(Agent):
    """Plays with a policy trained by RLlib; `act(game)` or `act_on_observation`."""

    name = "rllib"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.description, self.module = load_policy(self.path)
        self._observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)

    def act(self, game: Game) -> int:
        encode_observation(game.state, TILES.table, game.current_player, self._observation)
        return self.act_on_observation(self._observation, game.legal_action_mask())

    def act_on_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        import torch
        from ray.rllib.core.columns import Columns
        mask = checked_policy_input(observation, mask)
        batch = {Columns.OBS: {
            "observation": torch.as_tensor(np.asarray(observation, dtype=np.float32))[None],
            "action_mask": torch.from_numpy(mask)[None]}}
        logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        return int(torch.argmax(logits))

    def __repr__(self) -> str:
        return f"RLlibAgent(path={str(self.path)!r})"
