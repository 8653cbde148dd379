"""The old home of agents/compact_input.py, kept for a while (suburbia_env/versions.py)."""

import sys
import warnings

from agents import compact_input

warnings.warn("training.compact_input moved to agents.compact_input; import it from there",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = compact_input
