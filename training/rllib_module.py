"""The old home of agents/rllib_module.py, kept for a while (suburbia_env/versions.py)."""

import sys
import warnings

from agents import rllib_module

warnings.warn("training.rllib_module moved to agents.rllib_module; import it from there",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = rllib_module
