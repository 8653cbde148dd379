"""Tournaments: seeded games between agents, summarised with intervals and ratings.

Modes (R9, R3.1):
- ``dale``: every agent plays the same N seeded games alone against the engine's Dale
  (R9.2); game i has seed ``seed + i`` for every agent, so comparisons are paired.
- ``solitary``: every agent plays the same N seeded Solitary Architect games (R9.1).
- ``standard``: N seeded games of 2-4 seats; seat k of game i is played by agent
  ``(i + k) mod len(agents)``, so the seats rotate across games (with fewer agents
  than seats an agent fills several seats, each counted as one appearance).

Every game is played by the one game loop (agents/table.py) with fresh-reset agents: an
agent that draws at random is reseeded from (game seed, seat) before each game, so
results do not depend on the number of workers or on the order in which they finish (an
agent that keeps other state from game to game breaks this). Games run in parallel
processes (``spawn``), each worker building its agents once from the spec strings, or
with backend "ray" as Ray tasks over a Ray cluster (agents/ray_games.py), with the same
results.

Agents are spec strings (agents/registry.py, your own bot as ``FILE.py:NAME`` or
``MODULE:NAME``) or, from Python, objects: an Agent, an agent factory or a function
``(game) -> action``. Objects reach the workers pickled once per worker; one that cannot
be pickled, or that lives in an interactive session's ``__main__`` (which workers cannot
import), makes the runner play every game in this process, with a warning. Every seat
plays a deep copy of an object (one that cannot be copied plays a single seat itself).

Before a move is played, every other seat's agent that overrides ``observe``
(agents/base.py) is shown it, the goal choice excepted (R3.6: hidden).

Forfeits (agents/table.py). An agent that raises, answers something that is not a legal
action (R10.1), changes the game it was shown, or takes longer than ``move_time_limit``
seconds for a decision or for watching a move (a seat's first decision of each game
excepted), forfeits: its seat loses that game, ranked last (win 0, no population or
margin, the reason in ``forfeit``, the game's decision number in ``forfeit_decision``),
and from that decision on the stand-in, which takes the first legal action and watches
nothing, plays the seat. So the game goes on for the others: their populations and
margins are of the whole game, and the win (R8.3) is decided among the seats that did
not forfeit (`winners_among`). Every row of a game with a stand-in lists the stand-in's
seats in ``stand_in_seats``; the summaries count the games with a stand-in per agent.
The tournament goes on. A move that never returns cannot be stopped and holds up its
worker.

Per agent the summary gives games, win rate with its 95% Wilson interval (a shared win
counts 1/winners, R8.3), mean and median final population, mean margin (own final
population minus the best other seat's), OpenSkill Plackett-Luce ratings ranked by
final population (standard mode), and the solo ladder ranks (R9.1; against Dale only
in games where Dale was beaten, R9.2).
"""

from __future__ import annotations

import time
import warnings

from suburbia_env.errors import shown

from .ray_games import play_on_ray
from .table import agent_seed, stand_in_action
from .tournament_files import plot_populations, write_csv, write_outputs
from .tournament_games import (CSV_FIELDS, DALE_LABEL, _agent, _init_worker, _worker_payload,
                               play_game)
from .tournament_results import (NO_RANK, TournamentResult, format_forfeits, format_summary,
                                 forfeits, openskill_ratings, stand_in_games, stand_in_tables,
                                 summarise)
from .tournament_tasks import (BACKENDS, DEFAULT_WORKERS, MAX_RAY_GAMES_AT_ONCE, MAX_WORKERS,
                               GameTask, TournamentError, agent_labels, agent_sources,
                               entrants, make_tasks, seat_assignment)

__all__ = ["CSV_FIELDS", "DALE_LABEL", "NO_RANK", "GameTask", "TournamentError",
           "TournamentResult", "agent_labels", "agent_seed", "format_forfeits",
           "format_summary", "forfeits", "make_tasks", "openskill_ratings", "play_game",
           "play_tasks", "plot_populations", "run_tournament", "seat_assignment",
           "stand_in_action", "stand_in_games", "stand_in_tables", "summarise", "write_csv",
           "write_outputs"]


def play_tasks(tasks: list[GameTask], specs: list, mode: str,
               workers: int = DEFAULT_WORKERS, progress: bool = True,
               description: str | None = None, backend: str = "process",
               address: str | None = None,
               on_outcome=None) -> tuple[list[dict], list[tuple[int, dict]], float]:
    """Play every task, `workers` processes in parallel (1: in this process), or with
    backend "ray" as Ray tasks, `workers` games at once on the cluster at `address` (a
    local Ray instance without one; agents/ray_games.py); returns the seat rows in table
    order, the kept (table, record) pairs and the seconds taken. The rows do not depend
    on the backend or the number of workers. `on_outcome(outcome)` is called with each
    game's outcome (play_game) as it is played (with backend "ray": once all are played),
    e.g. to keep a journal that a stopped run goes on from (agents/league.py).

    Agents are built once per worker from their specs (or objects, module docstring), so
    every one is built here first (a bad spec, a missing model file, a bot file that does
    not load, a mode the agent cannot play).
    """
    if backend not in BACKENDS:
        raise TournamentError(f"backend must be one of {', '.join(BACKENDS)}, "
                              f"not {shown(backend)}")
    most = MAX_WORKERS if backend == "process" else MAX_RAY_GAMES_AT_ONCE
    if not isinstance(workers, int) or isinstance(workers, bool) or workers > most:
        raise TournamentError(f"workers must be a whole number up to {most}, "
                              f"not {shown(workers)}")
    if backend == "ray" and workers < 1:
        raise TournamentError(f"workers (games at once on Ray) must be at least 1, "
                              f"not {workers}")
    sources = agent_sources(list(specs))
    local_cache: dict = {}
    for _, key in entrants(list(specs)):
        if (key, 0) not in local_cache:
            _agent(key, 0, local_cache, sources).check_mode(mode)
    payload = None
    if sources and (backend == "ray" or (workers > 1 and len(tasks) > 1)):
        payload, problem = _worker_payload(sources)
        if problem and backend == "ray":
            raise TournamentError(problem.replace("worker processes", "Ray workers"))
        if problem:
            warnings.warn(f"{problem}; playing every game in this process", RuntimeWarning,
                          stacklevel=3)
            workers = 1
    started = time.time()
    outcomes = []
    from tqdm import tqdm
    bar = tqdm(total=len(tasks), desc=description or f"{mode} games", unit="game",
               disable=not progress)
    try:
        if backend == "ray":
            outcomes = play_on_ray(tasks, payload, workers, address, bar.update)
            for outcome in outcomes if on_outcome else ():
                on_outcome(outcome)
        elif workers <= 1 or len(tasks) == 1:
            for task in tasks:
                outcomes.append(play_game(task, local_cache, sources))
                if on_outcome:
                    on_outcome(outcomes[-1])
                bar.update()
        else:
            import multiprocessing
            context = multiprocessing.get_context("spawn")
            pool = context.Pool(min(workers, len(tasks)), initializer=_init_worker,
                                initargs=(payload,))
            try:
                for outcome in pool.imap_unordered(play_game, tasks):
                    outcomes.append(outcome)
                    if on_outcome:
                        on_outcome(outcome)
                    bar.update()
                pool.close()  # the workers finish and exit on their own: nothing leaks
            except BaseException:
                pool.terminate()
                raise
            finally:
                pool.join()
    finally:
        bar.close()
    outcomes.sort(key=lambda outcome: outcome["table"])
    rows = [row for outcome in outcomes for row in outcome["rows"]]
    records = [(outcome["table"], outcome["record"]) for outcome in outcomes
               if outcome["record"] is not None]
    return rows, records, round(time.time() - started, 2)


def run_tournament(specs: list, mode: str = "dale", games: int = 100,
                   players: int | None = None, seed: int = 0, edition: str = "2nd",
                   workers: int = DEFAULT_WORKERS, progress: bool = True,
                   keep_records: bool = False,
                   move_time_limit: float | None = None, backend: str = "process",
                   address: str | None = None) -> TournamentResult:
    """Play a tournament (module docstring) and return every seat's result. `specs` are
    spec strings or agent objects; `move_time_limit` is in seconds per decision; backend
    "ray" plays the games on the Ray cluster at `address` (play_tasks)."""
    tasks = make_tasks(list(specs), mode, games, players, seed, edition, keep_records,
                       move_time_limit)
    rows, records, seconds = play_tasks(tasks, list(specs), mode, workers, progress,
                                        backend=backend, address=address)
    pairs = entrants(list(specs))
    config = {"agents": [key for _, key in pairs], "mode": mode, "games": games,
              "players": tasks[0].players, "seed": seed, "edition": edition,
              "workers": workers, "backend": backend,
              "move_time_limit": tasks[0].move_time_limit}
    return TournamentResult(config, [label for label, _ in pairs], dict(pairs), rows,
                            [record for _, record in records], seconds)
