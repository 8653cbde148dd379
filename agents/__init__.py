"""Players with one interface (base.Agent): random, Dale, greedy and trained policies."""

from .base import Agent
from .dale_agent import DaleAgent
from .greedy import GreedyAgent
from .random_agent import RandomAgent

__all__ = ["Agent", "DaleAgent", "GreedyAgent", "RandomAgent"]
