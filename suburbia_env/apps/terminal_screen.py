"""What the terminal game shows: the screen of a decision (header, market, the person's
borough with their numbers, the moves and the others' last moves, within 80 x 24), the
legal moves listed compactly, the full market, the log and the final scores. Public
information and the person's own goals only (R10.1, R10.2)."""

from __future__ import annotations

import textwrap

from ..display.render import INVESTED_MARK, LAKE_LABEL, TILE_LABELS, render_borough
from ..display.tile_text import goal_info, tile_effects_brief, tile_summary, tile_type_words
from ..display.vocabulary import (DECISION_WORDS, YOU, next_red_line, player_name, seat_name,
                                  short_seat_name)
from ..engine import constants as c
from ..engine import state_layout as s
from ..engine.tile_data import TILES
from ..game import Game
from .terminal_text import SCREEN_HEIGHT, SCREEN_WIDTH, packed, wrap

CELLS_SHOWN = 40  # at most this many cells are listed per line of the compact legal list
NEWS_LINES = 3  # a decision's screen keeps this many lines for the others' moves if it can


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
