"""Calibration of the review's win probabilities (issue 33, item 4; agents/calibration.py,
agents/calibration_data.py, docs/calibration.md): the measures on inputs with known
answers, a fitted map monotone and into [0, 1], the review's files carrying the
calibrated and the raw values, and the data job end to end on two small games."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from agents.calibration import (MAPS_FORMAT, MAPS_VERSION, IDENTITY, bin_index,
                                calibration_error, calibration_for, checked_curve,
                                file_sha256, isotonic_knots, reliability, renormalised)
from agents.calibration_data import (CONDITIONS, FIT_SEED_BASE, HELD_OUT_SEED_BASE,
                                     game_seed, play_game, read_lines, run,
                                     sampled_decisions)
from agents.hints import hint
from agents.review import MODEL_OF_MODE, DecisionEvaluator, SearchSettings, review_record
from agents.review_files import CSV_FIELDS, review_document, write_review
from repository import REPO
from suburbia_env import Game
from suburbia_env.errors import ConfigError

SMALL = SearchSettings(candidates=2, samples=2)


def test_bins_are_equal_width_with_one_in_the_last():
    assert bin_index(np.array([0.0, 0.0999, 0.1, 0.55, 0.9999, 1.0]), 10).tolist() == [
        0, 0, 1, 5, 9, 9]


def test_the_calibration_error_of_known_inputs():
    assert calibration_error(np.full(10, 0.7), np.array([1.0] * 7 + [0.0] * 3)) == \
        pytest.approx(0.0)
    assert calibration_error(np.full(10, 0.05), np.ones(10)) == pytest.approx(0.95)
    reported = np.array([0.15] * 4 + [0.85] * 6)
    outcome = np.array([1, 1, 0, 0, 1, 1, 1, 0, 0, 0], dtype=float)
    # each bin is off by 0.35: 0.4 * 0.35 + 0.6 * 0.35
    assert calibration_error(reported, outcome) == pytest.approx(0.35)
    # errors of opposite sign in one bin cancel: a bin compares means
    assert calibration_error(np.array([0.31, 0.39]), np.array([0.35, 0.35])) == \
        pytest.approx(0.0)


def test_reliability_bins_and_the_bootstrap_over_games():
    reported = np.array([0.15, 0.15, 0.85, 0.85, 0.85, 0.85])
    outcome = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    games = np.array([1, 1, 2, 2, 3, 3])
    bins, error, (low, high) = reliability(reported, outcome, games, bins=10,
                                           resamples=200, seed=1)
    assert [b.count for b in bins] == [0, 2, 0, 0, 0, 0, 0, 0, 4, 0]
    assert bins[1].mean_outcome == 0.0 and bins[8].mean_outcome == 0.5
    assert bins[1].low_outcome == bins[1].high_outcome == 0.0  # one game, one outcome
    assert bins[8].low_outcome == bins[8].high_outcome == 0.5  # each game wins half
    assert error == pytest.approx((2 * 0.15 + 4 * 0.35) / 6)
    assert low <= error <= high
    assert np.isnan(bins[0].mean_outcome) and np.isnan(bins[0].low_outcome)


def test_isotonic_knots_pool_adjacent_violators():
    raw = np.array([0.1, 0.1, 0.2, 0.2, 0.3, 0.3])
    outcome = np.array([1.0, 0.0, 0.0, 0.2, 1.0, 0.8])  # means 0.5, 0.1, 0.9
    assert isotonic_knots(raw, outcome, levels=10) == [
        [0.0, 0.3], [0.1, 0.3], [0.2, 0.3], [0.3, 0.9], [1.0, 0.9]]
    knots = isotonic_knots(np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0]))
    assert knots == [[0.0, 0.0], [0.5, 1.0], [1.0, 1.0]]
    # values within one level are one knot, at their mean
    knots = isotonic_knots(np.array([0.49, 0.51, 0.9]), np.array([0.0, 1.0, 1.0]), levels=4)
    assert knots == [[0.0, 0.5], [0.5, 0.5], [0.9, 1.0], [1.0, 1.0]]


def test_bad_knots_are_refused_with_the_reason():
    with pytest.raises(ConfigError, match="rise strictly from 0 to 1"):
        checked_curve([[0.1, 0.0], [1.0, 1.0]], "maps[0]")
    with pytest.raises(ConfigError, match="non-decreasing"):
        checked_curve([[0.0, 0.5], [1.0, 0.4]], "maps[0]")
    with pytest.raises(ConfigError, match="within"):
        checked_curve([[0.0, 0.5], [1.0, 1.4]], "maps[0]")
    with pytest.raises(ConfigError, match="list of"):
        checked_curve("nonsense", "maps[0]")


def test_rows_are_renormalised_to_sum_as_the_raw_ones():
    mapped = np.array([[0.6, 0.6], [0.0, 0.0]])
    raw = np.array([[0.7, 0.3], [0.5, 0.5]])
    assert renormalised(mapped, raw).tolist() == [[0.5, 0.5], [0.5, 0.5]]


def write_maps(path, knots, mode="standard", seats=2) -> None:
    """A maps file with one curve for the released model of `mode`."""
    document = {"format": MAPS_FORMAT, "version": MAPS_VERSION,
                "maps": [{"model": MODEL_OF_MODE[mode].name,
                          "model_sha256": file_sha256(MODEL_OF_MODE[mode]), "mode": mode,
                          "seats": seats, "games": 3, "points": 30, "knots": knots}]}
    path.write_text(json.dumps(document))


def test_a_fitted_map_is_monotone_into_the_unit_interval_and_sums_to_one(tmp_path):
    generator = np.random.default_rng(11)
    for seats in (2, 3, 4):
        raw = generator.dirichlet(np.ones(seats), size=300)
        # outcomes drawn as if the truth were flatter than reported
        truth = 0.5 * raw + 0.5 / seats
        winners = np.array([generator.choice(seats, p=row) for row in truth])
        outcome = np.eye(seats)[winners]
        knots = isotonic_knots(raw.ravel(), outcome.ravel())
        path = tmp_path / f"maps{seats}.json"
        write_maps(path, knots, seats=seats)
        calibration = calibration_for(MODEL_OF_MODE["standard"], path)
        assert calibration.describe("standard", seats)["fitted_games"] == 3
        assert calibration.describe("standard", seats + 1) is None
        (key, curve), = calibration.curves.items()
        values = curve(np.linspace(0.0, 1.0, 1001))
        assert np.all(np.diff(values) >= 0.0)
        assert values.min() >= 0.0 and values.max() <= 1.0
        assert values[-1] < 0.95 and values[0] > 0.0  # flattened, as the truth is
        mapped = calibration.apply("standard", seats, raw)
        assert np.allclose(mapped.sum(axis=1), 1.0)
        assert np.all((mapped >= 0.0) & (mapped <= 1.0))
        assert calibration_error(mapped.ravel(), outcome.ravel()) < \
            calibration_error(raw.ravel(), outcome.ravel())
        # another mode or seat count is left as it is
        assert np.array_equal(calibration.apply("dale", 2, raw[:, :2]), raw[:, :2])


def test_a_map_applies_only_to_the_model_it_was_fitted_for(tmp_path):
    other = tmp_path / "other.safetensors"
    other.write_bytes(b"not the released model")
    assert calibration_for(other) is IDENTITY
    assert calibration_for(MODEL_OF_MODE["standard"], tmp_path / "missing.json") is IDENTITY
    bad = tmp_path / "maps.json"
    bad.write_text(json.dumps({"format": MAPS_FORMAT, "version": 99, "maps": []}))
    with pytest.raises(ConfigError, match="version 99"):
        calibration_for(MODEL_OF_MODE["standard"], bad)


def test_fitting_and_held_out_seeds_never_meet():
    fitting = {game_seed("fit", c, g) for c in CONDITIONS for g in (0, 999)}
    held_out = {game_seed("held-out", c, g) for c in CONDITIONS for g in (0, 999)}
    assert not fitting & held_out
    assert min(fitting) == FIT_SEED_BASE and min(held_out) == HELD_OUT_SEED_BASE
    with pytest.raises(ValueError):
        game_seed("fit", CONDITIONS[0], 1000)


def test_decisions_are_sampled_evenly_over_the_thirds():
    chosen = sampled_decisions(42, 6, seed=5)
    assert chosen == sorted(set(chosen)) and len(chosen) == 6
    assert [sum(1 for c in chosen if c // 14 == third) for third in range(3)] == [2, 2, 2]
    assert chosen == sampled_decisions(42, 6, seed=5)
    assert len(sampled_decisions(4, 6, seed=5)) == 4


def greedy_record(players: int, seed: int) -> dict:
    from agents.greedy import GreedyAgent
    game = Game(players=players, seed=seed)
    agent = GreedyAgent()
    while not game.is_over:
        game.apply(agent.act(game))
    return game.record()


@pytest.mark.slow
def test_the_review_files_carry_calibrated_and_raw_values(tmp_path):
    record = greedy_record(2, seed=3)
    maps = tmp_path / "maps.json"
    write_maps(maps, [[0.0, 0.1], [0.5, 0.5], [1.0, 0.9]])
    evaluator = DecisionEvaluator(MODEL_OF_MODE["standard"], SMALL)
    evaluator.calibration = calibration = calibration_for(MODEL_OF_MODE["standard"], maps)
    review = review_record(record, seed=4, evaluator=evaluator)
    assert review.calibration["file"] == "maps.json" and review.calibration["seats"] == 2
    write_review(review, tmp_path / "out")
    document = json.loads((tmp_path / "out" / "decisions.json").read_text())
    assert document["version"] == 2 and document["calibration"] == review.calibration
    changed = 0
    for entry in document["decisions"]:
        raw = np.array(entry["seat_win_probabilities_raw"])
        expected = calibration.apply("standard", 2, raw[None])[0]
        assert entry["seat_win_probabilities"] == pytest.approx(expected, abs=2e-6)
        assert sum(entry["seat_win_probabilities"]) == pytest.approx(1.0, abs=1e-5)
        changed += not np.allclose(expected, raw)
        for candidate in entry["candidates"]:
            assert {"win_probability", "win_probability_raw"} <= set(candidate)
        played = entry["candidates"][[c["move"] for c in entry["candidates"]]
                                     .index(entry["move"])]
        assert entry["win_probability_played_raw"] == played["win_probability_raw"]
        assert entry["win_probability_played"] == played["win_probability"]
    assert changed > 0  # the map is not the identity on this game
    # a hint reports the calibrated value, the raw one beside it (two seats: the map's
    # values of a seat and of its opponent sum to 1, so no division moves them)
    game = Game(players=2, seed=3)
    for text in record["actions"][:6]:
        game.apply(game.action_number(text))
    answer = hint(game, game.current_player, seed=5, evaluator=evaluator)
    for move in answer["moves"]:
        assert move["win_probability"] == pytest.approx(
            0.1 + 0.8 * move["win_probability_raw"], abs=2e-4)
    with open(tmp_path / "out" / "decisions.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_FIELDS
    for row, entry in zip(rows, document["decisions"]):
        assert float(row["win_probability_seat_0_raw"]) == \
            entry["seat_win_probabilities_raw"][0]
        assert float(row["win_probability_seat_1"]) == entry["seat_win_probabilities"][1]
        assert row["win_probability_seat_2_raw"] == ""
    # a review of chosen decisions gives them what the whole review gives them
    only = review_record(record, seed=4, evaluator=evaluator, only=[3, 20])
    assert [d.index for d in only.decisions] == [3, 20]
    for decision in only.decisions:
        whole = review.decisions[decision.index]
        assert decision.seat_win_probabilities_raw == whole.seat_win_probabilities_raw
        assert decision.candidates == whole.candidates
    assert review_document(only)["record"]["decisions"] == 2
    # the move played alone gets the values it gets among the candidates
    played = review_record(record, seed=4, evaluator=evaluator, only=[3, 20],
                           played_only=True)
    for decision in played.decisions:
        whole = review.decisions[decision.index]
        assert decision.seat_win_probabilities_raw == whole.seat_win_probabilities_raw
        assert decision.candidates == [whole.candidates[whole.played]]
    # without a curve for the model the values are the raw ones, and the files say so
    evaluator.calibration = IDENTITY
    plain = review_record(record, seed=4, evaluator=evaluator, only=[3])
    assert plain.calibration is None and review_document(plain)["calibration"] is None
    assert plain.decisions[0].seat_win_probabilities == \
        plain.decisions[0].seat_win_probabilities_raw


@pytest.mark.slow
def test_the_data_job_end_to_end_on_two_small_games(tmp_path):
    said = []
    written = run(tmp_path, 0, 1, 3, ["standard-2-self"], ["fit", "held-out"], SMALL,
                  say=lambda text, **_: said.append(text))
    assert written == 2 and len(said) == 2
    fitting, held_out = read_lines(tmp_path, "fit"), read_lines(tmp_path, "held-out")
    assert len(fitting) == len(held_out) == 3
    assert {line["game_seed"] for line in fitting} == {FIT_SEED_BASE}
    assert {line["game_seed"] for line in held_out} == {HELD_OUT_SEED_BASE}
    condition = CONDITIONS[0]
    evaluator = DecisionEvaluator(MODEL_OF_MODE["standard"], SMALL)
    game = play_game(condition, FIT_SEED_BASE, [0, 1], evaluator)
    outcome = [1.0 / len(game.winners) if seat in game.winners else 0.0 for seat in (0, 1)]
    decisions = [line["decision"] for line in fitting]
    assert decisions == sampled_decisions(len(game.history), 3, FIT_SEED_BASE)
    review = review_record(game.record(), seed=FIT_SEED_BASE, evaluator=evaluator,
                           only=decisions)
    for line, decision in zip(fitting, review.decisions):
        assert line["raw"] == pytest.approx(decision.seat_win_probabilities_raw, abs=1e-6)
        assert sum(line["raw"]) == pytest.approx(1.0, abs=1e-5)
        assert line["outcome"] == outcome
        assert line["samples"] == 2 and line["model_seats"] == [0, 1]
        assert line["decisions"] == len(game.history)
    assert run(tmp_path, 0, 1, 3, ["standard-2-self"], ["fit", "held-out"], SMALL,
               say=lambda text, **_: said.append(text)) == 0  # resumes: nothing left
    # the figures: fitted on the fitting game, measured on the held-out one
    maps = tmp_path / "maps.json"
    done = subprocess.run([sys.executable, "benchmarks/calibration.py", "--data", tmp_path,
                           "--fit", "--maps", maps, "--images", tmp_path, "--resamples",
                           "20"], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "3 fitting decisions (1 games), 3 held-out decisions (1 games)" in done.stdout
    assert re.search(r"2 players +all +6 +1 +\d\.\d{3}", done.stdout)
    (entry,) = json.loads(maps.read_text())["maps"]
    assert (entry["mode"], entry["seats"], entry["games"], entry["points"]) == (
        "standard", 2, 1, 6)
    assert (tmp_path / "calibration_reliability.png").stat().st_size > 10000
