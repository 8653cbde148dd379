"""Resolving a placement or an investment: effects, clamps and red lines (R6, R7, R8.1).

Every change of a level, population or money made by a tile goes through `adjust`, one
adjustment at a time (R7.2), so clamping (R1.2, adjustments.py) and red lines (R8.1,
red_lines.py) apply mid-resolution.
The last two rows of the tile table are the lake and One More Round (tile_data.py).
"""

import numpy as np

from . import constants as c
from . import event_log as ev
from . import state_layout as s
from .adjustments import change_level, effective_kind, trigger_adjustments
from .hex_grid import NEIGHBOUR_BITS, NEIGHBOURS
from .red_lines import cross_red_lines
from .refcount_free import njit_without_refcounts
from .tile_table import (conditional_amount, conditional_attribute, conditional_scope,
                         conditional_target, conditional_term_count, immediate_amount,
                         immediate_attribute, immediate_term_count, reacts_to, tile_features)

# Flags of `resolve_placement` as numpy bools: a bare True or False has a literal type of
# its own, for which numba would compile the whole resolution once more (more machine
# code to load at every step).
FACE_UP = np.bool_(False)  # as_lake: the tile is placed face up
ALL_BOROUGHS = np.bool_(True)  # other_boroughs: step 7 included
OWN_BOROUGH_ONLY = np.bool_(False)  # other_boroughs: step 7 left out (Dale's trials)


@njit_without_refcounts
def copy_state(destination, source):
    """destination[:] = source as an explicit loop, several times faster in numba than a
    slice assignment (which goes through a temporary); used on hot paths."""
    for index in range(source.shape[0]):
        destination[index] = source[index]


@njit_without_refcounts
def are_neighbours(first, second):
    return (NEIGHBOUR_BITS[first, second >> 6] >> (second & 63)) & 1 != 0


@njit_without_refcounts
def term_reacts(scope, same_borough, adjacent):
    """Whether an existing tile's term whose target the new tile matches fires, by its
    scope (R7.1 steps 4, 5, 7): adjacent ones next to it in the same borough, own ones in
    the same borough, others ones in another borough, every and after_every ones in any
    borough (the new tile is the newest of all); redline_own and lake_adj_own never."""
    if scope == c.SCOPE_ADJACENT:
        return adjacent
    if scope == c.SCOPE_OWN:
        return same_borough
    if scope == c.SCOPE_OTHERS:
        return not same_borough
    return scope == c.SCOPE_EVERY or scope == c.SCOPE_AFTER_EVERY


@njit_without_refcounts
def adjust(state, tiles, log, player, attribute, amount, source_player, source_cell,
           source_kind):
    """Apply one adjustment to a player, with clamps and red lines (R1.2, R1.3, R8.1)."""
    if attribute == c.ATTR_INCOME or attribute == c.ATTR_REPUTATION:
        value = change_level(state, player, attribute, amount)
    elif attribute == c.ATTR_MONEY:
        value = max(0, s.attribute_value(state, player, c.ATTR_MONEY) + amount)
        s.set_attribute_value(state, player, c.ATTR_MONEY, value)
    else:
        old = s.attribute_value(state, player, c.ATTR_POPULATION)
        value = max(0, old + amount)
        s.set_attribute_value(state, player, c.ATTR_POPULATION, value)
        ev.record(log, ev.EVENT_EFFECT, player, attribute, amount, value, source_player,
                  source_cell, source_kind)
        cross_red_lines(state, tiles, log, player, old, value)
        return
    ev.record(log, ev.EVENT_EFFECT, player, attribute, amount, value, source_player,
              source_cell, source_kind)


@njit_without_refcounts
def pay(state, player, price):
    s.add_money(state, player, -price)


@njit_without_refcounts
def _lake_payment_bonus(state, tiles, log, owner):
    """Tiles with `lake_adj_own` add to a lake payment of their owner, oldest first (R6.7)."""
    for position in range(s.tile_count(state, owner)):
        cell = s.placed_cell(state, owner, position)
        kind = effective_kind(state, tiles, owner, cell)
        times = trigger_adjustments(s.is_invested(state, owner, cell))
        for term in range(conditional_term_count(tiles, kind)):
            if conditional_scope(tiles, kind, term) == c.SCOPE_LAKE_ADJACENT_OWN:
                adjust(state, tiles, log, owner, c.ATTR_MONEY,
                       times * conditional_amount(tiles, kind, term), owner, cell, kind)


@njit_without_refcounts
def waiting_lake_payments(state, player):
    """The $2 lake payments (R6.7) still open to a player: one per lake and empty
    neighbouring cell of its borough, two for an invested lake; what the lakes would pay
    if a non-lake tile went on each of those cells (Waterfront Realty left out)."""
    payments = 0
    for position in range(s.tile_count(state, player)):
        cell = s.placed_cell(state, player, position)
        if not s.is_lake(state, player, cell):
            continue
        open_cells = 0
        for neighbour in NEIGHBOURS[cell]:
            if neighbour >= 0 and s.cell_kind(state, player, neighbour) < 0:
                open_cells += 1
        payments += open_cells * trigger_adjustments(s.is_invested(state, player, cell))
    return payments


@njit_without_refcounts
def trigger_term(state, tiles, log, owner, cell, kind, term, matches, invested, lake_bonus):
    """Apply a conditional term once per match (R6.2, R7.2).

    An invested tile's trigger counts twice (R7.3): two adjustments for levels and
    population, one payment of double money (R6.7: an invested lake pays one $4 payment).
    A payment by a lake is followed by its owner's `lake_adj_own` bonuses unless it comes
    from investing in the lake (R6.7).
    """
    attribute = conditional_attribute(tiles, kind, term)
    amount = conditional_amount(tiles, kind, term)
    times = trigger_adjustments(invested)
    is_lake = kind == s.lake_kind(tiles)
    for _ in range(matches):
        if attribute == c.ATTR_MONEY:
            adjust(state, tiles, log, owner, attribute, amount * times, owner, cell, kind)
            if is_lake and lake_bonus:
                _lake_payment_bonus(state, tiles, log, owner)
        else:
            for _ in range(times):
                adjust(state, tiles, log, owner, attribute, amount, owner, cell, kind)


@njit_without_refcounts
def count_matching(state, player, target):
    """Tiles of one borough carrying any feature of `target` (R6.4).

    Targets never mix types and icons (tile_data.py) and a tile has one type and at
    most one icon, so summing the per-feature counts counts each tile once.
    """
    total = 0
    for feature in range(c.NUM_FEATURES):
        if target & (1 << feature):
            total += s.feature_count(state, player, feature)
    return total


@njit_without_refcounts
def count_current_matches(state, tiles, player, cell, kind, term):
    """Matches of a tile's own term over what is on the table now (R6.2, R6.3, R7.3)."""
    scope = conditional_scope(tiles, kind, term)
    target = conditional_target(tiles, kind, term)
    num_players = state[s.NUM_PLAYERS]
    if scope == c.SCOPE_ADJACENT:
        total = 0
        for index in range(6):
            neighbour = NEIGHBOURS[cell, index]
            if neighbour >= 0 and s.cell_kind(state, player, neighbour) >= 0:
                neighbour_kind = effective_kind(state, tiles, player, neighbour)
                if tile_features(tiles, neighbour_kind) & target:
                    total += 1
        return total
    if scope == c.SCOPE_OWN:
        return count_matching(state, player, target)
    if scope == c.SCOPE_EVERY or scope == c.SCOPE_OTHERS:
        total = 0
        for other in range(num_players):
            if scope == c.SCOPE_OTHERS and other == player:
                continue
            total += count_matching(state, other, target)
        return total
    if scope == c.SCOPE_AFTER_EVERY:
        sequence = s.cell_sequence(state, player, cell)
        total = 0
        for other in range(num_players):
            for position in range(s.tile_count(state, other)):
                other_cell = s.placed_cell(state, other, position)
                if s.cell_sequence(state, other, other_cell) <= sequence:
                    continue
                other_kind = effective_kind(state, tiles, other, other_cell)
                if tile_features(tiles, other_kind) & target:
                    total += 1
        return total
    return 0


@njit_without_refcounts
def add_feature_counts(state, player, features, amount):
    """Move a borough's tile counts per type and icon (R6.4) by `amount` for each of a
    tile's features: +1 when it is put down, -1 when Dale's trial takes it back."""
    for feature in range(c.NUM_FEATURES):
        if features & (1 << feature):
            s.add_feature_count(state, player, feature, amount)


@njit_without_refcounts
def put_tile(state, tiles, player, cell, kind, as_lake, sequence):
    """Put a tile on an empty cell and update the derived counts and placeable cells."""
    s.set_cell_kind(state, player, cell, kind)
    s.set_cell_flags(state, player, cell, s.FLAG_LAKE if as_lake else 0)
    s.set_cell_sequence(state, player, cell, sequence)
    count = s.tile_count(state, player)
    s.set_placed_cell(state, player, count, cell)
    s.set_tile_count(state, player, count + 1)
    if as_lake:
        s.set_lake_count(state, player, s.lake_count(state, player) + 1)
    else:
        add_feature_counts(state, player, tile_features(tiles, kind), 1)
    for index in range(6):
        neighbour = NEIGHBOURS[cell, index]
        if neighbour >= 0 and s.cell_kind(state, player, neighbour) < 0:
            s.add_cell_flags(state, player, neighbour, s.FLAG_PLACEABLE)


@njit_without_refcounts
def put_next_tile(state, tiles, player, cell, kind, as_lake):
    """`put_tile` with the next number of the global placement sequence (R7.2, R6.5)."""
    sequence = state[s.PLACEMENT_COUNTER]
    state[s.PLACEMENT_COUNTER] = sequence + 1
    put_tile(state, tiles, player, cell, kind, as_lake, sequence)


@njit_without_refcounts
def _reacting_kind(state, tiles, owner, cell, new_features):
    """The effective kind of the tile at `cell` if any of its terms can react to a tile
    with `new_features`, else -1: the cheap test before `_react`."""
    kind = effective_kind(state, tiles, owner, cell)
    return kind if reacts_to(tiles, kind) & new_features else -1


@njit_without_refcounts
def _react(state, tiles, log, owner, owner_cell, kind, new_player, new_cell, new_features):
    """One existing tile's terms (of effective `kind`, from `_reacting_kind`) react to a
    newly placed tile (R7.1 steps 4, 5, 7)."""
    invested = s.is_invested(state, owner, owner_cell)
    same_borough = owner == new_player
    adjacent = same_borough and are_neighbours(owner_cell, new_cell)
    for term in range(conditional_term_count(tiles, kind)):
        if conditional_target(tiles, kind, term) & new_features == 0:
            continue
        if term_reacts(conditional_scope(tiles, kind, term), same_borough, adjacent):
            trigger_term(state, tiles, log, owner, owner_cell, kind, term, 1, invested, True)


@njit_without_refcounts
def apply_own_effects(state, tiles, log, player, cell, kind, lake_bonus):
    """A tile's immediate terms left to right, then its own conditional terms over the
    current matches (R7.1 steps 2 and 3; applied once more by an investment, R7.3)."""
    for term in range(immediate_term_count(tiles, kind)):
        adjust(state, tiles, log, player, immediate_attribute(tiles, kind, term),
               immediate_amount(tiles, kind, term), player, cell, kind)
    for term in range(conditional_term_count(tiles, kind)):
        matches = count_current_matches(state, tiles, player, cell, kind, term)
        trigger_term(state, tiles, log, player, cell, kind, term, matches, False, lake_bonus)


@njit_without_refcounts
def resolve_placement(state, tiles, log, player, cell, kind, as_lake, other_boroughs):
    """Place a paid-for tile (or lake) and resolve it in the order of R7.1.

    2 immediate terms left to right; 3 the tile's own conditional over current matches;
    4 adjacent tiles of the borough, oldest first; 5 the other tiles of the borough;
    (6 has no base-game tile); 7 other players' tiles, in turn order after the player.
    `other_boroughs` False (OWN_BOROUGH_ONLY) leaves out step 7, which never changes the
    placing player's own values (each change goes to the owner of the reacting tile):
    Dale's trials use it.
    """
    put_next_tile(state, tiles, player, cell, kind, as_lake)
    effects_kind = s.lake_kind(tiles) if as_lake else kind
    new_features = tile_features(tiles, effects_kind)
    apply_own_effects(state, tiles, log, player, cell, effects_kind, True)
    if new_features == 0:
        return
    older_tiles = s.tile_count(state, player) - 1
    for adjacent_pass in (True, False):
        for position in range(older_tiles):
            other_cell = s.placed_cell(state, player, position)
            kind_reacting = _reacting_kind(state, tiles, player, other_cell, new_features)
            if kind_reacting >= 0 and are_neighbours(cell, other_cell) == adjacent_pass:
                _react(state, tiles, log, player, other_cell, kind_reacting, player, cell,
                       new_features)
    if not other_boroughs:
        return
    num_players = state[s.NUM_PLAYERS]
    for offset in range(1, num_players):
        other = (player + offset) % num_players
        for position in range(s.tile_count(state, other)):
            other_cell = s.placed_cell(state, other, position)
            kind_reacting = _reacting_kind(state, tiles, other, other_cell, new_features)
            if kind_reacting >= 0:
                _react(state, tiles, log, other, other_cell, kind_reacting, player, cell,
                       new_features)


@njit_without_refcounts
def resolve_investment(state, tiles, log, player, cell):
    """Put a marker on a paid-for tile and apply its effects once more (R7.3).

    The immediate terms and the tile's own conditional terms over current matches apply
    again; no other tile is triggered; a lake pays without Waterfront bonuses (R6.7).
    """
    s.add_cell_flags(state, player, cell, s.FLAG_INVESTED)
    s.set_markers_left(state, player, s.markers_left(state, player) - 1)
    apply_own_effects(state, tiles, log, player, cell, effective_kind(state, tiles, player, cell),
                      False)
