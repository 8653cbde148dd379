"""PettingZoo AEC environment: 2 to 4 learning players, rewards at the end.

| property          | value                                                              |
|-------------------|--------------------------------------------------------------------|
| import            | `from suburbia_env.envs.pettingzoo import env` (`raw_env` unwrapped)    |
| agents            | `player_0` .. `player_{n-1}` for n = 2..4 (seat i is player_i)     |
| actions           | `Discrete(2123)`, the flat action space of action_space.py         |
| observations      | `Dict(observation=Box(-1, 100, (8759,), float32), action_mask=Box(0, 1, (2123,), int8))` per agent, from that agent's seat (observation.py); only public information and the agent's own goals (R10) |
| action mask       | legal actions of the agent to act; PASS alone for an agent not to act and at the end |
| turn order        | the engine's: goal choices (R3.6), then turns; discards and removals are further steps of the same agent |
| rewards           | at the end only: `reward="win_loss"` +1 sole winner, 0 shared win, -1 loss; or `"margin"` |
| illegal actions   | `illegal_action="raise"` (IllegalActionError) or `"lose"`: the agent gets -1, the others 0, the game ends |
| truncation        | `max_cycles`: after that many actions per agent on average, every agent is truncated |
| render modes      | "ansi", "rgb_array"                                                |

Version history
---------------
(rendered from suburbia_env/versions.py by scripts/version_tables.py)
- suburbia_v1 (2026-11-27, v1.8): The observation gains a last part, "goal_races" (5 x 9
  = 45 entries, 8714 -> 8759): for each public goal and the observer's own private goal,
  every seat's value on the goal's criterion, who alone is in front and the observer's
  lead (R8.2; never another player's private goal, R10.2). The first 8714 entries are
  unchanged, and models trained before (observation_size 8714) read that prefix and
  decide exactly as before. Rules, ids and file formats are unchanged.
- suburbia_v1 (2026-11-27, v1.5): Moved to `suburbia_env.envs.pettingzoo`;
  `suburbia_env.pettingzoo` still imports, with a DeprecationWarning. Behaviour
  unchanged.
- suburbia_v1 (2026-11-25, v1): RULES.md revision; the standard game this environment
  plays is unchanged (the revision touches the solo modes only), the version moves with
  the project's other ids so results are reported under one rules version.
- suburbia_v0 (2026-11-22, v0): First release.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine import action_space as a
from ..engine.env_core import final_reward, write_outputs
from .env_options import (action_space, check_choice, check_count, check_reward, check_seed,
                          observation_spaces)
from ..errors import ArgumentError, ConfigError, GameOverError, IllegalActionError, shown
from ..game import Game, GameConfig
from ..engine.observation import OBSERVATION_SIZE, new_encoding_cache, update_observation
from ..engine.tile_data import TILES
from ..versions import PETTINGZOO_NAME


def _integer_action(agent: str, action) -> int:
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if not a.is_action_integer(action):
        raise IllegalActionError(f"{agent} chose {shown(action)}, not a legal action (an "
                                 f"integer 0..{a.NUM_ACTIONS - 1})")
    return int(action)


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's wrapper, refusing a step or an observation before reset with the
    environment's GameOverError (as raw_env does) instead of an AssertionError."""

    def step(self, action) -> None:
        if not self._has_reset:
            raise GameOverError("call reset() before step()")
        super().step(action)

    def observe(self, agent: str):
        if not self._has_reset:
            raise GameOverError("call reset() before observe()")
        return super().observe(agent)

    def __str__(self) -> str:
        return str(self.env)


def env(**kwargs) -> AECEnv:
    """The AEC environment with PettingZoo's order-enforcing wrapper."""
    return _OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    __doc__ = __doc__
    metadata = {"name": PETTINGZOO_NAME, "render_modes": ["ansi", "rgb_array"],
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, players: int = 2, edition: str = "2nd", reward: str = "win_loss",
                 illegal_action: str = "raise", random_private_goals: bool = False,
                 max_cycles: int | None = None, render_mode: str | None = None):
        super().__init__()
        if (not isinstance(players, (int, np.integer)) or isinstance(players, (bool, np.bool_))
                or players not in (2, 3, 4)):
            raise ConfigError(f"wrong player count: the PettingZoo environment seats 2 to 4 "
                              f"players, not {shown(players)}")
        players = int(players)
        GameConfig(players, "standard", edition)  # the edition is checked now, not at reset
        reward_scheme = check_reward(reward)
        check_choice("illegal_action", illegal_action, ("raise", "lose"), "'raise' or 'lose'")
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        max_cycles = check_count("max_cycles", max_cycles, allow_none=True)
        self.players = players
        self.edition = edition
        self.reward_scheme = reward_scheme
        self.illegal_action = illegal_action
        self.random_private_goals = random_private_goals
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._observation_space = observation_spaces("dict")
        self._action_space = action_space()
        self._mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
        self._actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
        self._observations = np.zeros((players, OBSERVATION_SIZE), dtype=np.float32)
        self._encoded = np.stack([new_encoding_cache() for _ in range(players)])
        self._seed_generator = np.random.default_rng()
        self.game: Game | None = None

    def observation_space(self, agent: str) -> gym.spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> gym.spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        if seed is not None:
            self._seed_generator = np.random.default_rng(seed)
        game_seed = int(self._seed_generator.integers(2**63))
        self.game = Game(players=self.players, edition=self.edition, seed=game_seed,
                         random_private_goals=self.random_private_goals, log_capacity=0)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.num_moves = 0
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent: str) -> dict:
        if self.game is None:
            raise GameOverError("call reset() before observe()")
        if not isinstance(agent, str) or agent not in self.possible_agents:
            raise ArgumentError(f"no agent {shown(agent)}: the agents are "
                                f"{', '.join(self.possible_agents)}")
        seat = self.possible_agents.index(agent)
        observation = self._observations[seat]
        if self.game.current_player == seat:
            write_outputs(self.game.state, TILES.table, TILES.basic_kinds, seat, observation,
                          self._encoded[seat], self._mask, self._actions)
            mask = self._mask.view(np.int8).copy()
        else:
            update_observation(self.game.state, TILES.table, seat, observation,
                               self._encoded[seat])
            mask = np.zeros(a.NUM_ACTIONS, dtype=np.int8)
            mask[a.ACTION_PASS] = 1
        return {"observation": observation.copy(), "action_mask": mask}

    def step(self, action) -> None:
        if self.game is None:
            raise GameOverError("call reset() before step()")
        if not self.agents:
            raise GameOverError("every agent is done: call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(f"{agent} is done (terminated or truncated): its only "
                                         f"step is step(None), not {shown(action)}")
            self._was_dead_step(action)
            return
        self._clear_rewards()
        try:
            self.game.apply(_integer_action(agent, action))  # an illegal one changes nothing
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._end_with_illegal_action(agent)
            return
        self.num_moves += 1
        if self.game.is_over:
            final_scores = self.game.final_scores()
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = float(final_reward(self.game.state, seat,
                                                        self.reward_scheme))
                self.terminations[name] = True
                self.infos[name] = {"final_score": final_scores[seat]}
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
            if self.max_cycles is not None and self.num_moves >= self.max_cycles * self.players:
                self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _end_with_illegal_action(self, agent: str) -> None:
        for name in self.agents:
            self.rewards[name] = -1.0 if name == agent else 0.0
            self.terminations[name] = True
            self.infos[name] = {"illegal_action_by": agent}
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is not None and self.game is None:
            raise GameOverError("call reset() before render()")
        if self.render_mode == "ansi":
            return self.game.render()
        if self.render_mode == "rgb_array":
            from ..display.picture import render_picture
            return render_picture(self.game)
        return None

    def close(self) -> None:
        pass
