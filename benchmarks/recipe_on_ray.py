"""Wall time of a recipe's record stage on this machine and on a Ray cluster
(`suburbia train --recipe ... --ray-address`, training/ray_stages.py), with the same
demonstrations checked byte for byte.

    python benchmarks/recipe_on_ray.py --ray-address HOST:PORT [--games 200]
        [--chunk-games 20] [--workers 2] [--repeats 2]

A one-stage recipe records `--games` greedy games against Dale (R9.2) in chunks of
`--chunk-games`, each chunk cut in `--workers` parts, as the shipped recipes do. Each
repeat runs it in a fresh run folder on this machine (`--workers` spawned processes),
then on the cluster (every part a Ray task), interleaved; printed: the stage's wall
time from the run's state.json (the recording alone: not the start of the command nor
the joining of the cluster), the whole command's wall time, the time to the first
chunk written (starting the worker processes or tasks: imports, compiled kernels
loaded), the games per second after it, and the demonstrations' SHA-256. The cluster must check a token (RAY_AUTH_MODE=token and its RAY_AUTH_TOKEN in
the environment, docs/distributed.md). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def recipe(games: int, chunk_games: int, workers: int) -> dict:
    return {"name": "record-benchmark", "description": "One record stage, for timing.",
            "seed": 0, "torch_threads": 1, "stages": [
                {"name": "greedy-games", "kind": "record", "demonstrator": "greedy",
                 "games": games, "chunk_games": chunk_games, "workers": workers}]}


def timed_run(folder: Path, name: str, extra: list[str]) -> dict:
    from training.run_state import sha256_of
    run_dir = folder / name
    command = [sys.executable, "-m", "suburbia_env.apps.cli", "train", "--recipe",
               str(folder / "recipe.json"), "--run-dir", str(run_dir), *extra]
    began = time.monotonic()
    completed = subprocess.run(command, capture_output=True, text=True, cwd=folder)
    seconds = time.monotonic() - began
    if completed.returncode != 0:
        raise SystemExit(f"{name} failed:\n{completed.stderr[-3000:]}")
    stage = json.loads((run_dir / "state.json").read_text())["stages"]["greedy-games"]
    events = [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines()]
    started = next(event["time"] for event in events if event["event"] == "stage_started")
    chunks = [event for event in events if event["event"] == "chunk_done"]
    first, last = chunks[0]["time"] - started, chunks[-1]["time"] - started
    later_games = stage["games"] - chunks[0]["games"]
    return {"stage_seconds": stage["wall_seconds"], "command_seconds": seconds,
            "first_chunk_seconds": first,
            "later_rate": later_games / (last - first) if last > first else float("nan"),
            "decisions": stage["decisions"],
            "sha256": sha256_of(run_dir / stage["demonstrations"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ray-address", required=True)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--chunk-games", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    arguments = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="recipe-on-ray-") as temporary:
        folder = Path(temporary)
        (folder / "recipe.json").write_text(json.dumps(recipe(
            arguments.games, arguments.chunk_games, arguments.workers)))
        print(f"{arguments.games} greedy games against Dale, chunks of "
              f"{arguments.chunk_games}, {arguments.workers} parts a chunk; "
              f"{os.cpu_count()} cores here")
        print(f"{'where':<34} {'stage s':>8} {'command s':>10} {'1st chunk s':>12} "
              f"{'games/s after':>14} {'decisions':>10}  sha256")
        for repeat in range(arguments.repeats):
            for name, extra in (("this machine", []),
                                (f"Ray at {arguments.ray_address}",
                                 ["--ray-address", arguments.ray_address])):
                row = timed_run(folder, f"{'local' if not extra else 'ray'}-{repeat}", extra)
                print(f"{name:<34} {row['stage_seconds']:>8.1f} {row['command_seconds']:>10.1f} "
                      f"{row['first_chunk_seconds']:>12.1f} {row['later_rate']:>14.1f} "
                      f"{row['decisions']:>10,}  {row['sha256'][:16]}", flush=True)


if __name__ == "__main__":
    main()
