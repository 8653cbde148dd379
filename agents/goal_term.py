"""The goal prior's term: a policy's log-probabilities plus W x each legal action's expected
goal bonus after its own-turn trial (R8.2; `one_ply.trial_goal_bonuses`, public
information and the player's own private goal only, R10.2).

The goal prior agent (agents/goal_prior.py), a network trained with the term
(agents/ppo_agent.py), the search's candidates and rollouts (agents/value_search.py) and
the recipes' evaluations (training/evaluation.py) all score actions with this one function.
"""

from __future__ import annotations

import numpy as np

from suburbia_env.engine.tile_data import GOALS, TILES

from .one_ply import OWN_CHANCES, trial_goal_bonuses

SMALLEST_PROBABILITY = 1e-12
"""Floor of a legal action's probability before its logarithm is taken."""


def goal_prior_scores(state: np.ndarray, probabilities: np.ndarray, weight: float,
                      mask: np.ndarray, actions: np.ndarray, denial: float = 0.0,
                      chances: np.ndarray = OWN_CHANCES) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, their scores): each one's log-probability under `probabilities`
    plus `weight` x the expected goal bonus after its own-turn trial, less `denial` x the
    other players' expected public goal bonuses there, the goals' chances refit when
    `chances` holds a refit (`one_ply.chance_with`; `mask` and `actions` are scratch
    arrays of NUM_ACTIONS)."""
    bonuses = trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds, mask,
                                 actions, float(denial), chances)
    legal = actions[:bonuses.shape[0]].copy()
    logs = np.log(np.maximum(probabilities[legal], SMALLEST_PROBABILITY))
    return legal, logs + weight * bonuses
