"""Batched vector environment: N games stepped by one compiled call (numba prange).

| property          | value                                                              |
|-------------------|--------------------------------------------------------------------|
| class             | `SuburbiaVectorEnv(num_envs, ...)`, a `gymnasium.vector.VectorEnv`; also `gymnasium.make_vec("Suburbia-v1", num_envs, ...)` (the registered vector entry point) |
| spaces            | single spaces as SuburbiaEnv (gym_env.py); batched along axis 0    |
| options           | players, mode, edition, opponents ("dale" or "random": compiled only), reward, population_shaping, learner_seat (int or "random"), random_private_goals, observation_format, num_threads |
| autoreset         | same step: a finished game is reset at once; its last observation is in `infos["final_obs"]` where `infos["_final_obs"]` is set (other rows: zeros with `copy=True`, stale with `copy=False`), with `final_populations` and `final_winners` (per seat) and the `learner_seats` it was played with |
| action masks      | `action_masks()` -> bool[num_envs, 2123]; also in dict observations |
| illegal actions   | raise IllegalActionError naming the environment; checked for the whole batch first, so no game moves |
| misuse            | step before reset: GameOverError; a bad option: ConfigError; a bad seed or index: ArgumentError (as every environment) |
| copy              | `copy=True` (default, as gymnasium's vector envs): observations, masks and infos are fresh arrays; `copy=False`: the env's own buffers, overwritten by the next step (fastest; read them, do not write them) |
| seeding           | `reset(seed=n)`: environment i draws its games from its own generator seeded from (n, i) |

Version history
---------------
(rendered from suburbia_env/versions.py by scripts/version_tables.py)
- Suburbia-v1 (2026-11-27, v1.8): The observation gains a last part, "goal_races" (5 x 9
  = 45 entries, 8714 -> 8759): for each public goal and the observer's own private goal,
  every seat's value on the goal's criterion, who alone is in front and the observer's
  lead (R8.2; never another player's private goal, R10.2). The first 8714 entries are
  unchanged, and models trained before (observation_size 8714) read that prefix and
  decide exactly as before. Rules, ids and file formats are unchanged.
- Suburbia-v1 (2026-11-27, v1.5): Moved to `suburbia_env.envs.vector_env`;
  `suburbia_env.vector_env` still imports, with a DeprecationWarning. Behaviour
  unchanged.
- Suburbia-v1 (2026-11-25, v1): The rules revision of SuburbiaEnv v1: a `keep` decision
  for the learner in mode "dale" (R9.2), Solitary fall-back +1/+1 (R9.1).
- Suburbia-v0 (2026-11-22, v0): First release.
"""

from __future__ import annotations

import gymnasium as gym
import numba
import numpy as np
from gymnasium.vector.utils import batch_space

from ..engine import action_space as a
from .env_options import (action_space, check_count, check_learner_seat, check_number,
                          check_reward, check_seed, observation_spaces, resolve_opponents)
from .env_runner import EnvRunner
from ..errors import ArgumentError, ConfigError, shown
from ..game import Game, GameConfig
from ..engine.rng import seed_words

def _runner_buffer(bundle: str, name: str) -> property:
    """One of the runner's buffers (env_core.Games, Outcomes) as this env's attribute. A
    replacement must be a writeable C-contiguous array of the same dtype and shape
    (EnvRunner.replace_buffer): the compiled entry points trust its type, so anything
    else is refused before it reaches compiled code."""
    def get(self) -> np.ndarray:
        return getattr(getattr(self.runner, bundle), name)

    def replace(self, value) -> None:
        self.runner.replace_buffer(name, value)

    return property(get, replace)


class SuburbiaVectorEnv(gym.vector.VectorEnv):
    __doc__ = __doc__
    metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 64, players: int = 1, mode: str = "dale",
                 edition: str = "2nd", opponents: str | list = "dale", reward: str = "win_loss",
                 population_shaping: float = 0.0, learner_seat: int | str = 0,
                 random_private_goals: bool = False, observation_format: str = "dict",
                 num_threads: int | None = None, copy: bool = True):
        num_envs = check_count("num_envs", num_envs)
        num_threads = check_count("num_threads", num_threads, allow_none=True)
        self.config = GameConfig(players, mode, edition, bool(random_private_goals))
        self.seats = self.config.seats
        reward_scheme = check_reward(reward)
        learner_seat = check_learner_seat(learner_seat, self.seats, mode)
        kinds, external = resolve_opponents(opponents, self.seats)
        if external:
            raise ConfigError("the vector environment plays compiled opponents only "
                              "('dale' or 'random'); use SuburbiaEnv for Python policies")
        self.num_envs = num_envs
        self.reward_scheme = reward_scheme
        self.population_shaping = check_number("population_shaping", population_shaping)
        self.random_seats = learner_seat == "random"
        self.observation_format = observation_format
        self.single_observation_space = observation_spaces(observation_format)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.num_threads = num_threads or numba.get_num_threads()
        self.runner = EnvRunner(num_envs, self.config, kinds, reward_scheme,
                                self.population_shaping,
                                learner=0 if self.random_seats else learner_seat,
                                random_seats=self.random_seats, autoreset=True,
                                num_threads=self.num_threads)
        self.num_chunks = self.runner.num_chunks
        self.runner.games.rng_words[:] = seed_words(0, num_envs)
        self.copy = bool(copy)

    states = _runner_buffer("games", "states")
    learners = _runner_buffer("games", "learners")
    opponent_kinds = _runner_buffer("games", "opponent_kinds")
    rng_words = _runner_buffer("games", "rng_words")
    observations = _runner_buffer("games", "observations")
    encoded = _runner_buffer("games", "encoded")
    masks = _runner_buffer("games", "masks")
    rewards = _runner_buffer("outcomes", "rewards")
    terminated = _runner_buffer("outcomes", "terminated")
    results = _runner_buffer("outcomes", "results")
    final_observations = _runner_buffer("outcomes", "final_observations")
    final_populations = _runner_buffer("outcomes", "final_populations")
    final_winners = _runner_buffer("outcomes", "final_winners")

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed)
        if seed is not None:
            self.rng_words = seed_words(seed, self.num_envs)
        elif not self.runner.started:
            self.rng_words = seed_words(int(np.random.SeedSequence().entropy % 2**63),
                                        self.num_envs)
        self.runner.reset_all()
        return self._observation_batch(), {}

    def step(self, actions):
        learners_before_step = self.learners.copy() if self.random_seats else None
        finished = self.runner.step_all(actions)
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
