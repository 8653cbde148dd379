"""Tournaments: seeded games between agents, summarised with intervals and ratings.

Modes (R9, R3.1):
- ``dale``: every agent plays the same N seeded games alone against the engine's Dale
  (R9.2); game i has seed ``seed + i`` for every agent, so comparisons are paired.
- ``solitary``: every agent plays the same N seeded Solitary Architect games (R9.1).
- ``standard``: N seeded games of 2-4 seats; seat k of game i is played by agent
  ``(i + k) mod len(agents)``, so the seats rotate across games (with fewer agents
  than seats an agent fills several seats, each counted as one appearance).

Every game is played by fresh-reset agents: an agent that draws at random is reseeded
from (game seed, seat) before each game, so results do not depend on the number of
workers or on the order in which they finish (an agent that keeps other state from game
to game breaks this). Games run in parallel processes (``spawn``), each worker building
its agents once from the spec strings, or with backend "ray" as Ray tasks over a Ray
cluster (agents/ray_games.py), with the same results.

Agents are spec strings (agents/registry.py, your own bot as ``FILE.py:NAME`` or
``MODULE:NAME``) or, from Python, objects: an Agent, an agent factory or a function
``(game) -> action``. Objects reach the workers pickled once per worker; one that cannot
be pickled, or that lives in an interactive session's ``__main__`` (which workers cannot
import), makes the runner play every game in this process, with a warning. Every seat
plays a deep copy of an object (one that cannot be copied plays a single seat itself).

Forfeits. An agent that raises, answers something that is not a legal action (R10.1),
changes the game it was shown, or takes longer than ``move_time_limit`` seconds for a
move, forfeits: its seat loses that game, ranked last (win 0, no population or margin,
the reason in ``forfeit``, the game's decision number in ``forfeit_decision``), and from
that decision on the seat is played by the stand-in, which takes the first legal action
(the lowest action number of the engine's legal-action mask) and watches nothing. So the
game goes on for the others: their populations and margins are of the whole game, and
the win (R8.3) is decided among the seats that did not forfeit (`winners_among`). Every
row of a game with a stand-in lists the stand-in's seats in ``stand_in_seats``; the
summaries count the games with a stand-in per agent. The tournament goes on. The time
limit (default: none) is wall time per decision, a seat's first decision of each game
excepted (it may include one-time costs: numba compiling, a model loading). On Unix, in
a process's main thread, a move still running at the limit is interrupted (code in
Python is stopped at once, compiled code when it returns to Python); elsewhere the move
is measured when it returns. A move that never returns cannot be stopped and holds up
its worker.

Before a move is played, every other seat's agent that overrides ``observe``
(agents/base.py) is shown it, the goal choice excepted (R3.6: hidden); one that raises
there, changes the game or runs over the time limit forfeits in the same way.

Per agent the summary gives games, win rate with its 95% Wilson interval (a shared win
counts 1/winners, R8.3), mean and median final population, mean margin (own final
population minus the best other seat's), OpenSkill Plackett-Luce ratings ranked by
final population (standard mode), and the solo ladder ranks (R9.1; against Dale only
in games where Dale was beaten, R9.2).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import csv
import json
import math
import os
import pickle
import signal
import statistics
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from suburbia_env.arguments import ArgumentParser
from suburbia_env import Game
from suburbia_env.engine.constants import EDITION_NAMES
from suburbia_env.engine import state_layout as s
from suburbia_env.errors import ConfigError, SuburbiaError, shown
from suburbia_env.engine.scoring import LADDER, ladder_rank, winners_among

from .base import observers
from .registry import AGENT_SPECS, agent_name, allow_pickle_in_spec, make_agent
from .statistics import wilson_interval

MODES = ("dale", "solitary", "standard")
DALE_LABEL = "Dale (engine)"
NO_RANK = "no rank (Dale not beaten)"
FORFEITED = "forfeited"
FORFEITS_SHOWN = 10  # forfeit lines printed under a results table; all are in CSV and JSON
LADDER_TITLES = tuple(title for _, title in reversed(LADDER))  # lowest first
DEFAULT_WORKERS = 2
MAX_GAMES = 1_000_000  # per agent (solo modes) or in all (standard): the task list is built first
MAX_WORKERS = 64
MAX_RAY_GAMES_AT_ONCE = 100_000
BACKENDS = ("process", "ray")
CSV_FIELDS = ("table", "game", "seed", "mode", "seats", "seat", "agent", "spec", "first_player",
              "population", "reputation", "income", "money_left", "winner", "win",
              "best_other_population", "margin", "ladder_rank", "rounds", "decisions",
              "stand_in_seats", "forfeit_decision", "forfeit")
STAND_IN = "the first legal action"  # what plays a seat that forfeited (module docstring)


class TournamentError(RuntimeError):
    """A tournament that cannot be set up or whose agents cannot reach its workers."""


class MoveTimeout(BaseException):
    """Raised inside a move that runs over the time limit; a BaseException, so the agent's
    own `except Exception` does not swallow it."""


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


@dataclass
class TournamentResult:
    config: dict
    labels: list[str]
    specs: dict[str, str]
    rows: list[dict]
    records: list[dict] = field(default_factory=list)
    seconds: float = 0.0


# Setting up ---------------------------------------------------------------------------------

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


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in `seat` for the game seeded `game_seed`."""
    return int(np.random.SeedSequence([game_seed, seat]).generate_state(1)[0])


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


# Playing ------------------------------------------------------------------------------------

_WORKER_AGENTS: dict = {}
_WORKER_PAYLOAD: bytes | None = None  # the agent objects, pickled; loaded at first use
_WORKER_SOURCES: dict | None = None


def _init_worker(payload: bytes | None = None) -> None:
    """Worker start: one thread for numerical libraries (the cores are the workers); the
    agent objects are kept pickled, so that one that cannot be loaded here fails a game
    with its reason instead of the worker's start (which a pool would retry forever)."""
    global _WORKER_PAYLOAD
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"
    _WORKER_PAYLOAD = payload


def _worker_sources() -> dict:
    global _WORKER_SOURCES
    if _WORKER_SOURCES is None:
        try:
            _WORKER_SOURCES = pickle.loads(_WORKER_PAYLOAD) if _WORKER_PAYLOAD else {}
        except Exception as error:
            raise TournamentError(
                f"a worker process cannot load the agent objects ({_error_text(error)}): "
                f"define them in a module or file the workers can import (or name them as "
                f"'FILE.py:NAME'), or play with workers=1") from None
    return _WORKER_SOURCES


def _error_text(error: BaseException) -> str:
    text = " ".join(f"{type(error).__name__}: {error}".split())
    return text if len(text) <= 300 else text[:297] + "..."


def _copied(source, spec: str, alone: bool):
    """A deep copy of an agent object; the object itself if it cannot be copied and
    plays one seat only."""
    try:
        return copy.deepcopy(source)
    except Exception as error:
        if alone:
            return source
        raise TournamentError(f"agent {spec} fills several seats but cannot be copied "
                              f"({_error_text(error)}): give its class or a factory "
                              f"instead") from None


def _agent(spec: str, seat: int, cache: dict, sources: dict | None = None):
    """The agent of `spec` for `seat`, built once per process: every seat has its own
    instance, so two seats played by one spec never share a generator. An agent object
    (in `sources`) plays as a deep copy, so the object itself is left as it was."""
    if (spec, seat) not in cache:
        source = (sources or {}).get(spec, spec)
        if not isinstance(source, str):
            source = _copied(source, spec, not any(key[0] == spec for key in cache))
        cache[spec, seat] = make_agent(source, allow_code=True)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
    return cache[spec, seat]


def _win_value(seat: int, winners: list[int]) -> float:
    """1 for a sole winner; players who share the win share it (R8.3)."""
    return 1.0 / len(winners) if seat in winners else 0.0


@contextlib.contextmanager
def _stop_after(seconds: float | None):
    """Raise MoveTimeout in the block after `seconds`, where a timer signal can (Unix, the
    main thread, SIGALRM not used by anyone else); elsewhere do nothing."""
    if seconds is None or not hasattr(signal, "setitimer") \
            or threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        yield
        return

    def stop(signum, frame):
        raise MoveTimeout

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            signal.signal(signal.SIGALRM, previous)


def _move(agent, game: Game, limit: float | None):
    """(action, None), or (None, why the agent forfeits)."""
    return _guarded(agent.act, (game,), game, limit, "")


def _guarded(call, arguments: tuple, game: Game, limit: float | None, where: str):
    """(what `call` returned, None), or (None, why its agent forfeits): it raised, ran over
    `limit` seconds or changed `game` (`where` names the call in the reason)."""
    state, decisions = game.state.copy(), len(game.history)
    started = time.perf_counter()
    try:
        with _stop_after(limit):
            result = call(*arguments)
    except MoveTimeout:
        return None, f"{where}stopped after {limit:g} s (move time limit {limit:g} s)"
    except Exception as error:
        return None, f"{where}raised {_error_text(error)}"
    seconds = time.perf_counter() - started
    if limit is not None and seconds > limit:
        return None, f"{where}took {seconds:.3g} s (move time limit {limit:g} s)"
    if _put_back(game, state, decisions):
        return None, (f"changed the game it was shown{' in ' + where.strip() if where else ''}"
                      f" (look ahead on game.copy())")
    return result, None


def _put_back(game: Game, state: np.ndarray, decisions: int) -> bool:
    """Whether an agent changed `game` from (`state`, `decisions` moves); if so it is put
    back as it was."""
    if len(game.history) == decisions and np.array_equal(game.state, state):
        return False
    game.state[:] = state
    del game.history[decisions:]
    return True


def stand_in_action(game: Game) -> int:
    """The stand-in's decision for a seat that forfeited: the first legal action, read
    from the engine's legal-action mask (no rule is decided here)."""
    return int(game.legal_actions()[0])


def play_out(game: Game, agents: dict, move_time_limit: float | None = None,
             on_move=None, forfeited: dict | None = None) -> dict[int, tuple[int, str]]:
    """Play `game` to its end with `agents` (by seat); returns {seat: (decision, reason)}
    for every seat that forfeited (module docstring), whose decisions the stand-in took
    from then on. `on_move(seat, action, by_stand_in)` is called before each move is
    played; `forfeited` holds seats that forfeited before the game."""
    forfeited = {} if forfeited is None else forfeited
    playing = {seat: agent for seat, agent in agents.items() if seat not in forfeited}
    timed = set()  # seats past their first decision

    def forfeit(seat: int, problem: str) -> None:
        decision = len(game.history) + 1
        forfeited[seat] = (decision, f"at the game's decision {decision} (round "
                                     f"{game.round + 1}): {problem}")
        del playing[seat]

    while not game.is_over:
        seat = game.current_player
        if seat not in agents:
            raise TournamentError(f"seat {seat} decides but no agent plays it")
        number = None
        if seat in playing:
            action, problem = _move(playing[seat], game, move_time_limit
                                    if seat in timed else None)
            timed.add(seat)
            if problem is None:
                try:
                    number = game.action_number(action)
                    if not game.is_legal(number):
                        game.apply(number)  # refused, state untouched: the error names why
                except SuburbiaError as error:
                    problem = f"answered an illegal action {shown(action)}: {error}"
            if problem is not None:
                forfeit(seat, problem)
        stand_in = seat not in playing
        if stand_in:
            number = stand_in_action(game)
        for observer, problem in _show_move(game, number, playing, move_time_limit, timed):
            forfeit(observer, problem)
        if on_move is not None:
            on_move(seat, number, stand_in)
        game.apply(number)
    return forfeited


def _play(task: GameTask, game: Game, agents: dict) -> dict[int, tuple[int, str]]:
    """Reset the agents for the game, then play it out (`play_out`)."""
    forfeited = {}
    for seat, agent in agents.items():
        try:
            agent.reset(agent_seed(task.seed, seat))
        except Exception as error:
            forfeited[seat] = (1, f"reset before the game raised {_error_text(error)}")
    try:
        return play_out(game, agents, task.move_time_limit, forfeited=forfeited)
    except TournamentError as error:
        raise TournamentError(f"game {task.index} (seed {task.seed}): {error}") from None


def _show_move(game: Game, action: int, agents: dict, limit: float | None,
               timed: set) -> list[tuple[int, str]]:
    """Show the move to the agents that observe it (agents/base.py `observers`), each under
    the move time limit once past its first decision; (seat, why) of each that forfeits
    there (the others are still shown the move)."""
    failed = []
    for seat, observe in observers(agents, game):
        _, problem = _guarded(observe, (game, action, seat), game,
                              limit if seat in timed else None, "observe ")
        if problem is not None:
            failed.append((seat, problem))
    return failed


def play_game(task: GameTask, cache: dict | None = None, sources: dict | None = None) -> dict:
    """Play one game of a tournament; returns {"table", "rows", "record"}.

    The rows hold one entry per seat (Dale's seat included in mode "dale"); a seat that
    forfeits loses and the stand-in plays it to the end (module docstring). `sources`
    maps the keys of agent objects to them (in a worker: the objects it was started with).
    """
    cache = _WORKER_AGENTS if cache is None else cache
    sources = _worker_sources() if sources is None else sources
    game = Game(task.players, task.mode, task.edition, task.seed)
    agents = {seat: _agent(spec, seat, cache, sources)
              for seat, (_, spec) in enumerate(task.lineup)}
    first_player = int(game.state[s.FIRST_PLAYER])
    forfeited = _play(task, game, agents)
    solo = task.mode == "solitary"
    scores = game.final_scores()
    standing = [seat for seat in range(game.num_seats) if seat not in forfeited]
    winners = winners_among(game.state, standing) if forfeited else game.winners
    stand_ins = sorted(forfeited) or None
    rows = []
    for seat in range(game.num_seats):
        label, spec = task.lineup[seat] if seat in agents else (DALE_LABEL, "engine")
        row = dict.fromkeys(CSV_FIELDS)  # the columns in order; a forfeit leaves scores None
        row.update({"table": task.table, "game": task.index, "seed": task.seed,
                    "mode": task.mode, "seats": game.num_seats, "seat": seat, "agent": label,
                    "spec": spec, "first_player": first_player, "rounds": game.round,
                    "decisions": len(game.history), "stand_in_seats": stand_ins,
                    "winner": seat in winners,
                    "win": None if solo else _win_value(seat, winners)})
        if seat in forfeited:
            row["forfeit_decision"], row["forfeit"] = forfeited[seat]
        else:
            score = scores[seat]
            others = [scores[k]["population"] for k in standing if k != seat]
            best_other = max(others) if others else None
            rank = None
            if solo or (task.mode == "dale" and seat == 0 and winners == [0]):
                rank = ladder_rank(score["population"])
            row.update({
                "population": score["population"], "reputation": score["reputation"],
                "income": score["income"], "money_left": score["money_left"],
                "best_other_population": best_other,
                "margin": None if best_other is None else score["population"] - best_other,
                "ladder_rank": rank})
        rows.append(row)
    return {"table": task.table, "rows": rows,
            "record": game.record() if task.keep_record else None}


def _worker_payload(sources: dict) -> tuple[bytes | None, str | None]:
    """The agent objects pickled for the workers, or why they cannot go there."""
    try:
        payload = pickle.dumps(sources)
    except Exception as error:
        return None, (f"the agent objects cannot be sent to worker processes "
                      f"({_error_text(error)}): define them at the top level of a module or "
                      f"file, or name them as 'FILE.py:NAME'")
    main = sys.modules.get("__main__")
    if b"__main__" in payload and not getattr(main, "__file__", None):
        return None, ("the agent objects are defined in an interactive session (__main__), "
                      "which worker processes cannot import: define them in a file and name "
                      "them as 'FILE.py:NAME', or import them from it")
    return payload, None


def play_tasks(tasks: list[GameTask], specs: list, mode: str,
               workers: int = DEFAULT_WORKERS, progress: bool = True,
               description: str | None = None, backend: str = "process",
               address: str | None = None) -> tuple[list[dict], list[tuple[int, dict]], float]:
    """Play every task, `workers` processes in parallel (1: in this process), or with
    backend "ray" as Ray tasks, `workers` games at once on the cluster at `address` (a
    local Ray instance without one; agents/ray_games.py); returns the seat rows in table
    order, the kept (table, record) pairs and the seconds taken. The rows do not depend
    on the backend or the number of workers.

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
            from .ray_games import play_on_ray
            outcomes = play_on_ray(tasks, payload, workers, address, bar.update)
        elif workers <= 1 or len(tasks) == 1:
            for task in tasks:
                outcomes.append(play_game(task, local_cache, sources))
                bar.update()
        else:
            import multiprocessing
            context = multiprocessing.get_context("spawn")
            pool = context.Pool(min(workers, len(tasks)), initializer=_init_worker,
                                initargs=(payload,))
            try:
                for outcome in pool.imap_unordered(play_game, tasks):
                    outcomes.append(outcome)
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


# Summaries ----------------------------------------------------------------------------------

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


# Files ------------------------------------------------------------------------------------

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


# Command line -------------------------------------------------------------------------------

def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=BACKENDS, default="process",
                        help="process: games in local processes (default); ray: games as Ray "
                             "tasks on a Ray cluster, --workers games at once (needs "
                             "pip install -e \".[distributed]\"); same results for the same "
                             "seeds")
    parser.add_argument("--address", default=None, metavar="HOST:PORT",
                        help="with --backend ray: the Ray cluster's head, or 'auto' for the "
                             "cluster this machine belongs to (default: a Ray instance "
                             "started on this machine for the run)")
    from .ray_session import add_insecure_argument
    add_insecure_argument(parser)


def add_time_limit_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--move-time-limit", type=float, default=None, metavar="SECONDS",
                        help="an agent whose decision takes longer forfeits the game: a number "
                             "above 0; a seat's first decision of each game is not timed "
                             "(default: no limit)")


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--agents", nargs="+", default=["greedy", "dale", "random"],
                        metavar="SPEC", help=f"agent specs: {', '.join(AGENT_SPECS)} "
                        "(FILE.py:NAME, MODULE:NAME: your own Agent, agent factory or function "
                        "(game) -> action; default: greedy dale random)")
    parser.add_argument("--mode", choices=MODES, default="dale",
                        help="dale: each agent alone against Dale (R9.2); solitary: alone "
                             "(R9.1); standard: the agents at one table (default dale)")
    parser.add_argument("--players", type=int, default=None,
                        help="seats in standard mode, 2-4 (default: number of agents, at most 4)")
    parser.add_argument("--games", type=int, default=100,
                        help=f"games, 1..{MAX_GAMES} (per agent in the solo modes; default 100)")
    parser.add_argument("--seed", type=int, default=0,
                        help="game i uses seed SEED+i, 0..2**63-1 (default 0)")
    parser.add_argument("--edition", choices=("2nd", "1st"), default="2nd",
                        help="stack layout: 2nd (default) or 1st (R3.2, R3.3)")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS,
                        help=f"parallel processes, 1..{MAX_WORKERS} (1: in this process), or "
                             f"games at once with --backend ray (default {DEFAULT_WORKERS})")
    add_backend_arguments(parser)
    parser.add_argument("--output-dir", type=Path, default=Path("runs/strength"),
                        help="where results.csv, summary.json and populations.png go "
                             "(default runs/strength)")
    parser.add_argument("--records", action="store_true",
                        help="also write every game's record (replayable, suburbia replay)")
    add_time_limit_argument(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--allow-pickle", action="store_true",
                        help="let ppo agents load pickled stable-baselines3 .zip models, which "
                             "runs code stored in the file (trusted files only)")
    return parser


def run_from_arguments(arguments: argparse.Namespace, out=None) -> dict:
    out = out or sys.stdout
    agents = list(arguments.agents)
    if getattr(arguments, "allow_pickle", False):  # the permission travels in the specs
        agents = [allow_pickle_in_spec(spec) for spec in agents]
    try:
        result = run_tournament(agents, arguments.mode, arguments.games,
                                arguments.players, arguments.seed, arguments.edition,
                                arguments.workers, not arguments.no_progress, arguments.records,
                                getattr(arguments, "move_time_limit", None),
                                getattr(arguments, "backend", "process"),
                                getattr(arguments, "address", None))
    except (ConfigError, ValueError, OSError, TournamentError) as error:
        raise SystemExit(f"error: {error}") from None
    summary = summarise(result.rows, result.labels, result.config["mode"])
    print(format_summary(summary, result.config), file=out)
    paths = write_outputs(result, summary, arguments.output_dir)
    print(f"{len(result.rows)} seat results in {result.seconds:.1f} s; wrote "
          + ", ".join(str(path) for path in paths.values()), file=out)
    return summary


def main(argv: list[str] | None = None) -> dict:
    parser = add_arguments(ArgumentParser(
        prog="strength", description="Play a seeded tournament between agents and summarise it."))
    return run_from_arguments(parser.parse_args(argv))
