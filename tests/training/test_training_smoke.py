"""Smoke runs of sb3-contrib's MaskablePPO on the Gymnasium environment and on the
vector environment through SB3VectorEnv: a few thousand steps with a tiny network,
then masked predictions that must be legal. Nothing about learning quality is asserted.

Torch runs on one thread (OMP_NUM_THREADS=1, torch.set_num_threads(1)); stable-baselines3
seeds its own generators from `seed=`.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from suburbia_env.envs.gym_env import SuburbiaEnv  # noqa: E402
from suburbia_env.envs.sb3 import SB3VectorEnv  # noqa: E402

pytestmark = pytest.mark.slow  # training runs

torch.set_num_threads(1)

TINY = dict(policy_kwargs=dict(net_arch=[32]), n_epochs=1, learning_rate=3e-4, seed=0,
            device="cpu", verbose=0)


def _episode_returns(model) -> list[float]:
    return [episode["r"] for episode in model.ep_info_buffer]


def _assert_masked_predictions_are_legal(model, env: SuburbiaEnv, seed: int) -> None:
    observation, _ = env.reset(seed=seed)
    while True:
        mask = env.action_masks()
        action, _ = model.predict(observation, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        observation, _, terminated, _, _ = env.step(int(action))
        if terminated:
            return


def test_maskable_ppo_learns_on_the_gymnasium_env():
    env = SuburbiaEnv(observation_format="flat")
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, **TINY)
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    returns = _episode_returns(model)
    assert len(returns) >= 20  # games against Dale last a few dozen decisions
    assert set(returns) <= {-1.0, 0.0, 1.0}  # win/loss reward (R8.3)
    _assert_masked_predictions_are_legal(model, SuburbiaEnv(observation_format="flat"), seed=1)


@pytest.mark.parametrize("options", [
    dict(),
    dict(mode="standard", players=3, opponents="random", learner_seat="random"),
])
def test_maskable_ppo_learns_on_the_vector_env(options):
    venv = VecMonitor(SB3VectorEnv(num_envs=8, num_threads=1, **options))
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=128, **TINY)
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    returns = _episode_returns(model)
    assert len(returns) >= 8
    assert set(returns) <= {-1.0, 0.0, 1.0}
    _assert_masked_predictions_are_legal(
        model, SuburbiaEnv(observation_format="flat", **options), seed=2)
    np.testing.assert_array_equal(np.stack(venv.env_method("action_masks")),
                                  venv.venv.vector_env.action_masks())
