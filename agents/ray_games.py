"""The Ray backend of the tournament runner: the games of `play_tasks`
(agents/tournament.py) as Ray tasks spread over a cluster, instead of local processes.

Each game is the same `play_game` call as in a local worker, and its agents are reseeded
from the game's seed, so the rows are exactly those of the local runner for the same
seeds, whichever node plays a game and in whatever order the games finish. Agents are
built once per Ray worker process and tournament; agent objects (not specs) travel
pickled, as to local workers. Spec files (models, bots) are read on the node that plays
the game, so on a cluster every node needs them at the same path.
"""

from __future__ import annotations

import uuid

from suburbia_env.errors import SuburbiaError

from . import tournament_games as games
from .ray_session import import_ray, ray_session
from .tournament_tasks import TournamentError

_TOURNAMENT: str | None = None  # the tournament this Ray worker's agents were built for


def _play_on_worker(task, tournament: str, payload: bytes | None) -> dict:
    """Runs in a Ray worker: one game, with the worker's agents for this tournament."""
    global _TOURNAMENT
    if _TOURNAMENT != tournament:
        games._WORKER_AGENTS.clear()
        games._WORKER_SOURCES = None
        games._init_worker(payload)
        _TOURNAMENT = tournament
    return games.play_game(task)


def play_on_ray(tasks: list, payload: bytes | None, in_flight: int, address: str | None,
                on_outcome) -> list[dict]:
    """Play `tasks` on Ray, at most `in_flight` games at once; `on_outcome()` is called
    after each game (progress). Returns the outcomes in the order they finished."""
    ray = import_ray()
    with ray_session(address):
        remote = ray.remote(num_cpus=1)(_play_on_worker)
        tournament = uuid.uuid4().hex
        payload_ref = ray.put(payload)
        pending, outcomes, queued = [], [], iter(tasks)
        try:
            for task in queued:
                pending.append(remote.remote(task, tournament, payload_ref))
                while len(pending) >= in_flight:
                    done, pending = ray.wait(pending, num_returns=1)
                    outcomes += ray.get(done)
                    on_outcome()
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                outcomes += ray.get(done)
                on_outcome()
        except ray.exceptions.RayTaskError as error:
            for reference in pending:
                ray.cancel(reference)
            cause = getattr(error, "cause", None)
            if isinstance(cause, (TournamentError, SuburbiaError)):
                raise cause from None
            raise TournamentError(f"a game on Ray failed: {str(cause or error)[:300]}") from None
    return outcomes
