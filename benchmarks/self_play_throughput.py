"""Whole-training speed and learning of the self-play PPO stages: two commits (or a commit and
this checkout) in one run, interleaved.

    python benchmarks/self_play_throughput.py --old REV [--new REV] [--stage NAME]
        [--steps N] [--rounds R] [--learn-steps N --eval-games G --eval-seed S]
        [--pool-update-every N] [--env-threads N] [--workdir DIR]

Each commit is unpacked (`git archive`) into DIR/<commit> (kept between runs so numba's cache
of each stays warm); `--new` defaults to this checkout as it is. Every run is
`suburbia train --learner fast` in that checkout, with the settings of the multi-player
recipe's ppo stage `--stage` (training/recipes/multiplayer.json: "self-play" or
"ppo-vs-greedy": self-play at 2-4 players, its greedy and Dale shares, 64 games x 128
steps, minibatches of 2,048, 4 epochs) from scratch, one torch thread, no evaluation
while training.

Speed (`--rounds R`, `--steps N`): R rounds, old and new alternating which goes first;
each run's summary.json gives whole-training env steps/s and where the time went
(environment = the games with every other seat's decisions, observation, inference,
update), timed in processor time by default (`--clock cpu`: the learner's clock reads
its process's processor time, so the time slices other processes of a shared machine
take do not count, though their use of the caches does; `--clock wall` as `suburbia
train` itself measures). Printed: each run, then per commit the median, and the median
of the per-round ratios new/old.

Learning (`--learn-steps N`): one more run per commit of N steps with the same seed,
snapshots added every `--pool-update-every` steps; both final models are played against
the greedy player at 2 players (`training.evaluation.evaluate_against_greedy`, run in
this checkout for both, seeds from `--eval-seed`, which no tuning used), win rates with
Wilson 95% intervals, and the two models' weights compared (identical weights: the two
runs played the same games and made the same updates).

Figures are printed, never asserted; on a shared machine run it with `nice` and say so.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suburbia_env.arguments import ArgumentParser

HERE = Path(__file__).resolve().parent.parent
PARTS = ("environment", "observation", "inference", "update", "python between")


def checkout(revision: str | None, workdir: Path) -> tuple[str, Path]:
    """(label, folder) of a commit unpacked under `workdir`, or of this checkout."""
    if revision is None:
        return "working tree", HERE
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--verify",
                             f"{revision}^{{commit}}"], capture_output=True, text=True,
                            check=True).stdout.strip()
    folder = workdir / commit[:12]
    if not (folder / "pyproject.toml").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(HERE), "archive", commit],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return commit[:12], folder


def stage_options(stage: str, steps: int, seed: int, pool_update_every: int,
                  env_threads: int) -> list[str]:
    """`suburbia train` options of the recipe's ppo stage, from scratch, one torch thread,
    the games on `env_threads` threads (a commit before 2026-11-27 plays self-play's
    games on one whatever it is given)."""
    recipe = json.loads((HERE / "training/recipes/multiplayer.json").read_text())
    settings = next(item for item in recipe["stages"] if item["name"] == stage)["settings"]
    options = {**settings, "total_timesteps": steps, "torch_threads": 1, "seed": seed,
               "eval_every": 10**11, "eval_games": 2, "pool_update_every": pool_update_every,
               "checkpoint_every": 10**11, "env_threads": env_threads}
    argv = ["--learner", "fast", "--no-progress-bar"]
    for name, value in options.items():
        argv.append("--" + name.replace("_", "-"))
        argv.extend(str(item) for item in (value if isinstance(value, list) else [value]))
    return argv


# Runs `suburbia train` in a checkout; with the cpu clock the learner's timings (its
# learn_seconds and breakdown) read the process's processor time instead of elapsed time.
WORKER = """
import sys, time, types
from training import fast_ppo
if sys.argv[1] == "cpu":
    fast_ppo.time = types.SimpleNamespace(perf_counter=time.process_time)
from suburbia_env.apps.cli import main
sys.exit(main(sys.argv[2:]))
"""


def train(folder: Path, argv: list[str], output: Path, clock: str, env_threads: int) -> dict:
    environment = {**os.environ, "PYTHONPATH": str(folder), "OMP_NUM_THREADS": "1",
                   "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": str(env_threads)}
    command = [sys.executable, "-c", WORKER, clock, "train", *argv,
               "--output-dir", str(output)]
    started = time.perf_counter()
    finished = subprocess.run(command, cwd=folder, env=environment, capture_output=True,
                              text=True)
    if finished.returncode:
        raise SystemExit(f"training in {folder} failed:\n{finished.stderr[-3000:]}")
    summary = json.loads((output / "summary.json").read_text())
    summary["wall_seconds"] = time.perf_counter() - started
    return summary


def describe(label: str, summary: dict) -> str:
    parts = summary["breakdown"]
    steps = summary["timesteps"]
    shares = ", ".join(f"{part} {parts.get(part, 0) / max(sum(parts.values()), 1e-9):.0%} "
                       f"({parts.get(part, 0) / steps * 1e6:,.0f} us)" for part in PARTS)
    return f"  {label:<14} {summary['env_steps_per_second']:>8,.0f} steps/s  {shares}"


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z * ((rate * (1 - rate) + z * z / (4 * games)) / games) ** 0.5 / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def weights_digest(model: Path) -> str:
    from safetensors.numpy import load_file
    tensors = load_file(str(model))
    digest = hashlib.sha256()
    for name in sorted(tensors):
        digest.update(name.encode())
        digest.update(tensors[name].tobytes())
    return digest.hexdigest()


def evaluate(model: Path, games: int, seed: int) -> dict:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    torch.set_num_threads(1)
    from agents.model_format import load_safe_model
    from training.evaluation import evaluate_against_greedy
    result = evaluate_against_greedy(load_safe_model(model).policy, games, seed, players=2)
    wins = result["win_rate"] * result["games"]
    result["wilson"] = wilson(wins, result["games"])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the commit to compare against")
    parser.add_argument("--new", default=None, help="a commit (default: this checkout)")
    parser.add_argument("--stage", default="self-play", choices=("self-play", "ppo-vs-greedy"))
    parser.add_argument("--steps", type=int, default=32768, help="steps of each speed run")
    parser.add_argument("--rounds", type=int, default=2, help="speed rounds (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clock", default="cpu", choices=("cpu", "wall"),
                        help="the learner's timings in processor time (default: the time "
                             "other processes of a shared machine take is not counted) or "
                             "elapsed time")
    parser.add_argument("--learn-steps", type=int, default=0,
                        help="steps of the learning comparison (0: none)")
    parser.add_argument("--pool-update-every", type=int, default=65536)
    parser.add_argument("--env-threads", type=int, default=1,
                        help="threads playing the games (the recipe uses 2; measure it with "
                             "--clock wall, since processor time adds the threads up)")
    parser.add_argument("--eval-games", type=int, default=500)
    parser.add_argument("--eval-seed", type=int, default=7_000_000)
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "suburbia-self-play-bench")
    options = parser.parse_args(argv)
    options.workdir.mkdir(parents=True, exist_ok=True)
    commits = {"old": checkout(options.old, options.workdir),
               "new": checkout(options.new, options.workdir)}
    for side, (label, folder) in commits.items():
        print(f"{side}: {label} ({folder})", flush=True)
    runs = Path(tempfile.mkdtemp(prefix="runs-", dir=options.workdir))
    speeds = {"old": [], "new": []}
    for round_index in range(options.rounds):
        order = ("old", "new") if round_index % 2 == 0 else ("new", "old")
        print(f"round {round_index + 1} ({options.stage}, {options.steps} steps each):",
              flush=True)
        for side in order:
            argv_run = stage_options(options.stage, options.steps, options.seed,
                                     options.pool_update_every, options.env_threads)
            summary = train(commits[side][1], argv_run, runs / f"{side}-{round_index}",
                            options.clock, options.env_threads)
            speeds[side].append(summary["env_steps_per_second"])
            print(describe(side, summary), flush=True)
    if options.rounds:
        ratios = [new / old for new, old in zip(speeds["new"], speeds["old"])]
        for side in ("old", "new"):
            print(f"{side}: median {statistics.median(speeds[side]):,.0f} steps/s "
                  f"(runs {', '.join(f'{speed:,.0f}' for speed in speeds[side])})")
        print(f"new/old: median {statistics.median(ratios):.2f} "
              f"(rounds {', '.join(f'{ratio:.2f}' for ratio in ratios)})", flush=True)
    if options.learn_steps:
        models = {}
        for side in ("old", "new"):
            argv_run = stage_options(options.stage, options.learn_steps, options.seed,
                                     options.pool_update_every, options.env_threads)
            summary = train(commits[side][1], argv_run, runs / f"{side}-learn",
                            options.clock, options.env_threads)
            models[side] = runs / f"{side}-learn" / "model.safetensors"
            print(describe(f"{side} learn", summary), flush=True)
        digests = {side: weights_digest(model) for side, model in models.items()}
        same = digests["old"] == digests["new"]
        print(f"final weights: old {digests['old'][:16]}, new {digests['new'][:16]} "
              f"({'identical' if same else 'different'})", flush=True)
        for side in ("old", "new"):
            result = evaluate(models[side], options.eval_games, options.eval_seed)
            low, high = result["wilson"]
            print(f"  {side}: {options.learn_steps} steps, against greedy at 2 players, "
                  f"{result['games']} games from seed {options.eval_seed}: win rate "
                  f"{result['win_rate']:.3f} (Wilson 95% {low:.3f}-{high:.3f}), mean margin "
                  f"{result['mean_margin']:.2f}", flush=True)


if __name__ == "__main__":
    main()
