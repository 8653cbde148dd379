"""The market and a turn: R4.1-R4.3, R5.1-R5.4, with the level and population bounds of
R1.2/R1.3 and the red lines of R8.1 as steps 2 and 3 meet them.

Tile effects themselves (R6, R7) are tested elsewhere; here step 1 is chosen to have no
or a known, simple effect (a free lake touching only a lake, a Convenience Store, ...).
"""

import pytest

from suburbia_env import IllegalActionError
from suburbia_env.engine import action_space as a
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.hex_grid import NUM_CELLS, cell_coordinates
from suburbia_env.positions import (put_tile_without_effects, set_current_player,
                                    set_market_tile, set_player_values)
from suburbia_env.engine.tile_data import TILES
from suburbia_env.engine.tile_table import tile_stack

from rules_builders import (SLOT_PREMIUMS, discarded_count, events, exhaust_stacks,
                            use_up_markers,
                            fill_borough, has_event, market_kinds, move_one_more_round,
                            new_game, pile, pile_position, play_free_turn, player_values,
                            prepare_neutral_lake, values_after_step_one)

START = {"money": 15, "income": 0, "reputation": 1, "population": 2, "markers_left": 3}


def _stack_of(kind):
    return c.STACK_NAMES[tile_stack(TILES.table, kind)]


# R4.1 / R4.2 / R5.4 Market ----------------------------------------------------------------

@pytest.mark.parametrize("slot", range(7))
def test_R4_1_R5_1a_price_is_cost_plus_slot_premium(slot):
    """R4.1 premiums +10 +8 +6 +4 +2 0 0; R5.1a: affordable exactly at cost + premium."""
    game = new_game(seed=40 + slot)
    player = game.current_player
    set_market_tile(game, slot, "Convenience Store")  # $6, inc+1, no conditional
    price = 6 + SLOT_PREMIUMS[slot]
    set_player_values(game, player, money=price - 1)
    assert not game.is_legal(f"buy {slot} @ 0,3")
    set_player_values(game, player, money=price)
    game.apply(f"buy {slot} @ 0,3")  # next to the Heavy Factory only: nothing reacts
    (place,) = events(game, ev.EVENT_PLACE)
    assert int(place[ev.FIELD_AMOUNT]) == price
    assert values_after_step_one(game, player) == {"money": 0, "income": 1, "reputation": 1}
    assert player_values(game, player)["money"] == 1


@pytest.mark.parametrize("slot", [0, 3, 6])
def test_R4_2_R5_4_market_slides_toward_slot_6_and_draws_into_slot_0(slot):
    """R4.2: one tile leaves, the others slide to close the gap, the next tile of the
    stacks goes to slot 0 (R5.4)."""
    game = new_game(seed=47)
    before = market_kinds(game)
    next_tile = int(pile(game)[pile_position(game)])
    set_player_values(game, game.current_player, money=40)
    game.apply(f"buy {slot} @ 1,0")
    kept = before[:slot] + before[slot + 1:]
    assert market_kinds(game) == [next_tile] + kept
    assert pile_position(game) == 8


@pytest.mark.parametrize("actions,slot_leaving", [
    (["buy 5 @ 1,0"], 5),
    (["lake 2 @ 1,0"], 2),
    (["basic park @ 1,0", "discard 4"], 4),
    (["invest 0,0", "discard 1"], 1),
])
def test_R5_4_exactly_one_tile_leaves_and_one_is_drawn_each_turn(actions, slot_leaving):
    """R4.2/R5.4: whatever step 1 was, the others slide and one tile is drawn."""
    game = new_game(seed=48)
    before = market_kinds(game)
    for action in actions:
        game.apply(action)
    assert pile_position(game) == 8
    assert market_kinds(game) == ([int(pile(game)[7])] + before[:slot_leaving]
                                  + before[slot_leaving + 1:])


def test_R4_2_draws_from_A_until_empty_then_B_then_C():
    """R4.2: 2 players: 7 A tiles left after the market, then 12 B, then C."""
    game = new_game(players=2, seed=49)
    order = pile(game)
    for turn in range(21):
        rows = play_free_turn(game)
        (draw,) = [row for row in rows if int(row[ev.FIELD_EVENT]) == ev.EVENT_DRAW]
        assert int(draw[ev.FIELD_SOURCE_KIND]) == int(order[7 + turn])
        assert int(draw[ev.FIELD_SOURCE_CELL]) == 0
        expected_stack = "A" if turn < 7 else "B" if turn < 19 else "C"
        assert _stack_of(int(draw[ev.FIELD_SOURCE_KIND])) == expected_stack
        drawn = turn + 1
        assert game.stack_sizes() == {"A": max(0, 7 - drawn),
                                      "B": 12 - min(12, max(0, drawn - 7)),
                                      "C": 18 - max(0, drawn - 19)}


def test_R4_2_slot_stays_empty_when_nothing_is_left_to_draw():
    """R4.2: with every stack drawn, the market slides and slot 0 stays empty."""
    game = new_game(seed=50)
    exhaust_stacks(game)
    before = market_kinds(game)
    play_free_turn(game)  # takes slot 6
    assert market_kinds(game) == [-1] + before[:6]
    play_free_turn(game)
    assert market_kinds(game) == [-1, -1] + before[:5]
    assert game.stack_sizes() == {"A": 0, "B": 0, "C": 0}


# R4.3 One More Round ------------------------------------------------------------------------

LAYOUT_2ND = {2: (14, 12, 6, 6), 3: (18, 15, 9, 9), 4: (22, 20, 12, 12)}  # R3.2


def _one_more_round_game(players, place_in_round):
    """A game whose One More Round is drawn in the refill of the overall turn T (0-based)
    with T % players == place_in_round; T is the earliest such turn of the block."""
    count_a, count_b, c_first, c_block = LAYOUT_2ND[players]
    block = range(count_a + count_b + c_first, count_a + count_b + c_first + c_block + 1)
    # Turn T's refill draws pile position 7 + T (the market took the first 7).
    turn = next(t for t in range(200) if 7 + t in block and t % players == place_in_round)
    game = new_game(players=players, seed=60 + players)
    move_one_more_round(game, 7 + turn)
    return game, turn


def _play_to_the_end(game, players, drawn_turn):
    turns = 0
    while not game.is_over:
        assert turns < 200
        rows = play_free_turn(game)
        drawn = has_event(rows, ev.EVENT_ONE_MORE_ROUND)
        assert drawn == (turns == drawn_turn)
        if drawn:
            assert all(kind >= 0 for kind in market_kinds(game))  # replaced at once
            assert discarded_count(game, TILES.one_more_round) == 1
            assert int(game.state[s.FINAL_ROUND]) == drawn_turn // players + 1
        turns += 1
    return turns


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R4_3_one_more_round_drawn_on_first_turn_of_round(players):
    """R4.3: drawn by the first player's refill: the rest of the round, then one more full
    round, then the game ends."""
    game, turn = _one_more_round_game(players, 0)
    turns = _play_to_the_end(game, players, turn)
    assert turns == turn + 1 + (players - 1) + players
    assert turns % players == 0


@pytest.mark.parametrize("players", [3, 4])
def test_R4_3_one_more_round_drawn_mid_round(players):
    game, turn = _one_more_round_game(players, 1)
    turns = _play_to_the_end(game, players, turn)
    assert turns == turn + 1 + (players - 2) + players
    assert turns % players == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R4_3_one_more_round_drawn_on_last_turn_of_round(players):
    """R4.3: drawn by the refill of the round's last turn: the next round is the final one."""
    game, turn = _one_more_round_game(players, players - 1)
    turns = _play_to_the_end(game, players, turn)
    assert turns == turn + 1 + players
    assert game.final_scores()  # the game is scored


def test_R4_3_one_more_round_first_edition_four_players():
    """R4.3 with the 1st-edition layout (R3.3: 9 C, then the block of 12 with One More
    Round): drawn on a middle turn, the game still ends one full round later."""
    game = new_game(players=4, seed=65, edition="1st")
    block_start = 21 + 21 + 9
    turn = next(t for t in range(200) if 7 + t >= block_start and t % 4 == 2)
    move_one_more_round(game, 7 + turn)
    assert _play_to_the_end(game, 4, turn) == turn + 1 + 1 + 4


# R5.1 Step 1 -----------------------------------------------------------------------------------

def test_R5_1a_full_price_is_paid_before_money_from_the_placement():
    """R5.1a: a Homeowners Association in slot 4 costs $8; $7 is not enough even though
    it would pay $6 at once (three residential tiles with 2 players); with $8 it is
    bought and the money arrives afterwards."""
    game = new_game(players=2, seed=51)
    player = game.current_player
    set_market_tile(game, 4, "Homeowners Association")
    set_player_values(game, player, money=7)
    assert not game.is_legal("buy 4 @ 0,3")
    set_player_values(game, player, money=8)
    game.apply("buy 4 @ 0,3")
    assert values_after_step_one(game, player)["money"] == 6


def test_R5_1b_basic_tile_costs_its_cost_then_only_affordable_discards_are_legal():
    """R5.1b: a Park costs $4 only; the discard is a second decision of the same player,
    legal for the occupied slots whose premium can be paid."""
    game = new_game(seed=52)
    player = game.current_player
    assert not game.is_legal("discard 6")  # only after a basic tile or an investment
    set_player_values(game, player, money=9)
    game.apply("basic park @ 0,3")  # next to the Heavy Factory: -1 reputation
    assert game.pending_decision == "discard" and game.current_player == player
    assert player_values(game, player)["money"] == 5
    assert not game.is_legal("pass") and not game.is_legal("basic park @ 1,0")
    assert set(game.legal_actions_text()) == {"discard 3", "discard 4", "discard 5",
                                              "discard 6"}
    with pytest.raises(IllegalActionError):
        game.apply("discard 2")
    discarded = market_kinds(game)[3]
    count = discarded_count(game, discarded)
    game.apply("discard 3")
    assert discarded_count(game, discarded) == count + 1
    assert player_values(game, player)["money"] == 0  # $1 left, then income -1 paid


@pytest.mark.parametrize("free_slots_empty", [False, True])
def test_R5_1_discard_is_judged_after_the_investment_resolved(free_slots_empty):
    """R5.1: with $0, investing in a lake ($0) that touches one tile brings $2, which can
    pay the discard of slot 4 (+$2) but not of slot 3 (+$4). With slots 5 and 6 empty
    (a hand-made market) the discard is only possible thanks to that money."""
    game = new_game(seed=53)
    player = game.current_player
    put_tile_without_effects(game, player, "Freeway", 0, 3, lake=True)  # touches the Factory
    if free_slots_empty:
        set_market_tile(game, 5, None)
        set_market_tile(game, 6, None)
    set_player_values(game, player, money=0)
    assert game.is_legal("invest 0,3")
    game.apply("invest 0,3")
    assert game.pending_decision == "discard"
    assert player_values(game, player)["money"] == 2
    expected = {"discard 4"} | (set() if free_slots_empty else {"discard 5", "discard 6"})
    assert set(game.legal_actions_text()) == expected
    game.apply("discard 4")
    assert values_after_step_one(game, player)["money"] == 0


def test_R5_1_no_discard_with_an_empty_market():
    """R5.1: after a basic tile there is nothing to discard when the market is empty."""
    game = new_game(seed=54)
    player = game.current_player
    for slot in range(7):
        set_market_tile(game, slot, None)
    game.apply("basic suburbs @ 1,0")
    assert game.pending_decision == "turn" and game.current_player != player
    assert not events(game, ev.EVENT_DISCARD)


def test_R5_1c_lake_costs_the_slot_premium_only():
    """R5.1c: slot 0 as a lake costs $10 whatever the tile; with $9 only cheaper slots."""
    game = new_game(seed=55)
    player = game.current_player
    set_player_values(game, player, money=9)
    assert not game.is_legal("lake 0 @ 0,3") and game.is_legal("lake 1 @ 0,3")
    set_player_values(game, player, money=10)
    assert not game.is_legal("buy 0 @ 0,3")
    game.apply("lake 0 @ 0,3")  # the lake touches the Heavy Factory: $2 (R6.7)
    (place,) = events(game, ev.EVENT_PLACE)
    assert int(place[ev.FIELD_AMOUNT]) == 10 and int(place[ev.FIELD_ATTRIBUTE]) == 1
    assert values_after_step_one(game, player)["money"] == 2


def test_R5_1d_investment_price_is_the_printed_cost_and_a_lake_is_free():
    """R5.1d: Suburbs $3, Heavy Factory $3, Community Park $4, a lake $0."""
    game = new_game(seed=56)
    player = game.current_player
    put_tile_without_effects(game, player, "Freeway", 0, 3, lake=True)

    def investable():
        return {cell_coordinates(int(x) - a.ACTION_INVEST) for x in game.legal_actions()
                if a.ACTION_INVEST <= x < a.ACTION_INVEST + NUM_CELLS}

    for money, expected in ((0, {(0, 3)}), (2, {(0, 3)}), (3, {(0, 3), (0, 0), (0, 2)}),
                            (4, {(0, 3), (0, 0), (0, 2), (0, 1)})):
        set_player_values(game, player, money=money)
        assert investable() == expected
    game.apply("invest 0,1")  # the Park's effects (R7.3) move levels only
    assert player_values(game, player)["money"] == 0


def test_R5_1d_three_markers_and_one_marker_per_tile():
    """R5.1d: a tile that carries a marker cannot take another; after three investments
    no marker is left."""
    game = new_game(seed=57)
    player = game.current_player
    for number, cell in enumerate(("0,0", "0,2", "0,1")):
        set_current_player(game, player)
        set_player_values(game, player, money=20)
        assert player_values(game, player)["markers_left"] == 3 - number
        game.apply(f"invest {cell}")
        assert not game.is_legal(f"invest {cell}")
        game.apply("discard 6")
    set_current_player(game, player)
    put_tile_without_effects(game, player, "Freeway", 0, 3, lake=True)
    assert player_values(game, player)["markers_left"] == 0
    assert not any(t.startswith("invest") for t in game.legal_actions_text())


def test_R5_1_pass_is_illegal_while_another_option_exists():
    """R5.1: with $0 and no marker a lake from slot 6 ($0) is still possible."""
    game = new_game(seed=58)
    player = game.current_player
    assert not game.is_legal("pass")
    set_player_values(game, player, money=0)
    use_up_markers(game, player)
    assert not game.is_legal("pass")
    assert set(t.split(" @ ")[0] for t in game.legal_actions_text()) == {"lake 5", "lake 6"}
    with pytest.raises(IllegalActionError):
        game.apply("pass")


def test_R5_1_pass_when_nothing_is_possible_slot_6_leaves_for_free():
    """R5.1: no cell left and no marker: passing is the only action; the slot 6 tile
    leaves the market at no cost, then steps 2-4 as usual."""
    game = new_game(seed=59)
    player = game.current_player
    use_up_markers(game, player)
    set_player_values(game, player, money=30, income=2)
    fill_borough(game, player)  # unreachable (no cell left), edited outside positions.py
    assert game.legal_actions_text() == ["pass"]
    before = market_kinds(game)
    leaving = discarded_count(game, before[6])
    game.apply("pass")
    (discard,) = events(game, ev.EVENT_DISCARD)
    assert int(discard[ev.FIELD_SOURCE_CELL]) == 6 and int(discard[ev.FIELD_AMOUNT]) == 0
    assert discarded_count(game, before[6]) == leaving + 1
    assert player_values(game, player)["money"] == 32
    assert market_kinds(game)[1:] == before[:6]


def test_R5_1_pass_with_an_empty_market_and_no_money():
    """R5.1: no tile to buy, no basic affordable, no marker: pass; nothing leaves."""
    game = new_game(seed=60)
    player = game.current_player
    for slot in range(7):
        set_market_tile(game, slot, None)
    set_player_values(game, player, money=2)
    use_up_markers(game, player)
    assert game.legal_actions_text() == ["pass"]
    game.apply("pass")
    assert not events(game, ev.EVENT_DISCARD)
    assert game.current_player != player


# R5.2 / R5.3 Steps 2 and 3, with R1.2, R1.3 and R8.1 -----------------------------------------

def _turn_with_neutral_step_one(**values):
    """Play a turn whose step 1 changes nothing, from the given values; return the values
    after steps 2 and 3 and the events."""
    game = new_game(seed=61)
    player = game.current_player
    action = prepare_neutral_lake(game, player)
    set_player_values(game, player, **values)
    game.apply(action)
    return player_values(game, player), game, player


def test_neutral_step_one_changes_nothing():
    """Not a rule: the step 1 used below really is neutral (R6.7: a lake next to a lake)."""
    values, game, player = _turn_with_neutral_step_one()
    assert values == {**START, "population": 3}
    assert not events(game, ev.EVENT_EFFECT)


def test_R5_2_positive_income_is_gained():
    values, _, _ = _turn_with_neutral_step_one(money=10, income=4)
    assert values["money"] == 14


def test_R5_2_negative_income_is_paid():
    values, _, _ = _turn_with_neutral_step_one(money=10, income=-3)
    assert (values["money"], values["population"]) == (7, 3)


def test_R5_2_shortfall_costs_one_population_per_unpaid_dollar():
    """R5.2: $2 against income -5: $2 paid, 3 population lost; then step 3 (+1)."""
    values, game, player = _turn_with_neutral_step_one(money=2, income=-5, population=6)
    assert (values["money"], values["population"]) == (0, 6 - 3 + 1)
    (shortfall,) = events(game, ev.EVENT_SHORTFALL)
    assert int(shortfall[ev.FIELD_AMOUNT]) == -3


def test_R5_2_R1_3_shortfall_stops_at_population_0_and_the_rest_is_forgiven():
    values, _, _ = _turn_with_neutral_step_one(money=0, income=-5, population=2, reputation=0)
    assert (values["money"], values["population"]) == (0, 0)


@pytest.mark.parametrize("population,reputation,expected", [(2, 3, 5), (5, -2, 3), (4, 0, 4)])
def test_R5_3_population_moves_by_reputation(population, reputation, expected):
    values, _, _ = _turn_with_neutral_step_one(population=population, reputation=reputation)
    assert values["population"] == expected


def test_R5_3_population_below_0_is_paid_one_dollar_per_point():
    """R5.3: population 1, reputation -4: 3 points below 0 cost $3."""
    values, _, _ = _turn_with_neutral_step_one(money=10, population=1, reputation=-4)
    assert (values["money"], values["population"]) == (7, 0)


def test_R5_3_R1_3_unpayable_points_below_0_are_forgiven():
    values, _, _ = _turn_with_neutral_step_one(money=2, population=1, reputation=-5)
    assert (values["money"], values["population"]) == (0, 0)


def test_R8_1_step_3_crossing_one_red_line_upward():
    """R8.1: 13 + 3 = 16 passes the line at 15: income -1, reputation -1."""
    values, game, _ = _turn_with_neutral_step_one(money=0, income=4, population=13, reputation=3)
    assert values == {"money": 4, "income": 3, "reputation": 2, "population": 16,
                      "markers_left": 3}
    assert [int(r[ev.FIELD_VALUE_AFTER]) for r in events(game, ev.EVENT_RED_LINE)] == [15]


def test_R8_1_reaching_a_line_value_crosses_it_stopping_below_does_not():
    reached, _, _ = _turn_with_neutral_step_one(population=12, reputation=3)
    assert (reached["population"], reached["income"], reached["reputation"]) == (15, -1, 2)
    below, _, _ = _turn_with_neutral_step_one(population=11, reputation=3)
    assert (below["population"], below["income"], below["reputation"]) == (14, 0, 3)


def test_R8_1_step_3_crossing_two_lines_one_at_a_time():
    """R8.1: 20 + 10 = 30 passes 22 and 29."""
    values, game, _ = _turn_with_neutral_step_one(population=20, reputation=10)
    assert (values["income"], values["reputation"]) == (-2, 8)
    assert [int(r[ev.FIELD_VALUE_AFTER]) for r in events(game, ev.EVENT_RED_LINE)] == [22, 29]


def test_R8_1_lines_above_100_are_every_odd_number():
    """R8.1: 96 + 10 = 106 passes 98, 101, 103 and 105."""
    values, game, _ = _turn_with_neutral_step_one(population=96, reputation=10)
    assert (values["income"], values["reputation"]) == (-4, 6)
    assert [int(r[ev.FIELD_VALUE_AFTER]) for r in events(game, ev.EVENT_RED_LINE)] == [98, 101, 103, 105]


def test_R8_1_step_3_falling_back_below_a_line():
    """R8.1: 16 - 2 = 14 falls back below 15: income +1, reputation +1."""
    values, _, _ = _turn_with_neutral_step_one(income=0, population=16, reputation=-2)
    assert (values["population"], values["income"], values["reputation"]) == (14, 1, -1)


def test_R8_1_step_3_falling_back_below_two_lines_in_the_order_passed():
    """R8.1: 93 - 5 = 88 falls back below 92, then below 89: +2 income, +2 reputation."""
    values, game, _ = _turn_with_neutral_step_one(income=1, population=93, reputation=-5)
    assert (values["population"], values["income"], values["reputation"]) == (88, 3, -3)
    assert [int(r[ev.FIELD_VALUE_AFTER]) for r in events(game, ev.EVENT_RED_LINE)] == [92, 89]


def test_R8_1_step_2_shortfall_falls_back_then_step_3_crosses_again():
    """R8.1 in step 2: income -4 with $1 loses 3 population (16 -> 13): +1/+1 (income -3,
    reputation 2); step 3 then adds 2 (13 -> 15): -1/-1 again."""
    values, game, _ = _turn_with_neutral_step_one(money=1, income=-4, population=16,
                                                  reputation=1)
    assert values == {"money": 0, "income": -4, "reputation": 1, "population": 15,
                      "markers_left": 3}
    assert [int(r[ev.FIELD_AMOUNT]) for r in events(game, ev.EVENT_RED_LINE)] == [-1, 1]


def test_R1_2_red_line_adjustments_beyond_the_limits_are_lost():
    """R1.2: income -5 stays -5 through two lines; reputation 15 -> 13."""
    values, _, _ = _turn_with_neutral_step_one(money=50, income=-5, population=10,
                                               reputation=15)
    assert values == {"money": 45, "income": -5, "reputation": 13, "population": 25,
                      "markers_left": 3}


def test_R1_2_falling_back_at_the_upper_limit_is_lost_too():
    """R1.2: income 15 stays 15 when falling back below 15; reputation -5 -> -4."""
    values, _, _ = _turn_with_neutral_step_one(money=0, income=15, population=17,
                                               reputation=-5)
    assert values == {"money": 15, "income": 15, "reputation": -4, "population": 12,
                      "markers_left": 3}


def test_R1_3_money_never_goes_below_0():
    values, _, _ = _turn_with_neutral_step_one(money=3, income=-5, population=10,
                                               reputation=-5)
    # Step 2: $3 paid, 2 population lost; step 3: reputation -5.
    assert (values["money"], values["population"]) == (0, 10 - 2 - 5)
