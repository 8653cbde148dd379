"""Positions that differ from a given one only in what no player sees (R10.2)."""

import numpy as np

from suburbia_env.engine import state_layout as s
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.setup import stack_sizes
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import tile_stack


def seen_by(state, seat) -> np.ndarray:
    """Everything `seat` may know of a position (R10.1): its observation vector."""
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(state, TILES.table, seat, out)
    return out


def undrawn_stacks(state) -> np.ndarray:
    """The stack order still to be drawn (a copy): what no player sees (R10.2)."""
    return state[s.PILE + state[s.PILE_POSITION]:s.PILE + state[s.PILE_END]].copy()


def with_other_hidden_facts(state, seed):
    """The same position as the player to act sees it (R10.1) with another stack order,
    another split of unseen tiles between stacks and box, One More Round elsewhere in its
    block, and other goals drawn, kept and returned by the other players (R10.2)."""
    other = state.copy()
    generator = np.random.default_rng(seed)
    _swap_other_players_goals(other, generator)
    one_more_round = TILES.table.shape[0] - 1
    drawn = other[s.PILE_POSITION]
    bounds = [(drawn, other[s.PILE_A_END]),
              (max(drawn, other[s.PILE_A_END]), other[s.PILE_B_END]),
              (max(drawn, other[s.PILE_B_END]), other[s.PILE_END])]
    for start, stop in bounds:
        if stop <= start:
            continue
        segment = other[s.PILE + start:s.PILE + stop]
        positions = np.flatnonzero(segment != one_more_round)
        segment[positions] = generator.permutation(segment[positions])
        kind = segment[positions[0]]
        swap = [k for k in range(one_more_round - 1) if other[s.BOX + k] > 0 and k != kind
                and tile_stack(TILES.table, k) == tile_stack(TILES.table, kind)]
        if swap:
            other[s.BOX + swap[0]] -= 1
            other[s.BOX + kind] += 1
            segment[positions[0]] = swap[0]
    pile = other[s.PILE:s.PILE + other[s.PILE_END]]
    where = np.flatnonzero(pile[drawn:] == one_more_round)
    if where.size:
        sizes = stack_sizes(other[s.NUM_PLAYERS], other[s.MODE], other[s.EDITION])
        block_start = max(drawn, other[s.PILE_B_END] + sizes[2])
        block_stop = other[s.PILE_B_END] + sizes[2] + sizes[3] + 1
        target = int(generator.integers(block_start, block_stop))
        current = drawn + int(where[0])
        pile[current], pile[target] = pile[target], pile[current]
    return other


def _swap_other_players_goals(state, generator):
    """Deal every other player two goals the player to act has not seen, keeping the
    same option if one was kept."""
    viewer = state[s.CURRENT_PLAYER]
    if viewer < 0:
        return
    seen = {int(g) for g in state[s.PUBLIC_GOALS:s.PUBLIC_GOALS + 4] if g >= 0}
    own = s.player_base(viewer)
    seen |= {int(g) for g in state[own + s.GOAL_OPTIONS:own + s.GOAL_OPTIONS + 2] if g >= 0}
    unseen = [goal for goal in range(len(GOALS.names)) if goal not in seen]
    dealt = iter(generator.permutation(unseen))
    for player in range(state[s.NUM_PLAYERS]):
        base = s.player_base(player)
        if player == viewer or state[base + s.GOAL_OPTIONS] < 0:
            continue
        options = state[base + s.GOAL_OPTIONS:base + s.GOAL_OPTIONS + 2]
        kept = [index for index in range(2) if options[index] == state[base + s.PRIVATE_GOAL]]
        options[:] = [next(dealt), next(dealt)]
        if kept:
            state[base + s.PRIVATE_GOAL] = options[kept[0]]
