"""Batched vector environment: N games stepped by one compiled call (numba prange).

| property          | value                                                              |
|-------------------|--------------------------------------------------------------------|
| class             | `SuburbiaVectorEnv(num_envs, ...)`, a `gymnasium.vector.VectorEnv`; also `gymnasium.make_vec("Suburbia-v1", num_envs, ...)` (the registered vector entry point) |
| spaces            | single spaces as SuburbiaEnv (gym_env.py); batched along axis 0    |
| options           | players, mode, edition, opponents ("dale" or "random": compiled only), reward, population_shaping, learner_seat (int or "random"), random_private_goals, observation_format, num_threads |
| autoreset         | same step: a finished game is reset at once; its last observation is in `infos["final_obs"]` where `infos["_final_obs"]` is set (other rows: zeros with `copy=True`, stale with `copy=False`), with `final_populations` and `final_winners` (per seat) and the `learner_seats` it was played with |
| action masks      | `action_masks()` -> bool[num_envs, 2123]; also in dict observations |
| illegal actions   | raise IllegalActionError naming the environment; checked for the whole batch first, so no game moves |
| copy              | `copy=True` (default, as gymnasium's vector envs): observations, masks and infos are fresh arrays; `copy=False`: the env's own buffers, overwritten by the next step (fastest; read them, do not write them) |
| seeding           | `reset(seed=n)`: environment i draws its games from its own generator seeded from (n, i) |

Version history
---------------
- v1 (2026-11-25): the rules revision of SuburbiaEnv v1 (gym_env.py): a `keep` decision
  for the learner in mode "dale" (R9.2), Solitary fall-back +1/+1 (R9.1).
- v0: first release.
"""

from __future__ import annotations

import gymnasium as gym
import numba
import numpy as np
from gymnasium.vector.utils import batch_space

from . import action_space as a
from . import state_layout as s
from .compiled_call import compiled_entry_point
from .env_core import (REWARD_NAMES, vector_reset, vector_reset_serial, vector_step,
                       vector_step_serial)
from .errors import ArgumentError, ConfigError, IllegalActionError, shown
from .game import Game, GameConfig
from .gym_env import (check_choice, check_learner_seat, check_number, check_seed,
                      observation_spaces, resolve_opponents)
from .observation import OBSERVATION_SIZE, new_encoding_cache
from .rng import seed_words
from .tile_data import GOALS, TILES


_KERNEL_BUFFERS = frozenset({
    "states", "learners", "opponent_kinds", "rng_words", "observations", "encoded",
    "final_observations", "final_populations", "final_winners", "masks", "rewards",
    "terminated", "results"})


class SuburbiaVectorEnv(gym.vector.VectorEnv):
    __doc__ = __doc__
    metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 64, players: int = 1, mode: str = "dale",
                 edition: str = "2nd", opponents: str | list = "dale", reward: str = "win_loss",
                 population_shaping: float = 0.0, learner_seat: int | str = 0,
                 random_private_goals: bool = False, observation_format: str = "dict",
                 num_threads: int | None = None, copy: bool = True):
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ConfigError(f"num_envs must be a positive integer, not {shown(num_envs)}")
        if num_threads is not None and (not isinstance(num_threads, int)
                                        or isinstance(num_threads, bool) or num_threads < 1):
            raise ConfigError(f"num_threads must be None or a positive integer, "
                              f"not {shown(num_threads)}")
        self.config = GameConfig(players, mode, edition, bool(random_private_goals))
        self.seats = self.config.seats
        check_choice("reward", reward, REWARD_NAMES)
        learner_seat = check_learner_seat(learner_seat, self.seats, mode)
        kinds, external = resolve_opponents(opponents, self.seats)
        if external:
            raise ConfigError("the vector environment plays compiled opponents only "
                              "('dale' or 'random'); use SuburbiaEnv for Python policies")
        self.num_envs = num_envs
        self.reward_scheme = REWARD_NAMES.index(reward)
        self.population_shaping = check_number("population_shaping", population_shaping)
        self.random_seats = learner_seat == "random"
        self.observation_format = observation_format
        self.single_observation_space = observation_spaces(observation_format)
        self.single_action_space = gym.spaces.Discrete(a.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.num_threads = num_threads or numba.get_num_threads()
        self.num_chunks = max(1, min(num_envs, self.num_threads))
        self.states = np.zeros((num_envs, s.STATE_SIZE), dtype=np.int32)
        self.learners = np.full(num_envs, 0 if self.random_seats else learner_seat, np.int32)
        self.opponent_kinds = np.tile(kinds, (num_envs, 1))
        self.rng_words = seed_words(0, num_envs)
        self.copy = bool(copy)
        self.observations = np.zeros((num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self.encoded = np.tile(new_encoding_cache(), (num_envs, 1))
        self.final_observations = np.zeros_like(self.observations)
        self.final_populations = np.zeros((num_envs, 4), dtype=np.int32)
        self.final_winners = np.zeros((num_envs, 4), dtype=np.int32)
        self.masks = np.zeros((num_envs, a.NUM_ACTIONS), dtype=np.bool_)
        self.rewards = np.zeros(num_envs, dtype=np.float64)
        self.terminated = np.zeros(num_envs, dtype=np.bool_)
        self.results = np.zeros(num_envs, dtype=np.int32)
        self._started = False
        self._entry_points: dict = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed)
        if seed is not None:
            self.rng_words = seed_words(seed, self.num_envs)
        elif not self._started:
            self.rng_words = seed_words(int(np.random.SeedSequence().entropy % 2**63),
                                        self.num_envs)
        self._run_compiled(vector_reset, vector_reset_serial, self.states, TILES.table,
                           GOALS.table, TILES.basic_kinds, self.seats, self.config.mode_id,
                           self.config.edition_id, int(self.config.random_private_goals),
                           self.learners,
                           self.random_seats, self.opponent_kinds, self.rng_words,
                           self.observations, self.encoded, self.masks, self.num_chunks)
        self._started = True
        return self._observation_batch(), {}

    def step(self, actions):
        if not self._started:
            raise IllegalActionError("call reset() before step()")
        given = actions
        try:
            actions = np.asarray(actions)
        except (ValueError, TypeError, OverflowError):  # ragged lists, unconvertible items
            raise IllegalActionError(f"actions must be {self.num_envs} integers, not "
                                     f"{shown(given)}") from None
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be {self.num_envs} integers, not an array of "
                                     f"shape {actions.shape} and dtype {actions.dtype}")
        if actions.dtype == np.uint64 and actions.max() > np.iinfo(np.int64).max:
            # beyond int64: -1 reaches the compiled check as illegal, at its own index
            actions = np.where(actions > np.iinfo(np.int64).max, np.int64(-1),
                               actions.astype(np.int64, casting="unsafe"))
        original_actions, actions = given, actions.astype(np.int64)
        learners_before_step = self.learners.copy() if self.random_seats else None
        illegal, finished = self._run_compiled(
            vector_step, vector_step_serial, self.states, TILES.table, GOALS.table,
            TILES.basic_kinds, actions, self.seats, self.config.mode_id, self.config.edition_id,
            int(self.config.random_private_goals), self.learners, self.random_seats,
            self.opponent_kinds, self.rng_words, self.reward_scheme, self.population_shaping,
            self.observations, self.encoded, self.masks, self.rewards, self.terminated,
            self.results, self.final_observations, self.final_populations, self.final_winners,
            self.num_chunks)
        if illegal >= 0:
            action = int(actions[illegal])
            if 0 <= action < a.NUM_ACTIONS:
                reason = Game.view(self.config, self.states[illegal])._illegal_reason(action)
            else:
                reason = (f"action {shown(int(np.asarray(original_actions)[illegal]))} is "
                          f"outside 0..{a.NUM_ACTIONS - 1}")
            raise IllegalActionError(f"environment {illegal}: {reason} (no game was stepped)")
        infos = {}
        if finished:
            infos["final_obs"] = self._final_observation_batch()
            infos["_final_obs"] = self._output(self.terminated)
            infos["final_populations"] = self._output(self.final_populations)
            infos["final_winners"] = self.final_winners.astype(bool)
            infos["learner_seats"] = (self.learners.copy() if learners_before_step is None
                                      else learners_before_step)  # fixed seats never change
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return (self._observation_batch(), self._output(self.rewards),
                self._output(self.terminated), truncated,
                infos)

    def _run_compiled(self, parallel_kernel, serial_kernel, *arguments):
        """One compiled call: the serial kernel for one chunk, else prange over chunks.

        Each kernel is called through its entry point (compiled_call.py), resolved at its
        first call: the buffers keep their types for the env's whole life.
        """
        if self.num_chunks == 1:
            arguments = arguments[:-1]  # the serial kernel takes no chunk count
            return self._entry_point(serial_kernel, arguments)(*arguments)
        entry_point = self._entry_point(parallel_kernel, arguments)
        previous = numba.get_num_threads()
        numba.set_num_threads(min(self.num_threads, numba.config.NUMBA_NUM_THREADS))
        try:
            return entry_point(*arguments)
        finally:
            numba.set_num_threads(previous)

    def __setattr__(self, name, value):
        """The compiled entry points trust the buffers' types (compiled_call.py), so a
        buffer may only be replaced by a writeable C-contiguous array of the same dtype and
        shape; anything else is refused before it reaches compiled code."""
        current = self.__dict__.get(name) if name in _KERNEL_BUFFERS else None
        if current is not None and not (
                isinstance(value, np.ndarray) and value.dtype == current.dtype
                and value.shape == current.shape and value.flags.c_contiguous
                and value.flags.writeable and value.flags.aligned):
            raise ConfigError(f"{name} must stay a writeable C-contiguous {current.dtype} array "
                              f"of shape {current.shape}: write into it instead")
        super().__setattr__(name, value)

    def _entry_point(self, kernel, arguments):
        entry_point = self._entry_points.get(kernel)
        if entry_point is None:
            entry_point = self._entry_points[kernel] = compiled_entry_point(kernel, arguments)
        return entry_point

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_entry_points"] = {}  # machine code does not pickle; resolved again on use
        return state

    def _final_observation_batch(self):
        """Flat format: the array of last observations (with copy=True a fresh array whose
        rows of unfinished games are zeros: only finished rows are copied, and the zero
        pages are never touched); dict format: an object array with each finished game's
        {observation, action_mask} (the terminal mask: PASS alone)."""
        if self.observation_format == "flat":
            if not self.copy:
                return self.final_observations
            batch = np.zeros(self.final_observations.shape, dtype=np.float32)
            batch[self.terminated] = self.final_observations[self.terminated]
            return batch
        batch = np.full(self.num_envs, None, dtype=object)
        terminal_mask = np.zeros(a.NUM_ACTIONS, dtype=np.int8)
        terminal_mask[a.ACTION_PASS] = 1
        for index in np.flatnonzero(self.terminated):
            batch[index] = {"observation": self.final_observations[index].copy(),
                            "action_mask": terminal_mask.copy()}
        return batch

    def action_masks(self) -> np.ndarray:
        return self._output(self.masks)

    def _observation_batch(self):
        if self.observation_format == "flat":
            return self._output(self.observations)
        return {"observation": self._output(self.observations),
                "action_mask": self._output(self.masks.view(np.int8))}

    def _output(self, array: np.ndarray) -> np.ndarray:
        """A fresh copy, or with copy=False the buffer itself (see the table above)."""
        return array.copy() if self.copy else array

    def game(self, index: int) -> Game:
        """A live facade over game `index` (shares the state; do not apply actions)."""
        if (not isinstance(index, (int, np.integer)) or isinstance(index, (bool, np.bool_))
                or not 0 <= index < self.num_envs):
            raise ArgumentError(f"index must be an environment 0..{self.num_envs - 1}, "
                                f"not {shown(index)}")
        return Game.view(self.config, self.states[index])
