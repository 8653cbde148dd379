"""One vocabulary of display words (display/vocabulary.py) and one decoder of action
numbers (engine/action_space.py), used everywhere (issue 31): the words themselves, the
displays saying them alike, and a scan of the sources that fails when a module spells
a seat name, decodes an action number or works out the next red line on its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from suburbia_env import Game
from suburbia_env.display import vocabulary as v
from suburbia_env.display.drawing import table_svg
from suburbia_env.display.render import render_game
from suburbia_env.engine.red_lines import red_line_value, red_lines_at_or_below

PACKAGE = Path(v.__file__).resolve().parents[1]
SOURCES = sorted(PACKAGE.rglob("*.py")) + sorted((PACKAGE.parent / "agents").glob("*.py"))


@pytest.mark.parametrize("mode, seat, name, in_sentence", [
    ("dale", 1, "Dale", "Dale"), ("dale", 0, "Player 0", "player 0"),
    ("standard", 1, "Player 1", "player 1"), ("solitary", 0, "Player 0", "player 0"),
])
def test_seat_names_by_mode_r9_2(mode, seat, name, in_sentence):
    assert v.seat_name(mode, seat) == name
    assert v.player_name(mode, seat) == in_sentence
    assert v.player_name(mode, -1) == "nobody"
    assert v.seat_with_agent(mode, seat, "greedy") == \
        ("Dale" if name == "Dale" else f"player {seat} (greedy)")
    assert v.short_seat_name(mode, seat, "greedy") == \
        ("Dale" if name == "Dale" else f"P{seat} greedy")
    assert v.your_seat_name(seat) == f"you (player {seat})"
    assert v.labelled_seat_name(seat, "greedy") == f"Player {seat} · greedy"


def test_every_decision_but_none_has_its_words():
    from suburbia_env.engine.constants import DECISION_NAMES
    assert set(v.DECISION_WORDS) == set(DECISION_NAMES) - {"none"}
    assert v.DECISION_WORDS["turn"].brief == "take a turn"
    assert v.DECISION_WORDS["turn"].yours == "take your turn (R5.1)"


@pytest.mark.parametrize("population", [0, 14, 15, 21, 22, 94, 95, 98, 100, 101, 150])
def test_the_next_red_line_is_the_engines_r8_1(population):
    line = int(red_line_value(red_lines_at_or_below(population)))
    assert v.next_red_line(population) == line > population
    assert v.red_line_distance(population) == f"{line} ({line - population} away)"


def test_the_board_and_the_drawing_name_dales_seat_and_the_decision_alike():
    game = Game(1, "dale", seed=3)
    game.apply("keep " + game.goal_options(0)[0])
    board, drawing = render_game(game), table_svg(game)
    assert "Player 0 to decide: take a turn (R5.1: buy, basic tile, lake, invest or pass)" \
        in board
    assert "Player 0 to play: take a turn" in drawing
    assert "\nDale\n" in board and ">Dale<" in drawing


def test_a_hidden_goal_choice_is_worded_alike():
    assert v.public_move_words("keep Investor") == "keeps a private goal"
    assert v.public_move_words("keeps Investor as private goal") == "keeps a private goal"
    assert v.public_move_words("buy 3 @ -1,0") == "buy 3 @ -1,0"


def _lines_matching(pattern: str, allowed: set[str], engine: bool = True) -> list[str]:
    found = []
    for path in SOURCES:
        name = path.relative_to(PACKAGE.parent).as_posix()
        if name in allowed or (not engine and name.startswith("suburbia_env/engine/")):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(pattern, line) and not line.lstrip().startswith("#"):
                found.append(f"{name}:{number}: {line.strip()}")
    return found


def test_no_module_but_the_vocabulary_spells_dales_seat_name():
    assert _lines_matching(r"\"Dale\"", {"suburbia_env/display/vocabulary.py"}) == []


def test_the_next_red_line_is_worked_out_once_and_worded_once_r8_1():
    """engine/red_lines.py works it out (R8.1); above the engine only the vocabulary
    asks it, and every display words it through the vocabulary."""
    assert _lines_matching(r"red_line_value\(red_lines_at_or_below",
                           {"suburbia_env/engine/red_lines.py"}) == []
    assert _lines_matching(r"red_lines import.*\bnext_red_line\b",
                           {"suburbia_env/display/vocabulary.py"}, engine=False) == []


def test_no_module_but_action_space_decodes_or_encodes_action_numbers():
    """Only ACTION_PASS, a single number, may be named elsewhere: every block start
    (ACTION_BUY ... ACTION_KEEP_GOAL) is the decoder's."""
    blocks = r"\bACTION_(BUY|LAKE|BASIC|INVEST|DISCARD|REMOVE|KEEP_GOAL)\b"
    assert _lines_matching(blocks, {"suburbia_env/engine/action_space.py"}) == []
