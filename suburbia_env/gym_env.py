"""Gymnasium environment: one learning seat against opponents (default: Dale, R9.2).

| property          | value                                                              |
|-------------------|--------------------------------------------------------------------|
| id                | `Suburbia-v1` (registered on `import suburbia_env`)                |
| action space      | `Discrete(2123)`: the flat action space of action_space.py         |
| observation space | `Dict(observation=Box(-1, 100, (8714,), float32), action_mask=Box(0, 1, (2123,), int8))`, or the Box alone with `observation_format="flat"` |
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
- v1, default of `illegal_action` (issue 20): "lose" instead of "raise", so that
  gymnasium's and stable-baselines3's checkers and the standard random loop
  (`env.action_space.sample()`, with or without `mask=`) run with default settings.
  Code that relied on the exception passes `illegal_action="raise"`. Rules and results
  of legal play are unchanged.
- v1 (2026-11-25): RULES.md revision. In mode "dale" the learner first keeps one of two
  drawn goals (a `keep` decision; the observation already shows both) and scores it at
  the end (R9.2); in "solitary" falling back below a red line gives +1/+1, not +2/+2
  (R9.1). Results of v0 are not comparable in those modes; "standard" is unchanged.
- v0: first release. No longer registered: `gym.make("Suburbia-v0")` raises
  gymnasium's DeprecatedEnv naming v1.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from . import action_space as a
from . import event_log as ev
from . import state_layout as s
from .env_core import (OPPONENT_EXTERNAL, OPPONENT_NAMES, REWARD_NAMES, STEP_GAME_OVER,
                       STEP_ILLEGAL, STEP_TERMINATED, env_reset, env_step, finish_learner_step,
                       play_opponents)
from .compiled_call import compiled_entry_point
from .errors import (ArgumentError, ConfigError, GameOverError, IllegalActionError,
                     NotationError, shown)
from .game import Game, GameConfig
from .observation import OBSERVATION_SIZE, new_encoding_cache
from .tile_data import GOALS, TILES
from .turn import apply_legal_action

OBSERVATION_LOW = -1.0
OBSERVATION_HIGH = 100.0


def check_choice(option: str, value, choices, wanted: str | None = None) -> str:
    """`value` if it is one of the names `choices`, else ConfigError naming the option and
    what it must be (`wanted`, default "one of a, b")."""
    if not isinstance(value, str) or value not in choices:
        raise ConfigError(f"{option} must be {wanted or 'one of ' + ', '.join(choices)}, "
                          f"not {shown(value)}")
    return value


def check_number(option: str, value) -> float:
    """A finite real number given for `option`, as a float."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating))
            or not np.isfinite(float(value))):
        raise ConfigError(f"{option} must be a finite number, not {shown(value)}")
    return float(value)


def check_learner_seat(learner_seat, seats: int, mode: str) -> int | str:
    """The learner_seat option: 'random' or a seat number (always 0 with Dale, R9.2)."""
    if isinstance(learner_seat, str) and learner_seat == "random":
        return 0 if mode == "dale" else "random"
    if (not isinstance(learner_seat, (int, np.integer))
            or isinstance(learner_seat, (bool, np.bool_)) or not 0 <= learner_seat < seats):
        raise ConfigError(f"learner_seat must be 'random' or a seat 0..{seats - 1}, "
                          f"not {shown(learner_seat)}")
    if mode == "dale" and learner_seat != 0:
        raise ConfigError("with Dale the player always takes seat 0 (R9.2)")
    return int(learner_seat)


def check_seed(seed) -> int | None:
    """A reset seed: None or a non-negative integer (numpy integers become ints)."""
    if seed is None:
        return None
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)) or seed < 0:
        raise ArgumentError(f"seed must be None or a non-negative integer, not {shown(seed)}")
    return int(seed)


def observation_spaces(observation_format: str) -> gym.spaces.Space:
    """The observation space shared by all three environments."""
    box = gym.spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, (OBSERVATION_SIZE,), np.float32)
    check_choice("observation_format", observation_format, ("dict", "flat"), "'dict' or 'flat'")
    if observation_format == "flat":
        return box
    return gym.spaces.Dict({"observation": box,
                            "action_mask": gym.spaces.Box(0, 1, (a.NUM_ACTIONS,), np.int8)})


def resolve_opponents(opponents: Any, seats: int) -> tuple[np.ndarray, dict[int, Any]]:
    """Per-seat compiled opponent codes and the Python policies of external seats."""
    if isinstance(opponents, (str, bytes)) or callable(opponents) or hasattr(opponents, "act"):
        opponents = [opponents] * seats
    try:
        opponents = list(opponents)
    except TypeError:
        raise ConfigError(f"opponents must be a name, an agent, a callable or a list of them "
                          f"per seat, not {shown(opponents)}") from None
    if not opponents:
        raise ConfigError("opponents is an empty list: give a name, an agent, a callable or "
                          "a list of them per seat")
    if len(opponents) < seats:
        opponents = opponents + [opponents[-1]] * (seats - len(opponents))
    kinds = np.zeros(4, dtype=np.int32)
    external: dict[int, Any] = {}
    for seat, opponent in enumerate(opponents[:seats]):
        if isinstance(opponent, str):
            if opponent not in OPPONENT_NAMES:
                raise ConfigError(f"unknown opponent {shown(opponent)}: use one of "
                                  f"{', '.join(OPPONENT_NAMES)}, an agent or a callable")
            kinds[seat] = OPPONENT_NAMES.index(opponent)
        elif getattr(opponent, "compiled_opponent", None) in OPPONENT_NAMES:
            kinds[seat] = OPPONENT_NAMES.index(opponent.compiled_opponent)
        elif callable(opponent) or hasattr(opponent, "act"):
            kinds[seat] = OPPONENT_EXTERNAL
            external[seat] = opponent
        else:
            raise ConfigError(f"opponent {shown(opponent)} is neither a name, an agent nor a "
                              f"callable")
    return kinds, external


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
        check_choice("reward", reward, REWARD_NAMES)
        check_choice("illegal_action", illegal_action, ("raise", "lose"), "'raise' or 'lose'")
        learner_seat = check_learner_seat(learner_seat, self.seats, mode)
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.reward_scheme = REWARD_NAMES.index(reward)
        self.population_shaping = check_number("population_shaping", population_shaping)
        self.learner_seat_option = learner_seat
        self.illegal_action = illegal_action
        self.observation_format = observation_format
        self.render_mode = render_mode
        self.opponent_kinds, self.external_opponents = resolve_opponents(opponents, self.seats)
        self.observation_space = observation_spaces(observation_format)
        self.action_space = gym.spaces.Discrete(a.NUM_ACTIONS)
        self._state = np.zeros(s.STATE_SIZE, dtype=np.int32)
        self.learner = 0
        self._observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self._encoded = new_encoding_cache()
        self._mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
        self._mask_as_int8 = self._mask.view(np.int8)
        self._actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
        self._opponent_words = np.zeros(4, dtype=np.int32)
        self._log = ev.new_log(0)
        self._game_view = Game.view(self.config, self.state)
        self._episode_over = True
        self._started = False
        # env_step's arguments around the action, built once per episode for the hot path
        # (the learner seat is fixed by reset), and the entry points of env_step and
        # env_reset (compiled_call.py), resolved at the first reset.
        self._arguments_before_action = (self.state, TILES.table, GOALS.table, TILES.basic_kinds)
        self._arguments_after_action: tuple = ()
        self._game_arguments = (self.seats, self.config.mode_id, self.config.edition_id,
                                int(self.config.random_private_goals))
        self._step_kernel = None
        self._reset_kernel = None

    # Gymnasium API ---------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=check_seed(seed))
        words = self.np_random.bit_generator.random_raw(4).view(np.int32)
        self._opponent_words[:] = words[4:]
        if self.learner_seat_option == "random":
            self.learner = int(self.np_random.integers(self.seats))
        else:
            self.learner = int(self.learner_seat_option)
        arguments = (*self._arguments_before_action, *self._game_arguments, words[:4],
                     self.learner, self.opponent_kinds, self._opponent_words, self._observation,
                     self._encoded, self._mask, self._actions, self._log)
        if self._reset_kernel is None:
            self._reset_kernel = compiled_entry_point(env_reset, arguments)
        self._reset_kernel(*arguments)
        if self.external_opponents:
            self._play_external_opponents(self.state[s.player_base(self.learner) + s.POPULATION])
        self._episode_over = bool(self.state[s.GAME_OVER])
        self._started = True
        self._arguments_after_action = (
            self.learner, self.opponent_kinds, self._opponent_words, self.reward_scheme,
            self.population_shaping, self._observation, self._encoded, self._mask,
            self._actions, self._log)
        if self._step_kernel is None:
            self._step_kernel = self._resolve_step_kernel()
        return self._current_observation(), self._info(self._episode_over)

    def step(self, action):
        if self._episode_over:
            raise GameOverError("the episode is over: call reset() before step()" if self._started
                                else "call reset() before step()")
        if type(action) is not int:
            action = self._check_action_type(action)
            if type(action) is not int:
                return self._illegal(action)
        try:
            reward, result = self._step_kernel(*self._arguments_before_action, action,
                                               *self._arguments_after_action)
        except OverflowError:  # beyond int64: illegal like any other action
            return self._illegal(action)
        if result == STEP_GAME_OVER:
            raise GameOverError("the game is over: call reset() before step()")
        if result == STEP_ILLEGAL:
            return self._illegal(action)
        if self.external_opponents and not self.state[s.GAME_OVER]:
            population = self.state[s.player_base(self.learner) + s.POPULATION]
            extra, result = self._play_external_opponents(population)
            reward += extra
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
            from .picture import render_picture
            return render_picture(self.state)
        return None

    # Helpers ----------------------------------------------------------------------------

    def _resolve_step_kernel(self):
        return compiled_entry_point(env_step, (*self._arguments_before_action, 0,
                                               *self._arguments_after_action))

    def __getstate__(self):
        state = self.__dict__.copy()
        # Machine code does not pickle, and a pickled view would no longer share memory
        # with its array: both are made again on load.
        del state["_step_kernel"], state["_reset_kernel"], state["_mask_as_int8"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._mask_as_int8 = self._mask.view(np.int8)
        self._step_kernel = self._reset_kernel = None
        if self._arguments_after_action:
            self._step_kernel = self._resolve_step_kernel()

    @property
    def state(self) -> np.ndarray:
        """The game's state array (state_layout.py), which the compiled step holds: write
        into it (`env.state[:] = saved`); it cannot be replaced by another array."""
        return self._state

    @property
    def game(self) -> Game:
        """A live facade over the current game (shares the state; do not apply actions)."""
        return self._game_view

    def _check_action_type(self, action):
        """The action as an int, or unchanged if it is not an integer (then illegal)."""
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

    def _play_external_opponents(self, population_before: int):
        """Python opponents (and compiled ones between them) play up to the learner."""
        while not self.state[s.GAME_OVER] and self.state[s.CURRENT_PLAYER] != self.learner:
            seat = int(self.state[s.CURRENT_PLAYER])
            policy = self.external_opponents[seat]
            view = Game.from_state(self.config, self.state)
            choice = policy.act(view) if hasattr(policy, "act") else policy(view)
            try:
                number = view.action_number(choice)
            except NotationError as error:
                raise IllegalActionError(f"opponent in seat {seat} chose an illegal action: "
                                         f"{error}") from None
            if not view.is_legal(number):
                reason = (view._illegal_reason(number) if 0 <= number < a.NUM_ACTIONS
                          else f"action {shown(number)} is outside 0..{a.NUM_ACTIONS - 1}")
                raise IllegalActionError(f"opponent in seat {seat} chose an illegal action: "
                                         f"{reason}")
            apply_legal_action(self.state, TILES.table, GOALS.table, TILES.basic_kinds, number,
                               self._log)
            play_opponents(self.state, TILES.table, GOALS.table, TILES.basic_kinds, self.learner,
                           self.opponent_kinds, self._opponent_words, self._mask, self._actions,
                           self._log)
        return finish_learner_step(self.state, TILES.table, TILES.basic_kinds, self.learner,
                                   self.reward_scheme, self.population_shaping, population_before,
                                   self._observation, self._encoded, self._mask, self._actions)

    def _current_observation(self):
        if self.observation_format == "flat":
            return self._observation.copy()
        return {"observation": self._observation.copy(),
                "action_mask": self._mask_as_int8.copy()}

    def _info(self, game_over: bool) -> dict:
        """Between decisions the learner is always the one to act (opponents have played)."""
        if not game_over:
            return {"learner_seat": self.learner, "current_player": self.learner}
        game = self.game
        return {"learner_seat": self.learner, "current_player": -1,
                "final_scores": game.final_scores(), "winners": game.winners}
