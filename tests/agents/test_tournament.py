"""The tournament runner (agents/tournament.py) and its statistics.

Expected values are derived by hand: Wilson intervals from the closed formula, the
OpenSkill Plackett-Luce update of one two-player game from Weng & Lin's equations, the
win counting of R8.3 (a shared win is split between the winners), the solo ladder of R9.1 and the rule
of R9.2 that the ladder counts only when Dale is beaten.
"""

from __future__ import annotations

import csv
import json
import math

import pytest

from agents import RandomAgent
from agents.statistics import wilson_interval
from agents.tournament import (CSV_FIELDS, DALE_LABEL, NO_RANK, GameTask, TournamentError,
                               TournamentResult, agent_labels, agent_seed, format_summary,
                               make_tasks, openskill_ratings, play_game, run_tournament,
                               seat_assignment, summarise, write_outputs)
from suburbia_env import Game

Z = 1.959964


# Wilson intervals --------------------------------------------------------------------------

def test_wilson_interval_of_0_out_of_10():
    """p = 0, n = 10: centre = (z^2/20)/(1 + z^2/10) = half-width, so the interval is
    [0, 2 * 0.19207/1.38414] = [0, 0.27753]."""
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(2 * (Z * Z / 20) / (1 + Z * Z / 10), abs=1e-9)
    assert high == pytest.approx(0.27753, abs=1e-5)


@pytest.mark.parametrize("trials", [1, 2, 3, 7, 9, 1000])
def test_wilson_interval_holds_the_proportion_at_0_and_1(trials):
    """Rounding made the upper end of k out of k 0.9999999999999999 for some k."""
    assert wilson_interval(trials, trials)[1] == 1.0
    assert wilson_interval(0, trials)[0] == 0.0


def test_wilson_interval_of_5_out_of_10():
    """p = 0.5, n = 10: centre 0.5, half-width z*sqrt(0.025 + z^2/400)/(1 + z^2/10) =
    0.26340, so [0.23659, 0.76341]."""
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.23659, abs=1e-5)
    assert high == pytest.approx(0.76341, abs=1e-5)
    assert low + high == pytest.approx(1.0)


# Set-up: labels, seats, seeds ---------------------------------------------------------------

def test_repeated_specs_get_numbered_labels():
    assert agent_labels(["random", "greedy", "random", "random"]) == [
        "random", "greedy", "random#2", "random#3"]


def test_seat_rotation_moves_every_agent_one_seat_per_game():
    assert seat_assignment(0, 3, 3) == [0, 1, 2]
    assert seat_assignment(1, 3, 3) == [1, 2, 0]
    assert seat_assignment(2, 3, 3) == [2, 0, 1]
    assert seat_assignment(3, 3, 3) == [0, 1, 2]
    # two agents at a table of four fill two seats each
    assert seat_assignment(1, 2, 4) == [1, 0, 1, 0]
    # four agents, two seats: the pairs cycle through the list
    assert [seat_assignment(i, 4, 2) for i in range(4)] == [[0, 1], [1, 2], [2, 3], [3, 0]]


def test_solo_tasks_give_every_agent_the_same_seeds():
    tasks = make_tasks(["greedy", "random"], "dale", games=3, seed=10)
    assert [(t.table, t.index, t.seed, t.lineup[0][0]) for t in tasks] == [
        (0, 0, 10, "greedy"), (1, 1, 11, "greedy"), (2, 2, 12, "greedy"),
        (3, 0, 10, "random"), (4, 1, 11, "random"), (5, 2, 12, "random")]
    assert all(t.players == 1 and t.mode == "dale" for t in tasks)


def test_standard_tasks_rotate_the_lineup():
    tasks = make_tasks(["a", "b", "c"], "standard", games=4, players=3, seed=0)
    assert [[label for label, _ in t.lineup] for t in tasks] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]
    assert [t.seed for t in tasks] == [0, 1, 2, 3]
    # the default table size is the number of agents, at most 4 (R3.1)
    assert make_tasks(["a", "b"], "standard", games=1)[0].players == 2
    assert make_tasks(list("abcdef"), "standard", games=1)[0].players == 4


@pytest.mark.parametrize("specs, mode, games, players, message", [
    (["greedy"], "standard", 2, None, "at least two agent specs"),
    (["greedy", "random"], "standard", 2, 5, "2 to 4 players"),
    (["greedy"], "dale", 2, 2, "played by one player"),
    (["greedy"], "chess", 2, None, "mode must be one of"),
    (["greedy"], "dale", 0, None, "games must be"),
    ([], "dale", 2, None, "at least one agent spec"),
])
def test_bad_tournaments_are_refused_with_the_reason(specs, mode, games, players, message):
    with pytest.raises(TournamentError, match=message):
        make_tasks(specs, mode, games, players)


def test_unknown_edition_is_refused():
    with pytest.raises(TournamentError, match="edition must be one of"):
        make_tasks(["greedy"], "dale", 2, edition="3rd")


def test_two_seats_of_one_spec_have_their_own_generators():
    """random against random: seat k's agent is reseeded from (seed, k), so the two
    seats draw differently; each seat's agent is its own instance."""
    cache = {}
    task = make_tasks(["random", "random"], "standard", 1, players=2, seed=8)[0]
    play_game(task, cache)
    assert set(cache) == {("random", 0), ("random", 1)}
    assert cache["random", 0] is not cache["random", 1]


def test_unknown_spec_fails_before_any_game():
    with pytest.raises(ValueError, match="unknown agent spec 'alphazero'"):
        run_tournament(["greedy", "alphazero"], games=2, workers=1, progress=False)


# Playing ----------------------------------------------------------------------------------

def test_paired_seeds_give_identical_games_for_identical_agents():
    """Game i of every agent uses seed i and the agent's own generator is reseeded from
    (seed, seat): two copies of `random` play exactly the same six games against Dale."""
    result = run_tournament(["random", "random"], "dale", games=6, seed=0, workers=1,
                            progress=False)
    assert result.labels == ["random", "random#2"]
    first = [r for r in result.rows if r["agent"] == "random"]
    second = [r for r in result.rows if r["agent"] == "random#2"]
    keys = ("game", "seed", "population", "reputation", "income", "money_left", "win",
            "margin", "decisions")
    assert [[r[k] for k in keys] for r in first] == [[r[k] for k in keys] for r in second]
    assert [r["seed"] for r in first] == [0, 1, 2, 3, 4, 5]
    # and the games are not all alike
    assert len({r["population"] for r in first}) > 1


def test_a_tournament_game_is_the_game_played_by_hand():
    """Row of game 2 (seed 7) equals a Dale game set up with seed 7 and played by a
    RandomAgent seeded agent_seed(7, 0); Dale's seat (the engine's) gets its own row."""
    result = run_tournament(["random"], "dale", games=3, seed=5, workers=1, progress=False)
    game = Game(1, "dale", "2nd", 7)
    agent = RandomAgent(agent_seed(7, 0))
    while not game.is_over:
        game.apply(agent.act(game))
    scores = game.final_scores()
    own, dale = [r for r in result.rows if r["game"] == 2]
    assert (own["agent"], own["seat"], dale["agent"], dale["seat"]) == ("random", 0,
                                                                          DALE_LABEL, 1)
    assert own["population"] == scores[0]["population"]
    assert dale["population"] == scores[1]["population"]
    assert own["margin"] == scores[0]["population"] - scores[1]["population"]
    assert own["decisions"] == len(game.history)


def test_standard_games_rotate_seats_and_count_wins():
    result = run_tournament(["dale", "random"], "standard", games=6, players=2, seed=3,
                            workers=1, progress=False)
    assert len(result.rows) == 12
    for row in result.rows:
        # seat k of game i: agent (i + k) mod 2
        assert row["agent"] == ["dale", "random"][(row["game"] + row["seat"]) % 2]
    for index in range(6):
        seats = [r for r in result.rows if r["game"] == index]
        populations = [r["population"] for r in seats]
        for row in seats:
            other = max(r["population"] for r in seats if r["seat"] != row["seat"])
            assert row["best_other_population"] == other
            assert row["margin"] == row["population"] - other
        winners = [r for r in seats if r["winner"]]
        # one winner scores 1, w tied winners 1/w each: a game hands out 1 in all
        assert sum(r["win"] for r in seats) == pytest.approx(1.0)
        assert all(r["win"] == 1.0 / len(winners) for r in winners)
        # the winner has the highest final population (R8.3)
        assert all(r["population"] == max(populations) for r in winners)
    assert all(r["ladder_rank"] is None for r in result.rows)


def test_ladder_rank_only_when_dale_is_beaten():
    """R9.2: the ladder of R9.1 counts only in games the player won alone."""
    result = run_tournament(["greedy"], "dale", games=6, seed=0, workers=1, progress=False)
    own = [r for r in result.rows if r["agent"] == "greedy"]
    assert len(own) == 6
    for row in own:
        if row["win"] == 1.0:
            assert row["ladder_rank"] is not None
        else:
            assert row["ladder_rank"] is None


def test_solitary_rows_have_no_win_and_always_a_rank():
    result = run_tournament(["random"], "solitary", games=2, seed=0, workers=1,
                            progress=False)
    assert [r["seats"] for r in result.rows] == [1, 1]
    assert all(r["win"] is None and r["margin"] is None for r in result.rows)
    assert all(r["ladder_rank"] is not None for r in result.rows)


class IllegalAgent:
    name = "illegal"

    def reset(self, seed=None):
        pass

    def act(self, game):
        return "buy 0 @ 6,8"  # a cell far from the borough: never legal (R2.4)


def test_an_illegal_action_forfeits_the_game_and_names_it():
    """An answer that is not a legal action loses the game (the other forfeits are in
    tests/agents/test_bring_your_own_bot.py); Dale's seat takes the win."""
    task = GameTask(0, 0, 11, "dale", 1, "2nd", (("cheater", "bad"),))
    cheater, dale = play_game(task, {("bad", 0): IllegalAgent()})["rows"]
    assert cheater["forfeit"].startswith("at the game's decision 1 (round 1): answered an "
                                         "illegal action 'buy 0 @ 6,8': illegal action")
    assert (cheater["win"], dale["win"], dale["forfeit"]) == (0.0, 1.0, None)
    assert cheater["stand_in_seats"] == dale["stand_in_seats"] == [0]
    assert cheater["forfeit_decision"] == 1 and cheater["population"] is None
    # the stand-in (the first legal action) played the seat to the end: Dale's game is whole
    game = Game(1, "dale", "2nd", 11)
    while not game.is_over:
        game.apply(int(game.legal_actions()[0]))
    assert dale["decisions"] == len(game.history)
    assert dale["population"] == game.final_scores()[1]["population"]


def test_parallel_workers_give_the_same_results():
    specs = ["greedy", "random"]
    serial = run_tournament(specs, "dale", games=3, workers=1, progress=False)
    parallel = run_tournament(specs, "dale", games=3, workers=2, progress=False)
    assert parallel.rows == serial.rows


# Summaries from hand-built results -------------------------------------------------------------

def _row(table, game, seat, agent, population, win, margin, rank=None, mode="dale"):
    return {"table": table, "game": game, "seed": game, "mode": mode, "seats": 2, "seat": seat,
            "agent": agent, "spec": agent, "first_player": 0, "population": population,
            "reputation": 0, "income": 0, "money_left": 0,
            "winner": win is None or win > 0, "win": win,
            "best_other_population": population - margin if margin is not None else None,
            "margin": margin, "ladder_rank": rank, "rounds": 10, "decisions": 20}


def hand_built_dale_rows():
    """Agent A: won (80 v 70), lost (50 v 90), tied 60 v 60 on every criterion (shared,
    half a win) and won (140 v 100): 2.5 wins out of 4."""
    rows = []
    games = [(80, 70, 1.0, 0.0, "Draftsman"), (50, 90, 0.0, 1.0, None),
             (60, 60, 0.5, 0.5, None), (140, 100, 1.0, 0.0, "CEO of Suburbia Inc.")]
    for index, (own, dale, win, dale_win, rank) in enumerate(games):
        rows.append(_row(index, index, 0, "A", own, win, own - dale, rank))
        rows.append(_row(index, index, 1, DALE_LABEL, dale, dale_win, dale - own))
    return rows


def test_summary_counts_wins_shared_wins_and_ranks():
    summary = summarise(hand_built_dale_rows(), ["A"], "dale")
    entry = summary["agents"]["A"]
    assert entry["games"] == 4
    assert entry["wins"] == 2.5
    assert entry["win_rate"] == 0.625
    assert (entry["win_rate_low"], entry["win_rate_high"]) == pytest.approx(
        wilson_interval(2.5, 4))
    assert entry["mean_population"] == pytest.approx((80 + 50 + 60 + 140) / 4)
    assert entry["median_population"] == 70.0  # (60 + 80) / 2
    assert entry["mean_margin"] == pytest.approx((10 - 40 + 0 + 40) / 4)
    assert entry["mean_dale_population"] == pytest.approx((70 + 90 + 60 + 100) / 4)
    ranks = entry["ladder_ranks"]
    assert ranks["Draftsman"] == 1 and ranks["CEO of Suburbia Inc."] == 1
    assert ranks[NO_RANK] == 2
    assert sum(ranks.values()) == 4
    assert summary["dale"] == {"games": 4, "mean_population": 80.0, "median_population": 80.0}
    text = format_summary(summary, {"games": 4, "seed": 0, "edition": "2nd", "players": 1})
    assert "0.625 [" in text and "Draftsman 1" in text and "CEO of Suburbia Inc. 1" in text


def test_openskill_update_of_one_two_player_game():
    """Plackett-Luce (Weng & Lin 2011) with mu 25, sigma 25/3, beta 25/6, tau 25/300:
    sigma'^2 = sigma^2 + tau^2, c^2 = 2 sigma'^2 + 2 beta^2, both players' win chance 1/2;
    the winner gains sigma'^2/c * 1/2, the loser loses as much, and both sigmas shrink to
    sigma' * sqrt(1 - (sigma'/c)(sigma'^2/c^2)(1/4))."""
    rows = [_row(0, 0, 0, "A", 50, 1.0, 10, mode="standard"),
            _row(0, 0, 1, "B", 40, 0.0, -10, mode="standard")]
    ratings = openskill_ratings(rows, ["A", "B"])["ratings"]
    variance = (25 / 3) ** 2 + (25 / 300) ** 2
    c = math.sqrt(2 * variance + 2 * (25 / 6) ** 2)
    step = variance / c * 0.5
    sigma = math.sqrt(variance) * math.sqrt(1 - (math.sqrt(variance) / c) * (variance / c**2) / 4)
    assert ratings["A"]["mu"] == pytest.approx(25 + step, abs=1e-9)
    assert ratings["B"]["mu"] == pytest.approx(25 - step, abs=1e-9)
    assert ratings["A"]["sigma"] == pytest.approx(sigma, abs=1e-9)
    assert ratings["A"]["ordinal"] == pytest.approx(25 + step - 3 * sigma, abs=1e-9)
    assert ratings["A"]["rated_games"] == 1


def test_games_with_one_agent_in_two_seats_are_not_rated():
    rows = [_row(0, 0, 0, "A", 50, 1.0, 10, mode="standard"),
            _row(0, 0, 1, "A", 40, 0.0, -10, mode="standard")]
    result = openskill_ratings(rows, ["A"])
    assert result["unrated_games"] == 1
    assert result["ratings"]["A"]["mu"] == 25.0


def test_solitary_summary_has_no_win_rate():
    rows = [_row(0, 0, 0, "A", 59, None, None, "Junior Intern", "solitary"),
            _row(1, 1, 0, "A", 60, None, None, "Subcontractor", "solitary")]
    entry = summarise(rows, ["A"], "solitary")["agents"]["A"]
    assert "win_rate" not in entry
    assert entry["ladder_ranks"]["Junior Intern"] == 1
    assert entry["ladder_ranks"]["Subcontractor"] == 1
    assert NO_RANK not in entry["ladder_ranks"]


# Files ------------------------------------------------------------------------------------

def test_csv_json_and_plot_content(tmp_path):
    rows = hand_built_dale_rows()
    result = TournamentResult({"agents": ["A"], "mode": "dale", "games": 4, "players": 1,
                               "seed": 0, "edition": "2nd", "workers": 1}, ["A"], {"A": "A"},
                              rows, [], 1.0)
    summary = summarise(rows, ["A"], "dale")
    paths = write_outputs(result, summary, tmp_path / "out")
    with open(paths["csv"], newline="") as handle:
        table = list(csv.DictReader(handle))
    assert tuple(table[0].keys()) == CSV_FIELDS
    assert len(table) == 8
    assert [r["population"] for r in table if r["agent"] == "A"] == ["80", "50", "60", "140"]
    assert [r["win"] for r in table if r["agent"] == "A"] == ["1.0", "0.0", "0.5", "1.0"]
    assert [r["ladder_rank"] for r in table if r["agent"] == "A"] == [
        "Draftsman", "", "", "CEO of Suburbia Inc."]
    assert table[0]["winner"] == "1" and table[1]["winner"] == "0"
    document = json.loads(paths["summary"].read_text())
    assert document["config"]["games"] == 4
    assert document["agents"]["A"]["wins"] == 2.5
    assert document["dale"]["mean_population"] == 80.0
    picture = paths["plot"].read_bytes()
    assert picture[:8] == b"\x89PNG\r\n\x1a\n"
    from matplotlib import image
    pixels = image.imread(paths["plot"])
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100


def test_records_written_replay_to_the_rows(tmp_path):
    result = run_tournament(["random"], "dale", games=2, seed=4, workers=1, progress=False,
                            keep_records=True)
    paths = write_outputs(result, summarise(result.rows, result.labels, "dale"), tmp_path)
    files = sorted(paths["records"].iterdir())
    assert [f.name for f in files] == ["table_0000.json", "table_0001.json"]
    for number, path in enumerate(files):
        game = Game.replay(path.read_text())
        own = [r for r in result.rows if r["table"] == number and r["seat"] == 0][0]
        assert game.seed == 4 + number
        assert game.final_scores()[0]["population"] == own["population"]
