"""A turn from decision to decision: step 1 options, discards, steps 2 and 3, the end of a
turn and of a round, Dale's turn, and the end of the game (R4.3, R5, R8.2, R9).

`apply_legal_action` trusts its caller (the compiled random players sample from the
mask); `apply_action` checks legality first and leaves the state untouched otherwise.
"""

from . import action_space as a
from . import constants as c
from . import event_log as ev
from . import state_layout as s
from .dale import dale_choose_cell, dale_choose_slot
from .legal_actions import (any_premium_payable, can_pay_premium, investment_price,
                            is_legal_action)
from .market import (clear_market, discard_from_market, fill_dale_market, first_slot,
                     last_slot, refill_market, slot_premium, take_from_market)
from .refcount_free import njit_without_refcounts
from .red_lines import cross_red_lines
from .resolution import ALL_BOROUGHS, FACE_UP, pay, resolve_investment, resolve_placement
from .scoring import score_game
from .tile_table import tile_cost

STATUS_OK = 0
STATUS_ILLEGAL = 1
STATUS_GAME_OVER = 2

DALE_PRICE = 3
_ANY_PRICE = 1 << 30


@njit_without_refcounts
def income_step_outcome(income, money, population):
    """R5.2 in numbers: (money, population, dollars unpaid) after gaining `income`. A
    negative income is paid from the money; each $1 left unpaid costs 1 population, not
    below 0. `income_step` applies it; the greedy player's projection (agents/greedy.py)
    reuses it."""
    if income >= 0:
        return money + income, population, 0
    paid = min(money, -income)
    unpaid = -income - paid
    return money - paid, max(0, population - unpaid), unpaid


@njit_without_refcounts
def population_step_outcome(population, reputation, money):
    """R5.3 in numbers: (population, money, points owed) after population moves by
    `reputation`. Below 0 the population stops at 0 and each point owed costs $1 while
    money lasts; the rest is forgiven. `population_step` applies it; the greedy player's
    projection reuses it."""
    population += reputation
    if population >= 0:
        return population, money, 0
    owed = -population
    return 0, money - min(owed, money), owed


@njit_without_refcounts
def income_step(state, tiles, log, player):
    """R5.2 (`income_step_outcome`), with the red lines fallen below (R8.1)."""
    gained = s.income(state, player)
    old = s.population(state, player)
    money_after, new, unpaid = income_step_outcome(gained, s.money(state, player), old)
    s.set_money(state, player, money_after)
    if unpaid > 0:
        s.set_population(state, player, new)
        ev.record(log, ev.EVENT_SHORTFALL, player, c.ATTR_POPULATION, new - old, new, -1, -1, -1)
        cross_red_lines(state, tiles, log, player, old, new)
    ev.record(log, ev.EVENT_INCOME_STEP, player, c.ATTR_MONEY, gained, money_after, -1, -1, -1)


@njit_without_refcounts
def population_step(state, tiles, log, player):
    """R5.3 (`population_step_outcome`), with the red lines crossed (R8.1)."""
    old = s.population(state, player)
    moved = s.reputation(state, player)
    new, money_after, owed = population_step_outcome(old, moved, s.money(state, player))
    if owed > 0:
        ev.record(log, ev.EVENT_SHORTFALL, player, c.ATTR_MONEY,
                  money_after - s.money(state, player), money_after, -1, -1, -1)
        s.set_money(state, player, money_after)
    s.set_population(state, player, new)
    ev.record(log, ev.EVENT_POPULATION_STEP, player, c.ATTR_POPULATION, moved, new, -1, -1, -1)
    cross_red_lines(state, tiles, log, player, old, new)


@njit_without_refcounts
def finish_game(state, tiles, goals, log):
    score_game(state, tiles, goals)
    state[s.GAME_OVER] = 1
    state[s.PENDING_DECISION] = c.DECISION_NONE
    state[s.CURRENT_PLAYER] = -1
    ev.record(log, ev.EVENT_GAME_OVER, -1, 0, 0, 0, -1, -1, -1)


@njit_without_refcounts
def dale_turn(state, tiles, log):
    """Dale takes the priciest tile for $3, places it for the best income + reputation,
    then does steps 2 and 3 (R9.2).

    In play Dale always has a tile left and a placeable cell (invariants.check_invariants
    refuses a state without one); should a state without a cell reach this kernel anyway,
    Dale takes no tile rather than writing to cell -1, which would wrap into other fields.
    """
    slot = dale_choose_slot(state, tiles, _ANY_PRICE)
    cell = -1
    if slot >= 0:
        cell = dale_choose_cell(state, tiles, log, c.DALE_SEAT, s.market_slot(state, slot))
    if cell >= 0:
        kind = take_from_market(state, slot)
        price = min(DALE_PRICE, s.money(state, c.DALE_SEAT))
        pay(state, c.DALE_SEAT, price)
        ev.record(log, ev.EVENT_DALE_BUY, c.DALE_SEAT, 0, price, 0, c.DALE_SEAT, cell, kind)
        resolve_placement(state, tiles, log, c.DALE_SEAT, cell, kind, FACE_UP, ALL_BOROUGHS)
    income_step(state, tiles, log, c.DALE_SEAT)
    population_step(state, tiles, log, c.DALE_SEAT)


@njit_without_refcounts
def end_turn(state, tiles, goals, log):
    """Refill the market (R5.4) and hand over to the next player, or end the game (R4.3).

    With Dale, his turn follows the player's; the round then ends, the leftover tiles
    are discarded and the next round's market is filled (R9.2).
    """
    if state[s.MODE] == c.MODE_DALE:
        dale_turn(state, tiles, log)
        clear_market(state, log)
        state[s.ROUND] += 1
        if fill_dale_market(state, tiles, log):
            finish_game(state, tiles, goals, log)
            return
        state[s.CURRENT_PLAYER] = 0
        state[s.PENDING_DECISION] = c.DECISION_TURN
        return
    refill_market(state, tiles, log, 2 if state[s.MODE] == c.MODE_SOLITARY else 1)
    next_player = (state[s.CURRENT_PLAYER] + 1) % state[s.NUM_PLAYERS]
    if next_player == state[s.FIRST_PLAYER]:
        if 0 <= state[s.FINAL_ROUND] <= state[s.ROUND]:
            finish_game(state, tiles, goals, log)
            return
        state[s.ROUND] += 1
    state[s.CURRENT_PLAYER] = next_player
    state[s.PENDING_DECISION] = c.DECISION_TURN


@njit_without_refcounts
def finish_turn(state, tiles, goals, log, player):
    """Steps 2 and 3 (R5.2, R5.3); in Solitary Architect the extra removal (R9.1)."""
    income_step(state, tiles, log, player)
    population_step(state, tiles, log, player)
    if state[s.MODE] == c.MODE_SOLITARY and any_premium_payable(state, player):
        state[s.PENDING_DECISION] = c.DECISION_REMOVE
        return
    end_turn(state, tiles, goals, log)


@njit_without_refcounts
def _discard_or_finish(state, tiles, goals, log, player):
    """After a basic tile or an investment one market tile must go (R5.1b, d)."""
    if any_premium_payable(state, player):
        state[s.PENDING_DECISION] = c.DECISION_DISCARD
    else:
        finish_turn(state, tiles, goals, log, player)


@njit_without_refcounts
def _keep_goal(state, log, player, option):
    """R3.6: keep one of the two drawn goals; the players choose in turn order. Dale draws
    no goal and is passed over (R9.2)."""
    s.set_private_goal(state, player, s.goal_option(state, player, option))
    ev.record(log, ev.EVENT_KEEP_GOAL, player, 0, option, s.private_goal(state, player),
              -1, -1, -1)
    next_player = (player + 1) % state[s.NUM_PLAYERS]
    while (next_player != state[s.FIRST_PLAYER]
           and s.goal_option(state, next_player, 0) < 0):
        next_player = (next_player + 1) % state[s.NUM_PLAYERS]
    state[s.CURRENT_PLAYER] = next_player
    if next_player == state[s.FIRST_PLAYER]:
        state[s.PENDING_DECISION] = c.DECISION_TURN


@njit_without_refcounts
def _take_step_one(state, tiles, basic_kinds, action, log, player):
    """Step 1 (R5.1): pass, buy, make a lake, buy a basic tile or invest. Returns whether
    a market tile must then be discarded (a basic tile or an investment, R5.1b, d)."""
    action_kind, choice, cell = a.action_fields(action)
    if action_kind == a.KIND_PASS:
        ev.record(log, ev.EVENT_PASS, player, 0, 0, 0, -1, -1, -1)
        for slot in range(last_slot(state), first_slot(state) - 1, -1):
            if s.market_slot(state, slot) >= 0:
                discard_from_market(state, log, player, slot, 0)
                break
        return False
    if action_kind == a.KIND_BUY or action_kind == a.KIND_LAKE:
        as_lake = action_kind == a.KIND_LAKE
        slot = choice
        kind = take_from_market(state, slot)
        price = slot_premium(slot) + (0 if as_lake else tile_cost(tiles, kind))
        pay(state, player, price)
        ev.record(log, ev.EVENT_PLACE, player, 1 if as_lake else 0, price, 0, player, cell, kind)
        resolve_placement(state, tiles, log, player, cell, kind, as_lake, ALL_BOROUGHS)
        return False
    if action_kind == a.KIND_BASIC:
        basic = choice
        kind = basic_kinds[basic]
        s.set_supply(state, basic, s.supply(state, basic) - 1)
        pay(state, player, tile_cost(tiles, kind))
        ev.record(log, ev.EVENT_PLACE, player, 0, tile_cost(tiles, kind), 0, player, cell, kind)
        resolve_placement(state, tiles, log, player, cell, kind, FACE_UP, ALL_BOROUGHS)
        return True
    price = investment_price(state, tiles, player, cell)
    pay(state, player, price)
    ev.record(log, ev.EVENT_INVEST, player, 0, price, 0, player, cell,
              s.cell_kind(state, player, cell))
    resolve_investment(state, tiles, log, player, cell)
    return True


@njit_without_refcounts
def _pay_and_discard(state, log, player, slot):
    """A discard (R5.1b, d) or Solitary Architect's removal (R9.1): the slot's premium."""
    premium = slot_premium(slot)
    pay(state, player, premium)
    discard_from_market(state, log, player, slot, premium)


@njit_without_refcounts
def apply_legal_action(state, tiles, goals, basic_kinds, action, log):
    """Apply an action already known to be legal, up to the next decision."""
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    if decision == c.DECISION_KEEP_GOAL:
        _keep_goal(state, log, player, a.action_fields(action)[1])
        return
    if decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE:
        _pay_and_discard(state, log, player, a.action_fields(action)[1])
        if decision == c.DECISION_DISCARD:
            finish_turn(state, tiles, goals, log, player)
        else:
            end_turn(state, tiles, goals, log)
        return
    if _take_step_one(state, tiles, basic_kinds, action, log, player):
        _discard_or_finish(state, tiles, goals, log, player)
    else:
        finish_turn(state, tiles, goals, log, player)


@njit_without_refcounts
def cheapest_discard_slot(state, player):
    """The affordable slot with the lowest premium, the rightmost first (R4.1, R5.1b),
    or -1 when none is."""
    for slot in range(last_slot(state), first_slot(state) - 1, -1):
        if can_pay_premium(state, player, slot):
            return slot
    return -1


@njit_without_refcounts
def own_turn_trial(state, tiles, goals, basic_kinds, action, log):
    """Play a legal `action` of the current player and the rest of that player's own turn
    on `state` (a scratch copy), then stop: for players that judge a move by its outcome.

    After step 1 (R5.1) a discard that must follow (R5.1b, d) takes the cheapest
    affordable slot (`cheapest_discard_slot`), then steps 2 and 3 are played (R5.2,
    R5.3). Nothing after them is: no removal (R9.1), no refill (R5.4), no other seat,
    Dale included (R9.2), so no hidden tile is drawn (R10.2) and the game does not end.
    A discard or removal decision is played alone (the removal ends the turn), as is the
    goal choice (R3.6), which leaves the state with the next chooser. `full_turn_trial`
    plays the rest of the turn instead."""
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    if decision == c.DECISION_KEEP_GOAL:
        _keep_goal(state, log, player, a.action_fields(action)[1])
        return
    if decision == c.DECISION_REMOVE:
        _pay_and_discard(state, log, player, a.action_fields(action)[1])
        return
    if decision == c.DECISION_DISCARD:
        _pay_and_discard(state, log, player, a.action_fields(action)[1])
    elif _take_step_one(state, tiles, basic_kinds, action, log, player):
        slot = cheapest_discard_slot(state, player)
        if slot >= 0:
            _pay_and_discard(state, log, player, slot)
    income_step(state, tiles, log, player)
    population_step(state, tiles, log, player)


@njit_without_refcounts
def full_turn_trial(state, tiles, goals, basic_kinds, action, log):
    """Play a legal `action` of the current player and the rest of that player's turn on
    `state` (a scratch copy) as play would, with the stacks taken as drawn out and
    without Dale: for players that judge a move by where the whole turn leaves the game
    (the greedy player).

    The pile is emptied first, so the refill (R5.4) slides the market and draws nothing
    (R4.2): no hidden tile is drawn (R10.2). A game with Dale is played as a standard
    game, so Dale's turn (R9.2) does not follow. A discard (R5.1b, d) or Solitary
    Architect's removal (R9.1) that the player must then make takes the cheapest
    affordable slot (`cheapest_discard_slot`); the turn then passes on, or the game ends
    and is scored (R4.3, R8.2). Unlike `own_turn_trial`, which stops after step 3."""
    player = state[s.CURRENT_PLAYER]
    state[s.PILE_POSITION] = state[s.PILE_END]
    if state[s.MODE] == c.MODE_DALE:
        state[s.MODE] = c.MODE_STANDARD
    apply_legal_action(state, tiles, goals, basic_kinds, action, log)
    while (state[s.GAME_OVER] == 0 and state[s.CURRENT_PLAYER] == player
           and (state[s.PENDING_DECISION] == c.DECISION_DISCARD
                or state[s.PENDING_DECISION] == c.DECISION_REMOVE)):
        kind = (a.KIND_DISCARD if state[s.PENDING_DECISION] == c.DECISION_DISCARD
                else a.KIND_REMOVE)
        action = a.action_number(kind, cheapest_discard_slot(state, player), -1)
        apply_legal_action(state, tiles, goals, basic_kinds, action, log)


@njit_without_refcounts
def apply_action(state, tiles, goals, basic_kinds, action, log):
    """Check and apply an action; returns STATUS_OK, STATUS_ILLEGAL or STATUS_GAME_OVER."""
    if state[s.GAME_OVER]:
        return STATUS_GAME_OVER
    if not is_legal_action(state, tiles, basic_kinds, action):
        return STATUS_ILLEGAL
    apply_legal_action(state, tiles, goals, basic_kinds, action, log)
    return STATUS_OK
