"""The RLlib policy network (an RLModule of RLlib's current API stack) with action masking.

Observations are the environments' dict `{"observation", "action_mask"}` (gym_env.py,
pettingzoo.py). The network mirrors the stable-baselines3 policy of training/train.py: a
shared first layer over the compact view (agents/compact_input.py), then separate
policy and value layers. Illegal actions get the lowest float logit, so they are never
sampled and carry no probability in PPO's ratio, entropy and KL terms (R10.1: only legal
actions are played). The legality itself comes from the core's mask; nothing here
knows a rule.

model_config keys: ``features_dim`` (width of the shared layer, default 256),
``hidden`` (widths of the policy and value layers, default [128]) and
``observation_size`` (how many observation entries the network reads, default all: a
checkpoint of an earlier, shorter observation reads that prefix, agents/networks.py).
"""

from __future__ import annotations

import gymnasium as gym
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.observation import OBSERVATION_SIZE
from suburbia_env.envs.env_options import observation_spaces

from .networks import check_observation_size, compact_inputs, compact_size

MODEL_DEFAULTS = {"features_dim": 256, "hidden": [128], "observation_size": OBSERVATION_SIZE}
LOWEST_LOGIT = torch.finfo(torch.float32).min


def _layers(inputs: int, widths: list[int], outputs: int) -> nn.Sequential:
    modules = []
    for width in widths:
        modules += [nn.Linear(inputs, width), nn.Tanh()]
        inputs = width
    return nn.Sequential(*modules, nn.Linear(inputs, outputs))


def model_settings(model_config: dict | None) -> dict:
    """MODEL_DEFAULTS updated by the keys of `model_config` that it knows."""
    settings = dict(MODEL_DEFAULTS)
    settings.update({key: value for key, value in (model_config or {}).items()
                     if key in MODEL_DEFAULTS})
    return settings


class SuburbiaRLModule(TorchRLModule, ValueFunctionAPI):
    """PPO's actor and critic over the dict observation, logits masked by its action_mask."""

    def setup(self):
        settings = model_settings(self.model_config)
        self.observation_size = check_observation_size(settings["observation_size"])
        self.shared = nn.Sequential(nn.Linear(compact_size(self.observation_size),
                                              settings["features_dim"]), nn.ReLU())
        self.policy_head = _layers(settings["features_dim"], settings["hidden"], NUM_ACTIONS)
        self.value_head = _layers(settings["features_dim"], settings["hidden"], 1)

    def _features(self, batch: dict) -> torch.Tensor:
        return self.shared(compact_inputs(batch[Columns.OBS]["observation"].float(),
                                          self.observation_size))

    def _masked_logits(self, batch: dict, features: torch.Tensor) -> torch.Tensor:
        legal = batch[Columns.OBS]["action_mask"].bool()
        return self.policy_head(features).masked_fill(~legal, LOWEST_LOGIT)

    def _forward(self, batch: dict, **kwargs) -> dict:
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch, self._features(batch))}

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        features = self._features(batch)
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch, features),
                Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict, embeddings=None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._features(batch)
        return self.value_head(embeddings).squeeze(-1)


def build_module(model_config: dict | None = None, inference_only: bool = False
                 ) -> SuburbiaRLModule:
    """A module for the environments' spaces (what a checkpoint's weights are loaded into)."""
    return SuburbiaRLModule(observation_space=observation_spaces("dict"),
                            action_space=gym.spaces.Discrete(NUM_ACTIONS),
                            inference_only=inference_only, model_config=model_settings(model_config))
