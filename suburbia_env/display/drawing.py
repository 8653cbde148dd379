"""The table as a picture a Suburbia player can read: one SVG drawing for every place.

`table_svg` draws the market (slots, premiums, costs and prices), the basic supply, the
stacks, the goals and one panel per seat: the player's label, money, income,
reputation, population, the next red line and the markers left, then the whole borough
grid (R2.1, flat-top hexes, odd columns half a cell lower) with every tile named and
coloured by type, its icon, lakes and investment markers. The web page (suburbia serve)
shows this very SVG, `suburbia render --svg/--png` writes it, and the `rgb_array` render
mode of the environments rasterises it (picture.py), so all three agree.

Hidden information (R10.2) is the caller's to choose and the drawing's to respect:
by default nothing private is drawn; `viewer=seat` adds that seat's own private goal
(or its two drawn goals while it chooses); `reveal=True` draws every seat's private goal
and is meant for finished games, replays and games with no person at the table.

The drawing carries data attributes for the web page: `data-slot` on market cards,
`data-basic` on the supply cards, `data-seat`/`data-cell`/`data-kind` on borough
cells, and a `<title>` tooltip with each tile's effects in words (tile_text.py).
Colours: residential green, commercial blue, civic slate, industrial yellow, lake cyan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from ..engine import constants as c
from ..engine import state_layout as s
from ..engine.hex_grid import MIN_COLUMN, NUM_CELLS, NUM_COLUMNS, NUM_ROWS, cell_coordinates
from ..engine.tile_data import GOALS, TILES
from ..engine.tile_table import tile_cost, tile_icon, tile_type
from .tile_text import goal_info, tile_summary
from .vocabulary import DECISION_WORDS, ICON_BADGES, red_line_distance, seat_name

HEX_RADIUS = 36
SQRT3 = math.sqrt(3)
GAP = 12
PAD = 8
PANEL_HEAD = 62
GRID_WIDTH = HEX_RADIUS * (1.5 * (NUM_COLUMNS - 1) + 2)
GRID_HEIGHT = SQRT3 * HEX_RADIUS * (NUM_ROWS + 0.5)
PANEL_WIDTH = int(round(GRID_WIDTH + 2 * PAD))
PANEL_HEIGHT = int(round(PANEL_HEAD + GRID_HEIGHT + PAD))
WIDTH = 2 * PANEL_WIDTH + 3 * GAP
TITLE_HEIGHT = 40
MARKET_TOP = TITLE_HEIGHT + 8
CARD_WIDTH, CARD_HEIGHT = 128, 124
BASIC_WIDTH = 100
GOALS_TOP = MARKET_TOP + 22 + CARD_HEIGHT + 12
GOALS_HEIGHT = 52
BOROUGHS_TOP = GOALS_TOP + 22 + GOALS_HEIGHT + 12
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

BACKGROUND = "#f7f5ef"
INK = "#1f2328"
MUTED = "#6b6f76"
TYPE_FILLS = ("#3f9b45", "#1e7fd8", "#6f8796", "#f2bd1d")
"""TYPE_FILLS[type]: residential, commercial, civic, industrial (R1.4)."""
TYPE_INK = ("#ffffff", "#ffffff", "#ffffff", "#2b2100")
LAKE_FILL, LAKE_INK = "#5cc8ef", "#063b52"
EMPTY_FILL, EMPTY_STROKE = "#ecebe4", "#dcdad0"
PLACEABLE_FILL, PLACEABLE_STROKE = "#fffef8", "#a9a593"
MARKER_FILL = "#2a2a2a"
CURRENT = "#e8770e"
SEAT_COLOURS = ("#d84315", "#6a1b9a", "#00838f", "#558b2f")

_NAME_LINES = {
    "Business Supply Store": ("Business", "Supply", "Store"),
    "Convenience Store": ("Conve-", "nience", "Store"),
    "Fancy Restaurant": ("Fancy", "Restaur-", "ant"),
    "Fast Food Restaurant": ("Fast Food", "Restaur-", "ant"),
    "Homeowners Association": ("Home-", "owners", "Assoc."),
    "Mobile Home Community": ("Mobile", "Home", "Comm."),
    "Municipal Airport": ("Munici-", "pal", "Airport"),
    "Slaughterhouse": ("Slaugh-", "ter-", "house"),
    "Waterfront Realty": ("Water-", "front", "Realty"),
    "Domestic Airport": ("Dome-", "stic", "Airport"),
    "Elementary School": ("Elemen-", "tary", "School"),
    "Office of Bureaucracy": ("Office of", "Bureau-", "cracy"),
    "Retirement Village": ("Retire-", "ment", "Village"),
    "Shipping Center": ("Ship-", "ping", "Center"),
    "Skyscraper": ("Sky-", "scraper"),
    "Warehouse": ("Ware-", "house"),
    "Apartments": ("Apart-", "ments"),
    "Bed & Breakfast": ("Bed &", "Break-", "fast"),
    "Chip Fabrication Plant": ("Chip", "Fabricat.", "Plant"),
    "Condominium": ("Condo-", "minium"),
    "International Airport": ("Inter-", "national", "Airport"),
    "Community Park": ("Commu-", "nity", "Park"),
    "Recycling Plant": ("Recyc-", "ling", "Plant"),
    "University": ("Univer-", "sity"),
    "Burg von Alspach": ("Burg von", "Alspach"),
    "New Car Dealership": ("New Car", "Dealer-", "ship"),
    "Local EPA Office": ("Local", "EPA", "Office"),
    "Housing Projects": ("Housing", "Projects"),
    "Retirement": ("Retire-", "ment"),
}


def name_lines(name: str, width: int = 9) -> tuple[str, ...]:
    """A tile name in at most three short lines for a hex (full words where they fit)."""
    if name in _NAME_LINES:
        return _NAME_LINES[name]
    lines: list[str] = []
    for word in name.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return tuple(lines[:3])


def _text_width(text: str, size: float) -> float:
    """About how wide DejaVu Sans sets `text` (a 0.62 em average advance)."""
    return len(text) * size * 0.62


def _fit(text: str, size: float, width: float) -> float:
    """The font size, at most `size`, at which `text` fits in `width` pixels."""
    return round(min(size, width / max(1.0, len(text) * 0.62)), 1)


class _Svg:
    """A list of SVG fragments with small helpers; text is escaped here, once."""

    def __init__(self):
        self.parts: list[str] = []

    def add(self, fragment: str) -> None:
        self.parts.append(fragment)

    def text(self, x: float, y: float, text: str, size: float = 13, fill: str = INK,
             weight: str = "normal", anchor: str = "start", extra: str = "") -> None:
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" '
            f'font-weight="{weight}" text-anchor="{anchor}"{extra}>{escape(text)}</text>')

    def rect(self, x: float, y: float, width: float, height: float, fill: str,
             stroke: str = "none", radius: float = 0, extra: str = "") -> None:
        self.parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" '
            f'rx="{radius}" fill="{fill}" stroke="{stroke}"{extra}/>')


# Table ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """Where things are drawn: the size of the picture and the origin of each seat's
    borough grid. Panels go two by two, seats in the order given."""

    seats: tuple[int, ...]

    @property
    def height(self) -> int:
        rows = (len(self.seats) + 1) // 2
        return int(BOROUGHS_TOP + rows * (PANEL_HEIGHT + GAP))

    @property
    def width(self) -> int:
        return WIDTH

    def panel_origin(self, seat: int) -> tuple[int, int]:
        index = self.seats.index(seat)
        return (GAP + (index % 2) * (PANEL_WIDTH + GAP),
                BOROUGHS_TOP + (index // 2) * (PANEL_HEIGHT + GAP))

    def cell_centre(self, seat: int, cell: int) -> tuple[float, float]:
        """Pixel centre of a borough cell (R2.1: odd columns half a cell lower)."""
        return _cell_centre(*self.panel_origin(seat), cell)


def _cell_centre(x0: float, y0: float, cell: int) -> tuple[float, float]:
    column, row = cell_coordinates(cell)
    x = x0 + PAD + HEX_RADIUS + 1.5 * HEX_RADIUS * (column - MIN_COLUMN)
    y = y0 + PANEL_HEAD + SQRT3 * HEX_RADIUS * (row + 0.5 + 0.5 * (column % 2))
    return x, y


def _hex_points(x: float, y: float, radius: float) -> str:
    half = SQRT3 / 2 * radius
    points = ((x - radius, y), (x - radius / 2, y - half), (x + radius / 2, y - half),
              (x + radius, y), (x + radius / 2, y + half), (x - radius / 2, y + half))
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in points)


def _title(svg: _Svg, game, labels: dict[int, str], seed_shown: int | None) -> None:
    config = game.config
    mode = {"standard": f"{config.players} players", "solitary": "Solitary Architect",
            "dale": "against Dale"}[config.mode]
    final_round = int(game.state[s.FINAL_ROUND])
    if config.mode == "dale":
        final = " · One More Round drawn" if final_round >= 0 else ""
    else:
        final = (f" · final round {final_round + 1}" if final_round >= 0 else "")
    if game.is_over:
        winners = ", ".join(labels.get(p, seat_name(config.mode, p)) for p in game.winners)
        status = f"Game over · winner: {winners}"
    else:
        seat = game.current_player
        who = labels.get(seat, seat_name(config.mode, seat))
        decision = DECISION_WORDS.get(game.pending_decision)
        status = f"{who} to play: {decision.brief if decision else ''}"
    svg.rect(0, 0, WIDTH, TITLE_HEIGHT, "#26323a")
    heading = f"Suburbia · {mode} · edition {config.edition} · round {game.round + 1}{final}"
    svg.text(GAP, 27, heading, 17, "#ffffff", "bold")
    right = WIDTH - GAP
    if seed_shown is not None:
        seed = f"seed {seed_shown}"
        svg.text(right, 27, seed, 13, "#b0bec5", anchor="end")
        right -= _text_width(seed, 13) + 14
    room = right - GAP - _text_width(heading, 17) * 1.1 - 16
    svg.text(right, 27, status, _fit(status, 16, room / 1.1), "#ffe0b2", "bold", "end")


def _tile_face(svg: _Svg, kind: int, x: float, y: float, width: float, height: float,
               size: float) -> None:
    """A tile's type colour, name and icon badge in a box (market and supply cards)."""
    type_index = tile_type(TILES.table, kind)
    svg.rect(x, y, width, height, TYPE_FILLS[type_index], radius=5)
    ink = TYPE_INK[type_index]
    lines = name_lines(TILES.names[kind], 12)
    icon = tile_icon(TILES.table, kind)
    top = y + height / 2 - (len(lines) - 1) * size * 0.58 + size * 0.35 - (7 if icon >= 0 else 0)
    for index, line in enumerate(lines):
        svg.text(x + width / 2, top + index * size * 1.16, line,
                 _fit(line, size, width - 10), ink, "bold", "middle")
    if icon >= 0:
        _icon_badge(svg, icon, x + width / 2, y + height - 11, 9)


def _icon_badge(svg: _Svg, icon: int, x: float, y: float, size: float) -> None:
    label = ICON_BADGES[icon]
    width = _text_width(label, size) + 6
    svg.rect(x - width / 2, y - size * 0.8, width, size * 1.45, "#ffffff", MARKER_FILL,
             radius=3, extra=' stroke-width="0.8"')
    svg.text(x, y + size * 0.38, label, size, MARKER_FILL, "bold", "middle")


def _market(svg: _Svg, game) -> None:
    dale = game.config.mode == "dale"
    slots = range(c.DALE_FIRST_SLOT, c.DALE_LAST_SLOT + 1) if dale else range(c.NUM_SLOTS)
    note = " (slots 2-5 only, R9.2)" if dale else ""
    svg.text(GAP, MARKET_TOP + 15, f"Market: price = cost + slot premium{note}", 14, INK, "bold")
    top = MARKET_TOP + 22
    for index, slot in enumerate(slots):
        x = GAP + index * (CARD_WIDTH + 8)
        kind = int(s.market_slot(game.state, slot))
        premium = c.SLOT_PREMIUMS[slot]
        svg.add(f'<g class="slot" data-slot="{slot}" data-kind="{kind}">')
        if kind < 0:
            svg.rect(x, top, CARD_WIDTH, CARD_HEIGHT, "none", "#b8b4a6", 8,
                     ' stroke-dasharray="5 4" class="card"')
            svg.text(x + CARD_WIDTH / 2, top + 16, f"slot {slot} · +${premium}", 12, MUTED,
                     anchor="middle")
            svg.text(x + CARD_WIDTH / 2, top + CARD_HEIGHT / 2 + 5, "(empty)", 13, MUTED,
                     anchor="middle")
            svg.add("</g>")
            continue
        cost = tile_cost(TILES.table, kind)
        svg.add(f"<title>{escape(tile_summary(kind))}</title>")
        svg.rect(x, top, CARD_WIDTH, CARD_HEIGHT, "#ffffff", "#8d8878", 8, ' class="card"')
        svg.text(x + CARD_WIDTH / 2, top + 16, f"slot {slot} · +${premium}", 12,
                 MUTED, anchor="middle")
        _tile_face(svg, kind, x + 5, top + 22, CARD_WIDTH - 10, 66, 13)
        svg.text(x + 8, top + CARD_HEIGHT - 11, f"${cost}+{premium}", 12, MUTED)
        svg.text(x + CARD_WIDTH - 8, top + CARD_HEIGHT - 9, f"${cost + premium}", 21, INK,
                 "bold", "end")
        svg.add("</g>")
    x = GAP + len(slots) * (CARD_WIDTH + 8) + 10
    svg.text(x, MARKET_TOP + 15, "Basic supply", 14, INK, "bold")
    supply = game.supply()
    for basic, count in enumerate(supply.values()):
        kind = int(TILES.basic_kinds[basic])
        left = x + basic * (BASIC_WIDTH + 6)
        svg.add(f'<g class="basic" data-basic="{basic}" data-kind="{kind}">'
                f"<title>{escape(tile_summary(kind))}</title>")
        svg.rect(left, top, BASIC_WIDTH, CARD_HEIGHT, "#ffffff", "#8d8878", 8,
                 ' class="card"')
        svg.text(left + BASIC_WIDTH / 2, top + 16, f"{count} left", 12,
                 INK if count else "#c62828", "bold" if not count else "normal", "middle")
        if count:
            _tile_face(svg, kind, left + 5, top + 22, BASIC_WIDTH - 10, 66, 12)
        else:
            svg.rect(left + 5, top + 22, BASIC_WIDTH - 10, 66, EMPTY_FILL, radius=5)
            svg.text(left + BASIC_WIDTH / 2, top + 60, TILES.names[kind], 10, MUTED,
                     anchor="middle")
        svg.text(left + BASIC_WIDTH - 8, top + CARD_HEIGHT - 9,
                 f"${tile_cost(TILES.table, kind)}", 21, INK, "bold", "end")
        svg.add("</g>")
    x = x + 3 * (BASIC_WIDTH + 6) + 4
    width = WIDTH - GAP - x
    if width > 60:
        svg.text(x, MARKET_TOP + 15, "Stacks", 14, INK, "bold")
        svg.rect(x, top, width, CARD_HEIGHT, "#ffffff", "#8d8878", 8)
        for index, (name, count) in enumerate(game.stack_sizes().items()):
            svg.text(x + 12, top + 30 + index * 28, f"{name}", 18, MUTED, "bold")
            svg.text(x + width - 12, top + 30 + index * 28, f"{count}", 20, INK, "bold", "end")
        svg.text(x + 12, top + CARD_HEIGHT - 10, "tiles left", 11, MUTED)


def _goals(svg: _Svg, game, viewer: int | None, reveal: bool) -> None:
    chips: list[tuple[str, str, str, bool]] = []
    for goal in s.public_goals(game.state):
        if goal >= 0:
            info = goal_info(int(goal))
            chips.append((info["name"], info["criterion"], f"+{info['public_bonus']}", False))
    if viewer is not None and not reveal and game.config.mode != "solitary":
        private = int(s.private_goal(game.state, viewer))
        if private >= 0:
            info = goal_info(private)
            chips.append((f"Your goal: {info['name']}", info["criterion"],
                          f"+{info['private_bonus']}", True))
        else:
            options = [int(g) for g in s.goal_options(game.state, viewer) if g >= 0]
            if options:
                chips.append(("Your goal: choose one",
                              " or ".join(GOALS.names[g] for g in options), "", True))
    title = "Public goals (R8.2)" if chips else "No goals in Solitary Architect (R9.1)"
    svg.text(GAP, GOALS_TOP + 15, title, 14, INK, "bold")
    if not chips:
        return
    width = min(340, (WIDTH - 2 * GAP - 8 * (len(chips) - 1)) / len(chips))
    top = GOALS_TOP + 22
    for index, (name, criterion, bonus, private) in enumerate(chips):
        x = GAP + index * (width + 8)
        svg.rect(x, top, width, GOALS_HEIGHT, "#fff8e1" if private else "#ffffff",
                 "#c77800" if private else "#8d8878", 8,
                 ' stroke-dasharray="6 3"' if private else "")
        svg.text(x + 10, top + 21, name, _fit(name, 14, width - 60), INK, "bold")
        svg.text(x + 10, top + 41, criterion, _fit(criterion, 12, width - 20), MUTED)
        if bonus:
            svg.text(x + width - 10, top + 22, bonus, 16, "#2e7d32", "bold", "end")


def _seat_panel(svg: _Svg, game, layout: Layout, seat: int, label: str, viewer: int | None,
                reveal: bool) -> None:
    x0, y0 = layout.panel_origin(seat)
    state = game.state
    current = not game.is_over and seat == game.current_player
    svg.add(f'<g class="seat" data-seat="{seat}">')
    svg.rect(x0, y0, PANEL_WIDTH, PANEL_HEIGHT, "#ffffff", CURRENT if current else "#c9c5b8",
             10, f' stroke-width="{4 if current else 1.2}"')
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    svg.add(f'<circle cx="{x0 + 20}" cy="{y0 + 20}" r="8" fill="{colour}"/>')
    title = label + (" (you)" if viewer == seat and "you" not in label.lower() else "")
    title_size = _fit(title, 19, 300)
    svg.text(x0 + 36, y0 + 26, title, title_size, INK, "bold")
    right = x0 + PANEL_WIDTH - 14
    if game.is_over:
        score = int(s.score_entry(state, seat, s.SCORE_FINAL_POPULATION))
        winner = bool(s.score_entry(state, seat, s.SCORE_WINNER))
        svg.text(right, y0 + 26, f"{'★ winner · ' if winner else ''}final {score}", 19,
                 "#2e7d32" if winner else INK, "bold", "end")
    elif current:
        svg.text(right, y0 + 26, "▶ to play", 17, CURRENT, "bold", "end")
    private = int(s.private_goal(state, seat))
    if (reveal or game.is_over) and private >= 0:  # after the title, before the right end
        goal = f"goal: {GOALS.names[private]}"
        svg.text(x0 + 36 + _text_width(title, title_size) * 1.08 + 14, y0 + 25, goal,
                 _fit(goal, 13, 170), "#c77800", "bold")
    population = int(s.population(state, seat))
    money = int(s.money(state, seat))
    income = int(s.income(state, seat))
    reputation = int(s.reputation(state, seat))
    markers = int(s.markers_left(state, seat))
    if game.is_over:
        goals = (int(s.public_goal_bonuses(state, seat).sum())
                 + int(s.score_entry(state, seat, s.SCORE_PRIVATE_GOAL)))
        before_goals = int(s.score_entry(state, seat, s.SCORE_POPULATION_BEFORE_GOALS))
        converted = int(s.score_entry(state, seat, s.SCORE_MONEY_CONVERTED))
        final = int(s.score_entry(state, seat, s.SCORE_FINAL_POPULATION))
        stats = (f"population {before_goals} + goals {goals} + money {converted} = {final}"
                 f" · ${money} · income {income:+d} · reputation {reputation:+d}")
    else:
        stats = (f"${money} · income {income:+d} · reputation {reputation:+d} · population "
                 f"{population} · red line {red_line_distance(population)} · "
                 f"markers {markers}")
    svg.text(x0 + 14, y0 + 50, stats, _fit(stats, 14.5, PANEL_WIDTH - 28), INK)
    kinds = s.cell_kinds(state, seat).tolist()
    flags = s.cell_flag_row(state, seat).tolist()
    empty = tuple(cell for cell in range(NUM_CELLS)
                  if kinds[cell] < 0 and not flags[cell] & s.FLAG_PLACEABLE)
    if empty:
        svg.add(_empty_cells(x0, y0, empty))
    for cell in range(NUM_CELLS):
        if kinds[cell] >= 0 or flags[cell] & s.FLAG_PLACEABLE:
            svg.add(_cell(x0, y0, seat, cell, kinds[cell], flags[cell] & _DRAWN_FLAGS))
    svg.add("</g>")


_DRAWN_FLAGS = s.FLAG_PLACEABLE | s.FLAG_LAKE | s.FLAG_INVESTED


@lru_cache(maxsize=256)
def _empty_cells(x0: float, y0: float, cells: tuple[int, ...]) -> str:
    """The empty cells no tile can go to yet (R2.4), as one path: the rest of the grid.
    Cached, as `_cell`: a web page draws the same boroughs again at every click."""
    paths = "".join([_empty_hex(x0, y0, cell) for cell in cells])
    return f'<path d="{paths}" fill="{EMPTY_FILL}" stroke="{EMPTY_STROKE}" stroke-width="1"/>'


@lru_cache(maxsize=4096)
def _empty_hex(x0: float, y0: float, cell: int) -> str:
    x, y = _cell_centre(x0, y0, cell)
    return "M" + _hex_points(x, y, HEX_RADIUS - 1.5).replace(" ", " L") + "Z"


@lru_cache(maxsize=8192)
def _cell(x0: float, y0: float, seat: int, cell: int, kind: int, flags: int) -> str:
    """One cell of a borough panel at (x0, y0): a tile, a lake or a placeable cell."""
    svg = _Svg()
    x, y = _cell_centre(x0, y0, cell)
    points = _hex_points(x, y, HEX_RADIUS - 1.5)
    column, row = cell_coordinates(cell)
    if kind < 0:  # only placeable cells: the others are one path (_empty_cells)
        svg.add(f'<g class="cell empty placeable" data-seat="{seat}" data-cell="{cell}" '
                f'data-col="{column}" data-row="{row}">')
        svg.add(f'<polygon points="{points}" fill="{PLACEABLE_FILL}" '
                f'stroke="{PLACEABLE_STROKE}" stroke-width="1.2" stroke-dasharray="4 3"/>')
        svg.text(x, y + 4, f"{column},{row}", 10, "#9b9684", anchor="middle")
        svg.add("</g>")
        return "\n".join(svg.parts)
    lake = bool(flags & s.FLAG_LAKE)
    invested = bool(flags & s.FLAG_INVESTED)
    shown = TILES.lake if lake else kind
    classes = "cell tile" + (" lake" if lake else "") + (" invested" if invested else "")
    svg.add(f'<g class="{classes}" data-seat="{seat}" data-cell="{cell}" data-col="{column}" '
            f'data-row="{row}" data-kind="{shown}">')
    summary = tile_summary(shown) + (" Investment marker: its effects count twice (R7.3)."
                                     if invested else "")
    svg.add(f"<title>{escape(summary)} [{column},{row}]</title>")
    if lake:
        svg.add(f'<polygon points="{points}" fill="{LAKE_FILL}" stroke="#2b8fb8" '
                f'stroke-width="1.5"/>')
        for offset in (-9, 11):
            svg.add(f'<path d="M{x - 18:.1f},{y + offset:.1f} q4.5,-5 9,0 t9,0 t9,0 t9,0" '
                    f'fill="none" stroke="#ffffff" stroke-width="1.6" opacity="0.8"/>')
        svg.text(x, y + 5, "Lake", 12, LAKE_INK, "bold", "middle")
    else:
        type_index = tile_type(TILES.table, kind)
        svg.add(f'<polygon points="{points}" fill="{TYPE_FILLS[type_index]}" stroke="#ffffff" '
                f'stroke-width="1.5"/>')
        icon = tile_icon(TILES.table, kind)
        lines = name_lines(TILES.names[kind])
        spacing = 11.5
        top = y - (len(lines) - 1) * spacing / 2 + 4 - (6 if icon >= 0 else 0)
        shift, narrower = (4, 14) if invested else (0, 0)  # room for the marker
        for index, line in enumerate(lines):
            line_y = top + index * spacing
            half_width = HEX_RADIUS - 2 - abs(line_y - 4 - y) / SQRT3
            svg.text(x - shift, line_y, line, _fit(line, 11, 2 * half_width - 8 - narrower),
                     TYPE_INK[type_index], "bold", "middle")
        if icon >= 0:
            _icon_badge(svg, icon, x, y + 21, 7.5)
    if invested:  # the investment marker at the right corner, clear of the name (R7.3)
        svg.add(f'<circle cx="{x + 27.5:.1f}" cy="{y - 2:.1f}" r="6.5" fill="{MARKER_FILL}" '
                f'stroke="#ffd54f" stroke-width="1.5"/>')
        svg.text(x + 27.5, y + 1.5, "$", 10, "#ffd54f", "bold", "middle")
    svg.add("</g>")
    return "\n".join(svg.parts)


def table_svg(game, viewer: int | None = None, labels: dict[int, str] | None = None,
              reveal: bool = False, seats: tuple[int, ...] | None = None,
              seed_shown: int | None = None) -> str:
    """The whole table as an SVG document (see the module docstring).

    viewer: the seat looking at the table; its own private goal (or drawn goals) is
    shown, nobody else's (R10.2). reveal: show every seat's private goal (finished
    games, replays, games without people). labels: a name per seat (default `Player n`
    and `Dale`). seats: the order of the panels (default 0, 1, ...). seed_shown: a
    seed to print in the title bar (only when it can no longer reveal anything).
    """
    mode = game.config.mode
    order = tuple(seats) if seats is not None else tuple(range(game.num_seats))
    layout = Layout(order)
    names = {seat: (labels or {}).get(seat) or seat_name(mode, seat)
             for seat in range(game.num_seats)}
    svg = _Svg()
    svg.add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{layout.width}" '
            f'height="{layout.height}" viewBox="0 0 {layout.width} {layout.height}" '
            f'font-family="{FONT}" class="suburbia-table">')
    svg.rect(0, 0, layout.width, layout.height, BACKGROUND)
    _title(svg, game, names, seed_shown)
    _market(svg, game)
    _goals(svg, game, viewer, reveal)
    for seat in order:
        _seat_panel(svg, game, layout, seat, names[seat], viewer, reveal)
    svg.add("</svg>")
    return "\n".join(svg.parts)
