"""Agents from short text specs, as the command line and the tournament runner name them.

=============================  =====================================================
spec                           agent
=============================  =====================================================
``random``                     RandomAgent (uniform legal play, seeded)
``dale``                       DaleAgent (Dale's procedure of R9.2, any mode)
``greedy``                     GreedyAgent with its default weights
``greedy:W1,W2,...``           GreedyAgent with these weights, in the order of its
                               constructor's parameters (`greedy_weight_names()`)
``ppo:PATH``                   PPOAgent, a saved MaskablePPO model, deterministic;
                               PATH is NAME.safetensors (with NAME.json beside it,
                               agents/model_format.py)
``ppo-sample:PATH``            PPOAgent sampling from its policy (seeded)
``ppo-rollout:PATH``           ValueSearchAgent: the model's 4 likeliest actions, each
                               played out to the end (every seat by the model) on 4
                               redraws of the hidden information; every mode
``ppo-search:PATH``            ValueSearchAgent valuing its 8 likeliest actions with
                               its critic at its own next decision (every mode)
``ppo-rollout:PATH,K,S,W,O``   either with K candidates, S redraws, prior weight W and
``ppo-search:PATH,K,S,W,O``    O playing the other seats inside the search: model
                               (default), greedy, dale or random (SEARCH_DEFAULTS below)
``ppo:pickle:PATH.zip`` ...    any ppo spec with ``pickle:`` before the path: a pickled
                               stable-baselines3 zip is allowed, which runs code stored
                               in the file (trusted files only; a warning is shown)
=============================  =====================================================
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

from suburbia_env.errors import (ConfigError, ModelFileNotFoundError, ModelFormatError,
                                 shown)

from .base import Agent
from .dale_agent import DaleAgent
from .greedy import GreedyAgent
from .random_agent import RandomAgent

# Settings of the search agents when a spec gives none (chosen on 200 games, seeds 6000+).
SEARCH_DEFAULTS = {
    "critic": {"candidates": 8, "samples": 4, "prior_weight": 0.02, "reward": "margin"},
    "rollout": {"candidates": 4, "samples": 4, "prior_weight": 0.0, "reward": "win_loss",
                "margin_weight": 0.5},
}

AGENT_SPECS = ("random", "dale", "greedy", "greedy:WEIGHTS", "ppo:PATH", "ppo-sample:PATH",
               "ppo-search:PATH[,K,S,W,O]", "ppo-rollout:PATH[,K,S,W,O]")
PPO_KINDS = ("ppo", "ppo-sample", "ppo-search", "ppo-rollout")
PICKLE_PREFIX = "pickle:"
"""Before a ppo spec's path: permission to load a pickled model (which runs its code)."""


MAX_SEARCH_TRIALS = 4096
"""At most K x S trials per decision for the search agents (each trial holds a state, an
observation and a mask, about 46 kB)."""


ROLLOUT_OPPONENTS = ("model", "greedy", "dale", "random")
"""Who plays the other seats inside a search agent's trials (value_search.py)."""


class AgentSpecError(ConfigError):
    """An agent spec that names no agent, or names it with unusable arguments (a
    SuburbiaError and a ValueError)."""


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
        raise AgentSpecError(f"agent spec {shown(spec)}: greedy takes up to {len(names)} weight(s) "
                             f"'greedy:{','.join(names)}', got {len(parts)} value(s)")
    try:
        weights = [float(part) for part in parts]
    except ValueError:
        raise AgentSpecError(f"agent spec {shown(spec)}: the greedy weights "
                             f"({', '.join(names)}) must be numbers") from None
    if not all(math.isfinite(weight) for weight in weights):
        raise AgentSpecError(f"agent spec {shown(spec)}: the greedy weights must be finite")
    agent = GreedyAgent(*weights)
    agent.name = spec
    return agent


def _model_path(spec: str, path_text: str) -> Path:
    path = Path(path_text).expanduser()
    try:
        found = path.is_file()
    except (OSError, ValueError) as error:  # a name too long, a NUL character
        raise ModelFormatError(f"agent spec {shown(spec)}: no model file can be at "
                               f"{shown(str(path))} ({getattr(error, 'strerror', None) or error})"
                               ) from None
    if not found:
        raise ModelFileNotFoundError(f"agent spec {shown(spec)}: no model file at "
                                     f"{shown(str(path))}")
    return path


def _ppo(spec: str, path_text: str, deterministic: bool, seed: int | None,
         allow_pickle: bool) -> Agent:
    if not path_text:
        raise AgentSpecError(f"agent spec {shown(spec)}: give the model file, e.g. "
                             f"'ppo:models/baseline.safetensors'")
    path = _model_path(spec, path_text)
    from .ppo_agent import PPOAgent
    agent = PPOAgent(path, deterministic=deterministic, seed=seed, allow_pickle=allow_pickle)
    agent.name = spec
    return agent


def _ppo_search(spec: str, kind: str, arguments: str, seed: int | None,
                evaluation: str, allow_pickle: bool) -> Agent:
    path_text, *values = [part.strip() for part in arguments.split(",")]
    if not path_text:
        raise AgentSpecError(f"agent spec {shown(spec)}: give the model file, e.g. "
                             f"'{kind}:models/baseline.safetensors'")
    if len(values) > 4:
        raise AgentSpecError(f"agent spec {shown(spec)}: the search agents take PATH and up to "
                             f"four settings '{kind}:PATH,K,S,W,O', got {len(values)}")
    opponent = values[3].lower() if len(values) == 4 else "model"
    if opponent not in ROLLOUT_OPPONENTS:
        raise AgentSpecError(f"agent spec {shown(spec)}: O (who plays the other seats inside "
                             f"the search) must be one of {', '.join(ROLLOUT_OPPONENTS)}, not "
                             f"{shown(values[3])}")
    try:
        counts = [int(text) for text in values[:2]]
        prior = [float(text) for text in values[2:3]]
    except ValueError:
        raise AgentSpecError(f"agent spec {shown(spec)}: K and S must be whole numbers and W "
                             f"a number") from None
    if any(count < 1 for count in counts) or not all(math.isfinite(w) for w in prior):
        raise AgentSpecError(f"agent spec {shown(spec)}: K and S must be at least 1, W finite")
    if math.prod(min(count, MAX_SEARCH_TRIALS + 1) for count in counts) > MAX_SEARCH_TRIALS:
        raise AgentSpecError(f"agent spec {shown(spec)}: K x S must be at most {MAX_SEARCH_TRIALS} "
                             f"trials per decision")
    path = _model_path(spec, path_text)
    from .value_search import ValueSearchAgent
    settings = dict(SEARCH_DEFAULTS[evaluation])
    settings.update(zip(("candidates", "samples"), counts))
    if prior:
        settings["prior_weight"] = prior[0]
    agent = ValueSearchAgent(path, evaluation=evaluation, seed=seed, allow_pickle=allow_pickle,
                             opponent=opponent, **settings)
    agent.name = spec
    return agent


def allow_pickle_in_spec(spec: str) -> str:
    """`spec` with permission to load a pickled model (the ``pickle:`` prefix before its
    path) if it is a ppo spec, else unchanged: how a command line's --allow-pickle reaches
    agents built from specs in other processes."""
    if not isinstance(spec, str):
        return spec
    kind, separator, arguments = spec.strip().partition(":")
    if kind.lower() not in PPO_KINDS or not separator or arguments.startswith(PICKLE_PREFIX):
        return spec
    return f"{kind}:{PICKLE_PREFIX}{arguments}"


def make_agent(spec: str, seed: int | None = None, allow_pickle: bool = False) -> Agent:
    """The agent a spec names (table above); `seed` seeds agents that draw at random.
    `allow_pickle` (or the spec's ``pickle:`` prefix) lets a ppo spec load a pickled
    stable-baselines3 zip, which runs code stored in the file.

    Raises AgentSpecError for an unknown or malformed spec, ModelFileNotFoundError (a
    FileNotFoundError) for a model file that does not exist and ModelFormatError for
    one that cannot be loaded safely.
    """
    if not isinstance(spec, str):
        raise AgentSpecError(f"an agent spec is text such as 'greedy', not {shown(spec)}")
    text = spec.strip()
    kind, separator, arguments = text.partition(":")
    kind = kind.lower()
    if kind == "random" and not separator:
        return RandomAgent(seed)
    if kind == "dale" and not separator:
        return DaleAgent()
    if kind == "greedy":
        return _greedy(text, arguments) if separator else GreedyAgent()
    if kind in PPO_KINDS and separator and arguments.startswith(PICKLE_PREFIX):
        allow_pickle, arguments = True, arguments[len(PICKLE_PREFIX):]
    if kind in ("ppo-search", "ppo-rollout") and separator:
        evaluation = "critic" if kind == "ppo-search" else "rollout"
        return _ppo_search(text, kind, arguments, seed, evaluation, allow_pickle)
    if kind in ("ppo", "ppo-sample") and separator:
        return _ppo(text, arguments.strip(), kind == "ppo", seed, allow_pickle)
    raise AgentSpecError(f"unknown agent spec {shown(spec)}: use one of {_known()}")
