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


def test_the_hints_count_survives_saving_and_resuming(tmp_path):
    """An unfinished game saved with hints keeps its count (the state's optional field
    `hints_used`); `--resume` goes on with hints and counts on from there, and the final
    screen and the record say the whole count. No search is run: the count is written
    by hand, as three hints asked before the save."""
    from suburbia_env.apps.terminal_saving import save_game
    game = Game(1, "dale", seed=8)
    game.apply(int(game.legal_actions()[0]))  # keep a goal
    saved = tmp_path / "unfinished.json"
    assert save_game(game, saved, 0, hints_used=3) == "your position, not what you cannot see"
    written = json.loads(saved.read_text())
    assert written["format"] == "suburbia-state" and written["hints_used"] == {"0": 3}
    assert written["seed"] is None  # still nothing hidden in the file (R10.2)
    record_path = tmp_path / "end.json"
    stdout = io.StringIO()
    assert main(["play", "--resume", str(saved), "--no-board", "--save-record",
                 str(record_path)], stdin=io.StringIO("1\n" * 400), stdout=stdout) == 0
    output = stdout.getvalue()
    assert "Hints used: 3." in output  # the final screen
    final = json.loads(record_path.read_text())  # a position's game ends as a state
    assert final["hints_used"] == {"0": 3} and Game.from_json(json.dumps(final)).is_over


def test_a_game_saved_without_hints_writes_no_count_and_a_bad_count_is_refused(tmp_path):
    from suburbia_env.apps.terminal_saving import save_game
    from suburbia_env.errors import StateFormatError
    game = Game(2, seed=5)
    path = tmp_path / "plain.json"
    save_game(game, path, 0)
    assert "hints_used" not in json.loads(path.read_text())
    for bad, words in (({"2": 1}, r"hints_used: '2' .*is not a seat 0\.\.1"),
                       ({"0": -4}, r"hints_used\.0: must be a count")):
        document = json.loads(path.read_text()) | {"hints_used": bad}
        with pytest.raises(StateFormatError, match=words):
            Game.from_json(json.dumps(document))
        path.write_text(json.dumps(document))
        assert main(["play", "--resume", str(path)], stdin=io.StringIO("quit\nno\n"),
                    stdout=io.StringIO()) == 2


@pytest.mark.slow
def test_a_hint_asked_after_resuming_counts_on(tmp_path):
    """Save after one hint, resume (no --hints needed: the file says), ask one more: the
    final screen and the record say 2."""
    pytest.importorskip("torch")
    saved = tmp_path / "saved.json"
    stdout = io.StringIO()
    main(["play", "--seed", "8", "--no-board", "--hints"],
         stdin=io.StringIO(f"hint\n1\nsave {saved}\nquit\n"), stdout=stdout)
    assert json.loads(saved.read_text())["hints_used"] == {"0": 1}
    assert "Hints used" not in stdout.getvalue()
    record_path = tmp_path / "end.json"
    stdout = io.StringIO()
    assert main(["play", "--resume", str(saved), "--no-board", "--save-record",
                 str(record_path)], stdin=io.StringIO("hint\n" + "1\n" * 400),
                stdout=stdout) == 0
    output = stdout.getvalue()
    assert output.count("  best: ") == 1 and "Hints used: 2." in output
    assert json.loads(record_path.read_text())["hints_used"] == {"0": 2}


@pytest.mark.slow
def test_the_search_loads_while_the_person_reads_the_board():
    """With hints on, the hints' search and model load in the background from the game's
    start, so the first hint does not wait for them (item 5: a hint within 2 s); a game
    quit at once still ends normally."""
    pytest.importorskip("torch")
    from agents.hints import Hinter
    from suburbia_env.apps.terminal_game import TerminalGame
    stdout = io.StringIO()
    terminal = TerminalGame(Game(1, "dale", seed=8), 0, {}, io.StringIO("quit\nno\n"),
                            stdout, show_board=False, hints=True)
    assert terminal.run() == 0
    terminal._hinter_loading.join(timeout=300)
    assert isinstance(terminal._hinter, Hinter)
    assert "best:" not in stdout.getvalue()  # loaded, but no hint was asked or counted
    assert terminal.hints_used == 0
