"""Solo modes: the Solitary Architect (R9.1) and Dale the bot (R9.2)."""

from collections import Counter

import pytest

from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.dale import SUMS_WHERE_EXACT, dale_choose_cell, trial_gains
from suburbia_env.engine.hex_grid import cell_coordinates, cell_index, neighbour_coordinates
from suburbia_env.positions import (put_tile_without_effects, set_market_tile,
                                    set_player_values)
from suburbia_env.engine.scoring import ladder_rank
from suburbia_env import Game
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.engine.tile_table import private_goal_bonus, tile_stack

from rules_builders import (discarded_count, events, has_event, kind_of, market_kinds,
                            move_one_more_round, new_game, pile, pile_position,
                            play_free_turn, player_values, prepare_neutral_lake, score_now,
                            set_goals, tile_at)

DALE = 1
LAKE_OR_MARKER_GOALS = {"Aquatic Engineer", "Aquaphobian", "Harbormaster", "Employer"}


# R9.1 Solitary Architect --------------------------------------------------------------------

def solitary(seed=0, edition="2nd"):
    return new_game(players=1, mode="solitary", seed=seed, edition=edition)


def test_R9_1_solitary_has_two_player_stacks_and_no_goals():
    game = solitary(seed=90)
    assert game.stack_sizes() == {"A": 14 - 7, "B": 12, "C": 17 + 1}
    assert game.public_goals == [] and game.private_goal(0) is None
    assert game.goal_options(0) == []
    assert game.pending_decision == "turn" and game.current_player == 0


def _solitary_neutral_turn(**values):
    game = solitary(seed=91)
    action = prepare_neutral_lake(game, 0)
    set_player_values(game, 0, **values)
    game.apply(action)
    assert game.pending_decision == "remove"  # steps 2 and 3 are done
    return game


def test_R9_1_red_line_costs_2_income_and_2_reputation():
    """R9.1: step 3 takes 13 + 3 = 16 over the line at 15: income 4 -> 2, reputation 3 -> 1."""
    game = _solitary_neutral_turn(money=0, income=4, population=13, reputation=3)
    assert player_values(game, 0) == {"money": 4, "income": 2, "reputation": 1,
                                      "population": 16, "markers_left": 3}


def test_R9_1_falling_back_below_a_line_gives_the_base_1_and_1():
    """R9.1 as revised on 2026-11-25: only the crossing costs 2/2; step 3 takes 16 - 2 =
    14 below the line at 15 and gives back R8.1's +1/+1: income 0 -> 1, reputation -2 -> -1."""
    game = _solitary_neutral_turn(income=0, population=16, reputation=-2)
    assert player_values(game, 0) == {"money": 15, "income": 1, "reputation": -1,
                                      "population": 14, "markers_left": 3}
    assert [int(row[ev.FIELD_AMOUNT]) for row in events(game, ev.EVENT_EFFECT)
            if int(row[ev.FIELD_SOURCE_KIND]) < 0] == [1, 1]


def test_R9_1_red_line_during_placement_costs_2_and_2():
    """R9.1 with R8.1: a Mobile Home Community (pop+6) at (0,3) takes 10 to 16."""
    game = solitary(seed=92)
    set_market_tile(game, 6, "Mobile Home Community")
    set_player_values(game, 0, income=3, reputation=0, population=10)
    assert (0, 1) not in neighbour_coordinates(0, 3)  # only the Factory reacts: rep -1
    game.apply("buy 6 @ 0,3")
    # 10 + 6 = 16: income 3 -> 1, reputation 0 -> -2, then the Factory's -1 -> -3.
    # Step 2: +$1. Step 3: 16 - 3 = 13 falls back below 15: +1/+1 (revised R9.1), income 2,
    # reputation -2.
    assert [int(r[ev.FIELD_AMOUNT]) for r in events(game, ev.EVENT_RED_LINE)] == [1, -1]
    assert player_values(game, 0) == {"money": 15 - 4 + 1, "income": 2, "reputation": -2,
                                      "population": 13, "markers_left": 3}


def test_R9_1_extra_removal_before_step_4_then_two_draws():
    """R9.1: after steps 2-3 the player removes one more tile, paying its premium (only
    affordable occupied slots); step 4 slides and draws two tiles."""
    game = solitary(seed=93)
    before = market_kinds(game)
    order = pile(game)
    action = prepare_neutral_lake(game, 0)
    set_player_values(game, 0, money=5)
    game.apply(action)  # takes slot 6
    assert game.pending_decision == "remove" and game.current_player == 0
    assert set(game.legal_actions_text()) == {"remove 3", "remove 4", "remove 5"}
    game.apply("remove 3")
    (removal,) = events(game, ev.EVENT_DISCARD)
    assert int(removal[ev.FIELD_AMOUNT]) == 4 and int(removal[ev.FIELD_SOURCE_KIND]) == before[3]
    assert player_values(game, 0)["money"] == 1
    assert pile_position(game) == 9
    assert market_kinds(game) == [int(order[8]), int(order[7]), before[0], before[1],
                                  before[2], before[4], before[5]]
    assert game.pending_decision == "turn" and game.round == 1


@pytest.mark.parametrize("draw", [0, 1])
def test_R9_1_one_more_round_gives_one_more_turn_then_the_game_ends(draw):
    """R9.1: drawn by the first or the second draw of turn T: turn T + 1 is the last."""
    game = solitary(seed=94)
    block = range(14 + 12 + 6, 14 + 12 + 6 + 7)  # R3.2, 2-player layout
    turn = next(t for t in range(40) if 7 + 2 * t + draw in block)
    move_one_more_round(game, 7 + 2 * turn + draw)
    turns = 0
    while not game.is_over:
        rows = play_free_turn(game)
        assert has_event(rows, ev.EVENT_ONE_MORE_ROUND) == (turns == turn)
        turns += 1
        assert turns < 40
    assert turns == turn + 2
    assert game.solo_rank() == ladder_rank(game.final_scores()[0]["population"])


@pytest.mark.parametrize("population,title", [
    (1, "Junior Intern"), (59, "Junior Intern"), (60, "Subcontractor"), (75, "Subcontractor"),
    (76, "Draftsman"), (90, "Draftsman"), (91, "Architectural Designer"),
    (105, "Architectural Designer"), (106, "Architectural Engineer"),
    (120, "Architectural Engineer"), (121, "Principal Architect"),
    (135, "Principal Architect"), (136, "CEO of Suburbia Inc."), (250, "CEO of Suburbia Inc."),
])
def test_R9_1_score_ladder_boundaries(population, title):
    assert ladder_rank(population) == title


@pytest.mark.parametrize("population,money,title", [(88, 14, "Draftsman"),
                                                    (88, 15, "Architectural Designer")])
def test_R9_1_solo_rank_uses_the_final_population(population, money, title):
    """The ladder reads the population after money conversion ($5 = 1, R8.2)."""
    game = solitary(seed=95)
    set_player_values(game, 0, population=population, money=money)
    score_now(game)
    assert game.solo_rank() == title


def test_R9_1_no_ladder_for_standard_games():
    game = new_game(players=2, seed=96)
    score_now(game)
    assert game.solo_rank() is None


# R9.2 Dale -------------------------------------------------------------------------------------

def dale_game(seed=0):
    return new_game(players=1, mode="dale", seed=seed)


def test_R9_2_stacks_of_25_and_one_more_round_in_the_last_12_c_tiles():
    """R9.2: A, B, C 25 each; C is 13 tiles, then 12 shuffled with One More Round; the
    first four A tiles fill slots 2..5."""
    positions = set()
    for seed in range(25):
        game = dale_game(seed)
        order = pile(game)
        assert len(order) == 76
        assert (int(game.state[s.PILE_A_END]), int(game.state[s.PILE_B_END])) == (25, 50)
        stacks = [tile_stack(TILES.table, k) for k in order]
        assert stacks == [c.STACK_A] * 25 + [c.STACK_B] * 25 + [c.STACK_C] * 26
        offset = list(order[50:]).index(TILES.one_more_round)
        assert 13 <= offset <= 25
        positions.add(offset)
        assert market_kinds(game) == [-1, -1] + [int(k) for k in order[:4]] + [-1]
        assert game.stack_sizes() == {"A": 21, "B": 25, "C": 26}
    assert len(positions) > 1


def test_R9_2_market_uses_slots_2_to_5_with_premiums_6_4_2_0():
    game = dale_game(seed=100)
    assert [(row["slot"], row["premium"]) for row in game.market()] == [
        (2, 6), (3, 4), (4, 2), (5, 0)]
    slots = {int(t.split()[1]) for t in game.legal_actions_text() if t.startswith(("buy", "lake"))}
    assert slots <= {2, 3, 4, 5}
    tiles = {2: ("Convenience Store", 6), 3: ("Freeway", 5), 4: ("Gas Station", 7),
             5: ("Mobile Home Community", 4)}
    _dale_market(game, {slot: name for slot, (name, _) in tiles.items()})
    for slot, premium in ((2, 6), (3, 4), (4, 2), (5, 0)):
        cost = tiles[slot][1]
        set_player_values(game, 0, money=cost + premium - 1)
        assert not game.is_legal(f"buy {slot} @ 1,0")
        set_player_values(game, 0, money=cost + premium)
        assert game.is_legal(f"buy {slot} @ 1,0")
        set_player_values(game, 0, money=premium)
        assert game.is_legal(f"lake {slot} @ 1,0")


def test_R9_2_three_public_goals_never_about_lakes_or_markers():
    seen = set()
    for seed in range(100):
        game = dale_game(seed)
        assert len(game.public_goals) == 3 and len(set(game.public_goals)) == 3
        assert not set(game.public_goals) & LAKE_OR_MARKER_GOALS
        seen.update(game.public_goals)
    assert seen == set(GOALS.names) - LAKE_OR_MARKER_GOALS


def test_R9_2_the_player_draws_two_goals_and_keeps_one_dale_none():
    """R9.2 as revised on 2026-11-25: the 2-player setup's goals (R3.6) for the player,
    drawn from the goals not turned up as public ones (lake and marker goals included);
    Dale draws none. The player keeps one before the first turn, then plays first."""
    drawn = set()
    for seed in range(100):
        game = Game(players=1, mode="dale", seed=seed)
        options = game.goal_options(0)
        assert len(options) == 2 and len(set(options) | set(game.public_goals)) == 5
        assert game.goal_options(DALE) == [] and game.private_goal(DALE) is None
        assert game.pending_decision == "keep_goal" and game.current_player == 0
        assert game.legal_actions_text() == [f"keep {name}" for name in options]
        game.apply(f"keep {options[seed % 2]}")
        assert game.private_goal(0) == options[seed % 2]
        assert game.pending_decision == "turn" and game.current_player == 0
        assert game.round == 0 and game.private_goal(DALE) is None
        drawn.update(options)
    assert drawn & LAKE_OR_MARKER_GOALS


def test_R9_2_random_private_goals_keep_one_of_the_two_at_once():
    for seed in range(20):
        game = dale_game(seed)
        assert game.private_goal(0) in game.goal_options(0)
        assert game.pending_decision == "turn" and game.private_goal(DALE) is None


def test_R9_2_private_goal_scores_only_strictly_ahead_of_dale():
    """R8.2 with R9.2: the private goal counts against every seat, Dale included."""
    game = dale_game(seed=7)
    set_goals(game, [], {0: "Builder"})  # most Residential tiles
    bonus = private_goal_bonus(GOALS.table, GOALS.goal("Builder"))
    put_tile_without_effects(game, 0, "Suburbs", 1, 0)
    scores = score_now(game)
    assert [score["private_goal_bonus"] for score in scores] == [bonus, 0]
    tied = dale_game(seed=7)
    set_goals(tied, [], {0: "Builder"})
    put_tile_without_effects(tied, 0, "Suburbs", 1, 0)
    put_tile_without_effects(tied, DALE, "Suburbs", 1, 0)
    assert [score["private_goal_bonus"] for score in score_now(tied)] == [0, 0]


def test_R9_2_player_goes_first_every_round_and_leftovers_are_discarded():
    """R9.2: after the player's and Dale's turns the two tiles left are discarded and the
    next four tiles fill slots 2..5; the player starts the next round."""
    game = dale_game(seed=101)
    assert game.current_player == 0 and game.pending_decision == "turn"
    next_four = [int(k) for k in pile(game)[4:8]]
    before = market_kinds(game)
    discarded_before = {kind: discarded_count(game, kind) for kind in before if kind >= 0}
    play_free_turn(game)  # a lake from slot 5
    (dale_buy,) = events(game, ev.EVENT_DALE_BUY)
    taken = int(dale_buy[ev.FIELD_SOURCE_KIND])
    leftovers = before[2:5]  # the player took slot 5
    leftovers.remove(taken)
    assert len(leftovers) == 2
    for kind, count in Counter(leftovers).items():
        assert discarded_count(game, kind) == discarded_before[kind] + count
    assert market_kinds(game) == [-1, -1] + next_four + [-1]
    assert game.current_player == 0 and game.round == 1
    assert pile_position(game) == 8


def _dale_market(game, slots):
    """Put the named tiles in slots 2..5 (the old ones go back to the box first)."""
    for slot in range(2, 6):
        set_market_tile(game, slot, None)
    for slot, name in slots.items():
        set_market_tile(game, slot, name)


@pytest.mark.parametrize("market,player_takes,expected", [
    # highest cost + premium wins, wherever it is
    ({2: "Convenience Store", 3: "Hostel", 4: "Parking Lot", 5: "Freeway"}, 5, "Parking Lot"),
    # tie 12 = 6 + 6 = 10 + 2: the leftmost
    ({2: "Convenience Store", 3: "Hostel", 4: "Movie Theater", 5: "Freeway"}, 5,
     "Convenience Store"),
    # tie 12 = 8 + 4 = 12 + 0: the leftmost, though its cost is lower
    ({2: "Landfill", 3: "Museum", 4: "Hostel", 5: "Parking Lot"}, 2, "Museum"),
    # no slide after the player's turn: 6 + 6 = 12 beats 9 + 2 = 11 (slid: 10 < 11)
    ({2: "Convenience Store", 3: "Freeway", 4: "Office Building", 5: "Hostel"}, 3,
     "Convenience Store"),
])
def test_R9_2_dale_takes_the_highest_cost_plus_premium_leftmost_on_ties(market, player_takes,
                                                                         expected):
    game = dale_game(seed=102)
    _dale_market(game, market)
    set_player_values(game, 0, money=30)
    game.apply(f"lake {player_takes} @ 1,0")
    rows = events(game)
    kinds = [int(row[ev.FIELD_EVENT]) for row in rows]
    assert ev.EVENT_DRAW not in kinds[:kinds.index(ev.EVENT_DALE_BUY)]  # no refill before Dale
    (dale_buy,) = events(game, ev.EVENT_DALE_BUY)
    assert int(dale_buy[ev.FIELD_SOURCE_KIND]) == kind_of(expected)


@pytest.mark.parametrize("money,paid", [(15, 3), (3, 3), (2, 2), (0, 0)])
def test_R9_2_dale_pays_3_or_what_he_has(money, paid):
    """R9.2: $3 whatever the tile (here an Office Building, $9 + $6); then steps 2 and 3."""
    game = dale_game(seed=103)
    _dale_market(game, {2: "Office Building", 3: "Hostel", 4: "Museum", 5: "Freeway"})
    set_player_values(game, DALE, money=money)
    game.apply("lake 5 @ 0,3")
    (dale_buy,) = events(game, ev.EVENT_DALE_BUY)
    assert int(dale_buy[ev.FIELD_AMOUNT]) == paid
    income = player_values(game, DALE)["income"]
    assert income >= 0
    assert player_values(game, DALE)["money"] == money - paid + income


DALE_MARKET = {2: "Office Building", 3: "Hostel", 4: "Museum", 5: "Freeway"}


def _dale_places_office_building(borough):
    game = dale_game(seed=104)
    _dale_market(game, {})
    for name, column, row in borough:
        put_tile_without_effects(game, DALE, name, column, row)
    _dale_market(game, DALE_MARKET)
    game.apply("lake 5 @ 0,3")
    (dale_buy,) = events(game, ev.EVENT_DALE_BUY)
    assert int(dale_buy[ev.FIELD_SOURCE_KIND]) == kind_of("Office Building")
    return game, cell_coordinates(int(dale_buy[ev.FIELD_SOURCE_CELL]))


def test_R9_2_dale_cell_ties_go_to_the_larger_reputation_gain():
    """Office Building (inc+1, adjacent commercial inc+1): next to the Convenience Store
    at (-2,0) it gains income 2 (e.g. (-3,0), the first legal cell); next to the Park it
    gains income 1 + reputation 1. Equal sums: the reputation gain decides, then row 0
    before row 1: (1,0), not (-1,1)."""
    borough = [("Suburbs", -1, 0), ("Convenience Store", -2, 0)]
    assert (-1, 0) in neighbour_coordinates(-2, 0)
    assert (-2, 0) in neighbour_coordinates(-3, 0)
    assert (0, 1) in neighbour_coordinates(1, 0) and (0, 1) in neighbour_coordinates(-1, 1)
    game, placed = _dale_places_office_building(borough)
    assert placed == (1, 0)
    assert tile_at(game, DALE, 1, 0) == "Office Building"
    # Placement: income 0 -> 1, reputation 1 -> 2; steps: $15 - $3 + 1, population 2 + 2.
    assert player_values(game, DALE) == {"money": 13, "income": 1, "reputation": 2,
                                         "population": 4, "markers_left": 3}


def test_R9_2_dale_cell_maximises_income_plus_reputation_gain():
    """Two commercial tiles at (0,3) and (1,3): (1,2) touches both (income +3, gain 3)
    and beats the Park's cells (gain 2); (0,4) also gains 3 but comes later."""
    borough = [("Convenience Store", 0, 3), ("Convenience Store", 1, 3)]
    for cell in ((1, 2), (0, 4)):
        assert {(0, 3), (1, 3)} <= set(neighbour_coordinates(*cell))
    game, placed = _dale_places_office_building(borough)
    assert placed == (1, 2)
    assert player_values(game, DALE) == {"money": 15, "income": 3, "reputation": 1,
                                         "population": 3, "markers_left": 3}


def test_R9_2_dale_trials_leave_neither_events_nor_state_behind():
    """Dale resolves the Office Building at each candidate cell in place and takes it
    back (dale.dale_choose_cell): the position of the test above is unchanged afterwards
    and a log with room for events holds none of the trial adjustments."""
    game = dale_game(seed=104)
    _dale_market(game, {})
    for name, column, row in [("Convenience Store", 0, 3), ("Convenience Store", 1, 3)]:
        put_tile_without_effects(game, DALE, name, column, row)
    before = game.state.copy()
    log = ev.new_log(16)
    cell = dale_choose_cell(game.state, TILES.table, log, DALE, kind_of("Office Building"))
    assert cell_coordinates(cell) == (1, 2)
    assert (game.state == before).all()
    assert not log.any()


@pytest.mark.parametrize("income, from_sums", [(5, True), (15, False)])
def test_R9_2_dale_trial_across_a_red_line_with_a_casino(income, from_sums):
    """A Mobile Home Community (population +6) next to Dale's Casino only, at population
    12: the line at 15 costs income 1 and reputation 1, then the Casino gives income 1
    back (R8.1, R6.6). Income 5 -> 4 -> 5 in any order, so the sums give it; at 15 the
    order matters (+1 first would be lost at the clamp, R1.2) and the trial is resolved
    in full. Either way: income gain 0, reputation gain -1, state unchanged."""
    game = dale_game(seed=106)
    set_player_values(game, DALE, income=income, reputation=3, population=12)
    put_tile_without_effects(game, DALE, "Casino", 0, 3)
    assert set(neighbour_coordinates(0, 4)) & {(0, 0), (0, 1), (0, 2), (0, 3)} == {(0, 3)}
    before = game.state.copy()
    gains = trial_gains(game.state, TILES.table, ev.new_log(0), DALE, cell_index(0, 4),
                        kind_of("Mobile Home Community"), SUMS_WHERE_EXACT)
    assert gains == (0, -1, from_sums)
    assert (game.state == before).all()


def test_R9_2_dale_cell_full_tie_goes_to_the_first_cell_in_row_major_order():
    """A Convenience Store gains income 1 everywhere and reputation 1 next to the Park:
    (-1,0), (1,0), (-1,1), (1,1) tie; row 0 first, then column -6 first: (-1,0)."""
    game = dale_game(seed=105)
    _dale_market(game, {2: "Convenience Store", 3: "Hostel", 4: "Freeway", 5: "Landfill"})
    game.apply("lake 5 @ 0,3")
    (dale_buy,) = events(game, ev.EVENT_DALE_BUY)
    assert int(dale_buy[ev.FIELD_SOURCE_KIND]) == kind_of("Convenience Store")
    assert cell_coordinates(int(dale_buy[ev.FIELD_SOURCE_CELL])) == (-1, 0)


def test_R9_2_game_ends_at_once_when_one_more_round_is_drawn():
    """R9.2: One More Round drawn while filling for a new round ends the game at once.
    Rounds fill pile positions 4r..4r+3, so position 65 is drawn after the 16th round."""
    game = dale_game(seed=106)
    assert 50 + 13 <= 65 < 76
    move_one_more_round(game, 65)
    turns = 0
    while not game.is_over:
        assert turns < 30
        play_free_turn(game)
        turns += 1
    assert turns == 65 // 4
    assert has_event(list(game.last_events), ev.EVENT_ONE_MORE_ROUND)
    assert game.pending_decision == "none"
    scores = game.final_scores()
    assert len(scores) == 2


@pytest.mark.parametrize("player_population,dale_population,ranked", [
    (80, 10, True), (80, 90, False), (80, 80, False)])
def test_R9_2_ladder_counts_only_if_dale_is_beaten(player_population, dale_population,
                                                   ranked):
    game = dale_game(seed=107)
    set_goals(game, [], {})
    set_player_values(game, 0, population=player_population, money=0)
    set_player_values(game, DALE, population=dale_population, money=0)
    score_now(game)
    assert game.solo_rank() == ("Draftsman" if ranked else None)
