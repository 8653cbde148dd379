"""Dale's decision procedure (R9.2): which market tile he takes and where he places it.

Kept apart from the turn logic so that agents can ask what Dale would do in any mode.

Why `dale_choose_cell` gives the cell of the plain rule
--------------------------------------------------------
The rule (dale_reference.reference_cell_choice) resolves the tile in full at every legal
cell and keeps the largest income + reputation gain, ties to the larger reputation gain,
then to the first cell in row-major order. Resolving is the costly part (every
adjustment is a call, R7.2), so `dale_choose_cell` resolves as few cells as it can, for
three reasons that leave the answer unchanged:

1. Cells of one class resolve alike. Step 7 of R7.1 changes only other players (each
   change goes to the owner of the reacting tile), so trials leave it out. Of the rest,
   only step 3's adjacent terms and which reacting tiles go in step 4 rather than 5
   depend on the cell, and only through the neighbours that can react to the new tile
   or that its adjacent terms count (`_cells_that_matter`). Cells with the same such
   neighbours, an adjacency class, get the same adjustments in the same order, hence
   the same gains; the tie-break prefers the first cell of a class, so the others are
   skipped (`_class_tried_before`).
2. Where the order cannot matter, sums give the gains. A level's final value depends on
   the order of its adjustments only through its clamps (R1.2) and through the red lines
   the population crosses on the way (R8.1). When each level either moves one way or
   reaches no clamp in any order (`_level_after`), and the population crosses lines one
   way only (`_gains_from_sums`), the gains follow from the sums of the adjustments,
   rises and falls apart: the part that is the same at every cell once
   (`_adjustments_anywhere`), the adjacency part once per class (`_adjustments_next_to`).
   Each line crossed adds its penalty and, upward, the Casino and PR Firm reactions
   (R6.6) as adjustments of their own; those reactions never move the population, so
   they cross no further line.
3. Bounds prune. Otherwise the sums still bound the gains from above (rises add at most
   their sum, falls never add); a class whose bounds cannot beat the best earlier class
   in the order of the tie-break is not resolved (CANNOT_WIN). The remaining classes are
   resolved in place and undone (`_resolved_gains`: `_trial_snapshot` and
   `_undo_trial_placement` around resolution.resolve_placement).

tests/rules/test_dale_reference.py compares the two choices on positions of seeded games
(both editions, every mode, levels near clamps and red lines);
tests/engine/test_properties.py compares the gains from sums with full resolution cell by
cell (`trial_gains`).
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
from .adjustments import effective_kind, trigger_adjustments
from .red_lines import RED_LINE_FALL_BACK_GAIN, red_line_penalty, red_lines_at_or_below
from .resolution import (FACE_UP, OWN_BOROUGH_ONLY, add_feature_counts, count_current_matches,
                         put_next_tile, resolve_placement, term_reacts)
from .tile_table import (can_lower_population, conditional_amount, conditional_attribute,
                         conditional_scope, conditional_target, conditional_term_count,
                         immediate_amount, immediate_attribute, immediate_term_count, reacts_to,
                         tile_cost, tile_features)


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
        kind = s.market_slot(state, slot)
        if kind < 0:
            continue
        value = tile_cost(tiles, kind) + slot_premium(slot)
        if value > affordable_money:
            continue
        negative = avoid_negative and can_lower_population(tiles, kind)
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
    placeable_neighbours = 0
    for index in range(6):
        neighbour = NEIGHBOURS[cell, index]
        if neighbour >= 0 and s.is_placeable(state, player, neighbour):
            placeable_neighbours |= 1 << index
    return (state[s.PLACEMENT_COUNTER], s.money(state, player), s.income(state, player),
            s.reputation(state, player), s.population(state, player),
            s.placed_cell(state, player, s.tile_count(state, player)),
            s.cell_sequence(state, player, cell), placeable_neighbours)


@njit_without_refcounts
def _undo_trial_placement(state, tiles, player, cell, kind, snapshot):
    """Take back a face-up trial placement (resolution.put_tile, then the adjustments)."""
    state[s.PLACEMENT_COUNTER] = snapshot[0]
    s.set_money(state, player, snapshot[1])
    s.set_income(state, player, snapshot[2])
    s.set_reputation(state, player, snapshot[3])
    s.set_population(state, player, snapshot[4])
    s.set_tile_count(state, player, s.tile_count(state, player) - 1)
    s.set_placed_cell(state, player, s.tile_count(state, player), snapshot[5])
    s.set_cell_sequence(state, player, cell, snapshot[6])
    s.set_cell_kind(state, player, cell, -1)
    s.set_cell_flags(state, player, cell, s.FLAG_PLACEABLE)
    add_feature_counts(state, player, tile_features(tiles, kind), -1)
    for index in range(6):
        neighbour = NEIGHBOURS[cell, index]
        if neighbour >= 0 and s.cell_kind(state, player, neighbour) < 0 and (
                snapshot[7] & (1 << index)) == 0:
            s.clear_cell_flags(state, player, neighbour, s.FLAG_PLACEABLE)


@njit_without_refcounts
def _cells_that_matter(state, tiles, player, new_features, adjacent_targets):
    """The occupied cells whose tile can react to the new tile or match its adjacent
    terms, as a set of cell numbers in two 64-bit words (hex_grid.CELL_BITS); a cell's
    adjacency class (module docstring, 1) is then one AND away."""
    low = np.int64(0)
    high = np.int64(0)
    for position in range(s.tile_count(state, player)):
        cell = s.placed_cell(state, player, position)
        kind = effective_kind(state, tiles, player, cell)
        if (reacts_to(tiles, kind) & new_features
                or tile_features(tiles, kind) & adjacent_targets):
            low |= CELL_BITS[cell, 0]
            high |= CELL_BITS[cell, 1]
    return low, high


@njit_without_refcounts
def _class_tried_before(state, player, cell, low, high, matter_low, matter_high):
    """Whether a placeable cell before `cell` has the same non-empty adjacency class
    (`low`, `high`). Such a cell neighbours every tile of the class, so the neighbours of
    one of those tiles are the only candidates."""
    for index in range(6):
        tile_cell = NEIGHBOURS[cell, index]
        if tile_cell < 0 or (CELL_BITS[tile_cell, 0] & low | CELL_BITS[tile_cell, 1] & high) == 0:
            continue
        for other_index in range(6):
            other = NEIGHBOURS[tile_cell, other_index]
            if (0 <= other < cell and s.is_placeable(state, player, other)
                    and NEIGHBOUR_BITS[other, 0] & matter_low == low
                    and NEIGHBOUR_BITS[other, 1] & matter_high == high):
                return True
        return False
    return False


NO_ADJUSTMENTS = (0, 0, 0, 0, 0, 0)
"""Sums of a trial's adjustments to its player, each side apart: (income up, income down,
reputation up, reputation down, population up, population down)."""

# `use_sums` of `choose_cell_by_trials` as a numpy bool (see resolution.FACE_UP).
SUMS_WHERE_EXACT = np.bool_(True)
RESOLVE_EVERY_TRIAL = np.bool_(False)


@njit_without_refcounts
def _with_adjustments(sums, attribute, total):
    """`sums` plus `total`, the sum of adjustments of one sign to `attribute`. Money is left
    out: it never moves a level or the population."""
    income_up, income_down, reputation_up, reputation_down, population_up, population_down = sums
    if attribute == c.ATTR_INCOME:
        if total > 0:
            income_up += total
        else:
            income_down += total
    elif attribute == c.ATTR_REPUTATION:
        if total > 0:
            reputation_up += total
        else:
            reputation_down += total
    elif attribute == c.ATTR_POPULATION:
        if total > 0:
            population_up += total
        else:
            population_down += total
    return (income_up, income_down, reputation_up, reputation_down, population_up,
            population_down)


@njit_without_refcounts
def _with_own_terms(sums, state, tiles, player, cell, kind, adjacent):
    """`sums` plus the conditional terms of the new tile over the current matches (R7.1
    step 3): its adjacent terms when `adjacent`, its other terms otherwise."""
    for term in range(conditional_term_count(tiles, kind)):
        if (conditional_scope(tiles, kind, term) == c.SCOPE_ADJACENT) == adjacent:
            matches = count_current_matches(state, tiles, player, cell, kind, term)
            sums = _with_adjustments(sums, conditional_attribute(tiles, kind, term),
                                     matches * conditional_amount(tiles, kind, term))
    return sums


@njit_without_refcounts
def _with_reactions(sums, tiles, tile_kind, times, new_features, needs_adjacency):
    """`sums` plus the terms of an older tile of the borough that fire for the new tile
    (R7.1 steps 4, 5): those that need adjacency when `needs_adjacency`, the others
    otherwise; each `times` adjustments (`trigger_adjustments`)."""
    for term in range(conditional_term_count(tiles, tile_kind)):
        scope = conditional_scope(tiles, tile_kind, term)
        if (conditional_target(tiles, tile_kind, term) & new_features
                and term_reacts(scope, True, needs_adjacency)
                and term_reacts(scope, True, False) != needs_adjacency):
            sums = _with_adjustments(
                sums, conditional_attribute(tiles, tile_kind, term),
                times * conditional_amount(tiles, tile_kind, term))
    return sums


@njit_without_refcounts
def _adjustments_anywhere(state, tiles, player, cell, kind):
    """The sums of the adjustments a trial of `kind` makes wherever it goes: its immediate
    terms, its own conditional terms of every scope but adjacent, and the reactions of the
    borough's older tiles that need no adjacency (R7.1 steps 2, 3 and 5); and the sums of
    the borough's redline_own reactions to one red line crossed upward, the new tile's
    included (R6.6, R8.1). Counted with the tile put at `cell`, any placeable cell, and
    taken back."""
    snapshot = _trial_snapshot(state, player, cell)
    put_next_tile(state, tiles, player, cell, kind, FACE_UP)
    sums = NO_ADJUSTMENTS
    for term in range(immediate_term_count(tiles, kind)):
        sums = _with_adjustments(sums, immediate_attribute(tiles, kind, term),
                                 immediate_amount(tiles, kind, term))
    sums = _with_own_terms(sums, state, tiles, player, cell, kind, False)
    new_features = tile_features(tiles, kind)
    per_red_line = NO_ADJUSTMENTS
    for position in range(s.tile_count(state, player)):
        tile_cell = s.placed_cell(state, player, position)
        tile_kind = effective_kind(state, tiles, player, tile_cell)
        times = trigger_adjustments(s.is_invested(state, player, tile_cell))
        if tile_cell != cell:
            sums = _with_reactions(sums, tiles, tile_kind, times, new_features, False)
        for term in range(conditional_term_count(tiles, tile_kind)):
            if conditional_scope(tiles, tile_kind, term) == c.SCOPE_REDLINE_OWN:
                per_red_line = _with_adjustments(
                    per_red_line, conditional_attribute(tiles, tile_kind, term),
                    times * conditional_amount(tiles, tile_kind, term))
    _undo_trial_placement(state, tiles, player, cell, kind, snapshot)
    return sums, per_red_line


@njit_without_refcounts
def _adjustments_next_to(state, tiles, player, cell, kind, matter_low, matter_high, sums):
    """`sums` plus what a trial at `cell` adds by adjacency: the tile's adjacent terms over
    its neighbours (R7.1 step 3) and the adjacent-only reactions of the neighbours that
    matter (step 4)."""
    sums = _with_own_terms(sums, state, tiles, player, cell, kind, True)
    new_features = tile_features(tiles, kind)
    for index in range(6):
        neighbour = NEIGHBOURS[cell, index]
        if neighbour < 0 or (CELL_BITS[neighbour, 0] & matter_low
                             | CELL_BITS[neighbour, 1] & matter_high) == 0:
            continue
        neighbour_kind = effective_kind(state, tiles, player, neighbour)
        if reacts_to(tiles, neighbour_kind) & new_features:
            times = trigger_adjustments(
                s.is_invested(state, player, neighbour))
            sums = _with_reactions(sums, tiles, neighbour_kind, times, new_features, True)
    return sums


@njit_without_refcounts
def _level_after(value, up, down):
    """(exact, level) after adjustments summing to `up` and `down` in an unknown order
    (module docstring, 2 and 3): exact when all have one sign or no order reaches a clamp
    (R1.2); otherwise the highest level any order can give."""
    if down == 0:
        return True, min(c.LEVEL_MAX, value + up)
    if up == 0:
        return True, max(c.LEVEL_MIN, value + down)
    if value + up <= c.LEVEL_MAX and value + down >= c.LEVEL_MIN:
        return True, value + up + down
    return False, min(c.LEVEL_MAX, value + up)


UNKNOWN_GAIN = 1000
"""The bound `_gains_from_sums` gives when it cannot bound a gain."""


@njit_without_refcounts
def _gains_from_sums(state, player, sums, per_red_line):
    """(exact, income gain, reputation gain) of a trial from the sums of its adjustments
    (module docstring, 2 and 3). The lines crossed are known whatever the order when the
    population moves one way only, or reaches no other line either way (every order's
    values lie between the sum of the falls and the sum of the rises); `per_red_line`
    holds the redline_own reactions to one line (R6.6). When not exact the two gains are
    upper bounds (UNKNOWN_GAIN when the lines crossed depend on the order).
    """
    income_up, income_down, reputation_up, reputation_down, population_up, population_down = sums
    population = s.population(state, player)
    lines_now = red_lines_at_or_below(population)
    penalty = red_line_penalty(state)
    lines_after_rises = red_lines_at_or_below(population + population_up)
    lines_after_falls = red_lines_at_or_below(max(0, population + population_down))
    if population_down == 0:
        crossed = lines_after_rises - lines_now
        if crossed > 0:  # red-line reactions never move population (tile_data.py)
            line_income_up, line_income_down, line_reputation_up, line_reputation_down, _, _ = (
                per_red_line)
            income_up += crossed * line_income_up
            income_down += crossed * (line_income_down - penalty)
            reputation_up += crossed * line_reputation_up
            reputation_down += crossed * (line_reputation_down - penalty)
    elif population_up == 0:
        fallen = lines_now - lines_after_falls
        income_up += RED_LINE_FALL_BACK_GAIN * fallen
        reputation_up += RED_LINE_FALL_BACK_GAIN * fallen
    elif lines_after_rises != lines_now or lines_after_falls != lines_now:
        return False, UNKNOWN_GAIN, UNKNOWN_GAIN
    income = s.income(state, player)
    reputation = s.reputation(state, player)
    income_exact, income_after = _level_after(income, income_up, income_down)
    reputation_exact, reputation_after = _level_after(reputation, reputation_up, reputation_down)
    return (income_exact and reputation_exact, income_after - income,
            reputation_after - reputation)


@njit_without_refcounts
def _resolved_gains(state, tiles, log, player, cell, kind):
    """(income gain, reputation gain) of a trial resolved in full (R7.1 without step 7,
    which changes only other players) and taken back; `log` is a one-row view."""
    income_before = s.income(state, player)
    reputation_before = s.reputation(state, player)
    snapshot = _trial_snapshot(state, player, cell)
    resolve_placement(state, tiles, log, player, cell, kind, FACE_UP, OWN_BOROUGH_ONLY)
    income_gain = s.income(state, player) - income_before
    reputation_gain = s.reputation(state, player) - reputation_before
    _undo_trial_placement(state, tiles, player, cell, kind, snapshot)
    return income_gain, reputation_gain


FROM_SUMS = 0
RESOLVED = 1
CANNOT_WIN = 2
"""How `_class_gains` found a trial's gains."""


@njit_without_refcounts
def _class_gains(state, tiles, log, player, cell, kind, matter_low, matter_high, anywhere,
                 per_red_line, use_sums, best_gain, best_reputation_gain):
    """(income gain, reputation gain, FROM_SUMS / RESOLVED / CANNOT_WIN) of a trial at
    `cell`, given the parts that are the same at every cell (`_adjustments_anywhere`).
    CANNOT_WIN: the upper bounds cannot beat the best earlier class (`best_gain`,
    `best_reputation_gain`; module docstring, 3); a best gain of -UNKNOWN_GAIN never
    prunes.
    """
    if use_sums:
        sums = _adjustments_next_to(state, tiles, player, cell, kind, matter_low, matter_high,
                                    anywhere)
        exact, income_gain, reputation_gain = _gains_from_sums(state, player, sums,
                                                               per_red_line)
        if exact:
            return income_gain, reputation_gain, FROM_SUMS
        highest_gain = income_gain + reputation_gain
        if highest_gain < best_gain or (highest_gain == best_gain
                                        and reputation_gain <= best_reputation_gain):
            return income_gain, reputation_gain, CANNOT_WIN
    income_gain, reputation_gain = _resolved_gains(state, tiles, log[:1], player, cell, kind)
    return income_gain, reputation_gain, RESOLVED


@njit_without_refcounts
def _adjacent_targets(tiles, kind):
    """The features that the adjacent terms of `kind` count."""
    targets = 0
    for term in range(conditional_term_count(tiles, kind)):
        if conditional_scope(tiles, kind, term) == c.SCOPE_ADJACENT:
            targets |= conditional_target(tiles, kind, term)
    return targets


@njit_without_refcounts
def trial_gains(state, tiles, log, player, cell, kind, use_sums):
    """(income gain, reputation gain, from sums) of `player` placing `kind` at the
    placeable `cell`, as Dale's trials find them: from the sums of the adjustments where
    `_gains_from_sums` is exact and `use_sums` allows it, else resolved in full. The state
    is unchanged on return; tests compare the two ways cell by cell."""
    new_features = tile_features(tiles, kind)
    matter_low, matter_high = _cells_that_matter(state, tiles, player, new_features,
                                                 _adjacent_targets(tiles, kind))
    anywhere, per_red_line = _adjustments_anywhere(state, tiles, player, cell, kind)
    income_gain, reputation_gain, found = _class_gains(
        state, tiles, log, player, cell, kind, matter_low, matter_high, anywhere, per_red_line,
        use_sums, -UNKNOWN_GAIN, -UNKNOWN_GAIN)
    return income_gain, reputation_gain, found == FROM_SUMS


@njit_without_refcounts
def dale_choose_cell(state, tiles, log, player, kind):
    """The legal cell maximising income + reputation gain after full resolution (R9.2);
    ties go to the larger reputation gain, then to the first cell in row-major order.
    The cell of dale_reference.reference_cell_choice, found with fewer resolutions (module
    docstring). The state is unchanged on return; trials record nothing (they write to
    a one-row view of `log`, event_log.py). -1 when no cell is legal.
    """
    return choose_cell_by_trials(state, tiles, log, player, kind, SUMS_WHERE_EXACT)


@njit_without_refcounts
def choose_cell_by_trials(state, tiles, log, player, kind, use_sums):
    """`dale_choose_cell`; with `use_sums` RESOLVE_EVERY_TRIAL each class is resolved in
    full (module docstring, 1 without 2 and 3)."""
    new_features = tile_features(tiles, kind)
    matter_low, matter_high = _cells_that_matter(state, tiles, player, new_features,
                                                 _adjacent_targets(tiles, kind))
    anywhere = NO_ADJUSTMENTS
    per_red_line = NO_ADJUSTMENTS
    tried_empty_class = False
    best_cell = -1
    best_gain = 0
    best_reputation_gain = 0
    for cell in range(NUM_CELLS):
        if not s.is_placeable(state, player, cell):
            continue
        low = NEIGHBOUR_BITS[cell, 0] & matter_low
        high = NEIGHBOUR_BITS[cell, 1] & matter_high
        if low == 0 and high == 0:
            if tried_empty_class:
                continue
            tried_empty_class = True
        elif _class_tried_before(state, player, cell, low, high, matter_low, matter_high):
            continue
        if best_cell < 0 and use_sums:
            anywhere, per_red_line = _adjustments_anywhere(state, tiles, player, cell, kind)
        income_gain, reputation_gain, found = _class_gains(
            state, tiles, log, player, cell, kind, matter_low, matter_high, anywhere,
            per_red_line, use_sums, best_gain if best_cell >= 0 else -UNKNOWN_GAIN,
            best_reputation_gain)
        if found == CANNOT_WIN:
            continue
        gain = income_gain + reputation_gain
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
        return a.action_number(a.KIND_KEEP_GOAL, 0, -1)
    if decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE:
        kind = a.KIND_DISCARD if decision == c.DECISION_DISCARD else a.KIND_REMOVE
        for slot in range(last_slot(state), first_slot(state) - 1, -1):
            if can_pay_premium(state, player, slot):
                return a.action_number(kind, slot, -1)
    if decision == c.DECISION_TURN and any_placeable_cell(state, player):
        money = s.money(state, player)
        slot = dale_choose_slot(state, tiles, money)
        if slot >= 0:
            cell = dale_choose_cell(state, tiles, log, player, s.market_slot(state, slot))
            return a.action_number(a.KIND_BUY, slot, cell)
        for slot in range(last_slot(state), first_slot(state) - 1, -1):
            if can_make_lake(state, player, slot):
                cell = dale_choose_cell(state, tiles, log, player, s.lake_kind(tiles))
                return a.action_number(a.KIND_LAKE, slot, cell)
    legal_action_mask(state, tiles, basic_kinds, mask, actions)
    return actions[0]
