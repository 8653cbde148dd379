"""Heuristic players of distinct styles: yardsticks beside the greedy player.

Each is a one-ply player like greedy (agents/greedy.py): every legal action is played on
a scratch copy to the end of the player's own turn by the engine's
`turn.own_turn_trial` (step 1, the cheapest discard where one follows, steps 2 and 3;
no tile drawn, R10.2, no other seat), and the outcome is scored for the player. The
score is greedy's projection of its final population (`greedy.position_value`: income
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

where phase = turns_left / 20 (1 early, 0 at the end; `greedy.turns_left`, public
information only). Ties between equally scored actions go to one drawn by the agent's
generator, reseeded by `reset(seed)`.

The styles (`STYLES`):
- ``goals``: plays for its private and public goals (R8.2), and keeps at the start the
  drawn goal it stands best on (R3.6).
- ``lakes``: lakes and investments: values what its lakes will still pay (R6.7) and the
  doubled triggers of invested tiles (R7.3).
- ``reputation``: builds reputation first (R5.3) and counts income for less.
- ``hoarder``: money first: cash held and income, and little else.

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
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.event_log import NUM_EVENT_FIELDS
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.resolution import copy_state, waiting_lake_payments
from suburbia_env.engine.scoring import goal_lead
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import goal_criterion, private_goal_bonus, public_goal_bonus
from suburbia_env.engine.turn import own_turn_trial

from .base import Agent
from .greedy import position_value, turns_left

WEIGHT_NAMES = ("money", "goals", "lakes", "investments", "reputation", "income")
MONEY, GOAL_BONUSES, LAKE_PAYMENTS, INVESTMENTS, REPUTATION, INCOME = range(6)

STYLES = {
    "goals": (0.7, 1.5, 0.0, 0.0, 0.0, 0.0),
    "lakes": (0.7, 0.5, 0.6, 1.5, 0.0, 0.0),
    "reputation": (0.7, 0.5, 0.0, 0.0, 1.0, -0.5),
    "hoarder": (1.0, 0.5, 0.0, 0.0, 0.0, 2.0),
}
"""Each style's weights, in the order of WEIGHT_NAMES (module docstring)."""

LAKE_PAYMENT_POPULATION = 0.4
"""A $2 lake payment in population at the final conversion of $5 a population (R8.2)."""
GOAL_SPREAD_PER_TURN = 0.15
"""How much wider, per turn left, the spread of a goal's lead at the end is taken to be."""
TIE_TOLERANCE = 1e-9


@njit(cache=True)
def _goal_spread(criterion):
    """The lead on a criterion that is about as sure as one tile more on a count."""
    if criterion == c.CRITERION_MONEY:
        return 8.0
    if criterion == c.CRITERION_INCOME or criterion == c.CRITERION_REPUTATION:
        return 2.0
    return 1.0


@njit(cache=True)
def goal_chance(state, tiles, goals, goal, player, future_turns):
    """The chance the player ends alone in front on a goal, from its lead now: a logistic
    centred half a unit in front (a tie scores nothing, R8.2), wider with more turns left."""
    lead = goal_lead(state, tiles, goals, goal, player)
    spread = _goal_spread(goal_criterion(goals, goal)) * (
        0.5 + GOAL_SPREAD_PER_TURN * future_turns)
    return 1.0 / (1.0 + math.exp(-(lead - 0.5) / spread))


@njit(cache=True)
def expected_goal_bonus(state, tiles, goals, player, future_turns):
    """The public goals' bonuses and the player's own private goal's, each times its
    `goal_chance`; with no other player (Solitary Architect, R9.1) there are no goals."""
    if state[s.NUM_PLAYERS] < 2:
        return 0.0
    total = 0.0
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if goal >= 0:
            total += public_goal_bonus(goals, goal) * goal_chance(
                state, tiles, goals, goal, player, future_turns)
    goal = s.private_goal(state, player)
    if goal >= 0:
        total += private_goal_bonus(goals, goal) * goal_chance(
            state, tiles, goals, goal, player, future_turns)
    return total


@njit(cache=True)
def markers_placed(state, player):
    """Investment markers on the player's tiles (R7.3)."""
    placed = 0
    for position in range(s.tile_count(state, player)):
        if s.is_invested(state, player, s.placed_cell(state, player, position)):
            placed += 1
    return placed


@njit(cache=True)
def style_value(state, tiles, goals, player, future_turns, weights):
    """The score of a trial's outcome for the player (module docstring)."""
    value = position_value(state, player, future_turns, weights[MONEY])
    phase = min(1.0, future_turns / 20.0)
    if weights[GOAL_BONUSES] != 0.0:
        value += weights[GOAL_BONUSES] * expected_goal_bonus(state, tiles, goals, player,
                                                             future_turns)
    if weights[LAKE_PAYMENTS] != 0.0:
        value += (weights[LAKE_PAYMENTS] * phase * LAKE_PAYMENT_POPULATION
                  * waiting_lake_payments(state, player))
    if weights[INVESTMENTS] != 0.0:
        value += weights[INVESTMENTS] * phase * markers_placed(state, player)
    value += weights[REPUTATION] * phase * s.reputation(state, player)
    value += weights[INCOME] * phase * s.income(state, player)
    return value


@njit(cache=True)
def style_action(state, tiles, goals, basic_kinds, weights, tie_draw, mask, actions):
    """The legal action whose trial scores best; among equal ones the one `tie_draw`
    (uniform in [0, 1)) picks."""
    count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
    if count == 1:
        return actions[0]
    player = state[s.CURRENT_PLAYER]
    future_turns = turns_left(state)
    scratch = np.empty_like(state)
    log = np.zeros((1, NUM_EVENT_FIELDS), dtype=np.int32)
    values = np.empty(count)
    best = -1e18
    for index in range(count):
        copy_state(scratch, state)
        own_turn_trial(scratch, tiles, goals, basic_kinds, actions[index], log)
        values[index] = style_value(scratch, tiles, goals, player, future_turns, weights)
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
