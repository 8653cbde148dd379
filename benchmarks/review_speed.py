"""How long `suburbia review` takes to review a whole game (issue 33: at most 30 s for a
2-player game, 60 s for a 4-player game, on the project's 2 cores).

    python benchmarks/review_speed.py [--players 2 4] [--games 3] [--seed 500]
                                      [--candidates 4] [--samples 8] [--threads 1]

It then times `agents.review.evaluate_position` (the in-game evaluation, one position
from one seat's knowledge; the model already loaded) at the first move of each of those
games, where the play-outs are longest, and at mid-game (the decision half-way through).

For each player count, `--games` seeded games are played by the greedy player at every
seat (seeds --seed, --seed + 1, ...; game length is what the review's time grows with),
and each record is reviewed with `agents.review.review_record` as the command does it,
model loading included. One review first loads the model and the compiled kernels (not
timed). Printed per game: wall time, processor time, decisions and time per decision; then
the median per player count. Figures are printed, never asserted; on a shared machine run
it with `nice` and say so.
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
from agents.review import (DecisionEvaluator, SearchSettings, evaluate_position,  # noqa: E402
                           model_for, review_record)
from suburbia_env import Game  # noqa: E402


def greedy_record(players: int, seed: int) -> dict:
    """The record of a seeded game of greedy players."""
    game = Game(players=players, seed=seed)
    agent = GreedyAgent()
    while not game.is_over:
        game.apply(agent.act(game))
    return game.record()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--candidates", type=int, default=SearchSettings.candidates)
    parser.add_argument("--samples", type=int, default=SearchSettings.samples)
    parser.add_argument("--threads", type=int, default=SearchSettings.threads)
    args = parser.parse_args(argv)
    settings = SearchSettings(candidates=args.candidates, samples=args.samples,
                              threads=args.threads)
    print(f"review speed: {settings.candidates} candidates x {settings.samples} redraws, "
          f"{settings.threads} torch thread(s), batches of {settings.batch_rows} trials; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    review_record(greedy_record(2, args.seed - 1), settings=settings, seed=0)  # warm-up
    for players in args.players:
        walls, per_decision = [], []
        for game_seed in range(args.seed, args.seed + args.games):
            record = greedy_record(players, game_seed)
            wall, cpu = time.perf_counter(), time.process_time()
            review = review_record(record, settings=settings, seed=game_seed)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            decisions = len(review.decisions)
            walls.append(wall)
            per_decision.append(wall / decisions)
            print(f"{players} players, seed {game_seed}: {wall:.1f} s wall, {cpu:.1f} s "
                  f"processor, {decisions} decisions, {1000 * wall / decisions:.0f} ms a "
                  f"decision", flush=True)
        print(f"{players} players: median {statistics.median(walls):.1f} s a game "
              f"(range {min(walls):.1f}-{max(walls):.1f}), "
              f"{1000 * statistics.median(per_decision):.0f} ms a decision", flush=True)
        time_positions(players, args.seed, args.games, settings)


def time_positions(players: int, first_seed: int, games: int,
                   settings: SearchSettings) -> None:
    """Wall time of one in-game evaluation at the first move (after the goal choices) and
    half-way through each game, from the seat to act's knowledge."""
    evaluator = DecisionEvaluator(model_for("standard"), settings)
    times = {"first move": [], "mid-game": []}
    for game_seed in range(first_seed, first_seed + games):
        record = greedy_record(players, game_seed)
        for stage, played in (("first move", players),
                              ("mid-game", len(record["actions"]) // 2)):
            game = Game(players=players, seed=game_seed)
            for action in record["actions"][:played]:
                game.apply(action)
            wall = time.perf_counter()
            evaluate_position(game, game.current_player, seed=game_seed, evaluator=evaluator)
            times[stage].append(time.perf_counter() - wall)
    print(f"{players} players, evaluate_position: " + ", ".join(
        f"{stage} median {statistics.median(values):.2f} s (max {max(values):.2f})"
        for stage, values in times.items()), flush=True)


if __name__ == "__main__":
    main()
