"""Releasing a recipe's model (issue 32, item 1): `models/NAME.safetensors` and its `.json`
are a finished run's final model, `models/cards/NAME.md` is the run's model card, and
`models/released.json` lists every released file with its SHA-256, the recipe and seed
that made it and its final evaluations. models/README.md's table of released files is
written from that list, and `--check` proves files, list and table agree.

    python -m training.release RUN_DIR NAME    # release a complete run as models/NAME.*
    python -m training.release --check         # files, SHA-256 and README table agree
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from .run_state import sha256_of, write_atomically

MODELS = Path(__file__).resolve().parent.parent / "models"
MANIFEST = "released.json"
TABLE_BEGIN = "<!-- released files: begin (python -m training.release writes this) -->"
TABLE_END = "<!-- released files: end -->"


class ReleaseError(ValueError):
    """A run that cannot be released, or released files that disagree with their list."""


def read_manifest(models: Path = MODELS) -> dict:
    path = models / MANIFEST
    if not path.exists():
        return {"format": "suburbia-released-models", "models": {}}
    return json.loads(path.read_text())


def release(run_dir: Path, name: str, models: Path = MODELS) -> dict:
    """Copy a complete run's final model and card into `models`, list them in the manifest
    and rewrite the README's table. Refuses a run that is not complete or whose final
    evaluations did not pass."""
    run_dir = Path(run_dir).resolve()
    if not name.replace("-", "").replace("_", "").isalnum():
        raise ReleaseError(f"a released model's name is letters, digits, - and _, "
                           f"not {name!r}")
    try:
        state = json.loads((run_dir / "state.json").read_text())
    except FileNotFoundError:
        raise ReleaseError(f"{run_dir} is not a recipe run folder (no state.json)") from None
    if state.get("status") != "complete" or not state.get("final"):
        raise ReleaseError(f"the run in {run_dir} is {state.get('status', 'unfinished')}, "
                           f"not complete: only a complete run's model is released")
    final_rows = _final_evaluations(run_dir, state)
    failed = [row for row in final_rows if row.get("passed") is False]
    if failed:
        raise ReleaseError(f"the run's final evaluation {failed[0]['stage']!r} did not pass "
                           f"({failed[0]['win_rate']:.3f} under {failed[0]['threshold']})")
    model = run_dir / "model.safetensors"
    if sha256_of(model) != state["final"]["sha256"]:
        raise ReleaseError(f"{model} differs from the SHA-256 its run recorded")
    (models / "cards").mkdir(parents=True, exist_ok=True)
    for suffix in (".safetensors", ".json"):
        shutil.copyfile(model.with_suffix(suffix), models / f"{name}{suffix}")
    card = re.sub(r"`/\S*/(training/recipes/[^/`]+\.json)`", r"`\1`",
                  (run_dir / "MODEL_CARD.md").read_text().replace(str(run_dir), f"runs/{name}"))
    start = _start_provenance(state.get("start", "none"))
    if "start_run" in start:
        card = card.replace(state["start"], start["start"])
    write_atomically(models / "cards" / f"{name}.md", card)
    provenance = state.get("provenance", {})
    entry = {
        "files": {f"{name}{suffix}": sha256_of(models / f"{name}{suffix}")
                  for suffix in (".safetensors", ".json")},
        "recipe": state["recipe"], "recipe_sha256": state.get("recipe_sha256"),
        "seed": state["seed"], "start": state.get("start", "none"),
        **start,
        "command": f"suburbia train --recipe {state['recipe']} --seed {state['seed']} "
                   f"--run-dir runs/{name}",
        "commit": provenance.get("git", {}).get("commit"),
        "wall_seconds": round(state.get("run_seconds", 0.0), 1),
        "env_steps": state.get("env_steps", 0),
        "card": f"cards/{name}.md",
        "final_evaluations": [{key: row[key] for key in
                               ("stage", "against", "players", "games", "seed", "win_rate",
                                "win_rate_low", "win_rate_high")} for row in final_rows],
    }
    manifest = read_manifest(models)
    manifest["models"][name] = entry
    write_atomically(models / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    write_readme_table(models)
    return entry


def _start_provenance(start: str) -> dict:
    """What a run started from, when that was a model file: its SHA-256 and, if the file
    is a complete recipe run's final model, that run's recipe, seed and commit, so that a
    chain of recipes (dale, multiplayer, multiplayer-styles) can be rerun and checked."""
    path = Path(start)
    if start in ("none", "") or start.startswith("recipe:") or not path.is_file():
        return {}
    provenance = {"start_sha256": sha256_of(path)}
    try:
        run = json.loads((path.parent / "state.json").read_text())
    except (OSError, ValueError):
        return provenance
    if run.get("status") == "complete" and \
            run.get("final", {}).get("sha256") == provenance["start_sha256"]:
        provenance["start"] = f"runs/{run.get('recipe')}/model.safetensors"
        provenance["start_run"] = {
            "recipe": run.get("recipe"), "seed": run.get("seed"),
            "recipe_sha256": run.get("recipe_sha256"),
            "commit": run.get("provenance", {}).get("git", {}).get("commit"),
            "command": f"suburbia train --recipe {run.get('recipe')} --seed {run.get('seed')}"
                       f" --run-dir runs/{run.get('recipe')}"}
    return provenance


def _final_evaluations(run_dir: Path, state: dict) -> list[dict]:
    """The `evaluate` stages' rows of the released model itself (an earlier evaluate stage,
    e.g. after a first round, measured another model)."""
    from .run_record import evaluations
    return [row for row in evaluations(run_dir) if row.get("purpose") == "evaluation"
            and row.get("model_sha256") == state["final"]["sha256"]]


def readme_table(manifest: dict) -> str:
    lines = ["| model | files and SHA-256 | made by | strength (policy alone, 95% Wilson) |",
             "|---|---|---|---|"]
    for name in sorted(manifest["models"]):
        entry = manifest["models"][name]
        files = "<br>".join(f"`{file}` `{digest}`"
                            for file, digest in sorted(entry["files"].items()))
        after = (f" after `{entry['start_run']['command']}`" if entry.get("start_run")
                 else "")
        made = (f"`{entry['command']}`{after} ({entry['wall_seconds'] / 60:.0f} min of wall "
                f"time; [model card]({entry['card']}))" if entry.get("recipe")
                else entry["made_by"])
        figures = "; ".join(
            f"{row['win_rate']:.3f} [{row['win_rate_low']:.3f}, {row['win_rate_high']:.3f}] "
            f"against {row['against']}"
            + (f" at {row['players']} players" if row["against"] != "dale" else "")
            + f", {row['games']:,} games from seed {row['seed']}"
            for row in entry.get("final_evaluations", [])) or entry.get("strength", "")
        lines.append(f"| `{name}` | {files} | {made} | {figures} |")
    return "\n".join(lines)


def write_readme_table(models: Path = MODELS) -> None:
    readme = models / "README.md"
    text = readme.read_text()
    if TABLE_BEGIN not in text or TABLE_END not in text:
        raise ReleaseError(f"{readme} has no table markers ({TABLE_BEGIN} ... {TABLE_END})")
    head, rest = text.split(TABLE_BEGIN, 1)
    _, tail = rest.split(TABLE_END, 1)
    table = readme_table(read_manifest(models))
    write_atomically(readme, f"{head}{TABLE_BEGIN}\n{table}\n{TABLE_END}{tail}")


def check(models: Path = MODELS) -> list[str]:
    """What disagrees between the released files, their list and the README's table."""
    problems = []
    manifest = read_manifest(models)
    listed = set()
    for name, entry in manifest["models"].items():
        for file, digest in entry["files"].items():
            listed.add(file)
            path = models / file
            if not path.exists():
                problems.append(f"{file} is listed in {MANIFEST} but missing")
            elif sha256_of(path) != digest:
                problems.append(f"{file}'s SHA-256 is {sha256_of(path)}, the list says "
                                f"{digest}")
        if entry.get("card") and not (models / entry["card"]).exists():
            problems.append(f"{name}'s card {entry['card']} is missing")
    for path in sorted(models.glob("*.safetensors")):
        for file in (path.name, path.with_suffix(".json").name):
            if file not in listed:
                problems.append(f"{file} is released but not listed in {MANIFEST}")
    text = (models / "README.md").read_text()
    if TABLE_BEGIN not in text or readme_table(manifest) not in text:
        problems.append("models/README.md's table of released files is not the one "
                        f"{MANIFEST} gives: run python -m training.release --write-table")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.release",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", nargs="?", type=Path, help="a complete recipe run folder")
    parser.add_argument("name", nargs="?", help="the released name, e.g. baseline")
    parser.add_argument("--check", action="store_true",
                        help="check files, SHA-256 and the README table; exit 1 on a problem")
    parser.add_argument("--write-table", action="store_true",
                        help="rewrite models/README.md's table from released.json")
    parser.add_argument("--models", type=Path, default=MODELS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = check(args.models)
            for problem in problems:
                print(problem, file=sys.stderr)
            return 1 if problems else 0
        if args.write_table:
            write_readme_table(args.models)
            return 0
        if not (args.run_dir and args.name):
            parser.error("give RUN_DIR and NAME, or --check")
        entry = release(args.run_dir, args.name, args.models)
    except ReleaseError as error:
        print(f"python -m training.release: {error}", file=sys.stderr)
        return 2
    print(f"released {', '.join(entry['files'])} ({entry['command']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
