"""Compiled calls over a batch of games waiting on their external seats (seats a caller
decides: Python players, snapshots of a learner, agents' batched kernels): apply one
action per game, finish the learners' steps, and encode the acting seats' inputs, each
one call for the whole batch (env_runner.EnvRunner.play_external, training/self_play.py).
They only sequence env_core's kernels.
"""

from numba import njit

from . import state_layout as s
from .env_core import STEP_TERMINATED, apply_external_action, finish_game_step
from .legal_actions import legal_action_mask
from .observation import encode_observation
from .refcount_free import njit_without_refcounts


@njit_without_refcounts
def apply_external_rows(tables, games, rows, chosen, actions, log):
    """`apply_external_action` of `chosen[i]` in game `rows[i]`, in order; the first i whose
    action is not legal (that game untouched, the later ones not played), else -1."""
    for row in range(rows.shape[0]):
        if not apply_external_action(tables, games, rows[row], chosen[row], actions, log):
            return row
    return -1


@njit_without_refcounts
def finish_game_steps(tables, settings, games, outcomes, rows, actions):
    """`finish_game_step` of each game of `rows`, its reward and result into `outcomes`."""
    for row in range(rows.shape[0]):
        index = rows[row]
        reward, result = finish_game_step(tables, settings, games, index, actions)
        outcomes.rewards[index] = reward
        outcomes.results[index] = result
        outcomes.terminated[index] = result == STEP_TERMINATED


@njit(cache=True)
def encode_acting_seats(tables, games, rows, observations, masks, actions):
    """The observation and legal-action mask of the acting seat of each game `rows[i]`
    into row i of `observations` and `masks` (zeroed beforehand): the inputs of a batch of
    seats a network decides."""
    for row in range(rows.shape[0]):
        state = games.states[rows[row]]
        encode_observation(state, tables.tiles, state[s.CURRENT_PLAYER], observations[row])
        legal_action_mask(state, tables.tiles, tables.basic_kinds, masks[row], actions)
