"""The summaries of a tournament's seat rows: per agent, win rates with their Wilson
intervals, populations, margins, OpenSkill ratings, ladder ranks and forfeits, and the
results table as text."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from suburbia_env.engine.scoring import LADDER

from .statistics import wilson_interval
from .table import STAND_IN
from .tournament_games import DALE_LABEL

NO_RANK = "no rank (Dale not beaten)"
FORFEITED = "forfeited"
FORFEITS_SHOWN = 10  # forfeit lines printed under a results table; all are in CSV and JSON
LADDER_TITLES = tuple(title for _, title in reversed(LADDER))  # lowest first


@dataclass
class TournamentResult:
    config: dict
    labels: list[str]
    specs: dict[str, str]
    rows: list[dict]
    records: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def _mean(values: list[float]) -> float | None:
    return float(statistics.fmean(values)) if values else None


def openskill_ratings(rows: list[dict], labels: list[str]) -> dict:
    """Plackett-Luce ratings from multi-seat games ranked by final population (ties share
    a rank; a seat that forfeited is last, below every seat that did not), updated game by
    game in game order. A game where one agent fills several
    seats is not rated (one rating cannot play against itself)."""
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    rated = {label: 0 for label in labels}
    games: dict[int, list[dict]] = {}
    for row in rows:
        if row["agent"] in ratings:
            games.setdefault(row["table"], []).append(row)
    skipped = 0
    for index in sorted(games):
        seats = sorted(games[index], key=lambda row: row["seat"])
        agents = [row["agent"] for row in seats]
        if len(seats) < 2 or len(set(agents)) < len(agents):
            skipped += 1
            continue
        standing = [(not row.get("forfeit"), row["population"] or 0) for row in seats]
        ranks = [1 + sum(other > own for other in standing) for own in standing]
        updated = model.rate([[ratings[agent]] for agent in agents], ranks=ranks)
        for agent, team in zip(agents, updated):
            ratings[agent] = team[0]
            rated[agent] += 1
    result = {label: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal()),
                      "rated_games": rated[label]} for label, r in ratings.items()}
    return {"ratings": result, "unrated_games": skipped}


def _known(values) -> list:
    """The values that are not None (a forfeited game has no population or margin)."""
    return [value for value in values if value is not None]


def forfeits(rows: list[dict]) -> list[dict]:
    """One entry per forfeit: who, where and why (module docstring)."""
    return [{"agent": row["agent"], "table": row["table"], "game": row["game"],
             "seed": row["seed"], "seats": row["seats"], "seat": row["seat"],
             "decision": row.get("forfeit_decision"), "reason": row["forfeit"]}
            for row in rows if row.get("forfeit")]


def stand_in_tables(rows: list[dict]) -> list[int]:
    """The tables (results.csv column) of the games in which the stand-in played a seat."""
    return sorted({row["table"] for row in rows if row.get("stand_in_seats")})


def stand_in_games(own: list[dict]) -> int:
    """How many of an agent's games (its rows `own`) it played to the end beside a seat
    the stand-in played (the others' forfeits)."""
    return sum(bool(row.get("stand_in_seats")) and not row.get("forfeit") for row in own)


def format_forfeits(entries: list[dict], tables: int | None = None) -> list[str]:
    """The forfeits as lines under a results table, the first FORFEITS_SHOWN of them;
    `tables`: the number of games that had a stand-in."""
    if not entries:
        return []
    games = f" in {tables} game(s)" if tables is not None else ""
    lines = [f"Forfeits ({len(entries)}{games}; the seat that forfeits loses the game, "
             f"ranked last, and {STAND_IN} plays it to the end (the stand-in), so the "
             f"others' game completes; stand-in games are marked in column stand_in_seats):"]
    for entry in entries[:FORFEITS_SHOWN]:
        lines.append(f"  {entry['agent']} forfeited game {entry['game']} (seed {entry['seed']}"
                     f", {entry['seats']} seats) in seat {entry['seat']}: {entry['reason']}")
    if len(entries) > FORFEITS_SHOWN:
        lines.append(f"  ... and {len(entries) - FORFEITS_SHOWN} more (column forfeit of "
                     f"results.csv, forfeits of summary.json)")
    return lines


def summarise(rows: list[dict], labels: list[str], mode: str) -> dict:
    """Per-agent statistics (module docstring) from the seat rows of a tournament;
    populations and margins are of the games an agent did not forfeit (beside a stand-in
    too: `stand_in_games` counts those)."""
    agents = {}
    for label in labels:
        own = [row for row in rows if row["agent"] == label]
        populations = _known(row["population"] for row in own)
        entry = {"agent": label, "games": len(own),
                 "mean_population": _mean(populations),
                 "median_population": float(statistics.median(populations))
                 if populations else None,
                 "forfeits": sum(bool(row.get("forfeit")) for row in own),
                 "stand_in_games": stand_in_games(own)}
        if mode != "solitary":
            wins = sum(row["win"] for row in own)
            low, high = wilson_interval(wins, len(own))
            entry.update({"wins": wins, "win_rate": wins / len(own) if own else None,
                          "win_rate_low": low, "win_rate_high": high,
                          "mean_margin": _mean(_known(row["margin"] for row in own))})
        if mode in ("dale", "solitary"):
            counts = {title: 0 for title in LADDER_TITLES}
            if mode == "dale":
                counts[NO_RANK] = 0
            for row in own:
                if row.get("forfeit"):
                    counts[FORFEITED] = counts.get(FORFEITED, 0) + 1
                else:
                    counts[row["ladder_rank"] or NO_RANK] += 1
            entry["ladder_ranks"] = counts
        if mode == "dale":
            tables = {row["table"] for row in own}
            dale = _known(row["population"] for row in rows
                          if row["agent"] == DALE_LABEL and row["table"] in tables)
            entry["mean_dale_population"] = _mean(dale)
        agents[label] = entry
    summary = {"mode": mode, "agents": agents, "forfeits": forfeits(rows),
               "stand_in_tables": stand_in_tables(rows)}
    if mode == "standard":
        ratings = openskill_ratings(rows, labels)
        for label in labels:
            agents[label]["rating"] = ratings["ratings"][label]
        summary["unrated_games"] = ratings["unrated_games"]
    if mode == "dale":
        dale = _known(row["population"] for row in rows if row["agent"] == DALE_LABEL)
        summary["dale"] = {"games": len(dale), "mean_population": _mean(dale),
                           "median_population": float(statistics.median(dale)) if dale else None}
    return summary


def _number(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_summary(summary: dict, config: dict | None = None) -> str:
    """The results table as text: one line per agent, then the ladder ranks."""
    mode = summary["mode"]
    header = ["agent", "games"]
    if mode != "solitary":
        header += ["win rate [95% CI]"]
    header += ["mean pop", "median pop"]
    if mode != "solitary":
        header += ["mean margin"]
    if mode == "standard":
        header += ["rating mu±sigma (ordinal)"]
    forfeited = any(entry.get("forfeits") for entry in summary["agents"].values())
    if forfeited:
        header += ["forfeits", "beside a stand-in"]
    table = [header]
    for entry in summary["agents"].values():
        line = [entry["agent"], str(entry["games"])]
        if mode != "solitary":
            line.append(f"{entry['win_rate']:.3f} [{entry['win_rate_low']:.3f}, "
                        f"{entry['win_rate_high']:.3f}]" if entry["games"] else "-")
        line += [_number(entry["mean_population"]), _number(entry["median_population"])]
        if mode != "solitary":
            line.append(_number(entry["mean_margin"]))
        if mode == "standard":
            rating = entry["rating"]
            line.append(f"{rating['mu']:.2f}±{rating['sigma']:.2f} ({rating['ordinal']:.2f})")
        if forfeited:
            line += [str(entry.get("forfeits", 0)), str(entry.get("stand_in_games", 0))]
        table.append(line)
    widths = [max(len(line[column]) for line in table) for column in range(len(header))]
    lines = []
    if config:
        players = f", {config['players']} seats" if mode == "standard" else ""
        games = (f"{config['games']} games (seats rotated)" if mode == "standard"
                 else f"{config['games']} games per agent")
        lines.append(f"Mode {mode}{players}, {games}, seeds "
                     f"{config['seed']}..{config['seed'] + config['games'] - 1}, edition "
                     f"{config['edition']}")
    for number, line in enumerate(table):
        lines.append("  ".join(text.ljust(width) if column == 0 else text.rjust(width)
                               for column, (text, width) in enumerate(zip(line, widths))))
        if number == 0:
            lines.append("  ".join("-" * width for width in widths))
    if mode == "dale":
        dale = summary["dale"]
        lines.append(f"{DALE_LABEL}: mean population {_number(dale['mean_population'])}, "
                     f"median {_number(dale['median_population'])} over {dale['games']} games")
    if mode in ("dale", "solitary"):
        lines.append("Solo ladder ranks (R9.1" + ("; only when Dale is beaten, R9.2):"
                                                  if mode == "dale" else "):"))
        for entry in summary["agents"].values():
            counts = ", ".join(f"{title} {count}" for title, count in entry["ladder_ranks"].items()
                               if count)
            lines.append(f"  {entry['agent']}: {counts or '-'}")
    if mode == "standard" and summary.get("unrated_games"):
        lines.append(f"{summary['unrated_games']} game(s) not rated: an agent filled several "
                     f"seats")
    lines += format_forfeits(summary.get("forfeits", []),
                             len(summary.get("stand_in_tables", [])))
    return "\n".join(lines)
