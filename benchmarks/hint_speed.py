"""How long a hint takes (issue 33: a hint answers within 2 s on the project's 2 cores).

    python benchmarks/hint_speed.py [--players 2 4] [--games 3] [--seed 700]

For each player count, `--games` seeded games are played by the greedy player at every
seat; a hint (`agents.hints.Hinter.hint`, the settings the terminal game and the web
server use, the model already loaded as a running server or game holds it) is asked for
the seat to act at three points of each game: its first decision (the longest
play-outs), a quarter through and half-way through. Printed: each hint's wall and
processor time, then per player count the median and the maximum. The first hint of a
mode loads the model and is timed apart. Figures are printed, never asserted; on a
shared machine run it with `nice` and say so.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OMP_NUM_THREADS", "1")

from agents.greedy import GreedyAgent  # noqa: E402
from agents.hints import HINT_SETTINGS, Hinter  # noqa: E402
from suburbia_env import Game  # noqa: E402


def positions(players: int, seed: int) -> list[tuple[str, Game]]:
    """A seeded greedy game's first decision, and those a quarter and half-way through."""
    game, agent, history = Game(players=players, seed=seed), GreedyAgent(), []
    while not game.is_over:
        history.append(game.copy())
        game.apply(agent.act(game))
    return [("first", history[0]), ("quarter", history[len(history) // 4]),
            ("half", history[len(history) // 2])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=700)
    args = parser.parse_args(argv)
    print(f"hint settings: {HINT_SETTINGS.candidates} candidates, {HINT_SETTINGS.samples} "
          f"redraws, {HINT_SETTINGS.threads} torch thread; load average "
          f"{os.getloadavg()[0]:.1f}")
    started = time.perf_counter()
    hinter = Hinter("standard")
    print(f"model loaded in {time.perf_counter() - started:.2f} s")
    warm = Game(players=2, seed=1)
    started = time.perf_counter()
    hinter.hint(warm, warm.current_player, seed=1)
    print(f"first hint (kernels loaded): {time.perf_counter() - started:.2f} s")
    for players in args.players:
        walls = []
        for game_number in range(args.games):
            seed = args.seed + game_number
            for where, game in positions(players, seed):
                wall, cpu = time.perf_counter(), time.process_time()
                answer = hinter.hint(game, game.current_player, seed=seed)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                walls.append(wall)
                print(f"{players}p seed {seed} {where:8s} decision {len(game.history):3d}: "
                      f"{wall:.2f} s wall, {cpu:.2f} s processor, "
                      f"{len(answer['moves'])} moves")
        print(f"{players} players: median {statistics.median(walls):.2f} s, "
              f"max {max(walls):.2f} s over {len(walls)} hints")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
