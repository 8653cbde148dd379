"""Dale's cell choice (R9.2) as the rule states it: the plain reference of dale.py.

Slow and obvious on purpose: every legal cell is tried on a copy of the state with the
engine's own placement, resolved in full (R7.1, every step). `dale.dale_choose_cell`
gives the same cell without resolving most of them; its module docstring says why, and
tests/rules/test_dale_reference.py compares the two on positions of seeded games.
"""

from __future__ import annotations

import numpy as np

from . import state_layout as s
from .event_log import new_log
from .hex_grid import NUM_CELLS
from .legal_actions import is_placeable
from .resolution import ALL_BOROUGHS, FACE_UP, resolve_placement


def reference_cell_choice(state: np.ndarray, tiles: np.ndarray, player: int, kind: int) -> int:
    """The legal cell (R2.4) where `player` placing `kind` face up gains the most income +
    reputation after full resolution; ties go to the larger reputation gain, then to the
    first cell in row-major order, the order of the cell numbers (hex_grid.py). -1 when
    no cell is legal. `state` is left unchanged."""
    log = new_log(0)
    candidates = []
    for cell in range(NUM_CELLS):
        if not is_placeable(state, player, cell):
            continue
        trial = state.copy()
        resolve_placement(trial, tiles, log, player, cell, kind, FACE_UP, ALL_BOROUGHS)
        income_gain = int(s.income(trial, player)) - int(s.income(state, player))
        reputation_gain = int(s.reputation(trial, player)) - int(s.reputation(state, player))
        candidates.append((income_gain + reputation_gain, reputation_gain, -cell))
    if not candidates:
        return -1
    _, _, negated_cell = max(candidates)
    return -negated_cell
