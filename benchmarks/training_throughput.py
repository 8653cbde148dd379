"""Env steps per second of a whole MaskablePPO `learn()` against Dale, per setting.

    python benchmarks/training_throughput.py [--steps N] [--only NAME ...]

Each setting trains from scratch for about `--steps` env steps and prints env-steps/s
of the whole `learn()` (rollouts and updates), plus the share of time spent in the
updates. Figures are printed, never asserted. Settings differ in the environment
(one Gymnasium env or the batched vector env), rollout length, batch size, epochs,
network and torch threads.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402

from suburbia_env.gym_env import SuburbiaEnv  # noqa: E402
from suburbia_env.sb3 import SB3VectorEnv  # noqa: E402
from training.features import SuburbiaFeatures  # noqa: E402

COMPACT = {"features_extractor_class": SuburbiaFeatures,
           "features_extractor_kwargs": {"features_dim": 256}, "net_arch": [128]}

SETTINGS = {
    # name: (environment, num_envs, n_steps, batch_size, n_epochs, policy_kwargs, torch threads)
    "sb3-defaults": ("gym", 1, 2048, 64, 10, {}, 1),
    "vector64-flat": ("vector", 64, 64, 2048, 4, {"net_arch": [256, 256]}, 1),
    "vector64-compact": ("vector", 64, 64, 2048, 4, COMPACT, 1),
    "vector64-compact-2threads": ("vector", 64, 64, 2048, 4, COMPACT, 2),
    "vector128-compact-2epochs": ("vector", 128, 64, 4096, 2, COMPACT, 1),
    "vector256-compact-2epochs-2threads": ("vector", 256, 32, 4096, 2, COMPACT, 2),
}


class UpdateTimer(BaseCallback):
    """Measures the time spent outside rollouts (the updates)."""

    def __init__(self):
        super().__init__()
        self.rollout_seconds = 0.0
        self._started = None

    def _on_rollout_start(self) -> None:
        self._started = time.perf_counter()

    def _on_rollout_end(self) -> None:
        self.rollout_seconds += time.perf_counter() - self._started

    def _on_step(self) -> bool:
        return True


def measure(name: str, steps: int) -> dict:
    kind, num_envs, n_steps, batch_size, n_epochs, policy_kwargs, threads = SETTINGS[name]
    torch.set_num_threads(threads)
    if kind == "gym":
        environment = SuburbiaEnv(observation_format="flat", reward="margin")
    else:
        environment = SB3VectorEnv(num_envs=num_envs, reward="margin", num_threads=1)
    model = MaskablePPO("MlpPolicy", environment, n_steps=n_steps, batch_size=batch_size,
                        n_epochs=n_epochs, policy_kwargs=policy_kwargs, seed=0, device="cpu")
    timer = UpdateTimer()
    started = time.perf_counter()
    model.learn(total_timesteps=steps, callback=timer)
    seconds = time.perf_counter() - started
    return {"setting": name, "steps": model.num_timesteps, "seconds": seconds,
            "steps_per_second": model.num_timesteps / seconds,
            "update_share": 1 - timer.rollout_seconds / seconds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=32768)
    parser.add_argument("--only", nargs="+", choices=sorted(SETTINGS))
    arguments = parser.parse_args(argv)
    print(f"{'setting':<38} {'steps':>7} {'seconds':>8} {'steps/s':>8} {'updates':>8}")
    for name in arguments.only or SETTINGS:
        result = measure(name, arguments.steps)
        print(f"{name:<38} {result['steps']:>7} {result['seconds']:>8.1f} "
              f"{result['steps_per_second']:>8.0f} {result['update_share']:>7.0%}", flush=True)


if __name__ == "__main__":
    main()
