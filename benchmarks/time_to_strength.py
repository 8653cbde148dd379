"""Time to strength (issue 32, item 2): a recipe from nothing, its learning curve printed
and plotted against wall time, beside the hand-made path it replaces.

    python benchmarks/time_to_strength.py --recipe dale --run-dir runs/tts-dale
    python benchmarks/time_to_strength.py --recipe multiplayer --run-dir runs/tts-mp \
        --clone runs/tts-mp-clone
    python benchmarks/time_to_strength.py --report runs/tts-dale --plot docs/images/x.png

The first forms run `suburbia train --recipe NAME` from a fresh clone of this checkout's
HEAD (so the numba kernels compile as on a new machine and nothing of this checkout's
caches helps), then report. A temporary clone goes with the command; `--clone DIR` keeps
it, so that a run longer than a session, killed with it, goes on when the same command is
given again (the clone is reused as it is, at the commit it was made at). The report reads
the run folder only: one row per stage (wall time, run time at its end, its evaluations
with 95% Wilson intervals), for each of the recipe's targets the first run time at which
an evaluation on untuned seeds (the recipe's `evaluate` stages) reached it, and a picture
of win rate against wall time with the hand-made path of docs/model-history.md beside it.
Run time is the wall time of the run's sessions, summed (training/run_state.py); a run
that started from the final model of another completed run (the multiplayer recipe from
the dale recipe's) counts that run's time first, so times are from nothing. Figures are
printed, never asserted.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from training.run_record import evaluations, read_events  # noqa: E402
from training.run_state import sha256_of  # noqa: E402

HAND_MADE_PATHS = {
    "dale": {
        "label": "hand-made baseline, stages 1-5 (docs/model-history.md)",
        # (cumulative wall minutes, win rate, how it was measured)
        "points": [(63.0, 0.864, "stage 1, seeds 0..999"),
                   (114.5, 0.905, "stage 2, tuning seeds, 200 games"),
                   (181.5, 0.920, "stage 3, tuning seeds, 200 games"),
                   (232.5, 0.963, "stage 4, tuning seeds, 400 games"),
                   (292.5, 0.961, "stage 5 (released), seeds 0..999")],
    },
    "multiplayer": {
        "label": "hand-made multiplayer, from the baseline's stage 3 (docs/model-history.md)",
        # 2-player games against greedy; the start is the baseline's stages 1-3 (181.5 min)
        "points": [(236.5, 0.588, "stage 1, tuning seeds, 1,000 games"),
                   (290.5, 0.673, "stage 2 round 1"),
                   (334.5, 0.706, "stage 2 round 2"),
                   (377.0, 0.738, "stage 3 run 1"),
                   (423.0, 0.808, "stage 3 run 2"),
                   (433.0, 0.825, "stage 3 run 3 (released), tuning seeds")],
    },
}
"""The hand-made paths' wall times, summed from docs/model-history.md's stage times (the
stages were run days apart, some on a shared machine, stages 1-2 under the rules before
2026-11-25); points are the figures measured then."""

TARGETS = {
    "dale": {"minutes": 60, "win_rates": {"dale": 0.90}},
    "multiplayer": {"minutes": 240, "win_rates": {"greedy 2p": 0.80, "greedy 4p": 0.55}},
}
"""Issue 32's targets: win rates against each opponent (key as in `opponent`) on untuned
seeds, within so many minutes of wall time from nothing."""


def opponent(row: dict) -> str:
    """An evaluation row's opponent: "dale", or "greedy Np" for N players."""
    return row["against"] if row["against"] == "dale" else f"{row['against']} {row['players']}p"


def run_recipe(recipe: str, run_dir: Path, seed: int | None, ray_address: str | None,
               kept_clone: Path | None = None) -> int:
    """The recipe from a fresh clone of HEAD, so that nothing is cached (or from
    `kept_clone`, made now or kept from an earlier session)."""
    if kept_clone is not None:
        if not (kept_clone / ".git").exists():
            make_clone(kept_clone)
        head = subprocess.run(["git", "-C", str(kept_clone), "rev-parse", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        return run_in(kept_clone.resolve(), head, recipe, run_dir, seed, ray_address)
    with tempfile.TemporaryDirectory(prefix="time-to-strength-") as folder:
        clone = Path(folder) / "clone"
        head = make_clone(clone)
        return run_in(clone, head, recipe, run_dir, seed, ray_address)


def make_clone(clone: Path) -> str:
    """A clone of this checkout at its HEAD; returns the commit."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", head], check=True)
    return head


def run_in(clone: Path, head: str, recipe: str, run_dir: Path, seed: int | None,
           ray_address: str | None) -> int:
    """`suburbia train --recipe` with the clone's code and its own numba cache."""
    command = [sys.executable, "-m", "suburbia_env.apps.cli", "train", "--recipe",
               recipe, "--run-dir", str(run_dir.resolve())]
    if seed is not None:
        command += ["--seed", str(seed)]
    if ray_address:
        command += ["--ray-address", ray_address]
    environment = {**os.environ, "PYTHONPATH": str(clone), "OMP_NUM_THREADS": "1",
                   "MKL_NUM_THREADS": "1"}
    environment.pop("NUMBA_CACHE_DIR", None)
    print(f"$ {' '.join(command)}   (from a clone of {head[:12]} in {clone})", flush=True)
    began = time.monotonic()
    code = subprocess.run(command, cwd=clone, env=environment).returncode
    print(f"the command ran {(time.monotonic() - began) / 60:.1f} min of wall time "
          f"and exited with {code}", flush=True)
    return code


def stage_rows(run_dir: Path) -> list[dict]:
    """Each stage's wall time and the run time at its end, from the run's log."""
    state = json.loads((run_dir / "state.json").read_text())
    ends, rows = {}, []
    for event in read_events(run_dir):
        if event["event"] in ("stage_done", "stage_skipped") and "run_seconds" in event:
            ends[event["stage"]] = event["run_seconds"]
        if event["event"] == "kernels_ready" and event.get("compiled"):
            rows.append({"stage": "(compile kernels)", "status": "done",
                         "wall_seconds": event["seconds"], "run_seconds": event["run_seconds"],
                         "note": ""})
    for name, record in state["stages"].items():
        rows.append({"stage": name, "status": record.get("status"),
                     "wall_seconds": record.get("wall_seconds"), "run_seconds": ends.get(name),
                     "note": record.get("note", "")})
    return sorted(rows, key=lambda row: (row["run_seconds"] is None, row["run_seconds"] or 0))


def prerequisite(state: dict) -> tuple[Path, dict] | None:
    """The run whose final model this run started from, when its start is a model file
    that a completed run folder released (its state.json names the file and its SHA-256):
    that run's time counts towards this run's time from nothing."""
    start = state.get("start", "none")
    if start == "none" or start.startswith("recipe:"):
        start = "runs/" + start[len("recipe:"):] + "/model.safetensors" \
            if start.startswith("recipe:") else None
    if start is None or not Path(start).is_file():
        return None
    folder = Path(start).resolve().parent
    if not (folder / "state.json").is_file():
        return None
    before = json.loads((folder / "state.json").read_text())
    final = before.get("final") or {}
    if before.get("status") != "complete" or final.get("sha256") != sha256_of(Path(start)):
        return None
    return folder, before


def report(run_dir: Path, targets: dict[str, float], plot: Path | None) -> dict:
    state = json.loads((run_dir / "state.json").read_text())
    rows = evaluations(run_dir)
    print(f"run {run_dir}: recipe {state['recipe']}, seed {state['seed']}, status "
          f"{state.get('status')}, {state.get('run_seconds', 0) / 60:.1f} min of wall time, "
          f"commit {state['provenance']['git']['commit'][:12]}, machine "
          f"{state['provenance']['machine'].get('cores')} cores")
    offset = 0.0
    before = prerequisite(state)
    if before:
        offset = before[1]["run_seconds"]
        print(f"it started from the final model of run {before[0]} (recipe "
              f"{before[1]['recipe']}, {offset / 60:.1f} min of wall time from nothing, commit "
              f"{before[1]['provenance']['git']['commit'][:12]}): run times below include it")
        rows = [{**row, "run_seconds": row["run_seconds"] + offset} for row in rows]
    print(f"{'stage':<16} {'wall':>8} {'run time':>9}  evaluations [95% Wilson]")
    for stage in stage_rows(run_dir):
        mine = [row for row in rows if row["stage"] == stage["stage"]]
        figures = "; ".join(f"{row['purpose']} {row['win_rate']:.3f} [{row['win_rate_low']:.3f},"
                            f" {row['win_rate_high']:.3f}] ({row['games']} vs "
                            f"{row['against']}" + (f" {row['players']}p" if row["against"]
                                                   != "dale" else "") + ")" for row in mine)
        wall = f"{stage['wall_seconds'] / 60:.1f}m" if stage["wall_seconds"] else "-"
        at = f"{(stage['run_seconds'] + offset) / 60:.1f}m" if stage["run_seconds"] else "-"
        print(f"{stage['stage']:<16} {wall:>8} {at:>9}  {figures}"
              + (f"  [{stage['note']}]" if stage["note"] else ""))
    untuned = [row for row in rows if row["purpose"] == "evaluation"]
    reached = {}
    for key, target in targets.items():
        row = next((row for row in untuned if opponent(row) == key
                    and row["win_rate"] >= target), None)
        if row is None:
            print(f"no evaluation on untuned seeds reached {target:.2f} against {key}")
            continue
        reached[key] = row
        print(f"reached {target:.2f} against {key} on untuned seeds at "
              f"{row['run_seconds'] / 60:.1f} min of wall time: {row['win_rate']:.3f} "
              f"[{row['win_rate_low']:.3f}, {row['win_rate_high']:.3f}] over {row['games']} "
              f"games ({row['stage']})")
    if plot:
        draw(run_dir, state, rows, targets, plot)
        print(f"picture: {plot}")
    return reached


def draw(run_dir: Path, state: dict, rows: list[dict], targets: dict[str, float],
         path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axis = plt.subplots(figsize=(9, 4.6))
    keys = sorted({opponent(row) for row in rows})
    for key in keys:
        for purpose, marker, label in (("periodic", ".", "PPO's periodic evaluations"),
                                       ("gate", "s", "gates (tuning seeds)"),
                                       ("input", "s", None),
                                       ("evaluation", "o", "evaluate stages (untuned seeds)")):
            points = [row for row in rows if row["purpose"] == purpose and opponent(row) == key]
            if not points or label is None:
                continue
            axis.errorbar([row["run_seconds"] / 60 for row in points],
                          [row["win_rate"] for row in points],
                          yerr=[[row["win_rate"] - row["win_rate_low"] for row in points],
                                [row["win_rate_high"] - row["win_rate"] for row in points]],
                          marker=marker, linestyle="-" if purpose == "periodic" else "none",
                          capsize=3, label=f"recipe `{state['recipe']}` vs {key}: {label}")
    hand = HAND_MADE_PATHS.get(state["recipe"])
    if hand:
        axis.plot([point[0] for point in hand["points"]], [point[1] for point in hand["points"]],
                  marker="x", linestyle="--", color="grey", label=hand["label"])
    for target in targets.values():
        axis.axhline(target, color="red", linewidth=0.8, linestyle=":")
    axis.axvline(TARGETS.get(state["recipe"], {}).get("minutes", 60), color="red",
                 linewidth=0.8, linestyle=":")
    axis.set_xlabel("wall time from nothing (minutes)")
    axis.set_ylabel("win rate [95% Wilson]")
    axis.set_ylim(0.3 if len(keys) > 1 else 0.4, 1.0)
    axis.set_xlim(left=0)
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right", fontsize=8)
    axis.set_title(f"Time to strength: {run_dir.name} ({state['provenance']['machine'].get('cores')}"
                   f"-core machine, run seed {state['seed']})")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", help="run this recipe from a fresh clone, then report")
    parser.add_argument("--run-dir", type=Path, help="where the recipe's run goes")
    parser.add_argument("--seed", type=int, help="the run seed (default: the recipe's)")
    parser.add_argument("--ray-address", help="run the recipe's parallel stages on Ray")
    parser.add_argument("--report", type=Path, metavar="RUN_DIR",
                        help="only report on an existing run folder")
    parser.add_argument("--clone", type=Path, metavar="DIR",
                        help="keep the fresh clone here and reuse it when the command is "
                             "given again (a run that resumes in a later session)")
    parser.add_argument("--target", type=float,
                        help="the win rate to reach against the recipe's first opponent "
                             "(default: the recipe's targets, TARGETS)")
    parser.add_argument("--plot", type=Path, help="write the picture here (PNG)")
    args = parser.parse_args(argv)
    if args.report:
        run_dir = args.report
    elif args.recipe and args.run_dir:
        run_recipe(args.recipe, args.run_dir, args.seed, args.ray_address, args.clone)
        run_dir = args.run_dir
    else:
        parser.error("give --recipe NAME --run-dir DIR, or --report RUN_DIR")
    if not (run_dir / "state.json").exists():
        print(f"{run_dir} is not a recipe run folder (no state.json)", file=sys.stderr)
        return 2
    recipe = json.loads((run_dir / "state.json").read_text())["recipe"]
    targets = dict(TARGETS.get(recipe, TARGETS["dale"])["win_rates"])
    if args.target is not None:
        targets = {next(iter(targets)): args.target}
    report(run_dir, targets, args.plot or run_dir / "time_to_strength.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
