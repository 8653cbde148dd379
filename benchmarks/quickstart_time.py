"""Time to a first agent: `suburbia train --recipe quickstart` as a user runs it, timed
from its start to its exit, once per seed, with the final evaluation's win rate against
Dale and its 95% Wilson interval.

    python benchmarks/quickstart_time.py [--seeds 1 2 ...] [--cold] [--recipe NAME]
                                         [--runs-dir DIR]

Each seed runs the recipe in a fresh run folder (DIR/seed-N) in its own process, its
output passed through as it comes. `--cold` runs it as a fresh clone does: in a `git
clone` of this checkout's commit beside the run folder (no numba cache beside its
sources, no bytecode), with NUMBA_CACHE_DIR unset, so that its time includes compiling
the game's kernels; uncommitted changes are not in the clone (the benchmark says so).
Installing (scripts/quickstart.sh's pip step) is not timed. The final evaluation's
games (the recipe's evaluate stage, seeds 100000 up) are apart from the seeds the recipe
was tuned on (6000..6399, and its periodic evaluations' 7000 up) and from every recorded
game (2**32 up). The load average at start and end is printed:
on a shared machine the wall times are only as good as the load allowed. Figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def final_evaluation(run_dir: Path) -> dict | None:
    """The last row of the run's evaluation history made by an evaluate stage."""
    path = run_dir / "evaluations.jsonl"
    if not path.is_file():
        return None
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [row for row in rows if row.get("purpose") == "evaluation"]
    return rows[-1] if rows else None


def kernel_seconds(run_dir: Path) -> float | None:
    """Seconds from the run's start until every kernel was compiled (or loaded): the last
    `kernels_ready` event (the training part may finish beside the recording)."""
    path = run_dir / "log.jsonl"
    if not path.is_file():
        return None
    seconds = None
    for line in path.read_text().splitlines():
        event = json.loads(line)
        if event.get("event") == "kernels_ready":
            seconds = max(event.get("part_seconds", {}).values(), default=event.get("seconds"))
    return seconds


def stage_seconds(run_dir: Path) -> dict[str, float]:
    """Each stage's wall time (its last `stage_done` event)."""
    path = run_dir / "log.jsonl"
    if not path.is_file():
        return {}
    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {event["stage"]: event["wall_seconds"] for event in events
            if event.get("event") == "stage_done"}


def fresh_clone(run_dir: Path) -> Path:
    """A `git clone` of this checkout's commit beside `run_dir`, as a new user has it."""
    clone = run_dir.with_name(run_dir.name + "-clone")
    if clone.exists():
        raise SystemExit(f"{clone} exists: give another --runs-dir")
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
                   check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet",
                    git_output("rev-parse", "HEAD")], check=True)
    return clone


def git_output(*arguments: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *arguments], check=True,
                          capture_output=True, text=True).stdout.strip()


def run_once(recipe: str, seed: int, run_dir: Path, cold: bool) -> dict:
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    source = ROOT
    if cold:
        source = fresh_clone(run_dir)
        environment.pop("NUMBA_CACHE_DIR", None)
        environment["PYTHONPATH"] = os.pathsep.join(  # the clone's package first
            [str(source), *filter(None, [environment.get("PYTHONPATH")])])
    command = [sys.executable, "-m", "suburbia_env.apps.cli", "train", "--recipe", recipe,
               "--run-dir", str(run_dir), "--seed", str(seed)]
    load_before = os.getloadavg()
    began = time.monotonic()
    completed = subprocess.run(command, env=environment, cwd=source)
    wall = time.monotonic() - began
    return {"seed": seed, "status": completed.returncode, "wall": wall,
            "kernels": kernel_seconds(run_dir), "stages": stage_seconds(run_dir),
            "evaluation": final_evaluation(run_dir),
            "load": (load_before[0], os.getloadavg()[0])}


def line(result: dict) -> str:
    minutes, seconds = divmod(int(round(result["wall"])), 60)
    text = (f"seed {result['seed']}: {minutes}m{seconds:02d}s of wall time"
            + (f" (kernels {result['kernels']:.0f}s)" if result["kernels"] is not None
               else ""))
    if result["stages"]:
        text += " (" + ", ".join(f"{name} {seconds:.0f}s"
                                 for name, seconds in result["stages"].items()) + ")"
    row = result["evaluation"]
    if row is None:
        return text + f", no final evaluation (exit status {result['status']})"
    return (text + f", win rate {row['win_rate']:.3f} [{row['win_rate_low']:.3f}, "
            f"{row['win_rate_high']:.3f}] over {row['games']} games against {row['against']} "
            f"(seeds {row['seed']}..{row['seed'] + row['games'] - 1}); load average "
            f"{result['load'][0]:.1f} at start, {result['load'][1]:.1f} at end")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--recipe", default="quickstart")
    parser.add_argument("--cold", action="store_true",
                        help="each run in a fresh clone of this commit, with no numba cache")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs/quickstart-benchmark"))
    arguments = parser.parse_args(argv)
    results = []
    if arguments.cold:
        changed = git_output("status", "--porcelain", "--untracked-files=no")
        commit = git_output("rev-parse", "--short", "HEAD")
        print(f"=== cold runs in fresh clones of commit {commit}"
              + (" (this checkout's uncommitted changes are not in them)" if changed else ""),
              flush=True)
    for seed in arguments.seeds:
        run_dir = arguments.runs_dir.resolve() / f"seed-{seed}"
        if run_dir.exists():
            parser.error(f"{run_dir} exists: give another --runs-dir (a finished run would "
                         f"be skipped, not timed)")
        print(f"=== {arguments.recipe}, seed {seed}{', cold numba cache' if arguments.cold else ''}"
              f": {run_dir}", flush=True)
        results.append(run_once(arguments.recipe, seed, run_dir, arguments.cold))
        print(f"=== {line(results[-1])}", flush=True)
    print(f"\n{arguments.recipe} on {os.cpu_count()} cores"
          f"{', cold numba cache' if arguments.cold else ''}:")
    for result in results:
        print("  " + line(result))
    return 0 if all(result["status"] == 0 for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
