"""Self-play: 2 to 4 player games where the other seats are played by a pool of earlier
snapshots of the learner, the greedy player and Dale's procedure, as an SB3 VecEnv.

Each game draws its player count from `players` (one count or several, so one model
learns 2, 3 and 4 players), gives the learner a random seat and draws every other
seat's player at reset: Dale's procedure (compiled, agents.DaleAgent) with probability
`dale_share`, the greedy player (agents.greedy) with probability `greedy_share`,
otherwise a uniformly chosen snapshot (greedy or Dale while the pool is empty).
Snapshots play stochastically from their masked policy; opponents of all games that
wait on the same snapshot are batched into one forward pass. Every seat keeps its own
private goal (R3.6): the learner learns that decision too.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

from agents.greedy import DEFAULT_MONEY_WEIGHT, greedy_action
from suburbia_env import action_space as a
from suburbia_env import state_layout as s
from suburbia_env.constants import MODE_STANDARD
from suburbia_env.game import GameConfig
from suburbia_env.env_core import (OPPONENT_DALE, OPPONENT_EXTERNAL, REWARD_NAMES,
                                   STEP_TERMINATED, env_reset, env_step, finish_learner_step,
                                   play_opponents)
from suburbia_env.gym_env import observation_spaces
from suburbia_env.legal_actions import legal_action_mask
from suburbia_env.observation import OBSERVATION_SIZE, encode_observation, new_encoding_cache
from suburbia_env.rng import seed_words
from suburbia_env.tile_data import GOALS, TILES
from suburbia_env.turn import apply_legal_action

DALE_SEAT_POLICY = -1
GREEDY_SEAT_POLICY = -2
"""seat_policies entries that are not pool snapshots (those are indices >= 0)."""


class SelfPlayVecEnv(VecEnv):
    def __init__(self, num_envs: int = 64, players: int | tuple[int, ...] = 2,
                 edition: str = "2nd", reward: str = "margin", population_shaping: float = 0.0,
                 pool_size: int = 5, dale_share: float = 0.2, greedy_share: float = 0.0,
                 seed: int = 0):
        counts = (players,) if isinstance(players, (int, np.integer)) else tuple(players)
        if not counts or any(count not in (2, 3, 4) for count in counts):
            raise ValueError(f"self-play seats 2 to 4 players, not {players}")
        if not (0 <= dale_share and 0 <= greedy_share and dale_share + greedy_share <= 1):
            raise ValueError(f"dale_share and greedy_share must be shares adding up to at "
                             f"most 1, not {dale_share} and {greedy_share}")
        super().__init__(num_envs, observation_spaces("flat"), gym.spaces.Discrete(a.NUM_ACTIONS))
        self.player_counts = tuple(int(count) for count in counts)
        self.players = np.full(num_envs, self.player_counts[0], dtype=np.int32)
        self.edition = GameConfig(self.player_counts[0], "standard", edition).edition_id
        self.greedy_share = greedy_share
        self.reward_scheme = REWARD_NAMES.index(reward)
        self.population_shaping = population_shaping
        self.pool_size = pool_size
        self.dale_share = dale_share
        self.pool: list = []
        self.generator = np.random.default_rng(seed)
        self.states = np.zeros((num_envs, s.STATE_SIZE), dtype=np.int32)
        self.learners = np.zeros(num_envs, dtype=np.int32)
        self.opponent_kinds = np.zeros((num_envs, 4), dtype=np.int32)
        self.seat_policies = np.full((num_envs, 4), -1, dtype=np.int32)
        self.rng_words = seed_words(seed, num_envs)
        self.observations = np.zeros((num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self.encoded = np.tile(new_encoding_cache(), (num_envs, 1))
        self.masks = np.zeros((num_envs, a.NUM_ACTIONS), dtype=np.bool_)
        self._actions_buffer = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
        self._log = np.zeros((1, 8), dtype=np.int32)
        self._step_actions = np.zeros(num_envs, dtype=np.int64)

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
        """Who plays an opponent seat: a pool index, or DALE/GREEDY_SEAT_POLICY."""
        draw = self.generator.random()
        if draw < self.dale_share:
            return DALE_SEAT_POLICY
        if draw < self.dale_share + self.greedy_share:
            return GREEDY_SEAT_POLICY
        if self.pool:
            return int(self.generator.integers(len(self.pool)))
        return GREEDY_SEAT_POLICY if self.greedy_share > 0 else DALE_SEAT_POLICY

    def _new_game(self, index: int) -> None:
        players = int(self.generator.choice(self.player_counts))
        self.players[index] = players
        self.learners[index] = self.generator.integers(players)
        self.seat_policies[index] = -1
        for seat in range(players):
            if seat == self.learners[index]:
                continue
            policy = self._seat_policy()
            self.seat_policies[index, seat] = policy
            self.opponent_kinds[index, seat] = (OPPONENT_DALE if policy == DALE_SEAT_POLICY
                                                else OPPONENT_EXTERNAL)
        game_seed = seed_words(int(self.generator.integers(2**62)))[0]
        env_reset(self.states[index], TILES.table, GOALS.table, TILES.basic_kinds, players,
                  MODE_STANDARD, self.edition, 0, game_seed, self.learners[index],
                  self.opponent_kinds[index], self.rng_words[index], self.observations[index],
                  self.encoded[index], self.masks[index], self._actions_buffer, self._log)

    def _play_snapshots(self, indices: list[int]) -> None:
        """Snapshot seats decide, batched per snapshot, until every game in `indices`
        waits on its learner or is over."""
        waiting = list(indices)
        while waiting:
            groups: dict[int, list[int]] = {}
            for index in waiting:
                seat = self.states[index, s.CURRENT_PLAYER]
                groups.setdefault(int(self.seat_policies[index, seat]), []).append(index)
            for policy_index, members in groups.items():
                actions = (self._greedy_actions(members) if policy_index == GREEDY_SEAT_POLICY
                           else self._snapshot_actions(policy_index, members))
                for row, index in enumerate(members):
                    apply_legal_action(self.states[index], TILES.table, GOALS.table,
                                       TILES.basic_kinds, int(actions[row]), self._log)
                    play_opponents(self.states[index], TILES.table, GOALS.table,
                                   TILES.basic_kinds, self.learners[index],
                                   self.opponent_kinds[index], self.rng_words[index],
                                   self.masks[index], self._actions_buffer, self._log)
            waiting = [index for index in waiting if not self.states[index, s.GAME_OVER]
                       and self.states[index, s.CURRENT_PLAYER] != self.learners[index]]

    def _snapshot_actions(self, policy_index: int, members: list[int]) -> np.ndarray:
        observations = np.zeros((len(members), OBSERVATION_SIZE), dtype=np.float32)
        masks = np.zeros((len(members), a.NUM_ACTIONS), dtype=np.bool_)
        for row, index in enumerate(members):
            seat = self.states[index, s.CURRENT_PLAYER]
            encode_observation(self.states[index], TILES.table, seat, observations[row])
            legal_action_mask(self.states[index], TILES.table, TILES.basic_kinds, masks[row],
                              self._actions_buffer)
        actions, _ = self.pool[policy_index].predict(observations, action_masks=masks,
                                                     deterministic=False)
        return actions

    def _greedy_actions(self, members: list[int]) -> list[int]:
        mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
        return [int(greedy_action(self.states[index], TILES.table, GOALS.table,
                                  TILES.basic_kinds, DEFAULT_MONEY_WEIGHT, mask,
                                  self._actions_buffer)) for index in members]

    def _finish(self, index: int, population_before: int) -> tuple[float, int]:
        return finish_learner_step(self.states[index], TILES.table, TILES.basic_kinds,
                                   self.learners[index], self.reward_scheme,
                                   self.population_shaping, population_before,
                                   self.observations[index], self.encoded[index],
                                   self.masks[index], self._actions_buffer)

    # VecEnv API ------------------------------------------------------------------------------

    def reset(self):
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._results = np.zeros(self.num_envs, dtype=np.int32)
        if self._seeds and self._seeds[0] is not None:
            self.generator = np.random.default_rng(self._seeds[0])
            self.rng_words = seed_words(self._seeds[0], self.num_envs)
        self._reset_seeds()
        for index in range(self.num_envs):
            self._new_game(index)
        self._settle(list(range(self.num_envs)), None)
        return self.observations.copy()

    def _settle(self, indices: list[int], populations_before) -> None:
        waiting = [index for index in indices if not self.states[index, s.GAME_OVER]
                   and self.states[index, s.CURRENT_PLAYER] != self.learners[index]]
        self._play_snapshots(waiting)
        for index in waiting:
            before = (populations_before[index] if populations_before is not None
                      else self.states[index, s.PLAYERS + self.learners[index] * s.PLAYER_STRIDE
                                       + s.POPULATION])
            self._rewards[index], self._results[index] = self._finish(index, before)

    def step_async(self, actions) -> None:
        self._step_actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._results = np.zeros(self.num_envs, dtype=np.int32)
        populations_before = np.array(
            [self.states[i, s.PLAYERS + self.learners[i] * s.PLAYER_STRIDE + s.POPULATION]
             for i in range(self.num_envs)])
        for index in range(self.num_envs):
            self._rewards[index], self._results[index] = env_step(
                self.states[index], TILES.table, GOALS.table, TILES.basic_kinds,
                self._step_actions[index], self.learners[index], self.opponent_kinds[index],
                self.rng_words[index], self.reward_scheme, self.population_shaping,
                self.observations[index], self.encoded[index], self.masks[index],
                self._actions_buffer, self._log)
        self._settle(list(range(self.num_envs)), populations_before)
        dones = self._results == STEP_TERMINATED
        rewards = self._rewards.astype(np.float32)
        infos = [{} for _ in range(self.num_envs)]
        for index in np.flatnonzero(dones):
            infos[index]["terminal_observation"] = self.observations[index].copy()
            self._new_game(index)
            self._settle([index], None)
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
