"""Gymnasium environment: one learning seat against opponents (default: Dale, R9.2).

| property          | value                                                              |
|-------------------|--------------------------------------------------------------------|
| id                | `Suburbia-v1` (registered on `import suburbia_env`)                |
| action space      | `Discrete(2123)`: the flat action space of action_space.py         |
| observation space | `Dict(observation=Box(-1, 100, (8759,), float32), action_mask=Box(0, 1, (2123,), int8))`, or the Box alone with `observation_format="flat"` |
| observation       | observation.py (acting seat first, padded to 4 seats, public information only, R10) |
| action masks      | `info`-free: `observation["action_mask"]` and `env.action_masks()` (sb3-contrib) |
| reward            | `reward="win_loss"`: +1 sole winner, 0 shared win, -1 loss; `"margin"`: (own - best other final population)/100; plus `population_shaping` x population gained per step |
| players / modes   | mode "dale" (default, 1 player + Dale), "solitary" (1), "standard" (2-4) |
| opponents         | "dale" (Dale's procedure, compiled), "random" (compiled), a list indexed by seat (the learner's own entry is ignored; a short list repeats its last entry), or Python policies: callables `f(game) -> action` or agents with `act(game)` |
| learner seat      | `learner_seat=0` or `"random"` (drawn at each reset)               |
| illegal actions   | `illegal_action="lose"` (default): an action outside the mask (any value: a number not legal now, out of range, not an integer) ends the episode with reward -1, `info["illegal_action"] = True`, state untouched, as PettingZoo's TerminateIllegalWrapper; `"raise"`: IllegalActionError naming the rule, state untouched, the episode goes on |
| terminal          | stepping a finished episode raises GameOverError; the terminal mask holds PASS alone |
| render modes      | "ansi" (text), "rgb_array" (picture of the market and all boroughs) |

Version history
---------------
(rendered from suburbia_env/versions.py by scripts/version_tables.py)
- Suburbia-v1 (2026-11-27, v1.8): The observation gains a last part, "goal_races" (5 x 9
  = 45 entries, 8714 -> 8759): for each public goal and the observer's own private goal,
  every seat's value on the goal's criterion, who alone is in front and the observer's
  lead (R8.2; never another player's private goal, R10.2). The first 8714 entries are
  unchanged, and models trained before (observation_size 8714) read that prefix and
  decide exactly as before. Rules, ids and file formats are unchanged.
- Suburbia-v1 (2026-11-27, v1.5): Moved to `suburbia_env.envs.gym_env`;
  `suburbia_env.gym_env` still imports, with a DeprecationWarning. Behaviour unchanged.
- Suburbia-v1 (2026-11-25, v1.3): The Gymnasium environment's `illegal_action` defaults
  to "lose" instead of "raise" (issue 20), so that gymnasium's and stable-baselines3's
  checkers and the standard random loop (`env.action_space.sample()`, with or without
  `mask=`) run with default settings. Code that relied on the exception passes
  `illegal_action="raise"`. Rules and results of legal play are unchanged.
- Suburbia-v1 (2026-11-25, v1): RULES.md revision. In mode "dale" the learner first
  keeps one of two drawn goals (a `keep` decision; the observation already shows both)
  and scores it at the end (R9.2); in "solitary" falling back below a red line gives
  +1/+1, not +2/+2 (R9.1). Results of v0 are not comparable in those modes; "standard"
  is unchanged.
- Suburbia-v0 (2026-11-22, v0): First release. No longer registered:
  `gym.make("Suburbia-v0")` raises gymnasium's DeprecatedEnv naming v1.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ..engine import action_space as a
from ..engine import state_layout as s
from ..engine.env_core import (STEP_GAME_OVER, STEP_ILLEGAL, STEP_RUNNING, STEP_TERMINATED,
                               STEP_WAITING)
from .env_options import (action_space, check_choice, check_learner_seat, check_number,
                          check_reward, check_seed, observation_spaces, resolve_opponents)
from .env_runner import EnvRunner
from ..errors import GameOverError, IllegalActionError, NotationError, shown
from ..game import Game, GameConfig


class SuburbiaEnv(gym.Env):
    __doc__ = __doc__
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(self, players: int = 1, mode: str = "dale", edition: str = "2nd",
                 opponents: Any = "dale", reward: str = "win_loss",
                 population_shaping: float = 0.0, learner_seat: int | str = 0,
                 illegal_action: str = "lose", random_private_goals: bool = False,
                 observation_format: str = "dict", render_mode: str | None = None):
        self.config = GameConfig(players, mode, edition, bool(random_private_goals))
        self.seats = self.config.seats
        self.reward_scheme = check_reward(reward)
        check_choice("illegal_action", illegal_action, ("raise", "lose"), "'raise' or 'lose'")
        learner_seat = check_learner_seat(learner_seat, self.seats, mode)
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.population_shaping = check_number("population_shaping", population_shaping)
        self.learner_seat_option = learner_seat
        self.illegal_action = illegal_action
        self.observation_format = observation_format
        self.render_mode = render_mode
        opponent_kinds, self.external_opponents = resolve_opponents(opponents, self.seats)
        self.observation_space = observation_spaces(observation_format)
        self.action_space = action_space()
        self.runner = EnvRunner(1, self.config, opponent_kinds, self.reward_scheme,
                                self.population_shaping)
        self.learner = 0
        self._episode_over = True
        self._started = False
        self._share_views()

    def _share_views(self) -> None:
        """The rows of the runner's one game this env reads (views share its memory);
        the compiled step (EnvRunner.step_call) is bound on the first step."""
        games = self.runner.games
        self._state = games.states[0]
        self._observation = games.observations[0]
        self._mask = games.masks[0]
        self._mask_as_int8 = self._mask.view(np.int8)
        self._game_view = Game.view(self.config, self._state)
        self._step_call = None

    # Gymnasium API ---------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=check_seed(seed))
        words = self.np_random.bit_generator.random_raw(4).view(np.int32)
        games = self.runner.games
        games.rng_words[0] = words[4:]
        if self.learner_seat_option == "random":
            self.learner = int(self.np_random.integers(self.seats))
        else:
            self.learner = int(self.learner_seat_option)
        games.learners[0] = self.learner
        self.runner.reset_game(0, words[:4])
        if self.external_opponents:
            self.runner.play_external([0], self._choose_external)
        self._episode_over = bool(self._state[s.GAME_OVER])
        self._started = True
        return self._current_observation(), self._info(self._episode_over)

    def step(self, action):
        if self._episode_over:
            raise GameOverError("the episode is over: call reset() before step()" if self._started
                                else "call reset() before step()")
        if type(action) is not int:
            action = self._check_action_type(action)
            if type(action) is not int:
                return self._illegal(action)
        step_call = self._step_call
        if step_call is None:
            step_call = self._step_call = self.runner.step_call(0)
        try:
            reward, result = step_call(action)
        except OverflowError:  # beyond int64: illegal like any other action
            return self._illegal(action)
        if result == STEP_RUNNING:  # the hot path: the learner decides again
            return self._current_observation(), reward, False, False, self._running_info()
        if result == STEP_GAME_OVER:
            raise GameOverError("the game is over: call reset() before step()")
        if result == STEP_ILLEGAL:
            return self._illegal(action)
        if result == STEP_WAITING:
            self.runner.play_external([0], self._choose_external)
            reward = float(self.runner.outcomes.rewards[0])
            result = int(self.runner.outcomes.results[0])
        terminated = result == STEP_TERMINATED
        self._episode_over = terminated
        return self._current_observation(), reward, terminated, False, self._info(terminated)

    def action_masks(self) -> np.ndarray:
        """The legal-action mask of the learner (sb3-contrib MaskablePPO)."""
        return self._mask.copy()

    def render(self):
        if self.render_mode == "ansi":
            return self.game.render()
        if self.render_mode == "rgb_array":
            from ..display.picture import render_picture
            return render_picture(self.game)
        return None

    # Helpers ----------------------------------------------------------------------------

    def __getstate__(self):
        state = self.__dict__.copy()
        # A pickled view would no longer share memory with the runner's buffers, and
        # machine code does not pickle: both are made again on load.
        for name in ("_state", "_observation", "_mask", "_mask_as_int8", "_game_view",
                     "_step_call"):
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._share_views()

    @property
    def state(self) -> np.ndarray:
        """The game's state array (state_layout.py), which the compiled step holds: write
        into it (`env.state[:] = saved`); it cannot be replaced by another array."""
        return self._state

    @property
    def opponent_kinds(self) -> np.ndarray:
        """OPPONENT_* per seat (env_core.py); OPPONENT_EXTERNAL for a Python policy."""
        return self.runner.games.opponent_kinds[0]

    @property
    def _opponent_words(self) -> np.ndarray:
        """The compiled opponents' generator words, drawn at each reset."""
        return self.runner.games.rng_words[0]

    @property
    def game(self) -> Game:
        """A live facade over the current game (shares the state; do not apply actions)."""
        return self._game_view

    def _check_action_type(self, action):
        """The action as an int, or unchanged if it is not an integer (then illegal)."""
        if isinstance(action, np.integer):  # what np.flatnonzero of the mask holds
            return int(action)
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        return int(action) if a.is_action_integer(action) else action

    def _illegal(self, action):
        """An illegal action (of any type): the episode is lost or IllegalActionError."""
        if self.illegal_action == "lose":
            self._episode_over = True
            info = self._info(False)
            info["illegal_action"] = True
            return self._current_observation(), -1.0, True, False, info
        if type(action) is not int:
            raise IllegalActionError(f"an action is an integer 0..{a.NUM_ACTIONS - 1}, "
                                     f"not {shown(action)}")
        game = self.game
        raise IllegalActionError(game._illegal_reason(action) if 0 <= action < a.NUM_ACTIONS
                                 else f"action {shown(action)} is outside "
                                      f"0..{a.NUM_ACTIONS - 1}")

    def _choose_external(self, waiting: list[int]) -> list:
        """The Python policy of the seat to act decides, on a copy of the game; its
        answer may be an action number or notation (notation.py)."""
        seat = int(self._state[s.CURRENT_PLAYER])
        policy = self.external_opponents[seat]
        view = Game.from_state(self.config, self._state)
        choice = policy.act(view) if hasattr(policy, "act") else policy(view)
        try:
            return [view.action_number(choice)]
        except NotationError as error:
            raise IllegalActionError(f"opponent in seat {seat} chose an illegal action: "
                                     f"{error}") from None

    def _current_observation(self):
        if self.observation_format == "flat":
            return self._observation.copy()
        return {"observation": self._observation.copy(),
                "action_mask": self._mask_as_int8.copy()}

    def _running_info(self) -> dict:
        """Between decisions the learner is always the one to act (opponents have played)."""
        return {"learner_seat": self.learner, "current_player": self.learner}

    def _info(self, game_over: bool) -> dict:
        if not game_over:
            return self._running_info()
        game = self.game
        return {"learner_seat": self.learner, "current_player": -1,
                "final_scores": game.final_scores(), "winners": game.winners}
