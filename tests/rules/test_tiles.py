"""One placement test per tile of tiles.csv (R6, R7.1).

Each case builds a small position by hand (suburbia_env.positions) and places the tile
for player 0. The expected changes of income, reputation, population and money of every
player are derived by hand from the tile's row of tiles.csv, the starting borough (R2.3:
Suburbs (0,0), Community Park (0,1), Heavy Factory (0,2)) and the order of R7.1, and
written next to each case. Each case is checked twice:

* step 1 alone: `resolution.resolve_placement` on a copy of the state;
* the whole turn: `Game.apply("buy <slot> @ c,r")` (or `basic ...` and a discard), whose
  result must equal the hand-derived step 1 followed by steps 2 and 3 (R5.2, R5.3).

Neighbours used below (R2.2):
  (1,0): (1,1) (0,0)S (0,1)P (2,0) (2,1)        (1,1): (1,0) (1,2) (0,1)P (0,2)F (2,1) (2,2)
  (-1,0): (-1,1) (-2,0) (-2,1) (0,0)S (0,1)P    (-1,1): (-1,0) (-1,2) (-2,1) (-2,2) (0,1)P (0,2)F
  (2,0): (2,1) (1,0) (3,0)                      (2,1): (2,0) (2,2) (1,0) (1,1) (3,0) (3,1)
  (1,2): (1,1) (1,3) (0,2)F (0,3) (2,2) (2,3)   (-1,2): (-1,1) (-1,3) (-2,2) (-2,3) (0,2)F (0,3)
The Park reacts (rep+1) to an adjacent commercial, industrial or residential tile, the
Factory (rep-1) to an adjacent civic or residential tile.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from importlib import resources

import pytest

from suburbia_env import Game
from suburbia_env.engine import event_log as ev
from suburbia_env.engine.hex_grid import cell_index
from suburbia_env.positions import (put_tile_without_effects, set_current_player,
                                    set_market_tile, set_player_values)
from suburbia_env.engine.resolution import resolve_placement
from suburbia_env.engine.tile_data import TILES

PREMIUMS = (10, 8, 6, 4, 2, 0, 0)  # R4.1
START = {"money": 15, "income": 0, "reputation": 1, "population": 2}  # R3.4
ACTIVE_MONEY = 40  # enough for any tile from any slot (Casino 22 + 10)
BASIC_NOTATION = {"Suburbs": "suburbs", "Community Park": "park", "Heavy Factory": "factory"}


def _csv_costs() -> dict[str, int]:
    text = resources.files("suburbia_env.engine").joinpath("data", "tiles.csv").read_text(encoding="utf-8")
    return {row["name"]: int(row["cost"]) for row in csv.DictReader(text.splitlines())}


COSTS = _csv_costs()


@dataclass(frozen=True)
class TileCase:
    """Player 0 places `name` at `cell`; `expected[p]` = (income, reputation, population,
    money) changes of player p in step 1, the price not included."""

    name: str
    cell: tuple[int, int]
    expected: dict[int, tuple[int, int, int, int]]
    pre: tuple = ()  # (player, tile, col, row[, "lake"]) put without effects, in this order
    players: int = 2
    notes: str = field(default="", compare=False)


CASES = [
    TileCase("Community Park", (1, 1), {0: (-1, 2, 0, 0)},
             pre=((0, "Convenience Store", 1, 0), (0, "Mobile Home Community", 1, 2)),
             notes="inc-1; own adj C|I|R: Store, Mobile Home, Factory = rep+3; Factory rep-1"),
    TileCase("Heavy Factory", (-1, 1), {0: (1, -2, 0, 0)},
             pre=((0, "Mobile Home Community", -1, 0), (0, "Museum", -1, 2)),
             notes="inc+1; own adj Civic|Res: Mobile Home, Museum, Park = rep-3; Park rep+1"),
    TileCase("Suburbs", (1, 0), {0: (0, 1, 3, 0), 1: (0, 0, 1, 2)},
             pre=((0, "Elementary School", -1, 1), (1, "Hotel", 1, 0),
                  (1, "Homeowners Association", 1, 1)),
             notes="pop+2; Park rep+1; School own(Res) pop+1; p1 Hotel pop+1, HOA $+2"),
    TileCase("Business Supply Store", (1, 1), {0: (4, 1, 0, 0)},
             pre=((0, "Office Building", -1, 0), (1, "Office Building", 1, 0),
                  (1, "Office of Bureaucracy", -1, 1)),
             notes="inc+1; every(#Office) = 3 offices in two boroughs: inc+3; Park rep+1"),
    TileCase("Convenience Store", (1, 0), {0: (3, 1, 0, 0)},
             pre=((0, "Office Building", 2, 0), (0, "Postal Service", -1, 1)),
             notes="inc+1; Park rep+1; adjacent Office Building inc+1; Postal Service inc+1"),
    TileCase("Fancy Restaurant", (1, 1), {0: (2, 1, 0, 0), 1: (2, 0, 0, 0)},
             pre=((0, "Fancy Restaurant", -1, 0), (1, "Farm", 1, 0),
                  (1, "Slaughterhouse", 1, 1)),
             notes="inc+3, no later restaurant yet; Park rep+1; the older Fancy Restaurant "
                   "inc-1; p1 Farm and Slaughterhouse inc+1 each"),
    TileCase("Farm", (1, 1), {0: (3, 0, 0, 0)},
             pre=((0, "Fast Food Restaurant", -1, 0), (1, "Fancy Restaurant", 1, 0),
                  (1, "Fast Food Restaurant", -1, 0)),
             notes="rep-1; every(#Restaurant) = 3: inc+3; Park rep+1"),
    TileCase("Fast Food Restaurant", (1, 0), {0: (1, 1, 6, 0), 1: (1, 0, 0, 0)},
             pre=((0, "Mobile Home Community", 2, 0), (1, "Farm", 1, 0)),
             notes="inc+1; adj Res: Suburbs, Mobile Home = pop+6; Park rep+1; p1 Farm inc+1"),
    TileCase("Freeway", (1, 0), {0: (2, -1, 0, 0)},
             pre=((0, "Convenience Store", 1, 1), (0, "Office Building", 2, 1),
                  (0, "Mobile Home Community", 2, 0)),
             notes="adj Commercial: Store, Office = inc+2; adj Res: Suburbs, Mobile Home = "
                   "rep-2; Park rep+1; the Office Building ignores an industrial tile"),
    TileCase("Homeowners Association", (-1, 0), {0: (0, 1, 1, 8), 1: (0, 0, 1, 0)},
             pre=((1, "Mobile Home Community", 1, 0), (1, "Hotel", 1, 1)),
             notes="pop+1; every(Res): 2 Suburbs, p1 Mobile Home, itself = $+8; Park rep+1; "
                   "p1 Hotel pop+1"),
    TileCase("Landfill", (1, 1), {0: (2, -2, 0, 2)},
             pre=((0, "Convenience Store", 1, 0), (0, "Freeway", 1, 2, "lake")),
             notes="inc+2; adj any type: Store, Park, Factory = rep-3 (the lake does not "
                   "count); Park rep+1; the lake pays $2"),
    TileCase("Mint", (1, 0), {0: (3, 1, 0, 6)},
             pre=((0, "Museum", 1, 1),),
             notes="inc+3; own(Civic): Park, Museum, itself = $+6; Museum adj civic rep+1"),
    TileCase("Mobile Home Community", (-1, 1), {0: (0, 0, 6, 0), 1: (0, 0, 0, 2)},
             pre=((1, "Homeowners Association", 1, 0),),
             notes="pop+6; Park rep+1; Factory rep-1; p1 HOA $+2"),
    TileCase("Municipal Airport", (1, 0), {0: (2, 0, 0, 0), 1: (0, 1, 0, 0)},
             pre=((1, "Domestic Airport", 1, 0),),
             notes="adj Res: Suburbs rep-1; every(#Airport): itself, p1 airport = inc+2; "
                   "Park rep+1; p1 Domestic Airport rep+1"),
    TileCase("Office Building", (1, 1), {0: (3, 1, 0, 0), 1: (1, 0, 0, 0)},
             pre=((0, "Convenience Store", 1, 0), (0, "Boutique", 2, 1),
                  (1, "Business Supply Store", 1, 0)),
             notes="inc+1; adj Commercial: Store, Boutique = inc+2; Park rep+1; p1 Business "
                   "Supply Store inc+1"),
    TileCase("Parking Lot", (1, 1), {0: (3, 1, 0, 0)},
             pre=((0, "Convenience Store", 1, 0),),
             notes="inc+1; adj Civic|Commercial: Store, Park = inc+2; Park rep+1"),
    TileCase("Slaughterhouse", (1, 1), {0: (2, -1, 0, 0)},
             pre=((0, "Fast Food Restaurant", -1, 0), (1, "Fancy Restaurant", 1, 0)),
             notes="rep-2; every(#Restaurant) = 2: inc+2; Park rep+1"),
    TileCase("Waterfront Realty", (1, 1), {0: (0, 1, 0, 8)},
             pre=((0, "Convenience Store", 1, 0, "lake"), (0, "Freeway", 2, 1, "lake")),
             notes="Park rep+1; each adjacent lake pays $2 and the Realty adds $2 (R6.7)"),
    TileCase("Burg von Alspach", (1, 0), {0: (0, 3, 3, 0)},
             pre=((0, "Mobile Home Community", 2, 0),),
             notes="pop+3; adj Res: Suburbs, Mobile Home = rep+2; Park rep+1"),
    TileCase("Casino", (1, 0), {0: (0, -2, 0, 0)},
             notes="rep-3; redline_own has no current match; Park rep+1"),
    TileCase("Domestic Airport", (-1, 0), {0: (1, 2, 0, 0), 1: (1, 0, 0, 0)},
             pre=((1, "Municipal Airport", 1, 0),),
             notes="inc+1; adj Res: Suburbs rep-1; every(#Airport) = 2: rep+2; Park rep+1; "
                   "p1 Municipal Airport inc+1"),
    TileCase("Elementary School", (-1, 1), {0: (0, 0, 2, 0), 1: (0, 1, 0, 0)},
             pre=((0, "Mobile Home Community", 1, 0), (1, "University", 1, 0)),
             notes="rep+1; own(Res): Suburbs, Mobile Home = pop+2; Factory rep-1; "
                   "p1 University rep+1"),
    TileCase("Gas Station", (1, 0), {0: (1, 1, 2, 0)},
             pre=((0, "Mobile Home Community", 2, 1),),
             notes="inc+1; adj Res: Suburbs, Mobile Home = pop+2; Park rep+1"),
    TileCase("Hostel", (1, 1), {0: (0, -2, 2, 0)},
             pre=((0, "Convenience Store", 1, 0), (0, "Office Building", 2, 1)),
             notes="pop+2; adj Commercial: Store, Office = rep-2; Park rep+1; Factory rep-1"),
    TileCase("Housing Projects", (-1, 0), {0: (0, -5, 10, 0)},
             pre=((0, "Convenience Store", -1, 1),),
             notes="pop+10; adj Civic|Commercial|Res: Suburbs, Park, Store = rep-6, "
                   "clamped at -5 (1 -> -1 -> -3 -> -5); Park rep+1 -> -4"),
    TileCase("Movie Theater", (1, 0), {0: (3, 1, 0, 0)},
             pre=((0, "Mobile Home Community", 2, 0),),
             notes="inc+1; adj Res: Suburbs, Mobile Home = inc+2; Park rep+1"),
    TileCase("Museum", (1, 1), {0: (0, 2, 0, 2)},
             pre=((0, "Mint", 1, 0),),
             notes="rep+1; adj Civic: Park, Mint = rep+2; Factory rep-1; Mint own(Civic) $+2"),
    TileCase("Office of Bureaucracy", (1, 0), {0: (3, -2, 0, 0), 1: (1, 0, 0, 0)},
             pre=((0, "Museum", -1, 1), (1, "Business Supply Store", 1, 0)),
             notes="rep-2; own(Civic): Park, Museum, itself = inc+3; p1 Business Supply "
                   "Store inc+1 (an office)"),
    TileCase("Postal Service", (1, 1), {0: (2, -1, 0, 0)},
             pre=((0, "Convenience Store", 1, 0), (0, "Office Building", -1, 0)),
             notes="own(Commercial): Store, Office = inc+2; Factory rep-1"),
    TileCase("Power Station", (1, 0), {0: (2, -1, 0, 0)},
             pre=((0, "Landfill", 1, 1),),
             notes="own(Industrial): Factory, Landfill = inc+2; Landfill adj any type rep-1"),
    TileCase("Retirement Village", (-1, 1), {0: (0, 0, 5, 0), 1: (0, 0, 1, 0)},
             pre=((1, "Resort", 1, 0),),
             notes="pop+5; Park rep+1; Factory rep-1; p1 Resort every(Res) pop+1"),
    TileCase("Shipping Center", (1, 0), {0: (1, 1, 0, 8)},
             pre=((0, "Convenience Store", -1, 0), (1, "Office Building", 1, 0),
                  (1, "Boutique", 1, 1)),
             notes="inc+1; every(Commercial): itself, Store, p1 Office, p1 Boutique = $+8; "
                   "Park rep+1"),
    TileCase("Skyscraper", (1, 0), {0: (3, 1, 0, 0), 1: (-1, 0, 0, 0)},
             pre=((1, "Skyscraper", 1, 0),),
             notes="inc+3; Park rep+1; p1's older Skyscraper inc-1"),
    TileCase("Stadium", (1, 0), {0: (1, 4, 0, 0)},
             pre=((0, "Mobile Home Community", 2, 0),),
             notes="inc+1; adj Res: Suburbs, Mobile Home = rep+4; the Park ignores civic"),
    TileCase("Warehouse", (1, 1), {0: (4, 0, 0, 0)},
             pre=((0, "Convenience Store", 1, 0), (0, "Office Building", 2, 1)),
             notes="rep-1; adj Commercial: Store, Office = inc+4; Park rep+1"),
    TileCase("Apartments", (1, 0), {0: (0, 2, 9, 0)},
             pre=((0, "Convenience Store", 1, 1), (0, "Boutique", 2, 0)),
             notes="pop+5; adj Commercial: Store, Boutique = pop+4; Park rep+1; Boutique "
                   "adj Res rep+1"),
    TileCase("Bed & Breakfast", (1, 0), {0: (0, 1, 5, 0), 1: (0, 0, 1, 0)},
             pre=((0, "Mobile Home Community", -1, 1), (1, "Hotel", 1, 0)),
             notes="pop+2; own(Res): Suburbs, Mobile Home, itself = pop+3; Park rep+1; "
                   "p1 Hotel pop+1"),
    TileCase("Boutique", (1, 0), {0: (1, 3, 0, 0)},
             pre=((0, "Mobile Home Community", 2, 1),),
             notes="inc+1; adj Res: Suburbs, Mobile Home = rep+2; Park rep+1"),
    TileCase("Chip Fabrication Plant", (1, 1), {0: (2, 3, 0, 0)},
             pre=((0, "Convenience Store", -1, 0), (0, "Office Building", 1, 0)),
             notes="rep+2; own(Commercial): Store, Office = inc+2; Park rep+1"),
    TileCase("Condominium", (1, 0), {0: (0, 1, 8, 0)},
             pre=((0, "Convenience Store", 1, 1),),
             notes="pop+5; adj Commercial: Store pop+3; Park rep+1"),
    TileCase("High School", (-1, 1), {0: (0, 0, 6, 0), 1: (0, 1, 0, 0)},
             pre=((0, "Mobile Home Community", 1, 0), (1, "University", 1, 0)),
             notes="rep+1; own(Res): Suburbs, Mobile Home = pop+6; Factory rep-1; "
                   "p1 University rep+1"),
    TileCase("Hotel", (1, 0), {0: (1, 1, 3, 0)}, players=3,
             pre=((1, "Mobile Home Community", 1, 0),),
             notes="inc+1; others(Res): p1 Suburbs, p1 Mobile Home, p2 Suburbs = pop+3 "
                   "(its own Suburbs does not count); Park rep+1"),
    TileCase("International Airport", (1, 0), {0: (3, 4, 0, 0), 1: (1, 0, 0, 0)},
             pre=((0, "Domestic Airport", -1, 1), (1, "Municipal Airport", 1, 0)),
             notes="adj Res: Suburbs rep-1; every(#Airport) = 3: inc+3, rep+3; Park rep+1; "
                   "own Domestic Airport rep+1; p1 Municipal Airport inc+1"),
    TileCase("Local EPA Office", (1, 0), {0: (0, 1, 0, 6), 1: (1, 0, 0, 0)},
             pre=((1, "Landfill", 1, 0), (1, "Business Supply Store", 1, 1)),
             notes="rep+1; every(Industrial): 2 Factories, p1 Landfill = $+6; p1 Business "
                   "Supply Store inc+1 (an office)"),
    TileCase("Middle School", (1, 1), {0: (0, 1, 2, 0)},
             pre=((0, "University", -1, 0),),
             notes="rep+1; own(Res): Suburbs pop+2; Factory rep-1; University rep+1"),
    TileCase("New Car Dealership", (1, 0), {0: (5, 1, 0, 0), 1: (-2, 0, 0, 0)},
             pre=((1, "New Car Dealership", 1, 0),),
             notes="inc+5; Park rep+1; p1's older dealership inc-2"),
    TileCase("PR Firm", (1, 0), {0: (-2, 1, 0, 0)},
             notes="inc-2; redline_own has no current match; Park rep+1"),
    TileCase("Recycling Plant", (1, 1), {0: (0, 5, 0, 0)},
             pre=((0, "Landfill", 1, 2),),
             notes="rep+1; adj Industrial: Factory, Landfill = rep+4; Park rep+1; "
                   "Landfill rep-1"),
    TileCase("Resort", (1, 0), {0: (1, 1, 3, 0)},
             pre=((1, "Mobile Home Community", 1, 0),),
             notes="inc+1; every(Res): 2 Suburbs, p1 Mobile Home = pop+3; Park rep+1"),
    TileCase("University", (1, 0), {0: (2, 3, 0, 0)},
             pre=((0, "Elementary School", -1, 1), (1, "High School", 1, 0),
                  (1, "Middle School", 1, 1)),
             notes="inc+2; every(#School) = 3: rep+3; the Park ignores civic"),
]


def test_every_tile_of_tiles_csv_has_exactly_one_case():
    names = [case.name for case in CASES]
    assert len(names) == len(set(names)) == 50
    assert set(names) == set(COSTS)


def _values(game: Game, player: int) -> tuple[int, int, int, int]:
    data = game.player_state(player)
    return data["income"], data["reputation"], data["population"], data["money"]


def _steps_2_and_3(income: int, reputation: int, population: int, money: int):
    """R5.2 and R5.3 by hand; the cases keep population below the first red line (15)."""
    if income >= 0:
        money += income
    else:
        paid = min(money, -income)
        money -= paid
        population = max(0, population - (-income - paid))
    population += reputation
    if population < 0:
        money -= min(money, -population)
        population = 0
    assert population < 15, "a case must not cross a red line in step 3"
    return income, reputation, population, money


def _build(case: TileCase, slot: int) -> Game:
    game = Game(players=case.players, seed=1000 + slot, random_private_goals=True)
    for market_slot in range(7):
        set_market_tile(game, market_slot, None)
    for entry in case.pre:
        player, name, column, row = entry[:4]
        put_tile_without_effects(game, player, name, column, row, lake="lake" in entry[4:])
    set_player_values(game, 0, money=ACTIVE_MONEY)
    set_current_player(game, 0)
    return game


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_R6_R7_1_placing_each_tile(case):
    """R6.1-R6.8 and R7.1 for one tile: exact changes of every player in step 1, then the
    same turn through Game.apply (price paid first, R5.1a/b; steps 2 and 3)."""
    index = CASES.index(case)
    slot = index % 7
    basic = case.name in BASIC_NOTATION
    price = COSTS[case.name] + (0 if basic else PREMIUMS[slot])
    game = _build(case, slot)
    if basic:
        set_market_tile(game, 6, "Freeway")  # to be discarded for free (R5.1b)
    else:
        set_market_tile(game, slot, case.name)
    before = {p: _values(game, p) for p in range(case.players)}
    hand = {}
    for player in range(case.players):
        change = case.expected.get(player, (0, 0, 0, 0))
        hand[player] = tuple(b + d for b, d in zip(before[player], change))

    # Step 1 alone (R7.1 steps 2-7; the price is not part of resolve_placement).
    twin = game.copy()
    log = ev.new_log(256)
    column, row = case.cell
    resolve_placement(twin.state, TILES.table, log, 0, cell_index(column, row),
                      TILES.kind(case.name), False, True)
    assert log[0, 1] == 0, "event log overflow"
    for player in range(case.players):
        assert _values(twin, player) == hand[player], f"player {player} after step 1"

    # The whole turn.
    if basic:
        game.apply(f"basic {BASIC_NOTATION[case.name]} @ {column},{row}")
        assert game.pending_decision == "discard"
        game.apply("discard 6")
    else:
        game.apply(f"buy {slot} @ {column},{row}")
    income, reputation, population, money = hand[0]
    assert _values(game, 0) == _steps_2_and_3(income, reputation, population, money - price)
    for player in range(1, case.players):
        assert _values(game, player) == hand[player]
    placed = [t for t in game.player_state(0)["borough"] if (t["col"], t["row"]) == case.cell]
    assert placed == [{"col": column, "row": row, "tile": case.name, "lake": False,
                       "invested": False}]
