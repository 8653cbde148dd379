"""A trained policy with a goal prior: the network's choice nudged towards the goals.

Why: the multi-player policy out-builds greedy and the styles but gives the public goals
away. In 200 two-player games against `goals` (tuning seeds 7,500,000+) it scored 97.3
population before the goals against 73.0, yet won the public goals' bonuses 5.9 to 17.2
a game, and in the games it lost 2.0 to 22.4 (docs/yardsticks.md, "Where the policy
loses"). Its observation names the drawn goals but not who leads on them (R8.2), and
PPO has not taught the network to read that from the boroughs.

This agent adds to the log-probability of each legal action `weight` x the player's
expected goal bonus after the action's own-turn trial (`one_ply.trial_goal_bonuses`:
each public goal's bonus and its own private goal's, times the chance of ending alone
in front, the term the `goals` style plays for) and takes the best. It reads what the
styles read: public information and its own private goal, with no tile drawn (R10.2).
With weight 0 it plays exactly as the network's policy. A network trained with the goal
prior (`suburbia train --goal-prior-weight W`) carries W and plays this sum as `ppo:PATH`
(agents/ppo_agent.py); `ppo-goals:PATH,V` on it adds V in place of W.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from suburbia_env import Game
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.observation import encode_observation
from suburbia_env.engine.tile_data import TILES

from .base import Agent
from .goal_term import goal_prior_scores
from .ppo_agent import PPOAgent

GOAL_WEIGHT = 1.0
"""Log-probability per population of expected goal bonus (tuned on seeds 7,600,000+,
docs/yardsticks.md "Where the policy loses")."""
class GoalPriorAgent(Agent):
    """`ppo-goals:PATH[,W]` (agents/registry.py): the policy of PATH with goal weight W."""

    name = "ppo-goals"

    def __init__(self, path: str | Path, weight: float = GOAL_WEIGHT,
                 allow_pickle: bool = False):
        self.policy = PPOAgent(path, deterministic=True, allow_pickle=allow_pickle)
        self.weight = float(weight)
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        self._actions = np.zeros(NUM_ACTIONS, dtype=np.int32)

    def probabilities(self, game: Game) -> np.ndarray:
        """The policy's probabilities over the flat action space at `game`."""
        observation = self.policy._observation
        encode_observation(game.state, TILES.table, game.current_player, observation)
        return self.policy.policy_probabilities(observation, game.legal_action_mask())

    def scores(self, game: Game) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions, their scores): log-probability + weight x expected goal bonus."""
        return goal_prior_scores(game.state, self.probabilities(game), self.weight,
                                 self._mask, self._actions)

    def act(self, game: Game) -> int:
        if self.weight == 0.0:
            return int(np.argmax(self.probabilities(game)))
        actions, scores = self.scores(game)
        return int(actions[np.argmax(scores)])

    def __repr__(self) -> str:
        return f"GoalPriorAgent(path={str(self.policy.path)!r}, weight={self.weight})"
