"""training/throughput.py: the budgets of a training run and its evaluation against Dale.

Torch runs on one thread outside `learn()`.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
import torch  # noqa: E402

from training.throughput import SETTINGS, run_setting  # noqa: E402

torch.set_num_threads(1)


@pytest.mark.slow
def test_a_step_budget_trains_whole_rollouts_and_updates():
    setting = SETTINGS["vector64-compact"]
    result = run_setting("vector64-compact", steps=1, seed=0)
    assert result["steps"] == setting.num_envs * setting.n_steps == 4096  # one whole rollout
    assert 0.0 < result["update_share"] < 1.0
    assert result["steps_per_second"] == pytest.approx(result["steps"] / result["seconds"])
    assert "win_rate" not in result


def test_a_spent_wall_clock_budget_stops_learning_at_the_first_step_and_the_policy_is_evaluated():
    result = run_setting("vector64-compact-2threads", steps=10**9, seconds=0.0, seed=3,
                         evaluate_games=10, evaluation_seed=5)
    assert result["steps"] == SETTINGS["vector64-compact-2threads"].num_envs  # one step
    assert result["seed"] == 3
    assert result["games"] == 10
    assert 0.0 <= result["win_rate_low"] <= result["win_rate"] <= result["win_rate_high"] <= 1.0
    assert -200 < result["mean_margin"] < 200
    assert torch.get_num_threads() == 1  # the setting's 2 threads only during learn()


def test_every_setting_names_a_known_environment_and_whole_batches():
    for setting in SETTINGS.values():
        assert setting.environment in ("gym", "vector")
        assert (setting.num_envs * setting.n_steps) % setting.batch_size == 0
        assert setting.torch_threads in (1, 2)


@pytest.mark.parametrize("name", ["vector64-compact", "fast-vector64-compact"])
def test_the_breakdown_accounts_for_the_whole_training_time(name):
    """Every part of BREAKDOWN_PARTS is measured and together they are the training's time
    (the rest is 'python between')."""
    from training.throughput import BREAKDOWN_PARTS
    result = run_setting(name, steps=10**9, seconds=0.0, seed=1)
    breakdown = result["breakdown"]
    assert tuple(breakdown) == BREAKDOWN_PARTS
    assert all(seconds >= 0 for seconds in breakdown.values())
    assert breakdown["environment"] > 0 and breakdown["inference"] > 0
    assert sum(breakdown.values()) == pytest.approx(result["seconds"], rel=0.01)
    assert result["update_share"] == pytest.approx(breakdown["update"] / result["seconds"])
    expected_steps = 64 * 64 if name.startswith("fast") else 64  # a whole rollout / one step
    assert result["steps"] == expected_steps
