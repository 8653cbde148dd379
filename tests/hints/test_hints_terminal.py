"""The terminal game's `hint` command (`suburbia play --hints`, issue 33 item 3): off by
default, the search's moves printed best first, counted on the final screen and in the
record."""

import io
import json
import re

import pytest

from suburbia_env import Game
from suburbia_env.apps.cli import main


def test_hint_is_refused_when_off():
    stdout = io.StringIO()
    assert main(["play", "--seed", "3", "--no-board"], stdin=io.StringIO("hint\nquit\nno\n"),
                stdout=stdout) == 0
    output = stdout.getvalue()
    assert "Hints are off in this game: start it with 'suburbia play --hints'." in output
    assert "best:" not in output and "Hints used" not in output


def test_hints_in_solitary_are_refused_naming_why(capsys):
    status = main(["play", "--mode", "solitary", "--hints"], stdin=io.StringIO("quit\n"),
                  stdout=io.StringIO())
    assert status == 2
    assert "--hints: Solitary Architect (R9.1) has no opponent" in capsys.readouterr().err


@pytest.mark.slow
def test_the_hint_command_prints_the_moves_and_is_counted(tmp_path):
    pytest.importorskip("torch")
    record_path = tmp_path / "game.json"
    stdout = io.StringIO()
    typed = "hint\n" + "1\n" + "hint\n" + "1\n" * 400
    assert main(["play", "--seed", "8", "--no-board", "--hints", "--save-record",
                 str(record_path)], stdin=io.StringIO(typed), stdout=stdout) == 0
    output = stdout.getvalue()
    game = Game(1, "dale", seed=8)
    first = output[:output.index("player 0>", output.index("best:"))]
    best = re.search(r"best: (.+)  win (\d+)%, margin ([-+][\d.]+) \(policy", first)
    assert best is not None, first
    assert best[1] in game.legal_actions_text()  # a keep of one of the person's goals
    assert output.count("  best: ") == 2
    assert "Hints used: 2." in output
    record = json.loads(record_path.read_text())
    assert record["hints_used"] == {"0": 2}
    assert Game.replay(record).is_over
