"""How far the review's win probabilities can be trusted (issue 33, item 4;
docs/calibration.md): reliability and expected calibration error (ECE) on held-out games,
before and after the calibration map, per player count and stage of the game.

    nice -n 19 python -m agents.calibration_data --out DATA --games N   # the data first
    python benchmarks/calibration.py --data DATA [--fit] [--images docs/images]

Every sampled decision gives one point per seat: the seat's reported win probability
after the move played (`raw`, or through the map) and its actual share of the win
(R8.3). Stage: the third of the game's decisions the decision falls in (early, middle,
late; the data job samples the three evenly). Bins: 10 of equal width. Intervals: 95%,
bootstrap over games (1000 resamples; a game's points share its outcome, so the game is
the unit resampled).

`--fit` fits the map on the fitting games only (isotonic, per mode and seat count,
agents/calibration.py) and writes agents/calibration_maps.json; without it the committed
map is measured. The held-out games are never used for fitting.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.calibration import (MAPS_FILE, MAPS_FORMAT, MAPS_VERSION,  # noqa: E402
                                CalibrationMap, calibration_for, file_sha256,
                                isotonic_knots, reliability)
from agents.calibration_data import read_lines  # noqa: E402
from agents.review import MODEL_OF_MODE  # noqa: E402

STAGES = ("early", "middle", "late")
BINS = 10


def key_of(line: dict) -> tuple[str, int]:
    return line["mode"], line["seats"]


def key_name(key: tuple[str, int]) -> str:
    mode, seats = key
    return "against Dale" if mode == "dale" else f"{seats} players"


def stage_of(line: dict) -> str:
    """The third of the game's decisions the decision falls in (the data job's strata)."""
    thirds = np.array_split(np.arange(line["decisions"]), 3)
    for stage, indexes in zip(STAGES, thirds):
        if line["decision"] in indexes:
            return stage
    raise ValueError(f"decision {line['decision']} outside the game")


def points(lines: list[dict], maps: dict[str, CalibrationMap]) -> dict[str, np.ndarray]:
    """One row per seat of every line: raw and calibrated probability, outcome, game,
    key, stage, condition."""
    raw, calibrated, outcome, games, keys, stages, conditions = [], [], [], [], [], [], []
    for line in lines:
        row = np.array(line["raw"], dtype=np.float64)
        mapped = maps[line["mode"]].apply(line["mode"], line["seats"], row[None])[0]
        for seat in range(line["seats"]):
            raw.append(row[seat])
            calibrated.append(mapped[seat])
            outcome.append(line["outcome"][seat])
            games.append(line["game_seed"])
            keys.append(key_name(key_of(line)))
            stages.append(stage_of(line))
            conditions.append(line["condition"])
    return {"raw": np.array(raw), "calibrated": np.array(calibrated),
            "outcome": np.array(outcome), "game": np.array(games), "key": np.array(keys),
            "stage": np.array(stages), "condition": np.array(conditions)}


def fit_maps(lines: list[dict], path: Path) -> None:
    """Fit one isotonic curve per mode and seat count on the fitting games; write them."""
    entries = []
    for key in sorted({key_of(line) for line in lines}):
        mode, seats = key
        chosen = [line for line in lines if key_of(line) == key]
        raw = np.concatenate([line["raw"] for line in chosen])
        outcome = np.concatenate([line["outcome"] for line in chosen])
        model = MODEL_OF_MODE[mode]
        entries.append({"model": model.name, "model_sha256": file_sha256(model),
                        "mode": mode, "seats": seats,
                        "games": len({line["game_seed"] for line in chosen}),
                        "points": int(raw.size),
                        "knots": isotonic_knots(raw, outcome)})
    document = {"format": MAPS_FORMAT, "version": MAPS_VERSION,
                "made": date.today().isoformat(),
                "method": "isotonic regression of the seat's share of the win (R8.3) on "
                          "the review's raw win probability, piecewise linear between the "
                          "knots; a game's seats are then divided by their sum",
                "fitted_on": "the fitting games of agents/calibration_data.py (seeds from "
                             "FIT_SEED_BASE); benchmarks/calibration.py --fit",
                "maps": entries}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}: " + ", ".join(f"{e['mode']} {e['seats']} seats ({e['games']} games,"
                                        f" {e['points']} points)" for e in entries))


def describe(label: str, data: dict[str, np.ndarray], chosen: np.ndarray,
             resamples: int) -> dict:
    figures = {"label": label, "points": int(chosen.sum()),
               "games": int(np.unique(data["game"][chosen]).size)}
    if not chosen.any():
        figures["raw"] = figures["calibrated"] = ([], float("nan"),
                                                  (float("nan"), float("nan")))
        return figures
    for which in ("raw", "calibrated"):
        bins, error, interval = reliability(data[which][chosen], data["outcome"][chosen],
                                            data["game"][chosen], BINS, resamples)
        figures[which] = (bins, error, interval)
    return figures


def seventy(data: dict[str, np.ndarray], chosen: np.ndarray, which: str,
            resamples: int) -> str:
    """How often a reported 65-75% won, with its 95% interval (bootstrap over games)."""
    inside = chosen & (data[which] >= 0.65) & (data[which] < 0.75)
    if not inside.any():
        return "no points"
    bins, _error, _interval = reliability(data[which][inside], data["outcome"][inside],
                                          data["game"][inside], 1, resamples)
    return (f"{bins[0].mean_outcome:.0%} (95% {bins[0].low_outcome:.0%}-"
            f"{bins[0].high_outcome:.0%}; {bins[0].count} points, "
            f"{np.unique(data['game'][inside]).size} games, mean reported "
            f"{bins[0].mean_reported:.0%})")


def draw(rows: list[list[dict]], path: Path) -> None:
    """A grid of reliability diagrams: rows the stages (all first), columns the keys."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    height, width = len(rows), len(rows[0])
    figure, axes = plt.subplots(height, width, figsize=(max(3.2 * width, 7.0), 3.0 * height),
                                dpi=90,
                                squeeze=False, sharex=True, sharey=True)
    for r, row in enumerate(rows):
        for c, figures in enumerate(row):
            axis = axes[r][c]
            axis.plot([0, 1], [0, 1], color="0.7", linewidth=0.8)
            for which, colour in (("raw", "tab:red"), ("calibrated", "tab:blue")):
                bins, error, _interval = figures[which]
                shown = [b for b in bins if b.count >= 5]
                x = [b.mean_reported for b in shown]
                y = [b.mean_outcome for b in shown]
                low = [max(b.mean_outcome - b.low_outcome, 0) for b in shown]
                high = [max(b.high_outcome - b.mean_outcome, 0) for b in shown]
                axis.errorbar(x, y, yerr=[low, high], color=colour, marker="o",
                              markersize=3, linewidth=1, capsize=2,
                              label=f"{which} (ECE {error:.3f})")
            axis.set_title(f"{figures['label']} ({figures['games']} games)", fontsize=8)
            axis.legend(fontsize=6, loc="upper left")
            axis.set_xlim(0, 1)
            axis.set_ylim(0, 1)
            if r == height - 1:
                axis.set_xlabel("reported win probability", fontsize=7)
            if c == 0:
                axis.set_ylabel("share of wins", fontsize=7)
    figure.suptitle("Reliability of the review's win probabilities on held-out games "
                    "(95% intervals: bootstrap over games; bins with 5+ points)", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/work/runs/calibration"))
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--maps", type=Path, default=MAPS_FILE)
    parser.add_argument("--images", type=Path, default=None)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args(argv)
    fitting, held_out = read_lines(args.data, "fit"), read_lines(args.data, "held-out")
    print(f"data {args.data}: {len(fitting)} fitting decisions "
          f"({len({line['game_seed'] for line in fitting})} games), {len(held_out)} held-out "
          f"decisions ({len({line['game_seed'] for line in held_out})} games)")
    if args.fit:
        fit_maps(fitting, args.maps)
    maps = {mode: calibration_for(model, args.maps) for mode, model in MODEL_OF_MODE.items()}
    if not held_out:
        print("no held-out games yet: nothing to measure")
        return
    data = points(held_out, maps)
    keys = [k for k in ("2 players", "3 players", "4 players", "against Dale")
            if (data["key"] == k).any()]
    print("\nHeld-out ECE (10 bins; 95% interval, bootstrap over games), raw -> calibrated")
    print(f"{'games':<28} {'stage':<7} {'points':>6} {'games':>5}  {'raw ECE':<22} "
          f"calibrated ECE")
    grid = [[None] * len(keys) for _ in range(1 + len(STAGES))]
    every = np.ones(data["raw"].size, dtype=bool)
    for c, key in enumerate(keys):
        for r, stage in enumerate(("all",) + STAGES):
            chosen = (data["key"] == key) & (every if stage == "all"
                                             else data["stage"] == stage)
            figures = describe(key if stage == "all" else f"{key}, {stage}", data, chosen,
                               args.resamples)
            grid[r][c] = figures
            raw, cal = figures["raw"], figures["calibrated"]
            print(f"{key:<28} {stage:<7} {figures['points']:>6} {figures['games']:>5}  "
                  f"{raw[1]:.3f} ({raw[2][0]:.3f}-{raw[2][1]:.3f})    "
                  f"{cal[1]:.3f} ({cal[2][0]:.3f}-{cal[2][1]:.3f})")
    for condition in sorted(set(data["condition"])):
        chosen = data["condition"] == condition
        figures = describe(condition, data, chosen, args.resamples)
        raw, cal = figures["raw"], figures["calibrated"]
        print(f"{condition:<28} {'all':<7} {figures['points']:>6} {figures['games']:>5}  "
              f"{raw[1]:.3f} ({raw[2][0]:.3f}-{raw[2][1]:.3f})    "
              f"{cal[1]:.3f} ({cal[2][0]:.3f}-{cal[2][1]:.3f})")
    print("\nReliability bins, held-out, all stages (mean reported -> share of wins, "
          "95% interval, points)")
    for c, key in enumerate(keys):
        for which in ("raw", "calibrated"):
            bins = grid[0][c][which][0]
            print(f"{key}, {which}: " + "; ".join(
                f"{b.low:.1f}-{b.high:.1f}: {b.mean_reported:.2f} -> {b.mean_outcome:.2f} "
                f"({b.low_outcome:.2f}-{b.high_outcome:.2f}, {b.count})"
                for b in bins if b.count))
    print("\nA reported 70% (65-75%) wins, held-out:")
    for key in keys + ["all"]:
        chosen = every if key == "all" else data["key"] == key
        for which in ("raw", "calibrated"):
            print(f"  {key}, {which}: {seventy(data, chosen, which, args.resamples)}")
    if args.images is not None:
        args.images.mkdir(parents=True, exist_ok=True)
        path = args.images / "calibration_reliability.png"
        draw(grid, path)
        print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
