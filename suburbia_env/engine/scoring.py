"""End of game: goals, money conversion and the winners (R8.2, R8.3). Red lines are ignored."""

import numpy as np

from . import constants as c
from . import state_layout as s
from .hex_grid import CELL_BITS, NEIGHBOUR_BITS, NUM_CELLS
from .refcount_free import njit_without_refcounts
from .resolution import count_matching
from .tile_table import (goal_criterion, goal_direction, goal_features, private_goal_bonus,
                         public_goal_bonus, tile_features)


@njit_without_refcounts
def largest_group(state, tiles, player, lakes, target):
    """Size of the largest connected group (R2.2) of lakes, or of tiles matching `target`.

    Cell sets are pairs of 64-bit words (hex_grid.CELL_BITS): a group starts at its
    first cell and takes in the members next to it until a sweep adds none.
    """
    member_low = np.int64(0)
    member_high = np.int64(0)
    for cell in range(NUM_CELLS):
        kind = s.cell_kind(state, player, cell)
        if kind < 0:
            continue
        face_down = s.is_lake(state, player, cell)
        if lakes:
            is_member = face_down
        else:
            is_member = (not face_down) and (tile_features(tiles, kind) & target) != 0
        if is_member:
            member_low |= CELL_BITS[cell, 0]
            member_high |= CELL_BITS[cell, 1]
    best = 0
    for start in range(NUM_CELLS):
        if (member_low & CELL_BITS[start, 0]) | (member_high & CELL_BITS[start, 1]) == 0:
            continue
        group_low = CELL_BITS[start, 0]
        group_high = CELL_BITS[start, 1]
        size = 1
        grown = True
        while grown:
            grown = False
            for cell in range(start + 1, NUM_CELLS):
                in_group = (group_low & CELL_BITS[cell, 0]) | (group_high & CELL_BITS[cell, 1])
                is_member = (member_low & CELL_BITS[cell, 0]) | (member_high & CELL_BITS[cell, 1])
                touches = (group_low & NEIGHBOUR_BITS[cell, 0]) | (group_high
                                                                   & NEIGHBOUR_BITS[cell, 1])
                if is_member and touches and not in_group:
                    group_low |= CELL_BITS[cell, 0]
                    group_high |= CELL_BITS[cell, 1]
                    size += 1
                    grown = True
        member_low &= ~group_low
        member_high &= ~group_high
        best = max(best, size)
    return best


@njit_without_refcounts
def goal_value(state, tiles, goals, goal, player):
    """A player's value for a goal's criterion (R8.2)."""
    criterion = goal_criterion(goals, goal)
    features = goal_features(goals, goal)
    if criterion == c.CRITERION_FEATURE_COUNT:
        return count_matching(state, player, features)
    if criterion == c.CRITERION_LAKE_COUNT:
        return s.lake_count(state, player)
    if criterion == c.CRITERION_MONEY:
        return s.money(state, player)
    if criterion == c.CRITERION_MARKERS_PLACED:  # Employer counts tiles carrying a marker
        total = 0
        for position in range(s.tile_count(state, player)):
            if s.is_invested(state, player, s.placed_cell(state, player, position)):
                total += 1
        return total
    if criterion == c.CRITERION_INCOME:
        return s.income(state, player)
    if criterion == c.CRITERION_REPUTATION:
        return s.reputation(state, player)
    if criterion == c.CRITERION_LARGEST_LAKE_GROUP:
        return largest_group(state, tiles, player, True, 0)
    return largest_group(state, tiles, player, False, features)


@njit_without_refcounts
def _is_better(goals, goal, first, second):
    if goal_direction(goals, goal) == c.GOAL_MOST:
        return first > second
    return first < second


assert c.MAX_PLAYERS == 4, "goal_values spells out one entry per seat"


@njit_without_refcounts
def goal_values(state, tiles, goals, goal):
    """Every seat's `goal_value` on a goal (R8.2), computed once: a tuple of MAX_PLAYERS
    entries, 0 for the seats not in play. A tuple, not an array, so that the callers
    (compiled without reference counts) allocate nothing."""
    num_players = state[s.NUM_PLAYERS]
    return (goal_value(state, tiles, goals, goal, 0) if num_players > 0 else 0,
            goal_value(state, tiles, goals, goal, 1) if num_players > 1 else 0,
            goal_value(state, tiles, goals, goal, 2) if num_players > 2 else 0,
            goal_value(state, tiles, goals, goal, 3) if num_players > 3 else 0)


@njit_without_refcounts
def lead_of_values(goals, goal, values, num_players, player):
    """How far a player is in front of the best other player on a goal's criterion, in
    the goal's direction (R8.2), from the seats' `values` (`goal_values`): above 0 it
    alone would score the goal now, 0 is a tie, below 0 behind. 0 when there is no
    other player."""
    own = values[player]
    lead = 0
    found = False
    for other in range(num_players):
        if other == player:
            continue
        difference = own - values[other]
        if goal_direction(goals, goal) == c.GOAL_FEWEST:
            difference = -difference
        if not found or difference < lead:
            lead = difference
            found = True
    return lead


@njit_without_refcounts
def winner_of_values(goals, goal, values, num_players):
    """The one player strictly ahead on a goal, or -1 on any tie (R8.2), from the seats'
    `values` (`goal_values`)."""
    best_player = -1
    best_value = 0
    tied = False
    for player in range(num_players):
        value = values[player]
        if best_player < 0 or _is_better(goals, goal, value, best_value):
            best_player = player
            best_value = value
            tied = False
        elif value == best_value:
            tied = True
    return -1 if tied else best_player


@njit_without_refcounts
def goal_lead(state, tiles, goals, goal, player):
    """A player's lead on a goal now (R8.2): `lead_of_values` of the seats' values."""
    return lead_of_values(goals, goal, goal_values(state, tiles, goals, goal),
                          state[s.NUM_PLAYERS], player)


@njit_without_refcounts
def public_goal_winner(state, tiles, goals, goal):
    """The one player strictly ahead on a public goal, or -1 on any tie (R8.2):
    `winner_of_values` of the seats' values."""
    return winner_of_values(goals, goal, goal_values(state, tiles, goals, goal),
                            state[s.NUM_PLAYERS])


@njit_without_refcounts
def private_goal_achieved(state, tiles, goals, player):
    """The owner is strictly alone in front over all players (R8.2): the
    `winner_of_values` of the seats' values on the private goal."""
    goal = s.private_goal(state, player)
    if goal < 0:
        return False
    return winner_of_values(goals, goal, goal_values(state, tiles, goals, goal),
                            state[s.NUM_PLAYERS]) == player


@njit_without_refcounts
def _ranks_above(state, first, second):
    """Whether `first` beats `second` on population, reputation, income, money (R8.3)."""
    for attribute in (c.ATTR_POPULATION, c.ATTR_REPUTATION, c.ATTR_INCOME, c.ATTR_MONEY):
        a = s.attribute_value(state, first, attribute)
        b = s.attribute_value(state, second, attribute)
        if a != b:
            return a > b
    return False


@njit_without_refcounts
def score_game(state, tiles, goals):
    """Final scoring into the SCORE block of each player; sets the winners (R8.2, R8.3)."""
    num_players = state[s.NUM_PLAYERS]
    for player in range(num_players):
        s.set_score_entry(state, player, s.SCORE_POPULATION_BEFORE_GOALS,
                        s.population(state, player))
    for index in range(c.MAX_PLAYERS):
        goal = s.public_goal(state, index)
        if goal < 0:
            continue
        winner = public_goal_winner(state, tiles, goals, goal)
        if winner >= 0:
            bonus = public_goal_bonus(goals, goal)
            s.set_public_goal_bonus(state, winner, index, bonus)
    achieved = 0  # bit per player
    for offset in range(num_players):
        player = (state[s.FIRST_PLAYER] + offset) % num_players
        if private_goal_achieved(state, tiles, goals, player):
            achieved |= 1 << player
    for player in range(num_players):
        if achieved & (1 << player):
            s.set_score_entry(state, player, s.SCORE_PRIVATE_GOAL,
                            private_goal_bonus(goals, s.private_goal(state, player)))
        bonus = s.score_entry(state, player, s.SCORE_PRIVATE_GOAL)
        for index in range(c.MAX_PLAYERS):
            bonus += s.public_goal_bonus(state, player, index)
        converted = s.money(state, player) // 5
        s.set_score_entry(state, player, s.SCORE_MONEY_CONVERTED, converted)
        s.set_money(state, player, s.money(state, player) - 5 * converted)
        s.set_population(state, player, s.population(state, player) + bonus + converted)
        s.set_score_entry(state, player, s.SCORE_FINAL_POPULATION, s.population(state, player))
    for player in range(num_players):
        beaten = False
        for other in range(num_players):
            if other != player and _ranks_above(state, other, player):
                beaten = True
        s.set_score_entry(state, player, s.SCORE_WINNER, 0 if beaten else 1)


LADDER = ((136, "CEO of Suburbia Inc."), (121, "Principal Architect"),
          (106, "Architectural Engineer"), (91, "Architectural Designer"), (76, "Draftsman"),
          (60, "Subcontractor"), (0, "Junior Intern"))


def ladder_rank(population: int) -> str:
    """The solo score ladder of R9.1 (1-59 Junior Intern ... 136+ CEO of Suburbia Inc.)."""
    for threshold, title in LADDER:
        if population >= threshold:
            return title
    return LADDER[-1][1]


def winners_among(state, seats) -> list[int]:
    """The seats of `seats` that no other seat of `seats` ranks above (R8.3) in a scored
    game: the winners when only those seats are ranked (a tournament's seat that forfeited
    is ranked last, agents/tournament.py)."""
    seats = [int(seat) for seat in seats]
    return [seat for seat in seats
            if not any(other != seat and _ranks_above(state, other, seat) for other in seats)]
