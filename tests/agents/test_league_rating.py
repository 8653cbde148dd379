"""The league's static rating (agents/league_rating.py): Plackett-Luce maximum-likelihood
strengths with standard errors from the observed information, and the lead."""

import math

import numpy as np
import pytest

from agents.league_rating import (RatingError, difference, fit_strengths, log_likelihood,
                                  orders_of, rate_league, strength_lead)


def seat_rows(table: int, agents: list[str], populations: list[int], wins=None,
              forfeits=None) -> list[dict]:
    """Result rows of one game, as the league writes them."""
    wins = wins or [0.0] * len(agents)
    forfeits = forfeits or [None] * len(agents)
    return [{"table": table, "seat": seat, "agent": agent, "population": population,
             "win": win, "forfeit": forfeit}
            for seat, (agent, population, win, forfeit)
            in enumerate(zip(agents, populations, wins, forfeits))]


def simulated_games(strengths: dict, games: int, players: int, seed: int,
                    first_table: int = 0) -> list[dict]:
    """Games drawn from the Plackett-Luce model itself: each seat's utility is its
    strength plus a standard Gumbel draw, the highest utility finishing first."""
    rng = np.random.default_rng(seed)
    labels = list(strengths)
    rows = []
    for game in range(games):
        seated = [labels[i] for i in rng.choice(len(labels), players, replace=False)]
        utility = np.array([strengths[label] for label in seated]) + rng.gumbel(size=players)
        place = np.argsort(np.argsort(-utility))  # 0 for the first place
        rows += seat_rows(first_table + game, seated, [100 - 10 * int(p) for p in place])
    return rows


def test_two_agents_three_wins_to_one_give_the_closed_form():
    # A 2-player Plackett-Luce is Bradley-Terry: the gap is log(3), its variance
    # 1 / (n p (1 - p)) with p = 3/4 over n = 4 games.
    rows = []
    for table, (first, second) in enumerate([("a", "b")] * 3 + [("b", "a")]):
        rows += seat_rows(table, [first, second], [90, 80])
    fit = fit_strengths(rows, ["a", "b"])
    assert fit["strengths"] == pytest.approx([math.log(3) / 2, -math.log(3) / 2], abs=1e-9)
    gap_error = math.sqrt(1 / (4 * 0.75 * 0.25))
    assert fit["standard_errors"] == pytest.approx([gap_error / 2, gap_error / 2], abs=1e-9)
    lead = strength_lead(fit)
    assert (lead["leader"], lead["next"]) == ("a", "b")
    assert lead["difference"] == pytest.approx(math.log(3), abs=1e-9)
    assert lead["standard_error"] == pytest.approx(gap_error, abs=1e-9)
    assert lead["z"] == pytest.approx(math.log(3) / gap_error, abs=1e-8)
    assert lead["head_to_head"] == pytest.approx(0.75, abs=1e-9)
    assert fit["games"] == 4 and fit["games_per_agent"] == [4, 4] and fit["deals"] == 4
    # All four games on one deal: no spread between deals to measure.
    one_deal = fit_strengths([dict(row, seed=9) for row in rows], ["a", "b"])
    assert one_deal["deals"] == 1 and one_deal["deal_covariance"] is None
    assert strength_lead(one_deal)["deal_z"] is None
    assert strength_lead(one_deal)["z"] == pytest.approx(lead["z"], abs=1e-12)


def test_a_tie_is_every_order_of_the_tied_seats():
    # a > {b, c} tied > d: the likelihood sums the two orders of b and c.
    rows = seat_rows(0, ["a", "b", "c", "d"], [100, 90, 90, 80])
    s = np.array([0.3, -0.2, 0.5, 0.1])
    e = np.exp(s)
    expected = (e[0] / e.sum()) * (e[1] / (e[1] + e[2] + e[3]) * e[2] / (e[2] + e[3])
                                   + e[2] / (e[1] + e[2] + e[3]) * e[1] / (e[1] + e[3]))
    value, gradient, hessian = log_likelihood(rows, ["a", "b", "c", "d"], s)
    assert value == pytest.approx(math.log(expected), abs=1e-12)
    step = 1e-6
    for agent in range(4):
        shift = np.eye(4)[agent] * step
        up = log_likelihood(rows, ["a", "b", "c", "d"], s + shift)
        down = log_likelihood(rows, ["a", "b", "c", "d"], s - shift)
        assert gradient[agent] == pytest.approx((up[0] - down[0]) / (2 * step), abs=1e-7)
        assert hessian[agent] == pytest.approx((up[1] - down[1]) / (2 * step), abs=1e-6)
    assert sorted(orders_of([(1, 100), (1, 90), (1, 90), (1, 80)])) == [(0, 1, 2, 3),
                                                                        (0, 2, 1, 3)]


def test_ties_in_two_player_games_carry_no_information_and_the_win_breaks_a_tie():
    rows = []
    for table, (first, second) in enumerate([("a", "b")] * 3 + [("b", "a")]):
        rows += seat_rows(table, [first, second], [90, 80])
    with_ties = rows + seat_rows(10, ["a", "b"], [85, 85]) + seat_rows(11, ["b", "a"], [70, 70])
    plain, tied = fit_strengths(rows, ["a", "b"]), fit_strengths(with_ties, ["a", "b"])
    assert tied["strengths"] == pytest.approx(plain["strengths"], abs=1e-9)
    assert tied["standard_errors"] == pytest.approx(plain["standard_errors"], abs=1e-9)
    # A tie in population that the rules break (R8.3) is a win: 4 to 1 for a.
    broken = rows + seat_rows(12, ["a", "b"], [85, 85], wins=[1.0, 0.0])
    assert difference(fit_strengths(broken, ["a", "b"]), "a", "b")["difference"] == \
        pytest.approx(math.log(4), abs=1e-9)


def test_a_forfeit_ranks_last_whatever_its_population():
    rows = []
    for table, (first, second) in enumerate([("a", "b")] * 2 + [("b", "a")] * 2):
        rows += seat_rows(table, [first, second], [90, 80])
    rows += seat_rows(9, ["a", "b"], [200, 10], forfeits=["illegal action", None])
    fit = fit_strengths(rows, ["a", "b"])
    assert difference(fit, "b", "a")["difference"] == pytest.approx(math.log(3 / 2), abs=1e-9)


def test_simulated_games_recover_known_strengths_within_their_errors():
    truth = {"p": 0.9, "q": 0.3, "r": 0.0, "s": -0.35, "t": -1.0}
    centre = np.mean(list(truth.values()))
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        fit = fit_strengths(simulated_games(truth, 1200, players, seed), list(truth))
        assert sum(fit["strengths"]) == pytest.approx(0, abs=1e-9)
        for label, strength, error in zip(fit["labels"], fit["strengths"],
                                          fit["standard_errors"]):
            assert abs(strength - (truth[label] - centre)) < 3 * error, (players, label)
        # More seats per game, more comparisons per game: smaller errors.
        assert max(fit["standard_errors"]) < {2: 0.12, 3: 0.08, 4: 0.06}[players]
        lead = strength_lead(fit)
        assert (lead["leader"], lead["next"]) == ("p", "q") and lead["z"] > 2
        assert fit["games"] == 1200


def test_the_fit_does_not_depend_on_the_order_of_the_games():
    truth = {"p": 0.5, "q": 0.0, "r": -0.5}
    rows = simulated_games(truth, 300, 3, 7)
    renumbered = np.random.default_rng(0).permutation(300)
    shuffled = [dict(row, table=int(renumbered[row["table"]])) for row in rows[::-1]]
    first, second = fit_strengths(rows, list(truth)), fit_strengths(shuffled, list(truth))
    assert second["strengths"] == pytest.approx(first["strengths"], abs=1e-10)
    assert np.allclose(second["covariance"], first["covariance"], atol=1e-10)
    assert fit_strengths(rows, list(truth)) == first  # deterministic


@pytest.mark.slow
def test_two_equal_agents_lead_each_other_by_a_standard_normal_z():
    truth = {"a": 0.3, "b": 0.3, "c": 0.0, "d": -0.3}
    z = np.array([difference(fit_strengths(simulated_games(truth, 100, 3, 1000 + run),
                                           list(truth)), "a", "b")["z"]
                  for run in range(200)])
    assert abs(z.mean()) < 0.2  # standard error of the mean of 200: 0.07
    assert 0.85 < z.std() < 1.15
    assert 0.01 <= np.mean(np.abs(z) > 1.96) <= 0.10  # 5% expected


@pytest.mark.slow
def test_the_lead_grows_like_the_square_root_of_the_games():
    # Two agents 0.4 apart: a share p = 0.599 head to head, and the expected z over n
    # games is 0.4 sqrt(n p (1 - p)): 1.96, 3.92 and 7.84 for 100, 400 and 1,600 games.
    p = 1 / (1 + math.exp(-0.4))
    means = []
    for games in (100, 400, 1600):
        z = [strength_lead(fit_strengths(simulated_games({"a": 0.4, "b": 0.0}, games, 2,
                                                         run), ["a", "b"]))["z"]
             for run in range(30)]
        means.append(np.mean(z))
        assert np.mean(z) == pytest.approx(0.4 * math.sqrt(games * p * (1 - p)), abs=0.5)
    assert means[2] / means[0] == pytest.approx(4, rel=0.15)


def test_bad_games_are_refused_with_the_reason():
    rows = seat_rows(0, ["a", "b"], [90, 80]) + seat_rows(1, ["b", "a"], [90, 80])
    with pytest.raises(RatingError, match="no game for c"):
        fit_strengths(rows, ["a", "b", "c"])
    ties = seat_rows(0, ["a", "b"], [90, 90]) + seat_rows(1, ["a", "b", "c"], [70, 70, 70])
    with pytest.raises(RatingError, match="every game a tie"):
        fit_strengths(ties, ["a", "b", "c"])
    unbeaten = rows + seat_rows(2, ["c", "a"], [99, 10]) + seat_rows(3, ["b", "c"], [10, 99])
    with pytest.raises(RatingError, match="never finished behind another agent: c"):
        fit_strengths(unbeaten, ["a", "b", "c"])
    with pytest.raises(RatingError, match="two or more agents"):
        fit_strengths(rows, ["a"])
    with pytest.raises(RatingError, match="'z', not among the rated agents"):
        fit_strengths(rows + seat_rows(5, ["a", "z"], [1, 2]), ["a", "b"])
    assert rate_league(unbeaten, ["a", "b", "c"]) == {
        "error": "the maximum-likelihood strengths do not exist (they would run to "
                 "infinity): never finished behind another agent: c"}
    assert "every game a tie" in rate_league(ties, ["a", "b", "c"])["error"]


def test_a_league_with_an_agent_below_everyone_rates_the_top_group():
    truth = {"p": 0.6, "q": 0.2, "r": -0.2}
    rows = simulated_games(truth, 300, 2, 4)
    # "w" plays everyone and finishes behind in every game: its strength runs to minus
    # infinity, and the likelihood's limit is that of the others' games.
    for table, other in enumerate(["p", "q", "r"] * 5):
        rows += seat_rows(1000 + table, ["w", other], [5, 50])
    rated = rate_league(rows, ["p", "q", "r", "w"])
    alone = fit_strengths([row for row in rows if row["table"] < 1000], ["p", "q", "r"])
    assert rated["below"] == ["w"] and rated["lead"]["below"] == ["w"]
    assert rated["fit"]["strengths"] == pytest.approx(alone["strengths"], abs=1e-9)
    assert rated["lead"] == {**strength_lead(alone), "below": ["w"]}
    with pytest.raises(RatingError, match="never finished ahead of another agent: w"):
        fit_strengths(rows, ["p", "q", "r", "w"])


def test_the_deal_covariance_counts_the_games_of_a_deal_as_one_sample():
    truth = {"p": 0.5, "q": 0.0, "r": -0.5}
    rows = [dict(row, seed=row["table"]) for row in simulated_games(truth, 2000, 3, 11)]
    fit = fit_strengths(rows, list(truth))
    # Independent games: the sandwich and the model agree (to sampling noise).
    assert np.array(fit["standard_errors"]) == pytest.approx(
        np.sqrt(np.diag(fit["deal_covariance"])), rel=0.1)
    assert fit["deals"] == 2000
    # Every game played twice on its deal with the same result: the model takes it for
    # twice the evidence (errors / sqrt 2), the deal covariance for the same evidence.
    twice = rows + [dict(row, table=row["table"] + 5000) for row in rows]
    doubled = fit_strengths(twice, list(truth))
    assert doubled["strengths"] == pytest.approx(fit["strengths"], abs=1e-9)
    assert np.array(doubled["standard_errors"]) == pytest.approx(
        np.array(fit["standard_errors"]) / math.sqrt(2), rel=1e-9)
    assert np.allclose(doubled["deal_covariance"], fit["deal_covariance"], rtol=1e-8,
                       atol=1e-12)
    lead, doubled_lead = strength_lead(fit), strength_lead(doubled)
    assert doubled_lead["z"] == pytest.approx(lead["z"] * math.sqrt(2), rel=1e-9)
    assert doubled_lead["deal_z"] == pytest.approx(lead["deal_z"], rel=1e-8)
    assert doubled_lead["deals"] == 2000 and doubled_lead["games"] == 4000
