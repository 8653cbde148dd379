"""The vector environment as a stable-baselines3 VecEnv, for MaskablePPO without subprocesses.

Needs the `train` extra (stable-baselines3, sb3-contrib, torch). MaskablePPO asks for
masks with `env_method("action_masks")`; finished games carry
`infos[i]["terminal_observation"]` as SB3 expects.
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from ..errors import ConfigError, IllegalActionError, shown
from .vector_env import SuburbiaVectorEnv


class SB3VectorEnv(VecEnv):
    """Adapter from SuburbiaVectorEnv (flat observations) to SB3's VecEnv API."""

    def __init__(self, vector_env: SuburbiaVectorEnv | None = None, **vector_env_options):
        if vector_env is None:
            vector_env_options.setdefault("observation_format", "flat")
            vector_env = SuburbiaVectorEnv(**vector_env_options)
        if vector_env.observation_format != "flat":
            raise ConfigError("SB3VectorEnv needs a SuburbiaVectorEnv with "
                              "observation_format='flat'")
        self.vector_env = vector_env
        super().__init__(vector_env.num_envs, vector_env.single_observation_space,
                         vector_env.single_action_space)
        self._actions = np.zeros(vector_env.num_envs, dtype=np.int64)

    def reset(self):
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        observations, _ = self.vector_env.reset(seed=seed)
        self._reset_seeds()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        try:
            self._actions = np.asarray(actions).reshape(self.num_envs)
        except (ValueError, TypeError, OverflowError):  # checked again by the vector env
            raise IllegalActionError(f"actions must be {self.num_envs} integers, not "
                                     f"{shown(actions)}") from None

    def step_wait(self):
        observations, rewards, terminated, truncated, infos = self.vector_env.step(self._actions)
        dones = terminated | truncated
        step_infos = [{} for _ in range(self.num_envs)]
        for index in np.flatnonzero(dones):
            step_infos[index]["terminal_observation"] = infos["final_obs"][index]
            step_infos[index]["TimeLimit.truncated"] = bool(truncated[index])
        return observations, rewards.astype(np.float32), dones, step_infos

    def close(self) -> None:
        pass

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self.vector_env, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self.vector_env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":
            masks = self.vector_env.masks
            return [masks[index] for index in self._indices(indices)]
        method = getattr(self.vector_env, method_name)
        return [method(*method_args, **method_kwargs) for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]
