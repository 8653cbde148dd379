"""One table of agents at a game: the loop that seats them, reseeds them, asks the mover
for its decision under the move time limit, shows every move to the agents that observe
it and hands a seat that forfeits to the stand-in (agents/tournament.py's docstring)."""

from __future__ import annotations

import contextlib
import signal
import threading
import time

import numpy as np

from suburbia_env import Game
from suburbia_env.errors import SuburbiaError, shown

from .base import observers
from .tournament_tasks import TournamentError

STAND_IN = "the first legal action"  # what plays a seat that forfeited (module docstring)


class MoveTimeout(BaseException):
    """Raised inside a move that runs over the time limit; a BaseException, so the agent's
    own `except Exception` does not swallow it."""


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in `seat` for the game seeded `game_seed`."""
    return int(np.random.SeedSequence([game_seed, seat]).generate_state(1)[0])


def _error_text(error: BaseException) -> str:
    text = " ".join(f"{type(error).__name__}: {error}".split())
    return text if len(text) <= 300 else text[:297] + "..."


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
