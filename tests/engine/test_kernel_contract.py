"""The kernel contract of docs/architecture.md ("Kernels"), checked on the kernels
themselves.

The modules of suburbia_env/ and agents/ that define kernels are imported and every
numba dispatcher they define is collected; the rules a program can check are checked on
each: its cache (K1), its allocations and callees without reference counts (K2, K3), its
writes (K4), the literals handed down to the resolution (K5), and, by running them, the
silent log of trials (K6) and the placement/undo pair (K7). The invalidation of the
caches themselves is tested by test_kernel_cache.py, the entry points (K8) by
test_compiled_call.py.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

from suburbia_env.engine import constants as c
from suburbia_env.engine import event_log as ev
from suburbia_env.engine import kernel_cache
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.dale import (RESOLVE_EVERY_TRIAL, SUMS_WHERE_EXACT,
                                      _trial_snapshot, _undo_trial_placement,
                                      dale_choose_cell)
from suburbia_env.engine.hex_grid import NUM_CELLS
from suburbia_env.engine.legal_actions import is_placeable
from suburbia_env.engine.resolution import (ALL_BOROUGHS, FACE_UP, OWN_BOROUGH_ONLY,
                                            resolve_placement)
from suburbia_env.engine.state_layout import lake_kind
from suburbia_env.engine.tile_data import TILES
from suburbia_env.engine.constants import DALE_SEAT

from probe_positions import probe_positions

# numpy functions that make a new array (K2).
ALLOCATING_FUNCTIONS = {
    "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
    "array", "copy", "arange", "linspace", "concatenate", "stack", "hstack", "vstack",
    "repeat", "tile", "unique", "sort", "argsort", "cumsum", "where", "nonzero"}
ALLOCATING_METHODS = {"copy", "astype", "flatten", "ravel"}
# Array methods that write in place (K4).
WRITING_METHODS = {"fill", "sort", "put", "itemset", "resize"}
# Parameters that hold the read-only tables (tile_data.py) in every kernel (K4): one
# table each, or all of them bundled (env_core.Tables).
TABLE_PARAMETERS = {"tiles", "goals", "basic_kinds", "tables"}
# The most positional parameters a kernel takes: more are bundled (env_core.Tables,
# Settings, Games) rather than listed (issue 21, item 3).
MAX_KERNEL_PARAMETERS = 13
# The kernels that resolve a tile (R7): no literal is handed down to them (K5).
RESOLVING_KERNELS = ("resolve_placement", "resolve_investment")


def _kernel_modules():
    """The modules of KERNEL_SOURCE_DIRS whose source mentions numba's njit or the
    accessors' decorator."""
    modules = []
    for directory in kernel_cache.kernel_source_dirs():
        for path in sorted(directory.glob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "njit" in text or "inline_accessor" in text:
                package = ".".join(directory.relative_to(kernel_cache.PACKAGE_DIR.parent).parts)
                name = package if path.stem == "__init__" else f"{package}.{path.stem}"
                modules.append(importlib.import_module(name))
    return modules


def _collect_kernels():
    """{qualified name: dispatcher} of every kernel defined in those modules."""
    kernels = {}
    for module in _kernel_modules():
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                kernels[f"{module.__name__}.{name}"] = value
    return kernels


KERNELS = _collect_kernels()


def refcount_free(kernel) -> bool:
    return kernel.targetoptions.get("_nrt") is False


def function_tree(kernel) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(inspect.getsource(kernel.py_func))).body[0]


def parameters(kernel) -> list[str]:
    return [argument.arg for argument in function_tree(kernel).args.args]


def local_names(tree: ast.FunctionDef) -> set[str]:
    """Parameters and every name the function binds."""
    names = {argument.arg for argument in tree.args.args}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def global_value(kernel, node: ast.AST, local: set[str]):
    """What a name or dotted name that is not local refers to in the kernel's module
    (None when local or unknown)."""
    if isinstance(node, ast.Name):
        if node.id in local:
            return None
        return kernel.py_func.__globals__.get(node.id)
    if isinstance(node, ast.Attribute):
        base = global_value(kernel, node.value, local)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def kernel_calls(kernel):
    """(call node, called kernel) for every call of a kernel in `kernel`'s body."""
    tree = function_tree(kernel)
    local = local_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = global_value(kernel, node.func, local)
            if isinstance(callee, CPUDispatcher):
                yield node, callee


def root_name(node: ast.AST) -> ast.AST:
    """The array a subscript or attribute chain starts from: `a` of `a[i][j]`."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def bundle_root(node: ast.AST) -> ast.AST:
    """The name a chain of subscripts and fields starts from: `tables` of
    `tables.tiles[i, j]`."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node


def test_the_scan_finds_the_engine_and_agents_kernels():
    """Not vacuous: the resolution (refcount-free), setup and the greedy player (plain)."""
    assert len(KERNELS) > 150
    assert refcount_free(KERNELS["suburbia_env.engine.resolution.resolve_placement"])
    assert refcount_free(KERNELS["suburbia_env.engine.dale.dale_choose_cell"])
    assert not refcount_free(KERNELS["suburbia_env.engine.setup.new_game"])
    assert not refcount_free(KERNELS["agents.greedy.greedy_action"])
    assert sum(map(refcount_free, KERNELS.values())) > 100


def test_k1_every_kernel_is_cached_where_stale_caches_are_dropped():
    """Cached (cache=True), in a directory of kernel_cache.KERNEL_SOURCE_DIRS: only there
    does an engine change drop the kernels compiled from the old sources."""
    guarded = set(kernel_cache.kernel_source_dirs())
    uncached = [name for name, kernel in KERNELS.items() if isinstance(kernel._cache, NullCache)]
    unguarded = [name for name, kernel in KERNELS.items()
                 if Path(inspect.getfile(kernel.py_func)).parent not in guarded]
    assert uncached == []
    assert unguarded == []


def test_k2_kernels_without_reference_counts_allocate_no_array():
    """numba refuses an allocation in such a kernel when it compiles it; this finds the
    written ones without compiling (a kernel no test runs included)."""
    found = []
    for name, kernel in KERNELS.items():
        if not refcount_free(kernel):
            continue
        tree = function_tree(kernel)
        local = local_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            owner = global_value(kernel, node.func.value, local)
            if ((owner is np and node.func.attr in ALLOCATING_FUNCTIONS)
                    or (owner is None and node.func.attr in ALLOCATING_METHODS)):
                found.append(f"{name}: {ast.unparse(node)}")
    assert found == []


def test_k2_kernels_without_reference_counts_call_only_their_kind():
    """A kernel without reference counts calls no kernel compiled with them."""
    found = [f"{name} calls {callee.py_func.__name__}"
             for name, kernel in KERNELS.items() if refcount_free(kernel)
             for _, callee in kernel_calls(kernel) if not refcount_free(callee)]
    assert found == []


def test_k4_no_kernel_writes_to_a_module_array_or_a_table():
    """Module arrays are constants frozen into the machine code, and the tables
    (`tiles`, `goals`, `basic_kinds`) are shared by every game: kernels only read them."""
    found = []
    for name, kernel in KERNELS.items():
        tree = function_tree(kernel)
        local = local_names(tree)
        table_parameters = TABLE_PARAMETERS & set(parameters(kernel))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                written = [target for target in node.targets if isinstance(target, ast.Subscript)]
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                written = [node.target]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in WRITING_METHODS):
                written = [node.func.value]
            else:
                continue
            for target in written:
                array = root_name(target)
                bundle = bundle_root(target)
                if (isinstance(global_value(kernel, array, local), np.ndarray)
                        or (isinstance(array, ast.Name) and array.id in table_parameters)
                        or (isinstance(bundle, ast.Name) and bundle.id == "tables"
                            and "tables" in table_parameters)):
                    found.append(f"{name}: {ast.unparse(target)}")
    assert found == []


def test_k4_the_table_bundle_is_recognised():
    """Not vacuous: the environment kernels take the tables bundled (env_core.Tables), and
    a write through the bundle is what the scan above looks for."""
    bundled = [name for name, kernel in KERNELS.items() if "tables" in parameters(kernel)]
    assert "suburbia_env.engine.env_core.step_game" in bundled and len(bundled) >= 10
    write = ast.parse("tables.tiles[0, 1] = 2").body[0].targets[0]
    assert ast.unparse(bundle_root(write)) == "tables"


def test_no_kernel_takes_more_than_a_handful_of_positional_parameters():
    """Tables, settings and batch buffers travel as bundles (env_core.py): the environment
    kernels, which once took up to 26 arguments, now take at most seven."""
    too_many = [f"{name}: {len(parameters(kernel))}" for name, kernel in KERNELS.items()
                if len(parameters(kernel)) > MAX_KERNEL_PARAMETERS]
    assert too_many == []
    environment = {name: len(parameters(kernel)) for name, kernel in KERNELS.items()
                   if name.startswith("suburbia_env.engine.env_core.") and "games" in parameters(kernel)}
    assert environment and max(environment.values()) <= 7, environment


def _is_literal(kernel, node: ast.AST, local: set[str]) -> bool:
    """A bare number or bool (`-1` included: Python folds it into one constant), or a
    module constant that is a Python int or bool: numba types each value as a literal
    of its own."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        node = node.operand
    if isinstance(node, ast.Constant):
        return type(node.value) in (bool, int)
    return type(global_value(kernel, node, local)) in (bool, int)


def _reached_by_literal(kernel, parameter: str, seen: set) -> set:
    """The kernels a literal given as `parameter` of `kernel` is compiled into: `kernel`
    and, through every call that hands the parameter on unchanged, its callees."""
    seen.add((kernel, parameter))
    reached = {kernel}
    for call, callee in kernel_calls(kernel):
        callee_parameters = parameters(callee)
        for position, argument in enumerate(call.args[:len(callee_parameters)]):
            if isinstance(argument, ast.Name) and argument.id == parameter:
                step = (callee, callee_parameters[position])
                if step not in seen:
                    reached |= _reached_by_literal(callee, step[1], seen)
    return reached


def test_k5_no_literal_is_handed_down_into_the_resolution():
    """numba compiles a kernel once more for each literal value it is given, and with it
    every kernel the value is handed on to. A flag or seat that travels down to the
    resolution of a tile (R7) is therefore typed, or the whole resolution is compiled
    once more: as Dale's seat would be, were it a bare 1 (constants.DALE_SEAT)."""
    resolving = {KERNELS[f"suburbia_env.engine.resolution.{name}"] for name in RESOLVING_KERNELS}
    dale_choice = KERNELS["suburbia_env.engine.dale.dale_choose_cell"]
    assert _reached_by_literal(dale_choice, "player", set()) & resolving
    found = []
    for name, kernel in KERNELS.items():
        local = local_names(function_tree(kernel))
        for call, callee in kernel_calls(kernel):
            callee_parameters = parameters(callee)
            for position, argument in enumerate(call.args[:len(callee_parameters)]):
                if (_is_literal(kernel, argument, local)
                        and _reached_by_literal(callee, callee_parameters[position], set())
                        & resolving):
                    found.append(f"{name}: {ast.unparse(call)}")
    assert found == []


def test_k5_the_flags_of_the_resolution_and_dale_are_numpy_typed():
    """The module constants that select a path through the resolution, Dale's trials and
    Dale's turn carry the types a kernel reads from the state: np.bool_ and np.int32."""
    for flag in (FACE_UP, ALL_BOROUGHS, OWN_BOROUGH_ONLY, SUMS_WHERE_EXACT, RESOLVE_EVERY_TRIAL):
        assert type(flag) is np.bool_
    assert type(DALE_SEAT) is np.int32 and DALE_SEAT == 1


def test_k6_a_one_row_log_records_nothing_and_a_full_log_counts_what_it_drops():
    silent = ev.new_log(0)
    ev.record(silent, ev.EVENT_EFFECT, 0, c.ATTR_INCOME, 1, 3, 0, 5, 7)
    assert silent.shape == (1, ev.NUM_EVENT_FIELDS) and not silent.any()
    small = ev.new_log(2)
    for amount in (1, 2, 3):
        ev.record(small, ev.EVENT_EFFECT, 0, c.ATTR_INCOME, amount, amount, 0, 5, 7)
    assert small[0, 0] == 2 and small[0, 1] == 1
    assert list(small[1:, ev.FIELD_AMOUNT]) == [1, 2]


@pytest.mark.slow
@pytest.mark.parametrize("seats, mode, edition", [
    (4, c.MODE_STANDARD, c.EDITION_FIRST), (1, c.MODE_SOLITARY, c.EDITION_SECOND),
    (2, c.MODE_DALE, c.EDITION_SECOND)], ids=["4p 1st", "solitary", "dale"])
def test_k6_k7_trials_are_undone_exactly_and_record_nothing(seats, mode, edition):
    """The placement/undo pair: a face-up placement resolved without step 7 (R7.1) and
    taken back with `_undo_trial_placement` leaves every entry of the state as it was, at
    every legal cell (R2.4) of every seat for every market tile and the lake; and Dale's
    choice handed a log with room records none of its trials."""
    positions = probe_positions(seats, mode, edition, 31 + seats + mode, 3, False)
    tiles = TILES.table
    silent = ev.new_log(0)
    roomy = ev.new_log(64)
    trials = 0
    for state in positions:
        before = state.copy()
        kinds = [int(kind) for kind in state[s.MARKET:s.MARKET + c.NUM_SLOTS] if kind >= 0]
        for player in range(int(state[s.NUM_PLAYERS])):
            for kind in kinds + [lake_kind(tiles)]:
                for cell in range(NUM_CELLS):
                    if not is_placeable(state, player, cell):
                        continue
                    snapshot = _trial_snapshot(state, player, cell)
                    resolve_placement(state, tiles, silent, player, cell, kind, FACE_UP,
                                      OWN_BOROUGH_ONLY)
                    _undo_trial_placement(state, tiles, player, cell, kind, snapshot)
                    trials += 1
                    assert np.array_equal(state, before), (player, kind, cell)
                dale_choose_cell(state, tiles, roomy, player, kind)
                assert not roomy.any() and np.array_equal(state, before)
    assert trials > 5000 and not silent.any()
