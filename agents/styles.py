"""Heuristic players of distinct styles: yardsticks beside the greedy player.

Each is a one-ply player like greedy (agents/greedy.py), through the same loop
(`one_ply.trial_values`): every legal action is played on a scratch copy to the end of
the player's own turn by the engine's `turn.own_turn_trial` (step 1, the cheapest
discard where one follows, steps 2 and 3; no tile drawn, R10.2, no other seat), and
the outcome is scored for the player. The
score is greedy's projection of its final population (`one_ply.position_value`: income
and population steps to the end with the red lines, money at $5 a population, plus
`money` x turns_left/20 x money now for the money that can still buy tiles) plus the
style's terms, each a weight on an engine quantity:

    goals        x expected goal bonuses: for each public goal and the player's own
                 private goal (R8.2), its bonus x the chance to be alone in front at the
                 end, a logistic of the lead (`scoring.goal_lead`) whose spread grows with
                 the turns left; other players' private goals are hidden and not used
    lakes        x phase x lake payments still open (`resolution.waiting_lake_payments`,
                 R6.7), each $2 worth 0.4 population
    investments  x phase x investment markers placed (R7.3)
    reputation   x phase x reputation level
    income       x phase x income level

where phase = turns_left / 20 (1 early, 0 at the end; `one_ply.turns_left`, public
information only). Ties between equally scored actions go to one drawn by the agent's
generator, reseeded by `reset(seed)`.

The styles (`STYLES`):
- ``goals``: plays for its private and public goals (R8.2), and keeps at the start the
  drawn goal it stands best on (R3.6).
- ``lakes``: lakes and investments: values what its lakes will still pay (R6.7) and the
  doubled triggers of invested tiles (R7.3).
- ``reputation``: builds reputation first (R5.3) and counts income for less.
- ``hoarder``: money first: cash held and income, and little else.

An opponent whose style changes during a game: `SwitchingAgent` (spec
``switching:A,B,round=R``) plays as A before round R and as B from it on, e.g. greedy that
turns hoarder; the search must hold against it (agents/value_search.py, the fallback).

Every style but ``goals`` also counts the goal bonuses at a lower weight, so that it keeps
a sensible private goal and does not throw away bonuses for nothing; greedy counts none.
Strength against greedy and Dale: docs/agents.md.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from suburbia_env import Game
from suburbia_env.engine import action_space as a
from suburbia_env.engine.tile_data import GOALS, TILES

from .base import Agent
from .one_ply import OWN_TURN, WEIGHT_NAMES, trial_values

STYLES = {
    "goals": (0.7, 1.5, 0.0, 0.0, 0.0, 0.0),
    "lakes": (0.7, 0.5, 0.6, 1.5, 0.0, 0.0),
    "reputation": (0.7, 0.5, 0.0, 0.0, 1.0, -0.5),
    "hoarder": (1.0, 0.5, 0.0, 0.0, 0.0, 2.0),
}
"""Each style's weights, in the order of WEIGHT_NAMES (module docstring)."""

TIE_TOLERANCE = 1e-9


@njit(cache=True)
def style_action(state, tiles, goals, basic_kinds, weights, tie_draw, mask, actions):
    """The legal action whose trial (`turn.own_turn_trial`) scores best; among equal ones
    the one `tie_draw` (uniform in [0, 1)) picks."""
    values = trial_values(state, tiles, goals, basic_kinds, weights, OWN_TURN, mask, actions)
    count = values.shape[0]
    if count == 1:
        return actions[0]
    best = -1e18
    for index in range(count):
        best = max(best, values[index])
    ties = 0
    for index in range(count):
        if values[index] >= best - TIE_TOLERANCE:
            ties += 1
    chosen = min(int(tie_draw * ties), ties - 1)
    for index in range(count):
        if values[index] >= best - TIE_TOLERANCE:
            if chosen == 0:
                return actions[index]
            chosen -= 1
    return actions[0]


class StyleAgent(Agent):
    """A one-ply player of one style (module docstring): `style` names one of STYLES,
    `weights` (in the order of WEIGHT_NAMES) replace its weights."""

    def __init__(self, style: str = "goals", weights=None, seed: int | None = None):
        if style not in STYLES:
            raise ValueError(f"no style {style!r}; the styles are {', '.join(STYLES)}")
        chosen = STYLES[style] if weights is None else tuple(weights)
        if len(chosen) != len(WEIGHT_NAMES) or not all(math.isfinite(w) for w in chosen):
            raise ValueError(f"a style takes {len(WEIGHT_NAMES)} finite weights "
                             f"({', '.join(WEIGHT_NAMES)}), not {chosen!r}")
        self.name = style
        self.style = style
        self.weights = np.array(chosen, dtype=np.float64)
        self._mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
        self._actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._generator = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        return int(style_action(game.state, TILES.table, GOALS.table, TILES.basic_kinds,
                                self.weights, self._generator.random(), self._mask,
                                self._actions))

    def best_actions(self, game: Game) -> np.ndarray:
        """The legal actions that score best, tied: `act` plays one of them, picked by its
        tie draw (what a search that models this style may expect of it)."""
        values = trial_values(game.state, TILES.table, GOALS.table, TILES.basic_kinds,
                              self.weights, OWN_TURN, self._mask, self._actions)
        actions = self._actions[:values.shape[0]]
        return actions[values >= values.max() - TIE_TOLERANCE].copy()


class SwitchingAgent(Agent):
    """Plays as `agents[0]` until the round `switch_rounds[0]` (counted from 1, as the game
    shows rounds), then as `agents[1]`, and so on: a player whose style changes during a
    game (module docstring). `reset(seed)` reseeds each agent with its own seed drawn
    from `seed`, so the same seed gives the same game. Moves of the other seats are shown
    to every agent that watches them."""

    def __init__(self, agents: list, switch_rounds: list[int], name: str = "switching"):
        if len(agents) < 2 or len(switch_rounds) != len(agents) - 1:
            raise ValueError(f"a switching player needs two agents or more and one switch "
                             f"round fewer, not {len(agents)} and {len(switch_rounds)}")
        if any(not isinstance(r, int) or r < 2 for r in switch_rounds) \
                or list(switch_rounds) != sorted(set(switch_rounds)):
            raise ValueError(f"the switch rounds must be whole numbers from 2 up, rising, "
                             f"not {switch_rounds!r}")
        self.agents = list(agents)
        self.switch_rounds = list(switch_rounds)
        self.name = name

    def playing(self, game: Game) -> Agent:
        """The agent that plays the game's current round."""
        shown_round = game.round + 1
        return self.agents[sum(shown_round >= r for r in self.switch_rounds)]

    def reset(self, seed: int | None = None) -> None:
        seeds = np.random.SeedSequence(seed).generate_state(len(self.agents)) \
            if seed is not None else [None] * len(self.agents)
        for agent, agent_seed in zip(self.agents, seeds):
            agent.reset(None if agent_seed is None else int(agent_seed))

    def act(self, game: Game) -> int:
        return self.playing(game).act(game)

    def observe(self, game: Game, action: int, seat: int) -> None:
        for agent in self.agents:
            observe = getattr(agent, "observe", None)
            if callable(observe) and getattr(observe, "__func__", None) is not Agent.observe:
                observe(game, action, seat)
