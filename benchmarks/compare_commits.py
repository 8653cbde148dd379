"""Engine and environment speed of two commits, measured in one run, interleaved.

    python benchmarks/compare_commits.py --old REV [--new REV] [--rounds R] [--seconds S]
                                         [--clock cpu|wall] [--metrics NAME,...] [--workdir DIR]

On a shared machine a figure measured an hour apart says little, so both commits are
measured in the same run, in turns: each commit is unpacked (`git archive`) into
DIR/<commit> (default: a folder under the system's temporary directory, kept between runs so
that numba's cache of each commit stays warm: the unpacked files keep the commit's time), and
one worker process per commit, with PYTHONPATH set to that checkout, measures with that
checkout's own `benchmarks/env_speed.py`. A warm-up call of every measurement compiles or
loads the kernels first (not timed). Then, for R rounds, every metric is measured once on
each commit, old and new alternating which goes first, S seconds each.

Metrics (all one thread, random legal play; `--metrics` picks some):
- engine_dale, engine_2p: the raw engine, `random_play.play_random_games` in mode "dale"
  and in a 2-player standard game (env_speed.measure_engine), decisions/s;
- vector_dale: the vector env against Dale, N=64, `copy=False` (env_speed.measure_vector),
  env steps/s;
- gym_dale: the Gymnasium env against Dale, time inside reset/step only
  (env_speed.measure_gym), steps/s;
- gym_loop: the whole random-legal-move loop over `gym.make("Suburbia-v1")` (legal
  actions from the observation's mask, `random.randrange`), steps/s.
Printed per metric: each commit's median and range over the rounds, and the median and
range of the per-round ratios new/old. Time is the worker's processor time by default
(`--clock cpu`: time slices the other processes of a shared machine take do not count in,
though their use of the caches still does) or elapsed time (`--clock wall`, as the
benchmarks themselves measure). Figures are printed, never asserted; run it with `nice` on
a shared machine and take enough rounds. `--old X --new X` shows the noise floor: the
spread of the ratios of one commit against itself.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suburbia_env.arguments import ArgumentParser

METRICS = ("engine_dale", "engine_2p", "vector_dale", "gym_dale", "gym_loop")

# Runs in a worker process inside one checkout: reads one JSON request per line
# ({"metric": name, "seconds": s, "seed": n}) and answers with one "RESULT {...}" line.
WORKER = r"""
import json, os, random, sys, time, types
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
import gymnasium as gym
import numpy as np
import env_speed
import suburbia_env
c = env_speed.c  # the constants module, whatever its path in this checkout

clock = time.process_time if sys.argv[1] == "cpu" else time.perf_counter
env_speed.time = types.SimpleNamespace(perf_counter=clock)  # the clock of its measurements

def gym_loop(seconds, seed):
    env = gym.make("Suburbia-v1")
    chooser = random.Random(seed)
    observation, info = env.reset(seed=seed)
    steps = 0
    start = clock()
    while clock() - start < seconds:
        for _ in range(100):
            legal = np.flatnonzero(observation["action_mask"])
            observation, _, terminated, truncated, info = env.step(
                legal[chooser.randrange(len(legal))])
            if terminated or truncated:
                observation, info = env.reset()
        steps += 100
    return steps / (clock() - start)

MEASURE = {
    "engine_dale": lambda s, n: env_speed.measure_engine(s, n, 2, c.MODE_DALE, 1),
    "engine_2p": lambda s, n: env_speed.measure_engine(s, n, 2, c.MODE_STANDARD, 1),
    "vector_dale": lambda s, n: env_speed.measure_vector(s, n, 64, 1, False)["env"],
    "gym_dale": lambda s, n: env_speed.measure_gym(s, n)["env"],
    "gym_loop": gym_loop,
}
print("RESULT " + json.dumps({"ready": os.path.dirname(suburbia_env.__file__)}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    value = MEASURE[request["metric"]](request["seconds"], request["seed"])
    print("RESULT " + json.dumps({"value": value}), flush=True)
"""


def git(repo: Path, *arguments: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *arguments], check=True,
                          capture_output=True, text=True).stdout.strip()


def unpack(repo: Path, commit: str, workdir: Path) -> Path:
    """The files of `commit` under workdir/<commit>, unpacked once and reused (their
    modification times are the commit's, so numba's cache there stays valid)."""
    target = workdir / commit
    done = target / ".unpacked"
    if not done.exists():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(["git", "-C", str(repo), "archive", "--format=tar", commit],
                                   stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            raise SystemExit(f"git archive {commit} failed")
        done.touch()
    return target


class Worker:
    """A Python process measuring inside one checkout (the WORKER script)."""

    def __init__(self, label: str, checkout: Path, clock: str):
        self.label = label
        environment = dict(os.environ, PYTHONPATH=str(checkout), OMP_NUM_THREADS="1",
                           MKL_NUM_THREADS="1",
                           PYTHONWARNINGS="ignore::DeprecationWarning")
        self.process = subprocess.Popen([sys.executable, "-c", WORKER, clock], cwd=checkout,
                                        env=environment, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)
        package = self._answer()["ready"]
        if Path(package).resolve().parent != checkout.resolve():
            raise SystemExit(f"{label}: the worker imported suburbia_env from {package}, "
                             f"not from {checkout}")

    def _answer(self) -> dict:
        for line in self.process.stdout:
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT "):])
        raise SystemExit(f"{self.label}: the worker stopped (exit code "
                         f"{self.process.wait()}); its error is printed above")

    def send(self, metric: str, seconds: float, seed: int) -> None:
        self.process.stdin.write(json.dumps({"metric": metric, "seconds": seconds,
                                             "seed": seed}) + "\n")

    def measure(self, metric: str, seconds: float, seed: int) -> float:
        self.send(metric, seconds, seed)
        return self._answer()["value"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def spread(values: list[float], digits: int = 0) -> str:
    return (f"{statistics.median(values):,.{digits}f} ({min(values):,.{digits}f} .. "
            f"{max(values):,.{digits}f})")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the commit measured as before")
    parser.add_argument("--new", default="HEAD", help="the commit measured as after (HEAD)")
    parser.add_argument("--rounds", type=int, default=7,
                        help="rounds, each measuring every metric on both commits (default 7)")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="seconds per measurement, more than 0 (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="cpu (default): the worker's processor time, which time slices "
                             "given to other processes do not count in; wall: elapsed time")
    parser.add_argument("--metrics", default=",".join(METRICS),
                        help=f"comma-separated, of {', '.join(METRICS)} (default: all)")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "suburbia-compare-commits",
                        help="where the commits are unpacked and kept (default: under the "
                             "system's temporary directory)")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    metrics = [name for name in args.metrics.split(",") if name]
    unknown = [name for name in metrics if name not in METRICS]
    if unknown or not metrics:
        parser.error(f"--metrics: unknown {', '.join(unknown) or 'empty list'}; "
                     f"choose from {', '.join(METRICS)}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.seconds <= 0:
        parser.error("--seconds must be more than 0")
    repo = Path(git(Path(__file__).resolve().parent, "rev-parse", "--show-toplevel"))
    commits = {}
    for label, revision in (("old", args.old), ("new", args.new)):
        try:
            commits[label] = git(repo, "rev-parse", "--verify", f"{revision}^{{commit}}")
        except subprocess.CalledProcessError:
            parser.error(f"--{label}: {revision!r} is not a commit of {repo}")

    started = time.perf_counter()
    load_before = os.getloadavg()
    workers = {label: Worker(label, unpack(repo, commit, args.workdir), args.clock)
               for label, commit in commits.items()}
    for metric in metrics:  # warm-up: compile or load every kernel, both workers at once
        for worker in workers.values():
            worker.send(metric, 0.2, args.seed)
        for worker in workers.values():
            worker._answer()
    figures = {metric: {"old": [], "new": []} for metric in metrics}
    for round_index in range(args.rounds):
        for metric_index, metric in enumerate(metrics):
            order = ("old", "new") if (round_index + metric_index) % 2 == 0 else ("new", "old")
            for label in order:
                figures[metric][label].append(
                    workers[label].measure(metric, args.seconds, args.seed + round_index))
    for worker in workers.values():
        worker.close()
    load_after = os.getloadavg()

    print(f"Interleaved speed of two commits: {args.rounds} rounds, {args.seconds:g} s per "
          f"measurement ({args.clock} time), one thread; CPUs: {os.cpu_count()}; load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after; "
          f"{time.perf_counter() - started:.0f} s")
    for label, commit in commits.items():
        print(f"  {label}: {git(repo, 'log', '-1', '--format=%h %s', commit)}")
    header = f"{'metric':<12} | {'old: median (range)':>32} | {'new: median (range)':>32} | " \
             f"{'new/old per round: median (range)':>34}"
    print(header)
    print("-" * len(header))
    for metric in metrics:
        old, new = figures[metric]["old"], figures[metric]["new"]
        ratios = [after / before for before, after in zip(old, new)]
        print(f"{metric:<12} | {spread(old):>32} | {spread(new):>32} | "
              f"{spread(ratios, 3):>34}")
    print("engine_*: raw engine decisions/s; vector_dale, gym_dale: env steps/s (time inside "
          "the env); gym_loop: steps/s of the whole loop over gym.make. Ratios above 1: the "
          "new commit is faster.")


if __name__ == "__main__":
    main()
