"""A one-ply greedy player: try every legal action on a copy, keep the best by a heuristic.

Each trial plays the acting player's own turn to its end (steps 2 and 3 included, a
pending discard or removal completed with the cheapest slot) on a copy whose stacks
are emptied, so no hidden tile is drawn (R10.2), and stops before any opponent moves:
the engine's `turn.full_turn_trial`, run for each legal action by the loop the styles
share (`one_ply.trial_values`).
The resulting position is scored for the acting player by projecting it to the end of
the game as if the player bought nothing more: for each of the `turns_left` turns, the
income step and the population step are played with the engine's own arithmetic
(turn.income_step_outcome and population_step_outcome, R5.2, R5.3) and its red lines
and clamps (red_lines.red_line_level_change and adjustments.clamped_level, R8.1, R9.1,
R1.2), then money converts at $5 a population (R8.2):

    value = projected population + projected money / 5
            + money_weight * (turns_left / 20) * money now

The last term is the option value of money that can still buy tiles, fading as the game
ends. `turns_left` is estimated before the trial from public information only (the final
round once One More Round is drawn, else the tiles left in the stacks divided by the
tiles that leave per round). A finished game scores its final population. Goals are not
valued. Ties keep the first action in mask order. The default weight (0.7) won about
60% of 60 games against Dale in a small sweep (0 to 1.5).

The projection is coarser than play in three ways, which keep it cheap and its choices
as they have always been (tests/golden/*greedy*.txt): the red lines are counted once a
turn, net of rises and falls; the Casino and PR Firm reactions to a line crossed (R6.6)
are left out; and the money a population below 0 would cost (R5.3) is not taken.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suburbia_env import Game
from suburbia_env.engine import action_space as a
from suburbia_env.engine.tile_data import GOALS, TILES

from .base import Agent
from .one_ply import FULL_TURN, MONEY, NUM_WEIGHTS, trial_values

DEFAULT_MONEY_WEIGHT = 0.7


@njit(cache=True)
def greedy_action(state, tiles, goals, basic_kinds, money_weight, mask, actions):
    """The legal action whose trial (`turn.full_turn_trial`) scores best; ties keep the
    first in mask order (module docstring)."""
    weights = np.zeros(NUM_WEIGHTS)
    weights[MONEY] = money_weight
    values = trial_values(state, tiles, goals, basic_kinds, weights, FULL_TURN, mask, actions)
    return actions[np.argmax(values)]


class GreedyAgent(Agent):
    """One-ply greedy player with the heuristic of the module docstring."""

    name = "greedy"

    def __init__(self, money_weight: float = DEFAULT_MONEY_WEIGHT):
        self.money_weight = float(money_weight)
        self._mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
        self._actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)

    def act(self, game: Game) -> int:
        return int(greedy_action(game.state, TILES.table, GOALS.table, TILES.basic_kinds,
                                 self.money_weight, self._mask, self._actions))
