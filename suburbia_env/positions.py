"""Building positions by hand: for the worked examples, tests and strategy studies.

These edit a game's state the way a person sets up a table, not the way a turn plays:
a tile put with `put_tile_without_effects` triggers nothing (like the starting borough,
R2.3). Every tile is taken from the box (or from the undrawn stacks, swapped for a box
tile of the same stack), so each physical tile stays in exactly one place.
"""

from __future__ import annotations

import numpy as np

from . import constants as c
from . import state_layout as s
from .errors import ConfigError
from .game import Game
from .hex_grid import cell_index
from .resolution import put_next_tile
from .tile_data import COLUMN_STACK, TILES


def _take_physical_tile(state: np.ndarray, kind: int) -> None:
    if state[s.BOX + kind] > 0:
        state[s.BOX + kind] -= 1
        return
    stack = TILES.table[kind, COLUMN_STACK]
    for position in range(int(state[s.PILE_POSITION]), int(state[s.PILE_END])):
        if state[s.PILE + position] == kind:
            for substitute in range(TILES.num_kinds - 2):
                if TILES.table[substitute, COLUMN_STACK] == stack and state[s.BOX + substitute] > 0:
                    state[s.BOX + substitute] -= 1
                    state[s.PILE + position] = substitute
                    return
    raise ConfigError(f"no {TILES.names[kind]} is left in the box or the stacks")


def _return_to_box(state: np.ndarray, kind: int) -> None:
    state[s.BOX + kind] += 1


def set_market_tile(game: Game, slot: int, name: str | None) -> None:
    """Put a tile (by name) into a market slot, returning what was there to the box."""
    if not 0 <= slot < c.NUM_SLOTS:
        raise ValueError(f"slot must be 0..{c.NUM_SLOTS - 1}, not {slot}")
    state = game.state
    held = int(state[s.MARKET + slot])
    if held >= 0:
        _return_to_box(state, held)
    state[s.MARKET + slot] = -1
    if name is not None:
        kind = TILES.kind(name)
        _take_physical_tile(state, kind)
        state[s.MARKET + slot] = kind


def put_tile_without_effects(game: Game, player: int, name: str, column: int, row: int,
                             lake: bool = False, invested: bool = False) -> None:
    """Put a tile (or a lake made of it) into a borough without resolving anything."""
    cell = cell_index(column, row)
    if cell < 0:
        raise ValueError(f"cell {column},{row} is off the borough")
    state = game.state
    base = s.player_base(player)
    if state[base + s.CELL_KIND + cell] >= 0:
        raise ValueError(f"cell {column},{row} of player {player} is not empty")
    kind = TILES.kind(name)
    _take_physical_tile(state, kind)
    put_next_tile(state, TILES.table, player, cell, kind, np.bool_(lake))
    if invested:
        state[base + s.CELL_FLAGS + cell] |= s.FLAG_INVESTED
        state[base + s.MARKERS_LEFT] -= 1


def set_player_values(game: Game, player: int, **values: int) -> None:
    """Set money, income, reputation, population or markers_left of a seat."""
    fields = {"money": s.MONEY, "income": s.INCOME, "reputation": s.REPUTATION,
              "population": s.POPULATION, "markers_left": s.MARKERS_LEFT}
    for name, value in values.items():
        if name not in fields:
            raise ValueError(f"unknown player value {name!r}; known: {', '.join(fields)}")
        game.state[s.player_base(player) + fields[name]] = value


def set_current_player(game: Game, player: int) -> None:
    """Make `player` the one to take a turn now (pending decision: turn)."""
    game.state[s.CURRENT_PLAYER] = player
    game.state[s.PENDING_DECISION] = c.DECISION_TURN
