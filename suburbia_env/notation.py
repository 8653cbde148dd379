"""The text notation of actions, one decision per line (README "Action notation").

    buy <slot> @ <col>,<row>      lake <slot> @ <col>,<row>
    basic <suburbs|park|factory> @ <col>,<row>
    invest <col>,<row>            discard <slot>       remove <slot>
    keep <goal name>              pass

Only the goal names of `keep` depend on the state (the two goals the player drew).
"""

from __future__ import annotations

import re

import numpy as np

from . import action_space as a
from . import constants as c
from . import state_layout as s
from .errors import NotationError
from .hex_grid import NUM_CELLS, cell_coordinates, cell_index
from .tile_data import GOALS

_CELL = r"(-?\d+)\s*,\s*(-?\d+)"
_PATTERNS = (
    ("buy", re.compile(rf"^buy\s+(\d+)\s*@\s*{_CELL}$")),
    ("lake", re.compile(rf"^lake\s+(\d+)\s*@\s*{_CELL}$")),
    ("basic", re.compile(rf"^basic\s+([a-z]+)\s*@\s*{_CELL}$")),
    ("invest", re.compile(rf"^invest\s+{_CELL}$")),
    ("discard", re.compile(r"^discard\s+(\d+)$")),
    ("remove", re.compile(r"^remove\s+(\d+)$")),
    ("keep", re.compile(r"^keep\s+(.+)$")),
    ("pass", re.compile(r"^pass$")),
)


def _cell(column_text: str, row_text: str, text: str) -> int:
    cell = cell_index(int(column_text), int(row_text))
    if cell < 0:
        raise NotationError(f"{text!r}: cell {column_text},{row_text} is off the borough "
                            f"(columns -6..6, rows 0..8)")
    return cell


def _slot(slot_text: str, text: str) -> int:
    slot = int(slot_text)
    if not 0 <= slot < c.NUM_SLOTS:
        raise NotationError(f"{text!r}: market slot {slot} is outside 0..{c.NUM_SLOTS - 1}")
    return slot


def parse_action(text: str, state: np.ndarray | None = None) -> int:
    """The action number of a line of notation. `keep` needs the state (the drawn goals)."""
    if not isinstance(text, str):
        raise NotationError(f"an action in notation must be text, not {type(text).__name__}")
    line = " ".join(text.strip().split())
    lowered = line.lower()
    for verb, pattern in _PATTERNS:
        match = pattern.match(lowered)
        if not match:
            continue
        if verb in ("buy", "lake"):
            slot = _slot(match.group(1), text)
            base = a.BUY if verb == "buy" else a.LAKE
            return base + slot * NUM_CELLS + _cell(match.group(2), match.group(3), text)
        if verb == "basic":
            name = match.group(1)
            if name not in c.BASIC_NOTATION_NAMES:
                raise NotationError(f"{text!r}: basic tile must be one of "
                                    f"{', '.join(c.BASIC_NOTATION_NAMES)}, not {name!r}")
            basic = c.BASIC_NOTATION_NAMES.index(name)
            return a.BASIC + basic * NUM_CELLS + _cell(match.group(2), match.group(3), text)
        if verb == "invest":
            return a.INVEST + _cell(match.group(1), match.group(2), text)
        if verb == "discard":
            return a.DISCARD + _slot(match.group(1), text)
        if verb == "remove":
            return a.REMOVE + _slot(match.group(1), text)
        if verb == "keep":
            return a.KEEP_GOAL + _goal_option(line[len("keep"):].strip(), state, text)
        return a.PASS
    raise NotationError(f"{text!r} is not an action; expected one of: buy <slot> @ <col>,<row> | "
                        f"lake <slot> @ <col>,<row> | basic <suburbs|park|factory> @ <col>,<row> | "
                        f"invest <col>,<row> | discard <slot> | remove <slot> | "
                        f"keep <goal name> | pass")


def _goal_option(name: str, state: np.ndarray | None, text: str) -> int:
    try:
        goal = GOALS.goal(name)
    except KeyError:
        raise NotationError(f"{text!r}: unknown goal {name!r}") from None
    if state is None:
        raise NotationError(f"{text!r}: `keep` needs the game state to know the drawn goals")
    player = state[s.CURRENT_PLAYER]
    if player < 0:
        raise NotationError(f"{text!r}: nobody is choosing a goal")
    base = s.PLAYERS + player * s.PLAYER_STRIDE
    options = [int(state[base + s.GOAL_OPTIONS + option]) for option in range(2)]
    if goal not in options:
        drawn = ", ".join(GOALS.names[g] for g in options if g >= 0) or "none"
        raise NotationError(f"{text!r}: {GOALS.names[goal]} is not one of the goals drawn "
                            f"by player {player} ({drawn})")
    return options.index(goal)


def _cell_text(cell: int) -> str:
    column, row = cell_coordinates(cell)
    return f"{column},{row}"


def format_action(action: int, state: np.ndarray | None = None) -> str:
    """The notation of an action number. `keep` shows the goal name when a state is given."""
    action = int(action)
    if not 0 <= action < a.NUM_ACTIONS:
        raise NotationError(f"action {action} is outside 0..{a.NUM_ACTIONS - 1}")
    if action == a.PASS:
        return "pass"
    if action >= a.KEEP_GOAL:
        option = action - a.KEEP_GOAL
        if state is not None and state[s.CURRENT_PLAYER] >= 0:
            base = s.PLAYERS + int(state[s.CURRENT_PLAYER]) * s.PLAYER_STRIDE
            goal = int(state[base + s.GOAL_OPTIONS + option])
            if goal >= 0:
                return f"keep {GOALS.names[goal]}"
        return f"keep option {option}"
    if action >= a.REMOVE:
        return f"remove {action - a.REMOVE}"
    if action >= a.DISCARD:
        return f"discard {action - a.DISCARD}"
    if action >= a.INVEST:
        return f"invest {_cell_text(action - a.INVEST)}"
    if action >= a.BASIC:
        basic, cell = divmod(action - a.BASIC, NUM_CELLS)
        return f"basic {c.BASIC_NOTATION_NAMES[basic]} @ {_cell_text(cell)}"
    verb = "lake" if action >= a.LAKE else "buy"
    slot, cell = divmod(action - (a.LAKE if action >= a.LAKE else a.BUY), NUM_CELLS)
    return f"{verb} {slot} @ {_cell_text(cell)}"
