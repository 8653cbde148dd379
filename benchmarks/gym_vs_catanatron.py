"""The standard random-legal-move loop over `gym.make("Suburbia-v1")` beside the same loop
over catanatron's Gymnasium env (`catanatron_gym:catanatron-v1`), interleaved in one run.

    python benchmarks/gym_vs_catanatron.py [--rounds R] [--seconds S] [--clock cpu|wall]
                                           [--seed N] [--quick]

Both envs are made by `gym.make` with default options (Suburbia: one learner against
Dale, R9.2; catanatron: one learner against its random bot), so each `step` is one
decision of the learner and the opponents' turns happen inside it. The loop is the one of
catanatron's README, written once for both envs (`legal_actions` is
`np.flatnonzero(observation["action_mask"])` for Suburbia, `info["valid_actions"]` for
catanatron):

    legal = legal_actions(observation, info)
    action = legal[random.randrange(len(legal))]
    observation, reward, terminated, truncated, info = env.step(action)
    if terminated or truncated: observation, info = env.reset()

Each round runs the loop S seconds on each env, the order alternating between rounds
(ours first, theirs first, ...) so that both see the same load on a shared machine; the
printed figures are the median and range of the rounds, and the median of the per-round
ratios. Time is this process's processor time by default (`--clock cpu`: the time slices
other processes of a shared machine take do not count in) or elapsed time (`--clock wall`).
Beside them, what the loop itself costs per step (finding the legal actions and
drawing one, timed alone over the masks and lists of recorded play) and so the time left
to the env. The first reset is seeded; later ones are not, as in a training loop.

catanatron-gym 4.0.0 pins gymnasium 0.29.1 while this project needs gymnasium 1.x, so it
is installed without its dependencies (its code runs unchanged on gymnasium 1.2):
    pip install -e ".[bench]" && pip install --no-deps catanatron-gym==4.0.0
Figures are printed, never asserted.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import suburbia_env  # noqa: E402,F401  (registers Suburbia-v1)
from suburbia_env.arguments import ArgumentParser  # noqa: E402

CATANATRON_ID = "catanatron_gym:catanatron-v1"
RECORDED_STEPS = 20_000  # steps of play whose legal actions time the loop's own cost


def suburbia_legal(observation, info):
    return np.flatnonzero(observation["action_mask"])


def catanatron_legal(observation, info):
    return info["valid_actions"]


ENVS = (("Suburbia-v1", "Suburbia-v1", suburbia_legal),
        ("catanatron", CATANATRON_ID, catanatron_legal))


def make_env(env_id: str) -> gym.Env:
    try:
        return gym.make(env_id)
    except (ImportError, gym.error.Error) as error:
        if env_id != CATANATRON_ID:
            raise
        sys.exit(f"catanatron's Gymnasium env is not installed ({error}): pip install -e "
                 f'".[bench]" && pip install --no-deps catanatron-gym==4.0.0')


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def random_loop(env: gym.Env, legal_actions, seconds: float, chooser: random.Random,
                seed: int | None, clock=time.process_time) -> float:
    """Steps per second of the random-legal-move loop (module docstring) for `seconds`."""
    observation, info = env.reset(seed=seed)
    steps = 0
    start = clock()
    deadline = start + seconds
    while True:
        for _ in range(100):
            legal = legal_actions(observation, info)
            action = legal[chooser.randrange(len(legal))]
            observation, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                observation, info = env.reset()
        steps += 100
        now = clock()
        if now >= deadline:
            return steps / (now - start)


def recorded_legal_inputs(env: gym.Env, legal_actions, steps: int, seed: int) -> list:
    """The (observation, info) pairs the loop meets in `steps` steps of random play."""
    chooser = random.Random(seed)
    observation, info = env.reset(seed=seed)
    inputs = []
    for _ in range(steps):
        inputs.append((observation, info))
        legal = legal_actions(observation, info)
        observation, _, terminated, truncated, info = env.step(
            legal[chooser.randrange(len(legal))])
        if terminated or truncated:
            observation, info = env.reset()
    return inputs


def loop_cost_us(inputs: list, legal_actions, clock, repeats: int = 5) -> float:
    """Microseconds per step of the loop's own work (legal actions, one draw), no env:
    the fastest of `repeats` passes over the recorded inputs."""
    chooser = random.Random(0)
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        for observation, info in inputs:
            legal = legal_actions(observation, info)
            legal[chooser.randrange(len(legal))]
        best = min(best, clock() - start)
    return best / len(inputs) * 1e6


def spread(values: list[float]) -> str:
    return (f"{statistics.median(values):>10,.0f} steps/s (range {min(values):,.0f} .. "
            f"{max(values):,.0f})")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7,
                        help="rounds, each measuring both envs, 1 or more (default 7)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="seconds of play per env per round, more than 0 (default 3)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="cpu",
                        help="cpu (default): processor time of this process; wall: elapsed")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first reset (default 0)")
    parser.add_argument("--quick", action="store_true", help="3 rounds of 1 s")
    args = parser.parse_args(argv)
    rounds, seconds = (3, 1.0) if args.quick else (args.rounds, args.seconds)
    clock = CLOCKS[args.clock]
    if rounds < 1:
        parser.error("--rounds must be at least 1")
    if seconds <= 0:
        parser.error("--seconds must be more than 0")

    envs = {label: (make_env(env_id), legal) for label, env_id, legal in ENVS}
    for env, legal in envs.values():  # warm-up: compiled kernels loaded, first steps checked
        random_loop(env, legal, 0.2, random.Random(args.seed), args.seed)
    rates = {label: [] for label in envs}
    ratios = []
    for round_index in range(rounds):
        order = list(envs) if round_index % 2 == 0 else list(reversed(envs))
        for label in order:
            env, legal = envs[label]
            rates[label].append(random_loop(env, legal, seconds,
                                            random.Random(args.seed + round_index),
                                            args.seed + round_index, clock))
        ratios.append(rates["Suburbia-v1"][-1] / rates["catanatron"][-1])
    costs = {label: loop_cost_us(recorded_legal_inputs(env, legal, RECORDED_STEPS, args.seed),
                                 legal, clock)
             for label, (env, legal) in envs.items()}

    load = os.getloadavg()
    print(f"Random-legal-move loop over gym.make, {rounds} interleaved rounds of {seconds:g} s "
          f"({args.clock} time) per env; CPUs: {os.cpu_count()}, load average {load[0]:.2f} "
          f"{load[1]:.2f} {load[2]:.2f}")
    for label in envs:
        median_rate = statistics.median(rates[label])
        per_step = 1e6 / median_rate
        print(f"  {label:<12} {spread(rates[label])}; per step {per_step:7.2f} us = loop "
              f"{costs[label]:5.2f} us + env {per_step - costs[label]:7.2f} us")
    print(f"  ratio Suburbia-v1 / catanatron: median {statistics.median(ratios):.2f}x "
          f"(rounds {min(ratios):.2f}x .. {max(ratios):.2f}x)")
    print("  loop: np.flatnonzero of the int8 action mask (Suburbia) or catanatron's list, "
          "and one random.randrange, timed alone over recorded play; env: the rest "
          "(gym.make's wrappers, step and reset).")


if __name__ == "__main__":
    main()
