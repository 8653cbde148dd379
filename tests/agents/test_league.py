"""The league (agents/league.py): table design, seat rotation, results and files."""

import csv
import itertools
import json
import re
from collections import Counter

import pytest

from agents.league import (format_league, games_per_pairing, league_markdown,
                           make_league_tasks, provenance, run_league, summarise_league,
                           table_lineups, turn_position)
from agents.league_dataset import (DATASET_FORMAT, dataset_entries, read_dataset,
                                   write_dataset)
from agents.league_rating import rate_league
from agents.registry import model_file_of
from agents.tournament import TournamentError, agent_labels
from repository import REPO
from suburbia_env import Game
from suburbia_env.apps.cli import main as cli_main
from suburbia_env.errors import StateFormatError
from suburbia_env.versions import RULES_REVISION

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


def test_league_command_writes_csv_json_plot_markdown_and_the_dataset(tmp_path, capsys):
    status = cli_main(["league", "--agents", "random", "greedy", "--players", "2", "3",
                       "--games", "2", "--seed", "3", "--workers", "1", "--no-progress",
                       "--records", str(tmp_path / "dataset"), "--output-dir",
                       str(tmp_path / "out")])
    assert status == 0
    printed = capsys.readouterr().out
    assert "OpenSkill" in printed and "2 players, 2 games, 2 games per pair of agents" in printed
    assert "win share by turn position" in printed
    with open(tmp_path / "out" / "results.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * 2 + 2 * 3
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["config"]["games_played"] == 4
    assert summary["config"]["provenance"]["rules"] == RULES_REVISION
    assert (tmp_path / "out" / "league.png").stat().st_size > 10_000
    markdown = (tmp_path / "out" / "league.md").read_text()
    assert "| `greedy` |" in markdown and "| turn position | 1 | 2 | 3 |" in markdown
    entries = read_dataset(tmp_path / "dataset")
    assert [entry["table"] for entry in entries] == [0, 1, 2, 3]
    lines = (tmp_path / "dataset" / "games.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["record"]["format"] == "suburbia-record"
    for entry in entries:
        seats = [row for row in rows if int(row["table"]) == entry["table"]]
        assert entry["agents"] == [row["agent"] for row in seats]
        assert [score["population"] for score in entry["scores"]] == [
            int(row["population"]) for row in seats]
        assert entry["seed"] == int(seats[0]["seed"])


def test_league_command_names_a_bad_player_count(capsys):
    assert cli_main(["league", "--agents", "random", "greedy", "--players", "6"]) == 2
    assert "among 2, 3, 4" in capsys.readouterr().err


def test_games_per_pairing_counts_the_tables_two_agents_shared(small_league):
    """3 agents, one round: at 2 players each pair has its own table, played twice (seats
    swapped); at 3 players all sit at the one table, played three times."""
    rows, _, summary, _ = small_league
    assert summary["player_counts"][2]["games_per_pairing"] == {"min": 2, "max": 2}
    assert summary["player_counts"][3]["games_per_pairing"] == {"min": 3, "max": 3}
    uneven = [{"table": 0, "agent": "a"}, {"table": 0, "agent": "b"},
              {"table": 1, "agent": "a"}, {"table": 1, "agent": "b"},
              {"table": 2, "agent": "a"}, {"table": 2, "agent": "c"}]
    assert games_per_pairing(uneven, ["a", "b", "c"]) == {"min": 0, "max": 2}


def test_markdown_tables_hold_the_summary_figures(small_league):
    rows, _, summary, config = small_league
    markdown = league_markdown(summary, config)
    block = summary["player_counts"][3]
    for label, entry in block["agents"].items():
        assert (f"| `{label}` | {entry['win_share']:.3f} [{entry['low']:.3f}, "
                f"{entry['high']:.3f}] | {entry['mean_population']:.1f} | "
                f"{entry['mean_margin']:+.1f} | 3 | 0 | 0 |") in markdown
    assert f"at commit `{config['provenance']['commit']}`" in markdown
    assert ("3 players: 3 games, 3 per pair of agents; fair share 0.333; 0 game(s) with a "
            "stand-in for a seat that forfeited.") in markdown


def test_provenance_names_the_commit_and_hashes_the_models():
    import hashlib
    baseline = REPO / "models" / "baseline.safetensors"
    assert model_file_of(f"ppo-rollout:{baseline},2,1") == str(baseline)
    assert model_file_of(f"ppo:pickle:{baseline}") == str(baseline)
    assert model_file_of("greedy") is None and model_file_of("examples/my_bot.py:bot") is None
    found = provenance(["greedy", f"ppo:{baseline}", f"ppo-rollout:{baseline}"])
    assert found["model_files"] == {str(baseline): hashlib.sha256(baseline.read_bytes())
                                    .hexdigest()}
    assert found["rules"] == RULES_REVISION
    assert found["commit"] is None or len(found["commit"]) == 40


# The dataset (agents/league_dataset.py, docs/dataset.md) ---------------------------------------

def test_dataset_entries_replay_to_their_scores(small_league, tmp_path):
    rows, records, _, _ = small_league
    path = write_dataset(rows, records, tmp_path)
    entries = read_dataset(path)
    assert len(entries) == 9
    for entry in entries:
        assert entry["format"] == DATASET_FORMAT and entry["rules"] == RULES_REVISION
        game = Game.replay(entry["record"])
        assert game.seed == entry["seed"] and game.num_seats == entry["players"]
        scores = game.final_scores()
        assert [s["population"] for s in scores] == [s["population"] for s in entry["scores"]]
        assert entry["winners"] == game.winners
        assert sum(entry["wins"]) == pytest.approx(1.0)
        # the goal bonuses of R8.2 are kept per seat
        assert [s["public_goals"] for s in scores] == [s["public_goals"] for s in entry["scores"]]
        assert entry["first_player"] == json.loads(game.to_json())["first_player"]
        seats = sorted((r for r in rows if r["table"] == entry["table"]), key=lambda r: r["seat"])
        assert entry["agents"] == [r["agent"] for r in seats]


def test_a_game_with_a_forfeit_is_kept_whole_with_its_reason(tmp_path):
    """The seat that forfeits is played to the end by the stand-in (the first legal
    action): the dataset keeps the whole game, its scores, and the forfeit."""
    class Quitter:
        name = "quitter"

        def act(self, game):
            if game.round == 1:
                raise RuntimeError("bored")
            return game.legal_actions()[0]

    rows, records, summary, _ = run_league([Quitter(), "greedy"], (2,), rounds=1, seed=2,
                                           workers=1, progress=False, keep_records=True)
    entries = dataset_entries(rows, records)
    assert len(entries) == 2
    for entry in entries:
        quitter = entry["agents"].index("quitter")
        [forfeit] = entry["forfeits"]
        assert forfeit["seat"] == quitter
        assert forfeit["reason"].endswith("raised RuntimeError: bored")
        assert entry["winners"] == [1 - quitter] and entry["wins"] == [
            1.0 if seat != quitter else 0.0 for seat in range(2)]
        game = Game.replay(entry["record"])
        assert game.is_over
        assert [s["population"] for s in entry["scores"]] == [
            s["population"] for s in game.final_scores()]
        replay = Game(2, "standard", "2nd", entry["seed"])
        for action in entry["record"]["actions"][:forfeit["decision"] - 1]:
            replay.apply(action)
        assert replay.round == 1 and replay.current_player == quitter
    # the league counts the games with a stand-in, and the seat that forfeited as last
    block = summary["player_counts"][2]
    assert block["stand_in_games"] == 2 and summary["stand_in_tables"] == [0, 1]
    assert block["agents"]["greedy"]["stand_in_games"] == 2
    assert (block["agents"]["quitter"]["forfeits"], block["agents"]["quitter"]["wins"]) == (2, 0)
    assert block["agents"]["greedy"]["wins"] == 2
    assert summary["ratings"]["ratings"]["greedy"]["mu"] > \
        summary["ratings"]["ratings"]["quitter"]["mu"]


@pytest.mark.slow
def test_the_league_counts_forfeits_at_three_and_four_seats(tmp_path):
    """A bot that raises in round 2 at tables of 3 and 4: it is last in each game, the
    others' games end and count (their wins sum to 1 per game), and league.md says how many
    games had a stand-in."""
    class Quitter:
        name = "quitter"

        def act(self, game):
            if game.round == 2:
                raise RuntimeError("gone")
            return game.legal_actions()[0]

    rows, records, summary, config = run_league([Quitter(), "greedy", "random", "dale"],
                                                (3, 4), games=4, seed=5, workers=1,
                                                progress=False)
    tables = {}
    for row in rows:
        tables.setdefault(row["table"], []).append(row)
    with_quitter = [table for table, seats in tables.items()
                    if any(row["agent"] == "quitter" for row in seats)]
    assert summary["stand_in_tables"] == sorted(with_quitter)
    for table, seats in tables.items():
        assert sum(row["win"] for row in seats) == pytest.approx(1.0)
        for row in seats:
            if row["agent"] == "quitter":
                assert (row["win"], row["population"]) == (0.0, None)
                assert row["forfeit"].endswith("raised RuntimeError: gone")
            else:
                assert row["population"] is not None and row["forfeit"] is None
    for players in (3, 4):
        block = summary["player_counts"][players]
        here = {row["table"] for row in rows if row["seats"] == players}
        assert block["stand_in_games"] == len(here & set(with_quitter))
        for label, entry in block["agents"].items():
            own = [row for row in rows if row["seats"] == players and row["agent"] == label]
            assert entry["stand_in_games"] == (0 if label == "quitter" else sum(
                row["table"] in with_quitter for row in own))
        assert block["agents"]["quitter"]["wins"] == 0
    markdown = league_markdown(summary, config)
    for players in (3, 4):
        assert (f"; {summary['player_counts'][players]['stand_in_games']} game(s) with a "
                f"stand-in for a seat that forfeited.") in markdown
    assert "| forfeits | beside a stand-in |" in markdown


def test_a_version_1_dataset_line_is_read_with_its_forfeit(tmp_path):
    """Files written before the stand-in had "forfeit" (null or one entry)."""
    base = {"format": DATASET_FORMAT, "version": 1, "rules": RULES_REVISION, "table": 0,
            "deal": 0, "seed": 0, "mode": "standard", "players": 2, "edition": "2nd",
            "agents": ["a", "b"], "specs": ["a", "b"], "first_player": 0, "scores": None,
            "winners": [1], "wins": [0.0, 1.0], "record": {}}
    forfeit = {"seat": 0, "reason": "raised", "decision": 3}
    (tmp_path / "games.jsonl").write_text(json.dumps({**base, "forfeit": forfeit}) + "\n"
                                          + json.dumps({**base, "forfeit": None}) + "\n")
    first, second = read_dataset(tmp_path)
    assert (first["forfeits"], second["forfeits"]) == ([forfeit], [])
    assert "forfeit" not in first and first["version"] == 2


@pytest.mark.parametrize("line,message", [
    ("not json", "line 1: not JSON"),
    ('{"format": "suburbia-record"}', "line 1: format: not a 'suburbia-league-game' entry"),
    ('{"format": "suburbia-league-game", "version": 9}', "line 1: version: 9 is not 2"),
    ('{"format": "suburbia-league-game", "version": 2, "table": 0}', "missing field(s) rules"),
])
def test_malformed_dataset_lines_are_named(tmp_path, line, message):
    path = tmp_path / "games.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(StateFormatError, match=re.escape(message)):
        read_dataset(tmp_path)


def test_a_missing_dataset_says_how_to_make_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="suburbia league --records"):
        read_dataset(tmp_path)


def test_update_doc_replaces_only_the_table_between_the_markers(tmp_path, capsys):
    from agents.league import TABLE_END, TABLE_START
    document = tmp_path / "league.md"
    document.write_text(f"# League\n\nHow to run it.\n\n{TABLE_START}\n\nold table\n\n"
                        f"{TABLE_END}\n\nNotes after.\n")
    status = cli_main(["league", "--agents", "random", "greedy", "--players", "2", "--games",
                       "2", "--workers", "1", "--no-progress", "--output-dir",
                       str(tmp_path / "out"), "--update-doc", str(document)])
    assert status == 0
    text = document.read_text()
    table = (tmp_path / "out" / "league.md").read_text().strip()
    assert text == (f"# League\n\nHow to run it.\n\n{TABLE_START}\n\n{table}\n\n{TABLE_END}"
                    f"\n\nNotes after.\n")
    assert "old table" not in text


def test_a_document_without_markers_is_refused_before_any_game(tmp_path, capsys):
    document = tmp_path / "notes.md"
    document.write_text("# Notes\n")
    status = cli_main(["league", "--agents", "random", "greedy", "--players", "2", "--games",
                       "2", "--workers", "1", "--no-progress", "--output-dir",
                       str(tmp_path / "out"), "--update-doc", str(document)])
    assert status == 2
    assert "needs one line '<!-- league table: start" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and document.read_text() == "# Notes\n"


def test_a_resumed_league_plays_only_what_its_journal_lacks(tmp_path):
    journal = tmp_path / "played.jsonl"
    whole, _, summary, _ = run_league(FAST, (2, 3), games=6, seed=7, workers=1,
                                      progress=False)
    run_league(FAST, (2, 3), games=6, seed=7, workers=1, progress=False, journal=journal)
    lines = journal.read_text().splitlines()
    assert len(lines) == 12
    # Stopped after five games, the sixth cut short while it was written.
    journal.write_text("\n".join(lines[:5]) + "\n" + lines[5][:40])
    rows, _, resumed, config = run_league(FAST, (2, 3), games=6, seed=7, workers=1,
                                          progress=False, journal=journal)
    assert config["games_from_journal"] == 5 and config["games_played"] == 12
    assert rows == json.loads(json.dumps(whole))
    assert resumed == summarise_league(json.loads(json.dumps(whole)), FAST)
    assert resumed["player_counts"][2]["lead"] == summary["player_counts"][2]["lead"]
    assert journal.read_text().splitlines() == lines[:5] + journal.read_text().splitlines()[5:]
    assert len(journal.read_text().splitlines()) == 12  # the cut line was dropped
    with pytest.raises(TournamentError, match="another league"):
        run_league(FAST, (2, 3), games=6, seed=8, workers=1, progress=False, journal=journal)


def test_a_league_grows_from_its_journal_at_one_player_count(tmp_path):
    journal = tmp_path / "played.jsonl"
    run_league(FAST, (3,), games=4, seed=2, workers=1, progress=False, journal=journal)
    rows, _, _, config = run_league(FAST, (3,), games=7, seed=2, workers=1, progress=False,
                                    journal=journal)
    assert config["games_from_journal"] == 4 and len(journal.read_text().splitlines()) == 7
    whole, _, _, _ = run_league(FAST, (3,), games=7, seed=2, workers=1, progress=False)
    assert rows == json.loads(json.dumps(whole))
    # Two player counts number their games otherwise: game 4 is another game there.
    with pytest.raises(TournamentError, match="another league"):
        run_league(FAST, (2, 3), games=7, seed=2, workers=1, progress=False, journal=journal)


def test_openskill_keeps_its_lead_in_combined_sigma_per_player_count(small_league):
    summary = small_league[2]
    for players, block in summary["player_counts"].items():
        ratings, lead = block["ratings"], block["openskill_lead"]
        first, second = sorted(ratings.values(), key=lambda r: -r["mu"])[:2]
        assert lead["mu_gap"] == pytest.approx(first["mu"] - second["mu"])
        assert lead["lead_in_sigma"] == pytest.approx(
            (first["mu"] - second["mu"]) / (first["sigma"] ** 2 + second["sigma"] ** 2) ** 0.5)
        assert ratings[lead["leader"]]["mu"] == first["mu"]
    assert summary["lead"]["leader"] in FAST


def test_the_lead_at_each_player_count_is_the_static_rating(small_league):
    rows, _, summary, config = small_league
    markdown, text = league_markdown(summary, config), format_league(summary)
    for players, block in summary["player_counts"].items():
        rated = rate_league([row for row in rows if row["seats"] == players], FAST)
        assert block["strengths"] == rated.get("fit")
        assert block["lead"] == (rated.get("lead") or {"error": rated["error"]})
        if "error" in block["lead"]:
            # Nine games of random, greedy and dale: some agent is never beaten or never
            # ahead, and the text says why no lead is measured.
            assert f"lead: not measured ({block['lead']['error']})" in text
            assert f"At {players} players, the lead: not measured" in markdown


def test_the_league_lead_reads_the_fit_of_the_games(tmp_path):
    rows = []
    for table, (first, second) in enumerate([("greedy", "dale")] * 3 + [("dale", "greedy")]):
        for seat, (agent, population) in enumerate(((first, 90), (second, 80))):
            rows.append({"table": table, "game": table, "seed": table, "seats": 2,
                         "seat": seat, "agent": agent, "first_player": 0,
                         "population": population, "margin": 10 if population == 90 else -10,
                         "win": float(population == 90)})
    summary = summarise_league(rows, ["greedy", "dale"])
    lead = summary["player_counts"][2]["lead"]
    assert (lead["leader"], lead["next"], lead["games"]) == ("greedy", "dale", 4)
    assert lead["difference"] == pytest.approx(1.0986, abs=1e-4)  # log 3
    assert lead["standard_error"] == pytest.approx(1.1547, abs=1e-4)  # sqrt(4/3)
    assert ("lead: greedy over dale by 1.099 ± 1.155 strength = 0.95 standard errors of the "
            "difference (not more than 2; head to head 0.750) over 4 games") \
        in format_league(summary)
