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
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.errors import ArgumentError, ConfigError
from suburbia_env.engine.observation import OBSERVATION_SIZE


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

    def observe(self, game: Game, action: int, seat: int) -> None:
        """Shown every move of the other seats before it is played (`observers`): `game`
        before the move, its `action` number, and `seat`, the observer's own seat. An
        agent that learns from what it sees (its view only, R10.2) overrides it; it must
        not change the game."""

    def act_on_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise TypeError(f"{self.name} decides from a game, not from an observation")

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; agents with a generator reseed it here."""

    def __call__(self, game: Game) -> int:
        return self.act(game)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def observers(agents: dict, game: Game) -> list[tuple[int, object]]:
    """(seat, observe) of the agents (by seat) to be shown the move about to be played in
    `game`: every seat but the mover's whose agent overrides `observe`, and none for the
    goal choice, which is hidden (R3.6). The game loop (agents/table.py) shows moves this
    way, to the agents of tournaments, demonstrations, the web and the terminal."""
    if game.pending_decision == "keep_goal":
        return []
    mover = game.current_player
    shown = []
    for seat, agent in agents.items():
        observe = getattr(agent, "observe", None)
        if seat != mover and callable(observe) \
                and getattr(observe, "__func__", None) is not Agent.observe:
            shown.append((seat, observe))
    return shown


def checked_policy_input(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mask as a bool array, once the observation and the mask have the environments'
    shapes and the mask allows an action: what `act_on_observation` of a policy needs."""
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != (NUM_ACTIONS,) or np.shape(observation) != (OBSERVATION_SIZE,):
        raise ArgumentError(f"an observation of shape ({OBSERVATION_SIZE},) and a mask "
                            f"of shape ({NUM_ACTIONS},) are needed, not "
                            f"{np.shape(observation)} and {mask.shape}")
    if not mask.any():
        raise ArgumentError("the action mask has no legal action")
    return mask
