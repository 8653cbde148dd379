"""Suburbia as a reinforcement-learning environment: a numba rules engine (RULES.md),
a Python facade (`Game`), and Gymnasium / PettingZoo wrappers."""

from .kernel_cache import drop_stale_kernels

drop_stale_kernels()

from .action_space import NUM_ACTIONS
from .errors import (ConfigError, GameOverError, IllegalActionError, NotationError,
                     StateFormatError, SuburbiaError)
from .game import Game, GameConfig

__all__ = ["Game", "GameConfig", "NUM_ACTIONS", "ConfigError", "GameOverError",
           "IllegalActionError", "NotationError", "StateFormatError", "SuburbiaError"]

import gymnasium as _gymnasium

if "Suburbia-v0" not in _gymnasium.registry:
    _gymnasium.register(id="Suburbia-v0", entry_point="suburbia_env.gym_env:SuburbiaEnv",
                        vector_entry_point="suburbia_env.vector_env:SuburbiaVectorEnv")
