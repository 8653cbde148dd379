"""Players with one interface (base.Agent): random, Dale, greedy and trained policies.

`make_agent(spec)` builds one from a short text spec (registry.py), e.g. "greedy",
"greedy:1,0.5,0.25", "ppo:models/baseline.safetensors" or
"ppo-rollout:models/baseline.safetensors".
"""

from .base import Agent
from .dale_agent import DaleAgent
from .greedy import GreedyAgent
from .ppo_agent import PPOAgent
from .random_agent import RandomAgent
from .registry import AGENT_SPECS, AgentSpecError, make_agent
from .value_search import ValueSearchAgent

__all__ = ["AGENT_SPECS", "Agent", "AgentSpecError", "DaleAgent", "GreedyAgent", "PPOAgent",
           "RandomAgent", "ValueSearchAgent", "make_agent"]
