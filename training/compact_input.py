"""The compact view of an observation that the policies' first layer reads: the
learner's own borough in full, the other boroughs as per-plane totals, and everything
else as it is (observation.py parts).

Other players' boroughs matter to the learner mainly through their totals (goals, R8.2),
so they are summed per plane, which cuts the first layer's inputs to about a third.
Shared by the stable-baselines3 extractor (training/features.py) and the RLlib module
(training/rllib_module.py); plain torch, no training library.
"""

from __future__ import annotations

import torch

from suburbia_env.constants import MAX_PLAYERS
from suburbia_env.observation import (BOROUGH_SIZE, BOROUGHS_START, CELL_FEATURES,
                                      OBSERVATION_SIZE, PLAYERS_START)

OTHER_BOROUGHS_SIZE = (MAX_PLAYERS - 1) * CELL_FEATURES
COMPACT_SIZE = BOROUGH_SIZE + OTHER_BOROUGHS_SIZE + (OBSERVATION_SIZE - PLAYERS_START)


def compact_inputs(observations: torch.Tensor) -> torch.Tensor:
    """(batch, OBSERVATION_SIZE) observations -> (batch, COMPACT_SIZE)."""
    own = observations[:, BOROUGHS_START:BOROUGHS_START + BOROUGH_SIZE]
    others = observations[:, BOROUGHS_START + BOROUGH_SIZE:PLAYERS_START]
    others = others.reshape(-1, MAX_PLAYERS - 1, CELL_FEATURES, BOROUGH_SIZE // CELL_FEATURES)
    rest = observations[:, PLAYERS_START:]
    return torch.cat([own, others.sum(dim=3).flatten(1) / 10.0, rest], dim=1)
