"""Suburbia as an OpenSpiel game: `pyspiel.load_game("python_suburbia")` (issue 20).

Importing this module registers the game; it needs the `openspiel` extra
(`pip install -e ".[openspiel]"`). The wrapper holds no rule: every decision goes through
`Game` (game.py) and the compiled engine; docs/openspiel.md shows what it enables.

| parameter | values                       | meaning                                                   |
|-----------|------------------------------|-----------------------------------------------------------|
| `players` | 2-4 (standard), 1 (dale)     | OpenSpiel players; Dale is not one, the engine plays him   |
| `mode`    | "standard" (default), "dale" | R3 to R8, or one player against Dale (R9.2)               |
| `edition` | "2nd" (default), "1st"       | stack layout (R3.2, R3.3)                                 |
| `reward`  | "win_loss" (default), "margin" | +1 sole winner, 0 shared win, -1 loss (R8.3); or own final population minus the best other's, /100 (env_core.final_reward) |

Chance. The engine deals everything random at setup from one seeded generator
(rng.py, setup.py): the stacks' order and the tiles left in the box, the place of One
More Round in its block, the public goals, the goals each player draws and the first
player; later draws read the dealt stacks (market.py). So the chance player acts first,
SEED_BYTES times, each an explicit outcome of 256 equally likely bytes; together they are
the seed of `Game`, and that seed's deal decides every later draw, as shuffling the real
stacks does before play. A draw is therefore not a chance node of its own: the deal is
the one chance event, with explicit probabilities (2**-32 per seed). Given what a player
has seen, each consistent deal is as likely as in the engine (uniform shuffles), which is
what information-set search needs. Chance nodes per draw would have to redo the setup and
the draws outside the engine, which the engine does inside one step (the player's action,
Dale's turn and the next round's market are one `apply`).

Hidden information (R10.2). `information_state_string(p)` is perfect recall: the public
setup (market, public goals, first player, stack sizes), p's own drawn and kept goals,
then every decision in order with the draws it caused; another player's `keep` is shown
only as "keeps a goal". No chance outcome, stack order or other player's goal is in it.
`observation_string(p)` is the public board (render.py) with p's goals. Both tensors are
the shared observation encoder's vector (observation.py, 8759 floats, named parts) from
p's seat; it summarises the information state (it is not a perfect-recall record).

`state.resample_from_infostate(p, sampler)` (what OpenSpiel's IS-MCTS asks for) redraws
the hidden facts from p's information with `Game.redraw_hidden`:
the stacks, One More Round's place and the other players' goals. The resampled state
keeps the history of the original and its `seed` is None (no seed gives its deal), so it
is a world to search in, not a history to replay; it still serializes (OpenSpiel pickles
a Python state's attributes). Only a player's own view is provided: a public-only or
all-players observer is refused. Tested in tests/environments/test_openspiel.py,
including OpenSpiel's `random_sim_test` and IS-MCTS against Dale.
"""

from __future__ import annotations

import numpy as np

try:
    import pyspiel
except ImportError as error:  # the core install has no OpenSpiel
    raise ImportError('suburbia_env.envs.openspiel_game needs OpenSpiel: pip install -e '
                      '".[openspiel]"') from error

from ..engine import action_space as a
from ..engine import constants as c
from ..engine import event_log as ev
from ..engine import state_layout as s
from ..engine.env_core import REWARD_WIN_LOSS, final_reward
from .env_options import check_reward
from ..errors import ConfigError, IllegalActionError, shown
from ..game import Game, GameConfig
from ..engine.observation import OBSERVATION_PARTS, OBSERVATION_SIZE, encode_observation
from ..display.render import describe_event
from ..engine.rng import avoid_zero_state
from ..engine.setup import stack_sizes
from ..engine.tile_data import TILES

SHORT_NAME = "python_suburbia"
SEED_BYTES = 4
CHANCE_OUTCOMES = 256
DEFAULT_PARAMETERS = {"players": 2, "mode": "standard", "edition": "2nd",
                      "reward": "win_loss"}
MARGIN_BOUND = 10.0  # |margin| = |population difference| / 100; populations stay far below
PUBLIC_EVENTS = (ev.EVENT_DRAW, ev.EVENT_ONE_MORE_ROUND, ev.EVENT_DALE_BUY)  # what a decision reveals


def _game_type(zero_sum: bool) -> pyspiel.GameType:
    utility = (pyspiel.GameType.Utility.ZERO_SUM if zero_sum
               else pyspiel.GameType.Utility.GENERAL_SUM)
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Suburbia (suburbia_env engine)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULT_PARAMETERS),
    )


def _max_decisions(config: GameConfig) -> int:
    """A bound on a game's decisions: the keep decisions (R3.6), then four for every tile
    that can enter the market. A turn other than a pass takes a tile off the market
    (R5.1) and has at most two decisions (R5.1b, d); random games of 4 players took at
    most 85 decisions, this bound is 320 there."""
    sizes = stack_sizes(config.seats, config.mode_id, config.edition_id)
    return config.players + 4 * (int(sizes.sum()) + 1 + c.NUM_SLOTS)


class SuburbiaGame(pyspiel.Game):
    """The OpenSpiel game; parameters as in the module's table."""

    def __init__(self, params=None):
        values = {**DEFAULT_PARAMETERS, **(params or {})}
        players = values["players"]
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
            raise ConfigError(f"players must be a whole number, not {shown(players)}")
        config = GameConfig(int(players), values["mode"], values["edition"])
        if config.mode == "solitary":
            raise ConfigError("mode must be 'standard' or 'dale': Solitary Architect (R9.1) "
                              "has no opponent to play against")
        reward_scheme = check_reward(values["reward"])
        zero_sum = config.players == 2
        bound = 1.0 if reward_scheme == REWARD_WIN_LOSS else MARGIN_BOUND
        info = pyspiel.GameInfo(
            num_distinct_actions=a.NUM_ACTIONS, max_chance_outcomes=CHANCE_OUTCOMES,
            num_players=config.players, min_utility=-bound, max_utility=bound,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=SEED_BYTES + _max_decisions(config))
        super().__init__(_game_type(zero_sum), info, values)
        self.config = config
        self.reward_scheme = reward_scheme

    def new_initial_state(self):
        return SuburbiaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """A player's own view (public information and its own goals), with or without
        perfect recall; the views OpenSpiel can also ask for (public only, every
        player's private information) are not provided."""
        if params:
            raise ConfigError(f"python_suburbia observers take no parameters, not "
                              f"{shown(params)}")
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ConfigError(f"python_suburbia observes as one player, public information "
                              f"and that player's own goals (R10); not {iig_obs_type}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return SuburbiaObserver(perfect_recall)


class SuburbiaState(pyspiel.State):
    """A deal in progress (chance), then a `Game` and the public record of its decisions."""

    def __init__(self, game: SuburbiaGame):
        super().__init__(game)
        self._config = game.config
        self._reward_scheme = game.reward_scheme
        self._seed_bytes: list[int] = []
        self._game: Game | None = None
        self._setup_text = ""
        # (seat, the decision in notation, what the others see of it, what it revealed)
        self._record: list[tuple[int, str, str, str]] = []

    # Access for bots and tests ---------------------------------------------------------

    @property
    def seed(self) -> int | None:
        """The engine seed the deal chose; None before the deal is complete and in a
        world made by `resample_from_infostate`."""
        return None if self._game is None else self._game.seed

    def suburbia_game(self) -> Game:
        """A copy of the engine's game (hidden facts included: for agents and tests)."""
        if self._game is None:
            raise ValueError("the deal is not complete: no game yet")
        return self._game.copy()

    # OpenSpiel API ----------------------------------------------------------------------

    def current_player(self):
        if self._game is None:
            return pyspiel.PlayerId.CHANCE
        if self._game.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self._game.current_player

    def is_terminal(self):
        return self._game is not None and self._game.is_over

    def _legal_actions(self, player):
        return self._game.legal_actions().tolist()

    def chance_outcomes(self):
        probability = 1.0 / CHANCE_OUTCOMES
        return [(outcome, probability) for outcome in range(CHANCE_OUTCOMES)]

    def _apply_action(self, action):
        if self._game is None:
            if not a.is_action_integer(action) or not 0 <= action < CHANCE_OUTCOMES:
                raise IllegalActionError(f"a chance outcome is a seed byte "
                                         f"0..{CHANCE_OUTCOMES - 1}, not {shown(action)}")
            self._seed_bytes.append(int(action))
            if len(self._seed_bytes) == SEED_BYTES:
                self._deal(int.from_bytes(bytes(self._seed_bytes), "big"))
            return
        game = self._game
        seat = game.current_player
        text = game.action_to_text(action)
        game.apply(action)
        public = f"player {seat}: keeps a goal" if text.startswith("keep ") else ""
        revealed = "; ".join(describe_event(row, self._config.mode == "dale")
                             for row in game.last_events if row[ev.FIELD_EVENT] in PUBLIC_EVENTS)
        self._record.append((seat, f"player {seat}: {text}", public, revealed))

    def _deal(self, seed: int) -> None:
        config = self._config
        game = Game(config.players, config.mode, config.edition, seed)
        self._game = game
        market = ", ".join(f"{row['slot']} {row['tile']}" for row in game.market())
        stacks = ", ".join(f"{name} {count}" for name, count in game.stack_sizes().items())
        first = game.current_player if config.mode == "standard" else 0
        self._setup_text = (f"setup: first player {first}; market {market}; public goals "
                            f"{', '.join(game.public_goals)}; stacks {stacks}")

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        if self._game is None:
            return f"action {action}"
        return self._game.action_to_text(action)

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self._config.players
        return [float(final_reward(self._game.state, seat, self._reward_scheme))
                for seat in range(self._config.players)]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A world `player_id` cannot tell from this one: the hidden facts (R10.2) drawn
        anew from what the player knows (hidden_information.py)."""
        clone = self.clone()
        if clone._game is not None:
            words = np.array([int(probability_sampler() * 2**32) & 0xFFFFFFFF
                              for _ in range(4)], dtype=np.uint32).view(np.int32)
            avoid_zero_state(words)
            clone._game.redraw_hidden(int(player_id), words)
        return clone

    def __str__(self):
        if self._game is None:
            return f"dealing: {len(self._seed_bytes)} of {SEED_BYTES} seed bytes drawn"
        game = self._game
        goals = "; ".join(f"player {seat}: drew {', '.join(game.goal_options(seat))}, kept "
                          f"{game.private_goal(seat)}" for seat in range(self._config.players))
        origin = "a resampled world" if game.seed is None else f"seed {game.seed}"
        return (f"{origin}, {len(game.history)} decisions\n{game.render()}\n"
                f"goals: {goals}\nstacks in draw order: {self._pile_text()}")

    def _pile_text(self) -> str:
        state = self._game.state
        return ", ".join(TILES.names[s.pile_tile(state, position)]
                         for position in range(state[s.PILE_POSITION], state[s.PILE_END]))

    # Views of one player ------------------------------------------------------------------

    def information_text(self, player: int) -> str:
        """Everything `player` has seen, in order (perfect recall, R10.1); nothing hidden
        from them (R10.2)."""
        if self._game is None:
            return f"player {player}: before the deal"
        lines = [f"player {player} ({self._config.mode}, {self._config.players} players, "
                 f"edition {self._config.edition})", self._setup_text, self._own_goals(player)]
        for number, (seat, text, public, revealed) in enumerate(self._record, start=1):
            line = f"{number}. {text if seat == player or not public else public}"
            lines.append(f"{line} | {revealed}" if revealed else line)
        return "\n".join(lines)

    def observation_text(self, player: int) -> str:
        """The public board now (render.py) and `player`'s own goals."""
        if self._game is None:
            return f"player {player}: before the deal"
        return f"player {player}\n{self._own_goals(player)}\n{self._game.render()}"

    def _own_goals(self, player: int) -> str:
        game = self._game
        kept = game.private_goal(player)
        return (f"own goals drawn: {', '.join(game.goal_options(player)) or 'none'}; "
                f"kept: {kept or 'none yet'}")

    def write_tensor(self, player: int, out: np.ndarray) -> None:
        """The shared observation encoder's vector from `player`'s seat (zeros before
        the deal)."""
        if self._game is None:
            out[:] = 0.0
            return
        encode_observation(self._game.state, TILES.table, player, out)


class SuburbiaObserver:
    """OpenSpiel's observer protocol: a tensor (the encoder's vector, with named parts)
    and a string, perfect recall or not."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {name: self.tensor[part].reshape(shape)
                     for name, (part, shape) in OBSERVATION_PARTS.items()}

    def set_from(self, state: SuburbiaState, player: int) -> None:
        state.write_tensor(player, self.tensor)

    def string_from(self, state: SuburbiaState, player: int) -> str:
        if self.perfect_recall:
            return state.information_text(player)
        return state.observation_text(player)


def load_game(**parameters) -> SuburbiaGame:
    """`pyspiel.load_game("python_suburbia", parameters)`, with the parameters checked."""
    return pyspiel.load_game(SHORT_NAME, parameters)


class AgentBot(pyspiel.Bot):
    """A project agent (agents/, e.g. DaleAgent) as an OpenSpiel bot: it is handed a copy
    of the engine's game, as in the project's own tournaments."""

    def __init__(self, agent):
        pyspiel.Bot.__init__(self)
        self.agent = agent

    def step(self, state: SuburbiaState) -> int:
        game = state.suburbia_game()
        return game.action_number(self.agent.act(game))

    def restart_at(self, state) -> None:
        self.agent.reset()

    def inform_action(self, state, player_id, action) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False


pyspiel.register_game(_game_type(zero_sum=False), SuburbiaGame)
