"""Keep numba's on-disk caches in step with the sources their kernels were compiled from.

numba recompiles a cached kernel only when the file that defines it changes, not when a
kernel or constant it uses from another file does: after a rules change the greedy
player's kernels in agents/ would go on running the old engine, inlined into their cached
machine code. So every directory that holds cached kernels (`KERNEL_SOURCE_DIRS`) gets a
digest of the sources its kernels can depend on, stored as a marker file in each
directory numba may cache them in; when the marker differs, every cached kernel there
is deleted before any can be loaded.

numba writes a cache folder's index file (one per source file, listing each compiled
signature and its data file) by reading it, adding an entry and writing it back, with no
lock: two processes compiling kernels of one file at once (two warm-up workers, a recipe's
recording workers on a fresh installation) can lose an entry, or pair a signature with
the data file of another. `lock_cache_files` makes every read and write of a cache file
take a file lock in its folder (shared to read, exclusive to write).

Both run on `import suburbia_env`, before the package imports any kernel module. Every
module outside the package that caches kernels imports `suburbia_env` before its first
kernel, and numba loads a cached kernel only at its first call, so no stale kernel runs.
tests/engine/test_kernel_cache.py fails if a cached kernel appears where this does not reach.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core import config as numba_config
from numba.core.caching import _CacheLocator
from numba.misc.appdirs import AppDirs

# As numba sees it: the absolute path of the file, symbolic links not resolved.
ENGINE_DIR = Path(os.path.abspath(__file__)).parent
PACKAGE_DIR = ENGINE_DIR.parent

# The directories whose files may define cached kernels, in dependency order: a
# directory's kernels may call kernels and use constants of the directories before it
# (the state checks and the agents call the engine; the engine calls neither). All are
# in this distribution: agents/ is the package's sibling in a checkout and in site-packages.
KERNEL_SOURCE_DIRS = (ENGINE_DIR, ENGINE_DIR / "checks", PACKAGE_DIR.parent / "agents")

MARKER_NAME = "kernel_sources.sha256"
LOCK_NAME = "kernel_cache.lock"
CACHE_PATTERNS = ("*.nbi", "*.nbc")  # numba's index and data files


def kernel_source_dirs() -> list[Path]:
    """The directories of KERNEL_SOURCE_DIRS present in this installation."""
    return [directory for directory in KERNEL_SOURCE_DIRS if directory.is_dir()]


def digest_inputs(source_dir: Path = ENGINE_DIR) -> list[Path]:
    """The files the kernels of `source_dir` can depend on: those of the directories
    before it and its own. The engine's and its checks' are the package's Python files
    outside apps/ (importing an engine module runs the package's __init__, which imports
    the facade and the formats) and the data tables (kernels hold the tables of
    engine/data/*.csv as constants); agents' add the Python files of agents/."""
    directories = kernel_source_dirs()
    if source_dir not in directories:
        raise ValueError(f"{source_dir} is not one of KERNEL_SOURCE_DIRS")
    inputs: dict[Path, None] = {}
    for directory in directories[:directories.index(source_dir) + 1]:
        inputs.update(dict.fromkeys(_own_inputs(directory)))
    return list(inputs)


def _own_inputs(directory: Path) -> list[Path]:
    if directory.is_relative_to(ENGINE_DIR):
        return (sorted(path for path in PACKAGE_DIR.rglob("*.py")
                       if path.relative_to(PACKAGE_DIR).parts[0] != "apps")
                + sorted(ENGINE_DIR.glob("data/*.csv")))
    return sorted(directory.glob("*.py"))


def sources_digest(source_dir: Path = ENGINE_DIR) -> str:
    """SHA-256 over the names and contents of digest_inputs(source_dir)."""
    digest = hashlib.sha256()
    for path in digest_inputs(source_dir):
        digest.update(path.relative_to(PACKAGE_DIR.parent).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_directories(source_dir: Path) -> list[Path]:
    """Every directory numba may cache the kernels of `source_dir`'s files in.

    numba (numba/core/caching.py, CacheImpl._locator_classes) takes the first writable of:
    NUMBA_CACHE_DIR joined with `<directory name>_<sha1 of its absolute path>` (a flat
    folder per source directory, not a mirror of the source path), the `__pycache__`
    beside the file, and the same subfolder of the user-wide cache (~/.cache/numba).
    Any of them may hold kernels of an earlier run, so all are returned, for the path
    as imported and, should another run import it by another name, with symbolic links
    resolved.
    """
    user_wide = AppDirs(appname="numba", appauthor=False).user_cache_dir
    directories = []
    for form in dict.fromkeys([os.path.abspath(source_dir), str(Path(source_dir).resolve())]):
        subpath = _CacheLocator.get_suitable_cache_subpath(os.path.join(form, "__init__.py"))
        if numba_config.CACHE_DIR:
            directories.append(Path(numba_config.CACHE_DIR) / subpath)
        directories += [Path(form) / "__pycache__", Path(user_wide) / subpath]
    return list(dict.fromkeys(directories))


def drop_stale_kernels() -> list[Path]:
    """Delete the cached kernels compiled from other sources than the present ones;
    returns the deleted files.

    Each cache directory holds the kernels of one source directory only (numba's layout
    above), so whatever it caches is dropped when that directory's digest changed. The
    directory numba tries first is created, so that its marker exists before the first
    kernel is cached there (else the next run would drop the fresh kernels once).
    """
    dropped: list[Path] = []
    for source_dir in kernel_source_dirs():
        digest = sources_digest(source_dir)
        directories = cache_directories(source_dir)
        for index, directory in enumerate(directories):
            dropped += _refresh(directory, digest, create=index == 0)
    return dropped


def _refresh(directory: Path, digest: str, create: bool) -> list[Path]:
    """Empty `directory` of cached kernels unless its marker says `digest`, then mark it."""
    marker = directory / MARKER_NAME
    stale: list[Path] = []
    try:
        if not directory.is_dir():
            if not create:
                return []
            directory.mkdir(parents=True, exist_ok=True)
        if marker.is_file() and marker.read_text() == digest:
            return []
        for pattern in CACHE_PATTERNS:
            for path in directory.glob(pattern):
                path.unlink(missing_ok=True)
                stale.append(path)
        # Written to a temporary name and renamed: a process starting meanwhile never
        # reads half a marker (and so never drops fresh kernels).
        temporary = directory / f"{MARKER_NAME}.{os.getpid()}"
        temporary.write_text(digest)
        os.replace(temporary, marker)
    except OSError:  # a read-only or vanished directory: numba cannot cache there either
        pass
    return stale


def lock_cache_files() -> None:
    """From now on in this process, numba reads a cache file under a shared lock on
    LOCK_NAME in its folder and writes one under an exclusive lock (module docstring).
    Without fcntl (not POSIX) nothing changes."""
    try:
        import fcntl
    except ImportError:
        return
    from numba.core import caching

    cache_file = caching.IndexDataCacheFile
    if getattr(cache_file.save, "locked_by_kernel_cache", False):
        return

    def locked(method, mode):
        def call(self, *arguments):
            try:
                lock = open(os.path.join(self._cache_path, LOCK_NAME), "a")
            except OSError:  # a folder numba cannot write to: it caches nothing there
                return method(self, *arguments)
            with lock:  # closing the file releases the lock
                fcntl.flock(lock, mode)
                return method(self, *arguments)
        call.locked_by_kernel_cache = True
        return call

    cache_file.save = locked(cache_file.save, fcntl.LOCK_EX)
    cache_file.load = locked(cache_file.load, fcntl.LOCK_SH)
