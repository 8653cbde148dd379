"""The strategy study (issue 33, item 6): its data job writes rows that agree with the
games' records, and the numbers docs/strategy.md and the notebook quote are the ones
scripts/strategy_findings.py computes from the committed data."""

from __future__ import annotations

import gzip
import json
import sys

import nbformat
import numpy as np
import pandas as pd
import pytest

from repository import REPO

sys.path.insert(0, str(REPO / "scripts"))

import strategy_data  # noqa: E402
import strategy_findings  # noqa: E402


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """Three games: 2 players (the model against itself, then against greedy) and 3
    players (against itself), evaluated together, 2 redraws."""
    out = tmp_path_factory.mktemp("strategy")
    arguments = ["--chunks", "1", "--games-per-chunk", "3", "--samples", "2",
                 "--candidates", "2", "--seed", "77", "--out", str(out)]
    assert strategy_data.main(arguments) == 0
    return out, arguments


def read_run(out):
    with gzip.open(out / "games-0000.jsonl.gz", "rt") as handle:
        games = [json.loads(line) for line in handle]
    rows = pd.read_csv(out / "candidates-0000.csv.gz", keep_default_na=False,
                       na_values={"col": [""], "row": [""]})
    return games, rows


@pytest.mark.slow
def test_rows_agree_with_the_game_records(tiny_run):
    from suburbia_env import Game
    out, _ = tiny_run
    games, rows = read_run(out)
    assert [(g["game"], g["seed"], g["players"], g["lineup"]) for g in games] == [
        (0, 77, 2, "self"), (1, 78, 2, "greedy"), (2, 79, 3, "self")]
    assert sorted(games[1]["agents"]) == ["greedy", "model"]
    assert list(rows.columns) == list(strategy_data.COLUMNS)
    for entry in games:
        game = Game.replay(entry["record"])
        assert [s["population"] for s in game.final_scores()] == [
            s["population"] for s in entry["final_scores"]]
        assert game.winners == entry["winners"]
        replay = Game(entry["players"], seed=entry["seed"])
        expected = {}
        for index, text in enumerate(entry["record"]["actions"]):
            kind = replay.pending_decision
            if kind in ("turn", "keep_goal") and len(replay.legal_actions()) > 1:
                expected[index] = (text, replay.round + 1, replay.current_player, kind,
                                   len(replay.legal_actions()))
            replay.apply(text)
        mine = rows[rows["game"] == entry["game"]]
        assert set(mine["decision"]) == set(expected)  # every such decision, no other
        for decision, part in mine.groupby("decision"):
            text, round_number, seat, kind, legal = expected[decision]
            played = part[part["played"] == 1]
            assert len(played) == 1 and played["move"].iloc[0] == text
            assert (part["best"] == 1).sum() == 1
            first = part.iloc[0]
            assert (first["round"], first["seat"], first["decision_kind"],
                    first["legal_moves"]) == (round_number, seat, kind, legal)
            assert first["agent"] == entry["agents"][seat]
            assert part["move"].is_unique and 2 <= len(part) <= 2 + 1 + 4
            best = part[part["best"] == 1].iloc[0]
            assert best["score"] == part["score"].max()
            assert np.isclose(first["value_win"], best["win"], atol=1e-3)
    assert rows["win"].between(0, 1).all() and rows["value_win"].between(0, 1).all()
    assert rows["margin"].abs().max() < 200
    assert rows["policy_probability"].between(0, 1).all()
    turns = rows[rows["decision_kind"] == "turn"]
    assert set(turns["move_kind"]) <= {"buy", "lake", "basic", "invest", "pass"}
    assert "lake" in set(turns["move_kind"]) and "buy" in set(turns["move_kind"])
    keeps = rows[rows["decision_kind"] == "keep_goal"]
    assert len(keeps) == (2 + 2 + 3) * 2 and set(keeps["move_kind"]) == {"keep"}
    assert (keeps["move"] == "keep " + keeps["tile"]).all()


@pytest.mark.slow
def test_a_finished_chunk_is_not_made_again(tiny_run):
    out, arguments = tiny_run
    before = (out / "candidates-0000.csv.gz").stat().st_mtime_ns
    assert strategy_data.main(arguments) == 0
    assert (out / "candidates-0000.csv.gz").stat().st_mtime_ns == before
    assert not list(out.glob("*.part"))


def test_lineups_rotate_the_seats_of_the_two_agents():
    assert strategy_data.lineup_of(0) == (2, "self", ["model", "model"])
    assert strategy_data.lineup_of(1) == (2, "greedy", ["model", "greedy"])
    assert strategy_data.lineup_of(9) == (2, "greedy", ["greedy", "model"])
    assert strategy_data.lineup_of(7) == (4, "greedy", ["model", "greedy"] * 2)


def test_wilson_and_bootstrap_intervals():
    low, high = strategy_findings.wilson(50, 100)
    assert round(low, 3) == 0.404 and round(high, 3) == 0.596
    result = strategy_findings.bootstrap_mean([1.0, 1.0, 3.0, 3.0], [0, 0, 1, 1])
    assert result["mean"] == 2.0 and result["games"] == 2
    assert 1.0 <= result["low"] <= 2.0 <= result["high"] <= 3.0


@pytest.fixture(scope="module")
def computed():
    return strategy_findings.compute()


@pytest.fixture(scope="module")
def committed(computed):
    findings, tables = computed
    return strategy_findings.findings_document(findings, tables)


def test_the_findings_file_is_what_the_committed_data_gives(committed):
    written = json.loads(strategy_findings.FINDINGS_FILE.read_text())
    assert written == json.loads(json.dumps(committed))


def test_the_page_quotes_every_finding_as_computed(committed):
    page = (REPO / "docs" / "strategy.md").read_text()
    for key, finding in committed["findings"].items():
        assert finding["text"] in page, key
    data = committed["data"]
    assert f"{data['games']} games" in page and f"{data['decisions']} decisions" in page


def test_the_notebook_is_committed_executed_on_the_committed_data(committed):
    notebook = nbformat.read(REPO / "notebooks" / "strategy.ipynb", as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.outputs and cell.execution_count for cell in code)
    text = "\n".join(output.get("text", "") for cell in code for output in cell.outputs)
    for finding in committed["findings"].values():
        assert finding["text"] in text
    images = sum("image/png" in output.get("data", {}) for cell in code
                 for output in cell.outputs)
    assert images >= 5


def test_a_folder_of_other_settings_is_refused(tmp_path):
    """Chunk numbers say which games a chunk holds only for one chunk size and seed: a
    resume with others would mix games, so it is refused before anything is played."""
    entry = {"settings": {"games_per_chunk": 2, "seed": 330000, "samples": 4,
                          "candidates": 3}}
    with gzip.open(tmp_path / "games-0000.jsonl.gz", "wt") as handle:
        handle.write(json.dumps(entry) + "\n")
    with pytest.raises(SystemExit, match="games_per_chunk.*3"):
        strategy_data.main(["--out", str(tmp_path), "--games-per-chunk", "3"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games-0000.jsonl.gz"]


def test_the_takeaways_are_written_from_the_findings(computed, committed):
    """The page's "What to take away" is what the script writes from the committed
    findings, and every sign its wording relies on is borne out by them."""
    findings, _ = computed
    assert strategy_findings.check_takeaways(findings) == []
    page = (REPO / "docs" / "strategy.md").read_text()
    block = page.split(strategy_findings.TAKEAWAY_START, 1)[1].split(
        strategy_findings.TAKEAWAY_END, 1)[0]
    assert block.strip() == strategy_findings.takeaway_markdown(findings).strip()
    assert 8 <= len(committed["takeaways"]) <= 16
    assert page.index("## What to take away") < page.index("## Findings")
    market = [item for key, item in findings.items.items()
              if key.startswith("market_") and item["established"]]
    best = max(market, key=lambda item: item["mean"])
    assert strategy_findings.interval_text(best) in block
    assert committed["takeaways"][-1].startswith("**Not established:**")


def test_a_claim_the_data_no_longer_bears_out_is_reported():
    findings = strategy_findings.Findings()
    findings.add("lake_money_0", {"mean": -1.0, "low": -2.0, "high": -0.5, "n": 50,
                                  "games": 20}, "A lake with $0-4 in hand: ...", True)
    findings.add("red_line_5-8", {"mean": 1.0, "low": 0.5, "high": 1.5, "n": 50,
                                  "games": 20}, "Crossing a red line in rounds 5-8: ...", True)
    wrong = strategy_findings.check_takeaways(findings)
    assert any(line.startswith("lake_money_0: expected +") for line in wrong)
    assert any(line.startswith("red_line_5-8: expected 0") for line in wrong)
    assert any(line == "invest_overall: missing" for line in wrong)
    assert "lake_money_0 > lake_money_5: not borne out" in wrong


def test_the_market_comparison_is_against_the_mean_of_the_other_tiles():
    rows = pd.DataFrame({
        "game": [0, 0, 0, 0, 1, 1], "decision": [3, 3, 3, 3, 5, 5],
        "decision_kind": ["turn"] * 6,
        "move_kind": ["buy", "buy", "buy", "lake", "buy", "basic"],
        "tile": ["A", "B", "C", "", "A", "Suburbs"], "margin": [4.0, 1.0, -2.0, 9.0, 3.0, 0.0],
    })
    buys = strategy_findings.market_buys(rows).set_index("tile")
    assert list(buys.index) == ["A", "B", "C"]  # game 1 has a single market tile: left out
    assert buys.loc["A", "market_margin"] == 4.0 - (1.0 - 2.0) / 2
    assert buys.loc["C", "market_margin"] == -2.0 - (4.0 + 1.0) / 2


def test_a_rate_per_step_weights_each_decision_by_its_steps():
    result = strategy_findings.bootstrap_ratio([2.0, 6.0, 3.0], [1.0, 3.0, 1.0], [0, 0, 1])
    assert result["mean"] == 11.0 / 5.0 and result["n"] == 3 and result["games"] == 2
    assert 2.0 <= result["low"] <= result["mean"] <= result["high"] <= 3.0
