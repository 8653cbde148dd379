"""The compact view of an observation that the policies' first layer reads (own borough
in full, other boroughs as per-plane totals, the rest as it is). It lives with the
networks that inference needs, in agents/networks.py; this module keeps the names the
stable-baselines3 extractor (agents/features.py) and the RLlib module
(agents/rllib_module.py) import."""

from __future__ import annotations

from agents.networks import COMPACT_SIZE, OTHER_BOROUGHS_SIZE, compact_inputs

__all__ = ["COMPACT_SIZE", "OTHER_BOROUGHS_SIZE", "compact_inputs"]
