"""`suburbia review` and agents/review.py (issue 33, items 1, 2 and 5): one row per decision,
the played move legal where it was played, the search's best move its argmax, the CSV and
the JSON in agreement, the picture written, bad records named, and in-game evaluations
blind to what the viewing seat cannot see (R10.2)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from agents.greedy import GreedyAgent
from agents.review import (MODEL_OF_MODE, DecisionEvaluator, Position, SearchSettings,
                           evaluate_position, redraw_words, review_record, top_moves)
from agents.review_files import CSV_FIELDS, POLICY_SEPARATOR
from agents.value_search import ValueSearchAgent
from hidden_facts import with_other_hidden_facts
from suburbia_env import Game
from suburbia_env.apps.cli import main
from suburbia_env.engine import state_layout as s

SMALL = SearchSettings(candidates=2, samples=2)
MULTIPLAYER = MODEL_OF_MODE["standard"]


def run_cli(argv):
    stdout = io.StringIO()
    status = main([str(arg) for arg in argv], stdin=io.StringIO(""), stdout=stdout)
    return status, stdout.getvalue()


def greedy_game(players: int, seed: int, decisions: int | None = None) -> Game:
    """A seeded game of greedy players, to its end or for `decisions` decisions."""
    game = Game(players=players, seed=seed)
    agent = GreedyAgent()
    while not game.is_over and (decisions is None or len(game.history) < decisions):
        game.apply(agent.act(game))
    return game


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """A short seeded 2-player game reviewed through the command, with small settings."""
    folder = tmp_path_factory.mktemp("review")
    game = greedy_game(2, seed=3)
    record_path = folder / "game.json"
    record_path.write_text(json.dumps(game.record()))
    status, output = run_cli(["review", record_path, "--out", folder / "out", "--candidates",
                              2, "--samples", 2, "--seed", 9])
    assert status == 0, output
    return game, folder / "out", output


@pytest.mark.slow
def test_one_row_per_decision_with_the_played_move_legal_there(reviewed):
    game, out, _output = reviewed
    document = json.loads((out / "decisions.json").read_text())
    decisions = document["decisions"]
    assert len(decisions) == len(game.history)
    replay = Game(2, seed=3)
    for index, (decision, action) in enumerate(zip(decisions, game.history)):
        assert decision["decision"] == index
        assert decision["move"] == action
        assert decision["seat"] == replay.current_player
        assert decision["round"] == replay.round + 1
        assert decision["kind"] == replay.pending_decision
        assert decision["legal_moves"] == len(replay.legal_actions())
        assert replay.is_legal(decision["move"]) and replay.is_legal(decision["best_move"])
        moves = [candidate["move"] for candidate in decision["candidates"]]
        assert decision["move"] in moves and decision["best_move"] in moves
        assert all(replay.is_legal(move) for move in moves)
        assert all(replay.is_legal(top["move"]) for top in decision["policy_top"])
        replay.apply(action)
    assert replay.is_over
    assert document["result"]["winners"] == game.winners


@pytest.mark.slow
def test_the_best_move_is_the_search_argmax_and_costs_are_differences(reviewed):
    _game, out, _output = reviewed
    decisions = json.loads((out / "decisions.json").read_text())["decisions"]
    for decision in decisions:
        scores = [candidate["score"] for candidate in decision["candidates"]]
        best = decision["candidates"][int(np.argmax(scores))]
        assert best["move"] == decision["best_move"]
        assert decision["cost_score"] >= -1e-6
        played = next(c for c in decision["candidates"] if c["move"] == decision["move"])
        assert decision["cost_win_probability"] == pytest.approx(
            best["win_probability"] - played["win_probability"], abs=2e-6)
        assert decision["cost_margin"] == pytest.approx(best["margin"] - played["margin"],
                                                        abs=2e-6)
        assert sum(decision["seat_win_probabilities"]) == pytest.approx(1.0, abs=1e-6)
        if decision["played_is_best"]:
            assert decision["cost_score"] == 0 and decision["cost_margin"] == 0
        if decision["legal_moves"] == 1:
            assert decision["played_is_best"] and len(decision["candidates"]) == 1


@pytest.mark.slow
def test_csv_and_json_agree(reviewed):
    _game, out, _output = reviewed
    decisions = json.loads((out / "decisions.json").read_text())["decisions"]
    with open(out / "decisions.csv", newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == CSV_FIELDS
        rows = list(reader)
    assert len(rows) == len(decisions)
    for row, decision in zip(rows, decisions):
        for field in CSV_FIELDS:
            value = row[field]
            if field == "candidates":
                assert int(value) == len(decision["candidates"])
            elif field == "policy_top":
                assert value == POLICY_SEPARATOR.join(
                    f"{top['move']} = {top['probability']}" for top in decision["policy_top"])
            elif field.startswith("win_probability_seat_"):
                raw = field.endswith("_raw")
                seat = int(field.removesuffix("_raw").rsplit("_", 1)[1])
                expected = decision["seat_win_probabilities_raw" if raw
                                    else "seat_win_probabilities"]
                assert (float(value) == expected[seat]) if seat < len(expected) else value == ""
            elif isinstance(decision[field], bool):
                assert value == str(decision[field])
            elif isinstance(decision[field], (int, float)):
                assert float(value) == decision[field]
            else:
                assert value == decision[field]


@pytest.mark.slow
def test_the_picture_and_the_summary(reviewed):
    from PIL import Image
    game, out, output = reviewed
    picture = out / "win_probability.png"
    assert picture.stat().st_size > 10_000
    with Image.open(picture) as image:
        assert image.format == "PNG" and image.size[0] >= 600 and image.size[1] >= 300
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
        assert len(colours) > 20  # lines and text drawn, not a blank image
    header = json.loads((out / "decisions.json").read_text())
    assert header["format"] == "suburbia-review"
    assert "may use everything" in header["knowledge"] and "R10.2" in header["knowledge"]
    assert header["search"]["redraw_seed"] == 9 and header["search"]["samples"] == 2
    assert "may use everything" in output
    assert "review: playing out decisions 0-" in output  # progress lines
    assert f"review: evaluated {len(game.history)}/{len(game.history)} decisions" in output
    for seat in (0, 1):
        assert f"Seat {seat}: " in output
    mistakes = [line for line in output.splitlines() if line.startswith("  round ")]
    assert 1 <= len(mistakes) <= 6
    decisions = header["decisions"]
    for line in mistakes:
        index = int(line.split("(decision ")[1].split(")")[0])
        assert f"played '{decisions[index]['move']}'" in line
        assert f"best '{decisions[index]['best_move']}'" in line
        assert not decisions[index]["played_is_best"]


@pytest.mark.slow
def test_the_same_seed_gives_the_same_review():
    record = greedy_game(2, seed=4).record()
    first = review_record(record, settings=SMALL, seed=21)
    second = review_record(record, settings=SMALL, seed=21)
    assert [d.candidates for d in first.decisions] == [d.candidates for d in second.decisions]


def test_bad_records_are_named(tmp_path, capsys):
    """Each refusal exits with status 2 and says what is wrong, before any model loads."""
    missing = tmp_path / "missing.json"
    assert run_cli(["review", missing])[0] == 2
    assert "cannot read the game record" in capsys.readouterr().err
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    assert run_cli(["review", path])[0] == 2
    assert "is not JSON" in capsys.readouterr().err
    path.write_text(Game(2, seed=1).to_json())
    assert run_cli(["review", path])[0] == 2
    assert "bad.json: format: 'suburbia-state' is not a game record" in capsys.readouterr().err
    path.write_text(json.dumps([1, 2]))
    assert run_cli(["review", path])[0] == 2
    assert "bad.json: " in capsys.readouterr().err
    game = greedy_game(2, seed=5)
    record = game.record()
    record["actions"][6] = "buy 2 @ 6,8"
    path.write_text(json.dumps(record))
    assert run_cli(["review", path])[0] == 2
    assert "actions[6]: 'buy 2 @ 6,8'" in capsys.readouterr().err
    unfinished = greedy_game(2, seed=5, decisions=10).record()
    path.write_text(json.dumps(unfinished))
    assert run_cli(["review", path])[0] == 2
    error = capsys.readouterr().err
    assert "ends before the game is over" in error and "bad.json" in error
    solitary = Game(1, mode="solitary", seed=1)
    while not solitary.is_over:
        solitary.apply(GreedyAgent().act(solitary))
    path.write_text(json.dumps(solitary.record()))
    assert run_cli(["review", path])[0] == 2
    assert "Solitary Architect (R9.1) has no opponent" in capsys.readouterr().err
    path.write_text(json.dumps(game.record()))
    assert run_cli(["review", path, "--samples", 0])[0] == 2
    assert "samples must be a whole number 1..256, not 0" in capsys.readouterr().err


def _twin_seen_alike(game: Game, viewer: int, seed: int) -> Game:
    """`game` with every fact `viewer` cannot see dealt anew (R10.2)."""
    twin = game.copy()
    twin.redraw_hidden(viewer, redraw_words(np.random.default_rng(seed)))
    return twin


@pytest.mark.slow
@pytest.mark.parametrize("players,decisions", [(2, 9), (4, 14)])
def test_in_game_evaluations_see_only_the_viewing_seat_knowledge(players, decisions):
    """Positions that differ only in what the viewing seat cannot see (another seat's
    private goal, the stack order, One More Round's place) get identical evaluations,
    for the seat to act and for a seat watching; a different seed of the evaluator's own
    redraws changes them (the redraws are used)."""
    game = greedy_game(players, seed=30 + players, decisions=decisions)
    evaluator = DecisionEvaluator(MULTIPLAYER, SearchSettings(candidates=3, samples=3))
    mover = game.current_player
    watcher = (mover + 1) % players
    cases = [(mover, Game.from_state(game.config, with_other_hidden_facts(game.state, 5))),
             (watcher, _twin_seen_alike(game, watcher, 6))]
    moved_by_seed = 0
    for viewer, twin in cases:
        drawn = int(game.state[s.PILE_POSITION])
        assert not np.array_equal(game.state[s.PILE + drawn:s.PILE + game.state[s.PILE_END]],
                                  twin.state[s.PILE + drawn:s.PILE + twin.state[s.PILE_END]])
        others = [p for p in range(players) if p != viewer]
        assert any(game.goal_options(p) != twin.goal_options(p) for p in others)
        first = evaluate_position(game, viewer, seed=77, evaluator=evaluator)
        second = evaluate_position(twin, viewer, seed=77, evaluator=evaluator)
        assert first == second
        assert first.viewer == viewer and first.deciding_seat == mover
        assert "only what the viewing seat can know" in first.knowledge
        assert sum(first.win_probabilities) == pytest.approx(1.0)
        assert [m["move"] for m in first.moves][0] in game.legal_actions_text()
        moved_by_seed += evaluate_position(game, viewer, seed=78, evaluator=evaluator) != first
    assert moved_by_seed >= 1


@pytest.mark.slow
def test_the_evaluation_is_the_released_search():
    """A position's candidate scores are value_search's rollout values with the model at
    every seat, from the same redraws: the review's best move is the search's move."""
    game = greedy_game(2, seed=12, decisions=12)
    settings = SearchSettings(candidates=3, samples=4)
    evaluator = DecisionEvaluator(MULTIPLAYER, settings)
    search = ValueSearchAgent(MULTIPLAYER, candidates=3, samples=4, opponent="model",
                              reward="win_loss", margin_weight=0.5)
    from agents.review import observation_of
    mask = game.legal_action_mask()
    probabilities = evaluator.policy_probabilities(
        observation_of(game.state, game.current_player)[None], mask[None])[0]
    candidates = top_moves(probabilities, mask, 3).astype(np.int32)
    search.reset(40)
    assert search.act(game) in candidates
    search.reset(40)
    expected = search.candidate_values(game.state, candidates)
    words = redraw_words(np.random.default_rng(40))
    evaluation = evaluator.evaluate([Position(game.state, game.current_player, candidates,
                                              words)])[0]
    np.testing.assert_allclose(evaluation.scores, expected, atol=1e-9)
    search.reset(40)
    assert candidates[evaluation.best] == search.act(game)


@pytest.mark.slow
def test_a_game_against_dale_is_reviewed_with_the_baseline(tmp_path):
    """Against Dale (R9.2) only the player decides; the baseline model searches, Dale's
    win probability is drawn beside the player's and no mistakes are listed for him."""
    from agents.review_files import summary_lines, write_review
    game = Game(1, mode="dale", seed=8)
    agent = GreedyAgent()
    while not game.is_over:
        game.apply(agent.act(game))
    review = review_record(game.record(), settings=SMALL, seed=3)
    assert review.model.endswith("baseline.safetensors")
    assert len(review.decisions) == len(game.history)
    assert {decision.seat for decision in review.decisions} == {0}
    assert all(len(d.seat_win_probabilities) == 2 for d in review.decisions)
    assert review.result_win_shares() == [1.0 if seat in game.winners else 0.0
                                          for seat in (0, 1)]
    lines = summary_lines(review)
    assert any(line.startswith("Seat 0: ") for line in lines)
    assert not any(line.startswith("Seat 1") for line in lines)
    json_path, csv_path, picture = write_review(review, tmp_path)
    rows = list(csv.DictReader(open(csv_path, newline="")))
    assert all(row["win_probability_seat_2"] == "" for row in rows)
    assert picture.stat().st_size > 10_000
