"""`info <what>` of the terminal game: a tile's effects in words (tile_text.py) for a
market slot, a cell of the person's borough, a tile or goal name, a map label."""

from __future__ import annotations

import re

from ..display.render import TILE_LABELS
from ..display.tile_text import goal_info, tile_summary
from ..engine import constants as c
from ..engine.tile_data import GOALS, TILES
from ..errors import shown
from ..game import Game
from .terminal_text import SCREEN_WIDTH, wrap

_BASIC_WORDS = dict(zip(c.BASIC_NOTATION_NAMES, c.BASIC_TILE_NAMES))


def info_lines(game: Game, human: int, what: str, width: int = SCREEN_WIDTH) -> list[str]:
    """`info <what>`: a tile's effects in words (tile_text.py) for a market slot, a cell of
    the person's borough, a tile or goal name (or the start of one), or the basic names;
    a goal's criterion and bonuses. Only public facts and the person's own goals."""
    what = " ".join(what.split())
    lowered = what.lower()
    if not what:
        return ["info <slot | tile name | col,row | goal>, e.g. info 3, info office, "
                "info 0,1"]
    if re.fullmatch(r"[0-9]{1,2}", lowered):
        slot = int(lowered)
        rows = {row["slot"]: row for row in game.market()}
        dale = game.config.mode == "dale"
        if slot not in rows and dale and slot < c.NUM_SLOTS:
            return [f"The game against Dale uses market slots {c.DALE_FIRST_SLOT}-"
                    f"{c.DALE_LAST_SLOT} only (R9.2)."]
        if slot not in rows:
            return [f"Market slot {slot} is empty." if slot < c.NUM_SLOTS
                    else f"There is no market slot {slot} (slots are 0..{c.NUM_SLOTS - 1})."]
        row = rows[slot]
        return wrap(f"Slot {slot}: ${row['price']} ({row['cost']} + premium {row['premium']})."
                    f" {tile_summary(TILES.kind(row['tile']))}", width, "") + \
            _note_lines(TILES.kind(row["tile"]), width)
    cell_match = re.fullmatch(r"(-?[0-9]{1,2}) ?, ?(-?[0-9]{1,2})", lowered)
    if cell_match:
        column, row_number = int(cell_match.group(1)), int(cell_match.group(2))
        for cell in game.player_state(human)["borough"]:
            if (cell["col"], cell["row"]) == (column, row_number):
                kind = TILES.lake if cell["lake"] else TILES.kind(cell["tile"])
                marker = " It carries an investment marker (R7.3)." if cell["invested"] else ""
                return wrap(f"Your {cell['col']},{cell['row']}: {tile_summary(kind)}{marker}",
                            width, "")
        return [f"Your borough has no tile at {shown(what)}."]
    if lowered in _BASIC_WORDS:
        lowered = _BASIC_WORDS[lowered].lower()
    kinds = [kind for kind in range(TILES.num_kinds) if kind != TILES.one_more_round]
    tiles = [kind for kind in kinds if TILES.names[kind].lower() == lowered]
    goals = [goal for goal, name in enumerate(GOALS.names) if name.lower() == lowered]
    if not tiles and not goals:  # a label of the borough map: info HF
        tiles = [kind for kind in kinds if TILE_LABELS[kind].lower() == lowered.rstrip("*")]
    if not tiles and not goals:  # a start of a word (info air), else any part of a name
        for matches in (_starts_a_word, str.__contains__):
            tiles = [kind for kind in kinds if matches(TILES.names[kind].lower(), lowered)]
            goals = [goal for goal, name in enumerate(GOALS.names)
                     if matches(name.lower(), lowered)]
            if tiles or goals:
                break
    found = len(tiles) + len(goals)
    if found == 1 and tiles:
        return wrap(tile_summary(tiles[0]), width, "") + _note_lines(tiles[0], width)
    if found == 1:
        info = goal_info(goals[0])
        return wrap(f"Goal {info['name']}: {info['criterion']}. As a public goal +"
                    f"{info['public_bonus']} population to the one player strictly in "
                    f"front; as a private goal +{info['private_bonus']} to its owner if "
                    f"strictly alone in front of all players (R8.2).", width, "")
    if found == 0:
        return [f"No tile, slot, cell or goal is called {shown(what)}."]
    names = [TILES.names[kind] for kind in tiles] + [GOALS.names[goal] for goal in goals]
    return wrap(f"{shown(what)} could be: " + ", ".join(names) + ".", width, "")


def _starts_a_word(name: str, start: str) -> bool:
    return any(name[index:].startswith(start) for index in range(len(name))
               if index == 0 or name[index - 1] == " ")


def _note_lines(kind: int, width: int) -> list[str]:
    note = TILES.special_rules[kind] if kind < len(TILES.special_rules) else ""
    return wrap(f"Note: {note}", width, "") if note else []
