"""One runner for a batch of games: what the Gymnasium (a batch of one), vector and
self-play environments share.

The runner owns the games' buffers (env_core.Games, Outcomes), the environment's settings and
the compiled calls: reset, the learner's step with the compiled opponents and the
reward (env_core.py), the batch checked whole before any game moves, the external seats
(Python policies, snapshots of a learner) played through a `choose` callback the
environment supplies, and the errors of misuse, the same from every environment. The
environments keep only what their API adds: seeding, spaces, infos, copies.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, Sequence

import numba
import numpy as np

from ..engine import action_space as a
from ..engine import state_layout as s
from ..engine.compiled_call import compiled_entry_point
from ..engine.env_core import (STEP_TERMINATED, Games, Outcomes, Settings, Tables,
                               finish_game_step, reset_batch, reset_batch_serial,
                               reset_game, step_batch, step_batch_serial, step_game,
                               step_game_action_last)
from ..engine.external_seats import apply_external_rows, finish_game_steps
from ..errors import ConfigError, GameOverError, IllegalActionError, shown
from ..engine.event_log import new_log
from ..game import Game, GameConfig
from ..engine.observation import OBSERVATION_SIZE, new_encoding_cache
from ..engine.tile_data import GOALS, TILES

ENGINE_TABLES = Tables(TILES.table, GOALS.table, TILES.basic_kinds)


def new_games(num_games: int, players: int, learner: int, opponent_kinds: np.ndarray) -> Games:
    """Zeroed buffers of `num_games` games of `players` seats, the learner in seat
    `learner` and the opponents `opponent_kinds` (OPPONENT_* per seat) in every game."""
    return Games(
        players=np.full(num_games, players, dtype=np.int32),
        states=np.zeros((num_games, s.STATE_SIZE), dtype=np.int32),
        learners=np.full(num_games, learner, dtype=np.int32),
        opponent_kinds=np.tile(np.asarray(opponent_kinds, dtype=np.int32), (num_games, 1)),
        rng_words=np.zeros((num_games, 4), dtype=np.int32),
        populations_before=np.zeros(num_games, dtype=np.int32),
        observations=np.zeros((num_games, OBSERVATION_SIZE), dtype=np.float32),
        encoded=np.tile(new_encoding_cache(), (num_games, 1)),
        masks=np.zeros((num_games, a.NUM_ACTIONS), dtype=np.bool_))


def new_outcomes(num_games: int) -> Outcomes:
    """Zeroed outcome buffers of `num_games` games."""
    return Outcomes(
        rewards=np.zeros(num_games, dtype=np.float64),
        terminated=np.zeros(num_games, dtype=np.bool_),
        results=np.zeros(num_games, dtype=np.int32),
        final_observations=np.zeros((num_games, OBSERVATION_SIZE), dtype=np.float32),
        final_populations=np.zeros((num_games, 4), dtype=np.int32),
        final_winners=np.zeros((num_games, 4), dtype=np.int32))


def check_action_batch(actions, num_games: int) -> np.ndarray:
    """`num_games` integer actions as int64; IllegalActionError naming what was given.
    A number beyond int64 becomes -1, refused as illegal at its own index."""
    given = actions
    try:
        actions = np.asarray(actions)
    except (ValueError, TypeError, OverflowError):  # ragged lists, unconvertible items
        raise IllegalActionError(f"actions must be {num_games} integers, not "
                                 f"{shown(given)}") from None
    if actions.shape != (num_games,) or actions.dtype.kind not in "iu":
        raise IllegalActionError(f"actions must be {num_games} integers, not an array of "
                                 f"shape {actions.shape} and dtype {actions.dtype}")
    if actions.dtype == np.uint64 and actions.max() > np.iinfo(np.int64).max:
        actions = np.where(actions > np.iinfo(np.int64).max, np.int64(-1),
                           actions.astype(np.int64, casting="unsafe"))
    return actions.astype(np.int64)


def illegal_reason(config: GameConfig, state: np.ndarray, action: int) -> str:
    """Why `action` is not legal in `state` (the rule it breaks, or its range)."""
    if 0 <= action < a.NUM_ACTIONS:
        if config.seats != state[s.NUM_PLAYERS]:  # self-play mixes player counts
            config = GameConfig(int(state[s.NUM_PLAYERS]), "standard", config.edition)
        return Game.view(config, state)._illegal_reason(action)
    return f"action {shown(action)} is outside 0..{a.NUM_ACTIONS - 1}"


class EnvRunner:
    """Reset, step, opponents and rewards of a batch of games (see the module docstring).

    `opponent_kinds` holds OPPONENT_* per seat (OPPONENT_EXTERNAL: the environment's
    `choose` callback decides that seat); `learner` is the seat of every game's learner
    until the environment sets `games.learners` itself or `random_seats` draws it.
    """

    def __init__(self, num_games: int, config: GameConfig, opponent_kinds: np.ndarray,
                 reward_scheme: int, population_shaping: float, learner: int = 0,
                 random_seats: bool = False, autoreset: bool = False, num_threads: int = 1):
        self.config = config
        self.tables = ENGINE_TABLES
        self.settings = Settings(int(config.mode_id), int(config.edition_id),
                                 int(config.random_private_goals), bool(random_seats),
                                 int(reward_scheme), float(population_shaping), bool(autoreset))
        self.games = new_games(num_games, config.seats, learner, opponent_kinds)
        self.outcomes = new_outcomes(num_games)
        self.num_threads = num_threads
        self.num_chunks = max(1, min(num_games, num_threads))
        self.started = False
        self._actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
        self._log = new_log(0)
        self._entry_points: dict = {}

    @property
    def num_games(self) -> int:
        return self.games.states.shape[0]

    # Buffers -----------------------------------------------------------------------------

    def replace_buffer(self, name: str, value) -> None:
        """Replace one buffer of `games` by an array of the same type: the compiled entry
        points trust the buffers' types (compiled_call.py), so anything else is refused
        before it reaches compiled code."""
        bundle = "games" if name in Games._fields else "outcomes"
        current = getattr(getattr(self, bundle), name)
        if not (isinstance(value, np.ndarray) and value.dtype == current.dtype
                and value.shape == current.shape and value.flags.c_contiguous
                and value.flags.writeable and value.flags.aligned):
            raise ConfigError(f"{name} must stay a writeable C-contiguous {current.dtype} array "
                              f"of shape {current.shape}: write into it instead")
        setattr(self, bundle, getattr(self, bundle)._replace(**{name: value}))

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_entry_points"] = {}  # machine code does not pickle; resolved again on use
        return state

    def _entry_point(self, kernel, arguments):
        entry_point = self._entry_points.get(kernel)
        if entry_point is None:
            entry_point = self._entry_points[kernel] = compiled_entry_point(kernel, arguments)
        return entry_point

    # Reset -------------------------------------------------------------------------------

    def reset_game(self, index: int, game_seed: np.ndarray) -> None:
        """New game `index` dealt from four seed words (its players, learner and opponents
        as set in `games`); compiled opponents play up to the learner or an external seat."""
        arguments = (self.tables, self.settings, self.games, int(index), game_seed,
                     self._actions, self._log)
        self._entry_point(reset_game, arguments)(*arguments)
        self.started = True

    def reset_all(self) -> None:
        """Every game anew, each dealt from its own generator (`games.rng_words`)."""
        self._run_batch(reset_batch, reset_batch_serial, self.tables, self.settings,
                        self.games)
        self.started = True

    # Learner steps -----------------------------------------------------------------------

    def step_game(self, index: int, action: int) -> tuple[float, int]:
        """The learner's action in game `index`: (reward, STEP_* result); STEP_ILLEGAL and
        STEP_GAME_OVER leave the game untouched, STEP_WAITING waits on `play_external`."""
        return self._step_entry_point()(self.tables, self.settings, self.games, index, action,
                                        self._actions, self._log)

    def step_call(self, index: int) -> Callable[[int], tuple[float, int]]:
        """`step_game` of game `index` as a call of the action alone, for a hot path that
        calls the machine code itself (the Gymnasium env): the entry point with every
        other argument bound once. Valid while no buffer is replaced (`replace_buffer`)."""
        return partial(self._entry_point(step_game_action_last, (
            self.tables, self.settings, self.games, 0, self._actions, self._log, 0)),
            self.tables, self.settings, self.games, int(index), self._actions, self._log)

    def _step_entry_point(self):
        """`step_game`'s entry point, resolved for integer actions whatever the first is."""
        return self._entry_point(step_game, (self.tables, self.settings, self.games, 0, 0,
                                             self._actions, self._log))

    def step_all(self, actions) -> int:
        """One learner action per game, the batch checked whole first (an illegal action
        or a finished game anywhere: IllegalActionError naming the game, nothing moves);
        rewards, results and ends in `outcomes`. Returns how many games finished."""
        if not self.started:
            raise GameOverError("call reset() before step()")
        given = actions
        actions = check_action_batch(actions, self.num_games)
        illegal, finished = self._run_batch(step_batch, step_batch_serial, self.tables,
                                            self.settings, self.games, self.outcomes, actions)
        if illegal >= 0:
            state = self.games.states[illegal]
            action = int(actions[illegal])
            if state[s.GAME_OVER]:
                reason = "the game is over"
            elif 0 <= action < a.NUM_ACTIONS:
                reason = illegal_reason(self.config, state, action)
            else:  # the number given, before a uint64 beyond int64 became -1
                reason = (f"action {shown(int(np.asarray(given)[illegal]))} is outside "
                          f"0..{a.NUM_ACTIONS - 1}")
            raise IllegalActionError(f"environment {illegal}: {reason} (no game was stepped)")
        return finished

    def _run_batch(self, parallel_kernel, serial_kernel, *arguments):
        """One compiled call: the serial kernel for one chunk, else prange over chunks.
        Each kernel is called through its entry point (compiled_call.py)."""
        if self.num_chunks == 1:
            return self._entry_point(serial_kernel, arguments)(*arguments)
        arguments = (*arguments, self.num_chunks)
        entry_point = self._entry_point(parallel_kernel, arguments)
        previous = numba.get_num_threads()
        numba.set_num_threads(min(self.num_threads, numba.config.NUMBA_NUM_THREADS))
        try:
            return entry_point(*arguments)
        finally:
            numba.set_num_threads(previous)

    # External seats ----------------------------------------------------------------------

    def waiting_on_external(self, indices: Sequence[int]) -> np.ndarray:
        """The games of `indices` (in their order) whose current seat is an external one."""
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        states = self.games.states[indices]
        return indices[(states[:, s.GAME_OVER] == 0)
                       & (states[:, s.CURRENT_PLAYER] != self.games.learners[indices])]

    def play_external(self, indices: Sequence[int],
                      choose: Callable[[np.ndarray], Sequence[int]]) -> None:
        """External seats of the games `indices` decide until each game waits on its
        learner or is over: `choose(waiting games)` gives one action per waiting game
        (the seat to act is each state's current player), all applied in one compiled
        call in which compiled opponents play in between. Then each such game's step is
        finished in one compiled call: reward and result in `outcomes`."""
        waiting = self.waiting_on_external(indices)
        played = waiting
        while waiting.size:
            answers = choose(waiting)
            if not isinstance(answers, np.ndarray):
                answers = list(answers)
            if len(answers) != waiting.size:
                raise IllegalActionError(f"{waiting.size} external seats were to act, "
                                         f"{len(answers)} actions came")
            chosen = self._external_actions(answers)
            arguments = (self.tables, self.games, waiting, chosen, self._actions, self._log)
            illegal = self._entry_point(apply_external_rows, arguments)(*arguments)
            if illegal >= 0:
                self._refuse_external(int(waiting[illegal]), answers[illegal])
            waiting = self.waiting_on_external(waiting)
        if played.size:
            arguments = (self.tables, self.settings, self.games, self.outcomes, played,
                         self._actions)
            self._entry_point(finish_game_steps, arguments)(*arguments)

    @staticmethod
    def _external_actions(answers) -> np.ndarray:
        """`choose`'s answers as a new int64 array (the types the compiled call was
        resolved for), anything not an int64 action number as -1, refused as illegal."""
        if isinstance(answers, np.ndarray) and answers.dtype == np.int64:
            return np.array(answers, dtype=np.int64)
        numbers = [int(action) if a.is_action_integer(action) else -1 for action in answers]
        return np.array([number if -2**63 <= number < 2**63 else -1 for number in numbers],
                        dtype=np.int64)

    def _refuse_external(self, index: int, action) -> None:
        seat = int(self.games.states[index, s.CURRENT_PLAYER])
        number = int(action) if a.is_action_integer(action) else -1
        reason = illegal_reason(self.config, self.games.states[index], number)
        where = f"environment {index}: " if self.num_games > 1 else ""
        raise IllegalActionError(f"{where}opponent in seat {seat} chose an illegal "
                                 f"action: {reason}")

    def finish_step(self, index: int) -> tuple[float, int]:
        """Reward and outputs of game `index` once its learner decides again or it is over
        (also after a reset with external seats, to write the learner's outputs)."""
        reward, result = finish_game_step(self.tables, self.settings, self.games, index,
                                          self._actions)
        self.outcomes.rewards[index] = reward
        self.outcomes.results[index] = result
        self.outcomes.terminated[index] = result == STEP_TERMINATED
        return reward, result

    def population(self, index: int) -> int:
        """The learner's population in game `index` (R8.1)."""
        return int(s.population(self.games.states[index], int(self.games.learners[index])))

