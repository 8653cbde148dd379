"""Building positions by hand: for the worked examples, tests and strategy studies.

These edit a game's state the way a person sets up a table, not the way a turn plays:
a tile put with `put_tile_without_effects` triggers nothing (like the starting borough,
R2.3). Every tile is taken from the box (or from the undrawn stacks, swapped for a box
tile of the same stack), so each physical tile stays in exactly one place.

Positions made here need not be reachable by play (the loader refuses those), but every
edit is a door into the engine: the state must pass `invariants.check_invariants` before
it (the compiled code here indexes by its values) and after it, or StateFormatError is
raised naming the field and the game is left as it was. A bad argument (no seat, a cell
off the borough, an unknown tile name, a value that is not a whole number) raises
ArgumentError before anything is touched.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .engine import constants as c
from .engine import state_layout as s
from .errors import ArgumentError, ConfigError, shown
from .game import Game
from .engine.hex_grid import cell_index
from .engine.checks.invariants import validate_state
from .engine.resolution import put_next_tile
from .engine.tile_data import TILES
from .engine.tile_table import tile_stack


def take_physical_tile(state: np.ndarray, kind: int) -> None:
    """Take a tile of `kind` out of the box (or out of the undrawn stacks, swapped for a box
    tile of the same stack): a raw edit of a state vector, unchecked, for a caller that
    puts the tile somewhere at once (a tile resolved by hand in a test)."""
    if s.boxed(state, kind) > 0:
        s.add_boxed(state, kind, -1)
        return
    stack = tile_stack(TILES.table, kind)
    for position in range(int(state[s.PILE_POSITION]), int(state[s.PILE_END])):
        if s.pile_tile(state, position) == kind:
            for substitute in range(TILES.num_kinds - 2):
                if (tile_stack(TILES.table, substitute) == stack
                        and s.boxed(state, substitute) > 0):
                    s.add_boxed(state, substitute, -1)
                    s.set_pile_tile(state, position, substitute)
                    return
    raise ConfigError(f"no {TILES.names[kind]} is left in the box or the stacks")


def _whole(value, what: str, low: int, high: int) -> int:
    """`value` as a whole number low..high, else ArgumentError naming `what`."""
    if (not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_))
            or not low <= value <= high):
        raise ArgumentError(f"{what} must be a whole number {low}..{high}, not {shown(value)}")
    return int(value)


def _seat(game: Game, player) -> int:
    return _whole(player, "player", 0, game.num_seats - 1)


def _cell(column, row) -> int:
    cell = cell_index(_whole(column, "column", -2**31, 2**31 - 1),
                      _whole(row, "row", -2**31, 2**31 - 1))
    if cell < 0:
        raise ArgumentError(f"cell {column},{row} is off the borough")
    return cell


def _kind(name) -> int:
    """The kind of a tile name (tiles.csv, any case); never the lake or One More Round."""
    kind = -1
    if isinstance(name, str):
        try:
            kind = TILES.kind(name)
        except KeyError:
            pass
    if not 0 <= kind < TILES.lake:
        raise ArgumentError(f"no tile is called {shown(name)} (names as in tiles.csv)")
    return kind


def _return_to_box(state: np.ndarray, kind: int) -> None:
    s.add_boxed(state, kind, 1)


@contextmanager
def _checked_edit(game: Game):
    """Validate the state before and after an edit; on any failure restore it."""
    validate_state(game.state)
    before = game.state.copy()
    try:
        yield game.state
        validate_state(game.state)
    except BaseException:
        game.state[:] = before
        raise


def set_market_tile(game: Game, slot: int, name: str | None) -> None:
    """Put a tile (by name) into a market slot, returning what was there to the box."""
    slot = _whole(slot, "slot", 0, c.NUM_SLOTS - 1)
    kind = None if name is None else _kind(name)
    with _checked_edit(game) as state:
        held = int(s.market_slot(state, slot))
        if held >= 0:
            _return_to_box(state, held)
        s.set_market_slot(state, slot, -1)
        if kind is not None:
            take_physical_tile(state, kind)
            s.set_market_slot(state, slot, kind)


def put_tile_without_effects(game: Game, player: int, name: str, column: int, row: int,
                             lake: bool = False, invested: bool = False) -> None:
    """Put a tile (or a lake made of it) into a borough without resolving anything."""
    cell = _cell(column, row)
    player = _seat(game, player)
    kind = _kind(name)
    with _checked_edit(game) as state:
        if s.cell_kind(state, player, cell) >= 0:
            raise ArgumentError(f"cell {column},{row} of player {player} is not empty")
        take_physical_tile(state, kind)
        put_next_tile(state, TILES.table, player, cell, kind, np.bool_(lake))
        if invested:
            s.add_cell_flags(state, player, cell, s.FLAG_INVESTED)
            s.set_markers_left(state, player, s.markers_left(state, player) - 1)


def invest_without_effects(game: Game, player: int, column: int, row: int) -> None:
    """Put one of the player's markers on the tile at (column, row) without resolving
    anything (R5.1d, R7.3 left out)."""
    cell = _cell(column, row)
    player = _seat(game, player)
    with _checked_edit(game) as state:
        if s.cell_kind(state, player, cell) < 0:
            raise ArgumentError(f"cell {column},{row} of player {player} is empty")
        if s.is_invested(state, player, cell):
            raise ArgumentError(f"the tile at {column},{row} of player {player} is invested")
        if s.markers_left(state, player) <= 0:
            raise ArgumentError(f"player {player} has no marker left")
        s.add_cell_flags(state, player, cell, s.FLAG_INVESTED)
        s.set_markers_left(state, player, s.markers_left(state, player) - 1)


def set_player_values(game: Game, player: int, **values: int) -> None:
    """Set money, income, reputation, population or markers_left of a seat (markers_left
    must stay 3 minus the invested tiles: use `invest_without_effects` to use one up)."""
    fields = {"money": s.set_money, "income": s.set_income, "reputation": s.set_reputation,
              "population": s.set_population, "markers_left": s.set_markers_left}
    player = _seat(game, player)
    for name, value in values.items():
        if name not in fields:
            raise ArgumentError(f"unknown player value {shown(name)}; known: "
                                f"{', '.join(fields)}")
        _whole(value, name, -2**31, 2**31 - 1)
    with _checked_edit(game) as state:
        for name, value in values.items():
            fields[name](state, player, value)


def set_current_player(game: Game, player: int) -> None:
    """Make `player` the one to take a turn now (pending decision: turn)."""
    player = _seat(game, player)
    with _checked_edit(game) as state:
        state[s.CURRENT_PLAYER] = player
        state[s.PENDING_DECISION] = c.DECISION_TURN
