"""No cached machine code of other sources ever runs (suburbia_env/engine/kernel_cache.py).

numba recompiles a cached kernel only when its own file changes, so a kernel that calls
the engine from another file would keep running the old rules after a rules change.
These tests scan the repository for every cached kernel and check that the invalidation
digest covers its file and everything that file imports, that numba's own locators put
its cache where the invalidation cleans, and that the package is imported (and so the
invalidation runs) before the kernel can be loaded. One test proves the invalidation
end to end: in a copy of the sources with a temporary cache, an agents kernel is cached,
reused, then recompiled after an engine file changes. Nothing here deletes the shared
working tree's caches.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba.core.config
import pytest
from numba.core.caching import (InTreeCacheLocator, UserProvidedCacheLocator,
                                 UserWideCacheLocator)

from repository import REPO
from suburbia_env.engine import kernel_cache

ENGINE = kernel_cache.ENGINE_DIR.resolve()
PACKAGE = kernel_cache.PACKAGE_DIR.resolve()
SKIPPED_PARTS = {"__pycache__", "build", "dist", "runs"}


def repository_files(suffix: str) -> list[Path]:
    """The repository's files ending in `suffix`, outside hidden and generated folders."""
    return sorted(path for path in REPO.rglob(f"*{suffix}")
                  if not any(part.startswith(".") or part in SKIPPED_PARTS
                             or part.endswith(".egg-info")
                             for part in path.relative_to(REPO).parts[:-1]))


def relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def callee_name(node: ast.AST) -> str | None:
    """`njit` for `njit`, `numba.njit`, `njit(...)`; None for anything else."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def enables_cache(node: ast.AST) -> bool:
    """A call with `cache=` anything but a literal False (numba's jit, njit, vectorize...)."""
    return isinstance(node, ast.Call) and any(
        keyword.arg == "cache"
        and not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False)
        for keyword in node.keywords)


def caching_wrappers(trees: dict[Path, ast.Module]) -> set[str]:
    """Names that cache what they wrap: functions and assignments whose body holds a
    `cache=True` call, such as suburbia_env.engine.refcount_free.njit_without_refcounts."""
    names = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(enables_cache(inner) for statement in node.body
                       for inner in ast.walk(statement)):  # the body, not the decorators
                    names.add(node.name)
            elif isinstance(node, ast.Assign) and any(enables_cache(inner)
                                                      for inner in ast.walk(node.value)):
                names.update(target.id for target in node.targets
                             if isinstance(target, ast.Name))
    return names


def cached_kernel_lines(tree: ast.Module, wrappers: set[str]) -> list[int]:
    """Lines of `tree` that cache a kernel: a `cache=True` call (as a decorator or not)
    or a use of a caching wrapper as a decorator or call."""
    lines = set()
    for node in ast.walk(tree):
        if enables_cache(node):
            lines.add(node.lineno)
        elif isinstance(node, ast.Call) and callee_name(node.func) in wrappers:
            lines.add(node.lineno)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines.update(decorator.lineno for decorator in node.decorator_list
                         if callee_name(decorator) in wrappers)
    return sorted(lines)


def scan() -> dict[Path, list[int]]:
    """Every Python file of the repository that caches a kernel, with the lines."""
    trees = {path: parse(path) for path in repository_files(".py")}
    wrappers = caching_wrappers(trees)
    assert "njit_without_refcounts" in wrappers
    found = {path: cached_kernel_lines(tree, wrappers) for path, tree in trees.items()}
    return {path: lines for path, lines in found.items() if lines}


CACHED = scan()


def module_file(name: str) -> Path | None:
    """The repository file of module `name`, or None when it is not the repository's."""
    base = REPO.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_level_imports(path: Path, before_line: int | None = None) -> set[Path]:
    """Repository files imported at module level by `path` (their packages' __init__
    files included, as importing a module runs them). Imports inside functions are
    left out: a kernel can only use what its module holds at import."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = []

    def visit(statements):
        for node in statements:
            if before_line is not None and node.lineno >= before_line:
                return
            if isinstance(node, ast.Import):
                names.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                names.append(module)
                names.extend(f"{module}.{alias.name}" for alias in node.names)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body + node.orelse + getattr(node, "finalbody", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(parse(path).body)
    files = set()
    for name in names:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            found = module_file(".".join(parts[:end]))
            if found is not None:
                files.add(found)
    return files - {path}


def transitive_imports(path: Path) -> set[Path]:
    seen, todo = set(), [path]
    while todo:
        for imported in module_level_imports(todo.pop()):
            if imported not in seen:
                seen.add(imported)
                todo.append(imported)
    return seen - {path}


def test_the_scan_finds_the_known_cached_kernels():
    """The scan is not vacuous: it sees the engine's and the agents' cached kernels."""
    found = {relative(path) for path in CACHED}
    assert {"agents/greedy.py", "agents/value_search.py", "suburbia_env/engine/turn.py",
            "suburbia_env/engine/refcount_free.py", "suburbia_env/engine/env_core.py"} <= found
    assert "tests/engine/test_properties.py" not in found  # its kernels say cache=False


def test_no_notebook_caches_a_kernel():
    """A notebook's cached kernel (IPython's cache, keyed by its cell only) would never
    see an engine change; keep kernels that cache in the packages."""
    for path in repository_files(".ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        for cell in cells:
            source = "".join(cell.get("source", []))
            if cell.get("cell_type") == "code":
                assert not re.search(r"cache\s*=\s*True|njit_without_refcounts", source), path


@pytest.mark.parametrize("path", sorted(CACHED), ids=relative)
def test_every_cached_kernel_is_digested_and_its_cache_cleaned(path, monkeypatch, tmp_path):
    """A cached kernel's file, and every repository module it imports, feeds the digest
    that guards its cache; and each directory numba's own locators may cache it in
    (NUMBA_CACHE_DIR set or not) is one the invalidation cleans."""
    source_dirs = {directory.resolve(): directory
                   for directory in kernel_cache.kernel_source_dirs()}
    assert path.parent in source_dirs, (
        f"{path} caches kernels outside kernel_cache.KERNEL_SOURCE_DIRS")
    source_dir = source_dirs[path.parent]
    digested = set(kernel_cache.digest_inputs(source_dir))
    assert path in digested
    missing = transitive_imports(path) - digested
    assert not missing, f"{path} depends on files its digest ignores: {sorted(missing)}"

    def kernel():
        pass

    for cache_dir in (None, str(tmp_path / "numba-cache")):
        monkeypatch.setattr(numba.core.config, "CACHE_DIR", cache_dir)
        cleaned = kernel_cache.cache_directories(source_dir)
        locators = [InTreeCacheLocator, UserWideCacheLocator]
        if cache_dir:
            locators.insert(0, UserProvidedCacheLocator)
        for locator in locators:
            used = Path(locator(kernel, str(path)).get_cache_path())
            assert used in cleaned, f"{locator.__name__} caches {path} in {used}"
        assert cleaned[0] == Path(locators[0](kernel, str(path)).get_cache_path())


def test_digests_follow_the_dependency_order():
    """An engine change reaches every digest; a change in agents/ leaves the engine's
    cache alone (the engine never imports agents)."""
    directories = kernel_cache.kernel_source_dirs()
    assert directories[0] == kernel_cache.ENGINE_DIR
    assert [directory.resolve() for directory in directories] == [ENGINE, ENGINE / "checks",
                                                                   REPO / "agents"]
    engine = set(kernel_cache.digest_inputs(kernel_cache.ENGINE_DIR))
    assert set(kernel_cache.ENGINE_DIR.glob("data/*.csv")) <= engine
    for directory in directories:
        assert engine <= set(kernel_cache.digest_inputs(directory))
    assert all(path.resolve().is_relative_to(PACKAGE) for path in engine)
    assert not any(path.resolve().is_relative_to(PACKAGE / "apps") for path in engine)


@pytest.mark.parametrize("path", sorted(path for path in CACHED
                                        if not path.is_relative_to(ENGINE)),
                         ids=relative)
def test_kernels_outside_the_package_import_it_first(path):
    """Importing suburbia_env runs the invalidation, so a module outside it must import
    it (directly or through a module that does) before its first cached kernel."""
    first_kernel = CACHED[path][0]
    imported = module_level_imports(path, before_line=first_kernel)
    for module in list(imported):
        imported |= transitive_imports(module)
    assert any(module.parent == ENGINE for module in imported), path


def test_the_package_drops_stale_kernels_before_importing_any():
    """suburbia_env/__init__.py calls drop_stale_kernels() before any other import of
    its own modules (each of which may define kernels)."""
    body = parse(PACKAGE / "__init__.py").body
    calls = [index for index, node in enumerate(body)
             if isinstance(node, ast.Expr) and callee_name(node.value) == "drop_stale_kernels"]
    assert calls
    for node in body[:calls[0]]:
        if isinstance(node, ast.ImportFrom) and node.level:
            assert node.module == "engine.kernel_cache"


PROBE = r"""
import json
from pathlib import Path

import numpy as np
import agents.one_ply as one_ply
from suburbia_env.engine import kernel_cache, state_layout

cache_path = one_ply.turns_left.stats.cache_path
cached = sorted(path.name for path in Path(cache_path).glob("one_ply.turns_left*"))
one_ply.turns_left(np.zeros(state_layout.STATE_SIZE, dtype=np.int32))
stats = one_ply.turns_left.stats
print(json.dumps({"module": one_ply.__file__, "engine": kernel_cache.__file__,
                  "cached_at_start": cached, "cache_path": cache_path,
                  "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("numba_cache_dir", [True, False],
                         ids=["NUMBA_CACHE_DIR", "__pycache__"])
def test_an_engine_change_drops_the_cached_agents_kernels(tmp_path, monkeypatch,
                                                           numba_cache_dir):
    """In a copy of the sources: a kernel of the one-ply players is cached, then loaded
    from the cache; after an edit of turn.py (which one_ply.py does not contain, so numba alone
    would go on loading it) the import deletes it and the kernel is compiled again."""
    source = tmp_path / "src"
    for package in ("suburbia_env", "agents"):
        shutil.copytree(REPO / package, source / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
    env.update(PYTHONPATH=str(source), OMP_NUM_THREADS="1")
    if numba_cache_dir:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")

    def probe():
        run = subprocess.run([sys.executable, "-c", PROBE], cwd=source, env=env,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout.strip().splitlines()[-1])

    first = probe()
    assert Path(first["module"]).is_relative_to(source)
    assert Path(first["engine"]).is_relative_to(source)
    assert (first["hits"], first["misses"]) == (0, 1)
    expected = (tmp_path / "numba-cache") if numba_cache_dir else (source / "agents")
    assert Path(first["cache_path"]).is_relative_to(expected)
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", env.get("NUMBA_CACHE_DIR"))
    assert Path(first["cache_path"]) in kernel_cache.cache_directories(source / "agents")

    second = probe()
    assert second["cached_at_start"] and (second["hits"], second["misses"]) == (1, 0)

    with open(source / "suburbia_env" / "engine" / "turn.py", "a", encoding="utf-8") as turn:
        turn.write("\n# an engine change\n")
    third = probe()
    assert third["cached_at_start"] == []
    assert (third["hits"], third["misses"]) == (0, 1)
