"""Text rendering of a game and of its event log, so a player can check the engine by eye."""

from __future__ import annotations

import numpy as np

from . import constants as c
from . import event_log as ev
from .hex_grid import cell_coordinates
from .tile_data import GOALS, TILES


def _player_name(player: int, dale_mode: bool) -> str:
    if player < 0:
        return "nobody"
    return "Dale" if dale_mode and player == 1 else f"player {player}"


def _source(row: np.ndarray, dale_mode: bool) -> str:
    kind = int(row[ev.SOURCE_KIND])
    cell = int(row[ev.SOURCE_CELL])
    owner = int(row[ev.SOURCE_PLAYER])
    if kind < 0 or owner < 0:
        return "the rules"
    column, row_number = cell_coordinates(cell)
    return f"{TILES.names[kind]} at {column},{row_number} of {_player_name(owner, dale_mode)}"


def describe_event(row: np.ndarray, dale_mode: bool = False) -> str:
    """One line of text for one event row."""
    event = int(row[ev.EVENT])
    who = _player_name(int(row[ev.PLAYER]), dale_mode)
    amount = int(row[ev.AMOUNT])
    value = int(row[ev.VALUE_AFTER])
    kind = int(row[ev.SOURCE_KIND])
    name = TILES.names[kind] if kind >= 0 else "?"
    if event == ev.EFFECT:
        attribute = c.ATTRIBUTE_NAMES[int(row[ev.ATTRIBUTE])]
        return f"{who}: {attribute}{amount:+d} -> {value} ({_source(row, dale_mode)})"
    if event == ev.RED_LINE:
        direction = "crosses the red line at" if amount > 0 else "falls back below the red line at"
        return f"{who} {direction} {value}"
    if event in (ev.PLACE, ev.DALE_BUY):
        column, row_number = cell_coordinates(int(row[ev.SOURCE_CELL]))
        what = f"a lake (from {name})" if int(row[ev.ATTRIBUTE]) == 1 else name
        return f"{who} pays ${amount} and places {what} at {column},{row_number}"
    if event == ev.INVEST:
        column, row_number = cell_coordinates(int(row[ev.SOURCE_CELL]))
        return f"{who} pays ${amount} to invest in {name} at {column},{row_number}"
    if event == ev.INCOME_STEP:
        return f"{who}: income step {amount:+d}, money now ${value}"
    if event == ev.POPULATION_STEP:
        return f"{who}: population step {amount:+d}, population now {value}"
    if event == ev.SHORTFALL:
        attribute = c.ATTRIBUTE_NAMES[int(row[ev.ATTRIBUTE])]
        return f"{who}: shortfall, {attribute}{amount:+d} -> {value}"
    if event == ev.DISCARD:
        return f"{who} discards {name} from slot {int(row[ev.SOURCE_CELL])} paying ${amount}"
    if event == ev.DRAW:
        return f"{name} is drawn into slot {int(row[ev.SOURCE_CELL])}"
    if event == ev.ONE_MORE_ROUND:
        return f"One More Round is drawn: round {value} is the final round"
    if event == ev.PASS:
        return f"{who} passes"
    if event == ev.KEEP_GOAL:
        return f"{who} keeps a private goal"
    if event == ev.GAME_OVER:
        return "the game is over"
    return f"event {event}"


def describe_events(events: np.ndarray, dale_mode: bool = False) -> list[str]:
    return [describe_event(row, dale_mode) for row in events]


def render_game(game) -> str:
    """Placeholder replaced below by the full renderer."""
    return repr(game)
