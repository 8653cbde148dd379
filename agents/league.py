"""A league: agents against each other at tables of 2, 3 and 4 players (R3.1).

Design, for each player count k:

- The tables are the k-agent subsets of the agents, so every agent meets every other at
  every player count (with fewer than k agents, one table fills the seats in turn).
- Each table is dealt once per round and played k times on that same deal (same seed),
  the agents rotated one seat each time: every agent of the table sits in every seat,
  and the one the seed makes first player (R3.6) differs each time. Luck of the deal
  and of the turn order cancels within a table.
- `rounds` repeats the whole design with new deals; `games` instead stops after that
  many games per player count, taking whole tables in a seeded shuffled order.

Results, from the same per-seat rows as a tournament (agents/tournament.py): OpenSkill
Plackett-Luce ratings over every game ranked by final population; per player count the
static strengths and the lead (below); per player count and
agent the win share (a shared win counts 1/winners, R8.3) with its 95% Wilson interval,
mean population and mean margin; the win share of each turn position (1st player, 2nd,
...) with its interval, which measures the seat advantage; CSV, JSON and plots.

Agents are specs or objects, and a bot that raises, answers an illegal action or runs
over the move time limit forfeits the game, exactly as in a tournament
(agents/tournament.py): its seat loses, ranked last, and the stand-in (the first legal
action) plays it to the end, so the others' game counts. Means are of the seats that did
not forfeit; the results count per agent the games it played beside a stand-in.

Resuming. With a journal (``--resume``: output-dir/played.jsonl) every game is appended
to it as soon as it is played, with the league's settings; started again with the same
settings, the league plays only the games the journal lacks, and its results are those of
one uninterrupted run (the ratings are updated in game order either way). A journal of
other agents, seed, edition or player counts is refused. At one player count a league of
more --games begins with the games of one of fewer, so the same command with a higher
--games grows a league over sessions.

Per player count the summary fits one strength per agent to all the games of that count
at once (Plackett-Luce maximum likelihood, agents/league_rating.py) and gives the lead of
the strongest agent over the next in standard errors of their difference, (s1 - s2) /
sqrt(var1 + var2 - 2 cov12): issue 32 asks the strongest agent to lead by more than 2
(docs/league.md reads it). OpenSkill's per-count lead in combined sigma is kept beside it
for comparison; its sigma does not shrink with games, so it cannot settle the question.

Files: results.csv (one row per seat and game), summary.json (the summary and the
configuration with its provenance: date, commit, the SHA-256 of every model file),
league.png, league.md (the tables in Markdown, as docs/league.md shows them) and, with
``--records DIR``, the games as a dataset (agents/league_dataset.py, docs/dataset.md).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from .league_dataset import write_dataset
from .league_rating import rate_league
from .registry import AGENT_SPECS, model_file_of
from .statistics import wilson_interval
from .tournament import play_tasks
from .tournament_cli import add_backend_arguments, add_time_limit_argument
from .tournament_files import write_csv
from .tournament_results import (forfeits, format_forfeits, openskill_ratings, stand_in_games,
                                 stand_in_tables)
from .tournament_tasks import (DEFAULT_WORKERS, MAX_WORKERS, GameTask, TournamentError,
                               check_time_limit, entrants)

PLAYER_COUNTS = (2, 3, 4)
SEEDS_PER_PLAYER_COUNT = 1_000_000
"""Deals of player count k use seeds seed + (k - 2) * 1,000,000 + deal number."""


def table_lineups(num_agents: int, players: int) -> list[tuple[int, ...]]:
    """The agent indices of each table of `players` seats (module docstring)."""
    if num_agents >= players:
        return list(itertools.combinations(range(num_agents), players))
    return [tuple(seat % num_agents for seat in range(players))]


def rotations(lineup: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The lineup with its agents moved one seat on, k times: each sits in every seat."""
    return [lineup[shift:] + lineup[:shift] for shift in range(len(lineup))]


def make_league_tasks(specs: list, player_counts=PLAYER_COUNTS, rounds: int = 1,
                      games: int | None = None, seed: int = 0, edition: str = "2nd",
                      keep_records: bool = False,
                      move_time_limit: float | None = None) -> list[GameTask]:
    """Every game of the league, checked before anything is played."""
    if len(specs) < 2:
        raise TournamentError("a league needs at least two agent specs")
    counts = sorted(set(player_counts))
    if not counts or any(count not in PLAYER_COUNTS for count in counts):
        raise TournamentError(f"player counts must be among 2, 3, 4 (R3.1), not {player_counts}")
    if rounds < 1 or (games is not None and games < 1):
        raise TournamentError("rounds and games must be at least 1")
    if seed < 0:
        raise TournamentError(f"seed must be a whole number >= 0, not {seed}")
    pairs = entrants(list(specs))
    limit = check_time_limit(move_time_limit)
    tasks: list[GameTask] = []
    for players in counts:
        lineups = table_lineups(len(pairs), players)
        order = np.random.default_rng([seed, players]).permutation(len(lineups))
        wanted = games if games is not None else rounds * len(lineups) * players
        deal = 0
        played = 0
        while played < wanted:
            lineup = lineups[order[deal % len(lineups)]]
            deal_seed = seed + (players - 2) * SEEDS_PER_PLAYER_COUNT + deal
            for seating in rotations(lineup)[:wanted - played]:
                tasks.append(GameTask(len(tasks), deal, deal_seed, "standard", players, edition,
                                      tuple(pairs[agent] for agent in seating), keep_records,
                                      limit))
                played += 1
            deal += 1
    return tasks


JOURNAL_NAME = "played.jsonl"


def journal_settings(specs: list, player_counts, seed: int, edition: str,
                     move_time_limit: float | None) -> dict:
    """What a journal's games depend on: a journal of other settings is another league.
    The number of games is not among them: at one player count a league of more games
    (or rounds) begins with the games of one of fewer, so a journal grows with --games."""
    return {"agents": [key for _, key in entrants(list(specs))],
            "player_counts": sorted(set(player_counts)), "seed": seed, "edition": edition,
            "move_time_limit": move_time_limit}


def journal_games(journal: dict[int, dict], tasks: list[GameTask]) -> dict[int, dict]:
    """The journal's games that are games of `tasks` (same table number, seed and seats);
    TournamentError for one that is another game (another player-count mix or design)."""
    by_table = {task.table: task for task in tasks}
    found = {}
    for table, outcome in journal.items():
        task = by_table.get(table)
        if task is None:
            continue
        seats = [row["agent"] for row in sorted(outcome["rows"], key=lambda r: r["seat"])]
        if outcome["rows"][0]["seed"] != task.seed \
                or seats != [label for label, _ in task.lineup]:
            raise TournamentError(f"game {table} of the journal is not this league's game "
                                  f"{table} (seed {task.seed}); give another --output-dir")
        found[table] = outcome
    return found


def read_journal(path: Path, settings: dict) -> dict[int, dict]:
    """The games in the journal at `path` by table number (none if there is no file); a
    last line cut short (a run killed while writing) is skipped; TournamentError for a
    journal of other settings or a bad line before the last."""
    path = Path(path)
    if not path.is_file():
        return {}
    lines = path.read_text().splitlines()
    played = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            outcome = {"table": int(entry["table"]), "rows": entry["rows"],
                       "record": entry.get("record")}
            kept = entry["settings"]
        except (ValueError, KeyError, TypeError) as error:
            if number == len(lines):
                break
            raise TournamentError(f"{path}:{number}: not a league game ({error})") from None
        if kept != settings:
            raise TournamentError(f"{path} holds games of another league ({kept}); give "
                                  f"another --output-dir or the same settings")
        played.setdefault(outcome["table"], outcome)
    return played


def drop_cut_line(path: Path) -> None:
    """Cut off a last line written only in part (a run killed while writing it), so that
    lines appended after it stay whole."""
    path = Path(path)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as handle:
            handle.truncate(data.rfind(b"\n") + 1)


def _win_share(rows: list[dict]) -> dict:
    wins = sum(row["win"] for row in rows)
    low, high = wilson_interval(wins, len(rows))
    return {"games": len(rows), "wins": wins, "win_share": wins / len(rows) if rows else None,
            "low": low, "high": high}


def turn_position(row: dict) -> int:
    """0 for the first player (R3.6), 1 for the next in turn order, ..."""
    return (row["seat"] - row["first_player"]) % row["seats"]


def _mean(values) -> float | None:
    known = [value for value in values if value is not None]
    return float(np.mean(known)) if known else None


def games_per_pairing(rows: list[dict], labels: list[str]) -> dict:
    """How many games each two agents played at one table: the fewest and the most over
    all pairs of agents (rows of one player count)."""
    tables: dict[int, set] = {}
    for row in rows:
        tables.setdefault(row["table"], set()).add(row["agent"])
    counts = [sum(first in agents and second in agents for agents in tables.values())
              for first, second in itertools.combinations(labels, 2)]
    return {"min": min(counts, default=0), "max": max(counts, default=0)}


def summarise_league(rows: list[dict], labels: list[str]) -> dict:
    """Ratings, per-count results and the turn-position effect (module docstring)."""
    counts = sorted({row["seats"] for row in rows})
    by_count = {}
    for players in counts:
        here = [row for row in rows if row["seats"] == players]
        agents = {}
        for label in labels:
            own = [row for row in here if row["agent"] == label]
            if not own:
                continue
            agents[label] = {**_win_share(own), "fair_share": 1 / players,
                             "mean_population": _mean(r["population"] for r in own),
                             "mean_margin": _mean(r["margin"] for r in own),
                             "forfeits": sum(bool(r.get("forfeit")) for r in own),
                             "stand_in_games": stand_in_games(own)}
        positions = {position + 1: _win_share([r for r in here if turn_position(r) == position])
                     for position in range(players)}
        by_count[players] = {"games": len(here) // players, "agents": agents,
                             "stand_in_games": len(stand_in_tables(here)),
                             "turn_positions": positions,
                             "games_per_pairing": games_per_pairing(here, labels)}
    ratings = openskill_ratings(rows, labels)
    for players in counts:
        here = [row for row in rows if row["seats"] == players]
        by_count[players]["ratings"] = openskill_ratings(here, labels)["ratings"]
        by_count[players]["openskill_lead"] = rating_lead(by_count[players]["ratings"])
        rated = rate_league(here, labels)
        by_count[players]["strengths"] = rated.get("fit")
        by_count[players]["lead"] = rated.get("lead") or {"error": rated["error"]}
    return {"ratings": ratings, "lead": rating_lead(ratings["ratings"]),
            "player_counts": by_count, "forfeits": forfeits(rows),
            "stand_in_tables": stand_in_tables(rows)}


def rating_lead(ratings: dict) -> dict | None:
    """The agent of the highest mu, the next one, and the lead in combined sigma
    (module docstring); None with fewer than two rated agents."""
    rated = sorted((label for label in ratings if ratings[label]["rated_games"]),
                   key=lambda label: -ratings[label]["mu"])
    if len(rated) < 2:
        return None
    first, second = ratings[rated[0]], ratings[rated[1]]
    combined = float(np.hypot(first["sigma"], second["sigma"]))
    return {"leader": rated[0], "next": rated[1], "mu_gap": first["mu"] - second["mu"],
            "combined_sigma": combined,
            "lead_in_sigma": (first["mu"] - second["mu"]) / combined}


def format_league(summary: dict) -> str:
    """The league as text: ratings, then one block per player count."""
    ratings = summary["ratings"]["ratings"]
    ordered = sorted(ratings, key=lambda label: -ratings[label]["ordinal"])
    width = max(len(label) for label in ordered)
    lines = ["OpenSkill (Plackett-Luce, ranked by final population), best first:"]
    for label in ordered:
        rating = ratings[label]
        lines.append(f"  {label.ljust(width)}  mu {rating['mu']:6.2f}  sigma {rating['sigma']:5.2f}"
                     f"  ordinal {rating['ordinal']:6.2f}  ({rating['rated_games']} games)")
    lines.append(f"  {_lead_text(summary.get('lead'))}")
    for players, block in summary["player_counts"].items():
        pairing = block.get("games_per_pairing") or {}
        together = (f", {_span(pairing)} games per pair of agents" if pairing else "")
        lines.append(f"{players} players, {block['games']} games{together} (fair share "
                     f"{1 / int(players):.3f}):")
        fit = block.get("strengths")
        for label, strength, error in _strength_rows(fit):
            lines.append(f"  strength at {players} players: {label.ljust(width)}  "
                         f"{strength:+6.3f} ± {error:5.3f}")
        if block.get("lead"):
            lines.append(f"  {_strength_lead_text(block['lead'])}")
        if block.get("openskill_lead"):
            lines.append(f"  OpenSkill at {players} players alone, "
                         f"{_lead_text(block['openskill_lead'])}")
        for label in ordered:
            entry = block["agents"].get(label)
            if entry:
                population, margin = entry["mean_population"], entry["mean_margin"]
                forfeited = f", {entry['forfeits']} forfeited" if entry.get("forfeits") else ""
                if entry.get("stand_in_games"):
                    forfeited += f", {entry['stand_in_games']} beside a stand-in"
                lines.append(f"  {label.ljust(width)}  win share {entry['win_share']:.3f} "
                             f"[{entry['low']:.3f}, {entry['high']:.3f}]  mean pop "
                             f"{'-' if population is None else f'{population:6.1f}'}  mean "
                             f"margin {'-' if margin is None else f'{margin:+6.1f}'}  "
                             f"({entry['games']} seats{forfeited})")
        positions = ", ".join(f"{position}: {entry['win_share']:.3f} [{entry['low']:.3f}, "
                              f"{entry['high']:.3f}]"
                              for position, entry in block["turn_positions"].items())
        lines.append(f"  win share by turn position: {positions}")
    lines += format_forfeits(summary.get("forfeits", []),
                             len(summary.get("stand_in_tables", [])))
    return "\n".join(lines)


def _lead_text(lead: dict | None) -> str:
    if not lead:
        return "lead: fewer than two rated agents"
    verdict = "more than" if lead["lead_in_sigma"] > 2 else "not more than"
    return (f"lead: {lead['leader']} over {lead['next']} by {lead['mu_gap']:.2f} mu = "
            f"{lead['lead_in_sigma']:.2f} combined sigma ({verdict} 2)")


def _strength_rows(fit: dict | None) -> list[tuple[str, float, float]]:
    """(agent, strength, standard error) of a fit, strongest first."""
    if not fit:
        return []
    return sorted(zip(fit["labels"], fit["strengths"], fit["standard_errors"]),
                  key=lambda entry: -entry[1])


def _strength_lead_text(lead: dict) -> str:
    if "error" in lead:
        return f"lead: not measured ({lead['error']})"
    verdict = "more than" if lead["z"] > 2 else "not more than"
    strict = ("" if lead["smallest_z_over"] == lead["next"] else
              f"; its smallest lead, over {lead['smallest_z_over']}, "
              f"{lead['smallest_z']:.2f} standard errors")
    deal = ("" if lead.get("deal_z") is None else
            f"; {lead['deal_z']:.2f} with the games of each of the {lead['deals']} deals as "
            f"one sample")
    below = lead.get("below")
    if below:
        strict += (f"; rated without {', '.join(below)}, which never finished ahead of the "
                   f"rated group's agents (below all of them)")
    return (f"lead: {lead['leader']} over {lead['next']} by {lead['difference']:.3f} ± "
            f"{lead['standard_error']:.3f} strength = {lead['z']:.2f} standard errors of the "
            f"difference ({verdict} 2; head to head {lead['head_to_head']:.3f}) over "
            f"{lead['games']} games{deal}{strict}")


def _span(pairing: dict) -> str:
    return (str(pairing["min"]) if pairing["min"] == pairing["max"]
            else f"{pairing['min']}-{pairing['max']}")


def _interval(entry: dict) -> str:
    return f"{entry['win_share']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}]"


def league_markdown(summary: dict, config: dict) -> str:
    """The league as Markdown tables (docs/league.md): provenance, ratings, then win
    share, mean population and margin per player count, and the turn-position effect."""
    ratings = summary["ratings"]["ratings"]
    ordered = sorted(ratings, key=lambda label: -ratings[label]["ordinal"])
    provenance = config.get("provenance", {})
    counts = ", ".join(str(count) for count in config["player_counts"])
    lines = [f"Agents: {', '.join(f'`{label}`' for label in config['agents'])}; "
             f"{counts} players; {config['games_played']} games, seeds from "
             f"{config['seed']}, edition {config['edition']}, rules of "
             f"{provenance.get('rules', '?')}; {config['seconds']:.0f} s with "
             f"{config['workers']} worker(s)"
             + (f" for the {config['games_played'] - config['games_from_journal']} games "
                f"played last (the others from its journal, --resume)"
                if config.get("games_from_journal") else "") + ".",
             f"Started {provenance.get('date', '?')} at commit "
             f"`{provenance.get('commit') or 'unknown'}`"
             + (" (with uncommitted changes)" if provenance.get("uncommitted_changes") else "")
             + "."]
    for path, digest in provenance.get("model_files", {}).items():
        lines.append(f"Model `{path}`: SHA-256 `{digest}`.")
    lines += ["", "OpenSkill Plackett-Luce ratings over all games, ranked by final population "
              "(mu ± sigma; ordinal = mu - 3 sigma):", "",
              "| agent | mu | sigma | ordinal | games |", "|---|---:|---:|---:|---:|"]
    for label in ordered:
        rating = ratings[label]
        lines.append(f"| `{label}` | {rating['mu']:.2f} | {rating['sigma']:.2f} | "
                     f"{rating['ordinal']:.2f} | {rating['rated_games']} |")
    lines += ["", f"Over all games, the {_lead_text(summary.get('lead'))}."]
    for players, block in summary["player_counts"].items():
        pairing = block.get("games_per_pairing") or {"min": 0, "max": 0}
        stand_ins = block.get("stand_in_games", 0)
        lines += ["", f"{players} players: {block['games']} games, {_span(pairing)} per pair "
                  f"of agents; fair share {1 / int(players):.3f}; {stand_ins} game(s) with a "
                  f"stand-in for a seat that forfeited. Win share with its 95% Wilson "
                  f"interval (a shared win counts 1/winners, R8.3):", "",
                  "| agent | win share [95% CI] | mean population | mean margin | seats | "
                  "forfeits | beside a stand-in |", "|---|---|---:|---:|---:|---:|---:|"]
        for label in ordered:
            entry = block["agents"].get(label)
            if entry:
                lines.append(f"| `{label}` | {_interval(entry)} | "
                             f"{_format(entry['mean_population'], '.1f')} | "
                             f"{_format(entry['mean_margin'], '+.1f')} | {entry['games']} | "
                             f"{entry['forfeits']} | {entry.get('stand_in_games', 0)} |")
        fit = block.get("strengths")
        if fit:
            games = dict(zip(fit["labels"], fit["games_per_agent"]))
            lines += ["", f"Strengths at {players} players (Plackett-Luce maximum likelihood "
                      f"over the {fit['games']} games, mean 0, ± standard error; "
                      f"agents/league_rating.py):", "",
                      "| agent | strength | standard error | games |", "|---|---:|---:|---:|"]
            lines += [f"| `{label}` | {strength:+.3f} | {error:.3f} | {games[label]} |"
                      for label, strength, error in _strength_rows(fit)]
        if block.get("lead"):
            lines += ["", f"At {players} players, the {_strength_lead_text(block['lead'])}."]
        if block.get("openskill_lead"):
            lines += ["", f"OpenSkill over the {players}-player games alone (for comparison; "
                      f"its sigma does not shrink with games), the "
                      f"{_lead_text(block['openskill_lead'])}."]
        positions = block["turn_positions"]
        lines += ["", "| turn position | " + " | ".join(str(p) for p in positions) + " |",
                  "|---|" + "---|" * len(positions),
                  "| win share [95% CI] | " + " | ".join(_interval(entry)
                                                         for entry in positions.values()) + " |"]
    return "\n".join(lines) + "\n"


def _format(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def provenance(specs: list) -> dict:
    """When and from which code a league was played, and the SHA-256 of every model file
    its agents load (results change with the rules, the code and the models)."""
    root = Path(__file__).resolve().parents[1]

    def git(*arguments):
        try:
            return subprocess.run(["git", *arguments], cwd=root, capture_output=True,
                                  text=True, timeout=30, check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None
    from suburbia_env.versions import RULES_REVISION
    models = {}
    for spec in specs:
        path = model_file_of(spec)
        if path and path not in models and Path(path).is_file():
            models[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": git("rev-parse", "HEAD"), "uncommitted_changes": bool(status),
            "rules": RULES_REVISION, "model_files": models}


def plot_league(summary: dict, path: Path | None = None):
    """Ratings (mu with +-2 sigma), win share per player count and per turn position."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    ratings = summary["ratings"]["ratings"]
    labels = sorted(ratings, key=lambda label: -ratings[label]["ordinal"])
    counts = list(summary["player_counts"])
    figure = Figure(figsize=(max(9.0, 1.2 * len(labels) + 6), 4.5), dpi=100)
    FigureCanvasAgg(figure)
    left, middle, right = (figure.add_subplot(1, 3, index) for index in (1, 2, 3))
    left.errorbar(range(len(labels)), [ratings[l]["mu"] for l in labels],
                  yerr=[2 * ratings[l]["sigma"] for l in labels], fmt="o")
    left.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
    left.set_title("OpenSkill mu ± 2 sigma")
    width = 0.8 / max(1, len(counts))
    for offset, players in enumerate(counts):
        agents = summary["player_counts"][players]["agents"]
        shares = [agents[l]["win_share"] if l in agents else np.nan for l in labels]
        errors = np.array([[agents[l]["win_share"] - agents[l]["low"],
                            agents[l]["high"] - agents[l]["win_share"]] if l in agents
                           else [np.nan, np.nan] for l in labels]).T
        middle.bar(np.arange(len(labels)) + offset * width, shares, width, yerr=errors,
                   label=f"{players} players")
        positions = summary["player_counts"][players]["turn_positions"]
        right.errorbar(list(positions), [e["win_share"] for e in positions.values()],
                       yerr=[[e["win_share"] - e["low"] for e in positions.values()],
                             [e["high"] - e["win_share"] for e in positions.values()]],
                       fmt="o-", label=f"{players} players")
    middle.set_xticks(np.arange(len(labels)) + width * (len(counts) - 1) / 2, labels,
                      rotation=30, ha="right", fontsize=8)
    middle.set_title("win share [95% Wilson]")
    middle.legend(fontsize=8)
    right.set_xlabel("turn position (1 = first player)")
    right.set_title("win share by turn position")
    right.legend(fontsize=8)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, format="png")
    return figure


def run_league(specs: list, player_counts=PLAYER_COUNTS, rounds: int = 1,
               games: int | None = None, seed: int = 0, edition: str = "2nd",
               workers: int = DEFAULT_WORKERS, progress: bool = True,
               keep_records: bool = False, move_time_limit: float | None = None,
               backend: str = "process", address: str | None = None,
               journal: Path | None = None) -> tuple[list[dict], list[dict], dict, dict]:
    """Play the league; returns (rows, records, summary, config). `specs` are spec
    strings or agent objects; `move_time_limit` is in seconds per decision; backend "ray"
    plays the games on the Ray cluster at `address` (tournament.play_tasks); with a
    `journal` file, plays only the games it lacks and appends each game played to it
    (module docstring)."""
    tasks = make_league_tasks(specs, player_counts, rounds, games, seed, edition, keep_records,
                              move_time_limit)
    origin = provenance([key for _, key in entrants(list(specs))])  # the code that plays
    settings = journal_settings(specs, player_counts, seed, edition, tasks[0].move_time_limit)
    done = journal_games(read_journal(journal, settings), tasks) if journal is not None else {}
    left = [task for task in tasks if task.table not in done]
    seconds = 0.0
    if journal is not None and left:
        drop_cut_line(journal)
    handle = open(journal, "a") if journal is not None and left else None

    def played(outcome: dict) -> None:
        done[outcome["table"]] = outcome
        if handle is not None:
            handle.write(json.dumps({"settings": settings, **outcome}) + "\n")
            handle.flush()
    try:
        if left:
            _, _, seconds = play_tasks(left, specs, "standard", workers, progress,
                                       description="league games", backend=backend,
                                       address=address, on_outcome=played)
    finally:
        if handle is not None:
            handle.close()
    outcomes = [done[task.table] for task in tasks]
    rows = [row for outcome in outcomes for row in outcome["rows"]]
    records = [(outcome["table"], outcome["record"]) for outcome in outcomes
               if outcome.get("record") is not None]
    pairs = entrants(list(specs))
    config = {"agents": [key for _, key in pairs], "player_counts": sorted(set(player_counts)),
              "rounds": rounds, "games": games, "seed": seed, "edition": edition,
              "workers": workers, "backend": backend,
              "move_time_limit": tasks[0].move_time_limit,
              "games_played": len(tasks), "games_from_journal": len(tasks) - len(left),
              "seconds": seconds, "provenance": origin}
    return rows, records, summarise_league(rows, [label for label, _ in pairs]), config


TABLE_START = "<!-- league table: start (written by suburbia league --update-doc) -->"
TABLE_END = "<!-- league table: end -->"


def document_parts(path: Path) -> tuple[str, str]:
    """The text of the document at `path` before its TABLE_START line and after its
    TABLE_END line; TournamentError if it is missing or its markers are not in order."""
    path = Path(path)
    if not path.is_file():
        raise TournamentError(f"no document {path} to put the league table into")
    text = path.read_text()
    if text.count(TABLE_START) != 1 or text.count(TABLE_END) != 1 \
            or text.index(TABLE_START) > text.index(TABLE_END):
        raise TournamentError(f"{path} needs one line {TABLE_START!r} and, after it, one line "
                              f"{TABLE_END!r} around the league table")
    before, rest = text.split(TABLE_START, 1)
    return before, rest.split(TABLE_END, 1)[1]


def update_document(path: Path, markdown: str) -> None:
    """Put the league's Markdown tables into the document at `path`, replacing what lies
    between its TABLE_START and TABLE_END lines (docs/league.md)."""
    before, after = document_parts(path)
    Path(path).write_text(f"{before}{TABLE_START}\n\n{markdown.strip()}\n\n{TABLE_END}{after}")


def write_league(rows, records, summary, config, output_dir: Path,
                 records_dir: Path | None = None) -> dict:
    """results.csv, summary.json, league.png and league.md in `output_dir`; with
    `records_dir`, the games as a dataset there (records_dir/games.jsonl,
    agents/league_dataset.py). Returns the paths written."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    paths = {"csv": output_dir / "results.csv", "summary": output_dir / "summary.json",
             "plot": output_dir / "league.png", "markdown": output_dir / "league.md"}
    write_csv(rows, paths["csv"])
    paths["summary"].write_text(json.dumps({"config": config, **summary}, indent=2) + "\n")
    plot_league(summary, paths["plot"])
    paths["markdown"].write_text(league_markdown(summary, config))
    if records_dir is not None:
        paths["records"] = write_dataset(rows, records, records_dir)
    return paths


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                        help=f"two or more agent specs: {', '.join(AGENT_SPECS)} (FILE.py:NAME, "
                             f"MODULE:NAME: your own Agent, agent factory or function "
                             f"(game) -> action)")
    parser.add_argument("--players", nargs="+", type=int, default=list(PLAYER_COUNTS),
                        metavar="K", help="player counts to play, each 2-4 (default: 2 3 4)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="full rounds of the design per player count, 1 or more (default 1)")
    parser.add_argument("--games", type=int, default=None,
                        help="instead of --rounds: this many games per player count, 1 or more")
    parser.add_argument("--seed", type=int, default=0,
                        help="first seed, 0 or more (default 0)")
    parser.add_argument("--edition", choices=("2nd", "1st"), default="2nd",
                        help="stack layout: 2nd (default) or 1st (R3.2, R3.3)")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS,
                        help=f"parallel processes, 1..{MAX_WORKERS}, or games at once with "
                             f"--backend ray (default {DEFAULT_WORKERS})")
    add_backend_arguments(parser)
    parser.add_argument("--output-dir", type=Path, default=Path("runs/league"),
                        help="where results.csv, summary.json, league.png and league.md go "
                             "(default runs/league)")
    parser.add_argument("--records", type=Path, default=None, metavar="DIR",
                        help="also write every game to DIR/games.jsonl: seats, agents, scores, "
                             "seed and the replayable record (docs/dataset.md)")
    parser.add_argument("--update-doc", type=Path, default=None, metavar="FILE",
                        help="also put the tables into FILE between its league-table marker "
                             "lines (docs/league.md)")
    parser.add_argument("--resume", action="store_true",
                        help=f"keep every game in OUTPUT_DIR/{JOURNAL_NAME} as it is played and "
                             f"play only the games it lacks: the same command goes on where a "
                             f"stopped one ended")
    add_time_limit_argument(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def run_from_arguments(arguments: argparse.Namespace, out=None) -> dict:
    out = out or sys.stdout
    if arguments.update_doc is not None:
        document_parts(arguments.update_doc)  # a bad document fails before any game
    rows, records, summary, config = run_league(
        arguments.agents, arguments.players, arguments.rounds, arguments.games, arguments.seed,
        arguments.edition, arguments.workers, not arguments.no_progress,
        arguments.records is not None, arguments.move_time_limit, arguments.backend,
        arguments.address,
        Path(arguments.output_dir) / JOURNAL_NAME if arguments.resume else None)
    print(format_league(summary), file=out)
    paths = write_league(rows, records, summary, config, arguments.output_dir,
                         arguments.records)
    if arguments.update_doc is not None:
        update_document(arguments.update_doc, paths["markdown"].read_text())
        paths["document"] = arguments.update_doc
    resumed = (f" ({config['games_from_journal']} of them from the journal)"
               if config.get("games_from_journal") else "")
    print(f"{config['games_played']} games{resumed}, {config['seconds']:.1f} s played; wrote "
          + ", ".join(str(path) for path in paths.values()), file=out)
    return summary
