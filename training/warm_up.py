"""Compile (or load) the numba kernels a recipe runs before its first stage, with progress.

A fresh installation has no compiled kernels: the first game compiles the engine and the
greedy player, the first evaluation the vector environment, the first fit the fast
network's layers; minutes on the project's 2-core machine, once, after which every run
loads them from numba's cache in seconds. Done here, before the first stage, the user
sees a line saying so instead of a stage stuck at 0% (and the recording workers, started
later, load the kernels instead of compiling them twice over).

numba compiles on one thread per process (a global compiler lock), so the PARTS compile
in their own worker processes side by side, one per core: the greedy player's kernels,
the longest chain, on one core, the vector environment's and the network's on the other.
The kernels both use (the engine's step, Dale) are compiled by whichever worker comes to
them first and loaded from the cache by the other if it comes later. numba's cache
writes an index file per source file with a read-modify-write and no lock, so two
processes saving kernels of one file at once could pair a signature with the other's
machine code; the workers therefore hold a file lock around every cache read and write
(`_locked_cache_files`). A failing or dying worker stops the warm-up with an error that
names its part; the other worker is ended, nothing waits forever.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import tempfile
import time
import traceback

from suburbia_env.errors import SuburbiaError

COLD_COMPILE_SECONDS = 300.0
"""A fresh installation's compile of PARTS on the project's 2-core machine
(docs/performance.md): the estimate the progress line starts from."""

PARTS = {
    "training.warm_up:compile_recording": "the engine, Dale and the greedy player",
    "training.warm_up:compile_training": "the vector environment and the network",
}
"""What each warm-up worker compiles, as `module:function` (run once on a tiny input),
longest first."""

KERNEL_SIGNS = {"engine": "env_core.*.nbi", "agents": "greedy.*.nbi"}
"""Per kernel source folder, cached kernels PARTS compile (the vector environment's core,
the greedy player): without them the kernels are still to compile."""

WORKER_POLL_SECONDS = 0.5


class WarmUpError(SuburbiaError):
    """A warm-up worker failed or died: which part, and why."""


def kernels_cached() -> bool:
    """Whether the cache numba uses first (NUMBA_CACHE_DIR if set, else the `__pycache__`
    beside the sources) holds the kernels of KERNEL_SIGNS. Importing the package compiles
    a few kernels by itself, so their mere presence says nothing."""
    from suburbia_env.engine.kernel_cache import cache_directories, kernel_source_dirs
    folders = {source.name: cache_directories(source)[0] for source in kernel_source_dirs()}
    return all(name in folders and any(folders[name].glob(pattern))
               for name, pattern in KERNEL_SIGNS.items())


def compile_recording() -> None:
    """A recorded greedy game against Dale: the game, Dale and the greedy player."""
    from .imitation import _play_demonstrations
    _play_demonstrations((0, 1, "2nd", "greedy", ()))


def compile_training() -> None:
    """An evaluation of the fast network against Dale in the vector environment and a fit
    of it to a few recorded decisions: what the fit, PPO and evaluation stages run."""
    import numpy as np
    import torch

    from agents.networks import SparseActorCritic, SparsePolicy
    from suburbia_env import Game
    from .evaluation import evaluate_against_dale
    from .imitation import EncodedDemonstrations, fit_network

    torch.set_num_threads(1)
    network = SparseActorCritic(8, (8,))
    network.initialize(torch.Generator().manual_seed(0))
    evaluate_against_dale(SparsePolicy(network), games=1, seed=0, num_envs=1)
    game = Game(players=1, mode="dale", seed=0)
    states = np.stack([game.state.copy()] * 8)
    actions = np.full(8, game.legal_actions()[0], dtype=np.int64)
    encoded = EncodedDemonstrations({"states": states, "actions": actions,
                                     "returns": np.zeros(8)})
    fit_network(network, encoded, epochs=1, batch_size=8)


def warm_up(on_part=None, parts: dict[str, str] | None = None,
            workers: int | None = None) -> float:
    """Run each of `parts` (default PARTS) once, so that its kernels are compiled (or
    loaded): in `workers` processes side by side (default: one per part, at most one
    per core), else in this process. `on_part(done, left)` after each part, `left` the
    descriptions of those still running. Returns the seconds taken; raises WarmUpError
    naming the part that failed."""
    parts = dict(PARTS if parts is None else parts)
    if workers is None:
        workers = min(len(parts), os.cpu_count() or 1) if _can_lock() else 1
    began = time.monotonic()
    if workers <= 1 or len(parts) <= 1:
        for done, spec in enumerate(parts, 1):
            try:
                _call(spec)
            except Exception as error:
                raise WarmUpError(f"compiling the kernels of {parts[spec]} ({spec}) failed: "
                                  f"{type(error).__name__}: {error}") from error
            if on_part is not None:
                on_part(done, [parts[left] for left in list(parts)[done:]])
        return time.monotonic() - began
    _run_in_workers(parts, workers, on_part)
    return time.monotonic() - began


def _can_lock() -> bool:
    """Whether the workers' cache lock (fcntl, POSIX) is there; else one process."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    return True


def _call(spec: str) -> None:
    module, name = spec.split(":")
    getattr(importlib.import_module(module), name)()


def _run_in_workers(parts: dict[str, str], workers: int, on_part) -> None:
    """Each part in a spawned process of its own, `workers` at a time; the first failure
    ends the others and raises."""
    context = multiprocessing.get_context("spawn")
    results = context.SimpleQueue()
    waiting = list(parts)
    running: dict[str, multiprocessing.process.BaseProcess] = {}
    done = 0
    with tempfile.TemporaryDirectory(prefix="suburbia-warm-up-") as folder:
        lock_path = os.path.join(folder, "numba-cache.lock")
        try:
            while waiting or running:
                while waiting and len(running) < workers:
                    spec = waiting.pop(0)
                    running[spec] = context.Process(
                        target=_worker, args=(spec, lock_path, results), daemon=True,
                        name=f"warm-up {spec}")
                    running[spec].start()
                if not results.empty():
                    spec, failure = results.get()
                    running.pop(spec).join()
                    if failure is not None:
                        raise WarmUpError(f"compiling the kernels of {parts[spec]} ({spec}) "
                                          f"failed in a warm-up worker:\n{failure}")
                    done += 1
                    if on_part is not None:
                        on_part(done, [parts[left] for left in [*running, *waiting]])
                    continue
                for spec, process in running.items():
                    if process.exitcode is not None and results.empty():
                        raise WarmUpError(
                            f"the warm-up worker compiling {parts[spec]} ({spec}) died "
                            f"with exit code {process.exitcode} before it finished"
                            + (f" (signal {-process.exitcode})" if process.exitcode < 0
                               else ""))
                time.sleep(WORKER_POLL_SECONDS)
        finally:
            for process in running.values():
                if process.is_alive():
                    process.terminate()
                process.join()


def _worker(spec: str, lock_path: str, results) -> None:
    """A warm-up worker: `spec`'s kernels compiled under the cache lock; (spec, None) or
    (spec, the traceback) put on `results`."""
    try:
        with _locked_cache_files(lock_path):
            _call(spec)
    except BaseException:  # reported to the parent, which raises it with the part's name
        results.put((spec, traceback.format_exc()))
    else:
        results.put((spec, None))


@contextlib.contextmanager
def _locked_cache_files(lock_path: str):
    """numba's cache reads and writes under a file lock shared by the warm-up's workers
    (exclusive to write, shared to read), so that no worker reads a half-updated index
    or overwrites an entry another has just added (module docstring)."""
    import fcntl

    from numba.core import caching

    cache_file = caching.IndexDataCacheFile
    save, load = cache_file.save, cache_file.load

    def locked(method, mode):
        def call(self, *arguments):
            with open(lock_path, "a") as lock:
                fcntl.flock(lock, mode)
                try:
                    return method(self, *arguments)
                finally:
                    fcntl.flock(lock, fcntl.LOCK_UN)
        return call

    cache_file.save = locked(save, fcntl.LOCK_EX)
    cache_file.load = locked(load, fcntl.LOCK_SH)
    try:
        yield
    finally:
        cache_file.save, cache_file.load = save, load
