"""Dale's cell choice (R9.2): the plain rule (dale_reference.py) on hand-built positions,
and the accelerated choice (dale.dale_choose_cell) equal to it on positions of seeded
games, in both editions and with levels and population near their limits."""

import numpy as np
import pytest

from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.dale import dale_choose_cell
from suburbia_env.engine.dale_reference import reference_cell_choice
from suburbia_env.engine.hex_grid import cell_coordinates
from suburbia_env.positions import put_tile_without_effects, set_market_tile
from suburbia_env.engine.state_layout import lake_kind
from suburbia_env.engine.tile_data import TILES

from probe_positions import probe_positions
from rules_builders import fill_borough, kind_of, new_game

DALE = 1


def _dale_borough(seed, tiles):
    """Dale's borough of a new Dale game with `tiles` (name, column, row) added, taken
    from the box after the market went back to it."""
    game = new_game(players=1, mode="dale", seed=seed)
    for slot in range(c.NUM_SLOTS):
        set_market_tile(game, slot, None)
    for name, column, row in tiles:
        put_tile_without_effects(game, DALE, name, column, row)
    return game


@pytest.mark.parametrize("tiles, kind, expected", [
    # Office Building (inc+1, adjacent commercial inc+1): income 2 next to the
    # Convenience Store, income 1 + reputation 1 next to the Park; the tie goes to the
    # reputation gain, then to row 0: (1,0).
    ([("Suburbs", -1, 0), ("Convenience Store", -2, 0)], "Office Building", (1, 0)),
    # Touching both Convenience Stores gains 3; (1,2) comes before (0,4).
    ([("Convenience Store", 0, 3), ("Convenience Store", 1, 3)], "Office Building", (1, 2)),
    # A Convenience Store gains income 1 everywhere, reputation 1 next to the Park: four
    # cells tie in full and the first in row-major order wins.
    ([], "Convenience Store", (-1, 0)),
], ids=["reputation breaks a tie", "largest gain", "row-major order"])
def test_reference_cell_choice_follows_r9_2(tiles, kind, expected):
    game = _dale_borough(104, tiles)
    before = game.state.copy()
    cell = reference_cell_choice(game.state, TILES.table, DALE, kind_of(kind))
    assert cell_coordinates(cell) == expected
    assert (game.state == before).all()


def test_reference_cell_choice_without_a_legal_cell_is_minus_one():
    game = _dale_borough(104, [])
    fill_borough(game, DALE)
    assert reference_cell_choice(game.state, TILES.table, DALE, kind_of("Suburbs")) == -1


def _compare_with_reference(positions):
    """At every position, for every seat and every market tile (and the lake): Dale's cell
    choice against the plain rule. Returns (checked, mismatches, changed); `changed`
    counts choices after which the state differed (the trials run in place)."""
    log = ev.new_log(0)
    checked = mismatches = changed = 0
    for state in positions:
        kinds = [kind for kind in state[s.MARKET:s.MARKET + c.NUM_SLOTS] if kind >= 0]
        for player in range(state[s.NUM_PLAYERS]):
            for kind in kinds + [lake_kind(TILES.table)]:
                before = state.copy()
                cell = dale_choose_cell(state, TILES.table, log, player, kind)
                changed += not np.array_equal(state, before)
                mismatches += cell != reference_cell_choice(state, TILES.table, player, kind)
                checked += 1
    return checked, mismatches, changed


@pytest.mark.slow
@pytest.mark.parametrize("seats, mode, edition, games, minimum", [
    (2, c.MODE_STANDARD, c.EDITION_SECOND, 40, 20_000),
    (4, c.MODE_STANDARD, c.EDITION_FIRST, 20, 40_000),
    (1, c.MODE_SOLITARY, c.EDITION_SECOND, 40, 8_000),
    (2, c.MODE_DALE, c.EDITION_SECOND, 40, 8_000),
    (2, c.MODE_DALE, c.EDITION_FIRST, 40, 8_000),
], ids=["2p 2nd", "4p 1st", "solitary 2nd", "dale 2nd", "dale 1st"])
def test_dale_cell_choice_equals_the_plain_rule_r9_2(seats, mode, edition, games, minimum):
    """dale.py skips cells that resolve like an earlier one, takes gains from sums and
    prunes by bounds: none of it changes the cell (R9.2), for any seat or market tile."""
    positions = probe_positions(seats, mode, edition, 77 + seats + mode, games, False)
    checked, mismatches, changed = _compare_with_reference(positions)
    assert checked > minimum
    assert mismatches == 0, f"{mismatches} of {checked} choices differ"
    assert changed == 0, f"{changed} choices left the state changed"


@pytest.mark.slow
@pytest.mark.parametrize("seats, mode, edition, games, minimum", [
    (4, c.MODE_STANDARD, c.EDITION_SECOND, 15, 20_000),
    (1, c.MODE_SOLITARY, c.EDITION_FIRST, 30, 8_000),
    (2, c.MODE_DALE, c.EDITION_SECOND, 30, 5_000),
    (2, c.MODE_DALE, c.EDITION_FIRST, 30, 5_000),
], ids=["4p 2nd", "solitary 1st", "dale 2nd", "dale 1st"])
def test_dale_cell_choice_equals_the_plain_rule_near_clamps_and_red_lines_r9_2(
        seats, mode, edition, games, minimum):
    """Every seat's income and reputation within 3 of -5 or 15 and population within 3 of
    a red line (R1.2, R8.1; penalty 2 in Solitary, R9.1): where the order of the
    adjustments decides, and Dale's trials are most often resolved or left out because
    their bounds cannot win (dale.CANNOT_WIN)."""
    positions = probe_positions(seats, mode, edition, 95 + seats + mode, games, True)
    checked, mismatches, changed = _compare_with_reference(positions)
    assert checked > minimum
    assert mismatches == 0, f"{mismatches} of {checked} choices differ"
    assert changed == 0, f"{changed} choices left the state changed"
