"""Compile (or load) the numba kernels a recipe runs before its first stage, with progress.

A fresh installation has no compiled kernels: the first game compiles the engine and the
greedy player, the first evaluation the vector environment, the first fit the fast
network's layers; minutes on the project's 2-core machine, once, after which every run
loads them from numba's cache in seconds. Done here, in the recipe's own process, the
user sees a line saying so instead of a stage stuck at 0% (and the recording workers,
started later, load the kernels instead of compiling them twice over).
"""

from __future__ import annotations

import time

COLD_COMPILE_SECONDS = 300.0
"""A fresh installation's compile of PARTS on the project's 2-core machine: 4m51s measured
under a load average of about 6 (docs/performance.md)."""

PARTS = ("the engine and the greedy player", "the vector environment and the network",
         "the network's training")


KERNEL_SIGNS = {"engine": "env_core.*.nbi", "agents": "greedy.*.nbi"}
"""Per kernel source folder, cached kernels PARTS compile (the vector environment's core,
the greedy player): without them the kernels are still to compile."""


def kernels_cached() -> bool:
    """Whether the cache numba uses first (NUMBA_CACHE_DIR if set, else the `__pycache__`
    beside the sources) holds the kernels of KERNEL_SIGNS. Importing the package compiles
    a few kernels by itself, so their mere presence says nothing."""
    from suburbia_env.engine.kernel_cache import cache_directories, kernel_source_dirs
    folders = {source.name: cache_directories(source)[0] for source in kernel_source_dirs()}
    return all(name in folders and any(folders[name].glob(pattern))
               for name, pattern in KERNEL_SIGNS.items())


def warm_up(on_part=None) -> float:
    """Run each part of PARTS once on a tiny input, so that its kernels are compiled (or
    loaded); `on_part(done)` after each. Returns the seconds taken."""
    import torch

    from agents.networks import SparseActorCritic, SparsePolicy
    from .evaluation import evaluate_against_dale
    from .imitation import EncodedDemonstrations, _play_demonstrations, fit_network

    began = time.monotonic()
    states, actions, returns, _ = _play_demonstrations((0, 1, "2nd", "greedy", ()))
    if on_part is not None:
        on_part(1)
    network = SparseActorCritic(8, (8,))
    network.initialize(torch.Generator().manual_seed(0))
    evaluate_against_dale(SparsePolicy(network), games=1, seed=0, num_envs=1)
    if on_part is not None:
        on_part(2)
    encoded = EncodedDemonstrations({"states": states[:8], "actions": actions[:8],
                                     "returns": returns[:8]})
    fit_network(network, encoded, epochs=1, batch_size=8)
    if on_part is not None:
        on_part(3)
    return time.monotonic() - began
