"""The worked examples E1-E6 of examples.md, each with the exact numbers of the rulebooks.

Every position starts from the starting borough (R2.3) and the start values (R3.4:
$15, income 0, reputation 1, population 2) unless the example says otherwise.
"""

from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine.hex_grid import neighbour_coordinates
from suburbia_env.positions import (put_tile_without_effects, set_current_player,
                                    set_market_tile, set_player_values)

from rules_builders import (effects_on, events, kind_of, new_game, player_values, score_now,
                            set_goals, tile_at, values_after_step_one)

START = {"money": 15, "income": 0, "reputation": 1, "population": 2, "markers_left": 3}


def test_E1_office_building_from_the_plus_2_slot():
    """E1 (R5.1a, R7.1): $11 paid, income 1, reputation 2 (Park), Factory silent;
    after steps 2 and 3 money 5 and population 4."""
    game = new_game(players=2, seed=1)
    player = game.current_player
    assert player_values(game, player) == START
    assert {(0, 1), (0, 2)} <= set(neighbour_coordinates(1, 1))
    assert (0, 0) not in neighbour_coordinates(1, 1)
    set_market_tile(game, 4, "Office Building")

    game.apply("buy 4 @ 1,1")

    (place,) = events(game, ev.EVENT_PLACE)
    assert int(place[ev.FIELD_AMOUNT]) == 11
    assert values_after_step_one(game, player) == {"money": 4, "income": 1, "reputation": 2}
    reputation_rows = [row for row in events(game, ev.EVENT_EFFECT)
                       if int(row[ev.FIELD_PLAYER]) == player and int(row[ev.FIELD_ATTRIBUTE]) == c.ATTR_REPUTATION]
    assert [int(row[ev.FIELD_SOURCE_KIND]) for row in reputation_rows] == [kind_of("Community Park")]
    assert player_values(game, player) == {"money": 5, "income": 1, "reputation": 2,
                                           "population": 4, "markers_left": 3}


def test_E2_discard_after_a_basic_tile():
    """E2 (R5.1b): Suburbs $3, then the Fancy Restaurant of slot 3 discarded for $4:
    15 - 3 - 4 = 8 before step 2 (slots 5 and 6 would have been free)."""
    game = new_game(players=2, seed=2)
    player = game.current_player
    set_market_tile(game, 3, "Fancy Restaurant")

    game.apply("basic suburbs @ -1,0")
    assert game.pending_decision == "discard" and game.current_player == player
    assert player_values(game, player)["money"] == 12
    assert {"discard 5", "discard 6", "discard 3"} <= set(game.legal_actions_text())
    free = game.copy()
    free.apply("discard 6")
    assert values_after_step_one(free, player)["money"] == 12

    game.apply("discard 3")
    (discard,) = events(game, ev.EVENT_DISCARD)
    assert int(discard[ev.FIELD_SOURCE_KIND]) == kind_of("Fancy Restaurant")
    assert int(discard[ev.FIELD_AMOUNT]) == 4
    assert values_after_step_one(game, player)["money"] == 8
    assert player_values(game, player)["money"] == 8  # income 0 in step 2


def _e3_borough():
    """E3: a lake with five adjacent non-lake tiles; a Parking Lot adjacent to a Community
    Park and an Office Building (its only civic or commercial neighbours); the starting
    Community Park adjacent to Suburbs, Heavy Factory and the Parking Lot only."""
    game = new_game(players=2, seed=3)
    player = game.current_player
    put_tile_without_effects(game, player, "Parking Lot", 1, 1)
    put_tile_without_effects(game, player, "Office Building", 2, 1)
    put_tile_without_effects(game, player, "Mobile Home Community", 0, 3)
    put_tile_without_effects(game, player, "Retirement Village", 1, 3)
    put_tile_without_effects(game, player, "Landfill", 2, 3)
    put_tile_without_effects(game, player, "Hostel", 1, 2, lake=True)

    def occupied_neighbours(column, row):
        return {tile_at(game, player, x, y) for x, y in neighbour_coordinates(column, row)} - {None}

    assert occupied_neighbours(1, 2) == {"Parking Lot", "Heavy Factory", "Mobile Home Community",
                                         "Retirement Village", "Landfill"}
    assert len([1 for x, y in neighbour_coordinates(1, 2) if tile_at(game, player, x, y)]) == 5
    assert occupied_neighbours(1, 1) == {"Community Park", "Office Building", "Heavy Factory",
                                         "Hostel"}  # the Hostel is the lake at (1,2)
    assert occupied_neighbours(0, 1) == {"Suburbs", "Heavy Factory", "Parking Lot"}
    return game, player


def test_E3_investing_in_the_lake_costs_0_and_pays_10():
    """E3 (R5.1d, R6.7, R7.3): $2 for each of the five adjacent tiles."""
    game, player = _e3_borough()
    game.apply("invest 1,2")
    assert game.pending_decision == "discard"
    assert player_values(game, player) == {**START, "money": 25, "markers_left": 2}


def test_E3_investing_in_the_parking_lot_costs_12_and_gives_income_3():
    """E3 (R7.3): +1 immediate, +1 for the Park, +1 for the Office Building."""
    game, player = _e3_borough()
    game.apply("invest 1,1")
    assert player_values(game, player) == {**START, "money": 3, "income": 3, "markers_left": 2}
    assert effects_on(game, player, c.ATTR_INCOME) == [1, 1, 1]


def test_E3_investing_in_the_park_costs_4_income_minus_1_reputation_plus_3():
    """E3 (R7.3): one reputation per adjacent residential, industrial and commercial
    tile; the Heavy Factory's -1 for an adjacent civic tile is not triggered again."""
    game, player = _e3_borough()
    game.apply("invest 0,1")
    assert player_values(game, player) == {**START, "money": 11, "income": -1, "reputation": 4,
                                           "markers_left": 2}
    assert effects_on(game, player, c.ATTR_REPUTATION) == [1, 1, 1]


def test_E3_invested_park_gives_2_reputation_for_each_later_neighbour():
    """E3: afterwards a residential tile placed next to the invested Park gives +2."""
    game, player = _e3_borough()
    game.apply("invest 0,1")
    game.apply("discard 6")
    set_current_player(game, player)
    set_player_values(game, player, money=10, reputation=0)
    assert (0, 1) in neighbour_coordinates(-1, 0)
    assert (0, 2) not in neighbour_coordinates(-1, 0)  # no Heavy Factory reaction

    game.apply("basic suburbs @ -1,0")

    assert effects_on(game, player, c.ATTR_REPUTATION) == [1, 1]
    assert player_values(game, player)["reputation"] == 2


def test_E4_restaurants_across_boroughs_in_a_three_player_first_round():
    """E4 (R6.3, R6.5, R7.1): Farm, Fancy Restaurant, Fast Food Restaurant in turn order."""
    game = new_game(players=3, seed=4)
    first, second, third = [(game.current_player + k) % 3 for k in range(3)]
    assert {(0, 1), (0, 2)} <= set(neighbour_coordinates(1, 1))
    assert {(0, 0), (0, 1)} <= set(neighbour_coordinates(1, 0))
    assert (0, 2) not in neighbour_coordinates(1, 0)

    set_market_tile(game, 5, "Farm")
    game.apply("buy 5 @ 1,1")  # -1 Farm, +1 Park: reputation unchanged
    assert values_after_step_one(game, first) == {"money": 6, "income": 0, "reputation": 1}

    assert game.current_player == second
    set_market_tile(game, 5, "Fancy Restaurant")
    game.apply("buy 5 @ 1,1")
    assert values_after_step_one(game, second) == {"money": 6, "income": 3, "reputation": 2}
    assert effects_on(game, first, c.ATTR_INCOME) == [1]  # the Farm, on another player's turn
    assert player_values(game, first)["income"] == 1

    assert game.current_player == third
    set_market_tile(game, 5, "Fast Food Restaurant")
    game.apply("buy 5 @ 1,0")
    assert values_after_step_one(game, third) == {"money": 8, "income": 1, "reputation": 2}
    assert effects_on(game, third, c.ATTR_POPULATION) == [3]
    assert effects_on(game, first, c.ATTR_INCOME) == [1]
    assert effects_on(game, second, c.ATTR_INCOME) == [-1]

    assert game.round == 1 and game.current_player == first
    assert player_values(game, first) == {"money": 6, "income": 2, "reputation": 1,
                                          "population": 3, "markers_left": 3}
    assert player_values(game, second) == {"money": 9, "income": 2, "reputation": 2,
                                           "population": 4, "markers_left": 3}
    assert player_values(game, third) == {"money": 9, "income": 1, "reputation": 2,
                                          "population": 7, "markers_left": 3}


def test_E5_homeowners_association_first_turn_of_four_player_game():
    """E5 (R6.3): $6 plus the premium, then $10 at once for five residential tiles (four
    starting Suburbs and the Association itself); later $2 per residential tile."""
    game = new_game(players=4, seed=6)
    owner = game.current_player
    set_market_tile(game, 3, "Homeowners Association")

    game.apply("buy 3 @ 1,0")

    (place,) = events(game, ev.EVENT_PLACE)
    assert int(place[ev.FIELD_AMOUNT]) == 6 + 4
    assert effects_on(game, owner, c.ATTR_MONEY) == [2, 2, 2, 2, 2]
    assert values_after_step_one(game, owner)["money"] == 15 - 10 + 10

    other = game.current_player
    assert other != owner
    game.apply("basic suburbs @ -1,0")
    assert effects_on(game, owner, c.ATTR_MONEY) == [2]
    assert player_values(game, owner)["money"] == 17


def test_E6_final_scoring_goals_before_conversion_and_no_red_lines():
    """E6 (R8.2): Billionaire and Spendthrift look at the money before conversion; red
    lines are ignored; $23 converts to 4 population with $3 left."""
    game = new_game(players=2, seed=6)
    # Both private goals end in a tie (one Heavy Factory, one Park each): nobody scores.
    set_goals(game, ["Billionaire", "Spendthrift"], {0: "Industrialist", 1: "Civil Engineer"})
    set_player_values(game, 0, money=23, population=13, income=4, reputation=5)
    set_player_values(game, 1, money=4, population=13, income=4, reputation=5)

    scores = score_now(game)

    # After conversion P0 would have $3 and P1 $4: the goals would swap.
    assert scores[0]["public_goals"] == {"Billionaire": 10, "Spendthrift": 0}
    assert scores[1]["public_goals"] == {"Billionaire": 0, "Spendthrift": 10}
    assert scores[0]["private_goal_bonus"] == scores[1]["private_goal_bonus"] == 0
    assert scores[0]["money_converted"] == 4 and scores[0]["money_left"] == 3
    assert scores[1]["money_converted"] == 0 and scores[1]["money_left"] == 4
    assert scores[0]["population"] == 13 + 10 + 4  # passes the lines at 15 and 22
    assert scores[1]["population"] == 13 + 10
    for seat in (0, 1):
        assert (scores[seat]["income"], scores[seat]["reputation"]) == (4, 5)
    assert game.winners == [0]
