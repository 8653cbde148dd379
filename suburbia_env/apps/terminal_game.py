"""The terminal game of `suburbia play`: a person against agents or Dale at a text prompt.

A thin wrapper over `Game` (game.py), which decides every rule; this module only shows
the game and reads the person's commands:

    <number>         the move of that number in the list 'legal' prints
    <move>           a move in the action notation: buy 3 @ -1,0, keep Investor, pass ...
    legal [words]    the legal moves, numbered (only those starting with `words`)
    info <what>      a tile's effects in words (a market slot, a tile name, a label or
                     a cell of your borough's map, lake) or a goal's criterion
    market           the market with every tile's effects in full
    board            the whole table, every borough; show: this decision's screen again
    log              every move of the others since your last decision
    undo             back to before your last decision (bots' moves after it undone too)
    save [file]      save now and go on playing; quit: leave (offering to save)

A save of an unfinished game holds the person's position without what the person cannot
see (no seed; the stacks and the others' goals dealt anew), and resuming deals that anew
again (R10.2): saving, peeking at what follows and resuming tells nothing of the tiles to
come. A seed nobody typed has 64 bits from the operating system's secure generator, and
an undo's redraw takes fresh secret words (rng.py), so that no search finds them.

What is printed is what the person's seat may know (R10.1): other seats' kept and
returned goals, the order of the stacks and the position of One More Round are never
shown (R10.2), so a bot's `keep` is printed without its goal and a random seed (which
would tell the stacks) only once the game is over. The screen of a decision (the
acting player's borough, their numbers, the market with the tiles' effects, the moves)
fits 80 columns by 24 lines.

The bots are the agents of the registry, played by the tournaments' loop (agents/
table.py), one decision at a time between the person's: seeded once per game as in a
tournament (`agent_seed`), so an undo takes their replies back and a bot that draws at
random may answer the same move differently the second time. A bot that watches
(`Agent.observe`) is shown every move of the other seats before it is played, the
person's too, never a goal choice (R3.6); after an undo it is reset and shown the moves
that remain. A bot that fails (raises, answers an illegal action, changes the game it
was shown) forfeits as in a tournament: the stand-in (the first legal action) plays its
seat from then on, and the person is told.
Every move of the others since the person's last decision is on the next screen, folded
to the latest when they do not all fit ('log' lists them all).
"""

from __future__ import annotations

import datetime
import json
import re
import shlex
import textwrap
from pathlib import Path
from typing import TextIO

import numpy as np

from ..engine import constants as c
from ..engine import event_log as ev
from ..engine import state_layout as s
from ..errors import IllegalActionError, SuburbiaError, shown
from ..game import Game
from ..engine.legal_actions import illegal_reason
from ..display.render import (INVESTED_MARK, LAKE_LABEL, TILE_LABELS, describe_event,
                              render_borough)
from ..engine.rng import secret_words
from ..engine.tile_data import GOALS, TILES
from ..display.tile_text import (goal_info, tile_effects_brief, tile_summary,
                                 tile_type_words)
from ..display.vocabulary import (DECISION_WORDS, YOU, next_red_line, player_name,
                                  public_move_words, seat_name, seat_with_agent,
                                  short_seat_name, your_seat_name)

QUIT_WORDS = ("quit", "exit", "q")
CELLS_SHOWN = 40  # at most this many cells are listed per line of the compact legal list
MAX_LINE = 10_000  # characters of one typed line that are read; the rest is skipped
SCREEN_WIDTH = 80
SCREEN_HEIGHT = 24
NEWS_LINES = 3  # a decision's screen keeps this many lines for the others' moves if it can

PLAY_HELP = """Commands:
  <number>       the move of that number in the list 'legal' prints
  <move>         a move in the action notation: buy 3 @ -1,0  lake 5 @ 1,1
                 basic suburbs @ 0,3  invest 0,1  discard 4  remove 2  pass
                 keep <goal>. A cell is <col>,<row>: columns -6..6, rows 0..8;
                 odd columns sit half a row lower (R2.1); '+' marks where a tile
                 may go (R2.4)
  legal [words]  the legal moves, numbered; 'legal buy 3': only those of slot 3
  info <what>    a tile's effects: a market slot (info 3), a tile name or its
                 start (info office), a label or a cell of your map (info HF,
                 info 0,1), lake; or a goal (info investor)
  market         the market with the tiles' effects in full
  board          the whole table: every borough, the public goals, the supply
  show           this decision's screen again
  log            every move of the others since your last decision
  undo           back to before your last decision (and the bots' replies to it)
  save [file]    save your position now (not what you cannot see) and go on
  help           this text
  quit           leave the game (you are offered to save it)"""


# Text helpers ----------------------------------------------------------------------------

def group_legal_moves(moves: list[str]) -> list[str]:
    """Lines listing the legal moves compactly: moves that differ only by cell are grouped,
    and slots or basic tiles sharing the same cells are listed together."""
    placements: dict[str, dict[tuple[str, ...], list[str]]] = {}
    singles: dict[str, list[str]] = {}
    order: list[str] = []
    cells_of: dict[tuple[str, str], list[str]] = {}
    for move in moves:
        verb, _, rest = move.partition(" ")
        if verb not in order:
            order.append(verb)
        if "@" in rest:
            argument, _, cell = rest.partition("@")
            cells_of.setdefault((verb, argument.strip()), []).append(cell.strip())
        else:
            singles.setdefault(verb, []).append(rest)
    for (verb, argument), cells in cells_of.items():
        placements.setdefault(verb, {}).setdefault(tuple(cells), []).append(argument)
    lines = []
    forms = {"buy": ("buy <slot> @ <col>,<row>", "slots"),
             "lake": ("lake <slot> @ <col>,<row>", "slots"),
             "basic": ("basic <tile> @ <col>,<row>", "tiles")}
    for verb in order:
        if verb in placements:
            form, noun = forms.get(verb, (f"{verb} <x> @ <col>,<row>", "choices"))
            for cells, arguments in placements[verb].items():
                listed = " ".join(cells[:CELLS_SHOWN])
                more = f" ... ({len(cells)} cells)" if len(cells) > CELLS_SHOWN else ""
                lines.append(f"  {form}: {noun} {' '.join(arguments)}; cells {listed}{more}")
        elif verb == "pass":
            lines.append("  pass")
        elif verb == "keep":
            lines.append("  keep <goal>: " + " | ".join(singles[verb]))
        else:
            form = {"invest": "invest <col>,<row>", "discard": "discard <slot>",
                    "remove": "remove <slot>"}.get(verb, f"{verb} <x>")
            lines.append(f"  {form}: {' '.join(singles[verb])}")
    return lines


def numbered_columns(moves: list[tuple[int, str]], width: int = SCREEN_WIDTH) -> list[str]:
    """`12 buy 2 @ -1,0` items in aligned columns, filled row by row, within `width`."""
    if not moves:
        return []
    items = [f"{number:>{len(str(moves[-1][0]))}} {text}" for number, text in moves]
    cell = max(len(item) for item in items) + 3
    per_line = max(1, (width - 2 + 3) // cell)
    return ["  " + "".join(item.ljust(cell) for item in items[start:start + per_line]).rstrip()
            for start in range(0, len(items), per_line)]


def wrap(text: str, width: int = SCREEN_WIDTH, indent: str = "") -> list[str]:
    return textwrap.wrap(text, width=width, subsequent_indent=indent or "  ",
                         initial_indent=indent, break_on_hyphens=False) or [""]


def packed(items: list[str], width: int = SCREEN_WIDTH, gap: str = "   ") -> list[str]:
    """`items` on as few lines as fit `width`, never splitting one (the later lines
    indented by two spaces)."""
    lines = [items[0]]
    for item in items[1:]:
        if len(lines[-1]) + len(gap) + len(item) <= width:
            lines[-1] += gap + item
        else:
            lines.append("  " + item)
    return lines


def fitted(text: str, width: int = SCREEN_WIDTH) -> list[str]:
    """The lines of `text`, each longer than `width` wrapped, its continuation indented
    two more spaces than the line (the whole table of `board` on an 80-column screen)."""
    lines = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")))
        lines += [line] if len(line) <= width else textwrap.wrap(
            line.strip(), width, initial_indent=indent, subsequent_indent=indent + "  ",
            break_on_hyphens=False)
    return lines


_HEADLINES = (ev.EVENT_PLACE, ev.EVENT_DALE_BUY, ev.EVENT_INVEST, ev.EVENT_DISCARD, ev.EVENT_PASS)


def headline_events(game: Game, exclude: int) -> list[str]:
    """What the other seats did in the last `Game.apply`, one line a move (placements,
    investments, discards, passes), in the words of the event log (render.py)."""
    return [describe_event(row, game.config.mode == "dale") for row in game.last_events
            if row[ev.FIELD_EVENT] in _HEADLINES and row[ev.FIELD_PLAYER] >= 0
            and row[ev.FIELD_PLAYER] != exclude]


def seat_label(game: Game, seat: int, human: int, labels: dict[int, str]) -> str:
    if seat == human:
        return your_seat_name(seat)
    return seat_with_agent(game.config.mode, seat, labels.get(seat, "agent"))


def _short_label(game: Game, seat: int, labels: dict[int, str]) -> str:
    return short_seat_name(game.config.mode, seat, labels.get(seat, ""))


def final_scores_lines(game: Game, labels: dict[int, str] | None = None) -> list[str]:
    """The final scoring of a finished game as a table (R8.2, R8.3), with the solo rank."""
    labels = labels or {}
    lines = ["Final scores (R8.2):",
             f"  {'seat':<22} {'population':>10} {'goals':>6} {'money':>6} {'final':>6}  winner"]
    for score in game.final_scores():
        seat = score["player"]
        name = labels.get(seat) or player_name(game.config.mode, seat)
        goals = sum(score["public_goals"].values()) + score["private_goal_bonus"]
        lines.append(f"  {name:<22} {score['population_before_goals']:>10} {goals:>6} "
                     f"{score['money_converted']:>6} {score['population']:>6}  "
                     f"{'yes' if score['winner'] else ''}")
    if game.config.mode == "solitary":
        lines.append(f"Solo ladder rank (R9.1): {game.solo_rank()}")
    elif game.config.mode == "dale":
        rank = game.solo_rank()
        lines.append(f"Solo ladder rank (R9.1): {rank}" if rank
                     else "No ladder rank: Dale was not beaten (R9.2)")
    return lines


# The decision screen --------------------------------------------------------------------

def _header_line(game: Game, human: int, labels: dict[int, str]) -> str:
    final_round = int(game.state[s.FINAL_ROUND])
    if final_round < 0:
        when = ""
    elif game.config.mode == "dale":
        when = " (One More Round drawn)"
    elif final_round == game.round:
        when = " (the final round)"
    else:
        when = f" of {final_round + 1}"
    first = ""
    if game.config.mode == "standard":
        first_seat = int(game.state[s.FIRST_PLAYER])
        first = "; first: " + (YOU if first_seat == human
                               else _short_label(game, first_seat, labels))
    decision = DECISION_WORDS.get(game.pending_decision)
    return (f"Round {game.round + 1}{when}{first}. {seat_name(game.config.mode, human)}, "
            f"{YOU} {decision.yours if decision else 'decide'}")


def market_lines(game: Game, width: int = SCREEN_WIDTH) -> list[str]:
    """The market (R4.1) one slot a line: premium, price, tile, type and its effects in
    brief (`tile_text.tile_effects_brief`); effects that do not fit `width` are cut
    after a whole effect and end with a pointer to 'info <slot>', which says them all."""
    rows = {row["slot"]: row for row in game.market()}
    name_width = max([len(row["tile"]) for row in rows.values()] + [4])
    lines = [f"{'slot':>4} {'+':>3} {'price':>5} {'tile':<{name_width}} type effects "
             f"('info <slot>')"[:width]]
    dale = game.config.mode == "dale"
    for slot in range(c.DALE_FIRST_SLOT, c.DALE_LAST_SLOT + 1) if dale else range(c.NUM_SLOTS):
        premium = f"+{c.SLOT_PREMIUMS[slot]}"
        row = rows.get(slot)
        if row is None:
            lines.append(f"{slot:>4} {premium:>3} {'':>5} (empty)")
            continue
        kind = TILES.kind(row["tile"])
        start = (f"{slot:>4} {premium:>3} {'$' + str(row['price']):>5} "
                 f"{row['tile']:<{name_width}} {tile_type_words(kind)[:3]:<4} ")
        lines.append(start + _cut_effects(tile_effects_brief(kind), width - len(start), slot))
    return lines


def _cut_effects(effects: str, room: int, slot: int) -> str:
    """`effects` (terms joined by '; ') within `room` characters: whole terms, then
    '... info 3' when some are left out."""
    if len(effects) <= room:
        return effects
    more = f"... info {slot}"
    terms = effects.split("; ")
    kept = ""
    for term in terms:
        candidate = f"{kept}; {term}" if kept else term
        if len(candidate) + 2 + len(more) > room:
            break
        kept = candidate
    return (f"{kept}; {more}" if kept else more)[:room]


def _compact_market_lines(game: Game, width: int) -> list[str]:
    """The market in two columns, without effects: the last resort of a crowded screen."""
    rows = game.market()
    items = [f"{row['slot']} ${row['price']:<3} {row['tile']}" for row in rows]
    half = (len(items) + 1) // 2
    cell = (width - 2) // 2
    lines = ["Market (slot, price; 'market' shows the effects):"]
    for left, right in zip(items[:half], items[half:] + [""]):
        lines.append(("  " + left[:cell - 1].ljust(cell) + right[:cell - 1]).rstrip())
    return lines


def _panel_items(game: Game, human: int, labels: dict[int, str]) -> list[str]:
    """What beside the map tells the person: their numbers, goals, stacks, supply and the
    other seats' public numbers (R10.1)."""
    mine = game.player_state(human)
    items = [f"You: ${mine['money']}, income {mine['income']}, reputation "
             f"{mine['reputation']}",
             f"Population {mine['population']}, next red line at "
             f"{next_red_line(mine['population'])}",
             f"Investment markers left: {mine['markers_left']}"]
    goal = game.private_goal(human)
    if goal:
        items.append(f"Your goal: {goal}")
    if game.public_goals:
        items.append("Public goals: " + ", ".join(game.public_goals))
    items.append("Stacks: " + ", ".join(f"{name} {count}"
                                        for name, count in game.stack_sizes().items()))
    items.append("Supply: " + ", ".join(f"{name} {count}"
                                        for name, count in game.supply().items()))
    for seat in range(game.num_seats):
        if seat == human:
            continue
        other = game.player_state(seat)
        items.append(f"{_short_label(game, seat, labels)}: ${other['money']} inc "
                     f"{other['income']} rep {other['reputation']} pop {other['population']}")
    return items


def key_lines(kinds: set[int], marks: list[str], width: int, room: int) -> list[str]:
    """What the labels of the map stand for (`HF Heavy Factory`, then `marks` such as
    `~~~ lake`) in at most `room` lines of `width`; when not all fit, the last line says
    that 'info <label>' tells the rest."""
    if room <= 0 or not kinds:
        return []
    entries = sorted(f"{TILE_LABELS[kind]} {TILES.names[kind]}" for kind in kinds) + marks
    lines = packed([f"Key: {entries[0]}"] + entries[1:], width, gap="  ")
    if len(lines) <= room:
        return lines
    return lines[:room - 1] + ["  ... 'info <label>' says the rest"] if room > 1 else []


def _beside(left: list[str], right: list[str], width: int) -> list[str]:
    """`left` lines with `right` lines printed to their right, from the same top line."""
    left_width = max((len(line) for line in left), default=0) + 2
    lines = []
    for index in range(max(len(left), len(right))):
        text = left[index] if index < len(left) else ""
        if index < len(right):
            text = text.ljust(left_width) + right[index]
        lines.append(text.rstrip()[:width])
    return lines


def choice_lines(game: Game, width: int = SCREEN_WIDTH) -> list[str]:
    """The decision's moves: numbered when they are few (goals, discards), else what each
    kind of move may take, with the count 'legal' numbers."""
    legal = game.legal_actions_text()
    decision = game.pending_decision
    if decision == "keep_goal":
        human = game.current_player
        goals = [int(g) for g in s.goal_options(game.state, human)]
        lines = wrap("Your two drawn goals (R3.6); keep one as your private goal "
                     "(population bonus):", width)
        for number, goal in enumerate(goals, start=1):
            info = goal_info(goal)
            lines += wrap(f"{number}) keep {info['name']}: {info['criterion']} "
                          f"(+{info['private_bonus']})", width, "  ")
        return lines
    if len(legal) <= 8:
        items = [f"{number}) {text}" for number, text in enumerate(legal, start=1)]
        if decision in ("discard", "remove"):
            premiums = {row["slot"]: row["premium"] for row in game.market()}
            items = [f"{item} (${premiums[int(item.rsplit(' ', 1)[1])]})" for item in items]
        title = {"discard": "Discard, paying the premium:", "remove": "Remove:"}.get(
            decision, "Moves:")
        return packed([f"{title} {items[0]}"] + items[1:], width)
    verbs: dict[str, list[str]] = {}
    for text in legal:
        verb, _, rest = text.partition(" ")
        argument = rest.split("@")[0].strip()
        if argument not in verbs.setdefault(verb, []):
            verbs[verb].append(argument)
    parts = [f"{verb} {_ranges(verbs[verb])}" for verb in ("buy", "lake", "basic")
             if verb in verbs]
    text = ", ".join(parts) + (" @ a '+' cell" if parts else "")
    if "invest" in verbs:
        text += ("; " if parts else "") + "invest " + " ".join(verbs["invest"])
    return wrap(f"Moves ({len(legal)}, 'legal' numbers them): {text}", width)


def _ranges(arguments: list[str]) -> str:
    """`0-3 5` for slots 0, 1, 2, 3, 5; other arguments as they are."""
    if not all(argument.isdigit() for argument in arguments):
        return " ".join(arguments)
    numbers = sorted(int(argument) for argument in arguments)
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return " ".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else " ".join(map(str, run))
                    for run in runs)


HINT = "Type a number, a move, info <slot>, undo, save, help or quit."


BOROUGH_TITLE = "Your borough ('+': a tile may go here; odd columns sit half a row lower):"


def decision_screen(game: Game, human: int, labels: dict[int, str],
                    width: int = SCREEN_WIDTH, height: int = SCREEN_HEIGHT - 1,
                    recent: list[str] | None = None) -> list[str]:
    """The screen of one decision, at most `height` lines of at most `width` characters
    (the prompt takes the last line of 24): header, market, the acting player's borough
    with their numbers beside it, the moves. Public information and the person's own
    goals only (R10.1, R10.2). A tall borough first loses its empty margin rows, then the
    market its effects; the map is cut only past that (the whole map: 'board'). The
    `recent` moves of the others since the person's last decision take the lines left
    over, at least NEWS_LINES of them when dropping the map's margin makes room (and one
    in any case), folded to the latest with a count and 'log' when they do not all fit;
    then what the map's labels stand for."""
    header = [_header_line(game, human, labels)[:width]]
    recent = recent or []
    needed = 1 if recent else 0  # the others' moves get a line at least (folded)
    choices = choice_lines(game, width)
    items = _panel_items(game, human, labels)
    cells = game.player_state(human)["borough"]
    marks = ([f"{LAKE_LABEL} lake"] if any(cell["lake"] for cell in cells) else []) + \
        ([f"{INVESTED_MARK} investment"] if any(cell["invested"] for cell in cells) else [])
    # first the map without its margin rather than fewer than NEWS_LINES of the others'
    # moves; the market's effects go only for the map, never for the moves
    plans = [(row_margin, False, min(len(recent), NEWS_LINES)) for row_margin in (1, 0)] \
        + [(row_margin, compact, needed) for row_margin, compact in
           ((1, False), (0, False), (1, True), (0, True))]
    for row_margin, compact, wanted in plans:
        market = _compact_market_lines(game, width) if compact else market_lines(game, width)
        borough, kinds = render_borough(game.state, human, mark_placeable=True,
                                        row_margin=row_margin)
        region = _borough_region(borough, items, kinds, marks, width, 0)
        lines = header + market + region + choices
        if len(lines) + wanted <= height:
            spare = height - len(lines) - 1  # the last line: HINT
            if spare < wanted:
                return header + _recent_lines(recent, width, wanted) + lines[1:]
            news = _recent_lines(recent, width, spare)
            region = _borough_region(borough, items, kinds, marks, width,
                                     spare - len(news))
            return header + news + market + region + choices + [HINT]
    room = height - len(header) - len(market) - len(choices) - 1 - needed
    return header + _recent_lines(recent, width, needed) + market + region[:room] \
        + ["(cut: 'board' draws the whole borough)"] + choices


def _recent_lines(recent: list[str], width: int, room: int) -> list[str]:
    """`Last moves: Dale pays $3 and places Mint at -1,0`, one line a move; when they do
    not all fit in `room` lines, a first line says how many are folded away and that
    'log' lists them, then the latest moves."""
    if not recent or room <= 0:
        return []
    if len(recent) <= room:
        title = "Last moves: "
        return [(title + text if index == 0 else " " * len(title) + text)[:width]
                for index, text in enumerate(recent)]
    latest = recent[len(recent) - room + 1:]
    folded = len(recent) - len(latest)
    if not latest:
        return [f"Last moves: {folded} since your last decision; 'log' lists them"[:width]]
    title = "Last moves: "
    lines = [f"{title}... {folded} earlier (type 'log' to see all {len(recent)}), then:"]
    return [line[:width] for line in lines + [" " * len(title) + text for text in latest]]


def log_lines(recent: list[str], width: int = SCREEN_WIDTH) -> list[str]:
    """The 'log' command: every move of the others since the person's last decision."""
    if not recent:
        return ["No moves of the others since your last decision."]
    lines = [f"Since your last decision ({len(recent)} move{'s' if len(recent) != 1 else ''}):"]
    for number, text in enumerate(recent, start=1):
        lines += textwrap.wrap(f"{number:>3}. {text}", width, subsequent_indent="     ",
                               break_on_hyphens=False)
    return lines


def _borough_region(borough: list[str], items: list[str], kinds: set[int],
                    marks: list[str], width: int, spare: int) -> list[str]:
    """The title, the map and the panel of `items` beside it (below it when the map is
    too wide), then the key of the labels in the panel's free lines and `spare` more."""
    panel_width = width - max(len(line) for line in borough) - 2
    beside = panel_width >= 26
    panel_width = panel_width if beside else width
    panel = [line for item in items for line in wrap(item, panel_width)]
    free = max(0, len(borough) - len(panel)) if beside else 0
    panel += key_lines(kinds, marks, panel_width, free + spare)
    body = _beside(borough, panel, width) if beside else \
        [line[:width] for line in borough] + panel
    return [BOROUGH_TITLE[:width]] + body


def full_market_lines(game: Game, width: int = SCREEN_WIDTH) -> list[str]:
    """The market with each tile's effects in full sentences (`tile_text.tile_summary`)."""
    lines = []
    for row in game.market():
        if game.config.mode == "dale" and not c.DALE_FIRST_SLOT <= row["slot"] <= c.DALE_LAST_SLOT:
            continue
        lines += wrap(f"slot {row['slot']}: ${row['price']} ({row['cost']} + premium "
                      f"{row['premium']}) {tile_summary(TILES.kind(row['tile']))}", width, "")
    return lines or ["The market is empty."]


# info -------------------------------------------------------------------------------------

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


# Saving ----------------------------------------------------------------------------------

def read_line(stdin: TextIO) -> str | None:
    """One typed line, None at the end of the input. A line longer than MAX_LINE is read
    to its end and returned cut (the notation then refuses it); bytes that are not UTF-8
    text become U+FFFD (refused the same way)."""
    try:
        line = stdin.readline(MAX_LINE)
        if len(line) == MAX_LINE and not line.endswith("\n"):
            while True:  # skip the rest of the over-long line
                rest = stdin.readline(MAX_LINE)
                if not rest or rest.endswith("\n"):
                    break
    except UnicodeDecodeError:
        return "\ufffd"
    except ValueError:  # the input stream was closed
        return None
    return line or None


def default_save_path(game: Game, seed_known: bool = False) -> Path:
    """Where an unfinished game is saved unless the person names a file, in the current
    folder: `suburbia-dale-seed7-20261125-130000.json`. The seed is in the name only when
    the person chose it; a random one stays unshown until the game is over (it fixes the
    order of the stacks, R10.2)."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    seed = f"seed{game.seed}-" if seed_known and game.seed is not None else ""
    return Path(f"suburbia-{game.config.mode}-{seed}{stamp}.json")


SAVED_POSITION = "your position, not what you cannot see"


def save_game(game: Game, path: Path, viewer: int) -> str:
    """Write the game to `path`; returns what was written. A finished game, which hides
    nothing any more: its record (seed and moves) when replaying it gives this very
    state, else its state. An unfinished game: its position as seat `viewer` knows it
    (R10.1), in the state format but with no seed and with what the seat cannot see (the
    stacks' order, One More Round, the others' goals) dealt anew from fresh secret words
    (R10.2), so the file tells nothing hidden; resuming it deals that anew again
    (`TerminalGame`), so that reading the file tells nothing of the tiles to come either."""
    if game.is_over:
        record = game.record() if game.seed is not None else None
        try:
            same = record is not None and np.array_equal(Game.replay(record).state, game.state)
        except SuburbiaError:
            same = False
        text = (json.dumps(record, indent=1) + "\n") if same else game.to_json()
        what = "game record" if same else "game state"
    else:
        position = game.copy()
        position.redraw_hidden(viewer, secret_words())
        text, what = position.to_json(), SAVED_POSITION
    path = Path(path).expanduser()
    if path.parent != Path("."):
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return what


def saved_lines(lead: str, target: Path, what: str) -> list[str]:
    """`Saved in FILE (what was written).`, the file name whole on the first line."""
    line = f"{lead} {target} ({what})."
    return [line] if len(line) <= SCREEN_WIDTH else [f"{lead} {target},", f"  {what}."]


def write_error(error: Exception) -> str:
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)  # ValueError: a path with a NUL character


def _name_problem(target: Path) -> str | None:
    if any(ord(character) < 32 or character in "\x7f\ufffd" for character in str(target)):
        return "a file name cannot hold control characters or bytes that are not text"
    return None


def offer_to_save(game: Game, viewer: int, stdin: TextIO, stdout: TextIO, default: Path,
                  ask: bool, resume_hint: str = "") -> Path | None:
    """Save an unfinished game as seat `viewer` knows it (`save_game`): ask for a file
    name (Enter: `default`, 'no': not saved) when `ask`, else (the input has ended) write
    `default`. A file that cannot be written gets its reason and a new question; the end
    of the input or Ctrl-C at the question saves to `default`, or, if that cannot be
    written, to a new file in the current folder."""

    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    asking, fallback = ask, default_save_path(game)
    for _ in range(6):
        answer = None
        if asking:
            stdout.write(f"Save the unfinished game? Enter: in {default}\n"
                         f"(or type another file name, or 'no'): ")
            stdout.flush()
            try:
                answer = read_line(stdin)
            except KeyboardInterrupt:
                say()
            if answer is None:  # end of input or Ctrl-C: the default, nobody to ask
                asking = False
            elif answer.strip().lower() in ("no", "n"):
                say("The game was not saved.")
                return None
        target = Path(answer.strip()) if answer and answer.strip() else default
        problem = _name_problem(target)
        if problem is None:
            try:
                what = save_game(game, target, viewer)
            except (OSError, ValueError) as error:
                problem = write_error(error)
        if problem is None:
            for line in saved_lines("The game is saved in", target, what):
                say(line)
            say("Continue it with:")
            say(f"  suburbia play --resume {shlex.quote(str(target))}{resume_hint}")
            return target
        say(f"Cannot write {shown(str(target))}: {problem}.")
        if not asking:
            if target == fallback:
                break
            default = fallback  # nobody to ask: a new file in the current folder
    say("The game was not saved.")
    return None


# The session -----------------------------------------------------------------------------

class TerminalGame:
    """One person at seat `human` against the agents of `opponents` (seat -> agent), on
    `stdin`/`stdout`. `labels` names the agents' seats (their specs). `seed_source`:
    "given" (the person chose it: printed), "random" (printed only once the game is over,
    since it tells the stacks, R10.2) or "file" (a resumed game: not printed, and what the
    person cannot see is dealt anew from fresh secret words, R10.2, so that a file read
    or loaded twice tells nothing of the tiles to come)."""

    def __init__(self, game: Game, human: int, opponents: dict, stdin: TextIO,
                 stdout: TextIO, show_board: bool = True, labels: dict[int, str] | None = None,
                 save_path: Path | None = None, resume_hint: str = "",
                 seed_source: str = "given"):
        self.game = game
        self.human = human
        self.opponents = opponents
        self.stdin, self.stdout = stdin, stdout
        self.show_board = show_board
        self.labels = labels or {seat: getattr(agent, "name", "agent")
                                 for seat, agent in opponents.items()}
        self.default = (Path(save_path) if save_path
                        else default_save_path(game, seed_known=seed_source == "given"))
        self.resume_hint = resume_hint
        self.seed_source = seed_source
        self.undo_points = self._undo_points_of_history()
        self.setup_seed = game.seed  # still the setup's seed after a redraw
        self.loaded_without_history = seed_source == "file" and not self.undo_points
        self.saved_state: np.ndarray | None = None
        self.recent: list[str] = []  # the others' moves since the person's last one
        self._shown_for = None
        from agents.table import Table
        self.table = Table(opponents, on_forfeit=self._stand_in)  # the bots' loop
        self.watched: list[tuple[Game, int]] = []  # (position, move) shown to watching bots
        self._show_history_to_watchers()
        if seed_source == "file" and not game.is_over:  # after the history is replayed
            game.redraw_hidden(human, secret_words())

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def _undo_points_of_history(self) -> list[Game]:
        """The positions before each of the person's decisions so far, replayed from the
        seed (a resumed record); none when the history does not replay to this state."""
        game = self.game
        if game.seed is None or not game.history:
            return []
        try:
            replay = Game(game.config.players, game.config.mode, game.config.edition,
                          game.seed, game.config.random_private_goals)
            points = []
            for text in game.history:
                if replay.current_player == self.human:
                    points.append(replay.copy())
                replay.apply(text)
        except SuburbiaError:
            return []
        return points if np.array_equal(replay.state, game.state) else []

    # Running ------------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the game ends (0), the person quits (0), the input ends (1) or Ctrl-C
        (130). On quitting or Ctrl-C the person is offered to save the unfinished game;
        when the input ends it is saved without asking."""
        for line in wrap(f"{self._table_words()}; {YOU} are "
                         f"{player_name(self.game.config.mode, self.human)}."):
            self.say(line)
        if self.seed_source == "given":
            self.say(f"Seed {self.game.seed}.")
        elif self.seed_source == "random":
            for line in wrap("The seed was drawn at random; it is shown when the game is "
                             "over, since it fixes the hidden order of the stacks (R10.2). "
                             "--seed N chooses one."):
                self.say(line)
        elif not self.game.is_over:
            for line in wrap("Resumed: what you cannot see (the order of the stacks, One "
                             "More Round, the others' goals) was dealt anew (R10.2)."):
                self.say(line)
        self.say("Type 'help' for the commands.")
        try:
            status = self._loop()
        except KeyboardInterrupt:
            self.say()
            self.say("Interrupted.")
            offer_to_save(self.game, self.human, self.stdin, self.stdout, self.default, True,
                          self.resume_hint)
            return 130
        if status == "quit":
            if self.saved_state is not None and np.array_equal(self.saved_state,
                                                               self.game.state):
                self.say(f"The game is saved in {self.default}.")
                self.say("Continue it with:")
                self.say(f"  suburbia play --resume {shlex.quote(str(self.default))}"
                         f"{self.resume_hint}")
                return 0
            offer_to_save(self.game, self.human, self.stdin, self.stdout, self.default, True,
                          self.resume_hint)
            return 0
        if status == "end of input":
            offer_to_save(self.game, self.human, self.stdin, self.stdout, self.default, False,
                          self.resume_hint)
            return 1
        self._game_over()
        return 0

    def _table_words(self) -> str:
        game = self.game
        edition = "" if game.config.edition == "2nd" else f", {game.config.edition} edition"
        if game.config.mode == "dale":
            return f"Suburbia against Dale the bot (R9.2){edition}"
        if game.config.mode == "solitary":
            return f"Suburbia, Solitary Architect (R9.1){edition}"
        others = ", ".join(f"{player_name(game.config.mode, seat)} "
                           f"{self.labels.get(seat, 'agent')}" for seat in sorted(self.opponents))
        return f"Suburbia, {game.num_seats} players{edition}: {others}"

    def _game_over(self) -> None:
        game = self.game
        self.say()
        for line in fitted(game.render()) if self.show_board else ["The game is over."]:
            self.say(line)
        self.say()
        names = {self.human: YOU, **{seat: seat_with_agent(game.config.mode, seat, label)
                                     for seat, label in self.labels.items()}}
        for line in final_scores_lines(game, names):
            self.say(line)
        if self.setup_seed is not None:
            self.say(f"Seed {self.setup_seed}: the same setup again with --seed "
                     f"{self.setup_seed}.")

    def _loop(self) -> str:
        """Decisions until the game is over ("over"), the person quits ("quit") or the
        input ends ("end of input")."""
        game_seen = None
        while not self.game.is_over:
            game = self.game
            seat = game.current_player
            if seat != self.human:
                self._bot_move(seat)
                continue
            key = (id(game), len(game.history), game.pending_decision)
            if key != game_seen:
                game_seen = key
                self._show_decision()
            self.stdout.write(f"player {self.human}> ")
            self.stdout.flush()
            line = read_line(self.stdin)
            if line is None:
                self.say()
                self.say("End of input: the game is left unfinished.")
                return "end of input"
            outcome = self._command(line)
            if outcome == "quit":
                return "quit"
            if outcome == "show":
                game_seen = None
        return "over"

    def _bot_move(self, seat: int) -> None:
        """The bot of `seat` decides (or the stand-in), the watching bots are shown the
        move, and it is played: one step of the table (agents/table.py)."""
        game = self.game
        move = self.table.step(game, on_move=lambda _, number, __: self._keep(game, number))
        self.recent += headline_events(game, exclude=self.human)
        self.say(f"{seat_label(game, seat, self.human, self.labels)}: "
                 f"{public_move_words(game.history[-1])}")
        for line in move.events:
            self.say(f"    {line}")

    def _stand_in(self, seat: int, problem: str) -> None:
        """The bot of `seat` failed (the table's forfeit): the stand-in plays its seat from
        now on, and the person is told why."""
        for line in wrap(f"{seat_label(self.game, seat, self.human, self.labels)} failed "
                         f"({problem}); the stand-in, which takes the first legal action, "
                         f"plays its seat from now on."):
            self.say(line)

    def _keep(self, game: Game, number: int) -> None:
        """Keep a move shown to watching bots, to show it again after an undo."""
        from agents.base import observers
        if observers(self.table.playing, game):
            self.watched.append((game.copy(), number))

    def _watch(self, game: Game, number: int) -> None:
        """Show a move about to be played (the person's, or one replayed after an undo) to
        the bots that watch (the table's `show_or_forfeit`: never a goal choice, R3.6), and
        keep it for after an undo."""
        self._keep(game, number)
        self.table.show_or_forfeit(game, number)

    def _show_history_to_watchers(self) -> None:
        """A resumed game: the watching bots are shown the moves of its history, replayed
        from its seed (none when the history does not replay to this state)."""
        game = self.game
        if game.seed is None or not game.history:
            return
        try:
            replay = Game(game.config.players, game.config.mode, game.config.edition,
                          game.seed, game.config.random_private_goals)
            moves = []
            for text in game.history:
                number = replay.action_number(text)
                moves.append((replay.copy(), number))
                replay.apply(number)
        except SuburbiaError:
            return
        if np.array_equal(replay.state, game.state):
            self._rewatch(moves)

    def _rewatch(self, moves: list[tuple[Game, int]]) -> None:
        """Reset the watching bots (seeded as at the start) and show them `moves` again."""
        from agents.base import observers
        watching = {seat for position, _ in moves
                    for seat, _ in observers(self.table.playing, position)}
        self.table.reseed(self.setup_seed or 0, seats=watching)
        self.watched = []
        for position, number in moves:
            self._watch(position, number)

    def _show_decision(self) -> None:
        game = self.game
        self.say()
        if self.show_board:
            for line in decision_screen(game, self.human, self.labels, recent=self.recent):
                self.say(line)
            return
        mine = game.player_state(self.human)
        lines = wrap(f"Round {game.round + 1}. You: ${mine['money']}, income "
                     f"{mine['income']}, reputation {mine['reputation']}, population "
                     f"{mine['population']}, markers left {mine['markers_left']}, "
                     f"{len(mine['borough'])} tiles")
        lines += wrap("Market: " + " | ".join(f"slot {row['slot']} {row['tile']} "
                                              f"${row['price']}" for row in game.market()))
        if game.pending_decision == "keep_goal":
            lines += wrap("Your drawn goals (R3.6): "
                          + ", ".join(game.goal_options(self.human)))
        elif game.private_goal(self.human):
            lines.append(f"Your private goal: {game.private_goal(self.human)}")
        legal = game.legal_actions_text()
        lines.append(f"Legal moves ({len(legal)}; a number picks one of 'legal'):")
        lines += [part for line in group_legal_moves(legal)
                  for part in textwrap.wrap(line.strip(), SCREEN_WIDTH, initial_indent="  ",
                                            subsequent_indent="    ")]
        for line in lines:
            self.say(line)

    # Commands -----------------------------------------------------------------------------

    def _command(self, line: str) -> str | None:
        """Carry out one typed line; "quit" to leave, "show" to draw the screen again."""
        game = self.game
        words = line.strip().split()
        command = " ".join(words).lower()
        verb = command.split(" ", 1)[0] if command else ""
        rest = " ".join(words[1:])
        if not command:
            return None
        if command in QUIT_WORDS:
            self.say("You left the game.")
            return "quit"
        if command in ("help", "?"):
            self.say(PLAY_HELP)
        elif verb == "legal":
            self._legal(rest)
        elif verb == "info":
            for text in info_lines(game, self.human, rest):
                self.say(text)
        elif command == "market":
            for text in full_market_lines(game):
                self.say(text)
        elif command == "board":
            for text in fitted(game.render()):
                self.say(text)
        elif command in ("show", "look"):
            return "show"
        elif command == "log":
            for text in log_lines(self.recent):
                self.say(text)
        elif command == "undo":
            return self._undo()
        elif verb == "save":
            self._save(" ".join(line.strip().split(None, 1)[1:]))
        elif command.isascii() and command.isdigit():
            self._play_number(command)
        else:
            self._play(line.strip())
        return None

    def _legal(self, words: str) -> None:
        moves = list(enumerate(self.game.legal_actions_text(), start=1))
        wanted = " ".join(words.lower().split())
        chosen = [(number, text) for number, text in moves
                  if text.lower().startswith(wanted)] if wanted else moves
        if not chosen:
            self.say(f"No legal move starts with {shown(words)}; 'legal' lists all "
                     f"{len(moves)}.")
            return
        for text in numbered_columns(chosen):
            self.say(text)

    def _play_number(self, digits: str) -> None:
        legal = self.game.legal_actions()
        number = int(digits) if len(digits) <= 6 else 0
        if not 1 <= number <= len(legal):
            for line in wrap(f"Not accepted: {shown(digits) if len(digits) > 6 else digits} "
                             f"is not a move number; the moves are numbered 1 to "
                             f"{len(legal)} ('legal')."):
                self.say(line)
            return
        self._play(int(legal[number - 1]))

    def _play(self, move) -> None:
        """Apply a move (notation or action number); a move that is not legal now is
        refused with the rule that forbids it (legal_actions.illegal_reason)."""
        game = self.game
        try:
            number = game.action_number(move)
            if not game.is_legal(number):
                why = illegal_reason(game.state, TILES.table, TILES.basic_kinds, number)
                raise IllegalActionError(f"illegal action {game.action_to_text(number)!r}: "
                                         f"{why}")
            before = game.copy()
            self._watch(game, number)
            events = game.apply(number)
        except SuburbiaError as error:
            for line in wrap(f"Not accepted: {str(error).rstrip('.')}."):
                self.say(line)
            self.say("Type 'legal' for the legal moves or 'help' for the notation.")
            return
        self.undo_points.append(before)
        self.recent = headline_events(game, exclude=self.human)  # Dale's turn (R9.2)
        self.say(f"you: {game.history[-1]}")
        for event in events:
            self.say(f"    {event}")

    def _undo(self) -> str | None:
        """Back to the position before the person's last decision: everything after it,
        the bots' moves included, is taken back (the engine decides nothing new). What the
        person cannot see is then dealt anew (R10.2), so that the tiles drawn after the
        move, now seen, tell nothing of the stacks to come."""
        if not self.undo_points:
            self.say("Nothing to undo: you have taken no decision"
                     + (" since the game was loaded." if self.loaded_without_history
                        else "."))
            return None
        point = self.undo_points.pop().copy()
        self.recent = []
        self._rewatch([(position, number) for position, number in self.watched
                       if len(position.history) < len(point.history)])
        taken_back = self.game.history[len(point.history):]
        point.redraw_hidden(self.human, secret_words())
        self.game = point
        others = len(taken_back) - 1
        self.say(f"Undone: your '{taken_back[0]}'" + (
            f" and the {others} decision{'s' if others != 1 else ''} after it." if others
            else "."))
        return "show"

    def _save(self, name: str) -> None:
        target = Path(name.strip()) if name.strip() else self.default
        problem = _name_problem(target)
        if problem is None:
            try:
                what = save_game(self.game, target, self.human)
            except (OSError, ValueError) as error:
                problem = write_error(error)
        if problem is not None:
            self.say(f"Cannot write {shown(str(target))}: {problem}.")
            return
        self.default = target
        self.saved_state = self.game.state.copy()
        for line in saved_lines("Saved in", target, what):
            self.say(line)
        self.say("Continue it later with:")
        self.say(f"  suburbia play --resume {shlex.quote(str(target))}{self.resume_hint}")


def play_session(game: Game, human: int, opponents: dict, stdin: TextIO, stdout: TextIO,
                 show_board: bool = True, labels: dict[int, str] | None = None,
                 save_path: Path | None = None, resume_hint: str = "",
                 seed_source: str = "given") -> int:
    """Play `game` with a person at seat `human` (see `TerminalGame.run`)."""
    return TerminalGame(game, human, opponents, stdin, stdout, show_board, labels, save_path,
                        resume_hint, seed_source).run()
