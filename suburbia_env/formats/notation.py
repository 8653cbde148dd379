"""The text notation of actions, one decision per line (docs/reference.md, "Action notation").

    buy <slot> @ <col>,<row>      lake <slot> @ <col>,<row>
    basic <suburbs|park|factory> @ <col>,<row>
    invest <col>,<row>            discard <slot>       remove <slot>
    keep <goal name>              pass

Only the goal names of `keep` depend on the state (the two goals the player drew).
"""

from __future__ import annotations

import re

import numpy as np

from ..engine import action_space as a
from ..engine import constants as c
from ..engine import state_layout as s
from ..errors import NotationError, shown
from ..engine.hex_grid import cell_coordinates, cell_index
from ..engine.tile_data import GOALS

# ASCII digits only (re.ASCII): `\d` would also take other scripts' digits.
_CELL = r"(-?\d+)\s*,\s*(-?\d+)"
_PATTERNS = tuple((verb, re.compile(pattern, re.ASCII)) for verb, pattern in (
    ("buy", rf"^buy\s+(\d+)\s*@\s*{_CELL}$"),
    ("lake", rf"^lake\s+(\d+)\s*@\s*{_CELL}$"),
    ("basic", rf"^basic\s+([a-z]+)\s*@\s*{_CELL}$"),
    ("invest", rf"^invest\s+{_CELL}$"),
    ("discard", r"^discard\s+(\d+)$"),
    ("remove", r"^remove\s+(\d+)$"),
    ("keep", r"^keep\s+(.+)$"),
    ("pass", r"^pass$"),
))
MAX_NUMBER_DIGITS = 6
"""Numbers in notation longer than this are refused before conversion: no slot or
coordinate needs more, and int() of a very long digit string is slow or refused."""


def _number(digits: str, what: str, text: str) -> int:
    if len(digits.lstrip("-").lstrip("0")) > MAX_NUMBER_DIGITS:
        raise NotationError(f"{shown(text)}: {what} {shown(digits)} is far too large")
    return int(digits)


def _cell(column_text: str, row_text: str, text: str) -> int:
    cell = cell_index(_number(column_text, "column", text), _number(row_text, "row", text))
    if cell < 0:
        raise NotationError(f"{shown(text)}: cell {column_text},{row_text} is off the borough "
                            f"(columns -6..6, rows 0..8)")
    return cell


def _slot(slot_text: str, text: str) -> int:
    slot = _number(slot_text, "market slot", text)
    if not 0 <= slot < c.NUM_SLOTS:
        raise NotationError(f"{shown(text)}: market slot {slot} is outside "
                            f"0..{c.NUM_SLOTS - 1}")
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
            return a.Action(verb, slot=slot, cell=_cell(match.group(2), match.group(3),
                                                        text)).number
        if verb == "basic":
            name = match.group(1)
            if name not in c.BASIC_NOTATION_NAMES:
                raise NotationError(f"{shown(text)}: basic tile must be one of "
                                    f"{', '.join(c.BASIC_NOTATION_NAMES)}, not {shown(name)}")
            basic = c.BASIC_NOTATION_NAMES.index(name)
            return a.Action(verb, basic=basic,
                            cell=_cell(match.group(2), match.group(3), text)).number
        if verb == "invest":
            return a.Action(verb, cell=_cell(match.group(1), match.group(2), text)).number
        if verb in ("discard", "remove"):
            return a.Action(verb, slot=_slot(match.group(1), text)).number
        if verb == "keep":
            option = _goal_option(line[len("keep"):].strip(), state, text)
            return a.Action(verb, option=option).number
        return a.Action(verb).number
    raise NotationError(f"{shown(text)} is not an action; expected one of: "
                        f"buy <slot> @ <col>,<row> | lake <slot> @ <col>,<row> | "
                        f"basic <suburbs|park|factory> @ <col>,<row> | "
                        f"invest <col>,<row> | discard <slot> | remove <slot> | "
                        f"keep <goal name> | pass")


def _goal_option(name: str, state: np.ndarray | None, text: str) -> int:
    try:
        goal = GOALS.goal(name)
    except KeyError:
        raise NotationError(f"{shown(text)}: unknown goal {shown(name)}") from None
    if state is None:
        raise NotationError(f"{shown(text)}: `keep` needs the game state to know the drawn "
                            f"goals")
    player = state[s.CURRENT_PLAYER]
    if player < 0:
        raise NotationError(f"{shown(text)}: nobody is choosing a goal")
    options = [int(s.goal_option(state, player, option)) for option in range(2)]
    if goal not in options:
        drawn = ", ".join(GOALS.names[g] for g in options if g >= 0) or "none"
        raise NotationError(f"{shown(text)}: {GOALS.names[goal]} is not one of the goals drawn "
                            f"by player {player} ({drawn})")
    return options.index(goal)


def _cell_text(cell: int) -> str:
    column, row = cell_coordinates(cell)
    return f"{column},{row}"


def format_action(action: int, state: np.ndarray | None = None) -> str:
    """The notation of an action number. `keep` shows the goal name when a state is given."""
    if not a.is_action_integer(action):
        raise NotationError(f"an action number is an integer 0..{a.NUM_ACTIONS - 1}, "
                            f"not {shown(action)}")
    action = int(action)
    if not 0 <= action < a.NUM_ACTIONS:
        raise NotationError(f"action {shown(action)} is outside 0..{a.NUM_ACTIONS - 1}")
    move = a.decode_action(action)
    if move.kind == "pass":
        return "pass"
    if move.kind == "keep":
        if state is not None and state[s.CURRENT_PLAYER] >= 0:
            goal = int(s.goal_option(state, int(state[s.CURRENT_PLAYER]), move.option))
            if goal >= 0:
                return f"keep {GOALS.names[goal]}"
        return f"keep option {move.option}"
    if move.kind in ("discard", "remove"):
        return f"{move.kind} {move.slot}"
    if move.kind == "invest":
        return f"invest {_cell_text(move.cell)}"
    if move.kind == "basic":
        return f"basic {c.BASIC_NOTATION_NAMES[move.basic]} @ {_cell_text(move.cell)}"
    return f"{move.kind} {move.slot} @ {_cell_text(move.cell)}"
