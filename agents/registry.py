"""Agents from short text specs, as the command line and the tournament runner name them.

=============================  =====================================================
spec                           agent
=============================  =====================================================
``random``                     RandomAgent (uniform legal play, seeded)
``dale``                       DaleAgent (Dale's procedure of R9.2, any mode)
``greedy``                     GreedyAgent with its default weights
``greedy:W1,W2,...``           GreedyAgent with these weights, in the order of its
                               constructor's parameters (`greedy_weight_names()`)
``ppo:PATH``                   PPOAgent, a saved MaskablePPO model, deterministic
``ppo-sample:PATH``            PPOAgent sampling from its policy (seeded)
=============================  =====================================================
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

from .base import Agent
from .dale_agent import DaleAgent
from .greedy import GreedyAgent
from .random_agent import RandomAgent

AGENT_SPECS = ("random", "dale", "greedy", "greedy:WEIGHTS", "ppo:PATH", "ppo-sample:PATH")


class AgentSpecError(ValueError):
    """An agent spec that names no agent, or names it with unusable arguments."""


def _known() -> str:
    return ", ".join(AGENT_SPECS)


def greedy_weight_names() -> list[str]:
    """The weights GreedyAgent takes, in order (its constructor's parameters)."""
    return [name for name in inspect.signature(GreedyAgent.__init__).parameters
            if name != "self"]


def _greedy(spec: str, arguments: str) -> GreedyAgent:
    names = greedy_weight_names()
    parts = [part.strip() for part in arguments.split(",")]
    if not 1 <= len(parts) <= len(names):
        raise AgentSpecError(f"agent spec {spec!r}: greedy takes up to {len(names)} weight(s) "
                             f"'greedy:{','.join(names)}', got {len(parts)} value(s)")
    try:
        weights = [float(part) for part in parts]
    except ValueError:
        raise AgentSpecError(f"agent spec {spec!r}: the greedy weights "
                             f"({', '.join(names)}) must be numbers") from None
    if not all(math.isfinite(weight) for weight in weights):
        raise AgentSpecError(f"agent spec {spec!r}: the greedy weights must be finite")
    agent = GreedyAgent(*weights)
    agent.name = spec
    return agent


def _ppo(spec: str, path_text: str, deterministic: bool, seed: int | None) -> Agent:
    if not path_text:
        raise AgentSpecError(f"agent spec {spec!r}: give the model file, e.g. "
                             f"'ppo:models/baseline.zip'")
    path = Path(path_text).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"agent spec {spec!r}: no model file at {path}")
    from .ppo_agent import PPOAgent
    agent = PPOAgent(path, deterministic=deterministic, seed=seed)
    agent.name = spec
    return agent


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """The agent a spec names (table above); `seed` seeds agents that draw at random.

    Raises AgentSpecError for an unknown or malformed spec and FileNotFoundError for a
    model file that does not exist.
    """
    if not isinstance(spec, str):
        raise AgentSpecError(f"an agent spec is text such as 'greedy', not {spec!r}")
    text = spec.strip()
    kind, separator, arguments = text.partition(":")
    kind = kind.lower()
    if kind == "random" and not separator:
        return RandomAgent(seed)
    if kind == "dale" and not separator:
        return DaleAgent()
    if kind == "greedy":
        return _greedy(text, arguments) if separator else GreedyAgent()
    if kind in ("ppo", "ppo-sample") and separator:
        return _ppo(text, arguments.strip(), kind == "ppo", seed)
    raise AgentSpecError(f"unknown agent spec {spec!r}: use one of {_known()}")
