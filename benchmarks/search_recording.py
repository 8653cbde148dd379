"""Games a second of a search demonstrator's recording, one game at a time (today's
recorder) against many at a time in lockstep (agents/lockstep.py), in one run.

Both record the same seeded games in one process at one torch thread, in alternating
blocks so that a machine shared with other work slows both alike; the demonstrations
must be the same, byte for byte, or the run fails.

    nice -n 19 python benchmarks/search_recording.py --model PATH.safetensors \
        --spec 'ppo-rollout:{model},4,8' --games 32 --block 16 --lockstep 16
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="models/baseline.safetensors")
    parser.add_argument("--spec", default="ppo-rollout:{model},4,8",
                        help="the demonstrator, {model} standing for --model")
    parser.add_argument("--opponents", nargs="*", default=[],
                        help="agent specs: standard games against them (default: Dale)")
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--block", type=int, default=16,
                        help="games per timed block; old and new alternate by block")
    parser.add_argument("--lockstep", type=int, default=16, help="games played together")
    parser.add_argument("--seed", type=int, default=500_000)
    arguments = parser.parse_args()
    from training.imitation import _play_games
    torch.set_num_threads(1)
    spec = arguments.spec.replace("{model}", arguments.model)
    opponents = tuple(arguments.opponents)
    print(f"{spec} against {' '.join(opponents) or 'Dale'}: {arguments.games} games, "
          f"blocks of {arguments.block}, lockstep {arguments.lockstep}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"nice {os.nice(0)}, load {os.getloadavg()[0]:.1f} (a shared machine)", flush=True)
    _play_games(arguments.seed - 1, 1, "2nd", spec, opponents, 2)  # compiled, loaded
    seconds = {1: 0.0, arguments.lockstep: 0.0}
    processor = {1: 0.0, arguments.lockstep: 0.0}
    decisions = 0
    for start in range(0, arguments.games, arguments.block):
        first = arguments.seed + start
        count = min(arguments.block, arguments.games - start)
        results = {}
        for lockstep in (1, arguments.lockstep):
            began, began_processor = time.perf_counter(), time.process_time()
            results[lockstep] = _play_games(first, count, "2nd", spec, opponents, lockstep)
            seconds[lockstep] += time.perf_counter() - began
            processor[lockstep] += time.process_time() - began_processor
        old, new = results[1], results[arguments.lockstep]
        for part in range(3):
            if old[part].tobytes() != new[part].tobytes():
                raise SystemExit(f"games {first}..{first + count - 1}: the lockstep "
                                 f"demonstrations differ from one game at a time")
        decisions += len(old[1])
        print(f"games {first}..{first + count - 1} identical; so far "
              f"{(start + count) / seconds[1]:.3f} games/s old, "
              f"{(start + count) / seconds[arguments.lockstep]:.3f} games/s new "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    games = arguments.games
    old_rate, new_rate = games / seconds[1], games / seconds[arguments.lockstep]
    print(f"identical demonstrations: {decisions} decisions in {games} games")
    for name, lockstep in (("one at a time", 1), (f"lockstep {arguments.lockstep}",
                                                  arguments.lockstep)):
        print(f"{name}: {games / seconds[lockstep]:.3f} games/s wall ({seconds[lockstep]:.1f} s), "
              f"{games / processor[lockstep]:.3f} games per processor second "
              f"({processor[lockstep]:.1f} s)")
    print(f"ratio new/old: {new_rate / old_rate:.2f}x wall, "
          f"{processor[1] / processor[arguments.lockstep]:.2f}x processor time")


if __name__ == "__main__":
    main()
