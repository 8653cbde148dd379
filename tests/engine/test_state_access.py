"""The state's layout has one home: suburbia_env/engine/state_layout.py.

Every other module reads and writes a game's state through its accessors
(`s.money(state, player)`, `s.cell_kind(state, player, cell)`, ...). These tests scan
the sources for layout arithmetic written outside it: an index built by adding a layout
offset (`state[base + s.MONEY]`, `state[s.MARKET + slot]`), or a player's base computed
by hand; and check the accessors themselves against the layout they hide.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from repository import python_files

from suburbia_env.engine import constants as c
from suburbia_env.engine import state_layout as s
from suburbia_env.game import Game
from suburbia_env.engine.tile_data import TILES

ROOT = Path(__file__).resolve().parents[2]
SCANNED_DIRS = ("suburbia_env", "agents", "training", "benchmarks")
LAYOUT_MODULE = Path("suburbia_env/engine/state_layout.py")
# Offsets of the layout, as the names of state_layout that are ints (not sizes or flags).
LAYOUT_OFFSETS = {name for name, value in vars(s).items()
                  if name.isupper() and isinstance(value, int)
                  and not name.startswith(("FLAG_", "MAX_", "NUM_"))
                  and name not in ("PILE_CAPACITY", "STATE_SIZE")}
HAND_MADE_BASE = ("PLAYERS", "PLAYER_STRIDE")


def _layout_aliases(tree: ast.Module) -> set[str]:
    """Names the module binds to suburbia_env.engine.state_layout."""
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("state_layout", "suburbia_env", "suburbia_env.engine") \
                or isinstance(node, ast.ImportFrom) and node.module == "" and node.level:
            for alias in node.names:
                if alias.name == "state_layout":
                    aliases.add(alias.asname or alias.name)
        if isinstance(node, ast.ImportFrom) and node.module is None and node.level:
            for alias in node.names:
                if alias.name == "state_layout":
                    aliases.add(alias.asname or alias.name)
    return aliases


def _offsets_in(node: ast.AST, aliases: set[str]) -> list[str]:
    """The layout offsets an index expression adds to, not counting those of a nested
    subscript (`out[start + state[s.MODE]]` reads the state by name)."""
    if isinstance(node, ast.Subscript):
        return []
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in aliases and node.attr in LAYOUT_OFFSETS):
        return [f"{node.value.id}.{node.attr}"]
    return [found for child in ast.iter_child_nodes(node) for found in _offsets_in(child, aliases)]


def layout_arithmetic(path: Path) -> list[str]:
    """`file:line: code` of every index that adds to a layout offset, and of every sum
    or product with PLAYERS or PLAYER_STRIDE (a player's base made by hand), in one
    source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = _layout_aliases(tree)
    if not aliases:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for part in parts:
                bounds = [part.lower, part.upper] if isinstance(part, ast.Slice) else [part]
                if any(isinstance(bound, ast.BinOp) and _offsets_in(bound, aliases)
                       for bound in bounds if bound is not None):
                    found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.BinOp):
            for operand in ast.walk(node):
                if (isinstance(operand, ast.Attribute) and isinstance(operand.value, ast.Name)
                        and operand.value.id in aliases and operand.attr in HAND_MADE_BASE):
                    found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
                    break
    return found


def test_the_scan_finds_layout_arithmetic(tmp_path):
    """Not vacuous: the forms the accessors replace are found."""
    sample = tmp_path / "sample.py"
    sample.write_text("from suburbia_env.engine import state_layout as s\n"
                      "def f(state, base, slot, player):\n"
                      "    a = state[base + s.MONEY]\n"
                      "    state[s.MARKET + slot] = -1\n"
                      "    b = state[s.PILE:s.PILE + 5]\n"
                      "    return s.PLAYERS + player * s.PLAYER_STRIDE, state[s.ROUND]\n")
    assert len(layout_arithmetic(sample)) == 5


def test_no_layout_arithmetic_outside_the_layout_module():
    found = []
    for path in python_files(SCANNED_DIRS):
        if path == LAYOUT_MODULE:
            continue
        found += layout_arithmetic(ROOT / path)
    assert found == []


PLAYER_DIRS = ("agents", "training")


def state_writes(path: Path) -> list[str]:
    """`file:line: code` of every write to a state entry named by the layout in one source
    file: an assignment to `x[s.NAME]` (or an index built from one) or a call of a setter
    of state_layout (`s.set_money`, `s.add_cell_flags`, ...)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = _layout_aliases(tree)
    found = []
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign))
                   else [])
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Subscript) and any(
                        isinstance(name, ast.Attribute) and isinstance(name.value, ast.Name)
                        and name.value.id in aliases for name in ast.walk(part.slice)):
                    found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id in aliases
                and node.func.attr.startswith(("set_", "add_"))):
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_finds_state_writes(tmp_path):
    """Not vacuous: the writes a player must leave to the engine's kernels are found."""
    sample = tmp_path / "sample.py"
    sample.write_text("from suburbia_env.engine import state_layout as s\n"
                      "def f(scratch, player):\n"
                      "    scratch[s.PILE_POSITION] = scratch[s.PILE_END]\n"
                      "    scratch[s.MODE] += 0\n"
                      "    s.set_money(scratch, player, 3)\n"
                      "    return scratch[s.ROUND]\n")
    assert len(state_writes(sample)) == 3


def test_no_player_writes_a_state_field():
    """Players and learners change a state only through the engine's kernels (a trial is
    turn.own_turn_trial or full_turn_trial), never by writing an entry themselves."""
    found = []
    for directory in PLAYER_DIRS:
        for path in sorted((ROOT / directory).rglob("*.py")):
            found += state_writes(path)
    assert found == []


def test_one_player_base_and_no_bare_lake_row():
    """`player_base` is defined once, and the rows of the lake and One More Round in the
    tile table are named (`s.lake_kind(tiles)`, `s.one_more_round_kind(tiles)`)."""
    definitions = []
    for path in python_files(SCANNED_DIRS):
        text = (ROOT / path).read_text(encoding="utf-8")
        if "def player_base" in text:
            definitions.append(str(path))
        if path != LAYOUT_MODULE:
            assert "tiles.shape[0] - " not in text, path
    assert definitions == [str(LAYOUT_MODULE)]


def test_accessors_read_and_write_the_entries_of_the_layout():
    game = Game(players=3, mode="standard", seed=11)
    state = game.state.copy()
    for player in range(3):
        base = s.PLAYERS + player * s.PLAYER_STRIDE
        assert s.player_base(player) == base
        assert s.money(state, player) == state[base + s.MONEY] == c.START_MONEY
        assert s.income(state, player) == state[base + s.INCOME] == c.START_INCOME
        assert s.reputation(state, player) == c.START_REPUTATION
        assert s.population(state, player) == c.START_POPULATION
        assert s.markers_left(state, player) == c.START_MARKERS
        assert s.tile_count(state, player) == 3
        for attribute, offset in ((c.ATTR_INCOME, s.INCOME), (c.ATTR_REPUTATION, s.REPUTATION),
                                  (c.ATTR_POPULATION, s.POPULATION), (c.ATTR_MONEY, s.MONEY)):
            assert s.attribute_value(state, player, attribute) == state[base + offset]
        for cell in range(117):
            assert s.cell_kind(state, player, cell) == state[base + s.CELL_KIND + cell]
            assert s.cell_flags(state, player, cell) == state[base + s.CELL_FLAGS + cell]
            assert s.is_placeable(state, player, cell) == bool(
                state[base + s.CELL_FLAGS + cell] & s.FLAG_PLACEABLE)
    s.set_money(state, 2, 41)
    s.add_money(state, 2, -3)
    s.add_cell_flags(state, 1, 5, s.FLAG_INVESTED)
    s.set_market_slot(state, 6, -1)
    expected = game.state.copy()
    expected[s.PLAYERS + 2 * s.PLAYER_STRIDE + s.MONEY] = 38
    expected[s.PLAYERS + s.PLAYER_STRIDE + s.CELL_FLAGS + 5] |= s.FLAG_INVESTED
    expected[s.MARKET + 6] = -1
    assert np.array_equal(state, expected)
    assert [s.market_slot(state, slot) for slot in range(c.NUM_SLOTS)] == list(
        expected[s.MARKET:s.MARKET + c.NUM_SLOTS])


def test_lake_and_one_more_round_rows():
    assert s.lake_kind(TILES.table) == TILES.lake
    assert s.one_more_round_kind(TILES.table) == TILES.one_more_round


@pytest.mark.parametrize("attribute", [c.ATTR_INCOME, c.ATTR_REPUTATION, c.ATTR_POPULATION,
                                       c.ATTR_MONEY])
def test_effect_attributes_and_layout_offsets_are_distinct_names(attribute):
    """constants.ATTR_* number what an effect moves; state_layout's INCOME, ... are offsets
    in a player's block: the two sets of names never coincide."""
    assert not hasattr(c, "INCOME") and not hasattr(c, "MONEY")
    assert s.attribute_offset(attribute) in (s.INCOME, s.REPUTATION, s.POPULATION, s.MONEY)
