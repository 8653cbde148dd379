"""Compiled one-ply seats for a batch of games: the greedy player and the heuristic styles
decide the waiting seats of every game of a batch in one call (training/self_play.py).

A seat is coded as in self-play's `seat_policies`: DALE_SEAT_POLICY (Dale's procedure,
which the engine's environment kernels play themselves), GREEDY_SEAT_POLICY,
`style_seat_policy(k)` for the k-th style of agents.styles.STYLES, and 0, 1, ... for
snapshots of a learner (decided by the caller with one forward pass per snapshot).

The players are `greedy.greedy_action` and `styles.style_action` themselves, called
from one compiled loop instead of once per game from Python: a seat here chooses
exactly as GreedyAgent or StyleAgent chooses on the same state. The greedy player draws
nothing (ties keep the first legal action). A style draws one tie draw per decision,
as StyleAgent draws one per `act`; here it is the next word of its game's own seeded
generator (`games.rng_words`, engine.rng, which the self-play games use for nothing
else) scaled to [0, 1), so the same seed gives the same games.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from suburbia_env.engine import state_layout as s
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.rng import next_word

from .greedy import greedy_action
from .styles import STYLES, style_action

DALE_SEAT_POLICY = -1
GREEDY_SEAT_POLICY = -2
FIRST_STYLE_SEAT_POLICY = -3
"""Seat codes that are not snapshots (those are pool indices >= 0); style k is
FIRST_STYLE_SEAT_POLICY - k."""

STYLE_NAMES = tuple(STYLES)
STYLE_WEIGHTS = np.array([STYLES[name] for name in STYLE_NAMES], dtype=np.float64)
"""The styles' weights, one row per style in the order of STYLE_NAMES."""

WORD_SCALE = 1.0 / 4294967296.0
"""A 32-bit generator word (engine.rng.next_word) times this is uniform in [0, 1)."""


def style_seat_policy(style: int) -> int:
    """The seat code of the style at `style` in STYLE_NAMES."""
    return FIRST_STYLE_SEAT_POLICY - style


@njit(cache=True)
def tie_draw(rng_words):
    """A style's tie draw in [0, 1) from a game's generator (module docstring)."""
    return next_word(rng_words, 0) * WORD_SCALE


@njit(cache=True)
def decide_one_ply_rows(tables, games, seat_policies, money_weight, style_weights, rows,
                        first, step, chosen, mask, actions):
    """For each game `rows[i]` (i = first, first + step, ...) whose acting seat is greedy
    or a style, that seat's action into `chosen[i]`; the other rows of `chosen` are left
    as they are. Returns how many seats decided."""
    decided = 0
    for row in range(first, rows.shape[0], step):
        index = rows[row]
        state = games.states[index]
        policy = seat_policies[index, state[s.CURRENT_PLAYER]]
        if policy == GREEDY_SEAT_POLICY:
            chosen[row] = greedy_action(state, tables.tiles, tables.goals, tables.basic_kinds,
                                        money_weight, mask, actions)
            decided += 1
        elif policy <= FIRST_STYLE_SEAT_POLICY:
            draw = tie_draw(games.rng_words[index])
            chosen[row] = style_action(state, tables.tiles, tables.goals, tables.basic_kinds,
                                       style_weights[FIRST_STYLE_SEAT_POLICY - policy], draw,
                                       mask, actions)
            decided += 1
    return decided


@njit(cache=True)
def decide_one_ply_seats(tables, games, seat_policies, money_weight, style_weights, rows,
                         chosen, mask, actions):
    """`decide_one_ply_rows` over every row, on one thread."""
    return decide_one_ply_rows(tables, games, seat_policies, money_weight, style_weights,
                               rows, 0, 1, chosen, mask, actions)


@njit(cache=True, parallel=True)
def decide_one_ply_seats_parallel(tables, games, seat_policies, money_weight, style_weights,
                                  rows, chosen, num_chunks):
    """`decide_one_ply_seats` over the cores: chunk k takes rows k, k + num_chunks, ...
    (interleaved, so a run of costly decisions is shared out). Each seat's choice depends
    only on its own game (its state and generator), so the actions are those of one
    thread."""
    decided = np.zeros(num_chunks, dtype=np.int64)
    for chunk in prange(num_chunks):
        mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
        decided[chunk] = decide_one_ply_rows(tables, games, seat_policies, money_weight,
                                             style_weights, rows, chunk, num_chunks, chosen,
                                             mask, actions)
    return decided.sum()
