"""Resolution of placements and investments: scopes, targets, lakes, order, granularity,
investment, duplicates, red lines and clamping (RULES.md R1.2, R6, R7, R8.1).

Positions are built by hand on the starting borough of R2.3 (Suburbs S (0,0),
Community Park P (0,1), Heavy Factory F (0,2)) with the start values of R3.4 ($15,
income 0, reputation 1, population 2). Step 1 is isolated by calling
`resolution.resolve_placement` / `resolve_investment` directly; a few tests play the
whole turn through `Game.apply`. Expected values are derived by hand in the docstrings.

Neighbours used below (R2.2):
  (1,0): (1,1) S (0,1)P (2,0) (2,1)            (1,1): (1,0) (1,2) P F (2,1) (2,2)
  (-1,0): (-1,1) (-2,0) (-2,1) S P             (-1,1): (-1,0) (-1,2) (-2,1) (-2,2) P F
  (0,3): F (0,4) (-1,2) (-1,3) (1,2) (1,3)     (1,2): (1,1) (1,3) F (0,3) (2,2) (2,3)
  (2,0): (2,1) (1,0) (3,0)                     (2,1): (2,0) (2,2) (1,0) (1,1) (3,0) (3,1)
  (1,3): (1,2) (1,4) (0,3) (0,4) (2,3) (2,4)   (3,1): (3,0) (3,2) (2,1) (2,2) (4,1) (4,2)
The Park reacts rep+1 to an adjacent commercial, industrial or residential tile; the
Factory rep-1 to an adjacent civic or residential tile.
"""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np
import pytest

from suburbia_env import Game
from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.hex_grid import cell_index
from suburbia_env.positions import (put_tile_without_effects, set_current_player,
                                    take_physical_tile,
                                    set_market_tile, set_player_values)
from suburbia_env.engine.red_lines import (next_red_line, red_line_level_change, red_line_value,
                                           red_lines_at_or_below)
from suburbia_env.engine.resolution import adjust, resolve_investment, resolve_placement
from suburbia_env.engine.tile_data import TILES, parse_tiles

# R8.1, written out by hand: the first 18 lines, then every odd number from 101.
FIRST_RED_LINES = [15, 22, 29, 35, 41, 47, 53, 59, 64, 69, 74, 78, 82, 86, 89, 92, 95, 98]


# Helpers ------------------------------------------------------------------------------

def new_game(players: int = 2, seed: int = 5) -> Game:
    """A game whose turns have started, with an empty market (tiles back in the box)."""
    game = Game(players=players, seed=seed, random_private_goals=True)
    for slot in range(c.NUM_SLOTS):
        set_market_tile(game, slot, None)
    return game


def put(game, player, name, column, row, lake=False, invested=False):
    put_tile_without_effects(game, player, name, column, row, lake=lake, invested=invested)


def values(game: Game, player: int) -> tuple[int, int, int, int]:
    """(income, reputation, population, money) of a seat."""
    data = game.player_state(player)
    return data["income"], data["reputation"], data["population"], data["money"]


def trace(log, names=TILES.names) -> list[tuple]:
    """The adjustments and red lines of a log, as (player, what, amount, value, source)."""
    rows = []
    for row in log[1:log[0, 0] + 1]:
        if row[ev.FIELD_EVENT] == ev.EVENT_EFFECT:
            source = names[row[ev.FIELD_SOURCE_KIND]] if row[ev.FIELD_SOURCE_KIND] >= 0 else "rules"
            rows.append((int(row[ev.FIELD_PLAYER]), c.ATTRIBUTE_NAMES[row[ev.FIELD_ATTRIBUTE]],
                         int(row[ev.FIELD_AMOUNT]), int(row[ev.FIELD_VALUE_AFTER]), source))
        elif row[ev.FIELD_EVENT] == ev.EVENT_RED_LINE:
            rows.append((int(row[ev.FIELD_PLAYER]), "line", int(row[ev.FIELD_AMOUNT]),
                         int(row[ev.FIELD_VALUE_AFTER]), "rules"))
    return rows


def _new_log():
    return ev.new_log(512)


def place(game, player, name, column, row, lake=False, tiles=None, names=TILES.names):
    """Resolve step 1 of a placement (R7.1 steps 2-7; the price is not paid). The tile is
    taken from the box (positions.take_physical_tile) when it is one of tiles.csv, so each
    tile stays in one place and positions.py still accepts the state afterwards."""
    tiles = TILES.table if tiles is None else tiles
    log = _new_log()
    kind = names.index(name)
    if names is TILES.names:
        basic = [int(k) for k in TILES.basic_kinds].index(kind) if kind in TILES.basic_kinds else -1
        if basic >= 0 and game.state[s.BOX + kind] == 0:
            game.state[s.SUPPLY + basic] -= 1  # bought from the supply (R3.5)
        else:
            take_physical_tile(game.state, kind)
    resolve_placement(game.state, tiles, log, player, cell_index(column, row), kind, lake,
                      True)
    assert log[0, 1] == 0, "event log overflow"
    return trace(log, names)


def invest(game, player, column, row):
    """Resolve an investment (R7.3; the price is not paid)."""
    log = _new_log()
    resolve_investment(game.state, TILES.table, log, player, cell_index(column, row))
    return trace(log)


def change_population(game, player, amount):
    """One population adjustment from no tile (steps 2-3 style), through `adjust`."""
    log = _new_log()
    adjust(game.state, TILES.table, log, player, c.ATTR_POPULATION, amount, -1, -1, -1)
    return trace(log)


def log_of(game: Game):
    """game.last_events as a log array (row 0 holds the count)."""
    log = ev.new_log(len(game.last_events))
    log[1:] = game.last_events
    log[0, 0] = len(game.last_events)
    return log


def money_payments(events, player=0):
    return [(amount, source) for p, what, amount, _, source in events
            if p == player and what == "$"]


# R6.3 scopes ------------------------------------------------------------------------

def test_R6_3_adjacent_counts_only_neighbours_in_the_owners_borough():
    """Boutique at (1,0): adjacent(Residential) sees S only, not the Mobile Home at
    (-1,1) (not a neighbour) nor player 1's Mobile Home at (2,0) (another borough):
    inc+1, rep+1, Park rep+1. Player 1's Park at (0,1) does not react."""
    game = new_game()
    put(game, 0, "Mobile Home Community", -1, 1)
    put(game, 1, "Mobile Home Community", 2, 0)
    place(game, 0, "Boutique", 1, 0)
    assert values(game, 0) == (1, 3, 2, 15)
    assert values(game, 1) == (0, 1, 2, 15)


def test_R6_3_adjacent_reactions_need_a_neighbour():
    """A Convenience Store at (0,3) touches only F: the Park does not react (rep 1).
    Then Suburbs at (1,2) touches F (rep-1), not the Park."""
    game = new_game()
    place(game, 0, "Convenience Store", 0, 3)
    assert values(game, 0) == (1, 1, 2, 15)
    place(game, 0, "Suburbs", 1, 2)
    assert values(game, 0) == (1, 0, 4, 15)


def test_R6_3_own_counts_the_tile_itself_and_only_the_owners_borough():
    """Mint: own(Civic) = Park + the Mint itself = $+4 (player 1's Park and Museum do not
    count). Elementary School: own(Residential) = S only (the school is civic): pop+1;
    Factory rep-1; the Mint reacts to the new civic tile of its borough: $+2."""
    game = new_game()
    put(game, 1, "Museum", 1, 0)
    place(game, 0, "Mint", 1, 0)
    assert values(game, 0) == (3, 1, 2, 19)
    place(game, 0, "Elementary School", -1, 1)
    assert values(game, 0) == (3, 1, 3, 21)


def test_R6_3_own_reacts_to_any_tile_of_the_owners_borough_only():
    """An Elementary School at (-1,1) reacts to Suburbs at (1,0), not adjacent (step 5):
    pop 2 + 2 + 1; a Suburbs in player 1's borough does not move player 0."""
    game = new_game()
    put(game, 0, "Elementary School", -1, 1)
    place(game, 0, "Suburbs", 1, 0)
    assert values(game, 0) == (0, 2, 5, 15)
    place(game, 1, "Suburbs", 1, 0)
    assert values(game, 0) == (0, 2, 5, 15)
    assert values(game, 1) == (0, 2, 4, 15)


def test_R6_3_every_counts_all_boroughs_and_the_tile_itself():
    """Shipping Center: every(Commercial) = itself + player 1's Store and Office = $+6.
    Later commercial tiles pay $2 each, in the owner's borough or another."""
    game = new_game()
    put(game, 1, "Convenience Store", 1, 0)
    put(game, 1, "Office Building", 1, 1)
    place(game, 0, "Shipping Center", 1, 0)
    assert values(game, 0) == (1, 2, 2, 21)
    place(game, 1, "Boutique", -1, 0)
    assert values(game, 0)[3] == 23
    place(game, 0, "Convenience Store", -1, 0)  # Park rep+1 too
    assert values(game, 0) == (2, 3, 2, 25)
    place(game, 1, "Suburbs", 2, 1)  # not commercial
    assert values(game, 0)[3] == 25


def test_R6_3_others_excludes_the_owners_borough():
    """Hotel (3 players): others(Residential) = p1 Suburbs, p1 Mobile Home, p2 Suburbs =
    pop+3 (its owner's Suburbs does not count). A residential tile of its owner's borough
    does not trigger it; one of player 2's does."""
    game = new_game(players=3)
    put(game, 1, "Mobile Home Community", 1, 0)
    place(game, 0, "Hotel", 1, 0)
    assert values(game, 0) == (1, 2, 5, 15)
    place(game, 0, "Suburbs", -1, 0)  # pop+2, Park rep+1, the Hotel ignores it
    assert values(game, 0) == (1, 3, 7, 15)
    place(game, 2, "Suburbs", 1, 0)
    assert values(game, 0) == (1, 3, 8, 15)


# R6.4 targets -----------------------------------------------------------------------

def test_R6_4_type_alternatives_match_any_listed_type():
    """Landfill at (1,1): adjacent(Civic|Commercial|Industrial|Residential) matches the
    Store (1,0), Mobile Home (1,2), Park and Factory = rep-4, not the lake (2,1).
    inc+2; rep 1-4 = -3; Park rep+1 -> -2; the lake pays $2."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0)
    put(game, 0, "Mobile Home Community", 1, 2)
    put(game, 0, "Freeway", 2, 1, lake=True)
    place(game, 0, "Landfill", 1, 1)
    assert values(game, 0) == (2, -2, 2, 17)


def test_R6_4_type_alternatives_skip_unlisted_types():
    """The Park (Commercial|Industrial|Residential) ignores a civic Museum next to it;
    the Factory (Civic|Residential) takes rep-1. Museum: rep+1, adjacent(Civic) = Park
    = rep+1. Reputation 1 + 1 + 1 - 1 = 2."""
    game = new_game()
    place(game, 0, "Museum", 1, 1)
    assert values(game, 0) == (0, 2, 2, 15)


def test_R6_4_icon_target_matches_tiles_of_any_type_with_the_icon():
    """Business Supply Store: every(#Office) = Office Building (commercial) + Office of
    Bureaucracy and Local EPA Office (civic) = inc+3, not a plain Convenience Store."""
    game = new_game()
    put(game, 0, "Office Building", -1, 0)
    put(game, 1, "Office of Bureaucracy", 1, 0)
    put(game, 1, "Local EPA Office", -1, 0)
    put(game, 1, "Convenience Store", 1, 1)
    place(game, 0, "Business Supply Store", 1, 1)
    assert values(game, 0) == (4, 2, 2, 15)


def test_R6_4_type_target_ignores_icons_on_other_types():
    """Postal Service: own(Commercial) = Office Building + Fancy Restaurant = inc+2, not
    the civic Office of Bureaucracy; the OoB (own(Civic)) reacts inc+1; Factory rep-1."""
    game = new_game()
    put(game, 0, "Office Building", 1, 0)
    put(game, 0, "Office of Bureaucracy", -1, 0)
    put(game, 0, "Fancy Restaurant", 2, 1)
    place(game, 0, "Postal Service", 1, 1)
    assert values(game, 0) == (3, 0, 2, 15)


def test_R6_4_R6_7_lakes_never_count_for_types_or_icons():
    """A lake made from a residential tile is no residential: Stadium at (1,0) sees S only
    (rep+2) and the lake at (2,0) pays $2 for the Stadium. HOA: every(Residential) = two
    Suburbs + itself = $+6 (the lake made from a Suburbs does not count); Park rep+1.
    A lake at (1,1) next to the Stadium, Park and Factory pays $6; the Park and the
    Factory do not react to it."""
    game = new_game()
    put(game, 0, "Mobile Home Community", 2, 0, lake=True)
    put(game, 1, "Suburbs", 1, 0, lake=True)
    place(game, 0, "Stadium", 1, 0)
    assert values(game, 0) == (1, 3, 2, 17)
    place(game, 0, "Homeowners Association", -1, 0)
    assert values(game, 0) == (1, 4, 3, 23)
    place(game, 0, "Convenience Store", 1, 1, lake=True)
    assert values(game, 0) == (1, 4, 3, 29)


# R6.5 after_every -------------------------------------------------------------------

def test_R6_5_after_every_counts_only_later_placements_in_any_borough():
    """Fancy Restaurant (inc+3) placed after player 1's Fast Food: no match at placement.
    Each later restaurant, in either borough, costs inc-1; other tiles do not."""
    game = new_game()
    put(game, 1, "Fast Food Restaurant", 1, 0)
    place(game, 0, "Fancy Restaurant", 1, 1)
    assert values(game, 0)[:2] == (3, 2)
    place(game, 1, "Fancy Restaurant", 1, 1)  # p1: inc+3, Park rep+1; p0: inc-1
    assert values(game, 0)[0] == 2
    assert values(game, 1)[:2] == (3, 2)
    place(game, 0, "Convenience Store", -1, 0)  # not a restaurant: inc+1 only
    assert values(game, 0)[0] == 3
    place(game, 0, "Fast Food Restaurant", 2, 1)  # inc+1, both Fancy Restaurants -1
    assert values(game, 0)[0] == 3
    assert values(game, 1)[0] == 2


def test_R6_5_after_every_of_a_duplicate_reacts_to_the_newer_one_only():
    """R6.5, R7.4: the second Fancy Restaurant triggers the first (inc 3+3-1 = 5); the new
    one has no match (the first is older)."""
    game = new_game()
    place(game, 0, "Fancy Restaurant", 1, 1)
    events = place(game, 0, "Fancy Restaurant", -1, 0)
    assert values(game, 0)[0] == 5
    assert [e for e in events if e[1] == "inc"] == [
        (0, "inc", 3, 6, "Fancy Restaurant"), (0, "inc", -1, 5, "Fancy Restaurant")]


# R6.6 redline_own -------------------------------------------------------------------

def test_R6_6_casino_gives_income_for_each_upward_line_of_its_owner():
    """Mobile Home at (1,0), population 10 -> 16 crosses 15: income 2-1 = 1, reputation
    5-1 = 4, Casino inc+1 -> 2; then the Park rep+1 -> 5."""
    game = new_game()
    put(game, 0, "Casino", -1, 1)
    set_player_values(game, 0, income=2, reputation=5, population=10)
    events = place(game, 0, "Mobile Home Community", 1, 0)
    assert events == [(0, "pop", 6, 16, "Mobile Home Community"), (0, "line", 1, 15, "rules"),
                      (0, "inc", -1, 1, "rules"), (0, "rep", -1, 4, "rules"),
                      (0, "inc", 1, 2, "Casino"), (0, "rep", 1, 5, "Community Park")]
    assert values(game, 0) == (2, 5, 16, 15)


def test_R6_6_pr_firm_gives_reputation_for_each_upward_line():
    """As above with a PR Firm: income 1, reputation 4 + 1 (PR Firm) + 1 (Park) = 6."""
    game = new_game()
    put(game, 0, "PR Firm", -1, 1)
    set_player_values(game, 0, income=2, reputation=5, population=10)
    place(game, 0, "Mobile Home Community", 1, 0)
    assert values(game, 0) == (1, 6, 16, 15)


def test_R6_6_R7_3_invested_casino_and_pr_firm_react_twice():
    """Invested Casino (older) and PR Firm: after the line, income 1 +1 +1 = 3 and
    reputation 4 +1 +1 = 6, then the Park -> 7."""
    game = new_game()
    put(game, 0, "Casino", -1, 1, invested=True)
    put(game, 0, "PR Firm", -1, 0, invested=True)
    set_player_values(game, 0, income=2, reputation=5, population=10)
    events = place(game, 0, "Mobile Home Community", 1, 0)
    assert events[4:8] == [(0, "inc", 1, 2, "Casino"), (0, "inc", 1, 3, "Casino"),
                           (0, "rep", 1, 5, "PR Firm"), (0, "rep", 1, 6, "PR Firm")]
    assert values(game, 0) == (3, 7, 16, 15)


def test_R6_6_only_the_owners_upward_crossings_count():
    """Player 1 crossing a line leaves player 0's Casino alone; player 0 falling back
    below a line gets +1/+1 and no Casino income (R8.1)."""
    game = new_game()
    put(game, 0, "Casino", -1, 1)
    set_player_values(game, 1, population=10)
    place(game, 1, "Mobile Home Community", 1, 0)  # p1: 16, inc -1, rep 0, Park +1
    assert values(game, 1) == (-1, 1, 16, 15)
    assert values(game, 0) == (0, 1, 2, 15)
    set_player_values(game, 0, population=16)
    events = change_population(game, 0, -3)
    assert events == [(0, "pop", -3, 13, "rules"), (0, "line", -1, 15, "rules"),
                      (0, "inc", 1, 1, "rules"), (0, "rep", 1, 2, "rules")]


def test_R6_6_crossing_the_same_line_again_triggers_again():
    """Population 14 -> 15 (inc -1 +1 = 0, rep -1), -> 14 (inc 1, rep 0), -> 15 again
    (inc 0 +1 = 1, rep -1)."""
    game = new_game()
    put(game, 0, "Casino", -1, 1)
    set_player_values(game, 0, income=0, reputation=0, population=14)
    change_population(game, 0, 1)
    assert values(game, 0)[:3] == (0, -1, 15)
    change_population(game, 0, -1)
    assert values(game, 0)[:3] == (1, 0, 14)
    change_population(game, 0, 1)
    assert values(game, 0)[:3] == (1, -1, 15)


def test_R6_6_a_line_crossed_while_the_casino_itself_resolves_counts():
    """The Casino is placed before its resolution goes on, so a line crossed by a
    reaction to it counts (R6.6 "after this tile is placed"). Casino at (1,0) next to a
    Condominium (2,0); income 0, reputation 5, population 13: rep-3 -> 2; Park +1 -> 3;
    Condominium adjacent(Commercial) pop+3 -> 16 crosses 15: income -1, reputation 2,
    then the new Casino inc+1 -> 0."""
    game = new_game()
    put(game, 0, "Condominium", 2, 0)
    set_player_values(game, 0, income=0, reputation=5, population=13)
    events = place(game, 0, "Casino", 1, 0)
    assert events[-4:] == [(0, "line", 1, 15, "rules"), (0, "inc", -1, -1, "rules"),
                           (0, "rep", -1, 2, "rules"), (0, "inc", 1, 0, "Casino")]
    assert values(game, 0) == (0, 2, 16, 15)


def test_R6_6_lines_crossed_before_the_casino_do_not_count():
    """A Casino placed at population 40 (5 lines already behind) has no current match:
    rep-3 and the Park's +1 only."""
    game = new_game()
    set_player_values(game, 0, population=40, reputation=5)
    place(game, 0, "Casino", 1, 0)
    assert values(game, 0) == (0, 3, 40, 15)


# R6.7 lakes -------------------------------------------------------------------------

def test_R6_7_R5_1c_lake_pays_for_each_adjacent_tile_when_placed():
    """`lake 4 @ 1,1`: pay the +$2 premium only; the lake touches the Store (1,0), Park
    and Factory: three $2 payments. The Skyscraper it is made of has no effect (no
    inc+3, player 1's Skyscraper does not react). Money 15-2+6 = 19; step 2 +0; step 3
    population 2+1."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0)
    put(game, 1, "Skyscraper", 1, 0)
    set_market_tile(game, 4, "Skyscraper")
    set_current_player(game, 0)
    game.apply("lake 4 @ 1,1")
    events = trace(log_of(game))
    assert money_payments(events) == [(2, "Lake")] * 3
    assert [e[3] for e in events if e[1] == "$"] == [15, 17, 19]  # after the $2 premium
    assert values(game, 0) == (0, 1, 3, 19)
    assert values(game, 1) == (0, 1, 2, 15)
    lake = [t for t in game.player_state(0)["borough"] if (t["col"], t["row"]) == (1, 1)]
    assert lake == [{"col": 1, "row": 1, "tile": "Skyscraper", "lake": True, "invested": False}]


def test_R6_7_lake_pays_2_each_time_a_tile_is_placed_next_to_it():
    """Lake at (1,0): a Boutique at (1,1) touches it ($2, Park rep+1); a Freeway at (2,2)
    does not; a Museum at (2,0) does ($2)."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0, lake=True)
    events = place(game, 0, "Boutique", 1, 1)
    assert money_payments(events) == [(2, "Lake")]
    assert values(game, 0)[3] == 17
    assert money_payments(place(game, 0, "Freeway", 2, 2)) == []
    assert money_payments(place(game, 0, "Museum", 2, 0)) == [(2, "Lake")]
    assert values(game, 0)[3] == 19


def test_R6_7_lake_next_to_a_lake_pays_nothing():
    """A lake at (2,0) touching only the lake (1,0): $0, and the old lake pays nothing.
    A lake at (1,1) touching the lake (1,0), Park and Factory: $4."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0, lake=True)
    assert place(game, 0, "Freeway", 2, 0, lake=True) == []
    events = place(game, 0, "Landfill", 1, 1, lake=True)
    assert money_payments(events) == [(2, "Lake"), (2, "Lake")]
    assert values(game, 0) == (0, 1, 2, 19)


def test_R6_7_R7_3_invested_lake_pays_one_payment_of_4():
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0, lake=True, invested=True)
    events = place(game, 0, "Boutique", 1, 1)
    assert money_payments(events) == [(4, "Lake")]
    assert values(game, 0)[3] == 19


def test_R6_7_lake_of_another_borough_does_not_pay():
    game = new_game()
    put(game, 1, "Convenience Store", 1, 0, lake=True)
    place(game, 0, "Boutique", 1, 1)
    assert values(game, 1) == (0, 1, 2, 15)


def test_R6_7_waterfront_realty_adds_2_after_each_lake_payment_from_its_own_placement():
    """Waterfront Realty at (1,1) next to lakes at (1,0) and (2,1): the Park reacts first
    (oldest), then each lake pays $2, each payment followed at once by the Realty's $2."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0, lake=True)
    put(game, 0, "Freeway", 2, 1, lake=True)
    events = place(game, 0, "Waterfront Realty", 1, 1)
    assert events == [(0, "rep", 1, 2, "Community Park"),
                      (0, "$", 2, 17, "Lake"), (0, "$", 2, 19, "Waterfront Realty"),
                      (0, "$", 2, 21, "Lake"), (0, "$", 2, 23, "Waterfront Realty")]


def test_R6_7_waterfront_realty_adds_to_each_payment_of_a_new_lake():
    """A lake at (1,1) touching the Store (1,0), Park and Factory: 3 x ($2 + $2) = $12."""
    game = new_game()
    put(game, 0, "Waterfront Realty", -1, 0)
    put(game, 0, "Convenience Store", 1, 0)
    events = place(game, 0, "Freeway", 1, 1, lake=True)
    assert money_payments(events) == [(2, "Lake"), (2, "Waterfront Realty")] * 3
    assert values(game, 0)[3] == 27


def test_R6_7_R7_3_invested_waterfront_realty_adds_4():
    """A lake at (1,1) touching Park and Factory: 2 x ($2 + $4) = $12."""
    game = new_game()
    put(game, 0, "Waterfront Realty", -1, 0, invested=True)
    events = place(game, 0, "Freeway", 1, 1, lake=True)
    assert money_payments(events) == [(2, "Lake"), (4, "Waterfront Realty")] * 2
    assert values(game, 0)[3] == 27


def test_R6_7_R7_4_two_waterfront_realties_both_add():
    """A lake at (1,2) touching the Factory only: $2 + $2 + $2, oldest Realty first."""
    game = new_game()
    put(game, 0, "Waterfront Realty", -1, 0)
    put(game, 0, "Waterfront Realty", 1, 0)
    events = place(game, 0, "Freeway", 1, 2, lake=True)
    assert events == [(0, "$", 2, 17, "Lake"), (0, "$", 2, 19, "Waterfront Realty"),
                      (0, "$", 2, 21, "Waterfront Realty")]


def test_R6_7_invested_lake_with_waterfront_realty_pays_4_plus_2():
    game = new_game()
    put(game, 0, "Waterfront Realty", -1, 0)
    put(game, 0, "Convenience Store", 1, 0, lake=True, invested=True)
    events = place(game, 0, "Boutique", 1, 1)
    assert money_payments(events) == [(4, "Lake"), (2, "Waterfront Realty")]
    assert values(game, 0)[3] == 21


def test_R6_7_R7_3_investing_in_a_lake_costs_0_pays_2_per_tile_without_waterfront_bonus():
    """`invest 1,1` on a lake touching the Store (1,0), Park and Factory: price $0, three
    $2 payments, no Waterfront Realty bonus; one marker used; then a discard (R5.1d)."""
    game = new_game()
    put(game, 0, "Waterfront Realty", -1, 0)
    put(game, 0, "Convenience Store", 1, 0)
    put(game, 0, "Freeway", 1, 1, lake=True)
    set_market_tile(game, 6, "Farm")
    set_current_player(game, 0)
    game.apply("invest 1,1")
    assert money_payments(trace(log_of(game))) == [(2, "Lake")] * 3
    assert values(game, 0) == (0, 1, 2, 21)
    assert game.player_state(0)["markers_left"] == 2
    assert game.pending_decision == "discard"


def test_R6_7_waterfront_realty_of_another_player_does_not_add():
    game = new_game()
    put(game, 1, "Waterfront Realty", 1, 0)
    events = place(game, 0, "Freeway", 1, 2, lake=True)
    assert money_payments(events) == [(2, "Lake")]
    assert values(game, 1)[3] == 15


def test_R6_7_a_lake_made_from_a_waterfront_realty_adds_nothing():
    """Face down, a Waterfront Realty is only a lake: a lake at (1,2) touching the
    Factory pays $2, with no bonus from the lake at (2,1) made of a Realty."""
    game = new_game()
    put(game, 0, "Waterfront Realty", 2, 1, lake=True)
    events = place(game, 0, "Freeway", 1, 2, lake=True)
    assert money_payments(events) == [(2, "Lake")]


def test_R6_7_R7_3_investing_in_waterfront_realty_changes_nothing_now():
    """No immediate effect, and lake_adj_own has no current match, even next to a lake."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0, lake=True)
    put(game, 0, "Waterfront Realty", 1, 1)
    assert invest(game, 0, 1, 1) == []
    assert values(game, 0) == (0, 1, 2, 15)


# R6.8 -------------------------------------------------------------------------------

def test_R6_8_money_effects_are_paid_once_levels_keep_paying():
    """Turn 1: HOA from slot 5 ($6): money 40-6+6 (two Suburbs and itself) = 40; income 0.
    Player 1's Freeway (not residential) leaves player 0's money alone. Turn 2: a
    Convenience Store ($6, inc+1): 40-6 = 34, then step 2 pays income 1: 35. The HOA
    does not pay again."""
    game = new_game()
    set_player_values(game, 0, money=40)
    set_current_player(game, 0)
    set_market_tile(game, 5, "Homeowners Association")
    game.apply("buy 5 @ -1,0")
    assert values(game, 0) == (0, 2, 5, 40)  # population 2+1, then step 3 +2
    assert game.current_player == 1
    set_market_tile(game, 5, "Freeway")
    game.apply("buy 5 @ 1,2")
    assert values(game, 0) == (0, 2, 5, 40)
    assert game.current_player == 0
    set_market_tile(game, 5, "Convenience Store")
    game.apply("buy 5 @ 0,3")
    assert values(game, 0) == (1, 2, 7, 35)


# R7.1 order -------------------------------------------------------------------------

def test_R7_1_step1_the_price_is_paid_before_placement_money_arrives():
    """HOA from slot 0 with exactly $16: money 0, then $2 x 3 arrives (values 2, 4, 6)."""
    game = new_game()
    set_player_values(game, 0, money=16)
    set_current_player(game, 0)
    set_market_tile(game, 0, "Homeowners Association")
    game.apply("buy 0 @ -1,0")
    events = trace(log_of(game))
    assert [(a, v) for p, w, a, v, _ in events if w == "$"] == [(2, 2), (2, 4), (2, 6)]
    place_rows = [row for row in game.last_events if row[ev.FIELD_EVENT] == ev.EVENT_PLACE]
    assert len(place_rows) == 1 and place_rows[0][ev.FIELD_AMOUNT] == 16
    assert values(game, 0) == (0, 2, 5, 6)


def test_R7_1_full_order_of_the_steps():
    """Fast Food Restaurant at (1,0). Player 0 put a Farm at (-1,1) (not adjacent) before
    an Office Building at (2,0) (adjacent); player 1 has a Farm.
    2 immediate inc+1; 3 own adjacent(Residential) = S: pop+3; 4 adjacent tiles oldest
    first: Park rep+1, Office Building inc+1; 5 other tiles: Farm inc+1; 7 player 1's
    Farm inc+1 to player 1."""
    game = new_game()
    put(game, 0, "Farm", -1, 1)
    put(game, 0, "Office Building", 2, 0)
    put(game, 1, "Farm", 1, 0)
    events = place(game, 0, "Fast Food Restaurant", 1, 0)
    assert events == [(0, "inc", 1, 1, "Fast Food Restaurant"),
                      (0, "pop", 3, 5, "Fast Food Restaurant"),
                      (0, "rep", 1, 2, "Community Park"),
                      (0, "inc", 1, 2, "Office Building"),
                      (0, "inc", 1, 3, "Farm"),
                      (1, "inc", 1, 1, "Farm")]


def test_R7_1_step2_immediate_before_step3_own_conditional():
    """Burg von Alspach at (1,3) (touching only a Mobile Home at (1,2)), reputation 15,
    population 12. Step 2: pop+3 -> 15 crosses a line: income -1, reputation 14. Step 3:
    adjacent(Residential) rep+1 -> 15. (The other order would lose the +1 at 15 and end
    on 14.)"""
    game = new_game()
    put(game, 0, "Mobile Home Community", 1, 2)
    set_player_values(game, 0, reputation=15, population=12)
    place(game, 0, "Burg von Alspach", 1, 3)
    assert values(game, 0) == (-1, 15, 15, 15)


def test_R7_1_step2_immediate_before_step4_adjacent_reactions():
    """Casino at (1,0) with reputation -4: rep-3 -> -5 (clamped), then the Park +1 -> -4.
    (Park first would give -3, then -6 clamped to -5.)"""
    game = new_game()
    set_player_values(game, 0, reputation=-4)
    place(game, 0, "Casino", 1, 0)
    assert values(game, 0)[1] == -4


def test_R7_1_step3_own_conditional_before_step4_adjacent_reactions():
    """Hostel at (1,0) next to a Store at (1,1), reputation -5: own adjacent(Commercial)
    rep-1 is lost at -5, then the Park +1 -> -4. (Park first: -4 then -5.)"""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 1)
    set_player_values(game, 0, reputation=-5)
    place(game, 0, "Hostel", 1, 0)
    assert values(game, 0) == (0, -4, 4, 15)


def test_R7_1_step4_adjacent_tiles_before_step5_other_tiles():
    """Income 14. A Fancy Restaurant at (-1,1) (not adjacent) is older than an Office
    Building at (1,1) (adjacent). Fast Food Restaurant at (1,0): inc+1 -> 15; pop+3;
    step 4: Park rep+1, Office Building inc+1 lost at 15; step 5: Fancy Restaurant
    inc-1 -> 14. (Placement order alone would end on 15.)"""
    game = new_game()
    put(game, 0, "Fancy Restaurant", -1, 1)
    put(game, 0, "Office Building", 1, 1)
    set_player_values(game, 0, income=14)
    events = place(game, 0, "Fast Food Restaurant", 1, 0)
    assert [e[4] for e in events] == ["Fast Food Restaurant", "Fast Food Restaurant",
                                      "Community Park", "Office Building", "Fancy Restaurant"]
    assert values(game, 0) == (14, 2, 5, 15)


def test_R7_1_step7_other_players_in_turn_order_after_the_active_player():
    """3 players, player 1 places a Fancy Restaurant: its own borough first (immediate,
    Park, its Farm at (-1,0)), then player 2's Farm and Slaughterhouse (placement order),
    then player 0's Slaughterhouse (placed before all of them)."""
    game = new_game(players=3)
    put(game, 0, "Slaughterhouse", 1, 0)
    put(game, 1, "Farm", -1, 0)
    put(game, 2, "Farm", 1, 0)
    put(game, 2, "Slaughterhouse", -1, 0)
    events = place(game, 1, "Fancy Restaurant", 1, 1)
    assert [(e[0], e[4]) for e in events] == [
        (1, "Fancy Restaurant"), (1, "Community Park"), (1, "Farm"),
        (2, "Farm"), (2, "Slaughterhouse"), (0, "Slaughterhouse")]
    assert values(game, 0)[0] == 1
    assert values(game, 1)[:2] == (4, 2)
    assert values(game, 2)[0] == 2


# R7.2 granularity -------------------------------------------------------------------

def test_R7_2_each_adjustment_is_clamped_as_it_is_applied():
    """Housing Projects at (-1,0), reputation -2: adjacent S, Park and Store (-1,1) give
    three rep-2 adjustments: -4, -5, -5; then the Park +1 -> -4. (Summing first: -7 +1,
    clamped to -5.)"""
    game = new_game()
    put(game, 0, "Convenience Store", -1, 1)
    set_player_values(game, 0, reputation=-2)
    events = place(game, 0, "Housing Projects", -1, 0)
    assert [(e[2], e[3]) for e in events if e[1] == "rep"] == [(-2, -4), (-2, -5), (-2, -5),
                                                              (1, -4)]
    assert values(game, 0) == (0, -4, 12, 15)


def _synthetic_tiles():
    """The tiles of tiles.csv plus two hand-made kinds with two immediate terms each."""
    text = resources.files("suburbia_env.engine").joinpath("data", "tiles.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(text.splitlines()))
    extra = [("Test Tower", "inc+3 inc-2"), ("Test Spire", "pop+5 inc+1")]
    for name, immediate in extra:
        rows.append({"name": name, "stack": "C", "copies": "1", "type": "industrial", "icon": "",
                     "cost": "1", "immediate": immediate, "conditional": "",
                     "special_rule": "", "confidence": "test"})
    return parse_tiles(rows)


def test_R7_2_immediate_terms_apply_left_to_right():
    """`inc+3 inc-2` at income 13: 15 (one lost), then 13. `pop+5 inc+1` at income 15,
    population 12: 17 crosses 15 (income 14, reputation 0), then income 15."""
    data = _synthetic_tiles()
    game = new_game()
    set_player_values(game, 0, income=13)
    events = place(game, 0, "Test Tower", 0, 3, tiles=data.table, names=data.names)
    assert events == [(0, "inc", 3, 15, "Test Tower"), (0, "inc", -2, 13, "Test Tower")]
    # A synthetic tile is no tile of tiles.csv: positions.py refuses to edit the game now.
    game = new_game()
    set_player_values(game, 0, income=15, population=12)
    place(game, 0, "Test Spire", 1, 2, tiles=data.table, names=data.names)
    assert values(game, 0)[:3] == (15, 0, 17)


def test_R7_2_a_term_with_n_matches_is_n_adjustments_with_red_lines_between():
    """Fast Food Restaurant at (1,0) next to S and a Mobile Home (2,0), population 12:
    pop+3 -> 15 crosses the line before the second pop+3 -> 18."""
    game = new_game()
    put(game, 0, "Mobile Home Community", 2, 0)
    set_player_values(game, 0, population=12)
    events = place(game, 0, "Fast Food Restaurant", 1, 0)
    assert events[1:6] == [(0, "pop", 3, 15, "Fast Food Restaurant"), (0, "line", 1, 15, "rules"),
                           (0, "inc", -1, 0, "rules"), (0, "rep", -1, 0, "rules"),
                           (0, "pop", 3, 18, "Fast Food Restaurant")]


def test_R7_2_R7_3_an_invested_tile_triggers_as_two_adjustments():
    """Invested Park at reputation 14: a Store at (1,0) gives rep+1 twice (15, then lost)."""
    game = new_game()
    invest(game, 0, 0, 1)
    set_player_values(game, 0, income=0, reputation=14)
    events = place(game, 0, "Convenience Store", 1, 0)
    assert events == [(0, "inc", 1, 1, "Convenience Store"),
                      (0, "rep", 1, 15, "Community Park"), (0, "rep", 1, 15, "Community Park")]


def test_R7_2_tiles_react_oldest_first():
    """Start borough (Park before Factory), reputation 15: a Mobile Home at (1,1) gives
    Park +1 (lost), Factory -1 -> 14. With an older Factory at (2,1) and a newer Park at
    (2,2), Suburbs at (3,1) gives Factory -1 -> 14, Park +1 -> 15."""
    game = new_game()
    set_player_values(game, 0, reputation=15)
    place(game, 0, "Mobile Home Community", 1, 1)
    assert values(game, 0)[1] == 14

    game = new_game()
    put(game, 0, "Heavy Factory", 2, 1)
    put(game, 0, "Community Park", 2, 2)
    set_player_values(game, 0, reputation=15)
    place(game, 0, "Suburbs", 3, 1)
    assert values(game, 0)[1] == 15


def test_R7_2_a_tiles_terms_apply_in_data_order():
    """International Airport at (1,0), reputation -5, player 1 has a Municipal Airport:
    adjacent(Residential) rep-1 is lost at -5; every(#Airport) inc+1 x2; every(#Airport)
    rep+1 x2 -> -3; Park -> -2. (rep+1 first would end on -3.)"""
    game = new_game()
    put(game, 1, "Municipal Airport", 1, 0)
    set_player_values(game, 0, reputation=-5)
    events = place(game, 0, "International Airport", 1, 0)
    assert [(e[1], e[2]) for e in events if e[4] == "International Airport"] == [
        ("rep", -1), ("inc", 1), ("inc", 1), ("rep", 1), ("rep", 1)]
    assert values(game, 0)[:2] == (2, -2)


# R7.3 investment --------------------------------------------------------------------

def test_R7_3_investment_repeats_immediate_and_own_conditional_over_current_matches():
    """Parking Lot at (1,1) touching Park (civic), Factory, a Store at (2,1) and a lake at
    (1,2): inc+1 and adjacent(Civic|Commercial) = Park, Store: inc+2. The Park (adjacent,
    reacts to commercial) and the lake do not react."""
    game = new_game()
    put(game, 0, "Parking Lot", 1, 1)
    put(game, 0, "Convenience Store", 2, 1)
    put(game, 0, "Freeway", 1, 2, lake=True)
    twin = game.copy()
    events = invest(game, 0, 1, 1)
    assert events == [(0, "inc", 1, 1, "Parking Lot"), (0, "inc", 1, 2, "Parking Lot"),
                      (0, "inc", 1, 3, "Parking Lot")]
    assert values(game, 0) == (3, 1, 2, 15)

    # The same through Game.apply: price $12 (R5.1d), a marker used, then a discard.
    set_player_values(twin, 0, money=15)
    set_market_tile(twin, 6, "Farm")
    set_current_player(twin, 0)
    twin.apply("invest 1,1")
    assert values(twin, 0) == (3, 1, 2, 3)
    assert twin.player_state(0)["markers_left"] == 2
    parking = [t for t in twin.player_state(0)["borough"] if t["tile"] == "Parking Lot"]
    assert parking[0]["invested"]
    twin.apply("discard 6")
    assert values(twin, 0) == (3, 1, 3, 6)


def test_R7_3_E3_investing_in_the_park_does_not_trigger_the_factory():
    """Park touching S, Factory and a Store at (1,0): inc-1, rep+3; the Factory's rep-1
    for a civic neighbour is not triggered. Later a Mobile Home at (-1,1): invested Park
    +1 +1, Factory -1."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0)
    events = invest(game, 0, 0, 1)
    assert {e[4] for e in events} == {"Community Park"}
    assert values(game, 0) == (-1, 4, 2, 15)
    place(game, 0, "Mobile Home Community", -1, 1)
    assert values(game, 0) == (-1, 5, 8, 15)


def test_R7_3_investment_does_not_count_as_a_second_tile():
    """Investing in a Fancy Restaurant (inc+3) does not move player 1's Farm; investing in
    Suburbs (pop+2) does not move player 1's HOA; a later HOA counts the invested Suburbs
    once: two Suburbs + itself = $6."""
    game = new_game()
    put(game, 0, "Fancy Restaurant", -1, 0)
    put(game, 1, "Farm", 1, 0)
    put(game, 1, "Homeowners Association", 1, 1)
    invest(game, 0, -1, 0)
    invest(game, 0, 0, 0)
    assert values(game, 0) == (3, 1, 4, 15)
    assert values(game, 1) == (0, 1, 2, 15)
    place(game, 0, "Homeowners Association", 1, 0)  # pop+1, $ for S, S, HOA, HOA = 8
    assert values(game, 0) == (3, 2, 5, 23)
    assert values(game, 1)[3] == 17  # player 1's HOA: one residential


def test_R7_3_after_every_on_investment_counts_icon_tiles_placed_after_it_so_far():
    """Player 1's Fast Food is older than player 0's Fancy Restaurant; player 1's Fancy
    Restaurant and player 0's Fast Food are newer (a Store too, not a restaurant).
    Investing: inc+3, then inc-1 x 2 = +1. Afterwards each restaurant costs inc-2."""
    game = new_game()
    put(game, 1, "Fast Food Restaurant", 1, 0)
    put(game, 0, "Fancy Restaurant", -1, 0)
    put(game, 1, "Fancy Restaurant", 1, 1)
    put(game, 1, "Convenience Store", -1, 0)
    put(game, 0, "Fast Food Restaurant", 1, 1)
    events = invest(game, 0, -1, 0)
    assert [(e[2], e[3]) for e in events] == [(3, 3), (-1, 2), (-1, 1)]
    place(game, 1, "Fancy Restaurant", 2, 1)
    assert values(game, 0)[0] == -1


def test_R7_3_invested_tiles_trigger_twice_in_the_future():
    """Invested Farm: player 1's restaurant gives inc+2. Invested HOA: player 1's
    Suburbs gives $+4 (one payment of $4). Invested Elementary School: own Suburbs
    gives pop+2 (Suburbs) +1 +1."""
    game = new_game()
    put(game, 0, "Farm", -1, 1, invested=True)
    put(game, 0, "Homeowners Association", -1, 0, invested=True)
    put(game, 0, "Elementary School", 1, 1, invested=True)
    place(game, 1, "Fast Food Restaurant", 1, 0)
    assert values(game, 0) == (2, 1, 2, 15)
    events = place(game, 1, "Suburbs", -1, 0)
    assert money_payments(events) == [(4, "Homeowners Association")]
    assert values(game, 0) == (2, 1, 2, 19)
    place(game, 0, "Suburbs", 1, 0)  # also HOA $4, Park rep+1
    assert values(game, 0) == (2, 2, 6, 23)


def test_R7_3_investing_in_a_casino_repeats_only_its_immediate_effect():
    """Casino at population 40: investing gives rep-3 again (5 -> 2), no current match
    for redline_own. Crossing 41 later: income -1 +1 +1 = 1, reputation 1."""
    game = new_game()
    put(game, 0, "Casino", -1, 1)
    set_player_values(game, 0, income=0, reputation=5, population=40)
    assert invest(game, 0, -1, 1) == [(0, "rep", -3, 2, "Casino")]
    change_population(game, 0, 1)
    assert values(game, 0)[:3] == (1, 1, 41)


def test_R7_3_investing_in_an_own_scope_tile_counts_the_tile_itself():
    """Mint at (1,0) with a Museum at (1,1): inc+3 and own(Civic) = Park, Museum, Mint:
    $+6. The Museum (adjacent, reacts to civic) does not react."""
    game = new_game()
    put(game, 0, "Mint", 1, 0)
    put(game, 0, "Museum", 1, 1)
    invest(game, 0, 1, 0)
    assert values(game, 0) == (3, 1, 2, 21)


def test_R7_3_R8_1_investment_population_crosses_red_lines():
    """Investing in a Mobile Home at population 12: pop+6 -> 18 crosses 15 (inc -1,
    rep -1); the Park next to it does not react."""
    game = new_game()
    put(game, 0, "Mobile Home Community", 1, 0)
    set_player_values(game, 0, population=12)
    invest(game, 0, 1, 0)
    assert values(game, 0) == (-1, 0, 18, 15)


# R7.4 duplicates --------------------------------------------------------------------

def test_R7_4_duplicates_accumulate():
    """Two Farms: a restaurant gives inc+1 twice. A second Mint: own(Civic) = Park and
    both Mints = $+6, and the first Mint adds $+2."""
    game = new_game()
    put(game, 0, "Farm", -1, 1)
    put(game, 0, "Farm", 1, 2)
    place(game, 1, "Fancy Restaurant", 1, 0)
    assert values(game, 0)[0] == 2
    put(game, 0, "Mint", 1, 0)
    place(game, 0, "Mint", -1, 0)
    assert values(game, 0) == (5, 1, 2, 23)


# R8.1 red lines ---------------------------------------------------------------------

def _hand_red_lines(limit: int) -> list[int]:
    return FIRST_RED_LINES + list(range(101, limit + 1, 2))


def test_R8_1_red_line_values():
    lines = _hand_red_lines(250)
    for index, line in enumerate(lines):
        assert red_line_value(index) == line
    assert red_line_value(18) == 101 and red_line_value(19) == 103


def test_R8_1_red_lines_at_or_below():
    lines = _hand_red_lines(250)
    for population in range(0, 251):
        assert red_lines_at_or_below(population) == sum(1 for line in lines if line <= population)
    spot = {0: 0, 14: 0, 15: 1, 21: 1, 22: 2, 98: 18, 100: 18, 101: 19, 102: 19, 103: 20}
    for population, count in spot.items():
        assert red_lines_at_or_below(population) == count


def test_R8_1_next_red_line_is_the_lowest_line_above_the_population():
    lines = _hand_red_lines(260)
    for population in range(0, 251):
        assert next_red_line(population) == min(line for line in lines if line > population)
    assert [next_red_line(p) for p in (0, 14, 15, 98, 100, 101, 102)] == [15, 15, 22, 101, 101,
                                                                          103, 103]
    assert type(next_red_line(np.int32(15))) is int  # what the display prints


@pytest.mark.parametrize("mode, penalty", [(c.MODE_STANDARD, 1), (c.MODE_DALE, 1),
                                           (c.MODE_SOLITARY, 2)])
def test_R8_1_R9_1_level_change_of_the_lines_between_two_populations(mode, penalty):
    """Net of the lines between the two values: -penalty per line up, +1 per line down."""
    state = np.zeros(s.STATE_SIZE, dtype=np.int32)
    state[s.MODE] = mode
    assert red_line_level_change(state, 14, 15) == -penalty
    assert red_line_level_change(state, 10, 30) == -3 * penalty  # 15, 22, 29
    assert red_line_level_change(state, 99, 105) == -3 * penalty  # 101, 103, 105
    assert red_line_level_change(state, 30, 10) == 3  # falling back gives +1 in every mode
    assert red_line_level_change(state, 15, 21) == 0 == red_line_level_change(state, 22, 22)


def test_R8_1_a_line_crossed_mid_resolution_moves_levels_at_once_with_clamping():
    """Condominium at (1,0) next to a Movie Theater (1,1); income -5, reputation 3,
    population 12. pop+5 -> 17 crosses 15: income -1 is lost at -5, reputation 2;
    pop+3 (Theater) -> 20; Park rep+1 -> 3; Theater inc+1 -> -4. (Handling the line at
    the end would give -5.)"""
    game = new_game()
    put(game, 0, "Movie Theater", 1, 1)
    set_player_values(game, 0, income=-5, reputation=3, population=12)
    events = place(game, 0, "Condominium", 1, 0)
    assert events == [(0, "pop", 5, 17, "Condominium"), (0, "line", 1, 15, "rules"),
                      (0, "inc", -1, -5, "rules"), (0, "rep", -1, 2, "rules"),
                      (0, "pop", 3, 20, "Condominium"), (0, "rep", 1, 3, "Community Park"),
                      (0, "inc", 1, -4, "Movie Theater")]
    assert values(game, 0) == (-4, 3, 20, 15)


def test_R8_1_several_lines_one_at_a_time_with_the_casino_after_each():
    """Housing Projects at (0,3), population 14 -> 24 crosses 15 and 22; income -5,
    reputation 4. Each line: income -1 (lost at -5), reputation -1, Casino +1 (-4).
    Then the Factory rep-1. Income -4 (all at once would give -3)."""
    game = new_game()
    put(game, 0, "Casino", -1, 0)
    set_player_values(game, 0, income=-5, reputation=4, population=14)
    events = place(game, 0, "Housing Projects", 0, 3)
    assert events == [(0, "pop", 10, 24, "Housing Projects"),
                      (0, "line", 1, 15, "rules"), (0, "inc", -1, -5, "rules"),
                      (0, "rep", -1, 3, "rules"), (0, "inc", 1, -4, "Casino"),
                      (0, "line", 1, 22, "rules"), (0, "inc", -1, -5, "rules"),
                      (0, "rep", -1, 2, "rules"), (0, "inc", 1, -4, "Casino"),
                      (0, "rep", -1, 1, "Heavy Factory")]
    assert values(game, 0) == (-4, 1, 24, 15)


def test_R8_1_R6_6_reactions_in_placement_order_at_the_upper_clamp():
    """PR Firm (older) and Casino at income 15, reputation 15; two lines: each gives
    14/14, PR Firm rep+1 -> 15, Casino inc+1 -> 15. Then the Factory -> 14."""
    game = new_game()
    put(game, 0, "PR Firm", -1, 1)
    put(game, 0, "Casino", -1, 0)
    set_player_values(game, 0, income=15, reputation=15, population=14)
    events = place(game, 0, "Housing Projects", 0, 3)
    assert [e[4] for e in events if e[4] in ("PR Firm", "Casino")] == ["PR Firm", "Casino"] * 2
    assert values(game, 0) == (15, 14, 24, 15)


def test_R8_1_falling_back_gives_plus_one_each_in_the_order_passed():
    """Population 24 -> 14 falls below 22 then 15: income +1 each (lost at 15),
    reputation -5 -> -4 -> -3; no Casino reaction."""
    game = new_game()
    put(game, 0, "Casino", -1, 0)
    set_player_values(game, 0, income=15, reputation=-5, population=24)
    events = change_population(game, 0, -10)
    assert events == [(0, "pop", -10, 14, "rules"),
                      (0, "line", -1, 22, "rules"), (0, "inc", 1, 15, "rules"),
                      (0, "rep", 1, -4, "rules"),
                      (0, "line", -1, 15, "rules"), (0, "inc", 1, 15, "rules"),
                      (0, "rep", 1, -3, "rules")]


def test_R8_1_another_players_tile_pushes_them_over_a_line_during_my_turn():
    """Player 0 places Suburbs; player 1's Hotel gives player 1 pop+1: 14 -> 15, income
    -1 then Casino +1 = 0, reputation -1."""
    game = new_game()
    put(game, 1, "Hotel", 1, 0)
    put(game, 1, "Casino", 1, 1)
    set_player_values(game, 1, income=0, reputation=0, population=14)
    place(game, 0, "Suburbs", 1, 0)
    assert values(game, 1) == (0, -1, 15, 15)
    assert values(game, 0) == (0, 2, 4, 15)


def test_R8_1_lines_in_step_3_up_and_down():
    """Through Game.apply. Up: a Store at (0,3) (inc+1, no reaction), population 14,
    reputation 1: step 3 -> 15 crosses: income 0, reputation 0, Casino income 1.
    Down: population 16, reputation -3: step 3 -> 13, income +1, reputation +1."""
    game = new_game()
    put(game, 0, "Casino", -1, 0)
    set_player_values(game, 0, population=14)
    set_market_tile(game, 5, "Convenience Store")
    set_current_player(game, 0)
    game.apply("buy 5 @ 0,3")
    assert values(game, 0) == (1, 0, 15, 10)

    game = new_game()
    put(game, 0, "Casino", -1, 0)
    set_player_values(game, 0, population=16, reputation=-3)
    set_market_tile(game, 5, "Convenience Store")
    set_current_player(game, 0)
    game.apply("buy 5 @ 0,3")
    assert values(game, 0) == (2, -2, 13, 10)


# R1.2 clamping on every path --------------------------------------------------------

def test_R1_2_clamp_immediate_income_up():
    """New Car Dealership (inc+5) at income 12 -> 15; the older dealership's inc-2 -> 13."""
    game = new_game()
    put(game, 0, "New Car Dealership", -1, 1)
    set_player_values(game, 0, income=12)
    place(game, 0, "New Car Dealership", 0, 3)
    assert values(game, 0)[0] == 13


def test_R1_2_clamp_immediate_income_down():
    """PR Firm (inc-2) at income -4 -> -5; a Postal Service (own Commercial) +1 -> -4."""
    game = new_game()
    put(game, 0, "Postal Service", -1, 0)
    set_player_values(game, 0, income=-4)
    place(game, 0, "PR Firm", 0, 3)
    assert values(game, 0)[0] == -4


def test_R1_2_clamp_immediate_reputation_up():
    """Chip Fabrication Plant (rep+2) at reputation 14 -> 15; a Landfill at (1,2)
    (adjacent, any type) rep-1 -> 14."""
    game = new_game()
    put(game, 0, "Landfill", 1, 2)
    set_player_values(game, 0, reputation=14)
    place(game, 0, "Chip Fabrication Plant", 0, 3)
    assert values(game, 0)[1] == 14


def test_R1_2_clamp_immediate_reputation_down():
    """Casino (rep-3) at reputation -3 -> -5; the Park +1 -> -4."""
    game = new_game()
    set_player_values(game, 0, reputation=-3)
    place(game, 0, "Casino", 1, 0)
    assert values(game, 0)[1] == -4


def test_R1_2_clamp_own_conditional_reputation_up():
    """Stadium at (1,1) next to a Mobile Home (1,2), reputation 14: rep+2 -> 15; the
    Factory -1 -> 14."""
    game = new_game()
    put(game, 0, "Mobile Home Community", 1, 2)
    set_player_values(game, 0, reputation=14)
    place(game, 0, "Stadium", 1, 1)
    assert values(game, 0)[:2] == (1, 14)


def test_R1_2_clamp_own_conditional_income_up():
    """Office of Bureaucracy at (0,3), income 14: own(Civic) = Park, itself: 15, 15."""
    game = new_game()
    set_player_values(game, 0, income=14)
    events = place(game, 0, "Office of Bureaucracy", 0, 3)
    assert [(e[2], e[3]) for e in events if e[1] == "inc"] == [(1, 15), (1, 15)]


def test_R1_2_clamp_own_conditional_reputation_down():
    """Freeway at (1,0), reputation -5: adjacent(Residential) = S: rep-1 lost; Park +1."""
    game = new_game()
    set_player_values(game, 0, reputation=-5)
    place(game, 0, "Freeway", 1, 0)
    assert values(game, 0)[1] == -4


def test_R1_2_clamp_reaction_step5_income_up():
    """Income 15, an older Farm then a Fancy Restaurant (not adjacent). Fast Food at (0,3):
    inc+1 lost; Farm +1 lost; Fancy Restaurant -1 -> 14."""
    game = new_game()
    put(game, 0, "Farm", -1, 1)
    put(game, 0, "Fancy Restaurant", 2, 0)
    set_player_values(game, 0, income=15)
    place(game, 0, "Fast Food Restaurant", 0, 3)
    assert values(game, 0)[0] == 14


def test_R1_2_clamp_reaction_step7_income_down():
    """Player 1 at income -5 with an older Fancy Restaurant and a newer Farm: player 0's
    restaurant gives -1 (lost) then +1 -> -4."""
    game = new_game()
    put(game, 1, "Fancy Restaurant", 1, 0)
    put(game, 1, "Farm", 1, 1)
    set_player_values(game, 1, income=-5)
    place(game, 0, "Fast Food Restaurant", 0, 3)
    assert values(game, 1)[0] == -4


def test_R1_2_clamp_reaction_step7_reputation_up():
    """Player 1's Domestic Airport at reputation 15: another airport gives +1, lost."""
    game = new_game()
    put(game, 1, "Domestic Airport", 1, 0)
    set_player_values(game, 1, reputation=15)
    place(game, 0, "Municipal Airport", 0, 3)
    assert values(game, 1)[1] == 15


def test_R1_2_clamp_red_line_penalty_on_reputation():
    """Reputation -5 with a PR Firm: a line gives rep-1 (lost) then +1 -> -4."""
    game = new_game()
    put(game, 0, "PR Firm", -1, 0)
    set_player_values(game, 0, reputation=-5, population=14)
    change_population(game, 0, 1)
    assert values(game, 0)[:2] == (-1, -4)


def test_R1_2_clamp_red_line_bonus_when_falling_back():
    game = new_game()
    set_player_values(game, 0, income=15, reputation=15, population=15)
    change_population(game, 0, -1)
    assert values(game, 0)[:3] == (15, 15, 14)


def test_R1_2_clamp_casino_reaction_invested():
    """Invested Casino at income 15: line -> 14, +1 -> 15, +1 lost."""
    game = new_game()
    put(game, 0, "Casino", -1, 0, invested=True)
    set_player_values(game, 0, income=15, population=14)
    events = change_population(game, 0, 1)
    assert [(e[2], e[3]) for e in events if e[1] == "inc"] == [(-1, 14), (1, 15), (1, 15)]


def test_R1_2_clamp_investment_immediate_then_conditional():
    """Invested Fancy Restaurant at income 14 with one later restaurant: inc+3 -> 15
    (two lost), after_every -1 -> 14."""
    game = new_game()
    put(game, 0, "Fancy Restaurant", -1, 0)
    put(game, 1, "Fast Food Restaurant", 1, 0)
    set_player_values(game, 0, income=14)
    invest(game, 0, -1, 0)
    assert values(game, 0)[0] == 14


def test_R1_2_clamp_investment_levels_both_ends():
    """Investing in the Park at income -5, reputation 14 (S, Factory, Store neighbours):
    inc-1 lost at -5; rep+1 x 3 -> 15, two lost."""
    game = new_game()
    put(game, 0, "Convenience Store", 1, 0)
    set_player_values(game, 0, income=-5, reputation=14)
    invest(game, 0, 0, 1)
    assert values(game, 0)[:2] == (-5, 15)


def test_R1_3_population_and_money_never_below_zero():
    """No printed tile lowers them, but an adjustment may never leave them negative."""
    game = new_game()
    set_player_values(game, 0, population=2, money=3)
    change_population(game, 0, -5)
    log = _new_log()
    adjust(game.state, TILES.table, log, 0, c.ATTR_MONEY, -5, -1, -1, -1)
    assert values(game, 0)[2:] == (0, 0)
