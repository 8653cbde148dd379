"""The league (agents/league.py): table design, seat rotation, results and files."""

import csv
import itertools
import json
from collections import Counter

import pytest

from agents.league import (make_league_tasks, run_league, summarise_league, table_lineups,
                           turn_position)
from agents.tournament import TournamentError, agent_labels
from suburbia_env.cli import main as cli_main

FAST = ["random", "greedy", "dale"]


def test_every_agent_meets_every_other_at_each_player_count():
    specs = ["random", "greedy", "dale", "greedy:0.5", "random"]
    tasks = make_league_tasks(specs, (2, 3, 4))
    labels = agent_labels(specs)
    for players in (2, 3, 4):
        met = set()
        for task in tasks:
            if task.players == players:
                names = [label for label, _ in task.lineup]
                met.update(itertools.combinations(sorted(names), 2))
        assert met == set(itertools.combinations(sorted(labels), 2)), players
    games = Counter(task.players for task in tasks)
    assert games == {2: 10 * 2, 3: 10 * 3, 4: 5 * 4}  # C(5,k) tables, k seatings each


def test_a_deal_is_played_with_every_agent_in_every_seat():
    tasks = make_league_tasks(FAST, (3,), rounds=2)
    deals: dict = {}
    for task in tasks:
        deals.setdefault((task.players, task.index), []).append(task)
    assert len(deals) == 2
    for seatings in deals.values():
        assert len({task.seed for task in seatings}) == 1  # the same deal
        for seat in range(3):
            assert sorted(task.lineup[seat][0] for task in seatings) == sorted(FAST)
    assert len({task.seed for task in tasks}) == 2 and len({t.table for t in tasks}) == 6


def test_fewer_agents_than_seats_fill_the_table_in_turn():
    assert table_lineups(2, 4) == [(0, 1, 0, 1)]
    assert table_lineups(4, 4) == [(0, 1, 2, 3)]


def test_games_caps_each_player_count_and_seeds_differ_between_counts():
    tasks = make_league_tasks(FAST, (2, 4), games=5, seed=10)
    assert Counter(task.players for task in tasks) == {2: 5, 4: 5}
    seeds_2 = {task.seed for task in tasks if task.players == 2}
    seeds_4 = {task.seed for task in tasks if task.players == 4}
    assert seeds_2 == {10, 11, 12} and min(seeds_4) == 10 + 2 * 1_000_000


@pytest.mark.parametrize("specs,options,message", [
    (["greedy"], {}, "at least two"),
    (FAST, {"player_counts": (5,)}, "among 2, 3, 4"),
    (FAST, {"rounds": 0}, "at least 1"),
])
def test_bad_leagues_are_refused(specs, options, message):
    with pytest.raises(TournamentError, match=message):
        make_league_tasks(specs, **options)


@pytest.fixture(scope="module")
def small_league():
    return run_league(FAST, (2, 3), rounds=1, seed=5, workers=1, progress=False,
                      keep_records=True)


def test_results_add_up(small_league):
    rows, records, summary, config = small_league
    assert config["games_played"] == 3 * 2 + 1 * 3 and len(records) == 9
    for players, block in summary["player_counts"].items():
        here = [row for row in rows if row["seats"] == players]
        assert block["games"] == len(here) // players
        assert sum(entry["wins"] for entry in block["agents"].values()) == pytest.approx(
            block["games"])  # one win per game, shared ones split (R8.3)
        positions = block["turn_positions"]
        assert sum(entry["wins"] for entry in positions.values()) == pytest.approx(block["games"])
        for label, entry in block["agents"].items():
            own = [row for row in here if row["agent"] == label]
            assert entry["games"] == len(own)
            assert entry["mean_population"] == pytest.approx(
                sum(row["population"] for row in own) / len(own))
            assert entry["low"] <= entry["win_share"] <= entry["high"]
        assert {turn_position(row) for row in here} == set(range(players))
    assert set(summary["ratings"]["ratings"]) == set(FAST)
    assert summary == summarise_league(rows, FAST)


def test_two_workers_give_the_same_league(small_league):
    rows, _, _, _ = run_league(FAST, (2, 3), rounds=1, seed=5, workers=2, progress=False)
    assert rows == small_league[0]


def test_league_command_writes_csv_json_plot_and_records(tmp_path, capsys):
    status = cli_main(["league", "--agents", "random", "greedy", "--players", "2", "3",
                       "--games", "2", "--seed", "3", "--workers", "1", "--no-progress",
                       "--records", "--output-dir", str(tmp_path)])
    assert status == 0
    printed = capsys.readouterr().out
    assert "OpenSkill" in printed and "2 players, 2 games" in printed
    assert "win share by turn position" in printed
    with open(tmp_path / "results.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * 2 + 2 * 3
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["config"]["games_played"] == 4
    assert (tmp_path / "league.png").stat().st_size > 10_000
    records = sorted((tmp_path / "records").glob("*.json"))
    assert len(records) == 4
    assert json.loads(records[0].read_text())["format"] == "suburbia-record"


def test_league_command_names_a_bad_player_count(capsys):
    assert cli_main(["league", "--agents", "random", "greedy", "--players", "6"]) == 2
    assert "among 2, 3, 4" in capsys.readouterr().err
