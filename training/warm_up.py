"""Compile (or load) the numba kernels a recipe runs, from before its first stage, with
progress.

A fresh installation has no compiled kernels: the first game compiles the engine and the
greedy player, the first evaluation the vector environment, the first fit the fast
network's layers; minutes on the project's 2-core machine, once, after which every run
loads them from numba's cache in seconds. Done here, from the start, the user sees a
line saying so instead of a stage stuck at 0% (and the recording workers, started later,
load the kernels instead of compiling them twice over).

numba compiles on one thread per process (a global compiler lock), so the PARTS compile
in their own worker processes side by side, one per core: the greedy player's kernels,
the longest chain, on one core, the vector environment's and the network's on the other.
A recipe's recording waits only for the first (RECORDING_PART); the other goes on
compiling beside it and is waited for before the first stage that trains or evaluates.
The kernels both use (the engine's step, Dale) are compiled by whichever worker comes to
them first and loaded from the cache by the other if it comes later. numba's cache
writes an index file per source file with a read-modify-write and no lock, so two
processes saving kernels of one file at once could pair a signature with the other's
machine code: every process of the package reads and writes its cache folders under a
file lock (suburbia_env/engine/kernel_cache.py, `lock_cache_files`). A failing or dying
worker stops the warm-up with an error that names its part; the other worker is ended,
nothing waits forever; a worker whose run was killed ends itself.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import threading
import time
import traceback

from suburbia_env.errors import SuburbiaError

COLD_COMPILE_SECONDS = 100.0
"""A fresh installation's compile of RECORDING_PART, what the first stage waits for, on
the project's 2-core machine: 1m25s to 1m31s measured (docs/performance.md); the
estimate the progress line starts from."""

RECORDING_PART = "training.warm_up:compile_recording"
"""The part a recording of greedy games runs; the others can compile beside it."""

PARTS = {
    RECORDING_PART: "the engine, Dale and the greedy player",
    "training.warm_up:compile_training": "the vector environment and the network",
}
"""What each warm-up worker compiles, as `module:function` (run once on a tiny input),
the one the first stage waits for first."""

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
                                     "returns": np.zeros(8)},
                                    observation_size=network.observation_size)
    fit_network(network, encoded, epochs=1, batch_size=8)


class KernelWarmUp:
    """`parts` (default PARTS) compiling from construction on: in `workers` processes
    side by side (default: one per part, at most one per core) on a thread of their own,
    so that the caller can go on (a recipe records its games while the training part
    compiles); with one worker, in this process when waited for. `on_part(done, left)`
    after each part, `left` the descriptions of those still running (from that thread).
    """

    def __init__(self, parts: dict[str, str] | None = None, workers: int | None = None,
                 on_part=None):
        self.parts = dict(PARTS if parts is None else parts)
        if workers is None:
            workers = min(len(self.parts), os.cpu_count() or 1) if _can_lock() else 1
        self.on_part = on_part
        self.began = time.monotonic()
        self.seconds: dict[str, float] = {}
        self.error: WarmUpError | None = None
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.thread = None
        if workers > 1 and len(self.parts) > 1:
            self.thread = threading.Thread(target=self._watch, args=(workers,),
                                           daemon=True, name="kernel warm-up")
            self.thread.start()

    def ready(self, spec: str | None = None) -> bool:
        """Whether part `spec` (None: every part) is compiled."""
        if spec is not None and spec not in self.parts:
            raise ValueError(f"{spec} is not a part of this warm-up "
                             f"({', '.join(self.parts)})")
        return all(name in self.seconds for name in ([spec] if spec else self.parts))

    def wait(self, spec: str | None = None) -> float:
        """Block until part `spec` (None: every part) is compiled; the seconds since the
        start. Raises WarmUpError naming the part that failed, at once."""
        self.ready(spec)
        if self.thread is None:
            for name in self.parts:
                if spec is not None and spec in self.seconds:
                    break
                if name not in self.seconds:
                    try:
                        _call(name)
                    except Exception as error:
                        raise WarmUpError(f"compiling the kernels of {self.parts[name]} "
                                          f"({name}) failed: {type(error).__name__}: "
                                          f"{error}") from error
                    self._done(name)
        with self.changed:
            self.changed.wait_for(lambda: self.error is not None or self.ready(spec))
            if self.error is not None:
                raise self.error
        return time.monotonic() - self.began

    def close(self) -> None:
        """End the workers still compiling (a run stopped or failed)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()

    def _done(self, spec: str) -> None:
        with self.changed:
            self.seconds[spec] = time.monotonic() - self.began
            self.changed.notify_all()
        if self.on_part is not None:
            self.on_part(len(self.seconds), [self.parts[name] for name in self.parts
                                             if name not in self.seconds])

    def _watch(self, workers: int) -> None:
        try:
            _run_in_workers(self.parts, workers, self._done, self.stopping)
        except BaseException as error:  # every failure reaches the waiting thread
            if not isinstance(error, WarmUpError):
                error = WarmUpError(f"the kernel warm-up failed: {type(error).__name__}: "
                                    f"{error}")
            with self.changed:
                self.error = error
                self.changed.notify_all()


def warm_up(on_part=None, parts: dict[str, str] | None = None,
            workers: int | None = None) -> float:
    """Every part of `parts` (default PARTS) compiled (or loaded), as KernelWarmUp does
    it; the seconds taken. Raises WarmUpError naming the part that failed."""
    warming = KernelWarmUp(parts, workers, on_part)
    try:
        return warming.wait()
    finally:
        warming.close()


def _can_lock() -> bool:
    """Whether numba's cache is locked for concurrent writers (fcntl, POSIX); else the
    parts compile one after the other in one process."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    return True


def _call(spec: str) -> None:
    module, name = spec.split(":")
    getattr(importlib.import_module(module), name)()


def _run_in_workers(parts: dict[str, str], workers: int, on_done, stopping) -> None:
    """Each part in a spawned process of its own, `workers` at a time, `on_done(spec)`
    as each finishes; the first failure ends the others and raises WarmUpError, as
    does `stopping` when set."""
    context = multiprocessing.get_context("spawn")
    results = context.SimpleQueue()
    waiting = list(parts)
    running: dict[str, multiprocessing.process.BaseProcess] = {}
    try:
        while (waiting or running) and not stopping.is_set():
            while waiting and len(running) < workers:
                spec = waiting.pop(0)
                process = context.Process(target=_worker, args=(spec, results, os.getpid()),
                                          daemon=True, name=f"warm-up {spec}")
                process.start()
                running[spec] = process
            if not results.empty():
                spec, failure = results.get()
                running.pop(spec).join()
                if failure is not None:
                    raise WarmUpError(f"compiling the kernels of {parts[spec]} ({spec}) "
                                      f"failed in a warm-up worker:\n{failure}")
                on_done(spec)
                continue
            for spec, process in running.items():
                if process.exitcode is not None and results.empty():
                    raise WarmUpError(
                        f"the warm-up worker compiling {parts[spec]} ({spec}) died with "
                        f"exit code {process.exitcode} before it finished"
                        + (f" (signal {-process.exitcode})" if process.exitcode < 0 else ""))
            stopping.wait(WORKER_POLL_SECONDS)
        if stopping.is_set() and (waiting or running):
            raise WarmUpError("the warm-up was stopped before its parts were compiled")
    finally:
        for process in running.values():
            if process.is_alive():
                process.terminate()
            process.join()


def _worker(spec: str, results, parent: int) -> None:
    """A warm-up worker: `spec`'s kernels compiled; (spec, None) or
    (spec, the traceback) put on `results`. It ends itself when its parent is gone (a
    killed run), rather than compile on for nobody."""
    threading.Thread(target=_end_when_orphaned, args=(parent,), daemon=True).start()
    try:
        _call(spec)
    except BaseException:  # reported to the parent, which raises it with the part's name
        results.put((spec, traceback.format_exc()))
    else:
        results.put((spec, None))


def _end_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)
