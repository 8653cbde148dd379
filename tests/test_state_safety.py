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

from state_corruptions import CORRUPTIONS, check_guarded_kernels, corrupted, midgame
from suburbia_env import Game, StateFormatError
from suburbia_env import state_layout as s
from suburbia_env.game import GameConfig
from suburbia_env.invariants import check_invariants, validate_state
from suburbia_env.tile_data import TILES

DRIVER = Path(__file__).with_name("state_corruptions.py")
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
