"""A cheaper first layer for the policy: the learner's own borough in full, the other
boroughs as per-plane totals, and everything else as it is (observation.py parts).

With SB3's default flatten extractor the first dense layer reads all 8714 inputs, of
which 7956 are the four borough grids; most of the training time goes there. Other
players' boroughs matter to the learner mainly through their totals (goals, R8.2), so
they are summed per plane, which cuts the first layer's inputs to about a third.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from suburbia_env.constants import MAX_PLAYERS
from suburbia_env.observation import (BOROUGH_SIZE, BOROUGHS_START, CELL_FEATURES,
                                      OBSERVATION_SIZE, PLAYERS_START)


class SuburbiaFeatures(BaseFeaturesExtractor):
    """Own borough (17 x 117) + other boroughs' plane totals (3 x 17) + the rest -> dense."""

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 256):
        super().__init__(observation_space, features_dim)
        self.other_size = (MAX_PLAYERS - 1) * CELL_FEATURES
        inputs = BOROUGH_SIZE + self.other_size + (OBSERVATION_SIZE - PLAYERS_START)
        self.dense = nn.Sequential(nn.Linear(inputs, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        own = observations[:, BOROUGHS_START:BOROUGHS_START + BOROUGH_SIZE]
        others = observations[:, BOROUGHS_START + BOROUGH_SIZE:PLAYERS_START]
        others = others.reshape(-1, MAX_PLAYERS - 1, CELL_FEATURES, BOROUGH_SIZE // CELL_FEATURES)
        rest = observations[:, PLAYERS_START:]
        return self.dense(torch.cat([own, others.sum(dim=3).flatten(1) / 10.0, rest], dim=1))
