"""Properties of the engine over many random games (invariants.py, random play).

A compiled loop plays thousands of games of uniformly random legal play in every
configuration (standard 2/3/4 players, Solitary Architect, Dale; editions 2nd and 1st)
and checks at every decision: the state invariants and everything the loader demands of
a reachable state (invariants.check_reachable), a non-empty legal mask while the game
runs, that the sampled action is legal before it is applied, that an illegal action is
refused without touching the state, and that every game ends within a bounded number of
decisions. A second loop checks the gains of Dale's trials taken from sums against full
resolution (R9.2; his cell choice against the plain rule is in test_dale_reference.py).
Python-level tests check determinism (same seed, same game), that copies are
independent, that saving and loading JSON restores every state, and that
`check_invariants` does catch broken states.
"""

import numpy as np
import pytest
from numba import njit

from suburbia_env import Game
from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine.checks import invariants as inv
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.dale import RESOLVE_EVERY_TRIAL, SUMS_WHERE_EXACT, trial_gains
from suburbia_env.engine.hex_grid import NUM_CELLS, cell_index
from suburbia_env.engine.checks.invariants import (check_invariants, check_reachable,
                                                   describe_invariant_error)
from suburbia_env.engine.legal_actions import is_legal_action, legal_action_mask
from suburbia_env.formats.notation import format_action
from suburbia_env.positions import put_tile_without_effects, set_current_player
from suburbia_env.engine.red_lines import red_lines_at_or_below
from suburbia_env.engine.resolution import FACE_UP, OWN_BOROUGH_ONLY, resolve_placement
from suburbia_env.engine.rng import random_below, seed_words
from suburbia_env.engine.setup import new_game
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import tile_stack
from suburbia_env.engine.turn import (STATUS_GAME_OVER, STATUS_ILLEGAL, apply_action,
                                      apply_legal_action)

from probe_positions import probe_positions

# Failure kinds reported by the compiled loop.
FAIL_NONE = 0
FAIL_INVARIANT = 1
FAIL_EMPTY_MASK = 2
FAIL_MASK_LIST_MISMATCH = 3
FAIL_SAMPLED_ILLEGAL = 4
FAIL_MASK_PREDICATE_MISMATCH = 5
FAIL_ILLEGAL_ACCEPTED = 6
FAIL_NO_END = 7
FAIL_TERMINAL_MASK = 8
FAIL_NAMES = ("none", "invariant broken", "empty legal mask while the game runs",
              "mask and action list disagree", "sampled action not legal",
              "mask disagrees with is_legal_action", "illegal action changed the state",
              "game did not end within the decision bound", "wrong terminal mask")

# Every turn draws a tile into the market (R4.2, R9.1; with Dale every round draws
# four, R9.2) from at most 96 stack tiles (state_layout.PILE_CAPACITY), One More Round
# among them, and the game ends one round after it is drawn (R4.3, R9.1, R9.2). With at
# most two decisions a turn plus the goal choices, 1000 decisions is far beyond any game.
MAX_DECISIONS = 1000

CONFIGS = [  # (seats, mode, edition, label)
    (2, c.MODE_STANDARD, c.EDITION_SECOND, "2p 2nd"), (3, c.MODE_STANDARD, c.EDITION_SECOND, "3p 2nd"),
    (4, c.MODE_STANDARD, c.EDITION_SECOND, "4p 2nd"), (2, c.MODE_STANDARD, c.EDITION_FIRST, "2p 1st"),
    (3, c.MODE_STANDARD, c.EDITION_FIRST, "3p 1st"), (4, c.MODE_STANDARD, c.EDITION_FIRST, "4p 1st"),
    (1, c.MODE_SOLITARY, c.EDITION_SECOND, "solitary 2nd"),
    (1, c.MODE_SOLITARY, c.EDITION_FIRST, "solitary 1st"),
    (2, c.MODE_DALE, c.EDITION_SECOND, "dale 2nd"), (2, c.MODE_DALE, c.EDITION_FIRST, "dale 1st"),
]
GAMES_PER_CONFIG = 2500  # 25,000 games in all


# Not cached on purpose: numba's cache of a function is only invalidated by changes to
# its own file, so a cached copy of this loop could keep testing an old engine.
@njit(cache=False)
def _check_random_games(num_players, mode, edition, game_seeds, player_seeds, tiles, goals,
                        basic_kinds, full_mask_every, max_decisions):
    """Play one random game per seed row and check it at every decision.

    Returns int64[games, 3]: failure kind, detail (invariant code or action), decisions
    played (the index of the failing decision on failure). Every `full_mask_every`-th
    game also compares the whole mask with `is_legal_action` for every action number.
    """
    num_games = game_seeds.shape[0]
    results = np.zeros((num_games, 3), dtype=np.int64)
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    before = np.zeros(s.STATE_SIZE, dtype=np.int32)
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    listed = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    words = np.zeros(4, dtype=np.int32)
    log = np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32)
    for game in range(num_games):
        # Standard games alternate between asked and random private goals (R3.6).
        random_goals = 1 if mode != c.MODE_STANDARD or game % 2 == 1 else 0
        new_game(state, tiles, goals, basic_kinds, num_players, mode, edition, random_goals,
                 game_seeds[game])
        words[:] = player_seeds[game]
        full_check = full_mask_every > 0 and game % full_mask_every == 0
        decisions = 0
        failure = FAIL_NONE
        detail = 0
        while True:
            code = check_reachable(state, tiles)  # check_invariants and what play implies
            if code != 0:
                failure, detail = FAIL_INVARIANT, code
                break
            if state[s.GAME_OVER]:
                break
            if decisions >= max_decisions:
                failure = FAIL_NO_END
                break
            count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
            if count <= 0:
                failure = FAIL_EMPTY_MASK
                break
            # The list holds each action of the mask once: no more, no fewer, no repeats.
            listed[:] = False
            repeated = False
            for index in range(count):
                repeated = repeated or listed[actions[index]]
                listed[actions[index]] = True
            if repeated or not np.array_equal(listed, mask):
                failure = FAIL_MASK_LIST_MISMATCH
                break
            if full_check:
                for action in range(a.NUM_ACTIONS):
                    if mask[action] != is_legal_action(state, tiles, basic_kinds, action):
                        failure, detail = FAIL_MASK_PREDICATE_MISMATCH, action
                        break
                if failure != FAIL_NONE:
                    break
            action = actions[random_below(words, 0, count)]
            if not mask[action] or not is_legal_action(state, tiles, basic_kinds, action):
                failure, detail = FAIL_SAMPLED_ILLEGAL, action
                break
            # An action outside the mask is refused and leaves the state untouched.
            probe = random_below(words, 0, a.NUM_ACTIONS)
            if not mask[probe]:
                before[:] = state
                status = apply_action(state, tiles, goals, basic_kinds, probe, log)
                if status != STATUS_ILLEGAL or not np.array_equal(before, state):
                    failure, detail = FAIL_ILLEGAL_ACCEPTED, probe
                    break
            apply_legal_action(state, tiles, goals, basic_kinds, action, log)
            decisions += 1
        if failure == FAIL_NONE:
            # Terminal: PASS alone in the mask, nothing legal, nothing applied.
            count = legal_action_mask(state, tiles, basic_kinds, mask, actions)
            if (count != 0 or mask.sum() != 1 or not mask[a.ACTION_PASS]
                    or is_legal_action(state, tiles, basic_kinds, a.ACTION_PASS)
                    or apply_action(state, tiles, goals, basic_kinds, a.ACTION_PASS, log)
                    != STATUS_GAME_OVER):
                failure = FAIL_TERMINAL_MASK
        results[game, 0] = failure
        results[game, 1] = detail
        results[game, 2] = decisions
    return results


@njit(cache=False)
def _differs(state, before):
    for index in range(s.STATE_SIZE):
        if state[index] != before[index]:
            return True
    return False


@njit(cache=False)
def _compare_trial_gains(positions, tiles):
    """At every position, for every seat, market tile (and the lake) and placeable cell:
    the gains of Dale's trial from the sums of its adjustments against resolving it in
    full. Returns (checked, from_sums, from_sums_across_red_lines, mismatches, changed);
    `changed` counts trials after which the state differed."""
    before = np.zeros(s.STATE_SIZE, dtype=np.int32)
    resolved = np.zeros(s.STATE_SIZE, dtype=np.int32)
    log = np.zeros((1, ev.NUM_EVENT_FIELDS), dtype=np.int32)
    checked = from_sums = across_red_lines = mismatches = changed = 0
    lake = s.lake_kind(tiles)
    for state in positions:
        for player in range(state[s.NUM_PLAYERS]):
            base = s.PLAYERS + player * s.PLAYER_STRIDE
            for slot in range(c.NUM_SLOTS + 1):
                kind = lake if slot == c.NUM_SLOTS else state[s.MARKET + slot]
                if kind < 0:
                    continue
                for cell in range(NUM_CELLS):
                    if state[base + s.CELL_FLAGS + cell] & s.FLAG_PLACEABLE == 0:
                        continue
                    checked += 1
                    before[:] = state
                    income, reputation, exact = trial_gains(state, tiles, log, player, cell,
                                                            kind, SUMS_WHERE_EXACT)
                    income_full, reputation_full, _ = trial_gains(
                        state, tiles, log, player, cell, kind, RESOLVE_EVERY_TRIAL)
                    changed += _differs(state, before)
                    if income != income_full or reputation != reputation_full:
                        mismatches += 1
                    if exact:
                        from_sums += 1
                        resolved[:] = state
                        resolve_placement(resolved, tiles, log, player, cell, kind, FACE_UP,
                                          OWN_BOROUGH_ONLY)
                        if (red_lines_at_or_below(resolved[base + s.POPULATION])
                                != red_lines_at_or_below(state[base + s.POPULATION])):
                            across_red_lines += 1
    return checked, from_sums, across_red_lines, mismatches, changed


@pytest.mark.slow
@pytest.mark.parametrize("seats, mode, edition, label",
                         [CONFIGS[1], CONFIGS[5], CONFIGS[6], CONFIGS[8], CONFIGS[9]],
                         ids=["3p 2nd", "4p 1st", "solitary", "dale 2nd", "dale 1st"])
def test_dale_trial_gains_from_sums_equal_full_resolution_r9_2(seats, mode, edition, label):
    """Dale's trials take their gains from the sums of the adjustments where the order
    cannot matter (dale._gains_from_sums) and resolve in full otherwise: both ways agree
    on every cell, red lines crossed on the way included (R1.2, R8.1, penalty 2 in
    Solitary), and both ways are exercised."""
    positions = probe_positions(seats, mode, edition, 91 + seats + mode, 25, False)
    checked, from_sums, across_red_lines, mismatches, changed = _compare_trial_gains(
        positions, TILES.table)
    assert checked > 20_000
    assert mismatches == 0, f"{label}: {mismatches} of {checked} trials differ"
    assert changed == 0, f"{label}: {changed} trials left the state changed"
    assert 0.5 * checked < from_sums < checked, f"{label}: {from_sums} of {checked} from sums"
    assert across_red_lines > 100, f"{label}: {across_red_lines} exact trials crossed a line"


@pytest.mark.slow
@pytest.mark.parametrize("seats, mode, edition, label", [CONFIGS[2], CONFIGS[6], CONFIGS[8]],
                         ids=["4p", "solitary", "dale"])
def test_dale_trial_gains_from_sums_equal_full_resolution_near_clamps_and_red_lines(
        seats, mode, edition, label):
    """The same comparison with every seat's income and reputation within 3 of -5 or 15
    and its population within 3 of a red line, where the order of the adjustments
    decides most often (R1.2, R8.1): no mismatch, with thousands of trials resolved in
    full and thousands taken from sums across a red line."""
    positions = probe_positions(seats, mode, edition, 93 + seats + mode, 20, True)
    checked, from_sums, across_red_lines, mismatches, changed = _compare_trial_gains(
        positions, TILES.table)
    assert checked > 20_000
    assert mismatches == 0, f"{label}: {mismatches} of {checked} trials differ"
    assert changed == 0, f"{label}: {changed} trials left the state changed"
    assert from_sums > 0.5 * checked, f"{label}: {from_sums} of {checked} from sums"
    assert checked - from_sums > 2000, f"{label}: {checked - from_sums} resolved in full"
    assert across_red_lines > 5000, f"{label}: {across_red_lines} exact trials crossed a line"


def _failure_message(label, seed_index, row):
    kind, detail, step = int(row[0]), int(row[1]), int(row[2])
    what = FAIL_NAMES[kind]
    if kind == FAIL_INVARIANT:
        what += f": {describe_invariant_error(detail)}"
    elif kind in (FAIL_SAMPLED_ILLEGAL, FAIL_MASK_PREDICATE_MISMATCH, FAIL_ILLEGAL_ACCEPTED):
        what += f": action {detail} ({format_action(detail)})"
    return f"{label}, game {seed_index}, decision {step}: {what}"


@pytest.mark.slow
@pytest.mark.parametrize("seats, mode, edition, label", CONFIGS, ids=[cfg[3] for cfg in CONFIGS])
def test_random_games_keep_every_invariant(seats, mode, edition, label):
    """R1.2, R1.3, R2.4, R3.2, R3.5, R4.3, R5.1: 2500 random games per configuration,
    25,000 in all, checked at every decision."""
    seed = 1000 + 17 * seats + 5 * mode + edition
    game_seeds = seed_words(seed, GAMES_PER_CONFIG)
    player_seeds = seed_words(seed + 1, GAMES_PER_CONFIG)
    results = _check_random_games(seats, mode, edition, game_seeds, player_seeds, TILES.table,
                                  GOALS.table, TILES.basic_kinds, 40, MAX_DECISIONS)
    failures = [_failure_message(label, index, row) for index, row in enumerate(results)
                if row[0] != FAIL_NONE]
    assert not failures, f"{len(failures)} games failed; first: " + "; ".join(failures[:5])
    decisions = results[:, 2]
    # Each turn takes a tile from the market, so a game lasts at least as many decisions
    # as there are turns before the stacks and One More Round run out: never trivially.
    assert decisions.min() >= 10
    assert decisions.max() < MAX_DECISIONS


@pytest.mark.slow
def test_check_random_games_reports_a_broken_engine():
    """The loop's own check works: a bound of 5 decisions makes every game fail with
    FAIL_NO_END at decision 5."""
    game_seeds = seed_words(3, 4)
    results = _check_random_games(2, c.MODE_STANDARD, c.EDITION_SECOND, game_seeds, game_seeds,
                                  TILES.table, GOALS.table, TILES.basic_kinds, 0, 5)
    assert results[:, 0].tolist() == [FAIL_NO_END] * 4
    assert results[:, 2].tolist() == [5] * 4


# check_invariants catches broken states ---------------------------------------------

def _midgame(mode="standard", players=2, seed=9, decisions=12) -> Game:
    game = Game(players=players, mode=mode, seed=seed, random_private_goals=True)
    choices = np.random.default_rng(seed)
    for _ in range(decisions):
        game.apply(int(choices.choice(game.legal_actions())))
    assert check_invariants(game.state, TILES.table) == 0
    return game


def _code_after(game: Game, change) -> int:
    state = game.state.copy()
    change(state)
    return int(check_invariants(state, TILES.table))


def _base(player):
    return s.player_base(player)


@pytest.mark.parametrize("field, value, reason", [
    (s.MONEY, -1, inv.MONEY_NEGATIVE),  # R1.3
    (s.POPULATION, -1, inv.POPULATION_NEGATIVE),  # R1.3
    (s.INCOME, 16, inv.INCOME_OUT_OF_RANGE),  # R1.2
    (s.INCOME, -6, inv.INCOME_OUT_OF_RANGE),
    (s.REPUTATION, 16, inv.REPUTATION_OUT_OF_RANGE),
    (s.REPUTATION, -6, inv.REPUTATION_OUT_OF_RANGE),
    (s.TILE_COUNT, None, inv.TILE_COUNT_WRONG),
    (s.LAKE_COUNT, None, inv.LAKE_COUNT_WRONG),
    (s.FEATURE_COUNT + c.COMMERCIAL, None, inv.FEATURE_COUNT_WRONG),
    (s.MARKERS_LEFT, None, inv.MARKERS_WRONG),
])
def test_invariants_catch_bad_player_values(field, value, reason):
    game = _midgame()

    def change(state):
        index = _base(1) + field
        state[index] = value if value is not None else state[index] + 1

    code = _code_after(game, change)
    assert code == reason * 100 + 1, describe_invariant_error(code)
    assert describe_invariant_error(code).startswith("seat 1: ")


def test_invariants_accept_the_level_limits_r1_2():
    game = _midgame()

    def change(state):
        state[_base(0) + s.INCOME] = 15
        state[_base(0) + s.REPUTATION] = -5
        state[_base(0) + s.MONEY] = 0
        state[_base(0) + s.POPULATION] = 0

    assert _code_after(game, change) == 0


def test_invariants_catch_a_tile_in_two_places_r3_2():
    """A market tile copied into the box: its kind counts one copy too many."""
    game = _midgame()
    kind = int(game.state[s.MARKET + 6])
    assert kind >= 0
    code = _code_after(game, lambda state: state.__setitem__(s.BOX + kind, state[s.BOX + kind] + 1))
    assert code == inv.TILE_COUNT_BROKEN * 100 + kind
    assert describe_invariant_error(code).startswith(TILES.names[kind] + ": ")


def test_invariants_catch_a_lost_market_tile_and_a_lost_supply_tile_r3_5():
    game = _midgame()
    kind = int(game.state[s.MARKET + 6])
    assert kind >= 0
    assert _code_after(game, lambda st: st.__setitem__(s.MARKET + 6, -1)) == (
        inv.TILE_COUNT_BROKEN * 100 + kind)
    suburbs = TILES.kind("Suburbs")
    assert _code_after(game, lambda st: st.__setitem__(s.SUPPLY, st[s.SUPPLY] - 1)) == (
        inv.TILE_COUNT_BROKEN * 100 + suburbs)


def test_invariants_catch_one_more_round_in_the_box_r4_3():
    """Swap One More Round in the stacks for a C tile of the box: every count still adds
    up, but One More Round is neither in the stacks nor set aside."""
    game = _midgame()
    state = game.state.copy()
    one_more_round = TILES.num_kinds - 1
    pile = state[s.PILE + int(state[s.PILE_POSITION]):s.PILE + int(state[s.PILE_END])]
    position = int(np.flatnonzero(pile == one_more_round)[0])
    substitute = next(k for k in range(TILES.num_kinds - 2)
                      if tile_stack(TILES.table, k) == c.STACK_C and state[s.BOX + k] > 0)
    pile[position] = substitute
    state[s.BOX + substitute] -= 1
    state[s.BOX + one_more_round] += 1
    assert check_invariants(state, TILES.table) == inv.ONE_MORE_ROUND_BROKEN * 100


def test_invariants_catch_wrong_placeable_flags_and_order_r2_4():
    """On the starting borough (R2.3), (1,1) is empty and next to the Park and the
    Factory, so it is placeable; (-6,8) is far from every tile, so it is not."""
    game = Game(players=2, seed=4, random_private_goals=True)
    base = _base(0)
    near, far = cell_index(1, 1), cell_index(-6, 8)
    assert game.state[base + s.CELL_FLAGS + near] == s.FLAG_PLACEABLE
    assert check_invariants(game.state, TILES.table) == 0
    assert _code_after(game, lambda st: st.__setitem__(base + s.CELL_FLAGS + near, 0)) == (
        inv.PLACEABLE_WRONG * 100)
    assert _code_after(game, lambda st: st.__setitem__(base + s.CELL_FLAGS + far,
                                                       s.FLAG_PLACEABLE)) == inv.PLACEABLE_WRONG * 100
    assert _code_after(game, lambda st: st.__setitem__(base + s.CELL_FLAGS + far,
                                                       s.FLAG_INVESTED)) == inv.CELL_FLAGS_WRONG * 100

    def duplicate_first_cell(state):
        state[base + s.ORDER + 1] = state[base + s.ORDER]

    assert _code_after(game, duplicate_first_cell) == inv.ORDER_WRONG * 100


def test_invariants_catch_placement_order_out_of_sequence_r7_2():
    game = Game(players=2, seed=4, random_private_goals=True)
    set_current_player(game, 0)
    put_tile_without_effects(game, 0, "Mint", 1, 1)
    put_tile_without_effects(game, 0, "Farm", 1, 2)
    assert check_invariants(game.state, TILES.table) == 0
    base = _base(0)

    def swap_last_two(state):
        order = state[base + s.ORDER:base + s.ORDER + 5]
        order[3], order[4] = order[4], order[3]

    assert _code_after(game, swap_last_two) == inv.ORDER_WRONG * 100


def test_invariants_catch_an_inconsistent_decision():
    game = _midgame()
    assert _code_after(game, lambda st: st.__setitem__(s.GAME_OVER, 1)) == inv.DECISION_WRONG * 100
    assert _code_after(game, lambda st: st.__setitem__(s.CURRENT_PLAYER, 2)) == (
        inv.CURRENT_PLAYER_WRONG * 100)
    assert _code_after(game, lambda st: st.__setitem__(s.PENDING_DECISION, c.DECISION_REMOVE)) == (
        inv.DECISION_WRONG * 100)
    dale = _midgame("dale", players=1, decisions=3)
    assert _code_after(dale, lambda st: st.__setitem__(s.CURRENT_PLAYER, 1)) == (
        inv.CURRENT_PLAYER_WRONG * 100)
    occupied = [slot for slot in range(2, 6) if dale.state[s.MARKET + slot] >= 0][0]

    def move_to_slot_0(state):  # Dale uses slots 2..5 only (R9.2)
        state[s.MARKET] = state[s.MARKET + occupied]
        state[s.MARKET + occupied] = -1

    assert _code_after(dale, move_to_slot_0) == inv.MARKET_WRONG * 100


def test_invariants_hold_at_setup_in_every_configuration():
    for seats, mode, edition, label in CONFIGS:
        state = np.zeros(s.STATE_SIZE, dtype=np.int32)
        new_game(state, TILES.table, GOALS.table, TILES.basic_kinds, seats, mode, edition, 0,
                 seed_words(5)[0])
        code = check_invariants(state, TILES.table)
        assert code == 0, f"{label}: {describe_invariant_error(code)}"


# Python-level properties -------------------------------------------------------------

PYTHON_CONFIGS = [dict(players=2), dict(players=3, edition="1st"), dict(players=4),
                  dict(players=1, mode="solitary"), dict(players=1, mode="dale", edition="1st")]


def _play(config: dict, seed: int, choice_seed: int) -> list[np.ndarray]:
    """The state after setup and after every decision of one random game."""
    game = Game(seed=seed, **config)
    choices = np.random.default_rng(choice_seed)
    states = [game.state.copy()]
    while not game.is_over:
        game.apply(int(choices.choice(game.legal_actions())))
        states.append(game.state.copy())
    return states


@pytest.mark.parametrize("config", PYTHON_CONFIGS, ids=lambda cfg: "-".join(map(str, cfg.values())))
def test_same_seed_same_game(config):
    """Every random choice comes from the seeded generator in the state (rng.py)."""
    first = _play(config, seed=123, choice_seed=7)
    second = _play(config, seed=123, choice_seed=7)
    assert len(first) == len(second)
    assert all(np.array_equal(x, y) for x, y in zip(first, second))
    other = Game(seed=124, **config)
    assert not np.array_equal(other.state, first[0]), "the seed must change the setup"


@pytest.mark.parametrize("config", PYTHON_CONFIGS, ids=lambda cfg: "-".join(map(str, cfg.values())))
def test_copy_is_independent(config):
    game = Game(seed=55, **config)
    choices = np.random.default_rng(55)
    for _ in range(10):
        game.apply(int(choices.choice(game.legal_actions())))
    snapshot = game.state.copy()
    history = list(game.history)
    twin = game.copy()
    assert np.array_equal(twin.state, game.state) and twin.history == game.history
    assert twin.legal_actions_text() == game.legal_actions_text()
    while not twin.is_over:
        twin.apply(int(choices.choice(twin.legal_actions())))
    assert np.array_equal(game.state, snapshot)
    assert game.history == history
    assert not game.is_over
    # The original still plays on, and the twin kept what it did.
    game.apply(int(game.legal_actions()[0]))
    assert twin.is_over and len(twin.history) > len(history)


JSON_GAMES_PER_CONFIG = 25  # 250 games in all


@pytest.mark.slow
@pytest.mark.parametrize("seats, mode, edition, label", CONFIGS, ids=[cfg[3] for cfg in CONFIGS])
def test_json_round_trip_at_every_step(seats, mode, edition, label):
    """serialization.py: saving and loading restores the state vector element for element
    (RNG words and derived entries included), at every decision of 25 random games per
    configuration; saving the loaded game again gives the same text (every 4th decision
    and at the end, to keep the run short)."""
    players = 1 if mode != c.MODE_STANDARD else seats
    config = dict(players=players, mode=c.MODE_NAMES[mode], edition=c.EDITION_NAMES[edition])
    for game_index in range(JSON_GAMES_PER_CONFIG):
        game = Game(seed=game_index, random_private_goals=game_index % 2 == 1, **config)
        choices = np.random.default_rng(game_index)
        while True:
            text = game.to_json()
            loaded = Game.from_json(text)
            step = f"{label}, game {game_index}, decision {len(game.history)}"
            assert loaded.config == game.config, step
            differing = np.flatnonzero(loaded.state != game.state)
            assert differing.size == 0, f"{step}: state entries {differing[:10].tolist()} differ"
            if len(game.history) % 4 == 0 or game.is_over:
                assert loaded.to_json() == text, step
            if game.is_over:
                break
            game.apply(int(choices.choice(game.legal_actions())))
