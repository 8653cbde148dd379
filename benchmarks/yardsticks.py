"""Yardsticks: a model and its search against greedy, each heuristic style and a player
whose style changes mid-game, at 2 players, 4 players and mixed tables (issue 32, item 5).

    python benchmarks/yardsticks.py --model models/multiplayer.safetensors \\
        --games 1000 --search-games 200 --seed 20000000 --workers 2

Every table is played twice on the same seeds: by the policy alone (``ppo:MODEL``) and by
its search (``ppo-rollout:MODEL`` plus --search-settings), the other seats by the same
seeded agents (agents/tournament.py: game i has seed SEED_OF_TABLE + i, the seats rotate).
Table k takes the seeds from SEED + k x 100,000, so rows never share games. The search
plays the first --search-games of the policy's games (it is about fifty times slower), so
each search row is paired game by game with the policy: "search - policy" is the mean of
the model's win (a shared win counts 1/winners, R8.3) in the search's game minus its win in
the policy's, with a 95% normal interval. Win rates carry 95% Wilson intervals.

Prints one table, then writes (and after each table, so that a stopped run keeps its
rows) yardsticks.json (settings, commit, every row, every game's
wins of the model) and yardsticks.csv (the rows) to --output-dir. The seeds from
20,000,000 were used by nothing before (models/README.md, docs/agents.md and the
benchmarks used seeds below 10,000,000): none of them tuned a model, a style or the search.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from agents.registry import agent_name  # noqa: E402
from agents.statistics import wilson_interval  # noqa: E402
from agents.styles import STYLES  # noqa: E402
from agents.tournament import run_tournament  # noqa: E402

SEED_STRIDE = 100_000
"""Seeds between the first games of two tables."""
Z = 1.959964
POLICY_TARGETS = {"2p-greedy": 0.85, **{f"2p-{style}": 0.85 for style in STYLES},
                  "4p-greedy": 0.60}
"""Issue 32's targets for the multi-player policy, by table."""


def tables() -> dict[str, tuple[int, list[str]]]:
    """The tables by name: (players, the other seats' specs, in seat order)."""
    opponents = ["greedy", *STYLES]
    found = {f"2p-{name}": (2, [name]) for name in opponents}
    found["2p-switch-greedy-hoarder"] = (2, ["switching:greedy,hoarder,round=8"])
    found["2p-switch-hoarder-greedy"] = (2, ["switching:hoarder,greedy,round=8"])
    found["2p-switch-greedy-dale"] = (2, ["switching:greedy,dale,round=8"])
    found.update({f"4p-{name}": (4, [name] * 3) for name in opponents})
    found["4p-mixed-greedy-goals-lakes"] = (4, ["greedy", "goals", "lakes"])
    found["4p-mixed-reputation-hoarder-greedy"] = (4, ["reputation", "hoarder", "greedy"])
    found["3p-mixed-goals-hoarder"] = (3, ["goals", "hoarder"])
    found["4p-mixed-switching"] = (4, ["greedy", "switching:greedy,hoarder,round=6",
                                       "switching:lakes,greedy,round=10"])
    return found


def model_games(result, label: str) -> dict[int, float]:
    """The model's win in each game of a tournament, by game index (forfeit: 0)."""
    return {row["game"]: float(row["win"] or 0.0) for row in result.rows
            if row["agent"] == label}


def paired_difference(search: dict[int, float], policy: dict[int, float]):
    """(mean, low, high, games) of search minus policy over the games both played."""
    games = sorted(set(search) & set(policy))
    if not games:
        return None
    differences = [search[g] - policy[g] for g in games]
    mean = sum(differences) / len(differences)
    if len(differences) < 2:
        return mean, -1.0, 1.0, len(differences)
    variance = sum((d - mean) ** 2 for d in differences) / (len(differences) - 1)
    half = Z * math.sqrt(variance / len(differences))
    return mean, max(-1.0, mean - half), min(1.0, mean + half), len(differences)


def play_row(table: str, agent: str, spec: str, players: int, opponents: list[str],
             games: int, seed: int, workers: int) -> dict:
    """One row: `spec` at `table` for `games` games from `seed`."""
    specs = [spec, *opponents]
    started = time.time()
    result = run_tournament(specs, mode="standard", games=games, players=players, seed=seed,
                            workers=workers, progress=False)
    wins = model_games(result, agent_name(spec))
    total = sum(wins.values())
    low, high = wilson_interval(total, len(wins))
    forfeits = sum(1 for row in result.rows if row["agent"] == agent_name(spec)
                   and row["forfeit"])
    return {"table": table, "agent": agent, "spec": spec, "players": players,
            "opponents": opponents, "games": len(wins), "seed": seed,
            "win_rate": total / len(wins), "low": low, "high": high,
            "fair_share": 1.0 / players, "forfeits": forfeits,
            "seconds": round(time.time() - started, 1), "wins": wins}


def verdict(row: dict, policy: dict | None) -> str:
    """The targets of issue 32 this row bears on, met or not."""
    if row["agent"] == "policy":
        target = POLICY_TARGETS.get(row["table"])
        if target is None:
            return ""
        if row["low"] >= target:
            return f">= {target:.2f}: met (interval)"
        if row["win_rate"] >= target:
            return f">= {target:.2f}: point met, interval not"
        return f">= {target:.2f}: not met"
    difference = row.get("difference")
    if difference is None:
        return ""
    mean, low, high, _ = difference
    if high < 0:
        return "search weaker (interval below 0)"
    if low > 0:
        return "search stronger (interval above 0)"
    return "no difference shown"


def format_table(rows: list[dict]) -> str:
    header = (f"{'table':<36} {'agent':<7} {'games':>6} {'win rate [95% Wilson]':<24} "
              f"{'fair':>5} {'search - policy [95%]':<26} verdict")
    lines = [header, "-" * len(header)]
    for row in rows:
        difference = row.get("difference")
        paired = "" if difference is None else \
            f"{difference[0]:+.3f} [{difference[1]:+.3f}, {difference[2]:+.3f}]"
        lines.append(f"{row['table']:<36} {row['agent']:<7} {row['games']:>6} "
                     f"{row['win_rate']:.3f} [{row['low']:.3f}, {row['high']:.3f}]{'':<6} "
                     f"{row['fair_share']:>5.2f} {paired:<26} {row['verdict']}")
    return "\n".join(lines)


def commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def write_outputs(rows: list[dict], settings: dict, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    summary = {"settings": settings, "commit": commit(), "rows": [
        {**row, "wins": {str(game): win for game, win in sorted(row["wins"].items())}}
        for row in rows]}
    (folder / "yardsticks.json").write_text(json.dumps(summary, indent=1))
    fields = ["table", "agent", "spec", "players", "opponents", "games", "seed", "win_rate",
              "low", "high", "fair_share", "search_minus_policy", "paired_low",
              "paired_high", "paired_games", "verdict", "forfeits", "seconds"]
    with open(folder / "yardsticks.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            difference = row.get("difference") or (None,) * 4
            writer.writerow({**row, "opponents": " ".join(row["opponents"]),
                             "search_minus_policy": difference[0], "paired_low": difference[1],
                             "paired_high": difference[2], "paired_games": difference[3]})


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="models/multiplayer.safetensors")
    parser.add_argument("--games", type=int, default=1000, help="policy games a table")
    parser.add_argument("--search-games", type=int, default=200,
                        help="search games a table (0: no search rows)")
    parser.add_argument("--search-settings", default="",
                        help="appended to the search spec, e.g. ',4,4,0,inferred'")
    parser.add_argument("--seed", type=int, default=20_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tables", nargs="+", choices=sorted(tables()), default=None,
                        help="the tables to play (default: all)")
    parser.add_argument("--output-dir", default="runs/yardsticks")
    return parser.parse_args(argv)


def main(argv=None) -> list[dict]:
    arguments = parse(argv)
    every = tables()
    chosen = arguments.tables or list(every)
    settings = {key: value for key, value in vars(arguments).items()}
    settings["tables"] = chosen
    rows = []
    for name in chosen:
        players, opponents = every[name]
        seed = arguments.seed + list(every).index(name) * SEED_STRIDE
        policy = play_row(name, "policy", f"ppo:{arguments.model}", players, opponents,
                          arguments.games, seed, arguments.workers)
        policy["verdict"] = verdict(policy, None)
        rows.append(policy)
        print(f"{name}: policy {policy['win_rate']:.3f} over {policy['games']} games "
              f"({policy['seconds']} s)", file=sys.stderr, flush=True)
        if arguments.search_games > 0:
            search = play_row(name, "search",
                              f"ppo-rollout:{arguments.model}{arguments.search_settings}",
                              players, opponents, arguments.search_games, seed,
                              arguments.workers)
            search["difference"] = paired_difference(search["wins"], policy["wins"])
            search["verdict"] = verdict(search, policy)
            rows.append(search)
            print(f"{name}: search {search['win_rate']:.3f} over {search['games']} games "
                  f"({search['seconds']} s)", file=sys.stderr, flush=True)
        write_outputs(rows, settings, Path(arguments.output_dir))  # a stopped run keeps its rows
    print(format_table(rows))
    write_outputs(rows, settings, Path(arguments.output_dir))
    print(f"wrote {Path(arguments.output_dir) / 'yardsticks.json'} and yardsticks.csv")
    return rows


if __name__ == "__main__":
    main()
