"""The observation encoder (observation.py): layout, hand-made positions, hidden
information (R10.1, R10.2) and the Box bounds of the environments.

Expected values are computed by hand from the rules (R2.3, R3.2, R3.4, R3.5, R4.1,
R8.1, R9.2) and the scaling written in the docstring table of observation.py.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from random_play import midgame
from suburbia_env import Game
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.envs.gym_env import SuburbiaEnv
from suburbia_env.engine.observation import (BOROUGH_SIZE, OBSERVATION_PARTS,
                                             OBSERVATION_SIZE, copy_observation,
                                             encode_observation, new_encoding_cache,
                                             unpack_observation, update_observation)
from suburbia_env.envs.pettingzoo import raw_env
from suburbia_env.positions import (put_tile_without_effects, set_current_player,
                                    set_market_tile, set_player_values)
from suburbia_env.engine.tile_data import GOALS, TILES

# Cell feature planes, as listed in the docstring of observation.py.
TYPE_PLANES = {"residential": 0, "commercial": 1, "civic": 2, "industrial": 3}
ICON_PLANE_OFFICE = 4 + 2  # icons follow the four types; office is the third icon
LAKE_PLANE, INVESTED_PLANE, PLACEABLE_PLANE = 10, 11, 12
COST_PLANE, INCOME_PLANE, REPUTATION_PLANE, POPULATION_PLANE = 13, 14, 15, 16


def observe(state: np.ndarray, seat: int) -> np.ndarray:
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(state, TILES.table, seat, out)
    return out


def at(column: int, row: int) -> tuple[int, int]:
    """(row, column index) of a borough cell in the boroughs part."""
    return row, column + 6


# Layout -------------------------------------------------------------------------------

def test_parts_tile_the_vector_with_the_documented_shapes():
    """The docstring table: 4x17x9x13 boroughs, 4x22 players, 7x72 market (3 + 17 cell
    features + 52 kinds), supply 3, stacks 6, goals 7x20, game 17 = 8714 values, then
    goal_races 5x9 = 8759."""
    expected = {"boroughs": (4, 17, 9, 13), "players": (4, 22), "market": (7, 72),
                "supply": (3,), "stacks": (6,), "goals": (7, 20), "game": (17,),
                "goal_races": (5, 9)}
    assert {name: shape for name, (_, shape) in OBSERVATION_PARTS.items()} == expected
    position = 0
    for name, (part, shape) in OBSERVATION_PARTS.items():
        assert part.start == position, name
        position = part.stop
        assert part.stop - part.start == int(np.prod(shape)), name
    assert position == OBSERVATION_SIZE == 7956 + 88 + 504 + 3 + 6 + 140 + 17 + 45 == 8759
    assert TILES.num_kinds == 52  # 3 basic + 47 lettered + lake + One More Round


# A hand-made standard position -----------------------------------------------------------

@pytest.fixture()
def three_player_position() -> Game:
    """Three players; seat 2 to act with a lake at (1,0), an invested Convenience Store
    at (-1,0), Office Building in market slot 3, hand-set values and goals."""
    game = Game(players=3, seed=11, random_private_goals=True)
    set_current_player(game, 2)
    game.state[s.FIRST_PLAYER] = 1
    set_player_values(game, 0, money=10)
    set_player_values(game, 1, money=20)
    set_player_values(game, 2, money=30, income=-3, reputation=6, population=30)
    set_market_tile(game, 3, "Office Building")
    put_tile_without_effects(game, 2, "Landfill", 1, 0, lake=True)
    put_tile_without_effects(game, 2, "Convenience Store", -1, 0, invested=True)
    base = s.player_base(2)
    game.state[base + s.PRIVATE_GOAL] = GOALS.goal("Builder")
    game.state[base + s.GOAL_OPTIONS] = GOALS.goal("Builder")
    game.state[base + s.GOAL_OPTIONS + 1] = GOALS.goal("Miser")
    return game


def test_market_slot_price_and_tile_identity_r4_1(three_player_position):
    """Slot 3 (premium +4, R4.1) holds Office Building: commercial, office icon, cost 9,
    immediate inc+1 (tiles.csv) -> price 13; identity one-hot at its kind."""
    office = TILES.kind("Office Building")
    assert office == 14  # 15th row of tiles.csv
    row = unpack_observation(observe(three_player_position.state, 2))["market"][3]
    expected = np.zeros(72, dtype=np.float32)
    expected[0] = 1.0  # occupied
    expected[1] = 4 / 10  # premium
    expected[2] = 13 / 35  # cost 9 + premium 4
    expected[3 + TYPE_PLANES["commercial"]] = 1.0
    expected[3 + ICON_PLANE_OFFICE] = 1.0
    expected[3 + COST_PLANE] = 9 / 25
    expected[3 + INCOME_PLANE] = 1 / 5
    expected[3 + 17 + office] = 1.0
    np.testing.assert_allclose(row, expected, rtol=1e-6)


def test_acting_seat_comes_first_then_turn_order(three_player_position):
    """Seat slot 0 is the observer (seat 2), then seats 0 and 1; slot 3 is empty."""
    players = unpack_observation(observe(three_player_position.state, 2))["players"]
    expected_seat_2 = np.zeros(22, dtype=np.float32)
    expected_seat_2[0] = 1.0  # present
    expected_seat_2[3] = 30 / 50  # money
    expected_seat_2[4] = -3 / 15  # income
    expected_seat_2[5] = 6 / 15  # reputation
    expected_seat_2[6] = 30 / 100  # population
    expected_seat_2[7] = (35 - 30) / 10  # next red line above 30 is 35 (R8.1)
    expected_seat_2[8] = 2 / 3  # one marker used by the invested store
    expected_seat_2[9] = 5 / 30  # 3 starting tiles + store + lake
    expected_seat_2[10:14] = 1 / 10  # Suburbs, Convenience Store, Park, Factory (lake: none, R6.7)
    expected_seat_2[20] = 1 / 5  # one lake
    expected_seat_2[21] = 1 / 3  # one marker placed
    np.testing.assert_allclose(players[0], expected_seat_2, rtol=1e-6)
    np.testing.assert_allclose(players[1, [0, 2, 3, 9, 20]], [1, 0, 10 / 50, 3 / 30, 0])
    np.testing.assert_allclose(players[2, [0, 2, 3, 9]], [1, 1, 20 / 50, 3 / 30])  # first player
    assert not players[3].any()
    # From seat 0's point of view the order is 0, 1, 2.
    from_seat_0 = unpack_observation(observe(three_player_position.state, 0))["players"]
    np.testing.assert_allclose(from_seat_0[:3, 3], [10 / 50, 20 / 50, 30 / 50])


def test_borough_planes_lake_invested_placeable_r2_4_r6_7(three_player_position):
    boroughs = unpack_observation(observe(three_player_position.state, 2))["boroughs"]
    own = boroughs[0]
    # The lake at (1,0): lake plane only, no type, icon, cost or effects (R6.7).
    lake = at(1, 0)
    assert own[(LAKE_PLANE,) + lake] == 1.0
    assert np.count_nonzero(own[(slice(None),) + lake]) == 1
    # The invested Convenience Store at (-1,0): commercial, cost 6, inc+1.
    store = at(-1, 0)
    assert own[(INVESTED_PLANE,) + store] == 1.0
    assert own[(TYPE_PLANES["commercial"],) + store] == 1.0
    assert own[(COST_PLANE,) + store] == pytest.approx(6 / 25)
    assert own[(INCOME_PLANE,) + store] == pytest.approx(1 / 5)
    assert own[(LAKE_PLANE,) + store] == 0.0
    # Starting borough (R2.3): Suburbs pop+2 cost 3, Park inc-1 cost 4, Factory inc+1.
    assert own[(TYPE_PLANES["residential"],) + at(0, 0)] == 1.0
    assert own[(POPULATION_PLANE,) + at(0, 0)] == pytest.approx(2 / 10)
    assert own[(COST_PLANE,) + at(0, 0)] == pytest.approx(3 / 25)
    assert own[(TYPE_PLANES["civic"],) + at(0, 1)] == 1.0
    assert own[(INCOME_PLANE,) + at(0, 1)] == pytest.approx(-1 / 5)
    assert own[(TYPE_PLANES["industrial"],) + at(0, 2)] == 1.0
    assert own[(INCOME_PLANE,) + at(0, 2)] == pytest.approx(1 / 5)
    # Placeable (R2.4, R2.2): (0,3) under the factory, (2,0) beside the lake (lakes
    # count), (-2,0) beside the store; not (4,4), not an occupied cell.
    for column, row in ((0, 3), (2, 0), (-2, 0)):
        assert own[(PLACEABLE_PLANE,) + at(column, row)] == 1.0, (column, row)
    for column, row in ((4, 4), (0, 0), (1, 0)):
        assert own[(PLACEABLE_PLANE,) + at(column, row)] == 0.0, (column, row)
    # Every placeable cell, by hand from R2.2: the empty on-grid neighbours of the
    # starting column (0,0)-(0,2) are (-1,1), (1,1), (0,3), (-1,2), (1,2); the lake at
    # (1,0) (odd column) adds (2,0), (2,1); the store at (-1,0) adds (-2,0), (-2,1).
    expected_placeable = {(-1, 1), (1, 1), (0, 3), (-1, 2), (1, 2), (2, 0), (2, 1),
                          (-2, 0), (-2, 1)}
    placeable = {(col - 6, row) for row, col in zip(*np.nonzero(own[PLACEABLE_PLANE]))}
    assert placeable == expected_placeable
    # Seat 0 (slot 1) has the bare starting borough: no lake, no marker.
    assert not boroughs[1, LAKE_PLANE].any() and not boroughs[1, INVESTED_PLANE].any()
    assert not boroughs[3].any()  # no fourth seat


def test_goal_rows_public_and_own_private_r3_6_r10(three_player_position):
    game = three_player_position
    goal_rows = unpack_observation(observe(game.state, 2))["goals"]
    for index, name in enumerate(game.public_goals):
        assert goal_rows[index, GOALS.goal(name)] == 1.0 and goal_rows[index].sum() == 1.0
    assert len(game.public_goals) == 3 and not goal_rows[3].any()  # as many as players
    assert np.flatnonzero(goal_rows[4]).tolist() == [GOALS.goal("Builder")]
    assert np.flatnonzero(goal_rows[5]).tolist() == [GOALS.goal("Builder")]
    assert np.flatnonzero(goal_rows[6]).tolist() == [GOALS.goal("Miser")]
    # Seat 0 sees its own goals in rows 4-6, never seat 2's.
    goals_0 = unpack_observation(observe(game.state, 0))["goals"]
    base_0 = s.player_base(0)
    assert np.flatnonzero(goals_0[4]).tolist() == [int(game.state[base_0 + s.PRIVATE_GOAL])]


def test_game_stacks_supply_parts_at_setup_r3_2_r3_5(three_player_position):
    parts = unpack_observation(observe(three_player_position.state, 2))
    # R3.2, 3 players: A 18 (7 in the market), B 15, C 23 + One More Round.
    np.testing.assert_allclose(parts["stacks"], [11 / 30, 15 / 30, 24 / 30, 1, 0, 0], rtol=1e-6)
    np.testing.assert_allclose(parts["supply"], [1, 1, 1])  # 4 of each (R3.5)
    expected_game = np.zeros(17, dtype=np.float32)
    expected_game[3 + c.DECISION_TURN] = 1.0
    expected_game[8 + c.MODE_STANDARD] = 1.0
    expected_game[11 + c.EDITION_SECOND] = 1.0
    expected_game[13 + 3 - 1] = 1.0
    np.testing.assert_allclose(parts["game"], expected_game)


def test_dale_mode_flags_r9_2():
    """With Dale: seat 1 is flagged as Dale, the player goes first, slots 2-5 only,
    three public goals, the player's two drawn goals to keep one (R9.2 as revised on
    2026-11-25); stacks 25/25/25 + One More Round in C."""
    game = Game(players=1, mode="dale", seed=5)
    parts = unpack_observation(observe(game.state, 0))
    players = parts["players"]
    assert players[0, 1] == 0.0 and players[1, 1] == 1.0
    assert players[0, 2] == 1.0 and players[1, 2] == 0.0
    assert players[:2, 0].tolist() == [1.0, 1.0] and not players[2:].any()
    assert parts["market"][:, 0].tolist() == [0, 0, 1, 1, 1, 1, 0]
    assert parts["market"][2, 1] == pytest.approx(6 / 10)
    np.testing.assert_allclose(parts["stacks"], [21 / 30, 25 / 30, 26 / 30, 1, 0, 0], rtol=1e-6)
    goals = parts["goals"]
    assert goals[:3].sum() == 3.0 and not goals[3:5].any()  # no fourth public, none kept
    options = [GOALS.goal(name) for name in game.goal_options(0)]
    assert [np.flatnonzero(goals[row]).tolist() for row in (5, 6)] == [[g] for g in options]
    assert parts["game"][3 + c.DECISION_KEEP_GOAL] == 1.0
    assert parts["game"][8 + c.MODE_DALE] == 1.0 and parts["game"][13 + 2 - 1] == 1.0
    # From Dale's side (seat 1) the Dale flag moves to slot 0, and no goal of the player's
    # reaches it: Dale sees the public goals only.
    dale_side = unpack_observation(observe(game.state, 1))
    assert dale_side["players"][0, 1] == 1.0 and not dale_side["goals"][3:].any()
    game.apply(f"keep {game.goal_options(0)[1]}")
    goals = unpack_observation(observe(game.state, 0))["goals"]
    assert np.flatnonzero(goals[4]).tolist() == [options[1]]
    assert not unpack_observation(observe(game.state, 1))["goals"][3:].any()


def test_solitary_mode_has_no_goals_r9_1():
    game = Game(players=1, mode="solitary", seed=2)
    parts = unpack_observation(observe(game.state, 0))
    assert not parts["goals"].any()
    assert parts["game"][8 + c.MODE_SOLITARY] == 1.0 and parts["game"][13] == 1.0
    assert parts["players"][0, 0] == 1.0 and not parts["players"][1:].any()


def test_one_more_round_flags_r4_3():
    """`One More Round drawn` and `final round now` follow FINAL_ROUND (R4.3)."""
    game = Game(players=2, seed=4, random_private_goals=True)
    game.state[s.ROUND] = 9
    game.state[s.FINAL_ROUND] = 10
    drawn = unpack_observation(observe(game.state, 0))["game"]
    assert drawn[0] == pytest.approx(9 / 30) and drawn[1] == 1.0 and drawn[2] == 0.0
    game.state[s.ROUND] = 10
    assert unpack_observation(observe(game.state, 0))["game"][2] == 1.0


# Hidden information (R10.2) -----------------------------------------------------------------

def _give_other_goals(state: np.ndarray, seat: int) -> None:
    """Replace a seat's private goal and both drawn goals with three other goals."""
    base = s.player_base(seat)
    held = set(state[base + s.PRIVATE_GOAL:base + s.GOAL_OPTIONS + 2].tolist())
    others = [g for g in range(len(GOALS.names)) if g not in held][:2]
    state[base + s.GOAL_OPTIONS] = others[0]
    state[base + s.GOAL_OPTIONS + 1] = others[1]
    state[base + s.PRIVATE_GOAL] = others[1]


def _permute_undrawn_stacks(state: np.ndarray, rng: np.random.Generator) -> None:
    """Shuffle the undrawn tiles within each stack (One More Round included, in C)."""
    position = int(state[s.PILE_POSITION])
    bounds = (0, int(state[s.PILE_A_END]), int(state[s.PILE_B_END]), int(state[s.PILE_END]))
    for stack in range(3):
        start, stop = max(bounds[stack], position), bounds[stack + 1]
        if stop - start > 1:
            undrawn = state[s.PILE + start:s.PILE + stop]
            rng.shuffle(undrawn)


@pytest.mark.parametrize("players,seed,moves", [(2, 1, 0), (3, 2, 9), (4, 3, 25), (4, 4, 60)])
def test_other_players_goals_are_hidden_r10_2(players, seed, moves):
    game = midgame(dict(players=players), seed, moves)
    for hidden_seat in range(players):
        changed = game.state.copy()
        _give_other_goals(changed, hidden_seat)
        for observer in range(players):
            before, after = observe(game.state, observer), observe(changed, observer)
            if observer == hidden_seat:
                # Control: one's own goals are in the observation, so it must change.
                assert not np.array_equal(before, after)
            else:
                np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("players,seed,moves", [(2, 5, 0), (3, 6, 12), (4, 7, 30)])
def test_stack_order_and_one_more_round_position_are_hidden_r10_2(players, seed, moves):
    game = midgame(dict(players=players), seed, moves)
    one_more_round = TILES.num_kinds - 1
    rng = np.random.default_rng(seed)
    pile = slice(s.PILE, s.PILE + int(game.state[s.PILE_END]))
    omr_moved = False
    for _ in range(5):
        changed = game.state.copy()
        _permute_undrawn_stacks(changed, rng)
        assert not np.array_equal(changed[pile], game.state[pile])  # the test changes something
        omr_moved |= (np.flatnonzero(changed[pile] == one_more_round).tolist()
                      != np.flatnonzero(game.state[pile] == one_more_round).tolist())
        for observer in range(players):
            np.testing.assert_array_equal(observe(game.state, observer), observe(changed, observer))
    assert omr_moved
    # Control: one tile more drawn from the stacks is public (R10.1) and shows.
    drawn = game.state.copy()
    drawn[s.PILE_POSITION] += 1
    assert not np.array_equal(observe(game.state, 0), observe(drawn, 0))


def test_hidden_information_through_pettingzoo_observe_r10_2():
    env = raw_env(players=3)
    env.reset(seed=21)
    rng = np.random.default_rng(0)
    for _ in range(10):  # goal choices and a few turns
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    for hidden_seat in range(3):
        twin = copy.deepcopy(env)
        _give_other_goals(twin.game.state, hidden_seat)
        _permute_undrawn_stacks(twin.game.state, rng)
        for seat, agent in enumerate(env.possible_agents):
            original, changed = env.observe(agent), twin.observe(agent)
            np.testing.assert_array_equal(original["action_mask"], changed["action_mask"])
            if seat == hidden_seat:
                assert not np.array_equal(original["observation"], changed["observation"])
            else:
                np.testing.assert_array_equal(original["observation"], changed["observation"])


# Bounds ----------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [
    dict(mode="dale", players=1),
    dict(mode="solitary", players=1),
    dict(mode="standard", players=4, opponents="random", learner_seat="random"),
])
def test_observations_stay_within_the_box_over_random_play(options):
    env = SuburbiaEnv(**options)
    space = env.observation_space
    rng = np.random.default_rng(3)
    steps = 0
    for episode in range(4):
        observation, _ = env.reset(seed=episode)
        while True:
            assert space.contains(observation)
            assert np.isfinite(observation["observation"]).all()
            assert observation["action_mask"].any()
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, _, terminated, _, _ = env.step(action)
            steps += 1
            if terminated:
                assert space.contains(observation)
                break
    assert steps > 40


# Incremental encoding -----------------------------------------------------------------

def test_incremental_update_equals_a_fresh_encoding_across_games_and_seats():
    """One buffer and its cache (update_observation) follow a 4-, then a 2-, then a
    3-player game, observed from the seat that decides and now and then from another
    seat: after every update the buffer equals a fresh encode_observation, so cells
    that emptied, slots that fell out of use and seats that moved are all rewritten."""
    buffer = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    cache = new_encoding_cache()
    rng = np.random.default_rng(3)
    compared = 0
    for players, seed in ((4, 11), (2, 12), (3, 13)):
        game = Game(players=players, seed=seed)
        while not game.is_over:
            seat = game.current_player if rng.random() < 0.8 else int(rng.integers(players))
            update_observation(game.state, TILES.table, seat, buffer, cache)
            np.testing.assert_array_equal(buffer, observe(game.state, seat))
            compared += 1
            game.apply(int(rng.choice(game.legal_actions())))
    assert compared > 150


def test_a_fresh_cache_rewrites_a_buffer_holding_anything():
    """A new cache knows nothing of its buffer, so even a buffer full of stale values
    comes out as the fresh encoding."""
    game = midgame(dict(players=3), seed=4, decisions=30)
    buffer = np.full(OBSERVATION_SIZE, 7.0, dtype=np.float32)
    update_observation(game.state, TILES.table, 1, buffer, new_encoding_cache())
    np.testing.assert_array_equal(buffer, observe(game.state, 1))


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_copy_observation_leaves_out_only_the_empty_seats_planes(players):
    """copy_observation (the vector env's final observations) turns a buffer holding an
    observation of another position of the same table into a copy of the source; the
    planes of the empty seat slots, zeros in both, are the only part it does not copy."""
    mode = "solitary" if players == 1 else "standard"
    source_game = Game(players=players, mode=mode, seed=21, random_private_goals=True)
    target_game = Game(players=players, mode=mode, seed=22, random_private_goals=True)
    rng = np.random.default_rng(players)
    for game, moves in ((source_game, 25), (target_game, 8)):
        for _ in range(moves):
            game.apply(int(rng.choice(game.legal_actions())))
    source = observe(source_game.state, source_game.current_player)
    target = observe(target_game.state, target_game.current_player)
    assert not np.array_equal(source, target)
    copy_observation(source, target, players)
    np.testing.assert_array_equal(target, source)

    poisoned = np.full(OBSERVATION_SIZE, 7.0, dtype=np.float32)
    copy_observation(source, poisoned, players)
    boroughs = OBSERVATION_PARTS["boroughs"][0]
    in_play = boroughs.start + players * BOROUGH_SIZE
    np.testing.assert_array_equal(poisoned[:in_play], source[:in_play])
    np.testing.assert_array_equal(poisoned[boroughs.stop:], source[boroughs.stop:])
    assert (poisoned[in_play:boroughs.stop] == 7.0).all()
