"""A cheaper first layer for the policy: the compact view of agents/compact_input.py
(own borough in full, other boroughs as per-plane totals, the rest as it is) -> dense.

With SB3's default flatten extractor the first dense layer reads all the observation's
inputs (8714 before "goal_races"), of which 7956 are the four borough grids; most of the
training time goes there.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .networks import check_observation_size, compact_inputs, compact_size


class SuburbiaFeatures(BaseFeaturesExtractor):
    """Own borough (17 x 117) + other boroughs' plane totals (3 x 17) + the rest -> dense.

    It reads the first `observation_size` entries of the observation (by default all of
    the space it is built for), so a model trained on the shorter observation of an
    earlier release reads that prefix of today's (agents/networks.py)."""

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 256,
                 observation_size: int | None = None):
        super().__init__(observation_space, features_dim)
        self.observation_size = check_observation_size(
            observation_size or int(observation_space.shape[0]))
        self.dense = nn.Sequential(nn.Linear(compact_size(self.observation_size), features_dim),
                                   nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.dense(compact_inputs(observations, self.observation_size))
