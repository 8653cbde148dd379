"""Which actions are legal: the predicates of R5.1, R9.1 and R3.6, and the mask built from them.

`legal_action_mask` and `is_legal_action` share the same predicates, so the mask a
policy sees and the check `apply_action` makes cannot disagree. When the game is over
the mask holds ACTION_PASS alone (the terminal mask: never all-false), but no action is legal.
"""

from . import action_space as a
from . import constants as c
from . import state_layout as s
from .hex_grid import NUM_CELLS
from .market import first_slot, last_slot, slot_premium
from .refcount_free import njit_without_refcounts
from .tile_table import tile_cost


@njit_without_refcounts
def is_placeable(state, player, cell):
    """Empty and adjacent to a tile or lake of the borough (R2.4)."""
    return s.is_placeable(state, player, cell)


@njit_without_refcounts
def can_buy(state, tiles, player, slot):
    """R5.1a: the tile's cost plus the slot premium is affordable."""
    kind = s.market_slot(state, slot)
    if kind < 0:
        return False
    price = tile_cost(tiles, kind) + slot_premium(slot)
    return s.money(state, player) >= price


@njit_without_refcounts
def can_make_lake(state, player, slot):
    """R5.1c: the slot premium alone is affordable."""
    return (s.market_slot(state, slot) >= 0
            and s.money(state, player) >= slot_premium(slot))


@njit_without_refcounts
def can_buy_basic(state, tiles, player, basic, basic_kinds):
    """R5.1b, R3.5: one is left in the supply and its cost is affordable."""
    return (s.supply(state, basic) > 0
            and s.money(state, player) >= tile_cost(tiles, basic_kinds[basic]))


@njit_without_refcounts
def investment_price(state, tiles, player, cell):
    """The printed cost again; a lake costs $0 (R5.1d)."""
    if s.is_lake(state, player, cell):
        return 0
    return tile_cost(tiles, s.cell_kind(state, player, cell))


@njit_without_refcounts
def can_invest(state, tiles, player, cell):
    """R5.1d: a marker left, a tile of the borough without one, the price affordable."""
    if s.markers_left(state, player) <= 0 or s.cell_kind(state, player, cell) < 0:
        return False
    if s.is_invested(state, player, cell):
        return False
    return s.money(state, player) >= investment_price(state, tiles, player, cell)


@njit_without_refcounts
def can_pay_premium(state, player, slot):
    """Discard (R5.1b, d) or Solitary removal (R9.1): an occupied, affordable slot."""
    return (s.market_slot(state, slot) >= 0
            and s.money(state, player) >= slot_premium(slot))


@njit_without_refcounts
def any_premium_payable(state, player):
    for slot in range(first_slot(state), last_slot(state) + 1):
        if can_pay_premium(state, player, slot):
            return True
    return False


@njit_without_refcounts
def any_placeable_cell(state, player):
    for cell in range(NUM_CELLS):
        if s.is_placeable(state, player, cell):
            return True
    return False


@njit_without_refcounts
def any_turn_option(state, tiles, player, basic_kinds):
    """Whether some option of step 1 is affordable and placeable; else the player passes."""
    if any_placeable_cell(state, player):
        for slot in range(first_slot(state), last_slot(state) + 1):
            if can_make_lake(state, player, slot):
                return True
        for basic in range(3):
            if can_buy_basic(state, tiles, player, basic, basic_kinds):
                return True
    for position in range(s.tile_count(state, player)):
        if can_invest(state, tiles, player, s.placed_cell(state, player, position)):
            return True
    return False


@njit_without_refcounts
def is_legal_action(state, tiles, basic_kinds, action):
    """Whether `action` may be applied to `state` now."""
    if state[s.GAME_OVER] or action < 0 or action >= a.NUM_ACTIONS:
        return False
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    kind, choice, cell = a.action_fields(action)
    if decision == c.DECISION_KEEP_GOAL:
        return kind == a.KIND_KEEP_GOAL
    if decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE:
        wanted = a.KIND_DISCARD if decision == c.DECISION_DISCARD else a.KIND_REMOVE
        return (kind == wanted and first_slot(state) <= choice <= last_slot(state)
                and can_pay_premium(state, player, choice))
    if decision != c.DECISION_TURN:
        return False
    if kind == a.KIND_PASS:
        return not any_turn_option(state, tiles, player, basic_kinds)
    if kind == a.KIND_INVEST:
        return can_invest(state, tiles, player, cell)
    if kind == a.KIND_BASIC:
        return (is_placeable(state, player, cell)
                and can_buy_basic(state, tiles, player, choice, basic_kinds))
    if kind != a.KIND_BUY and kind != a.KIND_LAKE:
        return False
    if choice < first_slot(state) or choice > last_slot(state) \
            or not is_placeable(state, player, cell):
        return False
    if kind == a.KIND_LAKE:
        return can_make_lake(state, player, choice)
    return can_buy(state, tiles, player, choice)


@njit_without_refcounts
def _enable_block(mask, actions, count, block_start, cells_start, placeable):
    """Enable and list one block of place-a-tile actions (`block_start` + cell) for the
    `placeable` cells gathered at actions[cells_start:]; return the new count."""
    for index in range(placeable):
        action = block_start + actions[cells_start + index]
        mask[action] = True
        actions[count + index] = action
    return count + placeable


@njit_without_refcounts
def legal_action_mask(state, tiles, basic_kinds, mask, actions):
    """Fill `mask` (bool[NUM_ACTIONS]) and `actions` (int[NUM_ACTIONS]); return the count.

    `actions[:count]` lists the legal actions (within a turn the placing options in
    increasing order, then the investments in placement order of the tiles); sampling
    uniformly from that list is sampling uniformly from the mask. Nothing is allocated:
    this runs at every decision.
    """
    mask[:] = False
    count = 0
    if state[s.GAME_OVER]:
        mask[a.ACTION_PASS] = True
        return 0
    decision = state[s.PENDING_DECISION]
    player = state[s.CURRENT_PLAYER]
    if decision == c.DECISION_KEEP_GOAL:
        for option in range(2):
            number = a.action_number(a.KIND_KEEP_GOAL, option, -1)
            mask[number] = True
            actions[count] = number
            count += 1
        return count
    if decision == c.DECISION_DISCARD or decision == c.DECISION_REMOVE:
        kind = a.KIND_DISCARD if decision == c.DECISION_DISCARD else a.KIND_REMOVE
        for slot in range(first_slot(state), last_slot(state) + 1):
            if can_pay_premium(state, player, slot):
                number = a.action_number(kind, slot, -1)
                mask[number] = True
                actions[count] = number
                count += 1
        return count
    # The placeable cells (R2.4) wait at the end of `actions`: a turn lists at most
    # 17 blocks of (117 - tiles) cells plus one investment per tile, 1,989 actions at the
    # most, which stays below that part.
    cells_start = a.NUM_ACTIONS - NUM_CELLS
    placeable = 0
    for cell in range(NUM_CELLS):
        if s.is_placeable(state, player, cell):
            actions[cells_start + placeable] = cell
            placeable += 1
    if placeable > 0:
        for slot in range(first_slot(state), last_slot(state) + 1):
            if can_buy(state, tiles, player, slot):
                count = _enable_block(mask, actions, count, a.action_number(a.KIND_BUY, slot, 0),
                                      cells_start, placeable)
        for slot in range(first_slot(state), last_slot(state) + 1):
            if can_make_lake(state, player, slot):
                count = _enable_block(mask, actions, count, a.action_number(a.KIND_LAKE, slot, 0),
                                      cells_start, placeable)
        for basic in range(3):
            if can_buy_basic(state, tiles, player, basic, basic_kinds):
                count = _enable_block(mask, actions, count,
                                      a.action_number(a.KIND_BASIC, basic, 0),
                                      cells_start, placeable)
    if s.markers_left(state, player) > 0:
        for position in range(s.tile_count(state, player)):
            cell = s.placed_cell(state, player, position)
            if can_invest(state, tiles, player, cell):
                number = a.action_number(a.KIND_INVEST, -1, cell)
                mask[number] = True
                actions[count] = number
                count += 1
    if count == 0:
        mask[a.ACTION_PASS] = True
        actions[0] = a.ACTION_PASS
        count = 1
    return count


# Why an action is not legal ---------------------------------------------------------------

def illegal_reason(state, tiles, basic_kinds, action: int) -> str:
    """Why `action` is not legal now, in words with the rule id: the first predicate of
    `is_legal_action` that refuses it, with the numbers behind it (a price and the money
    held, the cell's content). Plain Python over the same compiled predicates, called
    only to explain a refusal; "legal" for a legal action."""
    from .hex_grid import cell_coordinates
    from .tile_data import TILES

    if is_legal_action(state, tiles, basic_kinds, action):
        return "legal"
    if state[s.GAME_OVER]:
        return "the game is over"
    decision = int(state[s.PENDING_DECISION])
    player = int(state[s.CURRENT_PLAYER])
    money = int(s.money(state, player))
    who = f"player {player}"

    def cell_words(cell: int) -> str:
        column, row = cell_coordinates(cell)
        return f"{column},{row}"

    def slot_problem(slot: int) -> str | None:
        if not first_slot(state) <= slot <= last_slot(state):
            return (f"the game against Dale uses market slots {c.DALE_FIRST_SLOT}-"
                    f"{c.DALE_LAST_SLOT} only (R9.2)")
        if s.market_slot(state, slot) < 0:
            return f"market slot {slot} is empty"
        return None

    def premium_problem(slot: int, what: str, rule: str) -> str:
        return (f"{what} slot {slot} costs its premium ${c.SLOT_PREMIUMS[slot]}; {who} has "
                f"${money} ({rule})")

    def cell_problem(cell: int) -> str:
        kind = int(s.cell_kind(state, player, cell))
        if kind >= 0:
            held = "a lake" if s.is_lake(state, player, cell) else \
                TILES.names[kind]
            return f"cell {cell_words(cell)} of {who}'s borough already holds {held} (R2.4)"
        return (f"cell {cell_words(cell)} touches no tile or lake of {who}'s borough: a new "
                f"tile goes next to one (R2.4)")

    if decision == c.DECISION_KEEP_GOAL:
        return f"{who} first keeps one of the two goals drawn (R3.6): keep <goal>"
    if not 0 <= action < a.NUM_ACTIONS:
        return f"action {action} is outside 0..{a.NUM_ACTIONS - 1}"
    move = a.decode_action(action)
    if decision in (c.DECISION_DISCARD, c.DECISION_REMOVE):
        verb = "discard" if decision == c.DECISION_DISCARD else "remove"
        rule = "R5.1b, d" if decision == c.DECISION_DISCARD else "R9.1"
        if move.kind != verb:
            now = ("discards a market tile, paying its premium" if verb == "discard"
                   else "removes a market tile before the refill, paying its premium")
            return f"{who} now {now} ({rule}): {verb} <slot>"
        slot = move.slot
        problem = slot_problem(slot)
        return problem or premium_problem(slot, "discarding" if verb == "discard"
                                          else "removing", rule)
    # a turn (R5.1)
    if move.kind == "keep":
        return "the goals were kept at the start of the game (R3.6)"
    if move.kind == "remove":
        return "remove is the Solitary Architect's step before the refill (R9.1)"
    if move.kind == "discard":
        return "a discard follows buying a basic tile or investing (R5.1b, d)"
    if move.kind == "pass":
        return ("a player passes only when no option of step 1 is affordable and "
                "placeable (R5.1)")
    cell = move.cell
    if move.kind == "invest":
        kind = int(s.cell_kind(state, player, cell))
        if s.markers_left(state, player) <= 0:
            return f"{who} has no investment marker left (R5.1d)"
        if kind < 0:
            return f"{who} has no tile at {cell_words(cell)} to invest in (R5.1d)"
        if s.is_invested(state, player, cell):
            return f"the tile at {cell_words(cell)} already carries a marker (R5.1d)"
        price = investment_price(state, tiles, player, cell)
        return (f"investing at {cell_words(cell)} costs the tile's printed cost ${price} "
                f"again; {who} has ${money} (R5.1d)")
    if move.kind == "basic":
        basic = move.basic
        name = c.BASIC_TILE_NAMES[basic]
        if s.supply(state, basic) <= 0:
            return f"no {name} is left in the basic supply (R3.5)"
        cost = int(tile_cost(tiles, basic_kinds[basic]))
        if money < cost:
            return f"{name} costs ${cost}; {who} has ${money} (R5.1b)"
        return cell_problem(cell)
    lake = move.kind == "lake"
    slot = move.slot
    problem = slot_problem(slot)
    if problem:
        return problem
    if lake and not can_make_lake(state, player, slot):
        return premium_problem(slot, "a lake from", "R5.1c")
    if not lake and not can_buy(state, tiles, player, slot):
        kind = int(s.market_slot(state, slot))
        cost = int(tile_cost(tiles, kind))
        premium = c.SLOT_PREMIUMS[slot]
        return (f"{TILES.names[kind]} in slot {slot} costs ${cost} + premium ${premium} = "
                f"${cost + premium}; {who} has ${money} (R5.1a)")
    return cell_problem(cell)
