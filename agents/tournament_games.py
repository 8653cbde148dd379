"""One game of a tournament, played where a worker plays it: its agents built once per
process (from specs, or the objects sent to the worker), and its seat rows."""

from __future__ import annotations

import copy
import os
import pickle
import sys

from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.scoring import ladder_rank, winners_among

from .registry import make_agent
from .table import SeatingError, Table, error_text
from .tournament_tasks import GameTask, TournamentError

DALE_LABEL = "Dale (engine)"
CSV_FIELDS = ("table", "game", "seed", "mode", "seats", "seat", "agent", "spec", "first_player",
              "population", "reputation", "income", "money_left", "winner", "win",
              "best_other_population", "margin", "ladder_rank", "rounds", "decisions",
              "stand_in_seats", "forfeit_decision", "forfeit")
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
                f"a worker process cannot load the agent objects ({error_text(error)}): "
                f"define them in a module or file the workers can import (or name them as "
                f"'FILE.py:NAME'), or play with workers=1") from None
    return _WORKER_SOURCES


def _copied(source, spec: str, alone: bool):
    """A deep copy of an agent object; the object itself if it cannot be copied and
    plays one seat only."""
    try:
        return copy.deepcopy(source)
    except Exception as error:
        if alone:
            return source
        raise TournamentError(f"agent {spec} fills several seats but cannot be copied "
                              f"({error_text(error)}): give its class or a factory "
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


def _play(task: GameTask, game: Game, agents: dict) -> dict[int, tuple[int, str]]:
    """Seat the agents at a table, reseed them for the game and play it out."""
    table = Table(agents, task.move_time_limit)
    table.reseed(task.seed)
    try:
        return table.play_out(game)
    except SeatingError as error:
        raise TournamentError(f"game {task.index} (seed {task.seed}): {error}") from None


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
                      f"({error_text(error)}): define them at the top level of a module or "
                      f"file, or name them as 'FILE.py:NAME'")
    main = sys.modules.get("__main__")
    if b"__main__" in payload and not getattr(main, "__file__", None):
        return None, ("the agent objects are defined in an interactive session (__main__), "
                      "which worker processes cannot import: define them in a file and name "
                      "them as 'FILE.py:NAME', or import them from it")
    return payload, None


LOCKSTEP_WIDTH = 8
"""Games of a block played at once by `play_games_in_lockstep`."""


def play_games_in_lockstep(tasks: list[GameTask], width: int = LOCKSTEP_WIDTH,
                           cache_slots: list | None = None,
                           sources: dict | None = None) -> list[dict]:
    """`play_game` for each task, up to `width` games at a time with the forward passes
    of their searching agents merged (agents/lockstep.py): the same games, seat rows and
    records as one game after another, for less processor time per game. Each running
    game has its own agents (a cache per slot, kept in `cache_slots` for the next call);
    the agents of one spec share that spec's network."""
    from .lockstep import LockstepPolicy, play_in_lockstep
    from .value_search import ValueSearchAgent
    sources = _worker_sources() if sources is None else sources
    free = _LOCKSTEP_SLOTS if cache_slots is None else cache_slots
    networks: dict = {}

    def play(task: GameTask) -> dict:
        cache = free.pop() if free else {}
        try:
            for seat, (_, spec) in enumerate(task.lineup):
                agent = _agent(spec, seat, cache, sources)
                if isinstance(agent, ValueSearchAgent):
                    model = agent.policy_agent.model
                    if isinstance(model.policy, LockstepPolicy):
                        model.policy = model.policy.policy
                    model.policy = LockstepPolicy(networks.setdefault(spec, model.policy))
            return play_game(task, cache, sources)
        finally:
            free.append(cache)

    return play_in_lockstep((lambda task=task: play(task) for task in tasks),
                            max(1, min(width, len(tasks))))


_LOCKSTEP_SLOTS: list = []
"""The agent caches of `play_games_in_lockstep` in this process, one per running game."""
