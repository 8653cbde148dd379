"""The one interface every player shares: given a game, return an action.

An agent's `act(game)` receives a `suburbia_env.Game` whose current player is the
agent's seat and returns a legal action number (or a line of notation). Agents that
can also decide from an observation and its mask (the environments' view) implement
`act_on_observation`. Agents the compiled environments can run without Python set
`compiled_opponent` to the engine's name for them ("random", "dale"). Agents that can
only play some modes name them in `modes`; `check_mode` refuses the others up front.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from suburbia_env import Game
from suburbia_env.errors import ConfigError


class Agent(ABC):
    """Base class: subclasses implement `act`; `name` labels results tables."""

    name = "agent"
    compiled_opponent: str | None = None
    modes: tuple[str, ...] | None = None  # None: every mode

    def check_mode(self, mode: str) -> None:
        """Raise ConfigError if this agent cannot play games of `mode`."""
        if self.modes is not None and mode not in self.modes:
            raise ConfigError(f"agent {self.name!r} plays only {' and '.join(self.modes)} "
                              f"games, not {mode!r}")

    @abstractmethod
    def act(self, game: Game) -> int:
        """A legal action number (or a line of notation) for the game's current player."""

    def act_on_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise TypeError(f"{self.name} decides from a game, not from an observation")

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; agents with a generator reseed it here."""

    def __call__(self, game: Game) -> int:
        return self.act(game)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
