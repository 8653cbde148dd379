"""Misuse of every entry point raises the project's own exception (a SuburbiaError
subclass that is also the builtin it replaces) with a message naming the problem, and
leaves the game as it was; `Game.is_legal` answers False for anything that is not a
legal action, whatever its type or size (issue 22, item 3). The environments' own cases
are in test_misuse_env_errors.py."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import AgentSpecError, make_agent
from misuse_inputs import NOT_ACTION_NUMBERS, assert_names_the_problem, case_id
from suburbia_env import NUM_ACTIONS, Game, GameConfig, positions
from suburbia_env.errors import (ArgumentError, ConfigError, GameOverError, IllegalActionError,
                                 NotationError, StateFormatError, SuburbiaError, shown)
from suburbia_env.formats.notation import format_action, parse_action
from suburbia_env.engine.rng import secret_words
from suburbia_env.envs.vector_env import SuburbiaVectorEnv

HUGE_DIGITS = "9" * 5000

# Text that is not a line of the notation (or names an impossible slot, cell or goal).
BAD_NOTATION = [
    "", " ", "\n", "\x00", "pass\x00", "\x1b[2Jpass", "pass please", "buy", "buy 1",
    "buy 1 @", "buy 1 @ 0", "buy -1 @ 0,0", "buy 7 @ 0,0", "buy 1 @ 7,0", "buy 1 @ 0,9",
    f"buy {HUGE_DIGITS} @ 0,0", f"buy 1 @ {HUGE_DIGITS},0", f"buy 1 @ 0,-{HUGE_DIGITS}",
    f"invest {HUGE_DIGITS},{HUGE_DIGITS}", f"discard {HUGE_DIGITS}", f"remove {HUGE_DIGITS}",
    "discard 0000000000007", "basic castle @ 0,0", "keep Nobody's Goal", "keep " + "x" * 10**5,
    "buy \u0663 @ 0,0", "invest \uff10,\uff10", "b\u0075y 1 @ 0,0 extra", "x" * 10**6,
    "pass " * 1000, "ｐａｓｓ",
]


def _same(before: Game, after: Game) -> None:
    assert np.array_equal(before.state, after.state)
    assert before.history == after.history


def _turn_game() -> Game:
    """A 2-player game at a turn decision (goals kept)."""
    game = Game(2, seed=3)
    while game.pending_decision == "keep_goal":
        game.apply(game.legal_actions()[0])
    return game


# Errors are one family -------------------------------------------------------------------

def test_every_error_class_is_a_suburbia_error_and_keeps_its_builtin():
    for cls, builtin in ((ConfigError, ValueError), (ArgumentError, ValueError),
                         (IllegalActionError, ValueError), (NotationError, ValueError),
                         (StateFormatError, ValueError), (GameOverError, RuntimeError),
                         (AgentSpecError, ValueError)):
        assert issubclass(cls, SuburbiaError) and issubclass(cls, builtin), cls


def test_shown_keeps_messages_short_for_huge_values():
    assert shown(10**5000) == "<an integer of about 5001 digits>"
    assert shown(-(2**200)).startswith("-<an integer of about 61")
    assert len(shown("x" * 10**6)) < 100 and "1000000 characters" in shown("x" * 10**6)
    assert shown(3) == "3" and shown("pass") == "'pass'"


# Game ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("action", NOT_ACTION_NUMBERS + BAD_NOTATION,
                         ids=case_id)
def test_is_legal_answers_false_and_apply_refuses_with_state_unchanged(action):
    game = _turn_game()
    before = game.copy()
    assert game.is_legal(action) is False
    with pytest.raises((IllegalActionError, NotationError)) as raised:
        game.apply(action)
    assert_names_the_problem(str(raised.value))
    _same(before, game)
    assert game.is_legal(game.legal_actions()[0]) is True  # the game still plays


def test_messages_name_the_problem():
    game = _turn_game()
    with pytest.raises(NotationError, match="market slot .* is far too large"):
        game.apply(f"buy {HUGE_DIGITS} @ 0,0")
    with pytest.raises(NotationError, match="an action is an integer or a line of notation, "
                                            "not 3.5"):
        game.apply(3.5)
    with pytest.raises(IllegalActionError, match=r"is outside 0\.\.2122"):
        game.apply(2**63)
    with pytest.raises(IllegalActionError, match="about 5001 digits.* is outside"):
        game.apply(10**5000)
    with pytest.raises(NotationError, match="is not an action; expected one of"):
        game.apply("x" * 10**6)


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 2**63, 3.5, None, "1", True])
def test_action_to_text_refuses_what_is_not_an_action_number(action):
    with pytest.raises(NotationError):
        _turn_game().action_to_text(action)
    with pytest.raises(NotationError):
        format_action(action)


@pytest.mark.parametrize("text", BAD_NOTATION + [None, 5, b"pass", ["pass"]],
                         ids=case_id)
def test_parse_action_refuses_with_notation_error(text):
    with pytest.raises(NotationError) as raised:
        parse_action(text, _turn_game().state)
    assert_names_the_problem(str(raised.value))


@pytest.mark.parametrize("options, message", [
    (dict(players=0), "wrong player count"), (dict(players=5), "wrong player count"),
    (dict(players="2"), "players must be a whole number"),
    (dict(players=2.0), "players must be a whole number"),
    (dict(players=True), "players must be a whole number"),
    (dict(players=10**5000), "wrong player count.*about 5001 digits"),
    (dict(mode="chess"), "mode must be one of"), (dict(mode=np.array([1, 2])), "mode must be"),
    (dict(mode=["standard"]), "mode must be"), (dict(edition="3rd"), "edition must be"),
    (dict(seed=-1), "seed must be a non-negative integer"),
    (dict(seed="7"), "seed must be"), (dict(seed=1.5), "seed must be"),
    (dict(seed=None), "seed must be"), (dict(seed=True), "seed must be"),
    (dict(log_capacity=-1), "log_capacity must be"), (dict(log_capacity="9"), "log_capacity"),
    (dict(log_capacity=10**12), "log_capacity"),
], ids=case_id)
def test_game_configuration_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        Game(**options)


def test_huge_seeds_are_seeds():
    assert Game(2, seed=10**5000).state is not None


@pytest.mark.parametrize("seat", [-1, 2, 4, 2**63, 10**5000, 1.0, "0", None, True,
                                  np.int64(-1)], ids=case_id)
def test_seat_queries_refuse_with_argument_error(seat):
    game = _turn_game()
    before = game.copy()
    for query in (game.player_state, game.private_goal, game.goal_options,
                  lambda seat: game.redraw_hidden(seat, secret_words())):
        with pytest.raises(ArgumentError, match=r"player must be a seat 0\.\.1") as raised:
            query(seat)
        assert_names_the_problem(str(raised.value))
    _same(before, game)


@pytest.mark.parametrize("words", [None, 7, [1, 2, 3], [1.0, 2.0, 3.0, 4.0], "abcd",
                                   [2**31, 0, 0, 0], np.zeros((2, 2), dtype=np.int32),
                                   [10**5000, 1, 1, 1]], ids=case_id)
def test_redraw_hidden_refuses_what_are_not_generator_words(words):
    game = _turn_game()
    before = game.copy()
    with pytest.raises(ArgumentError, match="words must be four int32 generator words") as raised:
        game.redraw_hidden(0, words)
    assert_names_the_problem(str(raised.value))
    _same(before, game)


def test_wrapping_a_malformed_state_is_refused():
    config = GameConfig(2)
    for state in (np.zeros(3, dtype=np.int32), "state", None, np.zeros((2, 2220)),
                  np.zeros(Game(2).state.size, dtype=np.float64)):
        with pytest.raises(StateFormatError, match="a game state is an integer array"):
            Game.from_state(config, state)
    with pytest.raises(ConfigError, match="config must be a GameConfig"):
        Game.from_state({"players": 2}, Game(2).state)
    with pytest.raises(StateFormatError, match="int32"):
        Game.view(config, Game(2).state.astype(np.int64))
    with pytest.raises(StateFormatError, match="int32"):
        Game.view(config, list(Game(2).state))
    beyond = Game(2).state.astype(np.int64)
    beyond[5] = 2**40
    with pytest.raises(StateFormatError, match="beyond"):
        Game.from_state(config, beyond)
    assert np.array_equal(Game.from_state(config, list(Game(2).state)).state, Game(2).state)


def test_a_finished_game_refuses_actions_and_a_running_one_has_no_scores():
    game = Game(1, "solitary", seed=1)
    with pytest.raises(GameOverError, match="not over yet"):
        game.final_scores()
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    before = game.copy()
    for action in ("pass", 0, NUM_ACTIONS - 1, 2**63, 3.5):
        assert game.is_legal(action) is False
        with pytest.raises(GameOverError):
            game.apply(action)
    _same(before, game)


# SB3 adapter ---------------------------------------------------------------------------------------

def test_sb3_adapter_errors():
    from suburbia_env.envs.sb3 import SB3VectorEnv
    with pytest.raises(ConfigError, match="observation_format='flat'"):
        SB3VectorEnv(SuburbiaVectorEnv(2, num_threads=1))
    adapter = SB3VectorEnv(num_envs=2, num_threads=1)
    adapter.reset()
    with pytest.raises(IllegalActionError, match="actions must be 2 integers"):
        adapter.step_async([[1], [2, 3]])
    adapter.step_async([0.5, 1.5])
    with pytest.raises(IllegalActionError, match="dtype float64"):
        adapter.step_wait()


# Agent specs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, message", [
    ("ppo-rollout:x,100000,100000", "at most 4096 trials"),
    ("ppo-rollout:x," + HUGE_DIGITS, "K and S must be whole numbers"),
    ("ppo-search:x,1," + "9" * 4000, "at most 4096 trials"),
    ("greedy:" + HUGE_DIGITS, "finite"),
    ("x" * 10**5, "unknown agent spec"),
    (None, "an agent spec is text"),
], ids=case_id)
def test_agent_spec_errors_are_suburbia_errors(spec, message):
    with pytest.raises(AgentSpecError, match=message) as raised:
        make_agent(spec)
    assert isinstance(raised.value, SuburbiaError) and isinstance(raised.value, ValueError)
    assert_names_the_problem(str(raised.value))


@pytest.mark.parametrize("edit, message", [
    (lambda g: positions.set_player_values(g, 2, money=3), "player must be a whole number 0..1"),
    (lambda g: positions.set_player_values(g, True, money=3), "player must be a whole number"),
    (lambda g: positions.set_player_values(g, 0, money="5"), "money must be a whole number"),
    (lambda g: positions.set_player_values(g, 0, money=3.7), "money must be a whole number"),
    (lambda g: positions.set_player_values(g, 0, money=2**40), "money must be a whole number"),
    (lambda g: positions.set_player_values(g, 0, cash=3), "unknown player value 'cash'"),
    (lambda g: positions.set_market_tile(g, 7, None), "slot must be a whole number 0..6"),
    (lambda g: positions.set_market_tile(g, "0", None), "slot must be a whole number 0..6"),
    (lambda g: positions.set_market_tile(g, 0, "Dragon Lair"), "no tile is called 'Dragon Lair'"),
    (lambda g: positions.set_market_tile(g, 0, "One More Round"), "no tile is called"),
    (lambda g: positions.put_tile_without_effects(g, 0, "Farm", 40, 2), "cell 40,2 is off"),
    (lambda g: positions.put_tile_without_effects(g, 0, "Farm", 0, "1"), "row must be a whole"),
    (lambda g: positions.put_tile_without_effects(g, 0, "Farm", 0, 0), "cell 0,0 of player 0 "
                                                                       "is not empty"),
    (lambda g: positions.put_tile_without_effects(g, 0, 7, 0, 3), "no tile is called 7"),
    (lambda g: positions.invest_without_effects(g, 0, 3, 3), "cell 3,3 of player 0 is empty"),
    (lambda g: positions.set_current_player(g, -1), "player must be a whole number 0..1"),
])
def test_hand_made_positions_refuse_bad_arguments_and_change_nothing(edit, message):
    """positions.py is a public door too: a bad argument raises ArgumentError (once a bare
    ValueError, KeyError or TypeError) and leaves the game as it was."""
    game = Game(2, seed=3)
    game.apply(game.legal_actions()[0])
    before = game.state.copy()
    with pytest.raises(ArgumentError, match=message):
        edit(game)
    assert np.array_equal(game.state, before)
