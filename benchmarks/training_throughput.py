"""Env steps per second of a whole PPO training against Dale, per setting, where its
time goes, and optionally how well each trained policy then plays against Dale.

    python benchmarks/training_throughput.py [--steps N] [--seconds S] [--seeds K ...]
                                             [--evaluate GAMES] [--only NAME ...]
                                             [--breakdown] [--rounds R]

Each setting (training/throughput.py) trains from scratch for `--steps` env steps, or
for `--seconds` of wall-clock time (then `--steps` is only a cap), once per seed. It
prints env-steps/s of the whole `learn()` (rollouts and updates) and the share of time
spent in the updates; with `--evaluate`, the win rate against Dale (95% Wilson interval)
and the mean margin of the trained policy over that many seeded games (the same games
for every setting and seed), then the mean over seeds per setting. With `--breakdown`,
the share of each part of a training step (training/throughput.py BREAKDOWN_PARTS:
environment, observation, inference, update, Python between) and its microseconds per
env step. `--rounds R` runs the settings R times, interleaved (A B A B ...), so that
settings compared on a shared machine see the same load; the summary gives each
setting's median. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import statistics  # noqa: E402

from training.throughput import BREAKDOWN_PARTS, SETTINGS, run_setting  # noqa: E402


def print_row(result: dict, evaluated: bool) -> None:
    row = (f"{result['setting']:<36} {result['seed']:>4} {result['steps']:>9} "
           f"{result['seconds']:>8.1f} {result['steps_per_second']:>8.0f} "
           f"{result['update_share']:>7.0%}")
    if evaluated:
        row += (f" {result['win_rate']:>6.3f} [{result['win_rate_low']:.3f}, "
                f"{result['win_rate_high']:.3f}] {result['mean_margin']:>+7.1f}")
    print(row, flush=True)


def print_breakdown(result: dict) -> None:
    steps, seconds = result["steps"], result["seconds"]
    parts = "  ".join(f"{part} {result['breakdown'][part] / seconds:>4.0%} "
                      f"({result['breakdown'][part] / steps * 1e6:.0f} us)"
                      for part in BREAKDOWN_PARTS)
    print(f"    {parts}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=32768,
                        help="env steps per training (a cap when --seconds is given)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="wall-clock budget per training instead of a step count")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--evaluate", type=int, default=0, metavar="GAMES",
                        help="games against Dale played by each trained policy")
    parser.add_argument("--only", nargs="+", choices=sorted(SETTINGS))
    parser.add_argument("--breakdown", action="store_true",
                        help="where each setting's training time goes, per part")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the settings this many times, interleaved")
    arguments = parser.parse_args(argv)
    steps = arguments.steps if arguments.seconds is None else max(arguments.steps, 10**9)
    evaluated = arguments.evaluate > 0
    header = (f"{'setting':<36} {'seed':>4} {'steps':>9} {'seconds':>8} {'steps/s':>8} "
              f"{'updates':>7}")
    if evaluated:
        header += f" {'win rate vs Dale [95%]':>22} {'margin':>7}"
    print(header)
    names = arguments.only or list(SETTINGS)
    by_name: dict[str, list] = {name: [] for name in names}
    for _ in range(arguments.rounds):
        for name in names:
            for seed in arguments.seeds:
                result = run_setting(name, steps, arguments.seconds, seed, arguments.evaluate)
                print_row(result, evaluated)
                if arguments.breakdown:
                    print_breakdown(result)
                by_name[name].append(result)
    summaries = list(by_name.items())
    if arguments.rounds > 1:
        print("\nmedian over rounds: setting, steps/s")
        for name, results in summaries:
            print(f"{name:<36} "
                  f"{statistics.median(r['steps_per_second'] for r in results):>8.0f}")
    if evaluated and len(arguments.seeds) > 1:
        print("\nmean over seeds: setting, steps, steps/s, win rate, margin")
        for name, results in summaries:
            count = len(results)
            print(f"{name:<36} {sum(r['steps'] for r in results) / count:>9.0f} "
                  f"{sum(r['steps_per_second'] for r in results) / count:>8.0f} "
                  f"{sum(r['win_rate'] for r in results) / count:>6.3f} "
                  f"{sum(r['mean_margin'] for r in results) / count:>+7.1f}")


if __name__ == "__main__":
    main()
