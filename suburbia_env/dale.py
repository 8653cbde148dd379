"""Dale's decision procedure (R9.2): which market tile he takes and where he places it.

Kept apart from the turn logic so that agents can ask what Dale would do in any mode.
"""

import numpy as np

from . import action_space as a
from . import constants as c
from . import state_layout as s
from .hex_grid import CELL_BITS, NEIGHBOUR_BITS, NEIGHBOURS, NUM_CELLS
from .market import first_slot, last_slot, slot_premium
from .legal_actions import (any_placeable_cell, can_make_lake, can_pay_premium,
                            legal_action_mask)
from .refcount_free import njit_without_refcounts
from .resolution import (FACE_UP, OWN_BOROUGH_ONLY, add_feature_counts, effective_kind,
                         lake_kind, player_base, resolve_placement)
from .tile_data import (COLUMN_CONDITIONAL_COUNT, COLUMN_CONDITIONAL_SCOPE,
                        COLUMN_CONDITIONAL_TARGET, COLUMN_COST, COLUMN_FEATURES,
                        COLUMN_NEGATIVE_POPULATION, COLUMN_REACTS_TO)


@njit_without_refcounts
def dale_choose_slot(state, tiles, affordable_money):
    """The slot of the highest cost + premium, leftmost on ties (R9.2).

    Edition 2nd: a tile with a negative population effect only if no other is left.
    Only tiles whose cost + premium is at most `affordable_money` are considered
    (Dale himself pays a flat $3 and passes a large number). -1 when none qualifies.
    """
    avoid_negative = state[s.EDITION] == c.EDITION_SECOND
    best_slot = -1
    best_value = -1
    best_negative = True
    for slot in range(first_slot(state), last_slot(state) + 1):
        kind = state[s.MARKET + slot]
        if kind < 0:
            continue
        value = tiles[kind, COLUMN_COST] + slot_premium(slot)
        if value > affordable_money:
            continue
        negative = avoid_negative and tiles[kind, COLUMN_NEGATIVE_POPULATION] != 0
        if best_slot < 0 or (best_negative and not negative) or (
                negative == best_negative and value > best_value):
            best_slot = slot
            best_value = value
            best_negative = negative
    return best_slot


@njit_without_refcounts
def _trial_snapshot(state, player, cell):
    """What a trial placement of `player` at `cell` changes that `_undo_trial_placement`
    cannot work out from the tile: the placement counter, his money and levels, the
    cell's sequence, the next ORDER entry, and (bit per neighbour) which neighbours were
    placeable already.

    A trial leaves out step 7 of R7.1, so every adjustment goes to the placing player
    (resolution.trigger_term pays the owner of the reacting tile, here always him).
    """
    base = player_base(player)
    placeable_neighbours = 0
    for index in range(6):
        neighbour = NEIGHBOURS[cell, index]
        if neighbour >= 0 and state[base + s.CELL_FLAGS + neighbour] & s.FLAG_PLACEABLE:
            placeable_neighbours |= 1 << index
    return (state[s.PLACEMENT_COUNTER], state[base + s.MONEY], state[base + s.INCOME],
            state[base + s.REPUTATION], state[base + s.POPULATION],
            state[base + s.ORDER + state[base + s.TILE_COUNT]],
            state[base + s.CELL_SEQUENCE + cell], placeable_neighbours)


@njit_without_refcounts
def _undo_trial_placement(state, tiles, player, cell, kind, snapshot):
    """Take back a face-up trial placement (resolution.put_tile, then the adjustments)."""
    base = player_base(player)
    state[s.PLACEMENT_COUNTER] = snapshot[0]
    state[base + s.MONEY] = snapshot[1]
    state[base + s.INCOME] = snapshot[2]
    state[base + s.REPUTATION] = snapshot[3]
    state[base + s.POPULATION] = snapshot[4]
    state[base + s.TILE_COUNT] -= 1
    state[base + s.ORDER + state[base + s.TILE_COUNT]] = snapshot[5]
    state[base + s.CELL_SEQUENCE + cell] = snapshot[6]
    state[base + s.CELL_KIND + cell] = -1
    state[base + s.CELL_FLAGS + cell] = s.FLAG_PLACEABLE
    add_feature_counts(state, base, tiles[kind, COLUMN_FEATURES], -1)
    for index in range(6):
        neighbour = NEIGHBOURS[cell, index]
        if neighbour >= 0 and state[base + s.CELL_KIND + neighbour] < 0 and (
                snapshot[7] & (1 << index)) == 0:
            state[base + s.CELL_FLAGS + neighbour] &= ~s.FLAG_PLACEABLE


@njit_without_refcounts
def _cells_that_matter(state, tiles, base, new_features, adjacent_targets):
    """The occupied cells whose tile would matter next to the new tile, as a set of cell
    numbers in two 64-bit words (hex_grid.CELL_BITS).

    A tile matters when one of its terms can react to the new tile or when the new
    tile's adjacent terms can match it; any other neighbour adds nothing to the
    resolution wherever it stands (R7.1 steps 3 to 5). The neighbours that matter of a
    cell, its adjacency class, are then one AND away, and cells with equal classes
    resolve to the same adjustments in the same order.
    """
    low = np.int64(0)
    high = np.int64(0)
    for position in range(state[base + s.TILE_COUNT]):
        cell = state[base + s.ORDER + position]
        kind = effective_kind(state, tiles, base, cell)
        if (tiles[kind, COLUMN_REACTS_TO] & new_features
                or tiles[kind, COLUMN_FEATURES] & adjacent_targets):
            low |= CELL_BITS[cell, 0]
            high |= CELL_BITS[cell, 1]
    return low, high


@njit_without_refcounts
def _class_tried_before(state, base, cell, low, high, matter_low, matter_high):
    """Whether a placeable cell before `cell` has the same non-empty adjacency class
    (`low`, `high`). Such a cell neighbours every tile of the class, so the neighbours of
    one of those tiles are the only candidates."""
    for index in range(6):
        tile_cell = NEIGHBOURS[cell, index]
        if tile_cell < 0 or (CELL_BITS[tile_cell, 0] & low | CELL_BITS[tile_cell, 1] & high) == 0:
            continue
        for other_index in range(6):
            other = NEIGHBOURS[tile_cell, other_index]
            if (0 <= other < cell and state[base + s.CELL_FLAGS + other] & s.FLAG_PLACEABLE
                    and NEIGHBOUR_BITS[other, 0] & matter_low == low
                    and NEIGHBOUR_BITS[other, 1] & matter_high == high):
                return True
        return False
    return False


@njit_without_refcounts
def dale_choose_cell(state, tiles, log, player, kind):
    """The legal cell maximising income + reputation gain after full resolution (R9.2).

    Ties go to the larger reputation gain, then to the first cell in row-major order.
    Each candidate is resolved in place on `state` and undone at once (the state is
    unchanged on return); a cell whose adjacency class (`_cells_that_matter`) an earlier
    placeable cell shares is skipped, since it resolves exactly like that cell, which the
    tie-break prefers anyway. Trials record nothing: they write to a one-row view of `log`
    (event_log.py). -1 when no cell is legal.
    """
    base = player_base(player)
    income_before = state[base + s.INCOME]
    reputation_before = state[base + s.REPUTATION]
    new_features = tiles[kind, COLUMN_FEATURES]
    adjacent_targets = 0
    for term in range(tiles[kind, COLUMN_CONDITIONAL_COUNT]):
        if tiles[kind, COLUMN_CONDITIONAL_SCOPE + term] == c.SCOPE_ADJACENT:
            adjacent_targets |= tiles[kind, COLUMN_CONDITIONAL_TARGET + term]
    matter_low, matter_high = _cells_that_matter(state, tiles, base, new_features,
                                                 adjacent_targets)
    no_log = log[:1]
    tried_empty_class = False
    best_cell = -1
    best_gain = 0
    best_reputation_gain = 0
    for cell in range(NUM_CELLS):
        if state[base + s.CELL_FLAGS + cell] & s.FLAG_PLACEABLE == 0:
            continue
        low = NEIGHBOUR_BITS[cell, 0] & matter_low
        high = NEIGHBOUR_BITS[cell, 1] & matter_high
        if low == 0 and high == 0:
            if tried_empty_class:
                continue
            tried_empty_class = True
        elif _class_tried_before(state, base, cell, low, high, matter_low, matter_high):
            continue
        snapshot = _trial_snapshot(state, player, cell)
        resolve_placement(state, tiles, no_log, player, cell, kind, FACE_UP, OWN_BOROUGH_ONLY)
        reputation_gain = state[base + s.REPUTATION] - reputation_before
        gain = state[base + s.INCOME] - income_before + reputation_gain
        _undo_trial_placement(state, tiles, player, cell, kind, snapshot)
        if best_cell < 0 or gain > best_gain or (
                gain == best_gain and reputation_gain > best_reputation_gain):
            best_cell = cell
            best_gain = gain
            best_reputation_gain = reputation_gain
    return best_cell


@njit_without_refcounts
def dale_policy_action(state, tiles, basic_kinds, log, mask, actions):
    """Dale's procedure as a player of any mode, paying full prices (R9.2 adapted).

    Turn: the affordable market tile of highest cost + premium (leftmost on ties, edition
    2nd avoiding negative population) at Dale's best cell; if none is affordable, a lake
    from the rightmost slot whose premium is affordable, at Dale's best cell for it.
    Discard / removal: the rightmost (cheapest) payable slot. Goal choice: the first
    drawn goal. Anything else (no placeable cell): the first legal action.
    """
    player = state[s.CURRENT_PLAYER]
    decision = state[s.PENDING_DECISION]
    if decision == c.DECISION_KEEP_GOAL:
        return a.KEEP_GOAL
    if decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE:
        start = a.DISCARD if decision == c.DECISION_DISCARD else a.REMOVE
        for slot in range(last_slot(state), first_slot(state) - 1, -1):
            if can_pay_premium(state, player, slot):
                return start + slot
    if decision == c.DECISION_TURN and any_placeable_cell(state, player):
        money = state[player_base(player) + s.MONEY]
        slot = dale_choose_slot(state, tiles, money)
        if slot >= 0:
            cell = dale_choose_cell(state, tiles, log, player, state[s.MARKET + slot])
            return a.BUY + slot * NUM_CELLS + cell
        for slot in range(last_slot(state), first_slot(state) - 1, -1):
            if can_make_lake(state, player, slot):
                cell = dale_choose_cell(state, tiles, log, player, lake_kind(tiles))
                return a.LAKE + slot * NUM_CELLS + cell
    legal_action_mask(state, tiles, basic_kinds, mask, actions)
    return actions[0]
