"""Tile effects and goals in words, read from the engine's own tables (tile_data.py).

The effect notation of tiles.csv (R6: `inc+3 rep-2`, `adjacent(Residential):pop+3`,
`after_every(#Restaurant):inc-1`, ...) is turned into sentences once, here, so that every
place that shows a tile (the web page's hover, the SVG drawing's tooltips, the terminal
game) says the same thing. The words come from `TILES.table`, the very numbers the
compiled core resolves, never from a second reading of the CSV.

    >>> tile_effects(TILES.kind("Fast Food Restaurant"))[0]
    'When placed: +1 income.'
    >>> tile_effects(TILES.kind("Fast Food Restaurant"))[1][:50]
    '+3 population for each adjacent residential tile, '
"""

from __future__ import annotations

from functools import lru_cache

from ..engine import constants as c
from ..engine.tile_data import GOALS, TILES
from ..engine.tile_table import (conditional_amount, conditional_attribute, conditional_scope,
                                 conditional_target, conditional_term_count, immediate_amount,
                                 immediate_attribute, immediate_term_count, private_goal_bonus,
                                 public_goal_bonus, tile_copies, tile_cost, tile_features,
                                 tile_icon, tile_stack, tile_type)
from .vocabulary import ATTRIBUTE_WORDS, ICON_BRIEF_WORDS, ICON_WORDS, TYPE_BRIEF_WORDS


def amount_words(attribute: int, amount: int) -> str:
    """`+3 population`, `-1 income`, `+$2`, `-$4` (R6.1, R6.8)."""
    if attribute == c.ATTR_MONEY:
        return f"{'+' if amount >= 0 else '-'}${abs(amount)}"
    return f"{amount:+d} {ATTRIBUTE_WORDS[attribute]}"


def target_words(target: int) -> str:
    """The tiles a conditional term counts (R6.4), as the noun phrase after "each":
    `residential tile`, `civic or commercial tile`, `tile with an office icon`,
    `non-lake tile` (all four types); types in the order of the rules (R1.4)."""
    types = [c.TYPE_NAMES[t] for t in range(c.NUM_TYPES) if target & (1 << t)]
    icons = [ICON_WORDS[i] for i in range(c.NUM_ICONS) if target & (1 << (c.NUM_TYPES + i))]
    if len(types) == c.NUM_TYPES:
        return "non-lake tile"
    if icons:
        article = "an" if icons[0][0] in "aeiou" else "a"
        return f"tile with {article} {_either(icons)} icon"
    return f"{_either(types)} tile"


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _conditional_sentence(kind: int, scope: int, target: int, attribute: int,
                          amount: int) -> str:
    effect = amount_words(attribute, amount)
    what = target_words(target) if target else ""
    itself = " (this one included)" if tile_features(TILES.table, kind) & target else ""
    if scope == c.SCOPE_ADJACENT:
        return f"{effect} for each adjacent {what}, now and whenever one is placed later."
    if scope == c.SCOPE_OWN:
        return f"{effect} for each {what} in your borough{itself}, now and later."
    if scope == c.SCOPE_EVERY:
        return f"{effect} for each {what} in every borough{itself}, now and later."
    if scope == c.SCOPE_OTHERS:
        return f"{effect} for each {what} in the other players' boroughs, now and later."
    if scope == c.SCOPE_AFTER_EVERY:
        return f"{effect} for each {what} placed after this one, in any borough."
    if scope == c.SCOPE_REDLINE_OWN:
        return f"{effect} each time you cross a red line upward from now on."
    if scope == c.SCOPE_LAKE_ADJACENT_OWN:
        return f"{effect} more on every lake payment you receive from now on."
    raise ValueError(f"unknown scope {scope}")


def tile_effects(kind: int) -> list[str]:
    """The effects of a tile kind as sentences: the immediate effect (R6.1) first, then
    one sentence per conditional term (R6.2-R6.7), in the order of the data."""
    sentences = []
    immediate = [amount_words(immediate_attribute(TILES.table, kind, term),
                              immediate_amount(TILES.table, kind, term))
                 for term in range(immediate_term_count(TILES.table, kind))]
    if immediate:
        sentences.append("When placed: " + ", ".join(immediate) + ".")
    for term in range(conditional_term_count(TILES.table, kind)):
        sentences.append(_conditional_sentence(kind, conditional_scope(TILES.table, kind, term),
                                               conditional_target(TILES.table, kind, term),
                                               conditional_attribute(TILES.table, kind, term),
                                               conditional_amount(TILES.table, kind, term)))
    if kind == TILES.lake:
        sentences = ["A tile placed face down: +$2 for each adjacent non-lake tile, now and "
                     "whenever one is placed next to it later; nothing for lakes (R6.7)."]
    if not sentences:
        sentences.append("No effect.")
    return sentences




def _brief_amount(attribute: int, amount: int) -> str:
    if attribute == c.ATTR_MONEY:
        return f"{'+' if amount >= 0 else '-'}${abs(amount)}"
    return f"{amount:+d} {c.ATTRIBUTE_NAMES[attribute]}"


def _brief_target(target: int) -> str:
    types = [TYPE_BRIEF_WORDS[t] for t in range(c.NUM_TYPES) if target & (1 << t)]
    icons = [ICON_BRIEF_WORDS[i] for i in range(c.NUM_ICONS) if target & (1 << (c.NUM_TYPES + i))]
    if len(types) == c.NUM_TYPES:
        return "tile"
    return "/".join(icons or types)


def tile_effects_brief(kind: int) -> str:
    """The effects of `tile_effects` in the fewest characters, for a market line on an
    80-column screen: `+1 inc; +3 pop per adj res`, `-1 rep per adj res; +1 inc per
    airport anywhere`. The same table, the same order; `tile_effects` says it in full."""
    if kind == TILES.lake:
        return "+$2 per adj tile (not lake)"
    parts = [" ".join(_brief_amount(immediate_attribute(TILES.table, kind, term),
                                    immediate_amount(TILES.table, kind, term))
                      for term in range(immediate_term_count(TILES.table, kind)))]
    for term in range(conditional_term_count(TILES.table, kind)):
        scope = conditional_scope(TILES.table, kind, term)
        effect = _brief_amount(conditional_attribute(TILES.table, kind, term),
                               conditional_amount(TILES.table, kind, term))
        what = _brief_target(conditional_target(TILES.table, kind, term))
        parts.append({c.SCOPE_ADJACENT: f"{effect} per adj {what}",
                      c.SCOPE_OWN: f"{effect} per own {what}",
                      c.SCOPE_EVERY: f"{effect} per {what} anywhere",
                      c.SCOPE_OTHERS: f"{effect} per {what} of others",
                      c.SCOPE_AFTER_EVERY: f"{effect} per later {what}",
                      c.SCOPE_REDLINE_OWN: f"{effect} per red line crossed",
                      c.SCOPE_LAKE_ADJACENT_OWN: f"{effect} per lake payment"}[scope])
    return "; ".join(part for part in parts if part) or "no effect"


def tile_type_words(kind: int) -> str:
    type_index = tile_type(TILES.table, kind)
    return c.TYPE_NAMES[type_index] if type_index >= 0 else "lake"


def tile_icon_words(kind: int) -> str | None:
    icon = tile_icon(TILES.table, kind)
    return ICON_WORDS[icon] if icon >= 0 else None


@lru_cache(maxsize=None)
def tile_info(kind: int) -> dict:
    """Everything a player reads on a tile: name, type, icon, cost, stack, copies and the
    effects in words (plus the rules note of tiles.csv when there is one)."""
    return {
        "kind": int(kind),
        "name": TILES.names[kind],
        "type": tile_type_words(kind),
        "icon": tile_icon_words(kind),
        "cost": tile_cost(TILES.table, kind),
        "stack": c.STACK_NAMES[tile_stack(TILES.table, kind)],
        "copies": tile_copies(TILES.table, kind),
        "effects": tile_effects(kind),
        "note": TILES.special_rules[kind],
    }


def tile_summary(kind: int) -> str:
    """One paragraph: `Fast Food Restaurant (commercial, restaurant icon, $7). When placed:
    +1 income. +3 population for each adjacent residential tile, ...`."""
    info = tile_info(kind)
    if kind == TILES.lake:
        return "Lake. " + " ".join(info["effects"])
    icon = f", {info['icon']} icon" if info["icon"] else ""
    return f"{info['name']} ({info['type']}{icon}, ${info['cost']}). " + " ".join(info["effects"])


def tile_catalog() -> list[dict]:
    """`tile_info` of every tile kind a borough can hold (the lettered and basic tiles and
    the lake), indexed by kind; One More Round is left out."""
    return [tile_info(kind) for kind in range(TILES.num_kinds) if kind != TILES.one_more_round]


def criterion_words(goal: int) -> str:
    """What a goal rewards (R8.2): `Most lakes in own borough`, `Lowest income level`,
    `Largest group of connected civic tiles`, `Fewest investment markers placed`."""
    direction, counts = GOALS.criteria[goal].split(" ", 1)
    if counts.startswith("size of largest group of connected "):
        return "Largest group of connected " + counts[len("size of largest group of connected "):]
    if counts.startswith("money"):
        return ("Most " if direction == "most" else "Least ") + counts
    if counts.endswith(" level"):
        return ("Highest " if direction == "most" else "Lowest ") + counts
    return direction.capitalize() + " " + counts


@lru_cache(maxsize=None)
def goal_info(goal: int) -> dict:
    """A goal tile (R8.2): name, criterion in words and the two bonuses."""
    return {
        "goal": int(goal),
        "name": GOALS.names[goal],
        "criterion": criterion_words(goal),
        "public_bonus": public_goal_bonus(GOALS.table, goal),
        "private_bonus": private_goal_bonus(GOALS.table, goal),
    }


def goal_summary(goal: int, private: bool = False) -> str:
    info = goal_info(goal)
    bonus = info["private_bonus"] if private else info["public_bonus"]
    return f"{info['name']}: {info['criterion']} (+{bonus} population)"
