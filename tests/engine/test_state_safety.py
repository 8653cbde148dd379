"""Compiled code never writes out of place (issue 22, item 2).

The kernels index arrays by values read from the state (kinds, cells, seats, goals, the
pending decision, stack bounds) and add to money and population in int32. Rather than
guard every index, every door by which an outside state enters the engine proves it
valid first with the compiled `invariants.check_invariants` (`validate_state`): the state
loader, positions.py and the redraw of hidden information (and Game.from_state, once
game.py calls it). Dale's turn guards itself as well (no free cell: no tile, never cell
-1). tests/state_corruptions.py holds the corrupted states and a driver of the kernels;
here it runs in process and in subprocesses with NUMBA_BOUNDSCHECK=1 (its own numba
cache, so the shared cache never holds bounds-checked code) and without.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from repository import REPO
from state_corruptions import CORRUPTIONS, check_guarded_kernels, corrupted, midgame
from suburbia_env import Game, StateFormatError
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.game import GameConfig
from suburbia_env.engine.hidden_information import redraw_hidden_information
from suburbia_env.engine.checks.bounds import MONEY_BOUND
from suburbia_env.engine.checks.invariants import (check_consistency, check_invariants,
                                                   check_reachable, check_reachable_or_raise,
                                                   validate_state)
from suburbia_env.positions import set_player_values
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import goal_excluded_with_dale

DRIVER = REPO / "tests" / "state_corruptions.py"
BOUNDSCHECK_CACHE = Path(tempfile.gettempdir()) / f"suburbia-boundscheck-numba-cache-{os.getuid()}"

IDS = [name for name, *_ in CORRUPTIONS]


@pytest.mark.parametrize("name, config, change, field", CORRUPTIONS, ids=IDS)
def test_the_entry_check_refuses_each_corrupted_state_and_changes_nothing(name, config,
                                                                         change, field):
    valid, broken = corrupted(config, change)
    validate_state(valid)
    snapshot = broken.copy()
    with pytest.raises(StateFormatError) as error:
        validate_state(broken)
    assert str(error.value).startswith(field + ":"), str(error.value)
    assert np.array_equal(broken, snapshot)


@pytest.mark.parametrize("name, config, change, field", CORRUPTIONS, ids=IDS)
def test_game_from_state_refuses_corrupted_states(name, config, change, field):
    _, broken = corrupted(config, change)
    with pytest.raises(StateFormatError):
        Game.from_state(GameConfig(**config), broken)


def test_validate_state_checks_type_shape_and_configuration():
    game = midgame(dict(players=2))
    validate_state(game.state, game.config)
    for wrong in (game.state.astype(np.int64), game.state[:-1], list(game.state)):
        with pytest.raises(StateFormatError, match="^state: a game state is an int32 array"):
            validate_state(wrong)
    with pytest.raises(StateFormatError, match="^config: the state is a game of 2 seats"):
        validate_state(game.state, GameConfig(players=3))


def test_kernels_that_guard_themselves_and_positions_edits():
    """Dale without a free cell takes no tile (no write to cell -1); a redraw for a viewer
    that is no seat is refused; positions.py refuses an edit that breaks the state."""
    check_guarded_kernels()


def test_every_state_of_random_play_passes_the_entry_check():
    """The doors refuse nothing that play reaches (the loop of test_properties.py checks
    thousands of games; here the Python door itself)."""
    for config in (dict(players=4), dict(players=1, mode="solitary"),
                   dict(players=1, mode="dale", edition="1st")):
        game = Game(seed=8, **config)
        rng = np.random.default_rng(8)
        while not game.is_over:
            validate_state(game.state, game.config)
            game.apply(int(rng.choice(game.legal_actions())))
        validate_state(game.state, game.config)
        assert check_invariants(game.state, TILES.table) == 0
        assert game.state[s.GAME_OVER] == 1


@pytest.mark.slow
@pytest.mark.parametrize("boundscheck", [False, True], ids=["plain", "NUMBA_BOUNDSCHECK=1"])
def test_kernels_driven_with_corrupted_states_in_a_subprocess(boundscheck):
    """tests/state_corruptions.py as a script: legal play of every mode through apply, the
    mask, the observation, Dale's turn and the redraw raises nothing (with bounds checks
    on, not even an IndexError); every corrupted state is refused unchanged."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("NUMBA_BOUNDSCHECK", None)
    if boundscheck:
        env["NUMBA_BOUNDSCHECK"] = "1"
        env["NUMBA_CACHE_DIR"] = str(BOUNDSCHECK_CACHE)  # never the shared cache
    result = subprocess.run([sys.executable, str(DRIVER)], env=env, capture_output=True,
                            text=True, timeout=3600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert result.stdout.strip().endswith("ALL OK"), result.stdout
    assert f"bounds checks: {'on' if boundscheck else 'off'}\n" in result.stdout, result.stdout


def _until(config: dict, predicate, seed: int = 5) -> Game:
    game = Game(seed=seed, **config)
    rng = np.random.default_rng(seed)
    while not predicate(game):
        assert not game.is_over, "no decision of this game fits"
        game.apply(int(rng.choice(game.legal_actions())))
    return game


def _unfinish(state):
    """A finished Dale game made to run on, its score blocks cleared (R9.2: drawing One More
    Round at a round start ends it at once)."""
    state[s.GAME_OVER] = 0
    state[s.PENDING_DECISION] = c.DECISION_TURN
    state[s.CURRENT_PLAYER] = 0
    for player in range(2):
        state[s.player_base(player) + s.SCORE:s.player_base(player) + s.ORDER] = 0


def test_one_more_round_drawn_without_a_final_round_is_refused():
    """A game whose One More Round is gone but no final round is set would never end (R4.3);
    one with a final round but One More Round still to draw ends early."""
    drawn = _until(dict(players=2), lambda g: g.state[s.FINAL_ROUND] >= 0 and not g.is_over)
    early = midgame(dict(players=2))
    dale = _until(dict(players=1, mode="dale"), lambda g: g.is_over)
    for game, change in ((drawn, lambda st: st.__setitem__(s.FINAL_ROUND, -1)),
                         (early, lambda st: st.__setitem__(s.FINAL_ROUND, st[s.ROUND] + 1)),
                         (dale, _unfinish)):
        state = game.state.copy()
        validate_state(state)
        change(state)
        with pytest.raises(StateFormatError, match="^final_round: "):
            validate_state(state)


def _reachable_gap(config, change, seed=5, decisions=12):
    game = midgame(config, seed, decisions)
    state = game.state.copy()
    change(state)
    return state


@pytest.mark.parametrize("config, decisions, change, field", [
    (dict(players=3), 12,
     lambda st: st.__setitem__(s.player_base((st[s.FIRST_PLAYER] + 2) % 3) + s.PRIVATE_GOAL, -1),
     "players[{}].private_goal"),
    (dict(players=2), 0, lambda st: st.__setitem__(s.RANDOM_PRIVATE_GOALS, 1), "pending_decision"),
    (dict(players=2), 12, lambda st: st.__setitem__(slice(s.RNG_STATE, s.RNG_STATE + 4), 0),
     "rng_state"),
    (dict(players=2), 12, lambda st: (st.__setitem__(s.BOX + TILES.basic_kinds[0],
                                                     st[s.BOX + TILES.basic_kinds[0]] - 1),
                                      st.__setitem__(s.DISCARDED + TILES.basic_kinds[0], 1)),
     f"discarded.{TILES.names[TILES.basic_kinds[0]]}"),
], ids=["a goal never kept", "goal choice with random goals", "generator all 0",
        "basic tile discarded"])
def test_check_reachable_refuses_what_the_loader_refuses(config, decisions, change, field):
    """The compiled check_reachable and the JSON loader accept the same states: a state
    vector that passed check_reachable once failed to load from its own saved text (the
    fuzz tests found goals kept out of turn order)."""
    state = _reachable_gap(config, change, decisions=decisions)
    if "{}" in field:
        field = field.format((int(state[s.FIRST_PLAYER]) + 2) % 3)
    assert check_invariants(state, TILES.table) == 0
    with pytest.raises(StateFormatError) as error:
        check_reachable_or_raise(state)
    assert str(error.value).startswith(field + ":"), str(error.value)
    game = Game.from_state(GameConfig(**config, random_private_goals=bool(
        state[s.RANDOM_PRIVATE_GOALS])), state)  # a hand-made position may hold it
    with pytest.raises(StateFormatError):
        Game.from_json(game.to_json())


def test_dale_public_goals_about_lakes_or_markers_are_not_reachable():
    game = midgame(dict(players=1, mode="dale"))
    dealt = set(game.state[s.PUBLIC_GOALS:s.PUBLIC_GOALS + 4]) | set(
        game.state[s.player_base(0) + s.GOAL_OPTIONS:s.player_base(0) + s.GOAL_OPTIONS + 2])
    excluded = next(goal for goal in range(GOALS.table.shape[0])
                    if goal_excluded_with_dale(GOALS.table, goal) and goal not in dealt)
    state = game.state.copy()
    state[s.PUBLIC_GOALS] = excluded
    assert check_invariants(state, TILES.table) == 0
    with pytest.raises(StateFormatError,
                       match=r"^public_goals\[0\]: .* not played with Dale \(R9\.2\)"):
        check_reachable_or_raise(state)


def test_play_from_a_hand_made_position_keeps_the_consistency_check():
    """check_invariants' bounds of money, population and round hold for what play reaches
    from a setup, not for play from any position within them: a hand-made position with
    money at MONEY_BOUND passes it and goes beyond in one turn. The redraw for searches
    checks check_consistency, so such a game is never refused halfway (it once was)."""
    game = midgame(dict(players=2))
    set_player_values(game, game.current_player, money=MONEY_BOUND, income=15)
    rng = np.random.default_rng(1)
    beyond = 0  # redraws of states past the bounds of check_invariants
    while not game.is_over:
        assert check_consistency(game.state, TILES.table) == 0
        beyond += check_invariants(game.state, TILES.table) != 0
        trial = game.state.copy()
        redraw_hidden_information(trial, TILES.table, GOALS.table, game.current_player,
                                  rng.integers(1, 2**31, size=4).astype(np.int32))
        assert check_consistency(trial, TILES.table) == 0
        game.apply(int(rng.choice(game.legal_actions())))
    assert beyond, "the position never went past MONEY_BOUND"
    assert check_consistency(game.state, TILES.table) == 0
    assert check_reachable(game.state, TILES.table) != 0


def test_a_goal_choice_waits_for_no_player_who_has_kept_one():
    """While goals are chosen, no seat still to choose may hold a kept goal: the engine
    would ask that player again (R3.6). A hand-made state like that passed the entry
    check and play from it broke the check (found by tests/engine/test_fuzz.py)."""
    game = Game(3, seed=2)
    game.apply(game.legal_actions()[0])  # the first player keeps; the next one chooses
    later = (game.state[s.FIRST_PLAYER] + 2) % 3
    state = game.state.copy()
    validate_state(state)
    state[s.player_base(later) + s.PRIVATE_GOAL] = state[s.player_base(later) + s.GOAL_OPTIONS]
    with pytest.raises(StateFormatError, match=rf"^players\[{later}\].private_goal: "):
        validate_state(state)
