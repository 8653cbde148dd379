"""Uniformly random legal play, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from suburbia_env import Game

from .base import Agent


class RandomAgent(Agent):
    name = "random"
    compiled_opponent = "random"

    def __init__(self, seed: int | None = None):
        self._generator = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._generator = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        return int(self._generator.choice(game.legal_actions()))

    def act_on_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self._generator.choice(np.flatnonzero(mask)))
