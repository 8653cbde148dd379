"""A cheaper first layer for the policy: the compact view of agents/compact_input.py
(own borough in full, other boroughs as per-plane totals, the rest as it is) -> dense.

With SB3's default flatten extractor the first dense layer reads all 8714 inputs, of
which 7956 are the four borough grids; most of the training time goes there.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .compact_input import COMPACT_SIZE, compact_inputs


class SuburbiaFeatures(BaseFeaturesExtractor):
    """Own borough (17 x 117) + other boroughs' plane totals (3 x 17) + the rest -> dense."""

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 256):
        super().__init__(observation_space, features_dim)
        self.dense = nn.Sequential(nn.Linear(COMPACT_SIZE, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.dense(compact_inputs(observations))
