"""Self-play: 2 to 4 player games where the other seats are played by a pool of earlier
snapshots of the learner (plus Dale's procedure, compiled), as an SB3 VecEnv.

Each game gives the learner a random seat and draws every other seat's player from the
pool at reset: with probability `dale_share` Dale's procedure (agents.DaleAgent),
otherwise a uniformly chosen snapshot (Dale alone while the pool is empty). Snapshots
play stochastically from their masked policy. Opponents of all games that wait on the
same snapshot are batched into one forward pass.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

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


class SelfPlayVecEnv(VecEnv):
    def __init__(self, num_envs: int = 64, players: int = 2, edition: str = "2nd",
                 reward: str = "margin", population_shaping: float = 0.0, pool_size: int = 5,
                 dale_share: float = 0.2, seed: int = 0):
        if players not in (2, 3, 4):
            raise ValueError(f"self-play seats 2 to 4 players, not {players}")
        super().__init__(num_envs, observation_spaces("flat"), gym.spaces.Discrete(a.NUM_ACTIONS))
        self.players = players
        self.edition = GameConfig(players, "standard", edition).edition_id
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

    def _new_game(self, index: int) -> None:
        self.learners[index] = self.generator.integers(self.players)
        for seat in range(self.players):
            if seat == self.learners[index]:
                continue
            if not self.pool or self.generator.random() < self.dale_share:
                self.opponent_kinds[index, seat] = OPPONENT_DALE
                self.seat_policies[index, seat] = -1
            else:
                self.opponent_kinds[index, seat] = OPPONENT_EXTERNAL
                self.seat_policies[index, seat] = self.generator.integers(len(self.pool))
        game_seed = seed_words(int(self.generator.integers(2**62)))[0]
        env_reset(self.states[index], TILES.table, GOALS.table, TILES.basic_kinds, self.players,
                  MODE_STANDARD, self.edition, 1, game_seed, self.learners[index],
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
                observations = np.zeros((len(members), OBSERVATION_SIZE), dtype=np.float32)
                masks = np.zeros((len(members), a.NUM_ACTIONS), dtype=np.bool_)
                for row, index in enumerate(members):
                    seat = self.states[index, s.CURRENT_PLAYER]
                    encode_observation(self.states[index], TILES.table, seat, observations[row])
                    legal_action_mask(self.states[index], TILES.table, TILES.basic_kinds,
                                      masks[row], self._actions_buffer)
                actions, _ = self.pool[policy_index].predict(observations, action_masks=masks,
                                                             deterministic=False)
                for row, index in enumerate(members):
                    apply_legal_action(self.states[index], TILES.table, GOALS.table,
                                       TILES.basic_kinds, int(actions[row]), self._log)
                    play_opponents(self.states[index], TILES.table, GOALS.table,
                                   TILES.basic_kinds, self.learners[index],
                                   self.opponent_kinds[index], self.rng_words[index],
                                   self.masks[index], self._actions_buffer, self._log)
            waiting = [index for index in waiting if not self.states[index, s.GAME_OVER]
                       and self.states[index, s.CURRENT_PLAYER] != self.learners[index]]

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
