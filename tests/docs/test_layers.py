"""The layers of docs/architecture.md hold, and no import circle is left (issue 31, item 1).

The import graph of suburbia_env, agents and training is read from the source with ast:
every `import` and `from ... import`, at the top of a module or inside a function (an
import deferred into a function is still a dependency). A module may import its own
layer and lower ones only. The old-path aliases (suburbia_env/_moved.py, the
suburbia_env/cli.py shim, training's aliases of modules that moved to agents/) stand
outside the layers: they only point from an old name to a new one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repository import REPO

PACKAGES = ("suburbia_env", "agents", "training")

LAYERS = (
    ("foundation", ("suburbia_env.errors", "suburbia_env.versions", "suburbia_env.arguments")),
    ("engine", ("suburbia_env.engine",)),
    ("formats and display", ("suburbia_env.formats", "suburbia_env.display")),
    ("facade", ("suburbia_env", "suburbia_env.game", "suburbia_env.positions",
                "suburbia_env.serialization")),
    ("environments", ("suburbia_env.envs",)),
    ("agents", ("agents",)),
    ("training", ("training",)),
    ("apps", ("suburbia_env.apps",)),
)
"""Lowest first (docs/architecture.md, "Layers"); a module belongs to the layer of its
longest matching prefix. The package `suburbia_env` itself (its __init__) is the
facade's front door: it re-exports Game and the errors and registers the Gymnasium ids
by name, importing no environment; `serialization.py` beside game.py keeps the save and
load functions of earlier releases over formats/. The root names only itself: a new module directly in
suburbia_env/ has no layer until it is given one here."""

ROOT = "suburbia_env"

ALIASES = ("suburbia_env._moved", "suburbia_env.cli", "training.features",
           "training.compact_input", "training.rllib_module")
"""Old module paths kept importable (the version history, docs/reference.md "Rules
versions"): outside the layers, and left out of the graph."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES
            for path in sorted((REPO / package).rglob("*.py"))}


def imported_names(tree: ast.Module, name: str, is_package: bool,
                   ours: set[str]) -> set[str]:
    """The modules of ours that the module's import statements name, relative ones
    resolved: `from X import a` imports X.a where that is a module of ours, else X;
    `import X.Y` imports X.Y, or its longest prefix of ours."""
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(_ours(alias.name, ours) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                found.add(whole if whole in ours else _ours(base, ours))
    return found - {None, name}


def _ours(dotted: str, ours: set[str]) -> str | None:
    parts = dotted.split(".")
    while parts and ".".join(parts) not in ours:
        parts.pop()
    return ".".join(parts) or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports, the aliases left out on both ends."""
    modules = source_modules()
    ours = {name for name in modules if not is_alias(name)}
    graph = {}
    for name in sorted(ours):
        path = modules[name]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[name] = imported_names(tree, name, path.name == "__init__.py", ours)
    return graph


def is_alias(name: str) -> bool:
    return name in ALIASES


def layer_of(name: str) -> int:
    best, layer = -1, None
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            inside = name == prefix or (prefix != ROOT and name.startswith(prefix + "."))
            if inside and len(prefix) > best:
                best, layer = len(prefix), number
    if layer is None:
        raise AssertionError(f"{name} belongs to no layer: add it to LAYERS")
    return layer


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components, iteratively (the graph has a few hundred nodes)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_every_module_has_a_layer(graph):
    assert len(graph) > 80 and set(ALIASES) <= set(source_modules()) - set(graph)
    for name in graph:
        layer_of(name)
    assert [layer_of(name) for name in ("suburbia_env", "suburbia_env.engine.checks.invariants",
                                        "suburbia_env.apps.web.app")] == [3, 1, 7]


def test_no_module_imports_a_higher_layer(graph):
    upward = [f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} "
              f"({LAYERS[layer_of(target)][0]})"
              for name, targets in sorted(graph.items()) for target in sorted(targets)
              if layer_of(target) > layer_of(name)]
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


def test_no_import_circle(graph):
    circles = [component for component in strongly_connected(graph) if len(component) > 1]
    described = [" <-> ".join(component) + ": " + "; ".join(
        f"{name} -> {target}" for name in component for target in sorted(graph[name])
        if target in component) for component in circles]
    assert not described, "import circles:\n" + "\n".join(described)


def test_the_graph_sees_imports_inside_functions():
    """The reader is not blind to deferred imports: a function-level import is an edge."""
    tree = ast.parse("def f():\n    from .b import c\n    import agents.d.e\n")
    ours = {"agents", "agents.a", "agents.b", "agents.d"}
    assert imported_names(tree, "agents.a", False, ours) == {"agents.b", "agents.d"}
