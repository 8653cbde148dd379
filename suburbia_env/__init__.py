"""Suburbia as a reinforcement-learning environment: a numba rules engine (RULES.md),
a Python facade (`Game`), and Gymnasium / PettingZoo wrappers."""

from .engine.kernel_cache import drop_stale_kernels, lock_cache_files

drop_stale_kernels()
lock_cache_files()

from ._moved import install as _install_moved_paths

_install_moved_paths()

from .engine.action_space import NUM_ACTIONS
from .errors import (ConfigError, GameOverError, IllegalActionError, NotationError,
                     StateFormatError, SuburbiaError)
from .game import Game, GameConfig

__all__ = ["Game", "GameConfig", "NUM_ACTIONS", "ConfigError", "GameOverError",
           "IllegalActionError", "NotationError", "StateFormatError", "SuburbiaError"]

from .versions import ENV_ID

import gymnasium as _gymnasium

# Only the current version is registered: gymnasium answers `make("Suburbia-v0")` with
# DeprecatedEnv naming Suburbia-v1, so no result is silently produced under other rules.
if ENV_ID not in _gymnasium.registry:
    _gymnasium.register(id=ENV_ID, entry_point="suburbia_env.envs.gym_env:SuburbiaEnv",
                        vector_entry_point="suburbia_env.envs.vector_env:SuburbiaVectorEnv")
