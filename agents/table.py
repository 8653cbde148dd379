"""One table of agents at a game: the one loop of tournaments, the recording of
demonstrations (training/imitation.py), the web's bots and the terminal's.

A `Table` seats agents (by seat) and reseeds them for a game: an agent that draws at
random is reset with `agent_seed(game seed, seat)`, so a game's result does not depend
on who plays it where or in what order. It asks the mover's agent for its decision and,
before each move is played, shows it to every other seat's agent that overrides
`observe` (agents/base.py `observers`), the goal choice excepted (R3.6: hidden).

Forfeits. An agent that raises, answers something that is not a legal action (R10.1),
changes the game it was shown, or takes longer than the move time limit for a decision
or for watching a move, forfeits: from that decision on the stand-in plays its seat,
taking the first legal action (the lowest action number of the engine's legal-action
mask) and watching nothing, so the game goes on for the others (whose win is decided
among the seats that did not forfeit, `scoring.winners_among`, R8.3). The time limit
(default: none) is wall time per decision, a seat's first decision excepted (it may
include one-time costs: numba compiling, a model loading). On Unix, in a process's main
thread, a move still running at the limit is interrupted (code in Python at once,
compiled code when it returns to Python); elsewhere it is measured when it returns.

A table is played to the end (`play_out`: tournaments, demonstrations) or one decision
at a time (`step`: the terminal, between a person's moves, which it shows with
`show_or_forfeit`). The web's bots think on a copy on their own thread and pause, not
forfeit, when one fails: they use the parts, `decision` and `show`.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from dataclasses import dataclass

import numpy as np

from suburbia_env import Game
from suburbia_env.errors import SuburbiaError, shown

from .base import observers

STAND_IN = "the first legal action"  # what plays a seat that forfeited (module docstring)


class SeatingError(SuburbiaError):
    """A seat decides but no agent sits there."""


class MoveTimeout(BaseException):
    """Raised inside a move that runs over the time limit; a BaseException, so the agent's
    own `except Exception` does not swallow it."""


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in `seat` for the game seeded `game_seed`."""
    return int(np.random.SeedSequence([game_seed, seat]).generate_state(1)[0])


def error_text(error: BaseException) -> str:
    """An exception as one line of at most 300 characters, as a forfeit's reason quotes it."""
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
        return None, f"{where}raised {error_text(error)}"
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



@dataclass(frozen=True)
class Move:
    """A decision a table took: the deciding `seat`, the action `number`, whether the
    stand-in took it, and the game's log of what it caused (`Game.apply`)."""

    seat: int
    number: int
    by_stand_in: bool
    events: list[str]


class Table:
    """The agents of a game's seats (by seat), with the seats that forfeited
    (`forfeited`: seat -> (the game's decision number, the reason)), played one decision
    at a time (`step`) or to the end (`play_out`); module docstring.

    `on_forfeit(seat, problem)` is told of each forfeit as it happens (the terminal tells
    the person). The table holds no game: each call is given the one to play, so that a
    caller may play a copy or set its game up again (an undo)."""

    def __init__(self, agents: dict, move_time_limit: float | None = None, on_forfeit=None):
        self.agents = dict(agents)
        self.move_time_limit = move_time_limit
        self.on_forfeit = on_forfeit
        self.forfeited: dict[int, tuple[int, str]] = {}
        self._timed: set[int] = set()  # seats past their first decision

    @property
    def playing(self) -> dict:
        """The agents of the seats that did not forfeit, by seat."""
        return {seat: agent for seat, agent in self.agents.items()
                if seat not in self.forfeited}

    def seat(self, seat: int, agent) -> None:
        """Seat `agent` at `seat` (the web seats a bot when it first decides)."""
        self.agents[seat] = agent

    def reseed(self, game_seed: int, seeds: dict[int, int] | None = None,
               seats=None) -> None:
        """Reset the agents (of `seats`; default every one playing) for the game seeded
        `game_seed`: each with `agent_seed(game_seed, seat)`, or `seeds[seat]` where given.
        An agent whose reset raises forfeits at the game's first decision."""
        seeds = seeds or {}
        for seat, agent in self.playing.items():
            if seats is not None and seat not in seats:
                continue
            try:
                agent.reset(seeds.get(seat, agent_seed(game_seed, seat)))
            except Exception as error:
                self._forfeit(seat, 1, f"reset before the game raised {error_text(error)}")

    def decision(self, game: Game) -> tuple[int | None, str | None]:
        """(the mover's legal action number, None), or (None, why its agent forfeits): it
        raised, answered something that is not a legal action (R10.1), changed `game` or
        ran over the time limit, its seat's first decision excepted."""
        seat = game.current_player
        agent = self._agent_of(seat)
        action, problem = _guarded(agent.act, (game,), game, self._limit(seat), "")
        self._timed.add(seat)
        if problem is not None:
            return None, problem
        try:
            number = game.action_number(action)
            if not game.is_legal(number):
                game.apply(number)  # refused, state untouched: the error names why
        except SuburbiaError as error:
            return None, f"answered an illegal action {shown(action)}: {error}"
        return number, None

    def choose(self, game: Game) -> tuple[int, bool]:
        """The mover's action number and whether the stand-in chose it: the agent's
        decision, or the stand-in's once the seat has forfeited (then or before)."""
        seat = game.current_player
        self._agent_of(seat)
        if seat not in self.forfeited:
            number, problem = self.decision(game)
            if problem is not None:
                self.forfeit(game, seat, problem)
        if seat in self.forfeited:
            return stand_in_action(game), True
        return number, False

    def show(self, game: Game, number: int, seats=None) -> list[tuple[int, str]]:
        """Show the move `number` about to be played in `game` to the agents that observe
        it (agents/base.py `observers`: the other seats', never a goal choice, R3.6; of
        `seats` only, when given), each under the time limit once past its first decision;
        (seat, why) of each that failed there (raised, ran over, changed the game). The
        others are still shown the move."""
        agents = self.playing if seats is None else {
            seat: agent for seat, agent in self.playing.items() if seat in seats}
        failed = []
        for seat, observe in observers(agents, game):
            _, problem = _guarded(observe, (game, number, seat), game, self._limit(seat),
                                  "observe ")
            if problem is not None:
                failed.append((seat, problem))
        return failed

    def show_or_forfeit(self, game: Game, number: int) -> None:
        """`show` the move; an agent that fails there forfeits."""
        for seat, problem in self.show(game, number):
            self.forfeit(game, seat, problem)

    def step(self, game: Game, on_move=None) -> Move:
        """Take the mover's decision (`choose`), show it to the observers, then play it;
        `on_move(seat, number, by_stand_in)` is called just before it is played."""
        seat = game.current_player
        number, by_stand_in = self.choose(game)
        self.show_or_forfeit(game, number)
        if on_move is not None:
            on_move(seat, number, by_stand_in)
        return Move(seat, number, by_stand_in, game.apply(number))

    def play_out(self, game: Game, on_move=None) -> dict[int, tuple[int, str]]:
        """Play `game` to its end (`step`); returns `forfeited`."""
        while not game.is_over:
            self.step(game, on_move)
        return self.forfeited

    def forfeit(self, game: Game, seat: int, problem: str) -> None:
        """`seat` forfeits at `game`'s next decision: the stand-in plays it from now on."""
        decision = len(game.history) + 1
        self._forfeit(seat, decision, f"at the game's decision {decision} (round "
                                      f"{game.round + 1}): {problem}", problem)

    def _forfeit(self, seat: int, decision: int, reason: str,
                 problem: str | None = None) -> None:
        self.forfeited[seat] = (decision, reason)
        if self.on_forfeit is not None:
            self.on_forfeit(seat, problem or reason)

    def _agent_of(self, seat: int):
        if seat not in self.agents:
            raise SeatingError(f"seat {seat} decides but no agent plays it")
        return self.agents[seat]

    def _limit(self, seat: int) -> float | None:
        return self.move_time_limit if seat in self._timed else None
