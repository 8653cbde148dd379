"""A static rating of a league's games: one Plackett-Luce strength per agent, fitted by
maximum likelihood to all the games at once, with standard errors from the observed
information. It answers "is the strongest agent stronger than the next, given these
games?" (issue 32; docs/league.md, "The lead at each player count").

Why not OpenSkill's sigma: OpenSkill rates game by game and adds its dynamics variance
(tau) before every update, so its sigma settles near 1.5 however many games are played
and depends on their order. Here the agents' strengths are assumed fixed (they are: a
league's agents do not learn), every game counts the same whatever its place in the
league, and the standard errors shrink like 1/sqrt(games).

The model. Agent a has strength s_a. A game ranks its seats by final population, a tie
broken as the win is (R8.3), a seat that forfeited last. Plackett-Luce: the first place
goes to seat i with probability exp(s_i) / sum over all seats exp(s_j), the next place
likewise among the seats left, and so on. Seats still tied are an order not observed:
the likelihood of a game is the sum over every order of its tied groups, the
probability that each group takes its places in some order. The log-likelihood is concave in the
strengths (a Gumbel utility model over a convex set of orders, Prekopa), so Newton's
method with a backtracking line search finds its one maximum when it exists.

The standard errors assume independent games. The league plays each deal once per
seating, so the games of a deal share their tiles and goals; as a check, the fit also
gives the sandwich covariance with each deal's games as one sample
(`deal_covariance`: the information's inverse around the sum over deals of the outer
products of their summed scores, times deals / (deals - 1); None from a single deal),
and the lead's z with it.

Only differences of strength are defined: the strengths are given with mean 0, and the
covariance is that of the centred strengths. A difference of 1 is odds of e to 1 in a
game of two (a share of 0.731 of the games won head to head).

The maximum exists only if no group of agents finished ahead of every other agent in
every game they met it (else the group's strength runs to infinity): the agents must
form one strongly connected graph of "finished ahead of at least once". `fit_strengths`
raises RatingError (a ValueError) naming the agents otherwise, and for an agent without a
game, a league without an ordering (all ties) and a single agent. `rate_league` rates
the top group alone when only weaker agents break that condition (its docstring).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

MAX_ITERATIONS = 100
TOLERANCE = 1e-10


class RatingError(ValueError):
    """The games cannot give these agents a maximum-likelihood strength (module
    docstring): no game, no ordering, or an agent never beaten or never ahead."""


def standing(row: dict) -> tuple:
    """A seat's place in its game, higher is better: not forfeited, then final population,
    then its share of the win (R8.3 breaks a tie in population; a shared win stays tied)."""
    return (not row.get("forfeit"), row["population"] or 0, float(row.get("win") or 0))


def game_standings(rows: list[dict], labels: list[str]) -> list[tuple[list[int], list]]:
    """Per game (by table number, in increasing order): the agent index of each seat and
    its standing (`standing`). Rows of agents
    not in `labels` are refused: every seat of a rated game must be rated."""
    index = {label: number for number, label in enumerate(labels)}
    games: dict[int, list[dict]] = {}
    for row in rows:
        if row["agent"] not in index:
            raise RatingError(f"game {row['table']} seats {row['agent']!r}, not among the "
                              f"rated agents {labels}")
        games.setdefault(int(row["table"]), []).append(row)
    standings = []
    for table in sorted(games):
        seats = sorted(games[table], key=lambda row: row["seat"])
        if len(seats) < 2:
            raise RatingError(f"game {table} has {len(seats)} seat; a game ranks 2 or more")
        standings.append(([index[row["agent"]] for row in seats],
                          [standing(row) for row in seats]))
    return standings


def orders_of(standing: list) -> list[tuple[int, ...]]:
    """Every order of the seats (best first) that agrees with their standings: the
    seats of a better standing first, tied seats in each of their orders."""
    levels = sorted(set(standing), reverse=True)
    groups = [[seat for seat, value in enumerate(standing) if value == level]
              for level in levels]
    return [tuple(seat for part in parts for seat in part)
            for parts in itertools.product(*(itertools.permutations(g) for g in groups))]


def _orders_array(games: list[tuple[list[int], list]]):
    """(orders, game_of_order): orders[m] the agent indices of one consistent order of a
    game, best first, padded with -1 to the largest table; game_of_order[m] its game."""
    width = max(len(agents) for agents, _ in games)
    orders, owners = [], []
    for number, (agents, standing) in enumerate(games):
        for order in orders_of(standing):
            orders.append([agents[seat] for seat in order] + [-1] * (width - len(order)))
            owners.append(number)
    return np.array(orders, dtype=np.int64), np.array(owners, dtype=np.int64)


def _log_likelihood_parts(strengths, orders, owners, games, need_hessian=True):
    """Log-likelihood, gradient and Hessian (in the agents' coordinates) of the games, and
    the gradient of each game's log-likelihood (rows: games)."""
    agents = strengths.size
    valid = orders >= 0
    rows, width = orders.shape
    values = np.where(valid, strengths[np.where(valid, orders, 0)], -np.inf)
    # stage k picks position k among positions k.. (the seats still unplaced)
    later = np.triu(np.ones((width, width), dtype=bool))  # later[k, j]: j >= k
    stage_values = np.where(later[None], values[:, None, :], -np.inf)  # (rows, k, j)
    top = np.max(stage_values, axis=2, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    weights = np.exp(stage_values - top)
    totals = weights.sum(axis=2, keepdims=True)
    live = valid  # a stage exists where its position holds a seat
    totals = np.where(live[:, :, None], totals, 1.0)
    chances = np.where(live[:, :, None], weights / totals, 0.0)  # p[m, k, j]
    log_terms = np.where(live, values - (top[:, :, 0] + np.log(totals[:, :, 0])), 0.0)
    order_log = log_terms.sum(axis=1)
    # position gradient: 1 - sum over stages k <= j of p[k, j]
    position_gradient = np.where(valid, 1.0 - chances.sum(axis=1), 0.0)
    best = np.full(len(games), -np.inf)
    np.maximum.at(best, owners, order_log)
    scaled = np.exp(order_log - best[owners])
    game_totals = np.zeros(len(games))
    np.add.at(game_totals, owners, scaled)
    log_likelihood = float(np.sum(best + np.log(game_totals)))
    mix = scaled / game_totals[owners]  # weight of each order within its game
    one_hot = np.zeros((rows, width, agents))
    seat_rows, seat_positions = np.nonzero(valid)
    one_hot[seat_rows, seat_positions, orders[seat_rows, seat_positions]] = 1.0
    order_gradient = np.einsum("mj,mja->ma", position_gradient, one_hot)
    game_gradient = np.zeros((len(games), agents))
    np.add.at(game_gradient, owners, mix[:, None] * order_gradient)
    gradient = game_gradient.sum(axis=0)
    if not need_hessian:
        return log_likelihood, gradient, None, game_gradient
    # position Hessian of one order: -(diag(sum_k p[k]) - sum_k p[k] p[k]^T)
    position_hessian = (np.einsum("mkj,mkl->mjl", chances, chances)
                        - np.einsum("mj,jl->mjl", chances.sum(axis=1), np.eye(width)))
    hessian = np.einsum("m,mja,mjl,mlb->ab", mix, one_hot, position_hessian, one_hot,
                        optimize=True)
    hessian += np.einsum("m,ma,mb->ab", mix, order_gradient, order_gradient)
    hessian -= game_gradient.T @ game_gradient
    return log_likelihood, gradient, hessian, game_gradient


def log_likelihood(rows: list[dict], labels: list[str], strengths) -> tuple:
    """(log-likelihood, gradient, Hessian) of the games of `rows` at the strengths given
    per agent of `labels` (the model of the module docstring)."""
    games = game_standings(rows, labels)
    orders, owners = _orders_array(games)
    return _log_likelihood_parts(np.asarray(strengths, dtype=np.float64), orders, owners,
                                 games)[:3]


def _ahead_graph(games, count: int) -> np.ndarray:
    """ahead[a, b]: agent a finished ahead of agent b in at least one game."""
    ahead = np.zeros((count, count), dtype=bool)
    for agents, standings in games:
        for first, second in itertools.permutations(range(len(agents)), 2):
            if standings[first] > standings[second]:
                ahead[agents[first], agents[second]] = True
    return ahead


def _reach(ahead: np.ndarray) -> np.ndarray:
    """reach[a, b]: a chain of "finished ahead of" leads from a to b (or a is b)."""
    reach = ahead | np.eye(len(ahead), dtype=bool)
    for middle in range(len(ahead)):
        reach |= reach[:, [middle]] & reach[[middle], :]
    return reach


def top_group(rows: list[dict], labels: list[str]) -> list[str]:
    """The agents that no agent outside them ever finished ahead of and that reach one
    another through chains of games won (the one top strongly connected group); []
    when there are several such groups (the games do not order them)."""
    games = game_standings(rows, labels)
    reach = _reach(_ahead_graph(games, len(labels)))
    tops = {frozenset(np.nonzero(reach[a] & reach[:, a])[0]) for a in range(len(labels))
            if all(reach[a, b] or not reach[b, a] for b in range(len(labels)))}
    if len(tops) != 1:
        return []
    return [labels[a] for a in sorted(next(iter(tops)))]


def _check_connected(games, labels: list[str]) -> None:
    """RatingError unless every agent finished ahead of, and behind, the others through
    a chain of games (one strongly connected graph: module docstring)."""
    count = len(labels)
    ahead = _ahead_graph(games, count)
    if not ahead.any():
        raise RatingError("no game ranks one agent above another (every game a tie): "
                          "no strength can be fitted")
    reach = _reach(ahead)
    if reach.all():
        return
    never_ahead = [labels[a] for a in range(count) if not ahead[a].any()]
    never_behind = [labels[a] for a in range(count) if not ahead[:, a].any()]
    detail = []
    if never_behind:
        detail.append(f"never finished behind another agent: {', '.join(never_behind)}")
    if never_ahead:
        detail.append(f"never finished ahead of another agent: {', '.join(never_ahead)}")
    if not detail:
        above = [labels[a] for a in range(count) if reach[a].all()]
        detail.append("a group of agents finished ahead of the others in every game they "
                      f"met: {', '.join(above) if above else 'see the games'}")
    raise RatingError("the maximum-likelihood strengths do not exist (they would run to "
                      "infinity): " + "; ".join(detail))


def deal_numbers(rows: list[dict]) -> np.ndarray:
    """Per game (by table number, in increasing order) its deal: the seed, which the
    league's seatings of one table share (agents/league.py); the table when rows carry
    no seed (every game its own deal)."""
    deals = {}
    for row in rows:
        deals.setdefault(int(row["table"]), row.get("seed", f"table {row['table']}"))
    keys = [str(deals[table]) for table in sorted(deals)]
    return np.array(keys)


def fit_strengths(rows: list[dict], labels: list[str]) -> dict:
    """Plackett-Luce maximum-likelihood strengths of the agents `labels` from the seat
    rows of finished games (agents/tournament.py rows: table, seat, agent, population,
    forfeit), with their covariance (module docstring). Returns labels, strengths (mean
    0), standard errors, covariance, games per agent, games, log-likelihood and Newton
    iterations. RatingError for games that cannot give strengths."""
    labels = list(labels)
    if len(labels) < 2:
        raise RatingError(f"a rating needs two or more agents, not {labels}")
    if len(set(labels)) != len(labels):
        raise RatingError(f"agents named twice: {labels}")
    games = game_standings(rows, labels)
    played = np.zeros(len(labels), dtype=np.int64)
    for agents, _ in games:
        for agent in set(agents):
            played[agent] += 1
    missing = [label for label, count in zip(labels, played) if count == 0]
    if missing:
        raise RatingError(f"no game for {', '.join(missing)}: an agent without games has no "
                          f"strength")
    _check_connected(games, labels)
    orders, owners = _orders_array(games)
    count = len(labels)
    free = slice(1, count)  # agent 0 held at 0 while fitting, then all centred
    strengths = np.zeros(count)
    log_likelihood, gradient, hessian, _ = _log_likelihood_parts(strengths, orders, owners,
                                                                 games)
    iterations = 0
    for iterations in range(1, MAX_ITERATIONS + 1):
        information = -hessian[free, free]
        step = np.zeros(count)
        step[free] = np.linalg.solve(information, gradient[free])
        size = 1.0
        while True:
            trial = strengths + size * step
            trial_log = _log_likelihood_parts(trial, orders, owners, games, False)[0]
            if trial_log >= log_likelihood - 1e-12 or size < 1e-8:
                break
            size /= 2
        strengths = trial
        log_likelihood, gradient, hessian, game_gradient = _log_likelihood_parts(
            strengths, orders, owners, games)
        if np.max(np.abs(size * step)) < TOLERANCE:
            break
    else:
        raise RatingError(f"the fit did not converge in {MAX_ITERATIONS} Newton steps")
    information = -hessian[free, free]
    try:
        np.linalg.cholesky(information)
    except np.linalg.LinAlgError:
        raise RatingError("the observed information is singular: the games do not "
                          "determine every strength") from None
    reduced = np.linalg.inv(information)
    # Sandwich (cluster-robust) check: the scores of the games of one deal summed, as the
    # league plays each deal once per seating and those games are not independent.
    deals = deal_numbers(rows)
    clusters = np.unique(deals, return_inverse=True)[1]
    scores = np.zeros((clusters.max() + 1, count))
    np.add.at(scores, clusters, game_gradient)
    scores = scores[:, free]
    robust = (reduced @ (len(scores) / (len(scores) - 1) * scores.T @ scores) @ reduced
              if len(scores) > 1 else None)  # one deal: no spread between deals
    embed = np.zeros((count, count - 1))
    embed[1:, :] = np.eye(count - 1)
    centre = np.eye(count) - 1.0 / count

    def centred_covariance(matrix):
        full = centre @ embed @ matrix @ embed.T @ centre.T
        return (full + full.T) / 2
    covariance = centred_covariance(reduced)
    robust = None if robust is None else centred_covariance(robust).tolist()
    centred = strengths - strengths.mean()
    return {"labels": labels, "strengths": centred.tolist(),
            "standard_errors": np.sqrt(np.diag(covariance)).tolist(),
            "covariance": covariance.tolist(), "deal_covariance": robust,
            "deals": int(len(scores)), "games_per_agent": played.tolist(),
            "games": len(games), "log_likelihood": log_likelihood,
            "iterations": iterations}


def _difference_error(matrix, a: int, b: int) -> float:
    return math.sqrt(max(matrix[a][a] + matrix[b][b] - 2 * matrix[a][b], 0.0))


def difference(fit: dict, first: str, second: str) -> dict:
    """The strength of `first` minus that of `second`, its standard error
    sqrt(var1 + var2 - 2 cov12), the lead in standard errors (z), the same with the
    deal-clustered covariance (a check, module docstring) and the chance that `first`
    beats `second` in a game of two."""
    index = {label: number for number, label in enumerate(fit["labels"])}
    a, b = index[first], index[second]
    gap = fit["strengths"][a] - fit["strengths"][b]
    error = _difference_error(fit["covariance"], a, b)
    deal_error = (None if fit["deal_covariance"] is None
                  else _difference_error(fit["deal_covariance"], a, b))
    return {"leader": first, "next": second, "difference": gap, "standard_error": error,
            "z": gap / error if error > 0 else math.inf,
            "deal_standard_error": deal_error,
            "deal_z": (None if deal_error is None
                       else gap / deal_error if deal_error > 0 else math.inf),
            "head_to_head": 1.0 / (1.0 + math.exp(-gap))}


def strength_lead(fit: dict) -> dict:
    """The agent of the highest strength, its lead over the next (in standard errors of
    the difference: issue 32 asks for more than 2) and its smallest lead in standard
    errors over any other agent (the strict reading: ahead of every one)."""
    strengths = dict(zip(fit["labels"], fit["strengths"]))
    ranked = sorted(fit["labels"], key=lambda label: -strengths[label])
    lead = difference(fit, ranked[0], ranked[1])
    others = [difference(fit, ranked[0], label) for label in ranked[1:]]
    weakest = min(others, key=lambda entry: entry["z"])
    return {**lead, "smallest_z": weakest["z"], "smallest_z_over": weakest["next"],
            "games": fit["games"], "deals": fit["deals"]}


def rate_league(rows: list[dict], labels: list[str]) -> dict:
    """The strengths of the agents of `labels` that played in `rows` and the lead, or the
    reason there are none: {"fit", "lead", "below"} or {"error"}.

    When some agents finished behind a top group in every game they met it (a weak agent
    that never beat a strong one), the maximum of the likelihood lies at infinity, where
    it is the product of the rankings within each group: the top group's strengths and
    their errors are then those fitted to its own seats of the games, and the agents left
    out ("below") are below all of them without a finite difference."""
    present = [label for label in labels if any(row["agent"] == label for row in rows)]
    try:
        fit = fit_strengths(rows, present)
        return {"fit": fit, "lead": strength_lead(fit), "below": []}
    except RatingError as error:
        first_error = str(error)
        if len(present) < 2 or "every game a tie" in first_error:
            return {"error": first_error}
    top = top_group(rows, present)
    if len(top) < 2:
        return {"error": first_error}
    tables = {}
    for row in rows:
        if row["agent"] in top:
            tables.setdefault(row["table"], []).append(row)
    kept = [row for seats in tables.values() if len(seats) >= 2 for row in seats]
    try:
        fit = fit_strengths(kept, top)
    except RatingError as error:
        return {"error": str(error)}
    below = [label for label in present if label not in top]
    return {"fit": fit, "lead": {**strength_lead(fit), "below": below}, "below": below}
