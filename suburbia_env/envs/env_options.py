"""The options and spaces every environment shares, checked in one place.

Each check raises the one exception of its kind (errors.py): ConfigError for an option
that is not one of its values, ArgumentError for a bad seed. The Gymnasium, vector,
self-play, PettingZoo and OpenSpiel environments import these instead of each other.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ..engine import action_space as a
from ..engine.env_core import OPPONENT_EXTERNAL, OPPONENT_NAMES, REWARD_NAMES
from ..errors import ArgumentError, ConfigError, shown
from ..engine.observation import OBSERVATION_SIZE

OBSERVATION_LOW = -1.0
OBSERVATION_HIGH = 100.0


def check_choice(option: str, value, choices, wanted: str | None = None) -> str:
    """`value` if it is one of the names `choices`, else ConfigError naming the option and
    what it must be (`wanted`, default "one of a, b")."""
    if not isinstance(value, str) or value not in choices:
        raise ConfigError(f"{option} must be {wanted or 'one of ' + ', '.join(choices)}, "
                          f"not {shown(value)}")
    return value


def check_number(option: str, value) -> float:
    """A finite real number given for `option`, as a float."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating))
            or not np.isfinite(float(value))):
        raise ConfigError(f"{option} must be a finite number, not {shown(value)}")
    return float(value)


def check_learner_seat(learner_seat, seats: int, mode: str) -> int | str:
    """The learner_seat option: 'random' or a seat number (always 0 with Dale, R9.2)."""
    if isinstance(learner_seat, str) and learner_seat == "random":
        return 0 if mode == "dale" else "random"
    if (not isinstance(learner_seat, (int, np.integer))
            or isinstance(learner_seat, (bool, np.bool_)) or not 0 <= learner_seat < seats):
        raise ConfigError(f"learner_seat must be 'random' or a seat 0..{seats - 1}, "
                          f"not {shown(learner_seat)}")
    if mode == "dale" and learner_seat != 0:
        raise ConfigError("with Dale the player always takes seat 0 (R9.2)")
    return int(learner_seat)


def check_seed(seed) -> int | None:
    """A reset seed: None or a non-negative integer (numpy integers become ints)."""
    if seed is None:
        return None
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)) or seed < 0:
        raise ArgumentError(f"seed must be None or a non-negative integer, not {shown(seed)}")
    return int(seed)


def observation_spaces(observation_format: str,
                       observation_size: int = OBSERVATION_SIZE) -> gym.spaces.Space:
    """The observation space shared by all three environments; with an earlier
    `observation_size` (observation.OBSERVATION_SIZES), the space a model trained then
    was built for."""
    box = gym.spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, (observation_size,), np.float32)
    check_choice("observation_format", observation_format, ("dict", "flat"), "'dict' or 'flat'")
    if observation_format == "flat":
        return box
    return gym.spaces.Dict({"observation": box,
                            "action_mask": gym.spaces.Box(0, 1, (a.NUM_ACTIONS,), np.int8)})


def resolve_opponents(opponents: Any, seats: int) -> tuple[np.ndarray, dict[int, Any]]:
    """Per-seat compiled opponent codes and the Python policies of external seats."""
    if isinstance(opponents, (str, bytes)) or callable(opponents) or hasattr(opponents, "act"):
        opponents = [opponents] * seats
    try:
        opponents = list(opponents)
    except TypeError:
        raise ConfigError(f"opponents must be a name, an agent, a callable or a list of them "
                          f"per seat, not {shown(opponents)}") from None
    if not opponents:
        raise ConfigError("opponents is an empty list: give a name, an agent, a callable or "
                          "a list of them per seat")
    if len(opponents) < seats:
        opponents = opponents + [opponents[-1]] * (seats - len(opponents))
    kinds = np.zeros(4, dtype=np.int32)
    external: dict[int, Any] = {}
    for seat, opponent in enumerate(opponents[:seats]):
        if isinstance(opponent, str):
            if opponent not in OPPONENT_NAMES:
                raise ConfigError(f"unknown opponent {shown(opponent)}: use one of "
                                  f"{', '.join(OPPONENT_NAMES)}, an agent or a callable")
            kinds[seat] = OPPONENT_NAMES.index(opponent)
        elif getattr(opponent, "compiled_opponent", None) in OPPONENT_NAMES:
            kinds[seat] = OPPONENT_NAMES.index(opponent.compiled_opponent)
        elif callable(opponent) or hasattr(opponent, "act"):
            kinds[seat] = OPPONENT_EXTERNAL
            external[seat] = opponent
        else:
            raise ConfigError(f"opponent {shown(opponent)} is neither a name, an agent nor a "
                              f"callable")
    return kinds, external


def action_space() -> gym.spaces.Discrete:
    """The flat action space of action_space.py, shared by every environment."""
    return gym.spaces.Discrete(a.NUM_ACTIONS)


def check_reward(reward) -> int:
    """The reward option as its REWARD_* code (env_core.py)."""
    return REWARD_NAMES.index(check_choice("reward", reward, REWARD_NAMES))


def check_count(option: str, value, allow_none: bool = False) -> int | None:
    """A positive whole number given for `option` (or None where allowed)."""
    if value is None and allow_none:
        return None
    if (not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_))
            or value < 1):
        raise ConfigError(f"{option} must be {'None or ' if allow_none else ''}a positive "
                          f"integer, not {shown(value)}")
    return int(value)
