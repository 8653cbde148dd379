"""What a recipe run leaves in its folder besides the models: the JSON-lines log, the
evaluation history (evaluations.jsonl and evaluations.csv), the learning curve
(learning_curve.png) and the model card (MODEL_CARD.md), plus the provenance every run
records (seeds, library versions, git commit, machine)."""

from __future__ import annotations

import csv
import io
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from .run_state import write_atomically

EVALUATION_COLUMNS = ("stage", "attempt", "purpose", "against", "players", "games", "seed",
                      "win_rate", "win_rate_low", "win_rate_high", "mean_population",
                      "mean_margin", "env_steps", "run_seconds", "threshold", "passed", "time")


def log_event(run_dir: Path, event: str, **fields) -> dict:
    """Append one event to RUN_DIR/log.jsonl (a line is written whole, then flushed)."""
    record = {"time": round(time.time(), 3), "event": event, **fields}
    with open(run_dir / "log.jsonl", "a") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")
        handle.flush()
    return record


def read_events(run_dir: Path) -> list[dict]:
    events = []
    try:
        lines = (run_dir / "log.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return events
    for line in lines:
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a kill
            continue
    return events


def evaluations(run_dir: Path) -> list[dict]:
    rows = []
    try:
        lines = (run_dir / "evaluations.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return rows
    for line in lines:
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def add_evaluation(run_dir: Path, row: dict) -> None:
    """Append an evaluation to the history and rewrite the CSV and the learning curve."""
    with open(run_dir / "evaluations.jsonl", "a") as handle:
        handle.write(json.dumps(row, sort_keys=True) + "\n")
    rows = evaluations(run_dir)
    text = io.StringIO()
    writer = csv.DictWriter(text, EVALUATION_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(run_dir / "evaluations.csv", text.getvalue())
    draw_learning_curve(run_dir, rows)


def draw_learning_curve(run_dir: Path, rows: list[dict]) -> None:
    """learning_curve.png: win rate (95% Wilson interval as bars) against the run's wall
    time and against its PPO environment steps, one series per opponent."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    series: dict[str, list[dict]] = {}
    for row in rows:
        label = row["against"] if row["against"] == "dale" else \
            f"greedy, {row['players']} players"
        series.setdefault(label, []).append(row)
    for label, points in series.items():
        for axis, key, scale in ((axes[0], "run_seconds", 60.0), (axes[1], "env_steps", 1e6)):
            x = [point[key] / scale for point in points]
            y = [point["win_rate"] for point in points]
            errors = [[point["win_rate"] - point["win_rate_low"] for point in points],
                      [point["win_rate_high"] - point["win_rate"] for point in points]]
            axis.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=f"vs {label}")
    for axis, title in ((axes[0], "wall time of the run (minutes)"),
                        (axes[1], "PPO environment steps (millions)")):
        axis.set_xlabel(title)
        axis.set_ylabel("win rate [95% Wilson]")
        axis.set_ylim(0, 1)
        axis.set_xlim(left=0)
        axis.grid(alpha=0.3)
        if series:
            axis.legend(loc="lower right")
    figure.suptitle(f"{run_dir.name}: evaluations of the recipe run")
    figure.tight_layout()
    temporary = run_dir / ".learning_curve.tmp.png"
    figure.savefig(temporary, dpi=90)
    plt.close(figure)
    os.replace(temporary, run_dir / "learning_curve.png")


# Provenance -----------------------------------------------------------------------------------

def git_commit(source: Path | None = None) -> dict:
    """The commit of the source tree this code runs from, and whether it has changes."""
    source = source or Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"],
                                capture_output=True, text=True, timeout=20)
        status = subprocess.run(["git", "-C", str(source), "status", "--porcelain",
                                 "--untracked-files=no"],
                                capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return {"commit": "unknown (git not found)", "dirty": None}
    if commit.returncode != 0:
        return {"commit": "unknown (not a git checkout)", "dirty": None}
    return {"commit": commit.stdout.strip(), "dirty": bool(status.stdout.strip())}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {"cores": os.cpu_count(), "usable_cores": usable, "cpu": cpu_model(),
            "system": f"{platform.system()} {platform.release()}",
            "python": sys.version.split()[0]}


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    found = {}
    for package in ("suburbia-env", "torch", "numpy", "numba", "stable-baselines3",
                    "sb3-contrib", "gymnasium", "safetensors", "matplotlib"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "not installed"
    from suburbia_env.versions import ENV_ID, RULES_REVISION
    found["rules"] = RULES_REVISION
    found["env_id"] = ENV_ID
    return found


# The model card ---------------------------------------------------------------------------------

def _rate(row: dict) -> str:
    return f"{row['win_rate']:.3f} [{row['win_rate_low']:.3f}, {row['win_rate_high']:.3f}]"


def _against(row: dict) -> str:
    return "Dale (R9.2)" if row["against"] == "dale" else \
        f"greedy, {row['players']} players ({row['players'] - 1} greedy)"


def _place(where: dict) -> str:
    if where.get("kind") == "ray":
        return (f"the Ray cluster at {where['address']} ({where['nodes']} nodes: "
                f"{', '.join(where['node_addresses'])}; {where['cpus']} CPUs)")
    return "this machine (worker processes)"


def _places(state: dict) -> str:
    """Where each session ran the parallel stages (training/stage_workers.py)."""
    places = []
    for session in state.get("session_history", []):
        place = _place(session.get("parallel_stages", {}))
        if place not in places:
            places.append(place)
    return "; ".join(places) or _place({})


def write_model_card(run_dir: Path, recipe, state: dict, commands: dict[str, list[str]],
                     stage_settings: dict[str, dict], command_line: str) -> Path:
    """MODEL_CARD.md from the run folder: what the recipe did, stage by stage, with the
    figures the run measured (rewritten after every stage)."""
    rows = evaluations(run_dir)
    provenance = state.get("provenance", {})
    lines = [f"# Model card: recipe `{recipe.name}`", ""]
    if recipe.description:
        lines += [recipe.description, ""]
    final = state.get("final")
    stages_done = sum(1 for s in state["stages"].values() if s["status"] in ("done", "skipped"))
    status = state.get("status", "running")
    lines += [f"Status: **{status}** ({stages_done} of {len(recipe.stages)} stages done or "
              f"skipped; {state.get('sessions', 1)} session(s) of the command, "
              f"{state.get('run_seconds', 0) / 60:.1f} min of wall time in all, "
              f"{state.get('env_steps', 0):,} PPO environment steps).", ""]
    if final:
        lines += [f"Final model: `{final['path']}` (SHA-256 `{final['sha256']}`), with its "
                  f"description `{final['description']}` (SHA-256 "
                  f"`{final['description_sha256']}`). Play it with "
                  f"`suburbia match --agents ppo:{final['path']} ...`.", ""]
    if recipe.next:
        lines += [f"Next: {recipe.next}", ""]
    lines += ["Rerun it (a killed run goes on from its last checkpoint with the same command):",
              "", "```bash", command_line, "```", "",
              "## Reproducibility", "",
              f"- recipe file `{recipe.path}` (SHA-256 `{recipe.sha256}`), run seed "
              f"{state['seed']}, start `{state['start']}`",
              f"- each stage's seed is derived from the run seed and the stage's place "
              f"(listed below); evaluation seeds are fixed by the recipe",
              f"- git commit `{provenance.get('git', {}).get('commit', '?')}`"
              f"{' with uncommitted changes (dirty)' if provenance.get('git', {}).get('dirty') else ''}",
              f"- machine: {provenance.get('machine', {}).get('cores', '?')} cores "
              f"({provenance.get('machine', {}).get('usable_cores', '?')} usable), "
              f"{provenance.get('machine', {}).get('cpu', '?')}, "
              f"{provenance.get('machine', {}).get('system', '?')}, Python "
              f"{provenance.get('machine', {}).get('python', '?')}",
              f"- recordings and evaluations ran on: {_places(state)}",
              "- versions: " + ", ".join(f"{name} {value}" for name, value
                                         in provenance.get("versions", {}).items()),
              f"- torch threads: {recipe.torch_threads}. The same seed gives the same "
              f"stages, games and demonstrations; recorded games are bit-identical. Training "
              f"with several torch threads, and a PPO stage resumed after a kill (new games "
              f"start from its checkpoint), need not give bit-identical weights, so compare "
              f"two runs by their evaluation intervals.", ""]
    lines += ["## Stages", ""]
    for stage in recipe.stages:
        record = state["stages"].get(stage.name, {"status": "pending"})
        lines.append(f"### {stage.index + 1}. `{stage.name}` ({stage.kind}): "
                     f"{record['status']}")
        lines.append("")
        if record["status"] == "skipped":
            lines += [f"Skipped: {record.get('reason', '')}", ""]
            continue
        details = []
        if "seed" in record:
            details.append(f"seed {record['seed']}")
        if "wall_seconds" in record:
            details.append(f"wall time {record['wall_seconds'] / 60:.1f} min")
        if record.get("attempt", 1) > 1:
            details.append(f"attempt {record['attempt']}")
        for key, label in (("games", "games"), ("decisions", "decisions"),
                           ("steps", "PPO steps"), ("epochs_done", "epochs")):
            if key in record:
                details.append(f"{label} {record[key]:,}")
        if "steps_per_second" in record:
            details.append(f"{record['steps_per_second']:,.0f} env steps/s")
        if "agreements" in record and record["agreements"]:
            details.append(f"agreement with the demonstrations "
                           f"{record['agreements'][0]:.3f} to {record['agreements'][-1]:.3f}")
        if "resumed_from" in record:
            details.append(f"resumed from {record['resumed_from']}")
        if details:
            lines += ["; ".join(details) + ".", ""]
        if record.get("note"):
            lines += [record["note"], ""]
        if stage.name in commands:
            lines += ["Command equivalent:", "", "```bash", *commands[stage.name], "```", ""]
        if stage.name in stage_settings:
            lines += ["Settings: `" + json.dumps(stage_settings[stage.name],
                                                  sort_keys=True) + "`", ""]
        outputs = record.get("outputs", {})
        if outputs and record["status"] == "done":
            lines += ["Outputs: " + ", ".join(f"`{name}` (SHA-256 `{digest[:16]}...`)"
                                              for name, digest in sorted(outputs.items())), ""]
    lines += ["## Evaluations", "",
              "Win rate of the policy alone (its most probable legal action; a shared win "
              "counts 1/winners, R8.3) with its 95% Wilson interval. Gate evaluations decide "
              "whether a stage's model goes on; the seeds are the recipe's, apart from the "
              "recorded games.", "",
              "| stage | purpose | against | games (seeds) | win rate [95% Wilson] | "
              "threshold | mean population | PPO steps | run time |",
              "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        threshold = "" if row.get("threshold") is None else \
            f"{row['threshold']:.2f}: {'passed' if row.get('passed') else 'failed'}"
        lines.append(f"| {row['stage']}{'' if row.get('attempt', 1) == 1 else ' #' + str(row['attempt'])} "
                     f"| {row['purpose']} | {_against(row)} | {row['games']:,} "
                     f"({row['seed']}..{row['seed'] + row['games'] - 1}) | {_rate(row)} | "
                     f"{threshold} | {row['mean_population']:.1f} | {row['env_steps']:,} | "
                     f"{row['run_seconds'] / 60:.1f} min |")
    lines += ["", "The learning curve plots these rows against the run's wall time and its "
              "PPO steps; `evaluations.csv` holds them, `log.jsonl` every event.", "",
              "![learning curve: win rate against wall time and PPO steps]"
              "(learning_curve.png)", ""]
    path = run_dir / "MODEL_CARD.md"
    write_atomically(path, "\n".join(lines))
    return path
