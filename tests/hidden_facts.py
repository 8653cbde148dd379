"""Positions that differ from a given one only in what no player sees (R10.2)."""

import numpy as np

from suburbia_env import state_layout as s
from suburbia_env.setup import stack_sizes
from suburbia_env.tile_data import COLUMN_STACK, TILES


def with_other_hidden_facts(state, seed):
    """The same public position with another stack order, another split of unseen tiles
    between stacks and box, and One More Round elsewhere in its block."""
    other = state.copy()
    generator = np.random.default_rng(seed)
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
                and TILES.table[k, COLUMN_STACK] == TILES.table[kind, COLUMN_STACK]]
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
