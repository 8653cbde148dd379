"""Training throughput and learning quality of MaskablePPO settings on a CPU machine.

A setting fixes the environment (one Gymnasium env or the batched vector env), rollout
length, batch size, epochs, network and torch threads; everything else is SB3's default
(learning rate 3e-4, gamma 0.99, no entropy bonus) with the margin reward. `run_setting`
trains one from scratch against Dale (R9.2) until a budget of env steps or of seconds is
spent, measures env steps/s of the whole `learn()` and the share of it spent in updates,
and can then play seeded games against Dale with the trained policy, so that a faster
setting is also checked for learning as well in the same time (or the same steps).
`benchmarks/training_throughput.py` prints these figures.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402

from suburbia_env.gym_env import SuburbiaEnv  # noqa: E402
from suburbia_env.sb3 import SB3VectorEnv  # noqa: E402

from .config import TrainingConfig  # noqa: E402
from .evaluation import evaluate_against_dale  # noqa: E402
from .train import policy_options  # noqa: E402

COMPACT = policy_options(TrainingConfig(features="compact"))
"""The compact extractor with its 256 features and one hidden layer of 128, as `suburbia
train` builds it by default."""


@dataclass(frozen=True)
class Setting:
    environment: str  # "gym": one SuburbiaEnv; "vector": SB3VectorEnv of num_envs games
    num_envs: int
    n_steps: int
    batch_size: int
    n_epochs: int
    policy_kwargs: dict = field(default_factory=dict)
    torch_threads: int = 1


SETTINGS = {
    "sb3-defaults": Setting("gym", 1, 2048, 64, 10),
    "vector64-flat": Setting("vector", 64, 64, 2048, 4, {"net_arch": [256, 256]}),
    "vector64-compact": Setting("vector", 64, 64, 2048, 4, COMPACT),
    "vector64-compact-2threads": Setting("vector", 64, 64, 2048, 4, COMPACT, 2),
    "vector128-compact-2epochs": Setting("vector", 128, 64, 4096, 2, COMPACT),
    "vector256-compact-2epochs-2threads": Setting("vector", 256, 32, 4096, 2, COMPACT, 2),
}

EVALUATION_SEED = 90_000
"""First game seed of the evaluation games, apart from the seeds training draws from."""


class UpdateTimer(BaseCallback):
    """Measures the time spent collecting rollouts; the rest of `learn()` is updates."""

    def __init__(self):
        super().__init__()
        self.rollout_seconds = 0.0
        self._started = 0.0

    def _on_rollout_start(self) -> None:
        self._started = time.perf_counter()

    def _on_rollout_end(self) -> None:
        self.rollout_seconds += time.perf_counter() - self._started

    def _on_step(self) -> bool:
        return True


class WallClockBudget(BaseCallback):
    """Ends `learn()` at the first rollout that starts after `seconds` have passed, so the
    last completed rollout has had its update."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds = seconds
        self._deadline = 0.0
        self._spent = False

    def _on_training_start(self) -> None:
        self._deadline = time.perf_counter() + self.seconds

    def _on_rollout_start(self) -> None:
        self._spent = time.perf_counter() >= self._deadline

    def _on_step(self) -> bool:
        return not self._spent


def make_model(setting: Setting, seed: int) -> MaskablePPO:
    if setting.environment == "gym":
        environment = SuburbiaEnv(observation_format="flat", reward="margin")
    else:
        environment = SB3VectorEnv(num_envs=setting.num_envs, reward="margin", num_threads=1)
    return MaskablePPO("MlpPolicy", environment, n_steps=setting.n_steps,
                       batch_size=setting.batch_size, n_epochs=setting.n_epochs,
                       policy_kwargs=setting.policy_kwargs, seed=seed, device="cpu")


def run_setting(name: str, steps: int, seconds: float | None = None, seed: int = 0,
                evaluate_games: int = 0, evaluation_seed: int = EVALUATION_SEED) -> dict:
    """Train setting `name` for `steps` env steps, or until `seconds` have passed (then
    `steps` is only a cap); with `evaluate_games`, then play that many games against Dale
    from `evaluation_seed` with the policy's most probable legal action.

    Torch uses the setting's thread count during `learn()` and the caller's outside it.
    """
    setting = SETTINGS[name]
    threads_before = torch.get_num_threads()
    torch.set_num_threads(setting.torch_threads)
    try:
        model = make_model(setting, seed)
        timer = UpdateTimer()
        callbacks = [timer] if seconds is None else [timer, WallClockBudget(seconds)]
        started = time.perf_counter()
        model.learn(total_timesteps=steps, callback=callbacks)
        learn_seconds = time.perf_counter() - started
    finally:
        torch.set_num_threads(threads_before)
    result = {"setting": name, "seed": seed, "steps": int(model.num_timesteps),
              "seconds": learn_seconds,
              "steps_per_second": model.num_timesteps / learn_seconds,
              "update_share": 1 - timer.rollout_seconds / learn_seconds}
    if evaluate_games:
        evaluation = evaluate_against_dale(model, evaluate_games, evaluation_seed)
        result.update({key: evaluation[key] for key in (
            "games", "win_rate", "win_rate_low", "win_rate_high", "mean_population",
            "mean_margin")})
    return result
