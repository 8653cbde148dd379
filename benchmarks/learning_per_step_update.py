"""One PPO update of the fast learner against one of MaskablePPO, from the same weights,
rollout and minibatches: the piece-by-piece check behind "learns no less per step".

    python benchmarks/learning_per_step_update.py [--setting fast-vector64-compact]
                                                  [--seed K] [--ent-coef C]

MaskablePPO collects one rollout against Dale with the setting's games, rollout length,
minibatches and epochs (SB3's other defaults with the margin reward, as
benchmarks/training_throughput.py trains) and updates on it; the fast learner starts
from the same weights and updates on the same rollout with the same minibatches
(training/throughput.py compare_one_update). Prints both learners' mean losses and, per
parameter, the size of MaskablePPO's change and the relative difference of the two
changes. tests/training/test_fast_ppo_matches_sb3.py asserts the same on a small setting.
"""

from __future__ import annotations

import argparse
import dataclasses
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

from training.throughput import SETTINGS, compare_one_update, fast_config  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", default="fast-vector64-compact",
                        choices=sorted(name for name in SETTINGS
                                       if SETTINGS[name].environment == "vector"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ent-coef", type=float, default=0.0,
                        help="entropy bonus (SB3's default 0; the recipes use 0.001-0.01)")
    arguments = parser.parse_args(argv)
    setting = SETTINGS[arguments.setting]
    torch.set_num_threads(setting.torch_threads)
    config = dataclasses.replace(fast_config(setting, arguments.seed),
                                 ent_coef=arguments.ent_coef)
    result = compare_one_update(config)
    print(f"{arguments.setting}: {config.num_envs} games x {config.n_steps} steps, "
          f"minibatches of {config.batch_size}, {config.n_epochs} epochs, "
          f"{result['game_ends']} games ended in the rollout")
    print(f"{'loss':<16} {'fast':>14} {'MaskablePPO':>14}")
    for name in ("policy", "value", "entropy", "clip_fraction"):
        print(f"{name:<16} {result['fast'][name]:>14.8f} {result['sb3'][name]:>14.8f}")
    print(f"\n{'parameter':<22} {'|change| (sb3)':>15} {'relative difference':>20}")
    for name, (norm, difference) in result["changes"].items():
        print(f"{name:<22} {norm:>15.4e} {difference:>20.2e}")


if __name__ == "__main__":
    main()
