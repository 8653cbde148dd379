"""benchmarks/yardsticks.py: results accumulated in chunks of seeded games (a game found
twice counts once, a resumed run goes on at the next seed, the rows equal a direct
tournament on the same seeds) and the table it prints with intervals and paired
differences."""

from __future__ import annotations

import importlib.util
import io
import json

import pytest

from agents.tournament import run_tournament
from repository import REPO

MODEL = str(REPO / "models" / "multiplayer.safetensors")


def _yardsticks():
    spec = importlib.util.spec_from_file_location("yardsticks",
                                                  REPO / "benchmarks" / "yardsticks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


yardsticks = _yardsticks()


def _chunk(key, first, wins):
    return {"key": key, "first_game": first, "wins": wins}


def test_a_game_found_twice_counts_once_and_two_results_are_reported():
    chunks = [_chunk("a", 0, [1.0, 0.0, 0.5]), _chunk("a", 0, [1.0, 0.0, 0.5]),
              _chunk("a", 2, [0.5, 1.0]), _chunk("b", 0, [0.0]), _chunk("a", 3, [0.0, 1.0])]
    rows, conflicts = yardsticks.accumulate(chunks)
    assert rows == {"a": {0: 1.0, 1: 0.0, 2: 0.5, 3: 1.0, 4: 1.0}, "b": {0: 0.0}}
    assert conflicts == [("a", 3, 1.0, 0.0)]


def test_the_next_chunk_is_the_lowest_games_a_row_lacks():
    assert yardsticks.missing_games({}, 10, 4) == [0, 1, 2, 3]
    assert yardsticks.missing_games({0: 1, 1: 0, 3: 1}, 10, 3) == [2, 4, 5]
    assert yardsticks.missing_games({g: 1 for g in range(8)}, 10, 4) == [8, 9]
    assert yardsticks.missing_games({g: 1 for g in range(10)}, 10, 4) == []


def test_a_last_line_cut_short_is_skipped_and_a_bad_line_before_it_named(tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(_chunk("a", 0, [1.0])) + "\n" + '{"key": "a", "first_')
    assert yardsticks.read_chunks(path) == [_chunk("a", 0, [1.0])]
    assert "cut short" in capsys.readouterr().err
    yardsticks.append_lines(path, [_chunk("a", 1, [0.0])])  # after the cut line: dropped
    assert yardsticks.read_chunks(path) == [_chunk("a", 0, [1.0]), _chunk("a", 1, [0.0])]
    path.write_text("not json\n" + json.dumps(_chunk("a", 0, [1.0])) + "\n")
    with pytest.raises(yardsticks.ResultsError, match=r"results.jsonl:1: not a chunk"):
        yardsticks.read_chunks(path)


def test_the_paired_difference_counts_the_games_each_won_alone():
    search = {0: 1.0, 1: 1.0, 2: 0.0, 3: 0.5, 9: 1.0}
    policy = {0: 1.0, 1: 0.0, 2: 1.0, 3: 0.0, 4: 1.0}
    mean, low, high, games, better, worse = yardsticks.paired_difference(search, policy)
    assert (games, better, worse) == (4, 2, 1)
    assert mean == pytest.approx(0.125)
    assert low < mean < high
    assert yardsticks.paired_difference({5: 1.0}, policy) is None


def _run(tmp_path, *extra):
    out = io.StringIO()
    summary = yardsticks.main(["--models", MODEL, "--tables", "2p-greedy", "--workers", "1",
                               "--seed", "123", "--results", str(tmp_path / "r.jsonl"),
                               *extra], out=out)
    return summary, out.getvalue()


@pytest.mark.slow
def test_accumulated_rows_resume_at_the_next_seed_and_equal_a_direct_run(tmp_path):
    summary, _ = _run(tmp_path, "--agents", "policy", "--games", "3", "--chunk", "2")
    assert [entry["games"] for entry in summary] == [3]
    chunks = yardsticks.read_chunks(tmp_path / "r.jsonl")
    assert [(c["first_game"], c["games"]) for c in chunks] == [(0, 2), (2, 1)]

    # Resumed with a higher target: the same command goes on at game 3 (seed + 3).
    summary, text = _run(tmp_path, "--agents", "policy", "--games", "5", "--chunk", "2")
    chunks = yardsticks.read_chunks(tmp_path / "r.jsonl")
    assert [(c["first_game"], c["games"]) for c in chunks] == [(0, 2), (2, 1), (3, 2)]
    assert "+2 games (3..4)" in text
    seed = yardsticks.table_seed("2p-greedy", 123)
    assert {c["table_seed"] for c in chunks} == {seed}

    # The same games played as one tournament on the same seeds.
    direct = run_tournament([f"ppo:{MODEL}", "greedy"], mode="standard", games=5, players=2,
                            seed=seed, workers=1, progress=False)
    wins = [float(row["win"]) for row in direct.rows if row["spec"] == f"ppo:{MODEL}"]
    rows, conflicts = yardsticks.accumulate(chunks)
    assert conflicts == []
    assert [rows[chunks[0]["key"]][game] for game in range(5)] == wins
    entry = summary[0]
    assert entry["games"] == 5 and entry["win_rate"] == pytest.approx(sum(wins) / 5)
    assert 0 <= entry["low"] <= entry["win_rate"] <= entry["high"] <= 1

    # A chunk written twice (a run copied twice into the file) does not count twice.
    path = tmp_path / "r.jsonl"
    path.write_text(path.read_text() + json.dumps(chunks[-1]) + "\n")
    summary, _ = _run(tmp_path, "--agents", "policy", "--games", "5", "--report")
    assert summary[0]["games"] == 5 and summary[0]["win_rate"] == entry["win_rate"]


@pytest.mark.slow
def test_a_search_row_is_paired_with_its_policy_on_the_same_games(tmp_path):
    _run(tmp_path, "--agents", "policy", "--games", "3")
    summary, text = _run(tmp_path, "--agents", "policy", "search", "--games", "2",
                         "--search-settings", ",2,1", "--search-chunk", "1")
    policy, search = summary
    assert (policy["agent"], policy["games"], search["agent"], search["games"]) == (
        "policy", 3, "search", 2)
    rows, _ = yardsticks.accumulate(yardsticks.read_chunks(tmp_path / "r.jsonl"))
    by_agent = {json.loads(key)[4]: games for key, games in rows.items()}
    paired = sum(by_agent["search"][g] - by_agent["policy"][g] for g in (0, 1)) / 2
    assert search["difference"][0] == pytest.approx(paired)
    assert search["difference"][3] == 2
    lines = [line.strip() for line in text.splitlines() if line.startswith("  2p-greedy")]
    assert lines[0].split()[:3] == ["2p-greedy", "policy", "3"]
    assert lines[1].split()[:3] == ["2p-greedy", "search", "2"]
    assert "on 2 (" in lines[1]
    markdown = yardsticks.format_markdown(summary)
    assert "| multiplayer | 2p-greedy | `greedy` | 3: " in markdown


def test_search_rows_of_another_revision_are_kept_apart():
    """A search row's key names the search's revision (value_search.REVISION): games of
    an earlier revision stay in the file but are never pooled with today's."""
    today = yardsticks.row_key("2p-greedy", "search", "d", ",2,1", 20_000_000)
    assert json.loads(today)[5] == f",2,1|revision {yardsticks.SEARCH_REVISION}"
    assert yardsticks.SEARCH_REVISION >= 2
    earlier = json.dumps(json.loads(today)[:5] + [",2,1", "d"])
    rows, _ = yardsticks.accumulate([_chunk(earlier, 0, [1.0, 0.0]),
                                     _chunk(today, 0, [0.0])])
    assert rows[today] == {0: 0.0} and rows[earlier] == {0: 1.0, 1: 0.0}
    policy = yardsticks.row_key("2p-greedy", "policy", "d", ",2,1", 20_000_000)
    assert json.loads(policy)[5] == ""


@pytest.mark.slow
def test_a_goal_prior_row_is_paired_with_its_policy_and_read_against_the_targets(tmp_path):
    summary, text = _run(tmp_path, "--agents", "policy", "goal-prior", "--games", "4")
    policy, prior = summary
    assert (prior["agent"], prior["games"], prior["spec"]) == (
        "goal-prior", 4, f"ppo-goals:{policy['model']}")
    rows, _ = yardsticks.accumulate(yardsticks.read_chunks(tmp_path / "r.jsonl"))
    by_agent = {json.loads(key)[4]: games for key, games in rows.items()}
    paired = sum(by_agent["goal-prior"][g] - by_agent["policy"][g] for g in range(4)) / 4
    assert prior["difference"][0] == pytest.approx(paired)
    assert ">= 0.85" in prior["verdict"] and ">= 0.85" in policy["verdict"]
    assert prior["verdict"].split("; ")[0] in {"goal prior weaker (interval below 0)",
                                               "goal prior stronger (interval above 0)",
                                               "no difference shown"}
    markdown = yardsticks.format_markdown(summary)
    assert "| multiplayer | 2p-greedy | 4: " in markdown.split("goal prior (")[1]


@pytest.mark.slow
def test_two_models_are_compared_on_the_same_deals(tmp_path):
    """`--compare A B`: model A minus model B, the wins of each on the same seeded games,
    written between the document's compare markers; a model not measured is refused."""
    second = str(REPO / "models" / "multiplayer-styles.safetensors")
    out = io.StringIO()
    arguments = ["--tables", "2p-greedy", "--workers", "1", "--seed", "321", "--results",
                 str(tmp_path / "r.jsonl"), "--agents", "policy", "--games", "4"]
    yardsticks.main(["--models", MODEL, second, *arguments], out=out)
    rows, _ = yardsticks.accumulate(yardsticks.read_chunks(tmp_path / "r.jsonl"))
    by_model = {json.loads(key)[6]: games for key, games in rows.items()}
    first_wins, second_wins = (by_model[yardsticks.file_digest(path)]
                               for path in (second, MODEL))
    expected = sum(first_wins[g] - second_wins[g] for g in range(4)) / 4
    document = tmp_path / "doc.md"
    document.write_text(f"a\n{yardsticks.DOC_BEGIN}\n{yardsticks.DOC_END}\n"
                        f"{yardsticks.COMPARE_BEGIN}\nold\n{yardsticks.COMPARE_END}\nb\n")
    out = io.StringIO()
    yardsticks.main(["--models", MODEL, second, *arguments, "--report", "--compare", second,
                     MODEL, "--update-doc", str(document)], out=out)
    line = next(line for line in out.getvalue().splitlines()
                if line.startswith("| 2p-greedy | policy |"))
    assert line.startswith(f"| 2p-greedy | policy | {expected:+.3f} [")
    assert "on 4 (" in line
    text = document.read_text()
    assert line in text and "old" not in text and text.endswith("b\n")
    assert "multiplayer-styles - multiplayer, same games" in text
    with pytest.raises(SystemExit):
        yardsticks.parse(["--models", MODEL, "--compare", second, MODEL])
