"""The words every display says for the same things: seat names by mode, the pending
decision, the attributes, the icons, a hidden goal choice and the next red line.

The text board (render.py), the drawing (drawing.py), the tile texts (tile_text.py),
the terminal game and the web views take them from here, so that Dale is "Dale" and
a turn is "take a turn" wherever a person reads them. The rules stay in the engine:
the next red line is the engine's (R8.1), only worded here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import constants as c
from ..engine.red_lines import next_red_line

# Seats ----------------------------------------------------------------------------------------

DALE = "Dale"
"""The name of Dale the bot's seat (R9.2)."""
YOU = "you"
"""The person's own seat, in the terminal game's sentences."""
NOBODY = "nobody"
"""No seat (an event of the market, not of a player)."""


def is_dale(mode: str, seat: int) -> bool:
    """Whether `seat` is Dale's: seat 1 of the game against Dale (R9.2)."""
    return mode == "dale" and seat == c.DALE_SEAT


def seat_name(mode: str, seat: int) -> str:
    """`Player 0`, ... and `Dale` for Dale's seat: a seat as a title or label."""
    return DALE if is_dale(mode, seat) else f"Player {seat}"


def player_name(mode: str, seat: int) -> str:
    """`player 0`, `Dale`, `nobody` (a seat below 0): a seat inside a sentence."""
    if seat < 0:
        return NOBODY
    return DALE if is_dale(mode, seat) else f"player {seat}"


def seat_with_agent(mode: str, seat: int, agent: str) -> str:
    """`player 1 (greedy)`, `Dale`: a bot's seat with the agent that plays it."""
    return DALE if is_dale(mode, seat) else f"player {seat} ({agent})"


def your_seat_name(seat: int) -> str:
    """`you (player 0)`: the person's seat in the terminal game."""
    return f"{YOU} (player {seat})"


def short_seat_name(mode: str, seat: int, agent: str = "") -> str:
    """`P1 greedy`, `Dale`: a seat in a crowded line (the terminal's panel)."""
    return DALE if is_dale(mode, seat) else f"P{seat} {agent}".rstrip()


def labelled_seat_name(seat: int, agent: str | None = None) -> str:
    """`Player 1 · greedy`, `Player 0`: a seat of the web page with its agent, if any."""
    return f"Player {seat}" if agent is None else f"Player {seat} · {agent}"


# Decisions -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class DecisionWords:
    """One decision (c.DECISION_NAMES) said three ways."""

    brief: str
    """After a seat's name, in the drawing's title: `take a turn`."""
    rules: str
    """With its options and rule ids, on the text board: `take a turn (R5.1: buy, ...)`."""
    yours: str
    """To the person who takes it: `take your turn (R5.1)`."""


DECISION_WORDS = {
    "keep_goal": DecisionWords("keep one of two goals", "keep one of two drawn goals (R3.6)",
                               "keep one of your two drawn goals (R3.6)"),
    "turn": DecisionWords("take a turn",
                          "take a turn (R5.1: buy, basic tile, lake, invest or pass)",
                          "take your turn (R5.1)"),
    "discard": DecisionWords("discard a market tile",
                             "discard a market tile, paying its premium (R5.1b, d)",
                             "discard a market tile, paying its premium (R5.1b, d)"),
    "remove": DecisionWords("remove a market tile",
                            "remove a market tile before the refill (R9.1)",
                            "remove a market tile before the refill (R9.1)"),
}
"""The words of each pending decision but "none" (the game is over), by its name."""

HIDDEN_GOAL_CHOICE = "keeps a private goal"
"""A `keep` as the other seats may read it: which goal was kept is hidden (R10.2)."""


def public_move_words(text: str) -> str:
    """A move (its notation or its words) as every seat may read it (R10.2)."""
    return HIDDEN_GOAL_CHOICE if text.startswith("keep") else text


# Attributes, types and icons -------------------------------------------------------------------

ATTRIBUTE_WORDS = ("income", "reputation", "population", "money")
"""ATTRIBUTE_WORDS[c.ATTR_*]: an attribute spelled out (c.ATTRIBUTE_NAMES are the short
forms of tiles.csv and of the event log: inc, rep, pop, $)."""
TYPE_BRIEF_WORDS = ("res", "com", "civ", "ind")
"""TYPE_BRIEF_WORDS[type]: c.TYPE_NAMES cut short, for an 80-column market line."""
ICON_WORDS = ("restaurant", "airport", "office", "school", "skyscraper", "car dealership")
"""ICON_WORDS[icon]: the icon (R1.4) as a reader says it."""
ICON_BRIEF_WORDS = ICON_WORDS[:-1] + ("car dealer",)
"""ICON_WORDS for an 80-column market line."""
ICON_BADGES = ("FOOD", "AIRPORT", "OFFICE", "SCHOOL", "SKY", "CARS")
"""The badge text of each icon on a drawn tile."""


# The next red line (the engine's red_lines.next_red_line, R8.1) -----------------------------

def red_line_distance(population: int) -> str:
    """`28 (3 away)`: the next red line above `population` and how far it is (R8.1)."""
    line = next_red_line(population)
    return f"{line} ({line - population} away)"
