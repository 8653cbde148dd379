"""Bounds of round, money and population (R1.3 leaves money and population unbounded
above; play does not), so that no kernel can overflow on a state within them.

`last_round` is the highest round a configuration can reach: One More Round lies at
most at the last position of its block (R3.2, R3.3, R9.2), the turn that draws it is
fixed by the draws per turn, and one more round follows (R4.3, R9.1; with Dale the game
ends at the round start that draws it). A player takes at most `MOST_TURNS` turns (the
largest `last_round` + 1 over all configurations) and at most `MOST_TILES` tiles are ever
on the table (three starting tiles per seat plus one placement per turn). The money a
player can ever receive is then at most: $15 (R3.4); $15 of income per turn (R1.2,
R5.2); for each copy of each tile with a money term of amount A (the player may own every
copy), 2A per immediate term (placed, then once more when invested, R7.3) and 4A *
MOST_TILES per conditional term (current matches at placement, again at investment, two
per later match once invested); and for each lake (at most MOST_TILES), six $4 payments
for its neighbours, six $2 more for investing in it (R6.7) and, after each of the six
payments, the bonus of every Waterfront Realty copy, invested. `MONEY_BOUND` is that sum.
Population likewise: 2 (R3.4), 15 per turn from reputation (R5.3), the tiles' population
terms, then final scoring: every public goal bonus, the largest private bonus and
MONEY_BOUND // 5 (R8.2). Both are far beyond what games reach (a few hundred) and far below
2**31, so no kernel can overflow on a state within them.
"""

from __future__ import annotations

from numba import njit

from .. import constants as c
from ..hex_grid import NUM_CELLS, STARTING_CELLS
from ..setup import stack_sizes
from ..tile_data import GOALS, TILES
from ..tile_table import (conditional_amount, conditional_attribute, conditional_scope,
                          conditional_term_count, immediate_amount, immediate_attribute,
                          immediate_term_count, private_goal_bonus, public_goal_bonus,
                          tile_copies)

NUM_GOALS = GOALS.table.shape[0]


@njit(cache=True)
def last_round(num_players, mode, edition):
    """The highest round number (from 0) a game of this configuration can reach (see the
    module docstring): the round after the turn that draws One More Round at the last
    position of its block (R4.3, R9.1), or with Dale the round whose start draws it (R9.2)."""
    sizes = stack_sizes(num_players, mode, edition)
    last_position = sizes[0] + sizes[1] + sizes[2] + sizes[3]  # the block's last entry
    if mode == c.MODE_DALE:
        return last_position // (c.DALE_LAST_SLOT - c.DALE_FIRST_SLOT + 1)
    draws = 2 if mode == c.MODE_SOLITARY else 1
    return (last_position - c.NUM_SLOTS) // draws // num_players + 1


CONFIGURATIONS = tuple((seats, mode, edition)
                       for seats, mode in ((2, c.MODE_STANDARD), (3, c.MODE_STANDARD),
                                           (4, c.MODE_STANDARD), (1, c.MODE_SOLITARY),
                                           (2, c.MODE_DALE))
                       for edition in (c.EDITION_SECOND, c.EDITION_FIRST))
"""Every (seats, mode, edition) of R3.1, R3.2, R3.3 and R9."""

MOST_TURNS = max(int(last_round(*config)) + 1 for config in CONFIGURATIONS)
"""The most turns one player can take in any configuration."""
MOST_TILES = max(3 * seats + seats * (int(last_round(seats, mode, edition)) + 1)
                 for seats, mode, edition in CONFIGURATIONS)
"""The most tiles ever on the table in any configuration: starting tiles plus one
placement per turn."""


def _gains_from_tiles(attribute: int) -> int:
    """The most a player can gain of `attribute` from tile terms (module docstring)."""
    table = TILES.table
    total = 0
    for kind in range(TILES.lake):
        per_copy = 0
        for term in range(immediate_term_count(table, kind)):
            amount = immediate_amount(table, kind, term)
            if immediate_attribute(table, kind, term) == attribute and amount > 0:
                per_copy += 2 * amount
        for term in range(conditional_term_count(table, kind)):
            amount = conditional_amount(table, kind, term)
            scope = conditional_scope(table, kind, term)
            if conditional_attribute(table, kind, term) != attribute or amount <= 0:
                continue
            if scope == c.SCOPE_LAKE_ADJACENT_OWN:
                continue  # counted with the lakes
            if scope == c.SCOPE_REDLINE_OWN:  # matches are red lines: not bounded here
                raise RuntimeError(f"{TILES.names[kind]}: a red-line term of money or "
                                   f"population is outside the derivation of the bounds")
            per_copy += 4 * amount * MOST_TILES
        total += tile_copies(table, kind) * per_copy
    return total


def _lake_money() -> int:
    table = TILES.table
    lake_amount = max(conditional_amount(table, TILES.lake, term)
                      for term in range(conditional_term_count(table, TILES.lake)))
    bonus = 0
    for kind in range(TILES.lake):
        for term in range(conditional_term_count(table, kind)):
            if conditional_scope(table, kind, term) == c.SCOPE_LAKE_ADJACENT_OWN:
                bonus += (tile_copies(table, kind) * 2
                          * max(0, conditional_amount(table, kind, term)))
    return MOST_TILES * (6 * 2 * lake_amount + 6 * lake_amount + 6 * bonus)


MONEY_BOUND = (c.START_MONEY + c.LEVEL_MAX * MOST_TURNS + _gains_from_tiles(c.ATTR_MONEY)
               + _lake_money())
"""No game gives a player more money than this (module docstring)."""
POPULATION_BOUND = (c.START_POPULATION + c.LEVEL_MAX * MOST_TURNS
                    + _gains_from_tiles(c.ATTR_POPULATION)
                    + c.MAX_PLAYERS * max(public_goal_bonus(GOALS.table, goal)
                                          for goal in range(NUM_GOALS))
                    + max(private_goal_bonus(GOALS.table, goal) for goal in range(NUM_GOALS))
                    + MONEY_BOUND // 5)
"""No game gives a player a larger population than this (module docstring)."""
MOST_PLACEMENTS = c.MAX_PLAYERS * (NUM_CELLS - len(STARTING_CELLS))
"""The largest placement counter a state can hold is MOST_PLACEMENTS + 1."""
HEADROOM = 2**24
"""`check_consistency`'s bound of money, population, round and placement counter (module
docstring): far above what play from any state within the tight bounds reaches, and 2**31
is 128 times further."""
