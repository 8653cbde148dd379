"""Geometry and setup: R2.1-R2.4, R3.1-R3.6, and the information rule R10.

Expected values are written out by hand from RULES.md (neighbour lists, stack sizes,
start values); the engine's own tables are only ever the thing under test.
"""

from collections import Counter

import numpy as np
import pytest

from suburbia_env import ConfigError, Game, IllegalActionError, NotationError
from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.hex_grid import (CELL_BITS, NEIGHBOUR_BITS, NEIGHBOURS, NO_CELL,
                                          NUM_CELLS, cell_coordinates, cell_index)
from suburbia_env.positions import set_current_player, set_player_values
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import tile_copies, tile_stack

from rules_builders import cells_of, kind_of, market_kinds, new_game, pile, player_values

START = {"money": 15, "income": 0, "reputation": 1, "population": 2, "markers_left": 3}
NEXT_TO_START = {(-1, 0), (1, 0), (-1, 1), (1, 1), (-1, 2), (1, 2), (0, 3)}  # by hand, R2.2


def _neighbours_of(column, row):
    cell = cell_index(column, row)
    return {cell_coordinates(int(n)) for n in NEIGHBOURS[cell] if n != NO_CELL}


# R2 Geometry ----------------------------------------------------------------------------

def test_R2_1_grid_is_13_columns_by_9_rows():
    """R2.1: columns -6..6, rows 0..8, numbered row-major; nothing outside exists."""
    assert NUM_CELLS == 13 * 9
    assert cell_index(-6, 0) == 0 and cell_index(6, 0) == 12
    assert cell_index(-6, 1) == 13 and cell_index(6, 8) == 116
    for column, row in ((-7, 0), (7, 0), (0, -1), (0, 9)):
        assert cell_index(column, row) == NO_CELL
    game = new_game()
    with pytest.raises(NotationError, match="off the borough"):
        game.apply("buy 6 @ 7,0")


@pytest.mark.parametrize("column,row,expected", [
    # even columns: (c, r-1), (c, r+1), (c-1, r-1), (c-1, r), (c+1, r-1), (c+1, r)
    (2, 4, {(2, 3), (2, 5), (1, 3), (1, 4), (3, 3), (3, 4)}),
    (0, 1, {(0, 0), (0, 2), (-1, 0), (-1, 1), (1, 0), (1, 1)}),
    (-4, 7, {(-4, 6), (-4, 8), (-5, 6), (-5, 7), (-3, 6), (-3, 7)}),
    # odd columns: (c, r-1), (c, r+1), (c-1, r), (c-1, r+1), (c+1, r), (c+1, r+1)
    (1, 1, {(1, 0), (1, 2), (0, 1), (0, 2), (2, 1), (2, 2)}),
    (-3, 4, {(-3, 3), (-3, 5), (-4, 4), (-4, 5), (-2, 4), (-2, 5)}),
    (5, 6, {(5, 5), (5, 7), (4, 6), (4, 7), (6, 6), (6, 7)}),
    # edges and corners: cells off the grid do not exist
    (0, 0, {(0, 1), (-1, 0), (1, 0)}),
    (-6, 0, {(-6, 1), (-5, 0)}),
    (6, 8, {(6, 7), (5, 7), (5, 8)}),
    (5, 8, {(5, 7), (4, 8), (6, 8)}),
    (-5, 0, {(-5, 1), (-6, 0), (-6, 1), (-4, 0), (-4, 1)}),
])
def test_R2_2_neighbour_table_spot_checks(column, row, expected):
    """R2.2, checked by hand for even and odd columns and at the edges."""
    assert _neighbours_of(column, row) == expected


def test_R2_2_neighbourhood_is_symmetric():
    """R2.2: a hex grid's adjacency goes both ways; every inner cell has six."""
    for cell in range(NUM_CELLS):
        for neighbour in NEIGHBOURS[cell]:
            if neighbour != NO_CELL:
                assert cell in NEIGHBOURS[neighbour]
    assert all(len(_neighbours_of(x, y)) == 6 for x in range(-5, 6) for y in range(1, 8))


def _cells_in(low: int, high: int) -> set[int]:
    return {cell for cell in range(NUM_CELLS)
            if ((int(low) if cell < 64 else int(high)) >> (cell % 64)) & 1}


def test_R2_2_cell_sets_as_bit_words_match_the_neighbour_table():
    """The two-word cell sets the kernels intersect (Dale's adjacency classes, group
    goals): CELL_BITS[c] holds exactly c, NEIGHBOUR_BITS[c] exactly the R2.2 neighbours
    of c, the last cell (116) in the second word."""
    for cell in range(NUM_CELLS):
        assert _cells_in(*CELL_BITS[cell]) == {cell}
        assert _cells_in(*NEIGHBOUR_BITS[cell]) == set(NEIGHBOURS[cell].tolist()) - {NO_CELL}
    assert CELL_BITS[116, 0] == 0 and CELL_BITS[116, 1] == 1 << 52


@pytest.mark.parametrize("players,mode", [(2, "standard"), (3, "standard"), (4, "standard"),
                                          (1, "solitary"), (1, "dale")])
def test_R2_3_R3_4_starting_borough_and_start_values(players, mode):
    """R2.3: Suburbs (0,0), Park (0,1), Factory (0,2), their effects not applied again;
    R3.4: $15, income 0, reputation 1, population 2, 3 markers (Dale included)."""
    game = new_game(players=players, seed=11, mode=mode)
    for seat in range(game.num_seats):
        assert player_values(game, seat) == START
        borough = {(t["col"], t["row"]): t["tile"] for t in game.player_state(seat)["borough"]}
        assert borough == {(0, 0): "Suburbs", (0, 1): "Community Park", (0, 2): "Heavy Factory"}


def test_R2_4_placements_in_the_mask_are_the_cells_next_to_the_borough():
    """R2.4: new tiles, basic tiles and lakes go on empty cells adjacent to the borough."""
    game = new_game(seed=12)
    legal = game.legal_actions()
    for slot in range(7):
        assert cells_of(legal, a.ACTION_BUY + slot * NUM_CELLS) <= NEXT_TO_START
        assert cells_of(legal, a.ACTION_LAKE + slot * NUM_CELLS) == NEXT_TO_START
    for basic in range(3):
        assert cells_of(legal, a.ACTION_BASIC + basic * NUM_CELLS) == NEXT_TO_START
    assert cells_of(legal, a.ACTION_BUY + 6 * NUM_CELLS) == NEXT_TO_START  # slot 6 costs <= $15


def test_R2_4_illegal_cells_are_refused_and_the_state_is_untouched():
    """R2.4: not adjacent (3,3), or occupied (0,1): IllegalActionError, nothing changes."""
    game = new_game(seed=13)
    before = game.state.copy()
    for text in ("buy 6 @ 3,3", "buy 6 @ 0,1", "lake 6 @ 0,5", "basic park @ 0,0"):
        assert not game.is_legal(text)
        with pytest.raises(IllegalActionError):
            game.apply(text)
    assert np.array_equal(game.state, before)


def test_R2_4_a_lake_counts_for_adjacency():
    """R2.4: (0,4) touches only the lake at (0,3); it becomes a legal cell."""
    game = new_game(seed=14)
    player = game.current_player
    assert not game.is_legal("basic suburbs @ 0,4")
    game.apply("lake 6 @ 0,3")
    set_current_player(game, player)
    assert game.is_legal("basic suburbs @ 0,4")
    assert game.is_legal("lake 6 @ 0,4")


# R3 Setup -------------------------------------------------------------------------------

@pytest.mark.parametrize("players,mode", [(0, "standard"), (1, "standard"), (5, "standard"),
                                          (2, "solitary"), (0, "solitary"), (2, "dale"),
                                          (True, "standard"), (2.0, "standard")])
def test_R3_1_player_counts_outside_the_rules_raise_config_error(players, mode):
    """R3.1: 2-4 players, or 1 in the solo modes (R9); anything else is a ConfigError."""
    with pytest.raises(ConfigError):
        Game(players=players, mode=mode)


def test_R3_1_allowed_player_counts():
    for players, mode, seats in ((2, "standard", 2), (3, "standard", 3), (4, "standard", 4),
                                 (1, "solitary", 1), (1, "dale", 2)):
        assert Game(players=players, mode=mode).num_seats == seats


# (players, mode, edition): A, B, C drawn first, C block with One More Round, C drawn last.
STACK_LAYOUTS = [
    (2, "standard", "2nd", (14, 12, 6, 6, 5)),
    (3, "standard", "2nd", (18, 15, 9, 9, 5)),
    (4, "standard", "2nd", (22, 20, 12, 12, 5)),
    (1, "solitary", "2nd", (14, 12, 6, 6, 5)),
    (2, "standard", "1st", (15, 15, 9, 6, 4)),
    (3, "standard", "1st", (18, 18, 9, 9, 4)),
    (4, "standard", "1st", (21, 21, 9, 12, 4)),
    (1, "solitary", "1st", (15, 15, 9, 6, 4)),
]


def _check_tile_conservation(game):
    """Each physical tile is in exactly one place: box, stacks, market, supply, a borough."""
    where = Counter(int(k) for k in pile(game)[int(game.state[s.PILE_POSITION]):])
    where.update(k for k in market_kinds(game) if k >= 0)
    for seat in range(game.num_seats):
        where.update(kind_of(t["tile"]) for t in game.player_state(seat)["borough"])
    for basic, name in zip(c.BASIC_NOTATION_NAMES, c.BASIC_TILE_NAMES):
        where[kind_of(name)] += game.supply()[basic]
    for kind in range(TILES.num_kinds):
        total = where[kind] + int(game.state[s.BOX + kind]) + int(game.state[s.DISCARDED + kind])
        assert total == tile_copies(TILES.table, kind), TILES.names[kind]


@pytest.mark.parametrize("players,mode,edition,layout", STACK_LAYOUTS)
def test_R3_2_R3_3_stack_sizes_and_one_more_round_block(players, mode, edition, layout):
    """R3.2 (2nd edition, also Solitary Architect R9.1) and R3.3 (1st edition, 1 player as
    2): stack sizes, the first 7 A tiles as the market, C drawn as first / block shuffled
    with One More Round / last."""
    count_a, count_b, c_first, c_block, c_last = layout
    count_c = c_first + c_block + c_last
    positions = set()
    for seed in range(25):
        game = new_game(players=players, seed=seed, mode=mode, edition=edition)
        order = pile(game)
        assert len(order) == count_a + count_b + count_c + 1
        assert (int(game.state[s.PILE_A_END]), int(game.state[s.PILE_B_END])) == (
            count_a, count_a + count_b)
        stacks = [tile_stack(TILES.table, k) for k in order]
        assert stacks[:count_a] == [c.STACK_A] * count_a
        assert stacks[count_a:count_a + count_b] == [c.STACK_B] * count_b
        assert stacks[count_a + count_b:] == [c.STACK_C] * (count_c + 1)
        c_part = list(order[count_a + count_b:])
        assert c_part.count(TILES.one_more_round) == 1
        offset = c_part.index(TILES.one_more_round)
        assert c_first <= offset <= c_first + c_block
        positions.add(offset)
        assert sorted(market_kinds(game)) == sorted(int(k) for k in order[:7])
        assert int(game.state[s.PILE_POSITION]) == 7
        assert game.stack_sizes() == {"A": count_a - 7, "B": count_b, "C": count_c + 1}
        _check_tile_conservation(game)
    assert len(positions) > 1  # One More Round is shuffled within its block


def test_R3_5_basic_supply_runs_out():
    """R3.5: 4 of each basic tile, shared; the fifth Suburbs cannot be bought."""
    game = new_game(players=2, seed=15)
    assert game.supply() == {"suburbs": 4, "park": 4, "factory": 4}
    for bought in range(4):
        player = game.current_player
        cell = "-1,0" if bought < 2 else "1,0"
        money = player_values(game, player)["money"]
        game.apply(f"basic suburbs @ {cell}")
        assert player_values(game, player)["money"] == money - 3
        game.apply("discard 6")
        assert game.supply()["suburbs"] == 3 - bought
    assert game.supply() == {"suburbs": 0, "park": 4, "factory": 4}
    for seat in (0, 1):
        set_current_player(game, seat)
        set_player_values(game, seat, money=20)
        texts = game.legal_actions_text()
        assert not any(t.startswith("basic suburbs") for t in texts)
        assert any(t.startswith("basic park") for t in texts)
        assert any(t.startswith("basic factory") for t in texts)
        with pytest.raises(IllegalActionError):
            game.apply("basic suburbs @ -1,1")


def test_R3_6_players_keep_a_goal_in_turn_order_before_the_first_turn():
    """R3.6: as many public goals as players, two drawn goals each, kept in turn order
    from the first player; the first turn follows."""
    game = Game(players=3, seed=16)
    first = game.current_player
    assert len(game.public_goals) == 3
    drawn = [game.goal_options(p) for p in range(3)]
    assert all(len(options) == 2 for options in drawn)
    every_goal = game.public_goals + [g for options in drawn for g in options]
    assert len(set(every_goal)) == 9
    for offset in range(3):
        player = (first + offset) % 3
        assert game.pending_decision == "keep_goal" and game.current_player == player
        assert set(game.legal_actions_text()) == {f"keep {g}" for g in drawn[player]}
        assert not game.is_legal("pass")
        keep = drawn[player][offset % 2]
        game.apply(f"keep {keep}")
        assert game.private_goal(player) == keep
    assert game.pending_decision == "turn" and game.current_player == first
    assert game.round == 0


def test_R3_6_random_goal_option_keeps_one_of_the_drawn_goals():
    """R3.6 (random option): every player keeps one of its two goals, turns start now."""
    kept_first = Counter()
    for seed in range(20):
        game = new_game(players=4, seed=seed)
        assert game.pending_decision == "turn"
        for player in range(4):
            options = game.goal_options(player)
            assert game.private_goal(player) in options
            kept_first[game.private_goal(player) == options[0]] += 1
    assert kept_first[True] > 0 and kept_first[False] > 0


def test_R3_6_first_player_is_chosen_at_random():
    """R3.6: over seeds every seat of a 4-player game gets to start."""
    assert {new_game(players=4, seed=seed).current_player for seed in range(40)} == {0, 1, 2, 3}


def test_R3_6_setup_is_reproducible_from_the_seed():
    one, two = Game(players=3, seed=99), Game(players=3, seed=99)
    assert np.array_equal(one.state, two.state)
    assert not np.array_equal(one.state, Game(players=3, seed=100).state)


# R10 Information --------------------------------------------------------------------------

def test_R10_private_goals_only_through_explicit_calls():
    """R10.1/R10.2: the public player state carries no goal; the private goal and the
    drawn goals are given only by private_goal(p) / goal_options(p)."""
    game = new_game(players=3, seed=17)
    for player in range(3):
        public = game.player_state(player)
        assert not any("goal" in key for key in public)
        assert game.private_goal(player) not in repr(public)
        assert game.private_goal(player) in game.goal_options(player)
    assert all(goal in GOALS.names for goal in game.public_goals)
    assert "goal" not in repr(game)
    assert set(game.stack_sizes()) == {"A", "B", "C"}
    assert set(game.supply()) == {"suburbs", "park", "factory"}

