"""Training throughput of RLlib PPO on Ray (training/rllib_train.py) with 1 and 2 env
runners, beside the stable-baselines3 path (training/throughput.py), on this machine.

    python benchmarks/rllib_throughput.py [--iterations N] [--train-batch-size B]
                                          [--env-runners 1 2] [--sb3-steps S]
                                          [--sb3-setting NAME] [--num-cpus C]

Each RLlib configuration trains against Dale (R9.2) on a local Ray instance: one
warm-up iteration (the env runners load the compiled kernels), then `--iterations`
measured ones. Printed per configuration: env steps/s of the whole training (sampling
and updates), env steps/s of the sampling alone, and the learner's throughput (env steps
of the batch per second of its update, all epochs). The SB3 row trains the named setting
for `--sb3-steps` steps and prints the same three figures (SB3 collects rollouts and
updates in one process, one after the other). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def rllib_row(env_runners: int, iterations: int, batch: int, minibatch: int, epochs: int,
              num_cpus: int | None) -> dict:
    from agents.ray_session import ray_session
    from training import rllib_train
    options = rllib_train.parse_options([
        "--num-env-runners", str(env_runners), "--train-batch-size", str(batch),
        "--minibatch-size", str(minibatch), "--n-epochs", str(epochs), "--eval-games", "0"])
    with ray_session(None, num_cpus, 300 * 1024 * 1024):
        from ray.tune.registry import register_env
        register_env(rllib_train.DALE_ENV, rllib_train.make_dale_env)
        algorithm = rllib_train.algorithm_config(options).build_algo()
        try:
            rllib_train.train_iteration(algorithm)  # warm-up, not measured
            figures = [rllib_train.train_iteration(algorithm) for _ in range(iterations)]
        finally:
            algorithm.stop()
    steps = sum(entry["env_steps"] for entry in figures)
    return {"name": f"rllib, {env_runners} env runner{'s' * (env_runners > 1)}",
            "steps": steps, "seconds": sum(entry["seconds"] for entry in figures),
            "sample_seconds": sum(entry["sample_seconds"] for entry in figures),
            "learn_seconds": sum(entry["learn_seconds"] for entry in figures)}


def sb3_row(setting: str, steps: int) -> dict:
    from training.throughput import run_setting
    result = run_setting(setting, steps)
    seconds = result["seconds"]
    update = seconds * result["update_share"]
    return {"name": f"sb3 {setting}", "steps": result["steps"], "seconds": seconds,
            "sample_seconds": seconds - update, "learn_seconds": update}


def print_row(row: dict) -> None:
    print(f"{row['name']:<32} {row['steps']:>8} {row['seconds']:>8.1f} "
          f"{row['steps'] / row['seconds']:>10.0f} {row['steps'] / row['sample_seconds']:>10.0f} "
          f"{row['steps'] / row['learn_seconds']:>10.0f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3,
                        help="measured RLlib iterations per configuration (default 3)")
    parser.add_argument("--train-batch-size", type=int, default=4000, help="default 4000")
    parser.add_argument("--minibatch-size", type=int, default=512, help="default 512")
    parser.add_argument("--n-epochs", type=int, default=4, help="default 4")
    parser.add_argument("--env-runners", type=int, nargs="+", default=[1, 2],
                        help="env runner counts to measure (default 1 2)")
    parser.add_argument("--num-cpus", type=int, default=None,
                        help="CPUs of the local Ray instance (default: all)")
    parser.add_argument("--sb3-setting", default="vector64-compact",
                        help="setting of training/throughput.py (default vector64-compact: "
                             "the same network, batches of 4096, 4 epochs)")
    parser.add_argument("--sb3-steps", type=int, default=16384,
                        help="env steps of the SB3 row; 0: no SB3 row (default 16384)")
    arguments = parser.parse_args(argv)
    print(f"{'configuration':<32} {'steps':>8} {'seconds':>8} {'steps/s':>10} "
          f"{'sampling/s':>10} {'learner/s':>10}")
    started = time.perf_counter()
    for runners in arguments.env_runners:
        print_row(rllib_row(runners, arguments.iterations, arguments.train_batch_size,
                            arguments.minibatch_size, arguments.n_epochs, arguments.num_cpus))
    if arguments.sb3_steps:
        print_row(sb3_row(arguments.sb3_setting, arguments.sb3_steps))
    print(f"({time.perf_counter() - started:.0f} s in all; steps/s: the whole training, "
          f"sampling/s: env steps per second of sampling, learner/s: env steps per second "
          f"of the updates)")


if __name__ == "__main__":
    main()
