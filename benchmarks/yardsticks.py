"""Yardsticks: each released model and its search against greedy, each heuristic style
and players whose style changes mid-game, at 2, 3 and 4 players and at mixed tables
(issue 32, item 5), accumulated over sessions into one results file.

    python benchmarks/yardsticks.py --agents policy --games 1000          # policy rows
    python benchmarks/yardsticks.py --agents search --games 1000 --minutes 60
    python benchmarks/yardsticks.py --report --update-doc docs/yardsticks.md

A row is (model, agent, table): the agent ``policy`` is ``ppo:MODEL``, ``search`` is
``ppo-rollout:MODEL`` plus --search-settings, ``goal-prior`` is ``ppo-goals:MODEL`` (the
policy nudged towards the goals, agents/goal_prior.py), the other seats are the table's seeded
agents (agents/tournament.py's standard mode: game i has seed TABLE_SEED + i, the seats
rotate with i). Table k of `tables()` takes its seeds from SEED + k x 100,000, the same for
every model and agent, so each search row is paired game by game with its policy row and
the two models meet the same deals.

Results accumulate in --results (JSON lines, one line per chunk of games played): a run
reads the file, plays for each unfinished row the next --chunk games it lacks (the lowest
game numbers not yet in the file, so a resumed run goes on at the next seed), and appends
each chunk as soon as it is played, so a run stopped at any moment loses at most the games
of its chunk in progress (none when stopped with SIGTERM or Ctrl-C: the finished games of
that chunk are written first; a search chunk's games finish by blocks of LOCKSTEP_WIDTH,
played in lockstep, agents/tournament_games.py, the same games as one at a time). A game
found twice counts once; the same game with two different results is reported (the code
or the model changed: the same seed must give the same game). Rows grow towards --games
in the order that keeps them even: the row with the fewest games plays next. Chunks of
another model file (by SHA-256), other settings or other seeds are kept in the file and
left out of this run's rows.

Printed per row: games, win rate (a shared win counts 1/winners, R8.3) with its 95% Wilson
interval, fair share; for a search row the paired difference "search - policy" over the
games both played (mean of the model's win in the search's game minus its win in the
policy's, 95% normal interval) and the count of games each won that the other lost. The
seeds from 20,000,000 were used by nothing before (models/README.md, docs/agents.md and
the other benchmarks use seeds below 10,000,000): none of them tuned a model, a style or
the search.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

from agents.league import drop_cut_line  # noqa: E402
from agents.registry import agent_name  # noqa: E402
from agents.statistics import wilson_interval  # noqa: E402
from agents.styles import STYLES  # noqa: E402
from agents.tournament_games import (LOCKSTEP_WIDTH, _init_worker, play_game,  # noqa: E402
                                     play_games_in_lockstep)
from agents.tournament_tasks import make_tasks  # noqa: E402
from agents.value_search import REVISION as SEARCH_REVISION  # noqa: E402

SEED_STRIDE = 100_000
"""Seeds between the first games of two tables."""
RESULTS = Path(__file__).resolve().parent / "results" / "yardsticks.jsonl"
"""Checked in, so that the rows grow across sessions and machines (a run's games live
nowhere else)."""
Z = 1.959964
MODELS = ("models/multiplayer-goal-chances.safetensors",
          "models/multiplayer-goal-prior.safetensors", "models/multiplayer-styles.safetensors",
          "models/multiplayer.safetensors", "models/baseline.safetensors")
AGENTS = ("policy", "search", "goal-prior")
"""``goal-prior`` is ``ppo-goals:MODEL``, the policy with its goal prior (agents/goal_prior.py)."""
POLICY_TARGETS = {"2p-greedy": 0.85, **{f"2p-{style}": 0.85 for style in STYLES},
                  "4p-greedy": 0.60}
"""Issue 32's targets for the multi-player policy, by table."""
TARGET_MODELS = ("models/multiplayer-goal-chances.safetensors",
                 "models/multiplayer-goal-prior.safetensors",
                 "models/multiplayer-styles.safetensors", "models/multiplayer.safetensors")
"""The multi-player models issue 32's policy targets are read against."""
DOC_BEGIN = "<!-- yardsticks: begin -->"
DOC_END = "<!-- yardsticks: end -->"
COMPARE_BEGIN = "<!-- yardsticks compare: begin -->"
COMPARE_END = "<!-- yardsticks compare: end -->"


def tables() -> dict[str, tuple[int, list[str]]]:
    """The tables by name: (players, the other seats' specs, in seat order). New tables
    go at the end: a table's place sets its seeds."""
    opponents = ["greedy", *STYLES]
    found = {f"2p-{name}": (2, [name]) for name in opponents}
    found["2p-switch-greedy-hoarder"] = (2, ["switching:greedy,hoarder,round=8"])
    found["2p-switch-hoarder-greedy"] = (2, ["switching:hoarder,greedy,round=8"])
    found["2p-switch-greedy-dale"] = (2, ["switching:greedy,dale,round=8"])
    found.update({f"4p-{name}": (4, [name] * 3) for name in opponents})
    found["4p-mixed-greedy-goals-lakes"] = (4, ["greedy", "goals", "lakes"])
    found["4p-mixed-reputation-hoarder-greedy"] = (4, ["reputation", "hoarder", "greedy"])
    found["3p-mixed-goals-hoarder"] = (3, ["goals", "hoarder"])
    found["4p-mixed-switching"] = (4, ["greedy", "switching:greedy,hoarder,round=6",
                                       "switching:lakes,greedy,round=10"])
    found["4p-mixed-goals-lakes-reputation"] = (4, ["goals", "lakes", "reputation"])
    found["2p-switch-goals-lakes"] = (2, ["switching:goals,lakes,round=6"])
    return found


def table_seed(name: str, seed: int) -> int:
    """The seed of game 0 of table `name`."""
    return seed + list(tables()).index(name) * SEED_STRIDE


def agent_spec(agent: str, model: str, search_settings: str = "") -> str:
    if agent not in AGENTS:
        raise ValueError(f"agent must be one of {', '.join(AGENTS)}, not {agent!r}")
    if agent == "goal-prior":
        return f"ppo-goals:{model}"
    return f"ppo:{model}" if agent == "policy" else f"ppo-rollout:{model}{search_settings}"


def file_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def row_key(table: str, agent: str, digest: str, settings: str, seed: int) -> str:
    """What makes two chunks games of one row: the table (its seats and first seed), the
    agent and its settings (for the search, with its revision after the first:
    value_search.REVISION), and the model file's content."""
    players, opponents = tables()[table]
    if agent != "search":
        settings = ""
    elif SEARCH_REVISION > 1:
        settings = f"{settings}|revision {SEARCH_REVISION}"
    return json.dumps([table, players, opponents, table_seed(table, seed), agent, settings,
                       digest])


class ResultsError(RuntimeError):
    """A results file that cannot be read as chunks of games."""


def read_chunks(path: Path) -> list[dict]:
    """The chunks in the results file (none if it does not exist). A last line cut short
    (a run killed while writing) is skipped with a warning; a bad line before it is an
    error naming it."""
    path = Path(path)
    if not path.is_file():
        return []
    lines = path.read_text().splitlines()
    chunks = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            chunk = json.loads(line)
            if not isinstance(chunk, dict) or not {"key", "first_game", "wins"} <= set(chunk):
                raise ValueError("not a chunk of games")
        except ValueError as error:
            if number == len(lines):
                print(f"warning: {path}:{number}: last line cut short, skipped ({error})",
                      file=sys.stderr)
                continue
            raise ResultsError(f"{path}:{number}: not a chunk of games ({error})") from None
        chunks.append(chunk)
    return chunks


def accumulate(chunks: list[dict]) -> tuple[dict[str, dict[int, float]], list[tuple]]:
    """Every row's games: key -> {game number: the model's win}; a game found twice counts
    once. Also the conflicts: (key, game, first win, other win) for a game found with two
    different results (the first is kept)."""
    rows: dict[str, dict[int, float]] = {}
    conflicts = []
    for chunk in chunks:
        games = rows.setdefault(chunk["key"], {})
        for offset, win in enumerate(chunk["wins"]):
            game = chunk["first_game"] + offset
            if game in games:
                if games[game] != win:
                    conflicts.append((chunk["key"], game, games[game], win))
                continue
            games[game] = win
    return rows, conflicts


def missing_games(played: dict[int, float], target: int, chunk: int) -> list[int]:
    """The next chunk of a row: the `chunk` lowest game numbers below `target` it lacks."""
    wanted = []
    for game in range(target):
        if game not in played:
            wanted.append(game)
            if len(wanted) == chunk:
                break
    return wanted


def paired_difference(search: dict[int, float], policy: dict[int, float]):
    """(mean, low, high, games, search won-policy lost, policy won-search lost) of search
    minus policy over the games both played, or None."""
    games = sorted(set(search) & set(policy))
    if not games:
        return None
    differences = [search[g] - policy[g] for g in games]
    mean = sum(differences) / len(differences)
    better = sum(d > 0 for d in differences)
    worse = sum(d < 0 for d in differences)
    if len(differences) < 2:
        return mean, -1.0, 1.0, len(differences), better, worse
    variance = sum((d - mean) ** 2 for d in differences) / (len(differences) - 1)
    half = Z * math.sqrt(variance / len(differences))
    return (mean, max(-1.0, mean - half), min(1.0, mean + half), len(differences), better,
            worse)


def commit() -> tuple[str | None, bool]:
    """The commit of this code and whether it has uncommitted changes."""
    folder = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=folder, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, cwd=folder,
                                check=True).stdout.strip()
        return head, bool(status)
    except (OSError, subprocess.CalledProcessError):
        return None, False


class Row:
    """One row of the run: its specs, seeds and key."""

    def __init__(self, model: str, agent: str, table: str, seed: int, settings: str,
                 digest: str):
        self.model, self.agent, self.table = model, agent, table
        self.players, self.opponents = tables()[table]
        self.settings = settings if agent == "search" else ""
        self.spec = agent_spec(agent, model, settings)
        self.specs = [self.spec, *self.opponents]
        self.base_seed = seed
        self.seed = table_seed(table, seed)
        self.digest = digest
        self.key = row_key(table, agent, digest, settings, seed)

    def tasks(self, games: list[int]):
        every = make_tasks(self.specs, "standard", max(games) + 1, self.players, self.seed)
        return [every[game] for game in games]


def chunk_record(row: Row, wins: dict[int, float], forfeits: int, seconds: float,
                 origin: tuple) -> list[dict]:
    """The lines to append for the games played of a row (`wins` by game number): one per
    run of consecutive game numbers (a chunk may fill gaps)."""
    records, run = [], []
    for game in sorted(wins):
        if run and game != run[-1] + 1:
            records.append(run)
            run = []
        run.append(game)
    if run:
        records.append(run)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return [{"key": row.key, "table": row.table, "agent": row.agent, "model": row.model,
             "model_sha256": row.digest, "spec": row.spec, "players": row.players,
             "opponents": row.opponents, "table_seed": row.seed, "first_game": run[0],
             "games": len(run), "wins": [wins[game] for game in run],
             "forfeits": forfeits, "seconds": round(seconds, 1), "commit": origin[0],
             "uncommitted_changes": origin[1], "date": date, "cpus": os.cpu_count(),
             "load_average": round(os.getloadavg()[0], 2)} for run in records]


def import_rows(path: Path, rows: list[Row]) -> list[dict]:
    """The chunks of a yardsticks.json written by this script before it accumulated
    (commit 7cedb29 to 314b0be: every game's win by game number) whose rows are among
    `rows` (same table, agent, spec and seeds; the model file must be the one those runs
    read, which the JSON does not record: check that the games replay)."""
    summary = json.loads(Path(path).read_text())
    by_spec = {(row.table, row.agent, row.spec, row.seed): row for row in rows}
    chunks = []
    for old in summary["rows"]:
        row = by_spec.get((old["table"], old["agent"], old["spec"], old["seed"]))
        if row is None:
            continue
        wins = {int(game): float(win) for game, win in old["wins"].items()}
        for chunk in chunk_record(row, wins, 0, 0.0, (summary.get("commit"), False)):
            chunk.update(imported_from=str(path), forfeits=None, seconds=None, date=None,
                         load_average=None)
            chunks.append(chunk)
    return chunks


def append_lines(path: Path, records: list[dict]) -> None:
    """Append and flush to disk: a chunk written is never lost."""
    drop_cut_line(path)
    with open(path, "a") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def model_wins(outcome: dict, label: str) -> tuple[int, float, bool]:
    """(game number, the model's win, whether it forfeited) from one played game."""
    for row in outcome["rows"]:
        if row["agent"] == label:
            return row["game"], float(row["win"] or 0.0), bool(row["forfeit"])
    raise ValueError(f"no seat of {label} in game {outcome['table']}")


class Stopped(Exception):
    """SIGTERM during a chunk: write the games played and stop."""


_SIGNAL = {"stop": False, "in_chunk": False}


def _stop(signum, frame):
    """SIGTERM: stop after writing what is played (inside a chunk: at once)."""
    _SIGNAL["stop"] = True
    if _SIGNAL["in_chunk"]:
        raise Stopped()


def play_chunk(row: Row, games: list[int], pool) -> tuple[dict[int, float], int, bool]:
    """Play `games` of `row`: (wins by game number, forfeits, stopped early). On Ctrl-C or
    SIGTERM the games finished so far are returned."""
    label = agent_name(row.spec)
    tasks = row.tasks(games)
    wins, forfeits = {}, 0
    _SIGNAL["in_chunk"] = True
    try:
        if row.agent == "search":  # the search's games LOCKSTEP_WIDTH at a time, same games
            blocks = [tasks[start:start + LOCKSTEP_WIDTH]
                      for start in range(0, len(tasks), LOCKSTEP_WIDTH)]
            outcomes = itertools.chain.from_iterable(
                pool.imap_unordered(play_games_in_lockstep, blocks) if pool is not None
                else (play_games_in_lockstep(block, cache_slots=_LOCAL_SLOTS, sources={})
                      for block in blocks))
        else:
            outcomes = pool.imap_unordered(play_game, tasks) if pool is not None \
                else (play_game(task, _LOCAL_CACHE, {}) for task in tasks)
        for outcome in outcomes:
            game, win, forfeited = model_wins(outcome, label)
            wins[game] = win
            forfeits += forfeited
    except (KeyboardInterrupt, Stopped):
        return wins, forfeits, True
    finally:
        _SIGNAL["in_chunk"] = False
    return wins, forfeits, _SIGNAL["stop"]


_LOCAL_CACHE: dict = {}
"""The agents of games played in this process (--workers 1), built once per spec and seat."""
_LOCAL_SLOTS: list = []
"""The same for the search's games played in lockstep, one cache per running game."""


def build_rows(arguments) -> list[Row]:
    digests = {model: file_digest(model) for model in arguments.models}
    return [Row(model, agent, table, arguments.seed, arguments.search_settings, digests[model])
            for agent in arguments.agents for model in arguments.models
            for table in arguments.tables]


def play(arguments, rows: list[Row], results: Path, out=sys.stdout) -> bool:
    """Play chunks until every row has --games games or --minutes have passed; returns
    whether it was stopped by a signal."""
    import multiprocessing
    played, conflicts = accumulate(read_chunks(results))
    report_conflicts(conflicts)
    origin = commit()
    deadline = time.time() + 60 * arguments.minutes if arguments.minutes else None
    pool = None
    if arguments.workers > 1:
        pool = multiprocessing.get_context("spawn").Pool(arguments.workers,
                                                         initializer=_init_worker,
                                                         initargs=(None,))
    previous = signal.signal(signal.SIGTERM, _stop)
    stopped = False
    try:
        _SIGNAL["stop"] = False
        while not stopped and not _SIGNAL["stop"]:
            if deadline is not None and time.time() >= deadline:
                print("stopped: --minutes reached", file=out, flush=True)
                break
            pending = [(len(played.get(row.key, {})), index, row)
                       for index, row in enumerate(rows)
                       if len(played.get(row.key, {})) < arguments.games]
            if not pending:
                break
            count, _, row = min(pending, key=lambda item: item[:2])
            size = arguments.search_chunk if row.agent == "search" else arguments.chunk
            games = missing_games(played.get(row.key, {}), arguments.games, size)
            started = time.time()
            wins, forfeits, stopped = play_chunk(row, games, pool)
            if wins:
                append_lines(results, chunk_record(row, wins, forfeits,
                                                   time.time() - started, origin))
                played.setdefault(row.key, {}).update(wins)
            total = played.get(row.key, {})
            print(f"{row.table} {row.agent} {Path(row.model).stem}: +{len(wins)} games "
                  f"({min(games)}..{max(games)}) in {time.time() - started:.0f} s, "
                  f"{len(total)} in all, win rate {sum(total.values()) / max(1, len(total)):.3f}",
                  file=out, flush=True)
    finally:
        stopped = stopped or _SIGNAL["stop"]
        signal.signal(signal.SIGTERM, previous)
        if pool is not None:
            pool.terminate()
            pool.join()
    return stopped


def report_conflicts(conflicts: list[tuple]) -> None:
    for key, game, first, other in conflicts[:10]:
        print(f"warning: game {game} of row {key} was recorded with two results ({first} "
              f"and {other}): the first counts", file=sys.stderr)
    if len(conflicts) > 10:
        print(f"warning: {len(conflicts) - 10} more games with two results", file=sys.stderr)


def summarise(rows: list[Row], played: dict[str, dict[int, float]]) -> list[dict]:
    """One entry per row with games: win rate, Wilson interval and, for a search or
    goal-prior row, the paired difference with the policy row of its model and table."""
    summary = []
    for row in rows:
        wins = played.get(row.key, {})
        if not wins:
            continue
        total = sum(wins.values())
        low, high = wilson_interval(total, len(wins))
        entry = {"model": row.model, "agent": row.agent, "table": row.table,
                 "spec": row.spec, "players": row.players, "opponents": row.opponents,
                 "table_seed": row.seed, "games": len(wins),
                 "contiguous": sorted(wins) == list(range(len(wins))),
                 "win_rate": total / len(wins), "low": low, "high": high,
                 "fair_share": 1 / row.players, "difference": None}
        if row.agent != "policy":
            policy = row_key(row.table, "policy", row.digest, "", row.base_seed)
            entry["difference"] = paired_difference(wins, played.get(policy, {}))
        entry["verdict"] = verdict(entry)
        summary.append(entry)
    return summary


def verdict(entry: dict) -> str:
    """The targets of issue 32 this row bears on, met or not."""
    if entry["agent"] in ("policy", "goal-prior"):
        target = POLICY_TARGETS.get(entry["table"]) if Path(entry["model"]).name in {
            Path(model).name for model in TARGET_MODELS} else None
        if target is None:
            return "" if entry["agent"] == "policy" else _versus_policy(entry)
        if entry["agent"] == "goal-prior":
            return f"{_versus_policy(entry)}; {_target(entry, target)}"
        return _target(entry, target)
    return _versus_policy(entry)


def _target(entry: dict, target: float) -> str:
    if entry["low"] >= target:
        return f">= {target:.2f}: met (interval)"
    if entry["win_rate"] >= target:
        return f">= {target:.2f}: point met, interval not"
    return f">= {target:.2f}: not met"


def _versus_policy(entry: dict) -> str:
    difference, name = entry["difference"], entry["agent"].replace("-", " ")
    if difference is None:
        return "no policy games to pair with"
    if difference[2] < 0:
        return f"{name} weaker (interval below 0)"
    if difference[1] > 0:
        return f"{name} stronger (interval above 0)"
    return "no difference shown"


def _rate(entry: dict) -> str:
    return f"{entry['win_rate']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}]"


def _paired(entry: dict) -> str:
    difference = entry["difference"]
    if difference is None:
        return ""
    mean, low, high, games, better, worse = difference
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}] on {games} ({better} up, {worse} down)"


def format_table(summary: list[dict]) -> str:
    """The rows as text, one block per model."""
    lines = []
    for model in dict.fromkeys(entry["model"] for entry in summary):
        lines.append(f"model {model}")
        header = (f"  {'table':<34} {'agent':<10} {'games':>6} {'win rate [95% Wilson]':<22} "
                  f"{'fair':>5}  {'agent - policy, same games [95%]':<44} verdict")
        lines += [header, "  " + "-" * (len(header) - 2)]
        for entry in summary:
            if entry["model"] == model:
                lines.append(f"  {entry['table']:<34} {entry['agent']:<10} {entry['games']:>6} "
                             f"{_rate(entry):<22} {entry['fair_share']:>5.2f}  "
                             f"{_paired(entry):<44} {entry['verdict']}")
    return "\n".join(lines)


def format_markdown(summary: list[dict], rows: list[Row] | None = None) -> str:
    """The rows as Markdown (docs/yardsticks.md): one line per model and table, the policy
    and its search side by side, games so far in every cell; with `rows`, their tables
    without games too ("not played")."""
    lines = ["| model | table | other seats | policy: games, win rate [95% Wilson] | "
             "search: games, win rate [95% Wilson] | search - policy, same games [95%] | "
             "verdict |", "|---|---|---|---|---|---|---|"]
    by_row = {(entry["model"], entry["table"], entry["agent"]): entry for entry in summary}
    pairs = [(entry["model"], entry["table"]) for entry in summary]
    if rows is not None:
        pairs = [(row.model, row.table) for row in rows] + pairs
    for model, table in dict.fromkeys(pairs):
        policy = by_row.get((model, table, "policy"))
        search = by_row.get((model, table, "search"))
        players, opponents = tables()[table]
        seats = ", ".join(f"`{spec}`" for spec in opponents)
        cells = [f"{entry['games']:,}: {_rate(entry)}" if entry else "not played"
                 for entry in (policy, search)]
        fair = f" (fair {1 / players:.2f})" if players > 2 else ""
        verdicts = "; ".join(v for v in ((policy or {}).get("verdict"),
                                         (search or {}).get("verdict")) if v)
        lines.append(f"| {Path(model).stem} | {table}{fair} | {seats} | {cells[0]} | "
                     f"{cells[1]} | {_paired(search) if search else ''} | {verdicts} |")
    priors = [entry for entry in summary if entry["agent"] == "goal-prior"]
    if priors:
        lines += ["", "The policy with its goal prior (`ppo-goals:MODEL`, agents/goal_prior.py):",
                  "", "| model | table | goal prior: games, win rate [95% Wilson] | "
                  "goal prior - policy, same games [95%] | verdict |", "|---|---|---|---|---|"]
        for entry in priors:
            players = entry["players"]
            fair = f" (fair {1 / players:.2f})" if players > 2 else ""
            lines.append(f"| {Path(entry['model']).stem} | {entry['table']}{fair} | "
                         f"{entry['games']:,}: {_rate(entry)} | {_paired(entry)} | "
                         f"{entry['verdict']} |")
    return "\n".join(lines)


def compare_models(rows: list[Row], played: dict[str, dict[int, float]], first: str,
                   second: str) -> list[dict]:
    """Model `first` minus model `second`, table by table and agent by agent, over the
    deals both played (the same seeds and seatings, module docstring): the paired mean
    difference of the model's win with its 95% interval, as `paired_difference`."""
    by_place = {(Path(row.model).name, row.table, row.agent): row for row in rows}
    comparison = []
    for row in rows:
        if Path(row.model).name != Path(first).name:
            continue
        other = by_place.get((Path(second).name, row.table, row.agent))
        if other is None:
            continue
        difference = paired_difference(played.get(row.key, {}), played.get(other.key, {}))
        if difference is not None:
            comparison.append({"table": row.table, "agent": row.agent,
                               "difference": difference})
    return comparison


def format_comparison(comparison: list[dict], first: str, second: str) -> str:
    """The comparison as Markdown, one line per table and agent."""
    lines = [f"| table | agent | {Path(first).stem} - {Path(second).stem}, same games "
             "[95%] |", "|---|---|---|"]
    for entry in comparison:
        lines.append(f"| {entry['table']} | {entry['agent']} | "
                     f"{_paired(entry)} |")
    return "\n".join(lines)


def update_document(path: Path, markdown: str, begin: str = DOC_BEGIN,
                    end: str = DOC_END) -> None:
    """Replace the table between the `begin` and `end` lines of `path`."""
    text = Path(path).read_text()
    if text.count(begin) != 1 or text.count(end) != 1 \
            or text.index(begin) > text.index(end):
        raise ResultsError(f"{path} needs one line {begin!r} and after it one line "
                           f"{end!r}")
    before, rest = text.split(begin, 1)
    Path(path).write_text(f"{before}{begin}\n{markdown.strip()}\n{end}"
                          f"{rest.split(end, 1)[1]}")


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=list(MODELS),
                        help="model files (default: the released models of MODELS)")
    parser.add_argument("--agents", nargs="+", choices=AGENTS, default=list(AGENTS))
    parser.add_argument("--tables", nargs="+", choices=list(tables()), default=None,
                        help="the tables (default: all, in their order)")
    parser.add_argument("--games", type=int, default=1000,
                        help="games a row grows to (default 1000)")
    parser.add_argument("--chunk", type=int, default=40,
                        help="policy games played and written at a time (default 40)")
    parser.add_argument("--search-chunk", type=int, default=16,
                        help="search games played and written at a time, in blocks of "
                             f"{LOCKSTEP_WIDTH} played in lockstep (default 16)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="start no chunk after this many minutes")
    parser.add_argument("--search-settings", default="",
                        help="appended to the search spec, e.g. ',4,4,0,inferred'")
    parser.add_argument("--seed", type=int, default=20_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--import-json", type=Path, nargs="+", default=[], metavar="JSON",
                        help="append the games of yardsticks.json files of the script's "
                             "earlier version to the results (the rows of this run only)")
    parser.add_argument("--report", action="store_true",
                        help="play nothing: print the rows in the results file")
    parser.add_argument("--json", type=Path, default=None,
                        help="also write the summary of the rows as JSON here")
    parser.add_argument("--update-doc", type=Path, default=None, metavar="FILE",
                        help="put the Markdown table between FILE's yardsticks markers")
    parser.add_argument("--compare", nargs=2, default=None, metavar=("A", "B"),
                        help="also print model A minus model B on the same games, table "
                             "by table (with --update-doc, between FILE's yardsticks "
                             "compare markers)")
    arguments = parser.parse_args(argv)
    arguments.tables = arguments.tables or list(tables())
    if arguments.games < 1 or arguments.chunk < 1 or arguments.search_chunk < 1 \
            or arguments.workers < 1:
        parser.error("--games, --chunk, --search-chunk and --workers must be at least 1")
    for model in arguments.models:
        if not Path(model).is_file():
            parser.error(f"no model file {model}")
    names = {Path(model).name for model in arguments.models}
    for model in arguments.compare or []:
        if Path(model).name not in names:
            parser.error(f"--compare {model}: not one of --models")
    return arguments


def main(argv=None, out=sys.stdout) -> list[dict]:
    arguments = parse(argv)
    rows = build_rows(arguments)
    stopped = False
    for path in arguments.import_json:
        chunks = import_rows(path, rows)
        append_lines(arguments.results, chunks)
        print(f"imported {sum(c['games'] for c in chunks)} games from {path}", file=out)
    if not arguments.report:
        stopped = play(arguments, rows, arguments.results, out)
    played, conflicts = accumulate(read_chunks(arguments.results))
    report_conflicts(conflicts)
    summary = summarise(rows, played)
    print(format_table(summary), file=out)
    if arguments.json is not None:
        arguments.json.write_text(json.dumps(summary, indent=1) + "\n")
    if arguments.update_doc is not None:
        update_document(arguments.update_doc, format_markdown(summary, rows))
    if arguments.compare:
        comparison = compare_models(rows, played, *arguments.compare)
        markdown = format_comparison(comparison, *arguments.compare)
        print(markdown, file=out)
        if arguments.update_doc is not None:
            update_document(arguments.update_doc, markdown, COMPARE_BEGIN, COMPARE_END)
    if stopped:
        print(f"stopped by a signal; the same command goes on from {arguments.results}",
              file=out)
    return summary


if __name__ == "__main__":
    main()
