"""Win rate against Dale over wall-clock training time, for one learner and setting.

    python benchmarks/learning_curve.py --setting fast-vector64-compact \\
        --points 60 120 240 480 [--evaluate GAMES] [--seed K]

Trains the setting of training/throughput.py from scratch against Dale (R9.2) and, each
time the training time passes a point (seconds, checked between rollouts, evaluations
not counted), plays GAMES seeded games against Dale (from EVALUATION_SEED, never used in
training) with the policy's most probable legal action. Prints one row per point:
training seconds, env steps, win rate with its 95% Wilson interval, mean margin. Run two
settings at the same time (two processes) to compare them under the same load on a
shared machine. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

from training.evaluation import evaluate_against_dale  # noqa: E402
from training.throughput import (EVALUATION_SEED, SETTINGS, WallClockBudget,  # noqa: E402
                                 fast_config, make_model)


def fast_curve(setting, seed: int, points: list[float]):
    """(training seconds, steps, policy) at each point, for the fast learner."""
    from training.fast_ppo import FastPPO
    learner = FastPPO(fast_config(setting, seed))
    spent = 0.0
    for point in points:
        while spent < point:
            started = time.perf_counter()
            learner.iterate()
            spent += time.perf_counter() - started
        yield spent, learner.timesteps, learner.policy()


def sb3_curve(setting, seed: int, points: list[float]):
    """(training seconds, steps, model) at each point, for MaskablePPO."""
    model = make_model(setting, seed)
    spent = 0.0
    for point in points:
        started = time.perf_counter()
        model.learn(total_timesteps=10**12, callback=[WallClockBudget(point - spent)],
                    reset_num_timesteps=spent == 0.0)
        spent += time.perf_counter() - started
        yield spent, int(model.num_timesteps), model


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", required=True, choices=sorted(SETTINGS))
    parser.add_argument("--points", type=float, nargs="+", required=True,
                        help="training seconds at which to evaluate")
    parser.add_argument("--evaluate", type=int, default=200, metavar="GAMES")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)
    setting = SETTINGS[arguments.setting]
    torch.set_num_threads(setting.torch_threads)
    curve = fast_curve if setting.learner == "fast" else sb3_curve
    print(f"{'setting':<32} {'seconds':>8} {'steps':>9} {'win rate vs Dale [95%]':>24} "
          f"{'margin':>7}", flush=True)
    for seconds, steps, policy in curve(setting, arguments.seed, sorted(arguments.points)):
        torch.set_num_threads(1)
        result = evaluate_against_dale(policy, arguments.evaluate, EVALUATION_SEED)
        torch.set_num_threads(setting.torch_threads)
        print(f"{arguments.setting:<32} {seconds:>8.0f} {steps:>9} {result['win_rate']:>8.3f} "
              f"[{result['win_rate_low']:.3f}, {result['win_rate_high']:.3f}] "
              f"{result['mean_margin']:>+7.1f}", flush=True)


if __name__ == "__main__":
    main()
