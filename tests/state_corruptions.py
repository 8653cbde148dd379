"""Corrupted state vectors and a driver of the compiled kernels (issue 22, item 2).

`CORRUPTIONS` breaks a valid state in the ways that once made kernels read or write out
of place (a value read from the state used as an index) or overflow; each names the field
of the state format that the entry check (`invariants.validate_state`) must blame.

Run as a script (tests/engine/test_state_safety.py runs it in a subprocess, with
NUMBA_BOUNDSCHECK=1 and without) it drives every kernel that takes an outside state:
apply, the legal mask, the observation, Dale's turn, the redraw of hidden information.
On valid states (seeded random games of every mode) nothing may raise, not even
numba's IndexError; on every corrupted state the doors refuse with StateFormatError and
leave the state as it was, and the kernels that guard themselves (Dale's turn without a
free cell, a redraw for a viewer that is no seat) write nothing out of place. It prints
one line per part and `ALL OK` at the end.
"""

from __future__ import annotations

import sys

import numpy as np

from random_play import midgame
from suburbia_env import Game, StateFormatError
from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.hidden_information import redraw_hidden_information
from suburbia_env.engine.checks.invariants import check_invariants, validate_state
from suburbia_env.engine.legal_actions import legal_action_mask
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.positions import set_current_player, set_player_values
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.constants import DALE_SEAT
from suburbia_env.engine.turn import STATUS_OK, apply_action, dale_turn

MODES = (dict(players=2), dict(players=3, edition="1st"), dict(players=4),
         dict(players=1, mode="solitary"), dict(players=1, mode="dale"))


def _base(player: int) -> int:
    return s.player_base(player)


def _empty_cell(state, player: int) -> int:
    return int(np.flatnonzero(state[_base(player) + s.CELL_KIND:
                                     _base(player) + s.CELL_KIND + s.NUM_CELLS] < 0)[0])


def _set(index: int, value: int):
    def change(state):
        state[index] = value
    return change


def _no_free_cell_for_dale(state):
    """Dale's borough with no placeable cell: his next tile would go to cell -1."""
    flags = state[_base(1) + s.CELL_FLAGS:_base(1) + s.CELL_FLAGS + s.NUM_CELLS]
    flags &= ~s.FLAG_PLACEABLE


def _cell_kind(value: int):
    def change(state):
        state[_base(0) + s.CELL_KIND + _empty_cell(state, 0)] = value
    return change


def _undrawn_pile_kind(state):
    state[s.PILE + state[s.PILE_POSITION]] = 99


def _unpayable_discard(state):
    """A pending discard with $0 and nothing in the slots of premium 0 (R5.1b)."""
    player = state[s.CURRENT_PLAYER]
    state[s.PENDING_DECISION] = c.DECISION_DISCARD
    state[_base(player) + s.MONEY] = 0
    for slot in range(c.NUM_SLOTS):
        if c.SLOT_PREMIUMS[slot] == 0 and state[s.MARKET + slot] >= 0:
            state[s.DISCARDED + state[s.MARKET + slot]] += 1
            state[s.MARKET + slot] = -1


def _over_with_bonus(offset: int, goal: int, bonus: int):
    """Game over with a goal index off the goal table and a bonus for it in player 0's
    score block: the check of the score block once read the goal table at that index
    (found by tests/engine/test_fuzz.py under NUMBA_BOUNDSCHECK=1)."""
    def change(state):
        state[s.GAME_OVER] = 1
        state[offset] = goal
        bonus_entry = (s.SCORE_PUBLIC_GOALS if offset < s.PLAYERS else s.SCORE_PRIVATE_GOAL)
        state[_base(0) + bonus_entry] = bonus
    return change


# (name, configuration, change, field the entry check names)
CORRUPTIONS = [
    ("dale borough without a free cell", dict(players=1, mode="dale"), _no_free_cell_for_dale,
     "players[1].borough"),
    ("market kind 99", dict(players=2), _set(s.MARKET + 6, 99), "market"),
    ("market kind -5", dict(players=2), _set(s.MARKET + 6, -5), "market"),
    ("cell kind -7", dict(players=2), _cell_kind(-7), "players[0].borough"),
    ("cell kind 200", dict(players=2), _cell_kind(200), "players[0].borough"),
    ("cell kind of the lake", dict(players=2), _cell_kind(TILES.lake), "players[0].borough"),
    ("order off the board", dict(players=2), _set(_base(0) + s.ORDER + 1, 500),
     "players[0].borough"),
    ("tile count 10**6", dict(players=2), _set(_base(0) + s.TILE_COUNT, 10**6),
     "players[0].borough"),
    ("public goal 77", dict(players=2), _set(s.PUBLIC_GOALS, 77), "public_goals"),
    ("private goal -9", dict(players=2), _set(_base(0) + s.PRIVATE_GOAL, -9),
     "players[0].goal_options"),
    ("goal option 20", dict(players=1, mode="dale"), _set(_base(0) + s.GOAL_OPTIONS, 20),
     "players[0].goal_options"),
    ("public goal 77 with a bonus", dict(players=2), _over_with_bonus(s.PUBLIC_GOALS,
                                                                         77, 5),
     "public_goals"),
    ("private goal 99 with a bonus", dict(players=1, mode="dale"),
     _over_with_bonus(_base(0) + s.PRIVATE_GOAL, 99, 3), "players[0].goal_options"),
    ("pending decision -1", dict(players=2), _set(s.PENDING_DECISION, -1), "pending_decision"),
    ("pending decision 9", dict(players=2), _set(s.PENDING_DECISION, 9), "pending_decision"),
    ("mode 7", dict(players=2), _set(s.MODE, 7), "config"),
    ("edition -2", dict(players=2), _set(s.EDITION, -2), "config"),
    ("9 players", dict(players=2), _set(s.NUM_PLAYERS, 9), "config"),
    ("dale with 3 seats", dict(players=1, mode="dale"), _set(s.NUM_PLAYERS, 3), "config"),
    ("first player 5", dict(players=2), _set(s.FIRST_PLAYER, 5), "first_player"),
    ("current player -3", dict(players=2), _set(s.CURRENT_PLAYER, -3), "current_player"),
    ("dale deciding", dict(players=1, mode="dale"), _set(s.CURRENT_PLAYER, 1), "current_player"),
    ("round 2**31 - 1", dict(players=2), _set(s.ROUND, 2**31 - 1), "round"),
    ("final round 99", dict(players=2), _set(s.FINAL_ROUND, 99), "round"),
    ("money 2**31 - 5", dict(players=2), _set(_base(0) + s.MONEY, 2**31 - 5), "players[0].money"),
    ("population 2**31 - 5", dict(players=2), _set(_base(1) + s.POPULATION, 2**31 - 5),
     "players[1].population"),
    ("placement counter 2**31 - 1", dict(players=2), _set(s.PLACEMENT_COUNTER, 2**31 - 1),
     "placement_counter"),
    ("pile end 500", dict(players=2), _set(s.PILE_END, 500), "stacks"),
    ("pile position -4", dict(players=2), _set(s.PILE_POSITION, -4), "stacks"),
    ("pile kind 99", dict(players=2), _undrawn_pile_kind, "stacks"),
    ("unpayable discard", dict(players=2), _unpayable_discard, "pending_decision"),
    ("unpayable removal", dict(players=1, mode="solitary"),
     lambda state: (_unpayable_discard(state), state.__setitem__(s.PENDING_DECISION,
                                                                 c.DECISION_REMOVE)),
     "pending_decision"),
    ("score block before the end", dict(players=2), _set(_base(0) + s.SCORE_PRIVATE_GOAL, 10**6),
     "players[0].score"),
    ("unused seat holds money", dict(players=2), _set(_base(3) + s.MONEY, 50), "players"),
    ("supply -1", dict(players=2), _set(s.SUPPLY, -1), "supply.suburbs"),
    ("discarded -3", dict(players=2), _set(s.DISCARDED + 10, -3), f"tiles.{TILES.names[10]}"),
    ("box padding", dict(players=2), _set(s.BOX + 60, 1), "state"),
    ("unknown cell flags", dict(players=2), _set(_base(0) + s.CELL_FLAGS + 50, 64),
     "players[0].borough"),
]


def corrupted(config: dict, change) -> tuple[np.ndarray, np.ndarray]:
    """(valid state, corrupted copy) of a midgame of the configuration."""
    valid = midgame(config).state.copy()
    broken = valid.copy()
    change(broken)
    assert not np.array_equal(valid, broken)
    return valid, broken


def _refused(call, state, field: str) -> None:
    """`call(state)` raises StateFormatError naming `field` and leaves `state` as it was."""
    before = state.copy()
    try:
        call(state)
    except StateFormatError as error:
        message = str(error)
        assert message.startswith(field + ":") or field == "*", (field, message)
    else:
        raise AssertionError(f"not refused: {field}")
    assert np.array_equal(state, before), "the refusal changed the state"


def check_corruptions() -> int:
    """Every corrupted state is refused by the entry check and by the redraw, unchanged."""
    words = np.array([1, 2, 3, 4], dtype=np.int32)
    for name, config, change, field in CORRUPTIONS:
        _, broken = corrupted(config, change)
        assert check_invariants(broken, TILES.table) != 0, name
        _refused(validate_state, broken, field)
        _refused(lambda state: redraw_hidden_information(state, TILES.table, GOALS.table, 0,
                                                         words.copy()), broken, "*")
    return len(CORRUPTIONS)


def check_guarded_kernels() -> None:
    """The kernels that guard themselves on a state that slipped through."""
    # Dale without a free cell takes no tile instead of writing to cell -1.
    game = midgame(dict(players=1, mode="dale"))
    state = game.state.copy()
    _no_free_cell_for_dale(state)
    dale = _base(DALE_SEAT)
    borough = state[dale + s.ORDER:dale + s.PLAYER_STRIDE].copy()
    player_zero = state[_base(0):_base(0) + s.PLAYER_STRIDE].copy()
    log = ev.new_log(64)
    dale_turn(state, TILES.table, log)
    assert np.array_equal(state[dale + s.ORDER:dale + s.PLAYER_STRIDE], borough)
    assert np.array_equal(state[_base(0):_base(0) + s.PLAYER_STRIDE], player_zero)
    assert state[dale + s.TILE_COUNT] == game.state[dale + s.TILE_COUNT]
    # A redraw for a viewer that is no seat is refused before anything is written.
    for viewer in (-1, 2, 7):
        _refused(lambda st: redraw_hidden_information(st, TILES.table, GOALS.table, viewer,
                                                      np.array([1, 2, 3, 4], dtype=np.int32)),
                 game.state.copy(), "viewer")
    # positions.py refuses an edit that breaks the state and leaves the game as it was.
    for edit, field in ((lambda g: set_player_values(g, 0, money=2**31 - 5), "players[0].money"),
                        (lambda g: set_current_player(g, 1), "current_player")):
        before = game.state.copy()
        try:
            edit(game)
        except StateFormatError as error:
            assert str(error).startswith(field + ":"), str(error)
        else:
            raise AssertionError(f"positions.py accepted a broken {field}")
        assert np.array_equal(game.state, before)


def drive_kernels_in_play(games_per_mode: int = 2) -> int:
    """Legal random play of every mode through the compiled kernels: apply, the mask,
    the observation of every seat, the redraw for the current player. Returns the
    decisions played."""
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    log = ev.new_log(512)
    decisions = 0
    for config in MODES:
        for seed in range(games_per_mode):
            game = Game(seed=seed, **config)
            state = game.state
            rng = np.random.default_rng(seed)
            while not state[s.GAME_OVER]:
                count = legal_action_mask(state, TILES.table, TILES.basic_kinds, mask, actions)
                for seat in range(game.num_seats):
                    encode_observation(state, TILES.table, seat, out)
                trial = state.copy()
                redraw_hidden_information(trial, TILES.table, GOALS.table,
                                          int(state[s.CURRENT_PLAYER]),
                                          rng.integers(1, 2**31, size=4).astype(np.int32))
                assert check_invariants(trial, TILES.table) == 0
                action = int(actions[rng.integers(count)])
                log[0, :] = 0
                assert apply_action(state, TILES.table, GOALS.table, TILES.basic_kinds, action,
                                    log) == STATUS_OK
                assert check_invariants(state, TILES.table) == 0
                decisions += 1
            encode_observation(state, TILES.table, 0, out)
    return decisions


def check_bounds_checking() -> str:
    """'on' when numba compiled the engine's cached kernels with bounds checks, else 'off'.

    With bounds checks the entry check given a state cut after its header raises
    IndexError instead of reading past it; that proves the kernels were not loaded from a
    cache of code compiled without them (numba's cache index ignores the option, hence
    the run's own NUMBA_CACHE_DIR). Only reads go past the end, never writes."""
    from numba.core import config
    if not config.BOUNDSCHECK:
        return "off"
    header = midgame(dict(players=2)).state[:s.PILE].copy()
    try:
        check_invariants(header, TILES.table)
    except IndexError:
        return "on"
    raise AssertionError("NUMBA_BOUNDSCHECK=1, but a compiled check read past the end of a "
                         "short state: its code came from a cache compiled without bounds "
                         "checks")


def main() -> None:
    print(f"bounds checks: {check_bounds_checking()}", flush=True)
    print(f"corruptions refused: {check_corruptions()}", flush=True)
    check_guarded_kernels()
    print("guarded kernels: ok", flush=True)
    print(f"decisions of legal play: {drive_kernels_in_play()}", flush=True)
    print("ALL OK", flush=True)


if __name__ == "__main__":
    sys.exit(main())
