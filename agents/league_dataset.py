"""The games of a league as a dataset: one JSON line per game (docs/dataset.md).

`suburbia league --records DIR` writes DIR/games.jsonl. Every line is one game: who sat
where (agent labels and specs per seat), the deal (seed), the first player (R3.6), the
final scores with every goal bonus (R8.2, R8.3), the winners, the forfeits (a seat that
forfeits is played to the end by the stand-in, agents/tournament.py), and the game
itself as a ``suburbia-record`` (docs/state-format.md), which replays move by move to the
identical final state. Lines are written in table order (the ``table``
column of results.csv).

A line is built by replaying its record, so a dataset never holds a game whose record
does not reach the scores written beside it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from suburbia_env import Game
from suburbia_env.errors import StateFormatError
from suburbia_env.versions import DATASET_FORMAT_VERSION, RULES_REVISION

DATASET_FORMAT = "suburbia-league-game"
DATASET_FILE = "games.jsonl"
ENTRY_FIELDS = ("format", "version", "rules", "table", "deal", "seed", "mode", "players",
                "edition", "agents", "specs", "first_player", "scores", "winners", "wins",
                "forfeits", "record")
SCORE_FIELDS = ("population", "population_before_goals", "public_goals", "private_goal",
                "private_goal_bonus", "money_converted", "money_left", "reputation", "income",
                "winner")


def dataset_entry(rows: list[dict], record: dict) -> dict:
    """The line of one game from its seat rows (agents/tournament.py) and its record."""
    rows = sorted(rows, key=lambda row: row["seat"])
    first = rows[0]
    game = Game.replay(record)
    if not game.is_over:
        raise StateFormatError(f"table {first['table']}: the record does not reach the end "
                               f"of the game")
    scores = [{name: score[name] for name in SCORE_FIELDS} for score in game.final_scores()]
    if any(row["population"] not in (None, score["population"])
           for row, score in zip(rows, scores)):
        raise StateFormatError(f"table {first['table']}: the record replays to other "
                               f"populations than the results")
    forfeits = [{"seat": row["seat"], "reason": row["forfeit"],
                 "decision": row["forfeit_decision"]} for row in rows if row.get("forfeit")]
    return {"format": DATASET_FORMAT, "version": DATASET_FORMAT_VERSION, "rules": RULES_REVISION,
            "table": first["table"], "deal": first["game"], "seed": first["seed"],
            "mode": first["mode"], "players": first["seats"], "edition": game.config.edition,
            "agents": [row["agent"] for row in rows], "specs": [row["spec"] for row in rows],
            "first_player": first["first_player"], "scores": scores,
            "winners": [row["seat"] for row in rows if row["winner"]],
            "wins": [row["win"] for row in rows], "forfeits": forfeits, "record": record}


def dataset_entries(rows: list[dict], records: list[tuple[int, dict]]) -> list[dict]:
    """One entry per kept (table, record), in table order."""
    by_table: dict[int, list[dict]] = {}
    for row in rows:
        by_table.setdefault(row["table"], []).append(row)
    return [dataset_entry(by_table[table], record) for table, record in sorted(
        records, key=lambda pair: pair[0])]


def write_dataset(rows: list[dict], records: list[tuple[int, dict]], directory: Path) -> Path:
    """DIR/games.jsonl, one line per game; returns its path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / DATASET_FILE
    with open(path, "w") as handle:
        for entry in dataset_entries(rows, records):
            handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
    return path


def _dataset_file(path: Path) -> Path:
    path = Path(path)
    if path.is_dir():
        for name in (DATASET_FILE, DATASET_FILE + ".gz"):
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(f"no {DATASET_FILE} in {path} (write one with "
                                f"'suburbia league --records {path}')")
    if not path.is_file():
        raise FileNotFoundError(f"no dataset file {path}")
    return path


def read_dataset(path: Path | str) -> list[dict]:
    """The entries of a dataset: a directory holding games.jsonl (or games.jsonl.gz), or
    the file itself. StateFormatError names the line and field of a malformed entry."""
    path = _dataset_file(Path(path))
    opener = gzip.open if path.suffix == ".gz" else open
    entries = []
    with opener(path, "rt") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as error:
                raise StateFormatError(f"{path} line {number}: not JSON ({error.msg})") from None
            if not isinstance(entry, dict) or entry.get("format") != DATASET_FORMAT:
                raise StateFormatError(f"{path} line {number}: format: not a "
                                       f"{DATASET_FORMAT!r} entry")
            if entry.get("version") == 1 and "forfeit" in entry:  # before the stand-in
                forfeit = entry.pop("forfeit")
                entry["forfeits"] = [] if forfeit is None else [forfeit]
                entry["version"] = DATASET_FORMAT_VERSION
            if entry.get("version") != DATASET_FORMAT_VERSION:
                raise StateFormatError(f"{path} line {number}: version: "
                                       f"{entry.get('version')!r} is not {DATASET_FORMAT_VERSION}")
            missing = [name for name in ENTRY_FIELDS if name not in entry]
            if missing:
                raise StateFormatError(f"{path} line {number}: missing field(s) "
                                       f"{', '.join(missing)}")
            entries.append(entry)
    return entries
