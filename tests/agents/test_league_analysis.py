"""The strategy statistics of recorded league games (agents/league_analysis.py) and the
bootstrap differences behind them (agents/statistics.py).

Facts read from the event log are checked against the finished game's own state (its
boroughs, markers and population); the tables against hand-built seats whose expected
figures are counted by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.league import run_league
from agents.league_analysis import (PHASES, analyse, count_groups, findings, goal_table,
                                    phase_of, seat_facts, tile_table, timing_table,
                                    turn_position_table)
from agents.league_dataset import dataset_entries
from agents.statistics import (game_bootstrap_difference, newcombe_interval,
                               stratified_difference, wilson_interval)
from suburbia_env import Game
from suburbia_env.engine.red_lines import red_lines_at_or_below


@pytest.fixture(scope="module")
def entries():
    """A small real league: greedy, dale and random at 2, 3 and 4 players."""
    rows, records, _, _ = run_league(["greedy", "dale", "random"], (2, 3, 4), rounds=1,
                                     seed=40, workers=1, progress=False, keep_records=True)
    return dataset_entries(rows, records)


# Facts from the event log ----------------------------------------------------------------

def test_seat_facts_agree_with_the_final_boroughs(entries):
    """Per seat, the log's purchases, lakes and investments are exactly the borough's
    tiles after the three starting ones (R2.3), its lakes and its markers; the net red
    lines are those at or below the population before goals (R8.1: scoring ignores
    them); every seat began phase A with the start values of R3.4."""
    for entry in entries:
        game = Game.replay(entry["record"])
        facts = seat_facts(entry)
        assert len(facts) == entry["players"]
        for seat, (fact, score) in enumerate(zip(facts, game.final_scores())):
            borough = game.player_state(seat)["borough"][3:]
            assert sorted(p["tile"] for p in fact["purchases"]) == sorted(
                cell["tile"] for cell in borough if not cell["lake"])
            assert len(fact["lakes"]) == sum(cell["lake"] for cell in borough)
            assert len(fact["investments"]) == sum(
                cell["invested"] for cell in game.player_state(seat)["borough"])
            assert sum(r["direction"] for r in fact["red_lines"]) == red_lines_at_or_below(
                score["population_before_goals"])
            assert fact["phase_start"]["A"] == {"money": 15, "income": 0, "reputation": 1,
                                                "population": 2}
            assert set(fact["phase_start"]) == set(PHASES)
            assert fact["population"] == score["population"]
            assert fact["winner"] == (seat in game.winners)
            assert fact["turn_position"] == (seat - entry["first_player"]) % entry["players"]
            rounds = [p["round"] for p in fact["purchases"]]
            assert rounds == sorted(rounds) and 1 <= min(rounds) and max(rounds) <= game.round + 1


def test_phases_follow_the_stack_the_market_refills_from():
    """R4.2: A until A is empty, then B, then C; a game starts in A and ends in C."""
    game = Game(2, seed=3)
    seen = [phase_of(game)]
    while not game.is_over:
        game.apply(game.legal_actions()[0])
        seen.append(phase_of(game))
    changes = [phase for index, phase in enumerate(seen) if index == 0 or seen[index - 1] != phase]
    assert changes == ["A", "B", "C"]


def test_forfeited_games_are_left_out():
    class Quitter:
        name = "quitter"

        def act(self, game):
            if game.round == 2:
                raise RuntimeError("gone")
            return game.legal_actions()[0]

    rows, records, _, _ = run_league([Quitter(), "random"], (2,), rounds=1, seed=1,
                                     workers=1, progress=False, keep_records=True)
    entries = dataset_entries(rows, records)
    assert [seat_facts(entry) for entry in entries] == [[], []]
    with pytest.raises(ValueError, match=r"no finished game to analyse \(2 forfeited\)"):
        analyse(entries, resamples=10)


# Tables from hand-built seats --------------------------------------------------------------

def _seat(table, seat, players, win, population, agent="a", position=None, goals=None,
          private=None, private_bonus=0, tiles=(), lakes=0, investments=0):
    return {"table": table, "seed": table, "players": players, "seat": seat, "agent": agent,
            "turn_position": seat if position is None else position, "win": win,
            "winner": win > 0, "population": population, "margin": 0,
            "public_goals": goals or {}, "private_goal": private,
            "private_goal_bonus": private_bonus, "final_round": 10,
            "purchases": [{"tile": tile, "round": 2, "phase": "A", "price": 5, "basic": False,
                           "type": "civic"} for tile in tiles],
            "lakes": [{"round": 3, "phase": "B", "premium": 0}] * lakes,
            "investments": [{"round": 4, "phase": "C", "tile": "Suburbs", "price": 3}]
            * investments,
            "red_lines": [], "lake_money": 0,
            "phase_start": {phase: {"money": 0, "income": 0, "reputation": 0, "population": 0}
                            for phase in PHASES}}


def test_turn_position_win_shares_and_intervals():
    """Six 2-player games: the first player won 4, the second 2 (one of them shared
    half and half, R8.3: the first player's 4 counts the other half)."""
    seats = []
    wins = [(1, 0), (1, 0), (1, 0), (0.5, 0.5), (0, 1), (0.5, 0.5)]
    for table, (first, second) in enumerate(wins):
        seats += [_seat(table, 0, 2, first, 50), _seat(table, 1, 2, second, 40)]
    first, second = turn_position_table(seats)
    assert (first["position"], first["games"], first["wins"]) == (1, 6, 4.0)
    assert (first["low"], first["high"]) == pytest.approx(wilson_interval(4, 6))
    assert second["share"] == pytest.approx(2 / 6)
    assert first["fair"] == 0.5 and first["established"] is False
    assert first["mean_population"] == 50.0


def test_goal_table_counts_scores_win_shares_and_decisive_bonuses():
    """Public goal Miser in three 2-player games: scored by the winner with 10 (decisive:
    60 - 10 <= 55), by the loser with 5, and by nobody (a tie, R8.2). Private goal
    Builder kept twice: achieved once (+15, the seat won, not decisive: 90 - 15 > 60)."""
    seats = [
        _seat(0, 0, 2, 1.0, 60, goals={"Miser": 10}, private="Builder", private_bonus=0),
        _seat(0, 1, 2, 0.0, 55, goals={"Miser": 0}),
        _seat(1, 0, 2, 1.0, 90, goals={"Miser": 0}, private="Builder", private_bonus=15),
        _seat(1, 1, 2, 0.0, 60, goals={"Miser": 5}),
        _seat(2, 0, 2, 1.0, 70, goals={"Miser": 0}),
        _seat(2, 1, 2, 0.0, 50, goals={"Miser": 0}),
    ]
    table = {row["goal"]: row for row in goal_table(seats)}
    miser = table["Miser"]["public"]
    assert (miser["games"], miser["count"], miser["rate"]) == (3, 2, pytest.approx(2 / 3))
    assert miser["mean_bonus"] == 7.5
    assert (miser["scorer_win"]["games"], miser["scorer_win"]["wins"]) == (2, 1.0)
    assert miser["decisive"]["count"] == 1 and miser["fair"] == 0.5
    builder = table["Builder"]["private"]
    assert (builder["held"], builder["count"], builder["mean_bonus"]) == (2, 1, 15.0)
    assert builder["win_when_achieved"]["share"] == 1.0
    assert builder["win_when_missed"]["share"] == 1.0
    assert builder["decisive"]["count"] == 0
    assert builder["win_difference"] == dict(zip(("difference", "low", "high"),
                                                 newcombe_interval(1, 1, 1, 1)))
    assert builder["win_difference"]["difference"] == 0.0
    assert table["Capitalist"]["public"]["games"] == 0


def test_a_tile_every_winner_bought_and_no_loser_did_separates_them_fully():
    """Ten 2-player games: the winner always bought Farm, the loser never; Casino is
    bought by both seats of every game. Farm: +100 points with an interval of [1, 1]
    in every resample; Casino: 0."""
    seats = []
    for table in range(10):
        seats += [_seat(table, 0, 2, 1.0, 60, agent="x", tiles=("Farm", "Casino")),
                  _seat(table, 1, 2, 0.0, 50, agent="y", tiles=("Casino",))]
    rows = {row["name"]: row for row in tile_table(seats, resamples=50, minimum_buyers=5)}
    assert set(rows) == {"Farm", "Casino"}
    farm, bank = rows["Farm"], rows["Casino"]
    assert (farm["winners"], farm["losers"], farm["difference"]) == (1.0, 0.0, 1.0)
    assert (farm["low"], farm["high"]) == (1.0, 1.0)
    assert (bank["difference"], bank["low"], bank["high"]) == (0.0, 0.0, 0.0)
    # x always wins and y always loses: within an agent nothing can be compared
    assert np.isnan(farm["adjusted"]) and farm["established"] is False
    assert farm["buyers"] == 10 and farm["phases"] == {"A": 10, "B": 0, "C": 0}


def test_lakes_and_investments_grouped_by_count():
    seats = [_seat(0, 0, 2, 1.0, 60, lakes=0), _seat(0, 1, 2, 0.0, 50, lakes=1),
             _seat(1, 0, 3, 0.0, 60, lakes=4), _seat(1, 1, 3, 1.0, 50, lakes=3),
             _seat(1, 2, 3, 0.0, 50, lakes=1)]
    groups = count_groups(seats, "lakes")
    assert [(g["count"], g["seats"], g["wins"]) for g in groups] == [
        ("0", 1, 1.0), ("1", 2, 0.0), ("3+", 2, 1.0)]
    assert groups[1]["fair"] == pytest.approx((1 / 2 + 1 / 3) / 2)


def test_timing_table_compares_phase_by_phase():
    """Winners made one lake in phase B each, losers three: -2 in B, 0 in A and C."""
    seats = []
    for table in range(6):
        seats += [_seat(table, 0, 2, 1.0, 60, lakes=1), _seat(table, 1, 2, 0.0, 50, lakes=3)]
    rows = {row["name"]: row for row in timing_table(seats, resamples=20)}
    assert rows["lakes in B"]["difference"] == -2.0
    assert rows["lakes in A"]["difference"] == rows["lakes in C"]["difference"] == 0.0
    assert rows["$ spent in A"]["winners"] == 0.0  # no purchases in these seats
    assert rows["investments"]["difference"] == 0.0


def test_findings_are_sentences_with_numbers_and_the_unsettled_are_named():
    positions = [{"players": 2, "position": 1, "games": 400, "wins": 240, "share": 0.6,
                  "low": 0.551, "high": 0.647, "fair": 0.5, "established": True,
                  "mean_population": 90.0},
                 {"players": 2, "position": 2, "games": 400, "wins": 160, "share": 0.4,
                  "low": 0.353, "high": 0.449, "fair": 0.5, "established": True,
                  "mean_population": 80.0}]
    tile = {"name": "Farm", "winners": 0.5, "losers": 0.45, "difference": 0.05, "low": -0.02,
            "high": 0.12, "adjusted": 0.04, "adjusted_low": -0.03, "adjusted_high": 0.11,
            "established": False}
    lakes = {"name": "lakes in C", "winners": 1.45, "losers": 1.72, "difference": -0.27,
             "low": -0.43, "high": -0.09, "adjusted": -0.29, "adjusted_low": -0.45,
             "adjusted_high": -0.11, "established": True}
    established, unsettled = findings([], positions, [], [tile], [lakes])
    assert established == ["At 2 players the first player won 60.0% [55.1%, 64.7%] of 400 "
                           "games (fair share 50.0%).",
                           "Lakes in C: winners 1.45 per seat, losers 1.72, a difference of "
                           "-0.27 [-0.43, -0.09] (-0.29 [-0.45, -0.11] within the same agent)."]
    assert unsettled == ["For 1 tiles no difference between winners' and losers' purchases was "
                         "established (raw or within the same agent, points): Farm (+5.0 "
                         "[-2.0, +12.0])."]


# Statistics -------------------------------------------------------------------------------

@pytest.mark.parametrize("counts,expected", [
    ((56, 70, 48, 80), (0.2, 0.0524, 0.3339)),  # Newcombe (1998), example (a), method 10
    ((9, 10, 3, 10), (0.6, 0.1705, 0.8090)),    # example (b)
])
def test_newcombe_interval_of_the_published_examples(counts, expected):
    assert newcombe_interval(*counts) == pytest.approx(expected, abs=5e-5)


def test_stratified_difference_undoes_a_difference_made_by_the_strata():
    """Simpson: agent x wins often and always buys the tile, agent y rarely wins and never
    does. Pooled, winners buy it far more often; within each agent winners and losers
    buy it alike, so the adjusted difference is exactly 0."""
    bought = np.array([1, 1, 1, 1, 0, 0, 0, 0], dtype=float)
    won = np.array([1, 1, 1, 0, 1, 0, 0, 0], dtype=bool)
    agent = np.array(["x"] * 4 + ["y"] * 4)
    pooled = stratified_difference(bought, won)
    assert pooled[0] == pytest.approx(3 / 4 - 1 / 4)
    assert stratified_difference(bought, won, agent)[0] == 0.0


def test_stratified_difference_weights_count_seats_that_many_times():
    values = np.array([[1.0], [3.0], [2.0]])
    won = np.array([True, True, False])
    assert stratified_difference(values, won)[0] == pytest.approx(2.0 - 2.0)
    assert stratified_difference(values, won, weights=[3, 1, 1])[0] == pytest.approx(
        (3 * 1 + 3) / 4 - 2.0)


def test_mantel_haenszel_weights_of_two_strata():
    """Stratum 1: 2 winners, 2 losers, difference 1 (weight 2*2/4 = 1); stratum 2: 1
    winner, 3 losers, difference -1 (weight 3/4): (1 - 0.75) / 1.75."""
    values = np.array([1, 1, 0, 0, 0, 1, 1, 1], dtype=float)
    won = np.array([1, 1, 0, 0, 1, 0, 0, 0], dtype=bool)
    strata = np.array([1, 1, 1, 1, 2, 2, 2, 2])
    assert stratified_difference(values, won, strata)[0] == pytest.approx(0.25 / 1.75)


def test_game_bootstrap_is_seeded_and_brackets_the_estimate():
    generator = np.random.default_rng(5)
    values = generator.random((120, 2))
    won = np.tile([True, False, False], 40)
    values[won, 0] += 0.5
    games = np.repeat(np.arange(40), 3)
    first = game_bootstrap_difference(values, won, games, resamples=200, seed=3)
    second = game_bootstrap_difference(values, won, games, resamples=200, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    estimate, low, high = first
    assert np.all(low <= estimate) and np.all(estimate <= high)
    assert low[0] > 0.3 and high[0] < 0.7  # the +0.5 shows, the interval is not vacuous
    assert low[1] < 0 < high[1]  # no difference in the second column


# The whole study on real games -------------------------------------------------------------

def test_analyse_a_small_league(entries):
    report = analyse(entries, resamples=50, minimum_buyers=3, minimum_games=3)
    assert report["games"] == len(entries) and report["forfeited"] == 0
    assert report["player_counts"] == {2: 6, 3: 3, 4: 4}
    assert report["agents"] == ["dale", "greedy", "random"]
    assert {row["players"] for row in report["positions"]} == {2, 3, 4}
    assert sum(row["games"] for row in report["positions"]) == sum(
        entry["players"] for entry in entries)
    sentences = report["established"] + report["not_established"]
    assert any(sentence.startswith("At 4 players the first player won ") for sentence in sentences)
    assert all("[" in sentence for sentence in sentences if "too few" not in sentence)


@pytest.mark.parametrize("raw,adjusted,established", [
    ((0.1, 0.3), (0.05, 0.2), True),
    ((-0.3, -0.1), (-0.2, -0.01), True),
    ((0.1, 0.3), (-0.2, 0.1), False),  # within agents the difference may be nil
    ((0.1, 0.3), (-0.3, -0.1), False),  # opposite signs: the agents made the difference
    ((-0.1, 0.3), (0.1, 0.2), False),
    ((0.1, 0.3), (np.nan, np.nan), False),  # no agent both won and lost
])
def test_a_difference_is_established_when_both_intervals_exclude_zero_alike(raw, adjusted,
                                                                             established):
    from agents.league_analysis import _excludes_zero_alike
    row = {"low": raw[0], "high": raw[1], "adjusted_low": adjusted[0],
           "adjusted_high": adjusted[1]}
    assert _excludes_zero_alike(row) is established
