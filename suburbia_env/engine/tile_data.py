"""The one place that reads tiles.csv and goals.csv (package data) into arrays.

Every tile kind becomes a row of `TILES.table` (an int32 array the compiled core reads);
every goal a row of `GOALS.table`, in the columns of tile_table.py, whose accessors every
other module reads them with. Two synthetic kinds follow the printed tiles: the lake
(R6.7: a tile whose conditional is `adjacent(any type):$+2`) and One More Round (R4.3).
Values are encoded as given (RULES.md: never "fix" a value silently); anything the
notation of R6 cannot express raises `DataFileError` naming the row and column.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from importlib import resources

import numpy as np

from . import constants as c
from .tile_table import (COLUMN_CONDITIONAL_AMOUNT, COLUMN_CONDITIONAL_ATTRIBUTE,
                         COLUMN_CONDITIONAL_COUNT, COLUMN_CONDITIONAL_SCOPE,
                         COLUMN_CONDITIONAL_TARGET, COLUMN_COPIES, COLUMN_COST, COLUMN_FEATURES,
                         COLUMN_ICON, COLUMN_IMMEDIATE_AMOUNT, COLUMN_IMMEDIATE_ATTRIBUTE,
                         COLUMN_IMMEDIATE_COUNT, COLUMN_NEGATIVE_POPULATION, COLUMN_REACTS_TO,
                         COLUMN_STACK, COLUMN_TYPE, GOAL_COLUMN_CRITERION, GOAL_COLUMN_DIRECTION,
                         GOAL_COLUMN_EXCLUDED_WITH_DALE, GOAL_COLUMN_FEATURES,
                         GOAL_COLUMN_PRIVATE_BONUS, GOAL_COLUMN_PUBLIC_BONUS, MAX_TERMS,
                         NUM_GOAL_COLUMNS, NUM_TILE_COLUMNS)

LAKE_NAME = "Lake"
ONE_MORE_ROUND_NAME = "One More Round"

_ATTRIBUTES = {"inc": c.ATTR_INCOME, "rep": c.ATTR_REPUTATION, "pop": c.ATTR_POPULATION, "$": c.ATTR_MONEY}
_TERM = re.compile(r"^(inc|rep|pop|\$)([+-]\d+)$")
_CONDITIONAL = re.compile(r"^([a-z_]+)(?:\(([^)]*)\))?:(\S+)$")
_SCOPES = {name: index for index, name in enumerate(c.SCOPE_NAMES)}
_STACKS = {name: index for index, name in enumerate(c.STACK_NAMES)}
_TILE_MATCHING_SCOPES = (c.SCOPE_ADJACENT, c.SCOPE_OWN, c.SCOPE_EVERY, c.SCOPE_OTHERS,
                         c.SCOPE_AFTER_EVERY)


class DataFileError(ValueError):
    """A row of tiles.csv or goals.csv that the notation of RULES.md R6 cannot express."""


def _type_feature(name: str) -> int:
    return 1 << c.TYPE_NAMES.index(name)


def _icon_feature(name: str) -> int:
    return 1 << (c.NUM_TYPES + c.ICON_NAMES.index(name))


def _icon_by_any_name(text: str) -> int:
    """Icon index from `restaurant`, `#Restaurant`, `Airport-icon`, `#Dealership`, ..."""
    key = text.lstrip("#").lower().replace("-icon", "").replace(" ", "_")
    for index, name in enumerate(c.ICON_NAMES):
        if key == name or name.endswith("_" + key):
            return index
    raise KeyError(text)


def _parse_target(text: str, where: str) -> int:
    """Feature bitmask of `Residential|Commercial` or `#Office` (R6.4)."""
    mask = 0
    for part in text.split("|"):
        part = part.strip()
        try:
            if part.startswith("#"):
                mask |= _icon_feature(c.ICON_NAMES[_icon_by_any_name(part)])
            else:
                mask |= _type_feature(part.lower())
        except (KeyError, ValueError):
            raise DataFileError(f"{where}: unknown target {part!r}") from None
    if mask & c.TYPE_FEATURE_MASK and mask & c.ICON_FEATURE_MASK:
        raise DataFileError(f"{where}: a target mixes types and icons: {text!r}")
    return mask


def _parse_term(text: str, where: str) -> tuple[int, int]:
    match = _TERM.match(text.strip())
    if not match:
        raise DataFileError(f"{where}: cannot read effect {text!r}")
    return _ATTRIBUTES[match.group(1)], int(match.group(2))


@dataclass(frozen=True)
class TileData:
    """Tile kinds: names, display notes and the int32 table the core reads."""

    names: tuple[str, ...]
    special_rules: tuple[str, ...]
    confidence: tuple[str, ...]
    table: np.ndarray
    lake: int
    one_more_round: int
    basic_kinds: np.ndarray  # kinds of suburbs, park, factory (notation order)

    def kind(self, name: str) -> int:
        """Kind index of a tile name (case-insensitive); KeyError names the unknown tile."""
        key = name.strip().lower()
        for index, known in enumerate(self.names):
            if known.lower() == key:
                return index
        raise KeyError(f"unknown tile {name!r}")

    @property
    def num_kinds(self) -> int:
        return len(self.names)


@dataclass(frozen=True)
class GoalData:
    """Goal tiles: names, criteria text and the int32 table the core reads."""

    names: tuple[str, ...]
    criteria: tuple[str, ...]
    table: np.ndarray

    def goal(self, name: str) -> int:
        key = name.strip().lower()
        for index, known in enumerate(self.names):
            if known.lower() == key:
                return index
        raise KeyError(f"unknown goal {name!r}")


def _read_rows(filename: str) -> list[dict[str, str]]:
    text = resources.files("suburbia_env.engine").joinpath("data", filename).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


def parse_tiles(rows: list[dict[str, str]]) -> TileData:
    """Build the tile table from the rows of tiles.csv (R6 notation)."""
    kinds = len(rows) + 2
    table = np.zeros((kinds, NUM_TILE_COLUMNS), dtype=np.int32)
    names, notes, confidence = [], [], []
    for index, row in enumerate(rows):
        name = row["name"].strip()
        where = f"tiles.csv row {index + 2} ({name})"
        names.append(name)
        notes.append(row.get("special_rule", "").strip())
        confidence.append(row.get("confidence", "").strip())
        try:
            tile_type = c.TYPE_NAMES.index(row["type"].strip().lower())
        except ValueError:
            raise DataFileError(f"{where}: unknown type {row['type']!r}") from None
        icon_text = row["icon"].strip()
        try:
            icon = _icon_by_any_name(icon_text) if icon_text else c.NO_ICON
        except KeyError:
            raise DataFileError(f"{where}: unknown icon {icon_text!r}") from None
        if row["stack"].strip() not in _STACKS:
            raise DataFileError(f"{where}: unknown stack {row['stack']!r}")
        table[index, COLUMN_TYPE] = tile_type
        table[index, COLUMN_ICON] = icon
        features = 1 << tile_type
        if icon != c.NO_ICON:
            features |= 1 << (c.NUM_TYPES + icon)
        table[index, COLUMN_FEATURES] = features
        try:
            table[index, COLUMN_COST] = int(row["cost"])
            table[index, COLUMN_COPIES] = int(row["copies"])
        except ValueError:
            raise DataFileError(f"{where}: cost and copies must be whole numbers") from None
        table[index, COLUMN_STACK] = _STACKS[row["stack"].strip()]

        immediate = row["immediate"].split()
        if len(immediate) > MAX_TERMS:
            raise DataFileError(f"{where}: more than {MAX_TERMS} immediate terms")
        table[index, COLUMN_IMMEDIATE_COUNT] = len(immediate)
        for term_index, term in enumerate(immediate):
            attribute, amount = _parse_term(term, where + " immediate")
            table[index, COLUMN_IMMEDIATE_ATTRIBUTE + term_index] = attribute
            table[index, COLUMN_IMMEDIATE_AMOUNT + term_index] = amount

        conditional = [t.strip() for t in row["conditional"].split(";") if t.strip()]
        if len(conditional) > MAX_TERMS:
            raise DataFileError(f"{where}: more than {MAX_TERMS} conditional terms")
        _encode_conditional(table, index, conditional, where + " conditional")
    lake = len(rows)
    one_more_round = lake + 1
    names += [LAKE_NAME, ONE_MORE_ROUND_NAME]
    notes += ["R6.7: a lake pays $2 for each adjacent non-lake tile.", "R4.3"]
    confidence += ["rule", "rule"]
    table[lake, COLUMN_TYPE] = c.NO_TYPE
    table[lake, COLUMN_ICON] = c.NO_ICON
    _encode_conditional(table, lake, ["adjacent(Residential|Commercial|Civic|Industrial):$+2"],
                        "lake (R6.7)")
    table[one_more_round, COLUMN_TYPE] = c.NO_TYPE
    table[one_more_round, COLUMN_ICON] = c.NO_ICON
    table[one_more_round, COLUMN_COPIES] = 1
    table[one_more_round, COLUMN_STACK] = c.STACK_C
    basic_kinds = []
    for basic in c.BASIC_TILE_NAMES:
        if basic not in names:
            raise DataFileError(f"tiles.csv has no basic tile {basic!r}")
        basic_kinds.append(names.index(basic))
    table.setflags(write=False)
    return TileData(tuple(names), tuple(notes), tuple(confidence), table, lake,
                    one_more_round, np.array(basic_kinds, dtype=np.int32))


def _encode_conditional(table: np.ndarray, index: int, terms: list[str], where: str) -> None:
    table[index, COLUMN_CONDITIONAL_COUNT] = len(terms)
    for term_index, term in enumerate(terms):
        match = _CONDITIONAL.match(term.replace(" ", ""))
        if not match:
            raise DataFileError(f"{where}: cannot read term {term!r}")
        scope_name, target_text, effect = match.groups()
        if scope_name not in _SCOPES:
            raise DataFileError(f"{where}: unknown scope {scope_name!r}")
        scope = _SCOPES[scope_name]
        if (target_text is None) != (scope not in _TILE_MATCHING_SCOPES):
            raise DataFileError(f"{where}: scope {scope_name!r} with wrong targets in {term!r}")
        target = _parse_target(target_text, where) if target_text else 0
        attribute, amount = _parse_term(effect, where)
        if scope == c.SCOPE_REDLINE_OWN and attribute == c.ATTR_POPULATION:
            raise DataFileError(f"{where}: a red-line reaction cannot move population")
        if scope == c.SCOPE_LAKE_ADJACENT_OWN and attribute != c.ATTR_MONEY:
            raise DataFileError(f"{where}: lake_adj_own adds money only (R6.7)")
        table[index, COLUMN_CONDITIONAL_SCOPE + term_index] = scope
        table[index, COLUMN_CONDITIONAL_TARGET + term_index] = target
        table[index, COLUMN_CONDITIONAL_ATTRIBUTE + term_index] = attribute
        table[index, COLUMN_CONDITIONAL_AMOUNT + term_index] = amount
        table[index, COLUMN_REACTS_TO] |= target
        if attribute == c.ATTR_POPULATION and amount < 0:
            table[index, COLUMN_NEGATIVE_POPULATION] = 1
    for term_index in range(table[index, COLUMN_IMMEDIATE_COUNT]):
        if (table[index, COLUMN_IMMEDIATE_ATTRIBUTE + term_index] == c.ATTR_POPULATION
                and table[index, COLUMN_IMMEDIATE_AMOUNT + term_index] < 0):
            table[index, COLUMN_NEGATIVE_POPULATION] = 1


_GROUP = re.compile(r"^size of largest group of connected (.+?)( tiles)?$")
_COUNT = re.compile(r"^(.+?) tiles in own borough$")


def _parse_criterion(text: str, where: str) -> tuple[int, int]:
    """(criterion, feature mask) from the `counts` column of goals.csv (R8.2)."""
    key = text.strip().lower()
    simple = {
        "lakes in own borough": c.CRITERION_LAKE_COUNT,
        "money at game end (before conversion)": c.CRITERION_MONEY,
        "investment markers placed": c.CRITERION_MARKERS_PLACED,
        "income level": c.CRITERION_INCOME,
        "reputation level": c.CRITERION_REPUTATION,
    }
    if key in simple:
        return simple[key], 0
    group = _GROUP.match(key)
    if group:
        if group.group(1) == "lakes":
            return c.CRITERION_LARGEST_LAKE_GROUP, 0
        return c.CRITERION_LARGEST_FEATURE_GROUP, _feature_of_words(group.group(1), where)
    count = _COUNT.match(key)
    if count:
        return c.CRITERION_FEATURE_COUNT, _feature_of_words(count.group(1), where)
    raise DataFileError(f"{where}: cannot read criterion {text!r}")


def _feature_of_words(words: str, where: str) -> int:
    words = words.strip()
    if words in c.TYPE_NAMES:
        return _type_feature(words)
    try:
        return 1 << (c.NUM_TYPES + _icon_by_any_name(words))
    except KeyError:
        raise DataFileError(f"{where}: unknown tile feature {words!r}") from None


def parse_goals(rows: list[dict[str, str]]) -> GoalData:
    """Build the goal table from the rows of goals.csv."""
    table = np.zeros((len(rows), NUM_GOAL_COLUMNS), dtype=np.int32)
    names, criteria = [], []
    for index, row in enumerate(rows):
        name = row["name"].strip()
        where = f"goals.csv row {index + 2} ({name})"
        criterion, features = _parse_criterion(row["counts"], where)
        direction = row["criterion"].strip().lower()
        if direction not in ("most", "fewest"):
            raise DataFileError(f"{where}: criterion must be most or fewest, not {direction!r}")
        try:
            public_bonus = int(row["population_bonus_public"])
            private_bonus = int(row["population_bonus_private"])
        except ValueError:
            raise DataFileError(f"{where}: bonuses must be whole numbers") from None
        table[index, GOAL_COLUMN_CRITERION] = criterion
        table[index, GOAL_COLUMN_FEATURES] = features
        table[index, GOAL_COLUMN_DIRECTION] = c.GOAL_MOST if direction == "most" else c.GOAL_FEWEST
        table[index, GOAL_COLUMN_PUBLIC_BONUS] = public_bonus
        table[index, GOAL_COLUMN_PRIVATE_BONUS] = private_bonus
        table[index, GOAL_COLUMN_EXCLUDED_WITH_DALE] = criterion in (
            c.CRITERION_LAKE_COUNT, c.CRITERION_LARGEST_LAKE_GROUP, c.CRITERION_MARKERS_PLACED)
        names.append(name)
        criteria.append(f"{direction} {row['counts'].strip()}")
    table.setflags(write=False)
    return GoalData(tuple(names), tuple(criteria), table)


TILES = parse_tiles(_read_rows("tiles.csv"))
GOALS = parse_goals(_read_rows("goals.csv"))
NUM_KINDS = TILES.num_kinds
NUM_GOALS = len(GOALS.names)
