"""Why the league's lead uses a static rating (docs/league.md, "The lead at each player
count"): the same simulated games rated by OpenSkill (the league's overall table) and by
the Plackett-Luce maximum-likelihood fit (agents/league_rating.py).

    python benchmarks/league_rating.py                     # 2 agents, 60% head to head
    python benchmarks/league_rating.py --share 0.55 --games 250 1000 4000 16000

Two agents play 2-player games, seats alternating, the first ranked first in a seeded
share of them. Printed per number of games: the first's win share, the static fit's
difference of strength, its standard error and their ratio z, and OpenSkill's mu gap,
combined sigma and their ratio. OpenSkill's sigma settles (its dynamics factor tau adds
variance before every update), so its ratio stays small however many games are played;
the static z grows like sqrt(games). No timing: the figures depend only on the seed.
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.league import rating_lead
from agents.league_rating import fit_strengths, strength_lead
from agents.tournament_results import openskill_ratings


def simulated_rows(games: int, share: float, seed: int) -> list[dict]:
    """Result rows of `games` 2-player games of agents a and b, a first in `share`."""
    rng = np.random.default_rng(seed)
    rows = []
    for table in range(games):
        a_first = bool(rng.random() < share)
        seats = ("a", "b") if table % 2 == 0 else ("b", "a")
        for seat, agent in enumerate(seats):
            won = (agent == "a") == a_first
            rows.append({"table": table, "seat": seat, "agent": agent,
                         "population": 90 if won else 80, "win": float(won)})
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--share", type=float, default=0.6,
                        help="chance that agent a finishes first (default 0.6)")
    parser.add_argument("--games", type=int, nargs="+", default=[250, 1000, 4000])
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)
    rows = simulated_rows(max(arguments.games), arguments.share, arguments.seed)
    print(f"two agents, a first with chance {arguments.share}, seed {arguments.seed}")
    print(f"{'games':>6} {'a won':>6} | {'static gap':>10} {'± se':>6} {'z':>6} | "
          f"{'OpenSkill mu gap':>16} {'comb. sigma':>11} {'ratio':>6}")
    for games in sorted(arguments.games):
        here = [row for row in rows if row["table"] < games]
        static = strength_lead(fit_strengths(here, ["a", "b"]))
        if static["leader"] != "a":
            static = {**static, "difference": -static["difference"], "z": -static["z"]}
        openskill = openskill_ratings(here, ["a", "b"])["ratings"]
        lead = rating_lead(openskill)
        sign = 1 if lead["leader"] == "a" else -1
        share = np.mean([row["win"] for row in here if row["agent"] == "a"])
        print(f"{games:>6} {share:>6.3f} | {static['difference']:>10.3f} "
              f"{static['standard_error']:>6.3f} {static['z']:>6.2f} | "
              f"{sign * lead['mu_gap']:>16.2f} {lead['combined_sigma']:>11.2f} "
              f"{sign * lead['lead_in_sigma']:>6.2f}")


if __name__ == "__main__":
    main()
