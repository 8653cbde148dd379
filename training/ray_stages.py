"""A recipe's parallel stages as Ray tasks on a cluster (`suburbia train --recipe NAME
--ray-address ADDRESS`): the StageWorkers of training/stage_workers.py on Ray.

- Recording: every part job of every chunk is a task of one CPU, TASKS_PER_CPU per CPU
  of the cluster in flight; a chunk is handed to the runner (which writes and
  hashes its file) as soon as its parts are in, in whatever order chunks finish. The
  jobs are those of a local run, seeded by the chunk's first game, so the files are the
  same bytes; a chunk written before a kill is not played again.
- Evaluations against greedy: blocks of games (GREEDY_BLOCK multiples, so every game
  keeps its seat) as tasks, their per-game lists joined in block order and summarised
  as one local call would. Against Dale, the evaluation is one vectorised game loop
  whose games depend on each other's lengths (training/evaluation.py), so it runs as
  one task, with the runner's torch threads: the same games and win counts.
- The model a stage names travels with its tasks (through the object store) and is
  written once per node into a folder named by its SHA-256, so the nodes need not share
  the run folder. Other files a recipe names (models of opponents, bots) are read on the
  node that plays, so every node needs them at the same path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from suburbia_env.errors import ConfigError, SuburbiaError


TASKS_PER_CPU = 2
"""Tasks in flight per CPU of the cluster: a CPU that finishes one has the next queued."""
BLOCKS_PER_CPU = 2
"""An evaluation against greedy is cut in about this many blocks per CPU of the cluster."""

_POLICIES: dict[str, object] = {}  # in a Ray worker: loaded models by SHA-256


class RayTaskFailed(SuburbiaError):
    """A task of a recipe's stage failed on the cluster (its error quoted)."""


def _node_copy(model: dict) -> Path:
    """In a Ray worker: this node's copy of a model sent as {"sha256", "name",
    "weights", "description"}, written once into a folder named by its SHA-256."""
    folder = Path(tempfile.gettempdir()) / "suburbia-ray-models" / model["sha256"]
    path = folder / model["name"]
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        for target, data in ((path.with_suffix(".json"), model["description"]),
                             (path, model["weights"])):
            temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            temporary.write_bytes(data)
            os.replace(temporary, target)
    return path


def _node_address() -> str:
    import ray
    return ray.util.get_node_ip_address()


def _record_part(job: tuple, model: dict | None) -> tuple[tuple, str]:
    """In a Ray worker: one part job of a chunk (training.imitation._play_demonstrations),
    the stage's model named by this node's copy; forfeit lines name the original path."""
    import contextlib as _contextlib
    import io as _io
    from .imitation import _play_demonstrations
    first, games, edition, demonstrator, opponents = job
    if model is not None:
        local = str(_node_copy(model))
        demonstrator = demonstrator.replace(model["path"], local)
    with _contextlib.redirect_stdout(_io.StringIO()):
        states, actions, returns, forfeits = _play_demonstrations(
            (first, games, edition, demonstrator, opponents))
    if model is not None:
        forfeits = [line.replace(local, model["path"]) for line in forfeits]
    return (states, actions, returns, forfeits), _node_address()


def _policy(model: dict, torch_threads: int):
    import torch
    from agents.model_format import load_safe_model
    torch.set_num_threads(torch_threads)
    if model["sha256"] not in _POLICIES:
        _POLICIES.clear()
        _POLICIES[model["sha256"]] = load_safe_model(_node_copy(model))
    return _POLICIES[model["sha256"]]


def _evaluate_whole(model: dict, against: str, games: int, seed: int, players: int,
                    torch_threads: int) -> tuple[dict, str]:
    """In a Ray worker: a whole evaluation (training.evaluation.evaluate_model)."""
    from .evaluation import evaluate_model
    return (evaluate_model(_policy(model, torch_threads), against, games, seed, players),
            _node_address())


def _greedy_block(model: dict, first: int, count: int, seed: int, players: int,
                  torch_threads: int) -> tuple[dict, str]:
    """In a Ray worker: games first..first+count-1 of an evaluation against greedy."""
    from .evaluation import play_against_greedy
    return (play_against_greedy(_policy(model, torch_threads), first, count, seed, players),
            _node_address())


def model_message(path: Path) -> dict:
    """A model file and its description, to travel with the tasks that use it."""
    weights = Path(path).read_bytes()
    description = Path(path).with_suffix(".json").read_bytes()
    digest = hashlib.sha256(weights + b"\0" + description).hexdigest()
    return {"sha256": digest, "name": Path(path).name, "path": str(path),
            "weights": weights, "description": description}


class RayWorkers:
    """The StageWorkers of training/stage_workers.py on the Ray cluster this process
    joined (RayWorkers.joined)."""

    def __init__(self, ray, address: str):
        self.ray = ray
        self.address = address
        nodes = [node for node in ray.nodes() if node.get("Alive")]
        self.cpus = int(ray.cluster_resources().get("CPU", 0))
        if self.cpus < 1:
            raise ConfigError(f"the Ray cluster at {address!r} has no CPUs for tasks")
        self.where = {"kind": "ray", "address": address,
                      "gcs_address": ray.get_runtime_context().gcs_address,
                      "nodes": len(nodes), "cpus": self.cpus,
                      "node_addresses": sorted(node["NodeManagerAddress"] for node in nodes)}
        self._remote = {function.__name__: ray.remote(num_cpus=1)(function)
                        for function in (_record_part, _evaluate_whole, _greedy_block)}

    @classmethod
    @contextlib.contextmanager
    def joined(cls, address: str):
        """Joined to the cluster at `address` for the block (agents/ray_session.py: a
        token, an address that answers within a bounded time)."""
        from agents.ray_session import ray_session
        with ray_session(address) as ray:
            yield cls(ray, address)

    def _run(self, tasks, on_result, limit: int | None = None) -> None:
        """Runs `tasks` (an iterable of (key, function name, arguments)), at most `limit`
        in flight, calling on_result(key, value) in this process as each finishes; a
        failed task cancels the others and its error is raised (a SuburbiaError as it
        is, anything else as RayTaskFailed naming the cluster)."""
        ray = self.ray
        queue = iter(tasks)
        in_flight: dict = {}

        def submit_more() -> None:
            while limit is None or len(in_flight) < limit:
                task = next(queue, None)
                if task is None:
                    return
                key, name, arguments = task
                in_flight[self._remote[name].remote(*arguments)] = key

        try:
            submit_more()
            while in_flight:
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for reference in done:
                    on_result(in_flight.pop(reference), ray.get(reference))
                submit_more()
        except ray.exceptions.RayTaskError as error:
            cause = getattr(error, "cause", None)
            if isinstance(cause, SuburbiaError):
                raise cause from None
            raise RayTaskFailed(f"a task on the Ray cluster at {self.address!r} failed: "
                                f"{str(cause or error)[:500]}") from None
        finally:
            for reference in in_flight:
                ray.cancel(reference)

    def record(self, chunks: dict[int, list[tuple]], workers: int, model: Path | None,
               on_chunk) -> None:
        model_ref = self.ray.put(model_message(model)) if model is not None else None
        results: dict[int, dict[int, tuple]] = {index: {} for index in chunks}
        nodes: dict[int, set[str]] = {index: set() for index in chunks}

        def finished(key: tuple[int, int], value: tuple[tuple, str]) -> None:
            index, part = key
            results[index][part] = value[0]
            nodes[index].add(value[1])
            if len(results[index]) == len(chunks[index]):
                parts = results.pop(index)
                on_chunk(index, [parts[i] for i in range(len(parts))],
                         ",".join(sorted(nodes.pop(index))))

        self._run((((index, part), "_record_part", (job, model_ref))
                   for index in sorted(chunks) for part, job in enumerate(chunks[index])),
                  finished, limit=TASKS_PER_CPU * self.cpus)

    def evaluate(self, model: Path, against: str, games: int, seed: int, players: int,
                 torch_threads: int) -> dict:
        from .evaluation import GREEDY_BLOCK, summarise_against_greedy
        model_ref = self.ray.put(model_message(model))
        if against == "dale":
            found: list = []
            self._run([(0, "_evaluate_whole", (model_ref, against, games, seed, players,
                                               torch_threads))],
                      lambda key, value: found.append(value))
            result, node = found[0]
            return {**result, "nodes": [node]}
        blocks = max(1, min(-(-games // GREEDY_BLOCK), BLOCKS_PER_CPU * self.cpus))
        size = -(-games // blocks // GREEDY_BLOCK) * GREEDY_BLOCK
        parts: dict[int, dict] = {}
        nodes: set[str] = set()

        def collect(first: int, value: tuple[dict, str]) -> None:
            parts[first] = value[0]
            nodes.add(value[1])

        self._run([(first, "_greedy_block", (model_ref, first, min(size, games - first), seed,
                                             players, torch_threads))
                   for first in range(0, games, size)], collect)
        played = {key: [entry for first in sorted(parts) for entry in parts[first][key]]
                  for key in ("populations", "best_others", "wins")}
        return {**summarise_against_greedy(played, players), "nodes": sorted(nodes)}
