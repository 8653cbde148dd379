"""A picture (RGB array) of the market and every borough, drawn with numpy alone.

Colours: residential green, commercial blue, civic grey, industrial amber, lake cyan,
placeable cells pale, empty cells light; a dark centre marks an investment marker and
a white centre an icon. Market slots show their tile's type colour and a price bar.
"""

from __future__ import annotations

import numpy as np

from . import constants as c
from . import state_layout as s
from .hex_grid import MIN_COLUMN, NUM_CELLS, NUM_COLUMNS, NUM_ROWS, cell_coordinates
from .tile_data import COLUMN_COST, COLUMN_ICON, COLUMN_TYPE, TILES

HEX_RADIUS = 11
MARGIN = 8
MARKET_HEIGHT = 48
BACKGROUND = (250, 250, 247)
EMPTY = (228, 228, 224)
PLACEABLE = (205, 226, 205)
LAKE = (0, 172, 200)
TYPE_COLOURS = ((67, 160, 71), (30, 136, 229), (140, 140, 140), (245, 176, 0))
INVESTED = (40, 40, 40)
ICON = (255, 255, 255)


def _cell_centres() -> np.ndarray:
    """Pixel centres of the flat-top odd-q hexes (R2.1: odd columns half a cell lower)."""
    centres = np.zeros((NUM_CELLS, 2))
    height = np.sqrt(3) * HEX_RADIUS
    for cell in range(NUM_CELLS):
        column, row = cell_coordinates(cell)
        x = MARGIN + HEX_RADIUS + 1.5 * HEX_RADIUS * (column - MIN_COLUMN)
        y = MARGIN + height / 2 + height * (row + 0.5 * (column % 2))
        centres[cell] = (x, y)
    return centres


def _borough_cell_map() -> tuple[np.ndarray, np.ndarray]:
    """Per pixel of one borough panel: the cell it belongs to (-1 outside) and whether it
    lies near the cell's centre."""
    centres = _cell_centres()
    width = int(MARGIN * 2 + HEX_RADIUS * (1.5 * (NUM_COLUMNS - 1) + 2))
    height = int(MARGIN * 2 + np.sqrt(3) * HEX_RADIUS * (NUM_ROWS + 0.5))
    ys, xs = np.mgrid[0:height, 0:width]
    cell_map = np.full((height, width), -1, dtype=np.int32)
    centre_map = np.zeros((height, width), dtype=bool)
    inner = HEX_RADIUS - 1.0
    for cell, (cx, cy) in enumerate(centres):
        dx = np.abs(xs - cx)
        dy = np.abs(ys - cy)
        inside = (dy <= np.sqrt(3) / 2 * inner) & (np.sqrt(3) * dx + dy <= np.sqrt(3) * inner)
        cell_map[inside] = cell
        centre_map |= inside & (dx * dx + dy * dy <= (HEX_RADIUS * 0.35) ** 2)
    return cell_map, centre_map


_CELL_MAP, _CENTRE_MAP = _borough_cell_map()


def _borough_panel(state: np.ndarray, player: int) -> np.ndarray:
    base = s.player_base(player)
    colours = np.empty((NUM_CELLS + 1, 3), dtype=np.uint8)
    centre_colours = np.empty((NUM_CELLS + 1, 3), dtype=np.uint8)
    colours[NUM_CELLS] = BACKGROUND
    for cell in range(NUM_CELLS):
        kind = int(state[base + s.CELL_KIND + cell])
        flags = int(state[base + s.CELL_FLAGS + cell])
        if kind < 0:
            colour = PLACEABLE if flags & s.FLAG_PLACEABLE else EMPTY
        elif flags & s.FLAG_LAKE:
            colour = LAKE
        else:
            colour = TYPE_COLOURS[TILES.table[kind, COLUMN_TYPE]]
        colours[cell] = colour
        centre = colour
        if kind >= 0 and flags & s.FLAG_INVESTED:
            centre = INVESTED
        elif kind >= 0 and not flags & s.FLAG_LAKE and TILES.table[kind, COLUMN_ICON] >= 0:
            centre = ICON
        centre_colours[cell] = centre
    index = np.where(_CELL_MAP >= 0, _CELL_MAP, NUM_CELLS)
    panel = colours[index]
    panel[_CENTRE_MAP] = centre_colours[index][_CENTRE_MAP]
    return panel


def _market_strip(state: np.ndarray, width: int) -> np.ndarray:
    strip = np.empty((MARKET_HEIGHT, width, 3), dtype=np.uint8)
    strip[:] = BACKGROUND
    slot_width = (width - 2 * MARGIN) // c.NUM_SLOTS
    for slot in range(c.NUM_SLOTS):
        kind = int(state[s.MARKET + slot])
        left = MARGIN + slot * slot_width + 2
        right = left + slot_width - 4
        if kind < 0:
            strip[MARGIN:MARKET_HEIGHT - MARGIN, left:right] = EMPTY
            continue
        strip[MARGIN:MARKET_HEIGHT - 16, left:right] = TYPE_COLOURS[TILES.table[kind, COLUMN_TYPE]]
        price = int(TILES.table[kind, COLUMN_COST]) + c.SLOT_PREMIUMS[slot]
        bar = int((right - left) * min(price, 40) / 40)
        strip[MARKET_HEIGHT - 12:MARKET_HEIGHT - MARGIN, left:left + bar] = INVESTED
    return strip


def render_picture(state: np.ndarray) -> np.ndarray:
    """uint8[height, width, 3]: the market on top, the boroughs two by two below."""
    panels = [_borough_panel(state, player) for player in range(int(state[s.NUM_PLAYERS]))]
    panel_height, panel_width, _ = panels[0].shape
    while len(panels) % 2:
        blank = np.empty_like(panels[0])
        blank[:] = BACKGROUND
        panels.append(blank)
    rows = [np.concatenate(panels[i:i + 2], axis=1) for i in range(0, len(panels), 2)]
    boroughs = np.concatenate(rows, axis=0)
    return np.concatenate([_market_strip(state, boroughs.shape[1]), boroughs], axis=0)
