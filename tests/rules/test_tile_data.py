"""The data loader (tile_data.py): every row of tiles.csv and goals.csv, read and checked.

The expected values below are transcribed by hand from the text of tiles.csv and
goals.csv (RULES.md R1.4, R3.2, R6, R8.2), not read back from the engine.
"""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np
import pytest

from suburbia_env.engine import constants as c
from suburbia_env.engine import tile_table as tt
from suburbia_env.engine.tile_data import (GOALS, TILES, DataFileError, parse_goals,
                                           parse_tiles)

# name: (type, icon, cost, stack, copies, immediate terms, conditional terms), from tiles.csv.
# A conditional term is (scope, targets, attribute, amount); "#x" targets are icons.
EXPECTED_TILES = {
    "Community Park": ("civic", None, 4, "basic", 8, [("inc", -1)],
                       [("adjacent", {"commercial", "industrial", "residential"}, "rep", 1)]),
    "Heavy Factory": ("industrial", None, 3, "basic", 8, [("inc", 1)],
                      [("adjacent", {"civic", "residential"}, "rep", -1)]),
    "Suburbs": ("residential", None, 3, "basic", 8, [("pop", 2)], []),
    "Business Supply Store": ("commercial", None, 8, "A", 2, [("inc", 1)],
                              [("every", {"#office"}, "inc", 1)]),
    "Convenience Store": ("commercial", None, 6, "A", 2, [("inc", 1)], []),
    "Fancy Restaurant": ("commercial", "restaurant", 9, "A", 3, [("inc", 3)],
                         [("after_every", {"#restaurant"}, "inc", -1)]),
    "Farm": ("industrial", None, 9, "A", 2, [("rep", -1)], [("every", {"#restaurant"}, "inc", 1)]),
    "Fast Food Restaurant": ("commercial", "restaurant", 7, "A", 2, [("inc", 1)],
                             [("adjacent", {"residential"}, "pop", 3)]),
    "Freeway": ("industrial", None, 5, "A", 2, [],
                [("adjacent", {"commercial"}, "inc", 1), ("adjacent", {"residential"}, "rep", -1)]),
    "Homeowners Association": ("residential", None, 6, "A", 2, [("pop", 1)],
                               [("every", {"residential"}, "$", 2)]),
    "Landfill": ("industrial", None, 4, "A", 2, [("inc", 2)],
                 [("adjacent", {"civic", "commercial", "industrial", "residential"}, "rep", -1)]),
    "Mint": ("civic", None, 15, "A", 2, [("inc", 3)], [("own", {"civic"}, "$", 2)]),
    "Mobile Home Community": ("residential", None, 4, "A", 2, [("pop", 6)], []),
    "Municipal Airport": ("industrial", "airport", 6, "A", 2, [],
                          [("adjacent", {"residential"}, "rep", -1),
                           ("every", {"#airport"}, "inc", 1)]),
    "Office Building": ("commercial", "office", 9, "A", 3, [("inc", 1)],
                        [("adjacent", {"commercial"}, "inc", 1)]),
    "Parking Lot": ("commercial", None, 12, "A", 2, [("inc", 1)],
                    [("adjacent", {"civic", "commercial"}, "inc", 1)]),
    "Slaughterhouse": ("industrial", None, 5, "A", 2, [("rep", -2)],
                       [("every", {"#restaurant"}, "inc", 1)]),
    "Waterfront Realty": ("commercial", None, 6, "A", 2, [], [("lake_adj_own", set(), "$", 2)]),
    "Burg von Alspach": ("residential", None, 12, "B", 2, [("pop", 3)],
                         [("adjacent", {"residential"}, "rep", 1)]),
    "Casino": ("commercial", None, 22, "B", 2, [("rep", -3)], [("redline_own", set(), "inc", 1)]),
    "Domestic Airport": ("industrial", "airport", 11, "B", 3, [("inc", 1)],
                         [("adjacent", {"residential"}, "rep", -1),
                          ("every", {"#airport"}, "rep", 1)]),
    "Elementary School": ("civic", "school", 5, "B", 3, [("rep", 1)],
                          [("own", {"residential"}, "pop", 1)]),
    "Gas Station": ("commercial", None, 7, "B", 2, [("inc", 1)],
                    [("adjacent", {"residential"}, "pop", 1)]),
    "Hostel": ("residential", None, 0, "B", 2, [("pop", 2)],
               [("adjacent", {"commercial"}, "rep", -1)]),
    "Housing Projects": ("residential", None, 8, "B", 2, [("pop", 10)],
                         [("adjacent", {"civic", "commercial", "residential"}, "rep", -2)]),
    "Movie Theater": ("commercial", None, 10, "B", 2, [("inc", 1)],
                      [("adjacent", {"residential"}, "inc", 1)]),
    "Museum": ("civic", None, 8, "B", 2, [("rep", 1)], [("adjacent", {"civic"}, "rep", 1)]),
    "Office of Bureaucracy": ("civic", "office", 9, "B", 2, [("rep", -2)],
                              [("own", {"civic"}, "inc", 1)]),
    "Postal Service": ("civic", None, 12, "B", 2, [], [("own", {"commercial"}, "inc", 1)]),
    "Power Station": ("civic", None, 11, "B", 2, [], [("own", {"industrial"}, "inc", 1)]),
    "Retirement Village": ("residential", None, 8, "B", 2, [("pop", 5)], []),
    "Shipping Center": ("commercial", None, 16, "B", 2, [("inc", 1)],
                        [("every", {"commercial"}, "$", 2)]),
    "Skyscraper": ("commercial", "skyscraper", 11, "B", 2, [("inc", 3)],
                   [("after_every", {"#skyscraper"}, "inc", -1)]),
    "Stadium": ("civic", None, 16, "B", 2, [("inc", 1)], [("adjacent", {"residential"}, "rep", 2)]),
    "Warehouse": ("industrial", None, 13, "B", 2, [("rep", -1)],
                  [("adjacent", {"commercial"}, "inc", 2)]),
    "Apartments": ("residential", None, 12, "C", 2, [("pop", 5)],
                   [("adjacent", {"commercial"}, "pop", 2)]),
    "Bed & Breakfast": ("residential", None, 9, "C", 2, [("pop", 2)],
                        [("own", {"residential"}, "pop", 1)]),
    "Boutique": ("commercial", None, 9, "C", 2, [("inc", 1)],
                 [("adjacent", {"residential"}, "rep", 1)]),
    "Chip Fabrication Plant": ("industrial", None, 18, "C", 2, [("rep", 2)],
                               [("own", {"commercial"}, "inc", 1)]),
    "Condominium": ("residential", None, 14, "C", 2, [("pop", 5)],
                    [("adjacent", {"commercial"}, "pop", 3)]),
    "High School": ("civic", "school", 18, "C", 3, [("rep", 1)],
                    [("own", {"residential"}, "pop", 3)]),
    "Hotel": ("commercial", None, 13, "C", 2, [("inc", 1)], [("others", {"residential"}, "pop", 1)]),
    "International Airport": ("industrial", "airport", 18, "C", 2, [],
                              [("adjacent", {"residential"}, "rep", -1),
                               ("every", {"#airport"}, "inc", 1),
                               ("every", {"#airport"}, "rep", 1)]),
    "Local EPA Office": ("civic", "office", 12, "C", 2, [("rep", 1)],
                         [("every", {"industrial"}, "$", 2)]),
    "Middle School": ("civic", "school", 10, "C", 3, [("rep", 1)],
                      [("own", {"residential"}, "pop", 2)]),
    "New Car Dealership": ("commercial", "car_dealership", 12, "C", 2, [("inc", 5)],
                           [("after_every", {"#car_dealership"}, "inc", -2)]),
    "PR Firm": ("commercial", None, 20, "C", 2, [("inc", -2)], [("redline_own", set(), "rep", 1)]),
    "Recycling Plant": ("industrial", None, 17, "C", 2, [("rep", 1)],
                        [("adjacent", {"industrial"}, "rep", 2)]),
    "Resort": ("commercial", None, 16, "C", 2, [("inc", 1)], [("every", {"residential"}, "pop", 1)]),
    "University": ("civic", None, 15, "C", 2, [("inc", 2)], [("every", {"#school"}, "rep", 1)]),
}

# name: (criterion, feature or None, direction, public bonus, private bonus, excluded with Dale)
EXPECTED_GOALS = {
    "Aquatic Engineer": (c.CRITERION_LAKE_COUNT, None, "most", 20, 20, True),
    "Air Traffic Controller": (c.CRITERION_FEATURE_COUNT, "#airport", "most", 10, 10, False),
    "Aquaphobian": (c.CRITERION_LAKE_COUNT, None, "fewest", 20, 20, True),
    "Billionaire": (c.CRITERION_MONEY, None, "most", 10, 10, False),
    "Builder": (c.CRITERION_FEATURE_COUNT, "residential", "most", 15, 15, False),
    "Capitalist": (c.CRITERION_FEATURE_COUNT, "residential", "fewest", 20, 20, False),
    "Civil Engineer": (c.CRITERION_FEATURE_COUNT, "civic", "most", 15, 15, False),
    "Developer": (c.CRITERION_FEATURE_COUNT, "commercial", "most", 10, 10, False),
    "Employer": (c.CRITERION_MARKERS_PLACED, None, "fewest", 15, 15, True),
    "Environmentalist": (c.CRITERION_FEATURE_COUNT, "industrial", "fewest", 15, 15, False),
    "Harbormaster": (c.CRITERION_LARGEST_LAKE_GROUP, None, "most", 10, 10, True),
    "Industrialist": (c.CRITERION_FEATURE_COUNT, "industrial", "most", 15, 15, False),
    "Investor": (c.CRITERION_INCOME, None, "most", 15, 15, False),
    "Libertarian": (c.CRITERION_FEATURE_COUNT, "civic", "fewest", 15, 15, False),
    "Luminary": (c.CRITERION_REPUTATION, None, "most", 10, 10, False),
    "Miscreant": (c.CRITERION_REPUTATION, None, "fewest", 20, 20, False),
    "Miser": (c.CRITERION_INCOME, None, "fewest", 15, 15, False),
    "Public Official": (c.CRITERION_LARGEST_FEATURE_GROUP, "civic", "most", 15, 15, False),
    "Socialist": (c.CRITERION_FEATURE_COUNT, "commercial", "fewest", 10, 10, False),
    "Spendthrift": (c.CRITERION_MONEY, None, "fewest", 10, 10, False),
}


def _csv_rows(filename: str) -> list[dict[str, str]]:
    """The rows of a packaged data file, read here independently of the loader."""
    text = resources.files("suburbia_env.engine").joinpath("data", filename).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


def _feature_bit(name: str) -> int:
    if name.startswith("#"):
        return 1 << (c.NUM_TYPES + c.ICON_NAMES.index(name[1:]))
    return 1 << c.TYPE_NAMES.index(name)


def _mask(names) -> int:
    mask = 0
    for name in names:
        mask |= _feature_bit(name)
    return mask


def _decoded_terms(table: np.ndarray, kind: int):
    """(immediate, conditional) terms of a table row, in the shape of EXPECTED_TILES."""
    immediate = [(c.ATTRIBUTE_NAMES[tt.immediate_attribute(table, kind, i)],
                  tt.immediate_amount(table, kind, i))
                 for i in range(tt.immediate_term_count(table, kind))]
    conditional = []
    for i in range(tt.conditional_term_count(table, kind)):
        target = tt.conditional_target(table, kind, i)
        names = {name for name in list(c.TYPE_NAMES) + ["#" + icon for icon in c.ICON_NAMES]
                 if target & _feature_bit(name)}
        conditional.append((c.SCOPE_NAMES[tt.conditional_scope(table, kind, i)], names,
                            c.ATTRIBUTE_NAMES[tt.conditional_attribute(table, kind, i)],
                            tt.conditional_amount(table, kind, i)))
    return immediate, conditional


# Every row is read --------------------------------------------------------------------

def test_R6_loader_reads_every_tile_row_in_file_order():
    """50 kinds from tiles.csv (3 basic + 47 lettered), then Lake and One More Round."""
    names = [row["name"] for row in _csv_rows("tiles.csv")]
    assert len(names) == 50
    assert list(TILES.names) == names + ["Lake", "One More Round"]
    assert TILES.num_kinds == 52 == TILES.table.shape[0]
    assert TILES.lake == 50 and TILES.one_more_round == 51
    assert set(EXPECTED_TILES) == set(names)


def test_R3_2_physical_tile_counts_per_stack():
    """124 physical tiles: 24 basic (3 x 8), A 32, B 36, C 32; One More Round once in C."""
    printed = range(50)
    stacks = [tt.tile_stack(TILES.table, kind) for kind in printed]
    copies = [tt.tile_copies(TILES.table, kind) for kind in printed]
    totals = {name: sum(n for n, stack in zip(copies, stacks) if stack == index)
              for index, name in enumerate(c.STACK_NAMES)}
    assert totals == {"basic": 24, "A": 32, "B": 36, "C": 32}
    assert sum(copies) == 124
    kinds = {name: stacks.count(index) for index, name in enumerate(c.STACK_NAMES)}
    assert kinds == {"basic": 3, "A": 15, "B": 17, "C": 15}
    assert tt.tile_copies(TILES.table, TILES.one_more_round) == 1
    assert tt.tile_stack(TILES.table, TILES.one_more_round) == c.STACK_C


def test_R3_5_basic_kinds_in_notation_order():
    assert [TILES.names[k] for k in TILES.basic_kinds] == ["Suburbs", "Community Park",
                                                          "Heavy Factory"]


@pytest.mark.parametrize("name", sorted(EXPECTED_TILES))
def test_R6_1_R6_2_every_tile_row_is_encoded_as_printed(name):
    """Type, icon, cost, stack, copies and every immediate and conditional term (R6)."""
    tile_type, icon, cost, stack, copies, immediate, conditional = EXPECTED_TILES[name]
    kind = TILES.kind(name)
    table = TILES.table
    assert c.TYPE_NAMES[tt.tile_type(table, kind)] == tile_type
    if icon is None:
        assert tt.tile_icon(table, kind) == c.NO_ICON
    else:
        assert c.ICON_NAMES[tt.tile_icon(table, kind)] == icon
    assert tt.tile_features(table, kind) == _mask([tile_type] + ([f"#{icon}"] if icon else []))
    assert tt.tile_cost(table, kind) == cost
    assert c.STACK_NAMES[tt.tile_stack(table, kind)] == stack
    assert tt.tile_copies(table, kind) == copies
    assert _decoded_terms(TILES.table, kind) == (immediate, conditional)
    reacts_to = 0
    for _, targets, _, _ in conditional:
        reacts_to |= _mask(targets)
    assert tt.reacts_to(table, kind) == reacts_to
    assert not tt.can_lower_population(table, kind)  # no printed tile lowers population


def test_R6_7_lake_kind_is_adjacent_any_type_pays_2():
    """The synthetic lake: no type, no icon, conditional adjacent(any type):$+2 (R6.7)."""
    table, lake = TILES.table, TILES.lake
    assert tt.tile_type(table, lake) == c.NO_TYPE and tt.tile_icon(table, lake) == c.NO_ICON
    assert tt.tile_features(table, lake) == 0  # lakes never count for types or icons
    assert _decoded_terms(TILES.table, TILES.lake) == (
        [], [("adjacent", {"residential", "commercial", "civic", "industrial"}, "$", 2)])
    assert tt.tile_copies(table, lake) == 0 and tt.tile_cost(table, lake) == 0


def test_R4_3_one_more_round_kind_has_no_effects():
    assert _decoded_terms(TILES.table, TILES.one_more_round) == ([], [])
    assert tt.tile_features(TILES.table, TILES.one_more_round) == 0


def test_loader_keeps_special_rules_and_confidence_text():
    mint = TILES.kind("Mint")
    assert TILES.special_rules[mint] == "own(Civic) counts the Mint itself."
    assert TILES.confidence[TILES.kind("Homeowners Association")] == "medium"
    assert TILES.confidence[TILES.kind("Domestic Airport")] == "medium"
    assert TILES.confidence[TILES.kind("Casino")] == "high"


def test_kind_lookup_is_case_insensitive_and_names_unknown_tiles():
    assert TILES.kind("  new car DEALERSHIP ") == TILES.kind("New Car Dealership")
    with pytest.raises(KeyError, match="Skate Park"):
        TILES.kind("Skate Park")


def test_table_is_read_only():
    with pytest.raises(ValueError):
        TILES.table[0] = 1


# Malformed tile rows ----------------------------------------------------------------

def _valid_rows() -> list[dict[str, str]]:
    """The three basic tiles (the loader requires them) and one lettered tile."""
    fields = ("name", "stack", "copies", "type", "icon", "cost", "immediate", "conditional",
              "special_rule", "confidence")
    rows = [
        ("Community Park", "basic", "8", "civic", "", "4", "inc-1",
         "adjacent(Commercial|Industrial|Residential):rep+1", "", "high"),
        ("Heavy Factory", "basic", "8", "industrial", "", "3", "inc+1",
         "adjacent(Civic|Residential):rep-1", "", "high"),
        ("Suburbs", "basic", "8", "residential", "", "3", "pop+2", "", "", "high"),
        ("Test Tower", "B", "2", "commercial", "office", "10", "inc+1",
         "adjacent(Residential):rep+1; every(#Office):$+2", "", "high"),
    ]
    return [dict(zip(fields, row)) for row in rows]


def _with(**changes) -> list[dict[str, str]]:
    rows = _valid_rows()
    rows[3].update(changes)
    return rows


def test_parse_tiles_accepts_the_hand_made_rows():
    data = parse_tiles(_valid_rows())
    assert data.names == ("Community Park", "Heavy Factory", "Suburbs", "Test Tower", "Lake",
                          "One More Round")
    assert _decoded_terms(data.table, 3) == (
        [("inc", 1)], [("adjacent", {"residential"}, "rep", 1), ("every", {"#office"}, "$", 2)])


def test_parse_tiles_accepts_spaces_and_four_terms():
    rows = _with(immediate="inc+1 rep-2 pop+3 $+4",
                 conditional=" own( Civic | Commercial ) : inc+1 ;adjacent(#School):pop+2;"
                             "after_every(#Skyscraper):inc-1; others(Residential):$+3")
    data = parse_tiles(rows)
    assert _decoded_terms(data.table, 3) == (
        [("inc", 1), ("rep", -2), ("pop", 3), ("$", 4)],
        [("own", {"civic", "commercial"}, "inc", 1), ("adjacent", {"#school"}, "pop", 2),
         ("after_every", {"#skyscraper"}, "inc", -1), ("others", {"residential"}, "$", 3)])


@pytest.mark.parametrize("changes, message", [
    ({"conditional": "nearby(Residential):rep+1"}, r"conditional: unknown scope 'nearby'"),
    ({"conditional": "adjacent(Residental):rep+1"}, r"conditional: unknown target 'Residental'"),
    ({"conditional": "every(#Stadium):inc+1"}, r"conditional: unknown target '#Stadium'"),
    ({"conditional": "adjacent(Residential|#Office):rep+1"},
     r"conditional: a target mixes types and icons"),
    ({"conditional": "adjacent(Residential):rep+x"}, r"conditional: cannot read effect 'rep\+x'"),
    ({"conditional": "adjacent(Residential):happiness+1"},
     r"conditional: cannot read effect 'happiness\+1'"),
    ({"conditional": "adjacent(Residential)rep+1"}, r"conditional: cannot read term"),
    ({"conditional": "adjacent:rep+1"}, r"conditional: scope 'adjacent' with wrong targets"),
    ({"conditional": "redline_own(Residential):inc+1"},
     r"conditional: scope 'redline_own' with wrong targets"),
    ({"conditional": "redline_own:pop+1"}, r"red-line reaction cannot move population"),
    ({"conditional": "lake_adj_own:inc+1"}, r"lake_adj_own adds money only"),
    ({"conditional": "own(Civic):inc+1; own(Civic):inc+1; own(Civic):inc+1; own(Civic):inc+1;"
                     " own(Civic):inc+1"}, r"more than 4 conditional terms"),
    ({"immediate": "inc+1 inc+1 inc+1 inc+1 inc+1"}, r"more than 4 immediate terms"),
    ({"immediate": "inc+"}, r"immediate: cannot read effect 'inc\+'"),
    ({"immediate": "income+2"}, r"immediate: cannot read effect 'income\+2'"),
    ({"immediate": "inc2"}, r"immediate: cannot read effect 'inc2'"),
    ({"type": "park"}, r"unknown type 'park'"),
    ({"type": ""}, r"unknown type ''"),
    ({"icon": "stadium"}, r"unknown icon 'stadium'"),
    ({"stack": "D"}, r"unknown stack 'D'"),
    ({"cost": "ten"}, r"cost and copies must be whole numbers"),
    ({"copies": "2.5"}, r"cost and copies must be whole numbers"),
])
def test_parse_tiles_rejects_malformed_row_naming_row_and_column(changes, message):
    """DataFileError names the file, the row number (header = row 1), the tile and the
    column or problem; nothing the R6 notation cannot express is accepted."""
    with pytest.raises(DataFileError, match=r"^tiles\.csv row 5 \(Test Tower\)") as error:
        parse_tiles(_with(**changes))
    assert error.match(message)


def test_parse_tiles_requires_the_basic_tiles():
    rows = [row for row in _valid_rows() if row["name"] != "Heavy Factory"]
    with pytest.raises(DataFileError, match="no basic tile 'Heavy Factory'"):
        parse_tiles(rows)


def test_data_file_error_is_a_value_error():
    assert issubclass(DataFileError, ValueError)


# Goals ------------------------------------------------------------------------------

def test_R8_2_loader_reads_every_goal_row():
    names = [row["name"] for row in _csv_rows("goals.csv")]
    assert len(names) == 20
    assert list(GOALS.names) == names
    assert set(EXPECTED_GOALS) == set(names)
    assert GOALS.table.shape == (20, tt.NUM_GOAL_COLUMNS)


@pytest.mark.parametrize("name", sorted(EXPECTED_GOALS))
def test_R8_2_every_goal_criterion_is_parsed(name):
    criterion, feature, direction, public, private, excluded = EXPECTED_GOALS[name]
    goals, goal = GOALS.table, GOALS.goal(name)
    assert tt.goal_criterion(goals, goal) == criterion
    assert tt.goal_features(goals, goal) == (_feature_bit(feature) if feature else 0)
    assert tt.goal_direction(goals, goal) == (c.GOAL_MOST if direction == "most"
                                              else c.GOAL_FEWEST)
    assert tt.public_goal_bonus(goals, goal) == public
    assert tt.private_goal_bonus(goals, goal) == private
    # R9.2: goals about lakes or investment markers are redrawn in a game against Dale.
    assert tt.goal_excluded_with_dale(goals, goal) == excluded


def test_goal_criteria_text_and_lookup():
    assert GOALS.criteria[GOALS.goal("harbormaster")] == \
        "most size of largest group of connected lakes"
    with pytest.raises(KeyError, match="Mayor"):
        GOALS.goal("Mayor")


def _goal_row(**changes) -> list[dict[str, str]]:
    row = {"name": "Test Goal", "criterion": "most", "counts": "Civic tiles in own borough",
           "population_bonus_public": "10", "population_bonus_private": "12",
           "confidence": "low"}
    row.update(changes)
    return [row]


def _goal_values(goals: np.ndarray, goal: int) -> tuple:
    return (tt.goal_criterion(goals, goal), tt.goal_features(goals, goal),
            tt.goal_direction(goals, goal), tt.public_goal_bonus(goals, goal),
            tt.private_goal_bonus(goals, goal), tt.goal_excluded_with_dale(goals, goal))


def test_parse_goals_accepts_hand_made_rows():
    data = parse_goals(_goal_row(counts="School-icon tiles in own borough", criterion="fewest"))
    assert _goal_values(data.table, 0) == (c.CRITERION_FEATURE_COUNT, _feature_bit("#school"),
                                           c.GOAL_FEWEST, 10, 12, False)
    data = parse_goals(_goal_row(counts="size of largest group of connected Industrial tiles"))
    assert _goal_values(data.table, 0) == (c.CRITERION_LARGEST_FEATURE_GROUP,
                                           _feature_bit("industrial"), c.GOAL_MOST, 10, 12, False)


@pytest.mark.parametrize("changes, message", [
    ({"counts": "parks in own borough"}, r"cannot read criterion 'parks in own borough'"),
    ({"counts": "Stadium tiles in own borough"}, r"unknown tile feature 'stadium'"),
    ({"counts": "size of largest group of connected Farm tiles"}, r"unknown tile feature 'farm'"),
    ({"criterion": "least"}, r"criterion must be most or fewest, not 'least'"),
    ({"population_bonus_public": "many"}, r"bonuses must be whole numbers"),
    ({"population_bonus_private": ""}, r"bonuses must be whole numbers"),
])
def test_parse_goals_rejects_malformed_rows_naming_the_row(changes, message):
    with pytest.raises(DataFileError, match=r"^goals\.csv row 2 \(Test Goal\)") as error:
        parse_goals(_goal_row(**changes))
    assert error.match(message)
