"""`Game`: the Python facade over the compiled core.

A game is a flat int32 state vector (state_layout.py) changed only by the numba
kernels; this class validates input, converts notation and reports results. It holds
no rule of its own.
"""

from __future__ import annotations

import numpy as np

from .engine import action_space as a
from .engine import constants as c
from .engine import event_log as ev
from .engine import state_layout as s
from .errors import (ArgumentError, ConfigError, GameOverError, IllegalActionError,
                     NotationError, StateFormatError, SuburbiaError, shown)
from .engine.hex_grid import cell_coordinates
from .engine.hidden_information import redraw_hidden_information
from .engine.checks.invariants import validate_state
from .engine.game_config import GameConfig
from .engine.legal_actions import illegal_reason, is_legal_action, legal_action_mask
from .formats.notation import format_action, parse_action
from .formats.reading import quoted
from .formats.records import read_record, record_document
from .formats.state_reader import read_state_json
from .formats.state_writer import game_to_json
from .engine.rng import seed_words
from .engine.scoring import ladder_rank
from .engine.setup import new_game
from .engine.tile_data import GOALS, TILES
from .engine.tile_table import tile_cost
from .engine.turn import STATUS_OK, apply_action

DEFAULT_LOG_CAPACITY = 512


class Game:
    """One game of Suburbia.

    >>> game = Game(players=2, seed=7)
    >>> game.pending_decision
    'keep_goal'
    >>> game.apply(game.legal_actions_text()[0])  # doctest: +ELLIPSIS
    [...]
    """

    def __init__(self, players: int = 2, mode: str = "standard", edition: str = "2nd",
                 seed: int = 0, random_private_goals: bool = False,
                 log_capacity: int = DEFAULT_LOG_CAPACITY):
        self.config = GameConfig(players, mode, edition, bool(random_private_goals))
        _check_log_capacity(log_capacity)
        self.seed = seed
        self.state = np.zeros(s.STATE_SIZE, dtype=np.int32)
        new_game(self.state, TILES.table, GOALS.table, TILES.basic_kinds, self.config.seats,
                 self.config.mode_id, self.config.edition_id, int(random_private_goals),
                 seed_words(seed)[0])
        self.history: list[str] = []
        self._attach_buffers(log_capacity)

    def _attach_buffers(self, log_capacity: int) -> None:
        """The event log and the mask buffers every decision reuses."""
        self._log = ev.new_log(log_capacity)
        self._mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
        self._actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
        self.last_events = np.zeros((0, ev.NUM_EVENT_FIELDS), dtype=np.int32)

    @classmethod
    def from_state(cls, config: GameConfig, state: np.ndarray, seed: int | None = None,
                   history: list[str] | None = None) -> "Game":
        """A game around an existing state vector (copied); used by the state reader.

        The state must be one play can hold (`invariants.validate_state`, issue 22):
        compiled code indexes by its values, so a corrupted state is refused here.
        """
        state = np.array(_state_array(config, state), dtype=np.int32, copy=True)
        validate_state(state, config)
        return cls._around(config, state, seed, history)

    @classmethod
    def _around(cls, config, state, seed, history) -> "Game":
        game = cls.__new__(cls)
        game.config = config
        game.seed = seed
        game.state = np.array(state, dtype=np.int32, copy=True)
        game.history = list(history or [])
        game._attach_buffers(DEFAULT_LOG_CAPACITY)
        return game

    @classmethod
    def view(cls, config: GameConfig, state: np.ndarray) -> "Game":
        """A game sharing `state` without copying it (the environments' live view)."""
        if _state_array(config, state) is not state or state.dtype != np.int32:
            raise StateFormatError(f"a game view needs an int32 state array, "
                                   f"not {type(state).__name__} of {np.asarray(state).dtype}")
        game = cls.__new__(cls)
        game.config, game.seed, game.state, game.history = config, None, state, []
        game._attach_buffers(DEFAULT_LOG_CAPACITY)
        return game

    def copy(self) -> "Game":
        """An independent game: playing on the copy leaves this one untouched."""
        twin = Game._around(self.config, self.state, self.seed, self.history)
        twin._attach_buffers(self._log.shape[0] - 1)
        return twin

    # Decisions ---------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return bool(self.state[s.GAME_OVER])

    @property
    def current_player(self) -> int:
        """The seat that decides now, -1 when the game is over."""
        return int(self.state[s.CURRENT_PLAYER])

    @property
    def pending_decision(self) -> str:
        """One of: keep_goal, turn, discard, remove, none (game over)."""
        return c.DECISION_NAMES[int(self.state[s.PENDING_DECISION])]

    @property
    def num_seats(self) -> int:
        return int(self.state[s.NUM_PLAYERS])

    @property
    def round(self) -> int:
        return int(self.state[s.ROUND])

    def legal_action_mask(self) -> np.ndarray:
        """bool[NUM_ACTIONS]; at game over PASS alone is set (the terminal mask)."""
        legal_action_mask(self.state, TILES.table, TILES.basic_kinds, self._mask, self._actions)
        return self._mask.copy()

    def legal_actions(self) -> np.ndarray:
        """The legal action numbers, in increasing order; empty when the game is over."""
        if self.is_over:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.legal_action_mask())

    def legal_actions_text(self) -> list[str]:
        return [format_action(action, self.state) for action in self.legal_actions()]

    def action_to_text(self, action: int) -> str:
        return format_action(action, self.state)

    def text_to_action(self, text: str) -> int:
        return parse_action(text, self.state)

    def is_legal(self, action: int | str) -> bool:
        """Whether `action` (a number or a line of notation) may be applied now; False for
        anything that is not a legal action, whatever its type or size."""
        try:
            number = self.action_number(action)
        except SuburbiaError:
            return False
        if not 0 <= number < a.NUM_ACTIONS:  # the compiled check takes an int64
            return False
        return bool(is_legal_action(self.state, TILES.table, TILES.basic_kinds, number))

    def action_number(self, action: int | str) -> int:
        """The action number of a number or a line of notation (agents may answer either)."""
        if isinstance(action, str):
            return parse_action(action, self.state)
        if not a.is_action_integer(action):
            raise NotationError(f"an action is an integer or a line of notation, "
                                f"not {shown(action)}")
        return int(action)

    def apply(self, action: int | str) -> list[str]:
        """Apply one decision (number or notation) and return the log of what it caused.

        Raises GameOverError on a finished game, NotationError on unreadable text and
        IllegalActionError (state untouched) on an action that is not legal now.
        """
        if self.is_over:
            raise GameOverError("the game is over: no action can be applied")
        number = self.action_number(action)
        if not 0 <= number < a.NUM_ACTIONS:
            raise IllegalActionError(f"action {shown(number)} is outside 0..{a.NUM_ACTIONS - 1}")
        text = format_action(number, self.state)
        self._log[0, :] = 0
        if apply_action(self.state, TILES.table, GOALS.table, TILES.basic_kinds, number,
                        self._log) != STATUS_OK:  # checked and applied in one compiled call
            raise IllegalActionError(self._illegal_reason(number))
        self.history.append(text)
        self.last_events = self._log[1:self._log[0, 0] + 1].copy()
        from .display.render import describe_events
        return describe_events(self.last_events, self.config.mode == "dale")

    def redraw_hidden(self, viewer: int, words: np.ndarray) -> None:
        """Deal anew, from generator `words` (int32[4]), everything `viewer` cannot see: the
        unseen stack order, One More Round's place and the others' goals (R10.2,
        hidden_information.py). An undo or a load calls it with `rng.secret_words`, so that
        taking a move back or loading again never shows what comes next. The game is then
        no deal of its seed, so it forgets the seed."""
        self._check_seat(viewer)
        given = np.asarray(words) if isinstance(words, (np.ndarray, list, tuple)) else None
        if (given is None or given.shape != (4,) or given.dtype.kind not in "iu"
                or given.min() < -2**31 or given.max() >= 2**31):
            raise ArgumentError(f"words must be four int32 generator words "
                                f"(rng.secret_words), not {shown(words)}")
        words = given.astype(np.int32)
        redraw_hidden_information(self.state, TILES.table, GOALS.table, int(viewer), words)
        self.seed = None

    def _illegal_reason(self, number: int) -> str:
        """The refusal names the rule that forbids the action (legal_actions.illegal_reason)
        and the pending decision, then a few legal actions."""
        text = format_action(number, self.state)
        why = illegal_reason(self.state, TILES.table, TILES.basic_kinds, number)
        legal = self.legal_actions_text()
        listed = ", ".join(legal[:6]) + (f", ... ({len(legal)} in all)" if len(legal) > 6 else "")
        return (f"illegal action {text!r} (number {number}) for player {self.current_player}: "
                f"{why}; the pending decision is {self.pending_decision!r}; legal now: {listed}")

    # Public state ------------------------------------------------------------------

    def player_state(self, player: int) -> dict:
        """The public state of one seat (R10.1); the private goal is included for the
        seat itself only through `private_goal(player)`."""
        self._check_seat(player)
        borough = []
        for position in range(int(s.tile_count(self.state, player))):
            cell = int(s.placed_cell(self.state, player, position))
            flags = int(s.cell_flags(self.state, player, cell))
            column, row = cell_coordinates(cell)
            kind = int(s.cell_kind(self.state, player, cell))
            borough.append({"col": column, "row": row, "tile": TILES.names[kind],
                            "lake": bool(flags & s.FLAG_LAKE),
                            "invested": bool(flags & s.FLAG_INVESTED)})
        return {
            "player": player,
            "is_dale": self.config.mode == "dale" and player == c.DALE_SEAT,
            "money": int(s.money(self.state, player)),
            "income": int(s.income(self.state, player)),
            "reputation": int(s.reputation(self.state, player)),
            "population": int(s.population(self.state, player)),
            "markers_left": int(s.markers_left(self.state, player)),
            "borough": borough,
        }

    def private_goal(self, player: int) -> str | None:
        self._check_seat(player)
        goal = int(s.private_goal(self.state, player))
        return GOALS.names[goal] if goal >= 0 else None

    def goal_options(self, player: int) -> list[str]:
        """The two goals a player drew at setup (R3.6); hidden from the other players."""
        self._check_seat(player)
        return [GOALS.names[g] for g in s.goal_options(self.state, player) if g >= 0]

    @property
    def public_goals(self) -> list[str]:
        return [GOALS.names[g] for g in s.public_goals(self.state) if g >= 0]

    def market(self) -> list[dict]:
        """Occupied slots with tile, cost, premium and total price (R4.1)."""
        rows = []
        for slot in range(c.NUM_SLOTS):
            kind = int(s.market_slot(self.state, slot))
            if kind >= 0:
                premium = c.SLOT_PREMIUMS[slot]
                cost = tile_cost(TILES.table, kind)
                rows.append({"slot": slot, "tile": TILES.names[kind], "cost": cost,
                             "premium": premium, "price": cost + premium})
        return rows

    def stack_sizes(self) -> dict[str, int]:
        """Tiles left in each stack (R10.1); One More Round counts in C."""
        position = int(self.state[s.PILE_POSITION])
        bounds = {"A": (0, int(self.state[s.PILE_A_END])),
                  "B": (int(self.state[s.PILE_A_END]), int(self.state[s.PILE_B_END])),
                  "C": (int(self.state[s.PILE_B_END]), int(self.state[s.PILE_END]))}
        return {name: max(0, stop - max(start, position)) for name, (start, stop) in bounds.items()}

    def supply(self) -> dict[str, int]:
        return {name: int(s.supply(self.state, index))
                for index, name in enumerate(c.BASIC_NOTATION_NAMES)}

    # End of game ---------------------------------------------------------------------

    def final_scores(self) -> list[dict]:
        """Per seat: population before goals, each goal awarded, money converted, final
        population, money kept and whether it won (R8.2, R8.3)."""
        if not self.is_over:
            raise GameOverError("the game is not over yet: no final score")
        public = s.public_goals(self.state).tolist()
        public_goals = [(index, GOALS.names[goal]) for index, goal in enumerate(public)
                        if goal >= 0]
        scores = []
        for player in range(self.num_seats):
            state = self.state
            private = int(s.private_goal(state, player))
            bonuses = s.public_goal_bonuses(state, player)
            scores.append({
                "player": player,
                "population_before_goals": int(
                    s.score_entry(state, player, s.SCORE_POPULATION_BEFORE_GOALS)),
                "public_goals": {name: int(bonuses[index]) for index, name in public_goals},
                "private_goal": GOALS.names[private] if private >= 0 else None,
                "private_goal_bonus": int(s.score_entry(state, player, s.SCORE_PRIVATE_GOAL)),
                "money_converted": int(s.score_entry(state, player, s.SCORE_MONEY_CONVERTED)),
                "population": int(s.score_entry(state, player, s.SCORE_FINAL_POPULATION)),
                "money_left": int(s.money(state, player)),
                "reputation": int(s.reputation(state, player)),
                "income": int(s.income(state, player)),
                "winner": bool(s.score_entry(state, player, s.SCORE_WINNER)),
            })
        return scores

    @property
    def winners(self) -> list[int]:
        if not self.is_over:
            raise GameOverError("the game is not over yet: no winner")
        return [p for p in range(self.num_seats)
                if s.score_entry(self.state, p, s.SCORE_WINNER)]

    def solo_rank(self, player: int = 0) -> str | None:
        """The ladder title of R9.1 for a solo game; with Dale only if he was beaten."""
        if self.config.mode == "standard" or not self.is_over:
            return None
        if self.config.mode == "dale" and self.winners != [0]:
            return None
        return ladder_rank(int(s.score_entry(self.state, player, s.SCORE_FINAL_POPULATION)))

    def _check_seat(self, player: int) -> None:
        if (not isinstance(player, (int, np.integer)) or isinstance(player, (bool, np.bool_))
                or not 0 <= player < self.num_seats):
            raise ArgumentError(f"player must be a seat 0..{self.num_seats - 1}, "
                                f"not {shown(player)}")

    # Saving, records, rendering ---------------------------------------------------------

    def to_json(self) -> str:
        """The state format (docs/state-format.md); `from_json` restores the game exactly."""
        return game_to_json(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> "Game":
        """The game of a state-format text; StateFormatError names the field at fault and
        the rule. Only states that play can reach load (engine/checks)."""
        return cls.from_state(*read_state_json(text))

    def record(self) -> dict:
        """The game record: config, seed and the actions in notation (replays exactly).

        The record is checked by replaying it: a game loaded from a state file or edited
        by hand (positions.py) has a history that does not lead to its state, and its
        record would silently replay into another game, so StateFormatError is raised.
        """
        if self.seed is None:
            raise StateFormatError("seed: this game has no seed (it was loaded from a state "
                                   "file without one), so no record can set it up again")
        record = record_document(self.config, self.seed, self.history)
        try:
            replayed = Game.replay(record)
        except StateFormatError as error:
            raise StateFormatError(f"this game's history cannot be replayed from its seed "
                                   f"({error}); was it loaded from a state file or edited by "
                                   f"hand?") from None
        if not np.array_equal(replayed.state, self.state):
            raise StateFormatError("actions: replaying this game's history from its seed does "
                                   "not reach its state; a game loaded from a state file or "
                                   "edited by hand has no record")
        return record

    @classmethod
    def replay(cls, record: dict | str | bytes) -> "Game":
        """Set the game of a record up again and apply its actions in order.

        StateFormatError names the first field at fault, for actions the index of the
        first one that is malformed or illegal, e.g. ``actions[12]: 'buy 9 @ 0,3': ...``.
        """
        config, seed, actions = read_record(record)
        game = Game(config.players, config.mode, config.edition, seed,
                    config.random_private_goals)
        for index, action in enumerate(actions):
            try:
                game.apply(action)
            except SuburbiaError as error:  # NotationError, IllegalActionError, GameOverError
                raise StateFormatError(f"actions[{index}]: {quoted(action)}: {error}") from None
        return game

    def render(self) -> str:
        from .display.render import render_game
        return render_game(self)

    def __repr__(self) -> str:
        return (f"Game(players={self.config.players}, mode={self.config.mode!r}, "
                f"edition={self.config.edition!r}, round={self.round}, "
                f"pending={self.pending_decision!r}, player={self.current_player})")


def _check_log_capacity(log_capacity) -> None:
    if (not isinstance(log_capacity, (int, np.integer)) or isinstance(log_capacity, bool)
            or not 0 <= log_capacity <= 1_000_000):
        raise ConfigError(f"log_capacity must be a whole number 0..1000000 (events kept per "
                          f"decision), not {shown(log_capacity)}")


def _state_array(config, state) -> np.ndarray:
    """`state` as an integer array of the state's shape and int32 values, checked before
    `from_state` or `view` wraps it (what the values mean is the checks' to say)."""
    if not isinstance(config, GameConfig):
        raise ConfigError(f"config must be a GameConfig, not {shown(config)}")
    try:
        array = np.asarray(state)
    except (ValueError, TypeError, OverflowError):
        array = None
    if array is None or array.shape != (s.STATE_SIZE,) or array.dtype.kind not in "iu":
        described = (f"an array of shape {array.shape} and dtype {array.dtype}"
                     if array is not None else shown(state))
        raise StateFormatError(f"a game state is an integer array of shape ({s.STATE_SIZE},), "
                               f"not {described}")
    if array.dtype.itemsize > 4 or array.dtype.kind == "u":
        limits = np.iinfo(np.int32)
        if array.min() < limits.min or array.max() > limits.max:
            raise StateFormatError("a game state holds int32 values; this one has values "
                                   "beyond them")
    return array
