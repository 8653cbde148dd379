"""The files of a tournament: results.csv, summary.json, populations.png and the games'
records."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from .tournament_games import CSV_FIELDS, DALE_LABEL
from .tournament_results import TournamentResult, _known


def _csv_value(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return value


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({name: _csv_value(row.get(name)) for name in CSV_FIELDS})


def plot_populations(result: TournamentResult, path: Path | None = None):
    """Box plot (with the games as dots) of final populations per agent, and Dale's own
    scores in mode "dale"; saved as PNG when `path` is given. Returns the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    mode = result.config["mode"]
    labels = list(result.labels) + ([DALE_LABEL] if mode == "dale" else [])
    data = [_known(row["population"] for row in result.rows if row["agent"] == label)
            for label in labels]
    figure = Figure(figsize=(max(5.0, 1.6 * len(labels) + 2), 4.2), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    axes.boxplot(data, showmeans=True)
    axes.set_xticks(range(1, len(labels) + 1), labels, rotation=15)
    generator = np.random.default_rng(0)  # jitter of the dots only
    for position, values in enumerate(data, start=1):
        axes.scatter(position + generator.uniform(-0.15, 0.15, len(values)), values, s=8,
                     alpha=0.4, color="tab:blue")
    axes.set_ylabel("final population")
    axes.set_title(f"Final population, mode {mode}, {result.config['games']} games"
                   + (" per agent" if mode != "standard" else ""))
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, format="png")
    return figure


def write_outputs(result: TournamentResult, summary: dict, output_dir: Path) -> dict:
    """results.csv (one row per seat and game), summary.json, populations.png and, when
    kept, records/table_NNNN.json (NNNN: the table column of results.csv); returns the
    paths written."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    paths = {"csv": output_dir / "results.csv", "summary": output_dir / "summary.json",
             "plot": output_dir / "populations.png"}
    write_csv(result.rows, paths["csv"])
    document = {"config": result.config, "seconds": result.seconds, **summary}
    paths["summary"].write_text(json.dumps(document, indent=2) + "\n")
    plot_populations(result, paths["plot"])
    if result.records:
        records_dir = output_dir / "records"
        records_dir.mkdir(exist_ok=True)
        for number, record in enumerate(result.records):
            (records_dir / f"table_{number:04d}.json").write_text(json.dumps(record) + "\n")
        paths["records"] = records_dir
    return paths
