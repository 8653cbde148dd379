"""The layout of the tile and goal tables has one home: suburbia_env/engine/tile_table.py.

Every other module reads the tables through its accessors (`tile_cost(tiles, kind)`,
`conditional_scope(tiles, kind, term)`, `public_goal_bonus(goals, goal)`, ...). These
tests scan the sources for a column of the tables named outside it (`tile_data.py`, which
fills the tables, is the one other module that may) or a table indexed by row and column
by hand (`tiles[kind, 3]`), and check each accessor against the column it hides.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repository import python_files

from suburbia_env.engine import tile_table as tt
from suburbia_env.engine.tile_data import GOALS, TILES

ROOT = Path(__file__).resolve().parents[2]
SCANNED_DIRS = ("suburbia_env", "agents", "training", "benchmarks", "tests")
LAYOUT_MODULES = (Path("suburbia_env/engine/tile_table.py"),
                  Path("suburbia_env/engine/tile_data.py"),
                  Path(__file__).resolve().relative_to(ROOT))
COLUMNS = {name for name in vars(tt) if name.startswith(("COLUMN_", "GOAL_COLUMN_"))}
TABLE_NAMES = {"tiles", "goals"}  # the tables' names as kernel parameters and bundle fields
TABLE_HOLDERS = {"TILES", "GOALS"}  # tile_data's objects, whose `.table` is the table


def _is_table(node: ast.AST) -> bool:
    """`tiles`, `goals`, `tables.tiles`, `TILES.table` or `GOALS.table`."""
    if isinstance(node, ast.Name):
        return node.id in TABLE_NAMES
    if isinstance(node, ast.Attribute):
        if node.attr in TABLE_NAMES:
            return True
        return (node.attr == "table" and isinstance(node.value, ast.Name)
                and node.value.id in TABLE_HOLDERS)
    return False


def column_arithmetic(path: Path) -> list[str]:
    """`file:line: code` of every column name of the tables (imported or used) and of
    every table subscript by row and column, in one source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [f"{path}:{node.lineno}: import {alias.name}" for alias in node.names
                      if alias.name in COLUMNS]
        elif isinstance(node, ast.Name) and node.id in COLUMNS:
            found.append(f"{path}:{node.lineno}: {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in COLUMNS:
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Subscript) and _is_table(node.value)
              and isinstance(node.slice, ast.Tuple)):
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_finds_column_arithmetic(tmp_path):
    """Not vacuous: the forms the accessors replace are found."""
    sample = tmp_path / "sample.py"
    sample.write_text("from suburbia_env.engine.tile_table import COLUMN_COST\n"
                      "from suburbia_env.engine import tile_table as tt\n"
                      "from suburbia_env.engine.tile_data import GOALS, TILES\n"
                      "def f(tiles, goals, tables, kind, term, goal):\n"
                      "    a = tiles[kind, COLUMN_COST]\n"
                      "    b = tiles[kind, tt.COLUMN_CONDITIONAL_SCOPE + term]\n"
                      "    c = TILES.table[kind, 4] + GOALS.table[goal, 3]\n"
                      "    d = tables.goals[goal, 0]\n"
                      "    return a + b + c + d + tiles[kind][0]\n")
    assert len(column_arithmetic(sample)) == 8


def test_no_column_arithmetic_outside_the_table_layout():
    found = []
    for path in python_files(SCANNED_DIRS):
        if path not in LAYOUT_MODULES:
            found += column_arithmetic(ROOT / path)
    assert found == []


TILE_ACCESSORS = [(tt.tile_type, tt.COLUMN_TYPE), (tt.tile_icon, tt.COLUMN_ICON),
                  (tt.tile_features, tt.COLUMN_FEATURES), (tt.tile_cost, tt.COLUMN_COST),
                  (tt.tile_stack, tt.COLUMN_STACK), (tt.tile_copies, tt.COLUMN_COPIES),
                  (tt.immediate_term_count, tt.COLUMN_IMMEDIATE_COUNT),
                  (tt.conditional_term_count, tt.COLUMN_CONDITIONAL_COUNT),
                  (tt.reacts_to, tt.COLUMN_REACTS_TO)]
TERM_ACCESSORS = [(tt.immediate_attribute, tt.COLUMN_IMMEDIATE_ATTRIBUTE),
                  (tt.immediate_amount, tt.COLUMN_IMMEDIATE_AMOUNT),
                  (tt.conditional_scope, tt.COLUMN_CONDITIONAL_SCOPE),
                  (tt.conditional_target, tt.COLUMN_CONDITIONAL_TARGET),
                  (tt.conditional_attribute, tt.COLUMN_CONDITIONAL_ATTRIBUTE),
                  (tt.conditional_amount, tt.COLUMN_CONDITIONAL_AMOUNT)]
GOAL_ACCESSORS = [(tt.goal_criterion, tt.GOAL_COLUMN_CRITERION),
                  (tt.goal_features, tt.GOAL_COLUMN_FEATURES),
                  (tt.goal_direction, tt.GOAL_COLUMN_DIRECTION),
                  (tt.public_goal_bonus, tt.GOAL_COLUMN_PUBLIC_BONUS),
                  (tt.private_goal_bonus, tt.GOAL_COLUMN_PRIVATE_BONUS)]


@pytest.mark.parametrize("kind", range(TILES.num_kinds), ids=TILES.names)
def test_tile_accessors_read_the_columns_they_name(kind):
    table = TILES.table
    for accessor, column in TILE_ACCESSORS:
        assert accessor(table, kind) == table[kind, column], accessor.__name__
    for term in range(tt.MAX_TERMS):
        for accessor, column in TERM_ACCESSORS:
            assert accessor(table, kind, term) == table[kind, column + term], accessor.__name__
    assert tt.can_lower_population(table, kind) == bool(
        table[kind, tt.COLUMN_NEGATIVE_POPULATION])


@pytest.mark.parametrize("goal", range(len(GOALS.names)), ids=GOALS.names)
def test_goal_accessors_read_the_columns_they_name(goal):
    for accessor, column in GOAL_ACCESSORS:
        assert accessor(GOALS.table, goal) == GOALS.table[goal, column], accessor.__name__
    assert tt.goal_excluded_with_dale(GOALS.table, goal) == bool(
        GOALS.table[goal, tt.GOAL_COLUMN_EXCLUDED_WITH_DALE])


def test_every_column_has_its_accessor():
    """The columns read above are every column of both tables."""
    tile_columns = ({column for _, column in TILE_ACCESSORS}
                    | {column + term for _, column in TERM_ACCESSORS
                       for term in range(tt.MAX_TERMS)} | {tt.COLUMN_NEGATIVE_POPULATION})
    assert tile_columns == set(range(tt.NUM_TILE_COLUMNS))
    goal_columns = {column for _, column in GOAL_ACCESSORS} | {
        tt.GOAL_COLUMN_EXCLUDED_WITH_DALE}
    assert goal_columns == set(range(tt.NUM_GOAL_COLUMNS))
