"""Where a recipe's parallel work runs: the games of its record stages (in chunks) and its
evaluations (evaluate stages, gates, periodic evaluations during PPO).

The recipe runner (training/recipe_runner.py) calls one small interface, StageWorkers,
whatever the place: LocalWorkers (this machine: worker processes for the recordings, the
runner's own process for the evaluations) or RayWorkers (training/ray_stages.py: Ray
tasks on a cluster). A chunk is seeded by its index and its part jobs are the same
wherever they run, and an evaluation's games by the evaluation's seed, so both give the
same demonstrations, byte for byte, and the same evaluation results for the same seeds.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Callable, Protocol

ChunkJobs = dict[int, list[tuple]]
"""Chunk index -> the part jobs of training.imitation._play_demonstrations whose results,
in order, make that chunk."""
OnChunk = Callable[[int, list[tuple], str | None], None]
"""Called in the runner's process for each finished chunk: (index, the part results in
order, the node that played it or None on this machine)."""


class StageWorkers(Protocol):
    """The interface: `record` plays chunks of demonstration games (`workers` parts a
    chunk, `model` the stage's model its jobs name), `evaluate` plays a model's
    evaluation games; `where` describes the place for the run record."""

    where: dict

    def record(self, chunks: ChunkJobs, workers: int, model: Path | None,
               on_chunk: OnChunk) -> None: ...

    def evaluate(self, model: Path, against: str, games: int, seed: int, players: int,
                 torch_threads: int) -> dict: ...


class LocalWorkers:
    """This machine: the parts of a recording's chunks in order over `workers` spawned
    processes (the next chunk's parts start while this process writes a chunk's file);
    evaluations in this process."""

    where = {"kind": "local"}

    def record(self, chunks: ChunkJobs, workers: int, model: Path | None,
               on_chunk: OnChunk) -> None:
        from .imitation import _play_demonstrations
        order = [(index, part) for index in sorted(chunks) for part in range(len(chunks[index]))]
        jobs = [chunks[index][part] for index, part in order]
        pool = None
        if workers > 1:
            import multiprocessing
            pool = multiprocessing.get_context("spawn").Pool(workers)
        try:
            results = pool.imap(_play_demonstrations, jobs) if pool \
                else map(_play_demonstrations, jobs)
            collected: dict[int, list[tuple]] = {}
            for index, _ in order:
                with contextlib.redirect_stdout(io.StringIO()):
                    result = next(results)
                collected.setdefault(index, []).append(result)
                if len(collected[index]) == len(chunks[index]):
                    on_chunk(index, collected.pop(index), None)
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()

    def evaluate(self, model: Path, against: str, games: int, seed: int, players: int,
                 torch_threads: int) -> dict:
        import torch
        from agents.model_format import load_safe_model
        from .evaluation import evaluate_model
        torch.set_num_threads(torch_threads)
        return evaluate_model(load_safe_model(model), against, games, seed, players)


@contextlib.contextmanager
def stage_workers(ray_address: str | None = None):
    """LocalWorkers, or RayWorkers joined to the cluster at `ray_address` (HOST:PORT or
    auto) for the block; ConfigError naming the address if it cannot be reached."""
    if not ray_address:
        yield LocalWorkers()
        return
    from .ray_stages import RayWorkers
    with RayWorkers.joined(ray_address) as workers:
        yield workers
