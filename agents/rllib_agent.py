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
import os
from pathlib import Path

import numpy as np

from suburbia_env import Game
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.errors import (ConfigError, ModelFileNotFoundError,
                                 ModelFormatError, shown)
from suburbia_env.engine.observation import (OBSERVATION_SIZE, OBSERVATION_SIZE_V1,
                                             OBSERVATION_SIZES, encode_observation)
from suburbia_env.engine.tile_data import TILES

from .base import Agent, checked_policy_input
from .model_files import check_safetensors_header, read_model_file

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


MAX_DESCRIPTION_BYTES = 1_000_000
MAX_WEIGHTS_BYTES = 1_000_000_000
MAX_UNITS = 100_000  # per layer
NETWORK_SLACK_BYTES = 1 << 20


def _model_config(path: Path, description: dict) -> dict:
    """The description's model_config, checked: a features_dim and at most 16 hidden widths,
    each 1..MAX_UNITS (a description of 146 bytes naming a layer of 10^8 units once made
    the loader allocate gigabytes)."""
    config = description.get("model_config", {})
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ModelFormatError(f"{path}: model_config must be an object, not {shown(config)}")

    def width(value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_UNITS
    if "features_dim" in config and not width(config["features_dim"]):
        raise ModelFormatError(f"{path}: model_config.features_dim must be a whole number "
                               f"1..{MAX_UNITS}, not {shown(config['features_dim'])}")
    hidden = config.get("hidden", [])
    if not isinstance(hidden, list) or len(hidden) > 16 or not all(map(width, hidden)):
        raise ModelFormatError(f"{path}: model_config.hidden must be a list of at most 16 "
                               f"layer widths 1..{MAX_UNITS}, not {shown(hidden)}")
    return config


def _network_bytes(build_module, model_config: dict) -> int:
    """Bytes of the module's tensors, counted on torch's meta device (nothing allocated)."""
    import torch
    with torch.device("meta"):
        module = build_module(model_config, inference_only=True)
    return sum(tensor.numel() * tensor.element_size()
               for tensor in module.state_dict(keep_vars=True).values())


def load_policy(checkpoint: str | Path):
    """(description, module) from a checkpoint folder; ModelFileNotFoundError when there is
    no such folder, ModelFormatError when it holds no readable policy of ours. Both files
    are read bounded (agents/model_files.py) and the network the description names is
    sized before it is built."""
    folder = Path(checkpoint)
    if not folder.is_dir():
        raise ModelFileNotFoundError(f"no RLlib checkpoint folder at {folder}")
    description_path, weights_path = folder / DESCRIPTION_FILE, folder / POLICY_FILE
    if not os.path.lexists(weights_path) or not os.path.lexists(description_path):
        raise ModelFormatError(f"{folder}: no {POLICY_FILE} with {DESCRIPTION_FILE} in it; an "
                               f"rllib agent loads checkpoints written by `suburbia train "
                               f"--backend rllib`")
    text = read_model_file(description_path, MAX_DESCRIPTION_BYTES, "description")
    try:
        description = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError) as error:
        raise ModelFormatError(f"{description_path}: not readable JSON "
                               f"({type(error).__name__})") from None
    if not isinstance(description, dict) or description.get("format") != DESCRIPTION_FORMAT:
        raise ModelFormatError(f"{description_path}: not a description of format "
                               f"{DESCRIPTION_FORMAT!r}")
    observation_size = description.get("observation_size")
    if (not isinstance(observation_size, int) or isinstance(observation_size, bool)
            or observation_size not in OBSERVATION_SIZES
            or description.get("num_actions") != NUM_ACTIONS):
        raise ConfigError(f"{folder}: the policy was trained on observations of size "
                          f"{shown(description.get('observation_size'))} and "
                          f"{shown(description.get('num_actions'))} actions; this version has "
                          f"{OBSERVATION_SIZE} (or their first {OBSERVATION_SIZE_V1}) and "
                          f"{NUM_ACTIONS}")
    model_config = {**_model_config(description_path, description),
                    "observation_size": observation_size}
    try:
        from safetensors.torch import load as load_tensors
        from agents.rllib_module import build_module
    except ImportError:
        raise ConfigError('an rllib agent needs the distributed extra: '
                          'pip install -e ".[distributed]"') from None
    data = read_model_file(weights_path, MAX_WEIGHTS_BYTES, "weights file")
    check_safetensors_header(data, weights_path)
    needed = _network_bytes(build_module, model_config)
    if needed > len(data) + NETWORK_SLACK_BYTES:
        raise ModelFormatError(f"{description_path}: the network described needs {needed:,} "
                               f"bytes, more than the {len(data):,} bytes of the weights that "
                               f"must fill it")
    try:
        weights = load_tensors(data)
    except Exception as error:  # a damaged file fails inside safetensors
        raise ModelFormatError(f"{weights_path}: not a readable safetensors file "
                               f"({type(error).__name__}: {str(error)[:200]})") from None
    module = build_module(model_config, inference_only=True)
    try:
        module.load_state_dict(weights, strict=True)
    except RuntimeError as error:
        raise ModelFormatError(f"{weights_path}: its tensors do not fit the network "
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
