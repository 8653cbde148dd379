"""Time to a first agent: `suburbia train --recipe quickstart` as a user runs it, timed
from its start to its exit, once per seed, with the final evaluation's win rate against
Dale and its 95% Wilson interval.

    python benchmarks/quickstart_time.py [--seeds 1 2 ...] [--cold] [--recipe NAME]
                                         [--runs-dir DIR]

Each seed runs the recipe in a fresh run folder (DIR/seed-N) in its own process, its
output passed through as it comes. `--cold` gives each run an empty numba cache
(NUMBA_CACHE_DIR in the run folder), as a fresh installation has: its time includes
compiling the game's kernels. The final evaluation's games (the recipe's evaluate
stage, seeds 100000 up) are apart from the seeds the recipe was tuned on (6000..6399)
and from every recorded game (2**32 up). The load average at start and end is printed:
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
    path = run_dir / "log.jsonl"
    if not path.is_file():
        return None
    for line in path.read_text().splitlines():
        event = json.loads(line)
        if event.get("event") == "kernels_ready":
            return event.get("seconds")
    return None


def run_once(recipe: str, seed: int, run_dir: Path, cold: bool) -> dict:
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    if cold:
        environment["NUMBA_CACHE_DIR"] = str(run_dir / "numba-cache")
    command = [sys.executable, "-m", "suburbia_env.apps.cli", "train", "--recipe", recipe,
               "--run-dir", str(run_dir), "--seed", str(seed)]
    load_before = os.getloadavg()
    began = time.monotonic()
    completed = subprocess.run(command, env=environment, cwd=ROOT)
    wall = time.monotonic() - began
    return {"seed": seed, "status": completed.returncode, "wall": wall,
            "kernels": kernel_seconds(run_dir), "evaluation": final_evaluation(run_dir),
            "load": (load_before[0], os.getloadavg()[0])}


def line(result: dict) -> str:
    minutes, seconds = divmod(int(round(result["wall"])), 60)
    text = (f"seed {result['seed']}: {minutes}m{seconds:02d}s of wall time"
            + (f" (kernels {result['kernels']:.0f}s)" if result["kernels"] is not None
               else ""))
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
                        help="an empty numba cache per run, as a fresh installation has")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs/quickstart-benchmark"))
    arguments = parser.parse_args(argv)
    results = []
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
