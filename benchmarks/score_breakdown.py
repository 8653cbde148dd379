"""Where an agent's points come from, and where it loses them: the final scores of seeded
games against one opponent, split by what scored (R8.2), for one or more agents on the
same deals.

    python benchmarks/score_breakdown.py --agents ppo:models/multiplayer-styles.safetensors \\
        --opponent goals --players 2 --games 200 --seed 7500000

Game i has seed SEED + i; the agent sits at seat i mod PLAYERS and every other seat is
the opponent (its generator seeded from the game's seed and its seat, as in
tournaments), so each agent listed meets the same deals in the same seats. Printed per
agent: its win share (a shared win counting 1/winners, R8.3) with a 95% Wilson interval,
the means per game of population before the goals, public goals' bonuses, private goal's
bonus, money converted and final population, for the agent and for the opponent who
finished highest, over all games and over the games the agent did not win. After the
first agent, each other one's paired difference in win share on the same games.
`--by-goal` adds, per public goal drawn, how often the agent, an opponent or nobody took
its bonus (R8.2: only a player alone in front scores it), over all games and over the
games the agent did not win.
docs/yardsticks.md ("Where the policy loses: the goals") used it to find what the
multi-player policy gives away and to tune the goal prior's weight.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")

from agents.registry import make_agent  # noqa: E402
from agents.statistics import wilson_interval  # noqa: E402
from agents.table import Table, agent_seed  # noqa: E402
from suburbia_env import Game  # noqa: E402

PARTS = ("population_before_goals", "public_goals", "private_goal_bonus",
         "money_converted", "population")
LABELS = ("before goals", "public goals", "private goal", "money", "final")


def score_parts(score: dict) -> dict[str, int]:
    """One seat's final score (`Game.final_scores`) as the parts of PARTS."""
    return {"population_before_goals": score["population_before_goals"],
            "public_goals": sum(score["public_goals"].values()),
            "private_goal_bonus": score["private_goal_bonus"],
            "money_converted": score["money_converted"],
            "population": score["population"]}


def seated_game(agent, opponent: str, players: int, index: int,
                seed: int) -> tuple[Game, Table, int]:
    """Game `index` of the deals from `seed` (the module docstring): the game, its table
    with every seat's agent reseeded, and the agent's seat."""
    game_seed = seed + index
    seat = index % players
    seats = {other: make_agent(opponent, seed=agent_seed(game_seed, other))
             for other in range(players) if other != seat}
    seats[seat] = agent
    table = Table(seats)
    table.reseed(game_seed)
    return Game(players=players, seed=game_seed), table, seat


def play(agent_spec: str, opponent: str, players: int, games: int, seed: int) -> list[dict]:
    """One record per game: the agent's seat, its win share and the parts of its score
    and of the highest-finishing opponent's."""
    agent = make_agent(agent_spec, allow_code=True)
    records = []
    for index in range(games):
        game, table, seat = seated_game(agent, opponent, players, index, seed)
        table.play_out(game)
        scores = game.final_scores()
        winners = game.winners
        best = max((score for score in scores if score["player"] != seat),
                   key=lambda score: score["population"])
        taken = {name: ("agent" if bonus > 0 else "opponent" if any(
                     score["public_goals"][name] > 0 for score in scores
                     if score["player"] != seat) else "nobody")
                 for name, bonus in scores[seat]["public_goals"].items()}
        records.append({"seat": seat, "win": (1 / len(winners)) if seat in winners else 0.0,
                        "agent": score_parts(scores[seat]), "opponent": score_parts(best),
                        "public_goals_taken": taken})
    return records


def by_goal(records: list[dict]) -> dict[str, dict[str, int]]:
    """Per public goal: the games it was drawn in, how many of them the agent, an opponent
    or nobody took its bonus, and in how many of the games the agent did not win an
    opponent took it."""
    table: dict[str, dict[str, int]] = {}
    for record in records:
        for name, taker in record["public_goals_taken"].items():
            row = table.setdefault(name, {"games": 0, "agent": 0, "opponent": 0, "nobody": 0,
                                          "opponent_in_not_won": 0})
            row["games"] += 1
            row[taker] += 1
            row["opponent_in_not_won"] += taker == "opponent" and record["win"] < 1
    return dict(sorted(table.items(), key=lambda item: (-item[1]["opponent"] / item[1]["games"],
                                                        item[0])))


def format_by_goal(table: dict[str, dict[str, int]]) -> str:
    lines = [f"  {'public goal':<24} {'drawn':>5}  {'agent':>5} {'opponent':>8} {'nobody':>6}"
             f"  {'opponent, in games not won':>26}"]
    for name, row in table.items():
        games = row["games"]
        lines.append(f"  {name:<24} {games:>5}  {row['agent'] / games:>5.2f} "
                     f"{row['opponent'] / games:>8.2f} {row['nobody'] / games:>6.2f}  "
                     f"{row['opponent_in_not_won']:>26}")
    return "\n".join(lines)


def summary(records: list[dict]) -> dict:
    wins = sum(record["win"] for record in records)
    low, high = wilson_interval(wins, len(records))
    lost = [record for record in records if record["win"] < 1]

    def means(chosen, side):
        return {part: (sum(r[side][part] for r in chosen) / len(chosen)) if chosen
                else math.nan for part in PARTS}
    return {"games": len(records), "win_rate": wins / len(records), "low": low, "high": high,
            "all": (means(records, "agent"), means(records, "opponent")),
            "lost": (means(lost, "agent"), means(lost, "opponent")), "lost_games": len(lost)}


def format_summary(spec: str, opponent: str, entry: dict) -> str:
    lines = [f"{spec} against {opponent}: win share {entry['win_rate']:.3f} "
             f"[{entry['low']:.3f}, {entry['high']:.3f}] over {entry['games']} games",
             f"  {'means per game':<16} {'all games: agent : best opponent':>34}   "
             f"{'not won (' + str(entry['lost_games']) + '): agent : opponent':>36}"]
    for part, label in zip(PARTS, LABELS):
        mine, theirs = entry["all"][0][part], entry["all"][1][part]
        lost_mine, lost_theirs = entry["lost"][0][part], entry["lost"][1][part]
        lines.append(f"  {label:<16} {mine:>24.1f} : {theirs:<7.1f}   "
                     f"{lost_mine:>26.1f} : {lost_theirs:<7.1f}")
    return "\n".join(lines)


def paired(first: list[dict], other: list[dict]) -> tuple[float, float, float, int, int]:
    """Mean of other's win minus first's, game by game, with a 95% normal interval, and
    the games other won more and less."""
    differences = [b["win"] - a["win"] for a, b in zip(first, other)]
    count = len(differences)
    mean = sum(differences) / count
    variance = sum((d - mean) ** 2 for d in differences) / max(1, count - 1)
    half = 1.959964 * math.sqrt(variance / count)
    return (mean, mean - half, mean + half, sum(d > 0 for d in differences),
            sum(d < 0 for d in differences))


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", required=True,
                        help="agent specs, each played on the same deals")
    parser.add_argument("--opponent", default="greedy", help="the spec of every other seat")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7_500_000)
    parser.add_argument("--by-goal", action="store_true",
                        help="also print, per public goal drawn, who took its bonus")
    arguments = parser.parse_args(argv)
    if arguments.games < 1:
        parser.error("--games must be at least 1")
    return arguments


def main(argv=None, out=sys.stdout) -> list[dict]:
    arguments = parse(argv)
    played = []
    for spec in arguments.agents:
        records = play(spec, arguments.opponent, arguments.players, arguments.games,
                       arguments.seed)
        played.append(records)
        print(format_summary(spec, arguments.opponent, summary(records)), file=out, flush=True)
        if arguments.by_goal:
            print(format_by_goal(by_goal(records)), file=out, flush=True)
        if len(played) > 1:
            mean, low, high, up, down = paired(played[0], records)
            print(f"  minus {arguments.agents[0]}, same games: {mean:+.3f} [{low:+.3f}, "
                  f"{high:+.3f}] ({up} up, {down} down)", file=out, flush=True)
    return played


if __name__ == "__main__":
    main()
