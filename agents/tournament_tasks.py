"""The games of a tournament, set up and checked before anything is played: who plays
which seat of which seeded game (agents/tournament.py's docstring)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from suburbia_env.engine.constants import EDITION_NAMES
from suburbia_env.errors import shown

from .registry import agent_name

MODES = ("dale", "solitary", "standard")
DEFAULT_WORKERS = 2
MAX_GAMES = 1_000_000  # per agent (solo modes) or in all (standard): the task list is built first
MAX_WORKERS = 64
MAX_RAY_GAMES_AT_ONCE = 100_000
BACKENDS = ("process", "ray")


class TournamentError(RuntimeError):
    """A tournament that cannot be set up or whose agents cannot reach its workers."""


@dataclass(frozen=True)
class GameTask:
    """One game to play: its seed, configuration and the (label, spec) of every seat
    an agent plays (Dale's seat in mode "dale" is the engine's)."""

    table: int  # position in the tournament, unique per game played
    index: int  # game number i (seed = base + i), shared by the agents in the solo modes
    seed: int
    mode: str
    players: int
    edition: str
    lineup: tuple[tuple[str, str], ...]
    keep_record: bool = False
    move_time_limit: float | None = None  # seconds per decision (module docstring)


def agent_labels(specs: list) -> list[str]:
    """Labels for the results table: the spec itself (an object's name), with #2, #3 ...
    on repeats."""
    labels, seen = [], {}
    for spec in map(agent_name, specs):
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels


def entrants(agents: list) -> list[tuple[str, str]]:
    """(label, key) of each agent: a spec is its own key, an object given from Python is
    keyed "<label>" (the spec column of its rows)."""
    labels = agent_labels(list(agents))
    return [(label, agent if isinstance(agent, str) else f"<{label}>")
            for label, agent in zip(labels, agents)]


def agent_sources(agents: list) -> dict:
    """The objects among `agents`, by their key."""
    return {key: agent for (_, key), agent in zip(entrants(agents), agents)
            if not isinstance(agent, str)}


def check_time_limit(seconds) -> float | None:
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not math.isfinite(seconds) or seconds <= 0:
        raise TournamentError(f"the move time limit must be a number of seconds above 0, "
                              f"not {shown(seconds)}")
    return float(seconds)


def seat_assignment(game_index: int, num_agents: int, seats: int) -> list[int]:
    """Standard mode: the agent index of each seat of game `game_index` (rotation)."""
    return [(game_index + seat) % num_agents for seat in range(seats)]


def make_tasks(specs: list, mode: str, games: int, players: int | None = None,
               seed: int = 0, edition: str = "2nd", keep_records: bool = False,
               move_time_limit: float | None = None) -> list[GameTask]:
    """The games of a tournament (module docstring), checked before anything is played."""
    if mode not in MODES:
        raise TournamentError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if not specs:
        raise TournamentError("a tournament needs at least one agent spec")
    if not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise TournamentError(f"games must be a whole number 1..{MAX_GAMES}, "
                              f"not {shown(games)}")
    if not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise TournamentError(f"seed must be a whole number 0..2**63-1, not {shown(seed)}")
    pairs = entrants(list(specs))
    limit = check_time_limit(move_time_limit)
    if edition not in EDITION_NAMES:
        raise TournamentError(f"edition must be one of {', '.join(EDITION_NAMES)}, "
                              f"not {edition!r}")
    if mode == "standard":
        if len(specs) < 2:
            raise TournamentError("standard mode needs at least two agent specs to play "
                                  "against each other")
        players = players if players is not None else min(4, len(specs))
        if players not in (2, 3, 4):
            raise TournamentError(f"standard games seat 2 to 4 players (R3.1), not {players}")
        return [GameTask(i, i, seed + i, mode, players, edition,
                         tuple(pairs[a] for a in seat_assignment(i, len(pairs), players)),
                         keep_records, limit)
                for i in range(games)]
    if players not in (None, 1):
        raise TournamentError(f"mode {mode!r} is played by one player (R9), not {players}")
    return [GameTask(number * games + i, i, seed + i, mode, 1, edition, (pair,), keep_records,
                     limit)
            for number, pair in enumerate(pairs) for i in range(games)]
