"""Final scoring: every goal of goals.csv (R8.2), money conversion and the winner (R8.3).

Positions are built by hand and scored through turn.finish_game. Each goal's direction
and bonuses below are transcribed by hand from goals.csv (the authority), not read
from the engine's table.
"""

from collections import deque

import numpy as np
import pytest

from suburbia_env.engine import state_layout as s
from suburbia_env.engine.hex_grid import (NUM_CELLS, cell_coordinates, cell_index,
                                          neighbour_coordinates)
from suburbia_env.engine.scoring import largest_group
from suburbia_env.engine.tile_data import TILES
from suburbia_env.engine.tile_table import tile_features
from suburbia_env.positions import (put_tile_without_effects, set_market_tile,
                                    set_player_values)

from rules_builders import new_game, score_now, set_goals

# name: (direction, criterion, public bonus, private bonus), from goals.csv.
GOALS = {
    "Aquatic Engineer": ("most", "lakes", 20, 20),
    "Air Traffic Controller": ("most", "airport", 10, 10),
    "Aquaphobian": ("fewest", "lakes", 20, 20),
    "Billionaire": ("most", "money", 10, 10),
    "Builder": ("most", "residential", 15, 15),
    "Capitalist": ("fewest", "residential", 20, 20),
    "Civil Engineer": ("most", "civic", 15, 15),
    "Developer": ("most", "commercial", 10, 10),
    "Employer": ("fewest", "markers", 15, 15),
    "Environmentalist": ("fewest", "industrial", 15, 15),
    "Harbormaster": ("most", "lake group", 10, 10),
    "Industrialist": ("most", "industrial", 15, 15),
    "Investor": ("most", "income", 15, 15),
    "Libertarian": ("fewest", "civic", 15, 15),
    "Luminary": ("most", "reputation", 10, 10),
    "Miscreant": ("fewest", "reputation", 20, 20),
    "Miser": ("fewest", "income", 15, 15),
    "Public Official": ("most", "civic group", 15, 15),
    "Socialist": ("fewest", "commercial", 10, 10),
    "Spendthrift": ("fewest", "money", 10, 10),
}

# Tiles carrying one feature (R1.4); seat p uses the kinds from index 2p on, so that no
# kind runs out of copies (the airports: 2 + 3 + 2 copies, each kind used twice at most).
KINDS = {
    "residential": ["Mobile Home Community", "Retirement Village", "Bed & Breakfast",
                    "Burg von Alspach", "Apartments", "Condominium"],
    "commercial": ["Convenience Store", "Boutique", "Gas Station", "Movie Theater",
                   "Shipping Center", "Hotel"],
    "civic": ["Museum", "Power Station", "Middle School", "Postal Service", "Stadium",
              "University"],
    "industrial": ["Freeway", "Landfill", "Warehouse", "Farm", "Slaughterhouse",
                   "Recycling Plant"],
    "airport": ["Municipal Airport", "Domestic Airport", "International Airport"],
    "lakes": ["Hostel", "Casino", "Stadium", "Museum", "Boutique", "Resort"],
    "markers": ["Apartments", "Condominium", "Hotel", "Resort", "Freeway", "Mint"],
}
CHAIN_BELOW_FACTORY = [(0, 3), (0, 4), (0, 5)]  # each next to the one before (R2.2)
CHAIN_FROM_PARK = [(1, 1), (1, 2), (1, 3)]  # (1,1) touches the Park at (0,1)


def raise_criterion(game, player, criterion, steps):
    """Give `player` `steps` more of a criterion than the start position has."""
    if criterion in ("money", "income", "reputation"):
        set_player_values(game, player, **{criterion: {"money": 10, "income": 2,
                                                       "reputation": 3}[criterion] + steps})
        return
    key = {"civic group": "civic", "lake group": "lakes"}.get(criterion, criterion)
    # Civic groups grow from the starting Park; everything else goes below the Factory.
    chain = CHAIN_FROM_PARK if criterion == "civic group" else CHAIN_BELOW_FACTORY
    for number, (column, row) in enumerate(chain[:steps]):
        kinds = KINDS[key]
        put_tile_without_effects(game, player, kinds[(2 * player + number) % len(kinds)],
                                 column, row, lake=key == "lakes", invested=key == "markers")


def scoring_game(players, seed):
    """A game to score by hand; its market goes back to the box (copies are needed)."""
    game = new_game(players=players, seed=seed)
    for slot in range(7):
        set_market_tile(game, slot, None)
    return game


def _leader_steps(direction):
    """(steps of the leader, steps of the others) so that the leader is strictly ahead."""
    return (2, 1) if direction == "most" else (1, 2)


def test_goal_table_covers_goals_csv():
    from suburbia_env.engine.tile_data import GOALS as ENGINE_GOALS
    assert set(GOALS) == set(ENGINE_GOALS.names)


@pytest.mark.parametrize("goal", sorted(GOALS))
def test_R8_2_public_goal_goes_to_the_one_player_strictly_ahead(goal):
    direction, criterion, public_bonus, _ = GOALS[goal]
    game = scoring_game(3, 70)
    leader_steps, other_steps = _leader_steps(direction)
    for player in range(3):
        raise_criterion(game, player, criterion, leader_steps if player == 1 else other_steps)
    set_goals(game, [goal], {0: None, 1: None, 2: None})
    scores = score_now(game)
    assert [score["public_goals"][goal] for score in scores] == [0, public_bonus, 0]
    before = [score["population_before_goals"] for score in scores]
    converted = [score["money_converted"] for score in scores]
    assert [score["population"] for score in scores] == [
        before[0] + converted[0], before[1] + public_bonus + converted[1],
        before[2] + converted[2]]


@pytest.mark.parametrize("goal", sorted(GOALS))
def test_R8_2_public_goal_tie_at_the_top_scores_nobody(goal):
    """R8.2: two players tied in front, the third behind: nobody scores."""
    direction, criterion, _, _ = GOALS[goal]
    game = scoring_game(3, 71)
    leader_steps, other_steps = _leader_steps(direction)
    for player in range(3):
        raise_criterion(game, player, criterion, other_steps if player == 2 else leader_steps)
    set_goals(game, [goal], {0: None, 1: None, 2: None})
    scores = score_now(game)
    assert [score["public_goals"][goal] for score in scores] == [0, 0, 0]


@pytest.mark.parametrize("goal", sorted(GOALS))
def test_R8_2_private_goal_scores_when_strictly_alone_in_front(goal):
    direction, criterion, _, private_bonus = GOALS[goal]
    game = scoring_game(3, 72)
    leader_steps, other_steps = _leader_steps(direction)
    for player in range(3):
        raise_criterion(game, player, criterion, leader_steps if player == 2 else other_steps)
    set_goals(game, [], {0: goal, 1: goal, 2: goal})
    scores = score_now(game)
    assert [score["private_goal_bonus"] for score in scores] == [0, 0, private_bonus]
    assert scores[2]["population"] == (scores[2]["population_before_goals"] + private_bonus
                                       + scores[2]["money_converted"])


@pytest.mark.parametrize("goal", sorted(GOALS))
def test_R8_2_private_goal_tied_in_front_scores_nothing(goal):
    """R8.2: the owner must be strictly alone in front over all players."""
    direction, criterion, _, _ = GOALS[goal]
    game = scoring_game(3, 73)
    leader_steps, other_steps = _leader_steps(direction)
    for player in range(3):
        raise_criterion(game, player, criterion, other_steps if player == 1 else leader_steps)
    set_goals(game, [], {0: goal, 1: None, 2: None})
    scores = score_now(game)
    assert [score["private_goal_bonus"] for score in scores] == [0, 0, 0]


def test_R8_2_harbormaster_counts_the_largest_connected_group_of_lakes():
    """R8.2: three lakes apart (groups of 1) lose to two connected lakes."""
    game = scoring_game(2, 74)
    apart = [(0, 3), (2, 0), (-2, 0)]
    for index, (column, row) in enumerate(apart):
        for other in apart[index + 1:]:
            assert other not in neighbour_coordinates(column, row)
        put_tile_without_effects(game, 0, "Hostel" if index < 2 else "Casino", column, row,
                                 lake=True)
    assert (0, 4) in neighbour_coordinates(0, 3)
    put_tile_without_effects(game, 1, "Stadium", 0, 3, lake=True)
    put_tile_without_effects(game, 1, "Casino", 0, 4, lake=True)
    set_goals(game, ["Harbormaster", "Aquatic Engineer"], {0: None, 1: None})
    scores = score_now(game)
    assert scores[0]["public_goals"] == {"Harbormaster": 0, "Aquatic Engineer": 20}
    assert scores[1]["public_goals"] == {"Harbormaster": 10, "Aquatic Engineer": 0}


def test_R8_2_public_official_counts_the_largest_connected_civic_group():
    """R8.2: the starting Park and two civic tiles apart (groups of 1) lose to the Park
    with one civic neighbour (a group of 2); the Civil Engineer counts all civic tiles."""
    game = scoring_game(2, 75)
    for column, row in ((0, 3), (2, 0)):
        assert (0, 1) not in neighbour_coordinates(column, row)
    assert (2, 0) not in neighbour_coordinates(0, 3)
    put_tile_without_effects(game, 0, "Museum", 0, 3)
    put_tile_without_effects(game, 0, "Power Station", 2, 0)
    assert (0, 1) in neighbour_coordinates(1, 1)
    put_tile_without_effects(game, 1, "Middle School", 1, 1)
    set_goals(game, ["Public Official", "Civil Engineer"], {0: None, 1: None})
    scores = score_now(game)
    assert scores[0]["public_goals"] == {"Public Official": 0, "Civil Engineer": 15}
    assert scores[1]["public_goals"] == {"Public Official": 15, "Civil Engineer": 0}


def test_R8_2_employer_counts_tiles_carrying_a_marker():
    """R8.2: fewest investment markers placed; lakes with a marker count too."""
    game = scoring_game(2, 76)
    put_tile_without_effects(game, 0, "Hostel", 0, 3, lake=True, invested=True)
    put_tile_without_effects(game, 0, "Freeway", 0, 4, invested=True)
    put_tile_without_effects(game, 1, "Landfill", 0, 3, invested=True)
    set_goals(game, ["Employer"], {0: None, 1: None})
    scores = score_now(game)
    assert [s["public_goals"]["Employer"] for s in scores] == [0, 15]


def test_R8_2_billionaire_and_spendthrift_look_at_money_before_conversion():
    """R8.2: $10 against $4. Converted, $10 would leave $0 and $4 would stay $4, which
    would swap both goals."""
    game = scoring_game(2, 81)
    set_goals(game, ["Billionaire", "Spendthrift"], {0: "Spendthrift", 1: "Billionaire"})
    set_player_values(game, 0, money=10, population=20)
    set_player_values(game, 1, money=4, population=20)
    scores = score_now(game)
    assert scores[0]["public_goals"] == {"Billionaire": 10, "Spendthrift": 0}
    assert scores[1]["public_goals"] == {"Billionaire": 0, "Spendthrift": 10}
    assert scores[0]["private_goal_bonus"] == scores[1]["private_goal_bonus"] == 0
    assert (scores[0]["population"], scores[0]["money_left"]) == (20 + 10 + 2, 0)
    assert (scores[1]["population"], scores[1]["money_left"]) == (20 + 10, 4)


def test_R8_2_public_and_private_bonuses_add_up_then_money_converts():
    """R8.2: one player wins two public goals and its private goal; then $5 = 1."""
    game = scoring_game(2, 77)
    set_player_values(game, 0, money=12, population=30, income=7, reputation=6)
    set_player_values(game, 1, money=4, population=40, income=1, reputation=2)
    set_goals(game, ["Investor", "Luminary"], {0: "Billionaire", 1: "Miser"})
    scores = score_now(game)
    assert scores[0]["public_goals"] == {"Investor": 15, "Luminary": 10}
    assert scores[0]["private_goal_bonus"] == 10
    assert scores[1]["private_goal_bonus"] == 15
    assert (scores[0]["money_converted"], scores[0]["money_left"]) == (2, 2)
    assert scores[0]["population"] == 30 + 15 + 10 + 10 + 2
    assert scores[1]["population"] == 40 + 15 + 0
    assert scores[0]["winner"] and not scores[1]["winner"]


@pytest.mark.parametrize("money,converted,left", [(0, 0, 0), (4, 0, 4), (5, 1, 0), (23, 4, 3),
                                                 (49, 9, 4), (50, 10, 0)])
def test_R8_2_money_converts_five_dollars_to_one_population_remainder_kept(money, converted,
                                                                            left):
    game = scoring_game(2, 78)
    set_goals(game, [], {0: None, 1: None})
    set_player_values(game, 0, money=money, population=20)
    scores = score_now(game)
    assert (scores[0]["money_converted"], scores[0]["money_left"]) == (converted, left)
    assert scores[0]["population"] == 20 + converted


def _tie_break_game(first, second):
    """Two players with the given (population, reputation, income, money) and no goals."""
    game = scoring_game(2, 79)
    set_goals(game, [], {0: None, 1: None})
    for player, (population, reputation, income, money) in enumerate((first, second)):
        set_player_values(game, player, population=population, reputation=reputation,
                          income=income, money=money)
    score_now(game)
    return game.winners


def test_R8_3_highest_population_wins():
    assert _tie_break_game((30, 0, 0, 0), (31, -5, -5, 0)) == [1]


def test_R8_3_money_converted_counts_as_population():
    """$9 converts to 1 population: 30 + 1 beats 30 + 0."""
    assert _tie_break_game((30, 0, 0, 9), (30, 9, 9, 4)) == [0]


def test_R8_3_tie_broken_by_reputation():
    assert _tie_break_game((30, 4, 9, 4), (30, 5, 0, 0)) == [1]


def test_R8_3_then_by_income():
    assert _tie_break_game((30, 5, 3, 0), (30, 5, 2, 4)) == [0]


def test_R8_3_then_by_money_left_after_conversion():
    """$9 -> 1 population and $4 left, $8 -> 1 population and $3 left."""
    assert _tie_break_game((30, 5, 3, 8), (30, 5, 3, 9)) == [1]


def test_R8_3_players_still_tied_share_the_win():
    """R8.3: equal on population, reputation, income and money left: a shared win
    (2 players), and two of three players sharing it."""
    assert _tie_break_game((30, 5, 3, 7), (30, 5, 3, 7)) == [0, 1]
    game = scoring_game(3, 80)
    set_goals(game, [], {0: None, 1: None, 2: None})
    for player in range(3):
        set_player_values(game, player, population=30 if player else 29, reputation=1,
                          income=1, money=3)
    score_now(game)
    assert game.winners == [1, 2]
    assert [s["winner"] for s in game.final_scores()] == [False, True, True]


def _flood_fill_largest_group(members: set[int]) -> int:
    """The largest connected group of R2.2 by a plain breadth-first search."""
    best, unseen = 0, set(members)
    while unseen:
        queue, size = deque([unseen.pop()]), 1
        while queue:
            column, row = cell_coordinates(queue.popleft())
            for neighbour in (cell_index(c, r) for c, r in neighbour_coordinates(column, row)):
                if neighbour in unseen:
                    unseen.remove(neighbour)
                    queue.append(neighbour)
                    size += 1
        best = max(best, size)
    return best


def test_R2_2_largest_group_equals_a_flood_fill_on_random_boroughs():
    """scoring.largest_group (sets of cells as bit words, grown by sweeps) against a
    breadth-first search, for lake groups and tile groups (Harbormaster, Public Official)
    on 300 random boroughs dense enough for long, winding groups."""
    rng = np.random.default_rng(2026)
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    base = s.player_base(1)
    kinds = np.arange(s.lake_kind(TILES.table))  # the printed kinds
    sizes = []
    for _ in range(300):
        occupied = rng.random(NUM_CELLS) < rng.uniform(0.2, 0.9)
        lakes = occupied & (rng.random(NUM_CELLS) < rng.uniform(0.0, 1.0))
        cell_kinds = np.where(occupied, rng.choice(kinds, NUM_CELLS), -1)
        state[base + s.CELL_KIND:base + s.CELL_KIND + NUM_CELLS] = cell_kinds
        state[base + s.CELL_FLAGS:base + s.CELL_FLAGS + NUM_CELLS] = np.where(lakes, s.FLAG_LAKE, 0)
        target = tile_features(TILES.table, rng.choice(kinds))
        features = np.array([tile_features(TILES.table, kind)
                             for kind in np.maximum(cell_kinds, 0)])
        matching = occupied & ~lakes & (features & target != 0)
        lake_group = largest_group(state, TILES.table, 1, True, target)
        tile_group = largest_group(state, TILES.table, 1, False, target)
        assert lake_group == _flood_fill_largest_group(set(np.flatnonzero(lakes).tolist()))
        assert tile_group == _flood_fill_largest_group(set(np.flatnonzero(matching).tolist()))
        sizes += [lake_group, tile_group]
    assert max(sizes) > 40 and min(sizes) == 0  # the boroughs cover large and empty groups
