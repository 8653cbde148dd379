"""Self-play: 2 to 4 player games where the other seats are played by a pool of earlier
snapshots of the learner, the greedy player, the heuristic styles and Dale's procedure,
as an SB3 VecEnv.

Each game draws its player count from `players` (one count or several, so one model
learns 2, 3 and 4 players), gives the learner a random seat and draws every other
seat's player at reset: Dale's procedure (compiled, agents.DaleAgent) with probability
`dale_share`, the greedy player (agents.greedy) with probability `greedy_share`, one of
the heuristic styles of agents/styles.py (drawn by `style_weights`) with probability
`style_share`, otherwise a uniformly chosen snapshot (while the pool is empty: greedy,
else a style, else Dale). Every seat keeps its own private goal (R3.6): the learner
learns that decision too.

The games run on the environments' shared runner (suburbia_env/envs/env_runner.py), the
learner's step and Dale's seats compiled; snapshot, greedy and style seats are its
external seats, decided here a round at a time (every game waiting on such a seat makes
one decision, then all are applied in one compiled call): the greedy and style seats of
all games in one compiled call (agents/batched_seats.py, the players' own kernels; with
`num_threads` > 1 spread over the cores, the same choices), the seats of each snapshot in one forward pass. Misuse raises what every environment raises
(errors.py).
"""

from __future__ import annotations

import copy
import math

import numba
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

from agents.batched_seats import (DALE_SEAT_POLICY, GREEDY_SEAT_POLICY, STYLE_NAMES,
                                  STYLE_WEIGHTS, decide_one_ply_seats,
                                  decide_one_ply_seats_parallel, style_seat_policy)
from agents.greedy import DEFAULT_MONEY_WEIGHT
from suburbia_env.engine import action_space as a
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.env_core import OPPONENT_DALE, OPPONENT_EXTERNAL, STEP_TERMINATED
from suburbia_env.engine.external_seats import encode_acting_seats
from suburbia_env.envs.env_options import (action_space, check_count, check_number,
                                           check_reward, check_seed, observation_spaces)
from suburbia_env.envs.env_runner import EnvRunner
from suburbia_env.errors import ConfigError, IllegalActionError, shown
from suburbia_env.game import GameConfig
from suburbia_env.engine.observation import OBSERVATION_SIZE
from suburbia_env.engine.rng import seed_words

__all__ = ["DALE_SEAT_POLICY", "GREEDY_SEAT_POLICY", "SelfPlayVecEnv", "style_seat_policy"]


class SelfPlayVecEnv(VecEnv):
    def __init__(self, num_envs: int = 64, players: int | tuple[int, ...] = 2,
                 edition: str = "2nd", reward: str = "margin", population_shaping: float = 0.0,
                 pool_size: int = 5, dale_share: float = 0.2, greedy_share: float = 0.0,
                 seed: int = 0, style_share: float = 0.0, num_threads: int = 1,
                 style_weights: tuple[int, ...] = (1, 1, 1, 1)):
        num_envs = check_count("num_envs", num_envs)
        self.num_threads = check_count("num_threads", num_threads)
        counts = (players,) if isinstance(players, (int, np.integer)) else tuple(players)
        if not counts or any(isinstance(count, (bool, np.bool_)) or count not in (2, 3, 4)
                             for count in counts):
            raise ConfigError(f"self-play seats 2 to 4 players, not {shown(players)}")
        dale_share = check_number("dale_share", dale_share)
        greedy_share = check_number("greedy_share", greedy_share)
        style_share = check_number("style_share", style_share)
        if not (0 <= dale_share and 0 <= greedy_share and 0 <= style_share
                and dale_share + greedy_share + style_share <= 1):
            raise ConfigError(f"dale_share, greedy_share and style_share must be shares adding "
                              f"up to at most 1, not {dale_share}, {greedy_share} and "
                              f"{style_share}")
        weights = tuple(style_weights) if isinstance(style_weights, (tuple, list)) else ()
        if (len(weights) != len(STYLE_NAMES) or any(
                isinstance(weight, (bool, np.bool_)) or not isinstance(weight, (int, np.integer))
                or weight < 0 for weight in weights) or not any(weights)):
            raise ConfigError(f"style_weights are {len(STYLE_NAMES)} whole numbers of 0 or "
                              f"more ({', '.join(STYLE_NAMES)}), not all 0, not "
                              f"{shown(style_weights)}")
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**62)
        super().__init__(num_envs, observation_spaces("flat"), action_space())
        self.player_counts = tuple(int(count) for count in counts)
        config = GameConfig(self.player_counts[0], "standard", edition)
        self.edition = config.edition_id
        self.greedy_share = greedy_share
        self.style_share = style_share
        self.style_table = np.repeat(np.arange(len(STYLE_NAMES)),
                                     np.array(weights) // math.gcd(*map(int, weights)))
        self.reward_scheme = check_reward(reward)
        self.population_shaping = check_number("population_shaping", population_shaping)
        self.pool_size = check_count("pool_size", pool_size)
        self.dale_share = dale_share
        self.pool: list = []
        self.generator = np.random.default_rng(seed)
        self.runner = EnvRunner(num_envs, config, np.zeros(4, dtype=np.int32),
                                self.reward_scheme, self.population_shaping,
                                num_threads=self.num_threads)
        self.runner.games.rng_words[:] = seed_words(seed, num_envs)
        self.seat_policies = np.full((num_envs, 4), -1, dtype=np.int32)
        self._step_actions = np.zeros(num_envs, dtype=np.int64)
        self._seat_mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
        self._seat_actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
        self._all_games = np.arange(num_envs)

    # The runner's buffers (env_core.Games), read by training and tests.

    @property
    def players(self) -> np.ndarray:
        return self.runner.games.players

    @property
    def states(self) -> np.ndarray:
        return self.runner.games.states

    @property
    def learners(self) -> np.ndarray:
        return self.runner.games.learners

    @property
    def opponent_kinds(self) -> np.ndarray:
        return self.runner.games.opponent_kinds

    @property
    def observations(self) -> np.ndarray:
        return self.runner.games.observations

    @property
    def masks(self) -> np.ndarray:
        return self.runner.games.masks

    # Pool ---------------------------------------------------------------------------------

    def add_snapshot(self, policy) -> None:
        """Add a frozen copy of a policy; the oldest leaves past `pool_size`."""
        snapshot = copy.deepcopy(policy)
        snapshot.set_training_mode(False)
        self.pool.append(snapshot)
        if len(self.pool) > self.pool_size:
            self.pool.pop(0)

    def pool_callback(self, every: int) -> BaseCallback:
        environment = self

        class AddSnapshot(BaseCallback):
            def __init__(self):
                super().__init__()
                self.next_snapshot = every

            def _on_step(self) -> bool:
                if self.num_timesteps >= self.next_snapshot:
                    self.next_snapshot += every
                    environment.add_snapshot(self.model.policy)
                return True

        return AddSnapshot()

    # Games ----------------------------------------------------------------------------------

    def _seat_policy(self) -> int:
        """Who plays an opponent seat: a pool index, DALE/GREEDY_SEAT_POLICY or a style's
        `style_seat_policy`."""
        draw = self.generator.random()
        if draw < self.dale_share:
            return DALE_SEAT_POLICY
        if draw < self.dale_share + self.greedy_share:
            return GREEDY_SEAT_POLICY
        if draw < self.dale_share + self.greedy_share + self.style_share:
            return self._style_policy()
        if self.pool:
            return int(self.generator.integers(len(self.pool)))
        if self.greedy_share > 0:
            return GREEDY_SEAT_POLICY
        return self._style_policy() if self.style_share > 0 else DALE_SEAT_POLICY

    def _style_policy(self) -> int:
        """A style drawn by `style_weights` (reduced by their common divisor, so equal
        weights draw one among the four as before the weights existed: a seed deals the
        same tables)."""
        return style_seat_policy(int(self.style_table[self.generator.integers(
            len(self.style_table))]))

    def _new_game(self, index: int) -> None:
        """Draw the table (players, the learner's seat, who plays each other seat) and
        deal game `index`; Dale's seats play compiled up to the first external seat."""
        games = self.runner.games
        players = int(self.generator.choice(self.player_counts))
        games.players[index] = players
        games.learners[index] = self.generator.integers(players)
        self.seat_policies[index] = -1
        for seat in range(players):
            if seat == games.learners[index]:
                continue
            policy = self._seat_policy()
            self.seat_policies[index, seat] = policy
            games.opponent_kinds[index, seat] = (OPPONENT_DALE if policy == DALE_SEAT_POLICY
                                                 else OPPONENT_EXTERNAL)
        game_seed = seed_words(int(self.generator.integers(2**62)))[0]
        self.runner.reset_game(index, game_seed)

    def _choose(self, waiting: np.ndarray) -> np.ndarray:
        """The external seats' actions (EnvRunner.play_external), one per waiting game:
        the greedy and style seats of all of them in one compiled call, the seats of each
        snapshot in one forward pass over the games waiting on it, in their order."""
        chosen = np.full(waiting.size, -1, dtype=np.int64)
        games = self.runner.games
        policies = self.seat_policies[waiting, games.states[waiting, s.CURRENT_PLAYER]]
        one_ply = int((policies < DALE_SEAT_POLICY).sum())
        if one_ply > 1 and self.num_threads > 1:
            previous = numba.get_num_threads()
            numba.set_num_threads(min(self.num_threads, numba.config.NUMBA_NUM_THREADS))
            try:
                decide_one_ply_seats_parallel(self.runner.tables, games, self.seat_policies,
                                              DEFAULT_MONEY_WEIGHT, STYLE_WEIGHTS, waiting,
                                              chosen, min(self.num_threads, one_ply))
            finally:
                numba.set_num_threads(previous)
        elif one_ply:
            decide_one_ply_seats(self.runner.tables, games, self.seat_policies,
                                 DEFAULT_MONEY_WEIGHT, STYLE_WEIGHTS, waiting, chosen,
                                 self._seat_mask, self._seat_actions)
        snapshots = policies[policies >= 0]
        first_seen = np.unique(snapshots, return_index=True)[1]
        for policy_index in snapshots[np.sort(first_seen)]:  # as they first wait
            rows = np.flatnonzero(policies == policy_index)
            chosen[rows] = self._snapshot_actions(int(policy_index), waiting[rows])
        return chosen

    def _snapshot_actions(self, policy_index: int, members: np.ndarray) -> np.ndarray:
        observations = np.zeros((members.size, OBSERVATION_SIZE), dtype=np.float32)
        masks = np.zeros((members.size, a.NUM_ACTIONS), dtype=np.bool_)
        encode_acting_seats(self.runner.tables, self.runner.games, members, observations,
                            masks, self._seat_actions)
        actions, _ = self.pool[policy_index].predict(observations, action_masks=masks,
                                                     deterministic=False)
        return actions

    # VecEnv API ------------------------------------------------------------------------------

    def reset(self):
        if self._seeds and self._seeds[0] is not None:
            seed = check_seed(self._seeds[0])
            self.generator = np.random.default_rng(seed)
            self.runner.games.rng_words[:] = seed_words(seed, self.num_envs)
        self._reset_seeds()
        for index in range(self.num_envs):
            self._new_game(index)
        self.runner.play_external(np.arange(self.num_envs), self._choose)
        return self.observations.copy()

    def step_async(self, actions) -> None:
        try:
            self._step_actions = np.asarray(actions).reshape(self.num_envs)
        except (ValueError, TypeError, OverflowError):  # checked again by the runner
            raise IllegalActionError(f"actions must be {self.num_envs} integers, not "
                                     f"{shown(actions)}") from None

    def step_wait(self):
        """The learners' actions (the batch checked whole first, EnvRunner.step_all), then
        the external seats up to each learner; finished games are dealt anew."""
        outcomes = self.runner.outcomes
        self.runner.step_all(self._step_actions)
        self.runner.play_external(self._all_games, self._choose)
        dones = outcomes.results == STEP_TERMINATED
        rewards = outcomes.rewards.astype(np.float32)
        infos = [{} for _ in range(self.num_envs)]
        for index in np.flatnonzero(dones):
            infos[index]["terminal_observation"] = self.observations[index].copy()
            self._new_game(index)
            self.runner.play_external([index], self._choose)
        return self.observations.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.masks.copy()

    def close(self) -> None:
        pass

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            return [self.masks[index] for index in self._indices(indices)]
        raise AttributeError(f"SelfPlayVecEnv has no per-environment method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._indices(indices)]
