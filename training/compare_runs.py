"""Two runs of a recipe side by side (issue 32, item 6): every evaluation both made (the
same stage, purpose, attempt and games), each run's win rate with its 95% Wilson interval,
and whether each lies in the other's interval; then whether their stages' weights and
recorded games are the same bytes. Two runs with the same seed should agree within their intervals; with one
torch thread and no kill they are expected to be identical.

    python -m training.compare_runs RUN_A RUN_B
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .run_record import evaluations


def _key(row: dict) -> tuple:
    return (row["stage"], row.get("attempt", 1), row["purpose"], row["against"],
            row.get("players", 1), row["games"], row["seed"], row.get("env_steps", 0))


def _data_outputs(record: dict) -> list[str]:
    """The SHA-256 of a stage's weights and recorded games (its JSON files carry times)."""
    return sorted(digest for path, digest in record.get("outputs", {}).items()
                  if not path.endswith(".json"))


def compare(run_a: Path, run_b: Path) -> dict:
    """The matched evaluations and outputs of two run folders."""
    rows_a = {_key(row): row for row in evaluations(Path(run_a))}
    rows_b = {_key(row): row for row in evaluations(Path(run_b))}
    matched = []
    for key in [key for key in rows_a if key in rows_b]:
        a, b = rows_a[key], rows_b[key]
        matched.append({
            "stage": key[0], "purpose": key[2], "against": key[3], "games": key[5],
            "env_steps": key[7], "a": a["win_rate"], "b": b["win_rate"],
            "a_interval": [a["win_rate_low"], a["win_rate_high"]],
            "b_interval": [b["win_rate_low"], b["win_rate_high"]],
            "each_within_other": (b["win_rate_low"] <= a["win_rate"] <= b["win_rate_high"]
                                  and a["win_rate_low"] <= b["win_rate"]
                                  <= a["win_rate_high"]),
            "same_model": a.get("model_sha256") == b.get("model_sha256")})
    stages_a = json.loads((Path(run_a) / "state.json").read_text())["stages"]
    stages_b = json.loads((Path(run_b) / "state.json").read_text())["stages"]
    outputs = {}
    for name in stages_a:
        data_a, data_b = (_data_outputs(stages.get(name, {})) for stages in (stages_a, stages_b))
        if data_a and data_b:
            outputs[name] = data_a == data_b
    return {"evaluations": matched, "only_a": len(rows_a) - len(matched),
            "only_b": len(rows_b) - len(matched), "identical_outputs": outputs,
            "agree": bool(matched) and all(row["each_within_other"] for row in matched)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.compare_runs",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = parser.parse_args(argv)
    for run in (args.run_a, args.run_b):
        if not (run / "state.json").exists():
            print(f"python -m training.compare_runs: {run} is not a recipe run folder "
                  f"(no state.json)", file=sys.stderr)
            return 2
    result = compare(args.run_a, args.run_b)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0 if result["agree"] else 1
    print(f"{'stage':<16} {'purpose':<10} {'games':>6} {'PPO steps':>10}  "
          f"{'A [95% Wilson]':<22} {'B [95% Wilson]':<22} within  same model")
    for row in result["evaluations"]:
        print(f"{row['stage']:<16} {row['purpose']:<10} {row['games']:>6} "
              f"{row['env_steps']:>10,}  "
              f"{row['a']:.3f} [{row['a_interval'][0]:.3f}, {row['a_interval'][1]:.3f}]  "
              f"{row['b']:.3f} [{row['b_interval'][0]:.3f}, {row['b_interval'][1]:.3f}]  "
              f"{'yes' if row['each_within_other'] else 'NO':<6}  "
              f"{'yes' if row['same_model'] else 'no'}")
    same = [name for name, equal in result["identical_outputs"].items() if equal]
    differ = [name for name, equal in result["identical_outputs"].items() if not equal]
    print(f"stages with byte-identical outputs: {', '.join(same) or 'none'}"
          + (f"; differing: {', '.join(differ)}" if differ else ""))
    if result["only_a"] or result["only_b"]:
        print(f"evaluations in one run only: {result['only_a']} in A, {result['only_b']} in B")
    print("the runs agree: every shared evaluation lies in the other's interval"
          if result["agree"] else "the runs DISAGREE (or share no evaluation)")
    return 0 if result["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
