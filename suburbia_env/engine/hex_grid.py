"""The borough grid: odd-q offset hexes, columns -6..6 and rows 0..8 (R2.1, R2.2).

Cells are numbered in row-major order (row 0 first, then column -6 first), the order
Dale uses to break ties (R9.2).
"""

import numpy as np

MIN_COLUMN = -6
MAX_COLUMN = 6
NUM_COLUMNS = MAX_COLUMN - MIN_COLUMN + 1
NUM_ROWS = 9
NUM_CELLS = NUM_COLUMNS * NUM_ROWS
NO_CELL = -1


def cell_index(column: int, row: int) -> int:
    """Cell number of (column, row), or NO_CELL when it is off the grid."""
    if MIN_COLUMN <= column <= MAX_COLUMN and 0 <= row < NUM_ROWS:
        return row * NUM_COLUMNS + (column - MIN_COLUMN)
    return NO_CELL


def cell_coordinates(cell: int) -> tuple[int, int]:
    """(column, row) of a cell number."""
    if not 0 <= cell < NUM_CELLS:
        raise ValueError(f"cell {cell} is outside 0..{NUM_CELLS - 1}")
    return cell % NUM_COLUMNS + MIN_COLUMN, cell // NUM_COLUMNS


def neighbour_coordinates(column: int, row: int) -> list[tuple[int, int]]:
    """The six neighbours of R2.2, on or off the grid."""
    if column % 2 == 0:
        return [(column, row - 1), (column, row + 1), (column - 1, row - 1),
                (column - 1, row), (column + 1, row - 1), (column + 1, row)]
    return [(column, row - 1), (column, row + 1), (column - 1, row),
            (column - 1, row + 1), (column + 1, row), (column + 1, row + 1)]


def _build_neighbour_table() -> np.ndarray:
    table = np.full((NUM_CELLS, 6), NO_CELL, dtype=np.int32)
    for cell in range(NUM_CELLS):
        column, row = cell_coordinates(cell)
        on_grid = [cell_index(c, r) for c, r in neighbour_coordinates(column, row)]
        on_grid = [n for n in on_grid if n != NO_CELL]
        table[cell, :len(on_grid)] = on_grid
    return table


NEIGHBOURS = _build_neighbour_table()
"""NEIGHBOURS[cell] lists the on-grid neighbours of a cell, padded with NO_CELL."""


def _build_neighbour_bits() -> np.ndarray:
    bits = np.zeros((NUM_CELLS, 2), dtype=np.int64)
    for cell in range(NUM_CELLS):
        for neighbour in NEIGHBOURS[cell]:
            if neighbour != NO_CELL:
                bits[cell] |= CELL_BITS[neighbour]
    return bits


def _build_cell_bits() -> np.ndarray:
    bits = np.zeros((NUM_CELLS, 2), dtype=np.int64)
    for cell in range(NUM_CELLS):
        bits[cell, cell // 64] = np.int64(1) << np.int64(cell % 64)
    return bits


CELL_BITS = _build_cell_bits()
"""CELL_BITS[cell]: the set holding one cell, in the two-word form of NEIGHBOUR_BITS."""

NEIGHBOUR_BITS = _build_neighbour_bits()
"""The neighbours of a cell as a set of cell numbers in two 64-bit words: bit n % 64 of
NEIGHBOUR_BITS[cell, n // 64] is set when cell n is a neighbour. One AND intersects a
cell's neighbourhood with any set of cells."""

STARTING_CELLS = (cell_index(0, 0), cell_index(0, 1), cell_index(0, 2))
"""Suburbs, Community Park, Heavy Factory of the starting borough (R2.3)."""
