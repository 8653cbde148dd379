"""`suburbia train --recipe NAME`: run a training recipe (training/recipe.py) from
nothing, or from another recipe's model, to its final model, stage by stage, each gated
by its evaluation.

The run folder (--run-dir, default runs/NAME) holds state.json (what is done, with the
SHA-256 of every output: training/run_state.py), log.jsonl, evaluations.jsonl and .csv,
learning_curve.png, MODEL_CARD.md (training/run_record.py), one folder per stage under
stages/, and the final model.safetensors with model.json. Killed at any moment and
started again with the same command, it goes on from the last checkpoint: done stages
whose outputs and inputs still have their hashes are skipped, a recording goes on from
its last whole chunk of games, a fit from its last epoch, PPO from its last checkpoint.
The recordings and evaluations run through training/stage_workers.py: on this machine,
or with --ray-address as Ray tasks on a cluster (training/ray_stages.py), with the same
results.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shlex
import shutil
import sys
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .progress import ProgressLine, duration, evaluation_seconds, prior_seconds
from .recipe import Evaluation, Recipe, RecipeError, Stage, load_recipe, recipe_names
from .run_record import (add_evaluation, evaluations, git_commit, log_event, machine, versions,
                         write_model_card)
from .run_state import (RunState, outputs_intact, replace_atomically, sha256_of,
                        write_atomically)
from .stage_workers import LocalWorkers, StageWorkers, stage_workers

RECORD_SEED_BASE = 2**32
"""Recorded games take seeds from 2**32 up, apart from every evaluation's seeds (< 2**32)."""
RECORD_SEED_STRIDE = 2**24


class RecipeStopped(Exception):
    """A gate failed with nothing left to try: the run stops with this message."""


def stage_seed(run_seed: int, index: int) -> int:
    """The seed of the recipe's stage `index` in a run seeded `run_seed` (32 bits)."""
    return int(np.random.SeedSequence([run_seed, index]).generate_state(1)[0])


def record_first_seed(run_seed: int, index: int) -> int:
    return RECORD_SEED_BASE + stage_seed(run_seed, index) * RECORD_SEED_STRIDE


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """A .npz that np.load reads, byte for byte the same for the same arrays (fixed member
    times, unlike np.savez), written through a temporary file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            archive.writestr(info, buffer.getvalue(), compresslevel=1)  # 3x faster than 6
    replace_atomically(temporary, path)


def read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def start_model(start: str) -> Path | None:
    """The model a run starts from: none, recipe:NAME (runs/NAME/model.safetensors, that
    recipe's run in its default folder) or a model file."""
    if start == "none":
        return None
    if start.startswith("recipe:"):
        name = start[len("recipe:"):]
        path = Path("runs") / name / "model.safetensors"
        if not path.is_file():
            raise RecipeError(f"start {start}: {path} does not exist; run `suburbia train "
                              f"--recipe {name}` first (its run folder is runs/{name}), or "
                              f"give --start PATH or --start none")
        return path
    path = Path(start)
    if not path.is_file():
        raise RecipeError(f"start {start}: no such model file")
    return path


class RecipeRun:
    def __init__(self, recipe: Recipe, run_dir: Path, seed: int, start: str,
                 command_line: str, stream=None, tty: bool | None = None,
                 workers: StageWorkers | None = None):
        self.recipe = recipe
        self.workers = workers or LocalWorkers()
        self.run_dir = run_dir
        self.seed = seed
        self.start = start
        self.command_line = command_line
        self.state = RunState.open(run_dir, recipe.name, recipe.sha256, seed, start)
        self.progress = ProgressLine(stream, tty)
        self.session_started = time.monotonic()
        self.seconds_before = float(self.state.data.get("run_seconds", 0.0))
        self.measured_against_prior = (0.0, 0.0)  # wall and rough seconds of stages run
        self.commands: dict[str, list[str]] = {}
        self.settings: dict[str, dict] = {}

    # Bookkeeping ------------------------------------------------------------------------------

    def run_seconds(self) -> float:
        return self.seconds_before + time.monotonic() - self.session_started

    def env_steps(self) -> int:
        return sum(record.get("steps", 0) + record.get("earlier_attempt_steps", 0)
                   for record in self.state.data["stages"].values())

    def save(self) -> None:
        self.state.data["run_seconds"] = round(self.run_seconds(), 2)
        self.state.data["env_steps"] = self.env_steps()
        self.state.save()

    def log(self, event: str, **fields) -> None:
        log_event(self.run_dir, event, run_seconds=round(self.run_seconds(), 2), **fields)

    def relative(self, path: Path) -> str:
        path = Path(path)
        try:
            return str(path.resolve().relative_to(self.run_dir.resolve()))
        except ValueError:
            return str(path.resolve())

    def absolute(self, name: str) -> Path:
        path = Path(name)
        return path if path.is_absolute() else self.run_dir / path

    def folder(self, stage: Stage, attempt: int) -> Path:
        name = f"{stage.index + 1:02d}-{stage.name}" + (f"-attempt{attempt}" if attempt > 1
                                                        else "")
        path = self.run_dir / "stages" / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def write_card(self) -> None:
        write_model_card(self.run_dir, self.recipe, self.state.data, self.commands,
                         self.settings, self.command_line)

    # Models -------------------------------------------------------------------------------------

    def start_model(self) -> Path | None:
        return start_model(self.start)

    def resolve(self, reference: str, previous: Path | None, stage: Stage) -> Path | None:
        if reference == "none":
            return None
        if reference == "previous":
            return previous
        if reference == "start":
            return self.start_model()
        if reference.startswith("stage:"):
            record = self.state.data["stages"].get(reference[len("stage:"):], {})
            if record.get("status") != "done" or not record.get("model"):
                raise RecipeError(f"stage {stage.name!r}: {reference} has no model (that "
                                  f"stage was skipped: its 'when' excludes this run)")
            return self.absolute(record["model"])
        if reference.startswith("recipe:"):
            name = reference[len("recipe:"):]
            path = Path("runs") / name / "model.safetensors"
            if not path.is_file():
                raise RecipeError(f"stage {stage.name!r}: {reference}: {path} does not exist; "
                                  f"run `suburbia train --recipe {name}` first")
            return path
        path = Path(reference)
        if not path.is_file():
            raise RecipeError(f"stage {stage.name!r}: model {reference}: no such file")
        return path

    def hashed(self, paths: list[Path]) -> dict[str, str]:
        found = {}
        for path in paths:
            for part in (path, path.with_suffix(".json")) if path.suffix == ".safetensors" \
                    else (path,):
                digest = sha256_of(part)
                if digest is None:
                    raise RecipeError(f"missing input: {part} does not exist")
                found[self.relative(part)] = digest
        return found

    def demonstration_files(self, stage: Stage) -> list[Path]:
        files = []
        for source in stage.demonstrations:
            if source.endswith(".npz"):
                files.append(Path(source))
                continue
            record = self.state.data["stages"].get(source, {})
            if record.get("status") != "done":
                raise RecipeError(f"stage {stage.name!r}: missing input: the record stage "
                                  f"{source!r} has not run (its 'when' excludes this run)")
            files.append(self.absolute(record["demonstrations"]))
        return files

    def applies(self, stage: Stage) -> bool:
        return (stage.when == "always" or (stage.when == "no_start") == (self.start == "none"))

    # The run ------------------------------------------------------------------------------------

    def run(self) -> int:
        data = self.state.data
        data["status"] = "running"
        session = {"time": time.time(), "git": git_commit(), "command": self.command_line,
                   "parallel_stages": self.workers.where}
        data.setdefault("session_history", []).append(session)
        data["provenance"] = {"git": session["git"], "machine": machine(),
                              "parallel_stages": self.workers.where,
                              "versions": versions(), "run_seed": self.seed,
                              "stage_seeds": {stage.name: stage_seed(self.seed, stage.index)
                                              for stage in self.recipe.stages}}
        commits = {entry["git"]["commit"] for entry in data["session_history"]}
        if len(commits) > 1:
            data["provenance"]["note"] = (f"sessions of this run ran {len(commits)} different "
                                          f"commits: {', '.join(sorted(commits))}")
        self.save()
        self.log("session_started", session=data["sessions"], seed=self.seed,
                 recipe=self.recipe.name, git=session["git"],
                 parallel_stages=self.workers.where)
        previous = self.start_model()
        try:
            self.warm_up()
            for stage in self.recipe.stages:
                if self.applies(stage):
                    self.wait_for_kernels(stage)
                previous = self.run_stage(stage, previous)
        except RecipeStopped as stop:
            data["status"] = "stopped"
            self.save()
            self.write_card()
            self.log("run_stopped", reason=str(stop))
            self.progress.close()
            print(f"\nstopped: {stop}", file=sys.stderr)
            return 1
        finally:
            if hasattr(self, "kernels"):
                self.kernels.close()
            self.progress.close()
        self.finish(previous)
        return 0

    def warm_up(self) -> None:
        """The numba kernels compiling (a fresh installation: minutes, once) or loading in
        worker processes, with progress, from before the first stage; the first stage
        waits for those it runs (training/warm_up.py): a recording only for the
        recording's, the training part goes on compiling beside it."""
        from .warm_up import COLD_COMPILE_SECONDS, PARTS, KernelWarmUp, kernels_cached
        self.kernels_cold = cold = not kernels_cached()
        self.kernels_estimate = COLD_COMPILE_SECONDS if cold else 5.0
        if cold:
            self.progress.message(f"[{self.recipe.name}] compiling the game's kernels (numba) "
                                  f"in 2 processes: once per installation, about "
                                  f"{duration(COLD_COMPILE_SECONDS)} on 2 cores before the "
                                  f"first stage starts; later runs load them in seconds")
        self.progress.stage(f"{self.recipe.name} kernels", "parts", len(PARTS), 0,
                            self.kernels_estimate, self.later_stages_seconds())
        self.kernels_verb = verb = "compiling" if cold else "loading"

        def on_part(done: int, left: list[str]) -> None:
            if self.progress.label == f"{self.recipe.name} kernels":
                self.progress.update(done, note=f"{verb} {' and '.join(left)}" if left else "")

        on_part(0, list(PARTS.values()))
        self.kernels_announced = {"first": False, "all": False}
        self.kernels = KernelWarmUp(on_part=on_part)

    def later_stages_seconds(self) -> float:
        return sum(prior_seconds(stage, self.recipe) for stage in self.recipe.stages
                   if self.applies(stage)
                   and self.state.data["stages"].get(stage.name, {}).get("status") != "done")

    def wait_for_kernels(self, stage: Stage) -> None:
        """Before `stage`: the kernels it runs compiled (or loaded); a line when the last
        is ready, and a progress line while the stage has to wait for them."""
        from .warm_up import PARTS, RECORDING_PART
        kernels = self.kernels
        part = RECORDING_PART if stage.kind == "record" else None
        if self.kernels_announced["all"]:
            return
        if not kernels.ready(part) and self.progress.label != f"{self.recipe.name} kernels":
            self.progress.stage(f"{self.recipe.name} kernels", "parts", len(PARTS),
                                len(kernels.seconds),
                                max(self.kernels_estimate - (time.monotonic() - kernels.began),
                                    5.0), self.later_stages_seconds())
            left = [PARTS[spec] for spec in PARTS if spec not in kernels.seconds]
            self.progress.update(len(kernels.seconds),
                                 note=f"{self.kernels_verb} {' and '.join(left)}")
        seconds = kernels.wait(part)
        if not kernels.ready(None):
            if not self.kernels_announced["first"]:
                self.kernels_announced["first"] = True
                self.log("kernels_ready", seconds=round(seconds, 1), compiled=self.kernels_cold,
                         parts=sorted(kernels.seconds))
                self.progress.message(f"[{self.recipe.name} kernels] "
                                      f"{'compiled' if self.kernels_cold else 'loaded'} "
                                      f"{PARTS[RECORDING_PART]} in {duration(seconds)}; the "
                                      f"rest goes on {self.kernels_verb} beside the recording")
            return
        self.kernels_announced["all"] = True
        self.log("kernels_ready", seconds=round(seconds, 1), compiled=self.kernels_cold,
                 parts=sorted(kernels.seconds),
                 part_seconds={spec: round(value, 1) for spec, value in kernels.seconds.items()})
        self.progress.message(f"[{self.recipe.name} kernels] "
                              f"{'compiled' if self.kernels_cold else 'loaded'} in "
                              f"{duration(max(kernels.seconds.values()))}")

    def later_seconds(self, stage: Stage) -> float:
        """The rough time of the stages after `stage`, scaled by how the stages run so far
        compared with their rough times (a busy or a faster machine)."""
        total = 0.0
        for later in self.recipe.stages[stage.index + 1:]:
            record = self.state.data["stages"].get(later.name, {})
            if self.applies(later) and record.get("status") != "done":
                total += prior_seconds(later, self.recipe)
        actual, prior = self.measured_against_prior
        scale = min(max(actual / prior, 0.25), 20.0) if prior > 0 and actual > 0 else 1.0
        return total * scale

    def run_stage(self, stage: Stage, previous: Path | None) -> Path | None:
        record = self.state.stage(stage.name)
        label = f"{self.recipe.name} {stage.index + 1}/{len(self.recipe.stages)} {stage.name}"
        if not self.applies(stage):
            record.update(status="skipped", reason=f"when {stage.when}: this run starts from "
                          f"{self.start}")
            self.save()
            return previous
        model_in = self.resolve(stage.model, previous, stage)
        inputs = self.hashed(([model_in] if model_in else [])
                             + (self.demonstration_files(stage) if stage.kind == "fit" else []))
        outputs = record.get("outputs", {})
        if record.get("inputs") == inputs and record.get("status") in ("done", "failed") \
                and outputs_intact(self.run_dir, outputs):
            self.describe(stage, record, model_in)
            if record["status"] == "failed":
                raise RecipeStopped(record["message"])
            self.progress.message(f"[{label}] done in an earlier session (outputs verified "
                                  f"by SHA-256): skipped")
            self.log("stage_skipped", stage=stage.name, reason="done, outputs verified")
            return self.absolute(record["model"]) if record.get("model") else previous
        if record.get("inputs") != inputs:
            if record.get("inputs") is not None:
                self.log("stage_reset", stage=stage.name, reason="its inputs changed")
            record.clear()
            record.update(status="pending", attempt=1)
        elif record.get("status") in ("done", "failed"):
            self.log("stage_redone", stage=stage.name,
                     reason="an output is missing or differs from its recorded SHA-256")
        record["inputs"] = inputs
        record["seed"] = stage_seed(self.seed, stage.index)
        record["status"] = "running"
        self.save()
        while True:
            attempt = record.get("attempt", 1)
            current = stage if attempt == 1 else stage.with_overrides(
                stage.gate.retry, self.recipe.stages[:stage.index])
            folder = self.folder(stage, attempt)
            self.describe(current, record, model_in, folder)
            began = time.monotonic()
            seconds_before = record.get("wall_seconds", 0.0)
            self.log("stage_started", stage=stage.name, attempt=attempt, kind=stage.kind)
            self.progress.stage(label + (f" (attempt {attempt})" if attempt > 1 else ""),
                                *self.units(current, record), prior_seconds(current, self.recipe),
                                self.later_seconds(stage))

            def tick():
                record["wall_seconds"] = round(seconds_before + time.monotonic() - began, 2)

            self.tick = tick
            produced = self.execute(current, record, model_in, folder)
            tick()
            passed, message = True, ""
            if current.gate is not None and produced is not None \
                    and current.gate.min_win_rate is not None:
                passed, message = self.gate(current, record, produced, attempt)
            elif current.kind == "evaluate":
                passed, message = record["evaluation_passed"], record.get("message", "")
            tick()
            if passed:
                record["status"] = "done"
                record["model"] = self.relative(produced) if produced and current.makes_model \
                    else None
                break
            on_fail = current.gate.on_fail if current.gate else "stop"
            if on_fail == "retry" and attempt < current.gate.attempts:
                self.progress.message(f"[{label}] {message}; retrying with "
                                      f"{json.dumps(stage.gate.retry)}")
                self.log("stage_retry", stage=stage.name, attempt=attempt + 1,
                         changes=stage.gate.retry)
                record["earlier_attempt_steps"] = record.get("earlier_attempt_steps", 0) \
                    + record.pop("steps", 0)
                for key in ("chunks", "checkpoint_sha256", "epochs_done", "evaluated_at"):
                    record.pop(key, None)
                record["attempt"] = attempt + 1
                self.save()
                continue
            if on_fail in ("keep_input", "keep_better"):
                output_goes_on = on_fail == "keep_better" and self.input_won_less(
                    current, record, model_in)
                record["status"] = "done"
                record["model"] = self.relative(produced if output_goes_on else model_in)
                record["note"] = (f"{message}, but it beat its input on the same games: it "
                                  f"goes on (on_fail keep_better)" if output_goes_on else
                                  f"{message}: its input model goes on instead "
                                  f"(on_fail {on_fail})")
                self.progress.message(f"[{label}] {record['note']}")
                break
            record["status"] = "failed"
            exhausted = " after its last attempt" if on_fail == "retry" else ""
            record["message"] = (f"stage {stage.name!r}{exhausted}: {message}. The run stops "
                                 f"here (on_fail {on_fail}); see {self.run_dir}/evaluations.csv"
                                 f" and learning_curve.png, then change the recipe and run it "
                                 f"in a new --run-dir")
            self.save()
            self.log("stage_failed", stage=stage.name, message=record["message"])
            raise RecipeStopped(record["message"])
        self.save()
        if record.get("wall_seconds") and not record.get("resumed_from"):
            actual, prior = self.measured_against_prior
            self.measured_against_prior = (actual + record["wall_seconds"],
                                           prior + prior_seconds(stage, self.recipe))
        self.log("stage_done", stage=stage.name, attempt=record.get("attempt", 1),
                 wall_seconds=record.get("wall_seconds"), outputs=record.get("outputs"))
        self.progress.message(f"[{label}] done in {duration(record.get('wall_seconds', 0))}")
        self.write_card()
        if record.get("model"):
            return self.absolute(record["model"])
        return previous

    def units(self, stage: Stage, record: dict) -> tuple[str, float, float]:
        if stage.kind == "record":
            return "games", stage.games, record.get("games", 0)
        if stage.kind == "fit":
            return "epochs", stage.epochs, record.get("epochs_done", 0)
        if stage.kind == "ppo":
            from .config import TrainingConfig
            defaults = TrainingConfig()
            rollout = stage.settings.get("n_steps", defaults.n_steps) \
                * stage.settings.get("num_envs", defaults.num_envs)
            total = -(-stage.settings["total_timesteps"] // rollout) * rollout
            return "steps", total, record.get("steps", 0)
        return "games", stage.gate.games, 0

    def execute(self, stage: Stage, record: dict, model_in: Path | None,
                folder: Path) -> Path | None:
        if stage.kind == "record":
            self.record(stage, record, model_in, folder)
            return None
        if stage.kind == "fit":
            return self.fit(stage, record, model_in, folder)
        if stage.kind == "ppo":
            return self.ppo(stage, record, model_in, folder)
        self.evaluate_stage(stage, record, model_in, folder)
        return None

    # Stage kinds ----------------------------------------------------------------------------------

    def record(self, stage: Stage, record: dict, model_in: Path | None, folder: Path) -> None:
        """Games in chunks of chunk_games, each chunk's file written whole and hashed in
        the state; then all chunks in one demonstrations.npz (the same bytes for the same
        games)."""
        from agents.registry import make_agent
        demonstrator = stage.demonstrator.replace("{model}", str(model_in))
        mode = "standard" if stage.opponents else "dale"
        for spec in (demonstrator, *stage.opponents):
            make_agent(spec).check_mode(mode)
        first_seed = record_first_seed(self.seed, stage.index)
        record["first_game_seed"] = first_seed
        chunks_folder = folder / "chunks"
        chunks_folder.mkdir(exist_ok=True)
        done = record.setdefault("chunks", {})
        count = -(-stage.games // stage.chunk_games)
        intact = [index for index in range(count) if done.get(str(index)) is not None
                  and sha256_of(chunks_folder / f"chunk-{index:05d}.npz") == done[str(index)]]
        record["games"] = sum(min(stage.chunk_games, stage.games - i * stage.chunk_games)
                              for i in intact)
        if intact:
            record["resumed_from"] = f"{len(intact)} of {count} chunks recorded before"
            self.log("stage_resumed", stage=stage.name, chunks_done=len(intact),
                     games_done=record["games"])
        self.progress.update(record["games"])
        jobs = {}
        for index in range(count):
            if index in intact:
                continue
            first = first_seed + index * stage.chunk_games
            games = min(stage.chunk_games, stage.games - index * stage.chunk_games)
            parts = max(1, min(stage.workers, games))
            bounds = np.linspace(0, games, parts + 1).astype(int)
            jobs[index] = [(first + int(bounds[i]), int(bounds[i + 1] - bounds[i]), "2nd",
                            demonstrator, stage.opponents) for i in range(parts)
                           if bounds[i + 1] > bounds[i]]

        def chunk_done(index: int, results: list[tuple], node: str | None) -> None:
            path = chunks_folder / f"chunk-{index:05d}.npz"
            write_npz(path, {"states": np.concatenate([r[0] for r in results]),
                             "actions": np.concatenate([r[1] for r in results]),
                             "returns": np.concatenate([r[2] for r in results])})
            for line in (line for result in results for line in result[3]):
                self.log("forfeit", stage=stage.name, detail=line)
                self.progress.message(f"[{stage.name}] {line}")
            done[str(index)] = sha256_of(path)
            record["games"] += sum(job[1] for job in jobs[index])
            self.tick()
            self.save()
            self.log("chunk_done", stage=stage.name, chunk=index, games=record["games"],
                     first_seed=jobs[index][0][0], **({"node": node} if node else {}))
            self.progress.update(record["games"])

        self.workers.record(jobs, stage.workers,
                            model_in if "{model}" in stage.demonstrator else None, chunk_done)
        parts = [read_npz(chunks_folder / f"chunk-{index:05d}.npz") for index in range(count)]
        merged = {name: np.concatenate([part[name] for part in parts])
                  for name in ("states", "actions", "returns")}
        output = folder / "demonstrations.npz"
        write_npz(output, merged)
        record["decisions"] = int(len(merged["actions"]))
        record["demonstrations"] = self.relative(output)
        record["outputs"] = {self.relative(output): sha256_of(output)}

    def training_config(self, stage: Stage, folder: Path, **settings):
        from .config import TrainingConfig
        return TrainingConfig(**{**settings, **self.recipe.network},
                              seed=stage_seed(self.seed, stage.index),
                              torch_threads=self.recipe.torch_threads,
                              output_dir=str(folder), progress_bar=False)

    def provenance(self, stage: Stage, record: dict) -> dict:
        return {"trained_by": f"suburbia train --recipe {self.recipe.name}",
                "recipe": self.recipe.name, "recipe_sha256": self.recipe.sha256,
                "stage": stage.name, "attempt": record.get("attempt", 1),
                "run_seed": self.seed, "stage_seed": record["seed"],
                "git": self.state.data["provenance"]["git"]}

    def fit_resume_point(self, stage: Stage, record: dict, checkpoint_path: Path, module,
                         key: str) -> dict | None:
        """Where a killed fit goes on: `module` gets the checkpoint's weights (saved under
        `key`) when the checkpoint is the one the record names; None: from the start."""
        import torch
        if not (record.get("checkpoint_sha256")
                and sha256_of(checkpoint_path) == record["checkpoint_sha256"]):
            return None
        saved = torch.load(checkpoint_path, weights_only=True)
        module.load_state_dict(saved[key])
        resume = {name: saved[name] for name in ("epoch", "losses", "agreements", "optimizer")}
        resume["generator"] = json.loads(saved["generator"])
        record["resumed_from"] = f"epoch {resume['epoch']} of {stage.epochs}"
        self.log("stage_resumed", stage=stage.name, epochs_done=resume["epoch"])
        return resume

    def fit_checkpointer(self, stage: Stage, record: dict, folder: Path, checkpoint_path: Path,
                         module, key: str):
        """The fit's end-of-epoch call: the weights of `module` (under `key`), optimizer and
        generator written whole, then the record, the log and the progress line."""
        import torch

        def on_epoch(checkpoint: dict) -> None:
            temporary = folder / ".fit-checkpoint.tmp.pt"
            torch.save({key: module.state_dict(), "epoch": checkpoint["epoch"],
                        "losses": checkpoint["losses"], "agreements": checkpoint["agreements"],
                        "optimizer": checkpoint["optimizer"],
                        "generator": json.dumps(checkpoint["generator"])}, temporary)
            replace_atomically(temporary, checkpoint_path)
            record.update(checkpoint_sha256=sha256_of(checkpoint_path),
                          epochs_done=checkpoint["epoch"], losses=checkpoint["losses"],
                          agreements=checkpoint["agreements"])
            self.tick()
            self.save()
            self.log("epoch_done", stage=stage.name, epoch=checkpoint["epoch"],
                     loss=checkpoint["losses"][-1], agreement=checkpoint["agreements"][-1])
            self.progress.update(checkpoint["epoch"], note=f"agreement with the "
                                 f"demonstrations {checkpoint['agreements'][-1]:.3f}")
        return on_epoch

    def fit(self, stage: Stage, record: dict, model_in: Path | None, folder: Path) -> Path:
        """`suburbia train --demonstrations ... --total-timesteps 0` epoch by epoch, the
        weights, optimizer and shuffling saved after each epoch (fit-checkpoint.pt); with
        learner fast, the fast learner's network fitted to the demonstrations encoded
        once (training/imitation.py fit_network)."""
        if stage.learner == "fast":
            return self.fit_fast(stage, record, model_in, folder)
        import torch
        from agents.model_format import save_model_safely
        from .imitation import load_demonstrations, pretrain
        from .train import load_initial_weights, make_environment, new_model
        torch.set_num_threads(self.recipe.torch_threads)
        config = self.training_config(stage, folder, mode="dale", num_envs=2,
                                      total_timesteps=0)
        model = new_model(config, make_environment(config))
        if model_in is not None:
            load_initial_weights(model, model_in)
        data = load_demonstrations(",".join(str(p) for p in self.demonstration_files(stage)))
        rows = len(data["actions"])
        record["decisions"] = rows
        checkpoint_path = folder / "fit-checkpoint.pt"
        resume = self.fit_resume_point(stage, record, checkpoint_path, model.policy, "policy")
        record["epochs_done"] = resume["epoch"] if resume else 0
        self.progress.update(record["epochs_done"])

        on_epoch = self.fit_checkpointer(stage, record, folder, checkpoint_path, model.policy,
                                         "policy")

        def on_batch(done_rows: int) -> None:
            self.progress.update(record["epochs_done"] + done_rows / rows)

        with contextlib.redirect_stdout(io.StringIO()):
            pretrain(model, data, stage.epochs, stage.batch_size, stage.learning_rate,
                     seed=config.seed, resume=resume, on_epoch=on_epoch, on_batch=on_batch)
        output = folder / "model.safetensors"
        save_model_safely(model, output, training={**self.provenance(stage, record),
                                                   "fit": {"epochs": stage.epochs,
                                                           "learning_rate": stage.learning_rate,
                                                           "decisions": rows}})
        record["outputs"] = self.hashed([output])
        return output

    def fit_fast(self, stage: Stage, record: dict, model_in: Path | None,
                 folder: Path) -> Path:
        """The fit of the fast learner's network (agents/networks.py), checkpointed after
        each epoch as the sb3 fit is."""
        import torch
        from agents.model_format import save_safe_model
        from agents.networks import SparseActorCritic, SparsePolicy
        from .config import TrainingConfig
        from .fast_ppo import load_initial_network
        from .imitation import EncodedDemonstrations, fit_network, load_demonstrations
        torch.set_num_threads(self.recipe.torch_threads)
        config = self.training_config(stage, folder, mode="dale", num_envs=1,
                                      total_timesteps=0)
        network = SparseActorCritic(config.features_dim, tuple(config.net_arch),
                                    observation_size=config.observation_size)
        network.initialize(torch.Generator().manual_seed(config.seed))
        if model_in is not None:  # it reads the learner's network only
            load_initial_network(SimpleNamespace(network=network), model_in)
        data = load_demonstrations(",".join(str(p) for p in self.demonstration_files(stage)))
        rows = len(data["actions"])
        record["decisions"] = rows
        checkpoint_path = folder / "fit-checkpoint.pt"
        resume = self.fit_resume_point(stage, record, checkpoint_path, network, "network")
        record["epochs_done"] = resume["epoch"] if resume else 0
        self.progress.update(record["epochs_done"], note=f"encoding {rows:,} decisions")
        encoded = EncodedDemonstrations(data, on_rows=lambda done: self.progress.update(
            record["epochs_done"], note=f"encoding decisions {done:,}/{rows:,}"),
            observation_size=network.observation_size)
        self.progress.update(record["epochs_done"], note="")

        on_epoch = self.fit_checkpointer(stage, record, folder, checkpoint_path, network,
                                         "network")

        def on_batch(done_rows: int) -> None:
            self.progress.update(record["epochs_done"] + done_rows / rows)

        fit_network(network, encoded, stage.epochs, stage.batch_size, stage.learning_rate,
                    seed=config.seed, resume=resume, on_epoch=on_epoch, on_batch=on_batch)
        output = folder / "model.safetensors"
        save_safe_model(SparsePolicy(network), output, TrainingConfig().gamma, "current",
                        {**self.provenance(stage, record), "learner": "fast",
                         "fit": {"epochs": stage.epochs, "learning_rate": stage.learning_rate,
                                 "batch_size": stage.batch_size, "decisions": rows}})
        record["outputs"] = self.hashed([output])
        return output

    def ppo(self, stage: Stage, record: dict, model_in: Path | None, folder: Path) -> Path:
        """PPO through the stage's learner (training/ppo_backend.py), checkpointed every
        checkpoint_every steps (rounded up to whole rollouts) and evaluated every
        eval_every steps."""
        from .ppo_backend import make_learner
        from .train import planned_timesteps
        config = self.training_config(stage, folder, **stage.settings)
        learner = make_learner(stage.learner, config)
        total = planned_timesteps(config)
        rollout = config.n_steps * config.num_envs
        every = -(-stage.checkpoint_every // rollout) * rollout
        checkpoint = folder / record.get("checkpoint_file", "checkpoint.zip")
        if record.get("checkpoint_sha256") and \
                sha256_of(checkpoint) == record["checkpoint_sha256"]:
            learner.resume(checkpoint)
            record["resumed_from"] = f"checkpoint at {learner.steps:,} steps"
            self.log("stage_resumed", stage=stage.name, steps=learner.steps)
        else:
            learner.start(model_in)
        record["steps"] = learner.steps
        self.progress.total = total
        self.progress.update(learner.steps)
        session_steps, began = learner.steps, time.monotonic()
        provenance = {**self.provenance(stage, record), "learner": learner.name,
                      "config": config.to_dict()}
        while learner.steps < total:
            target = min(total, (learner.steps // every + 1) * every)
            learner.learn_until(target, on_steps=self.progress.update)
            temporary = folder / "checkpoint-partial.zip"
            learner.save_checkpoint(temporary)
            # a new name each time: the state names the last whole checkpoint until it is
            # saved naming this one, so a kill in between resumes from the last one
            previous, checkpoint = checkpoint, folder / f"checkpoint-{learner.steps}.zip"
            replace_atomically(temporary, checkpoint)
            record.update(checkpoint_file=checkpoint.name,
                          checkpoint_sha256=sha256_of(checkpoint), steps=learner.steps)
            elapsed = time.monotonic() - began
            if elapsed > 0:
                record["steps_per_second"] = round((learner.steps - session_steps) / elapsed, 1)
            self.tick()
            self.save()
            if previous != checkpoint and previous.exists():
                previous.unlink()
            self.log("checkpoint", stage=stage.name, steps=learner.steps,
                     env_steps=self.env_steps())
            if "steps_per_second" in record:
                self.progress.update(learner.steps, note=f"{record['steps_per_second']:,.0f} "
                                     f"steps/s")
            if stage.eval_every and learner.steps // stage.eval_every \
                    > record.get("evaluated_at", 0) // stage.eval_every \
                    and learner.steps < total:
                record["evaluated_at"] = learner.steps
                path = folder / "evaluated.safetensors"
                learner.export(path, provenance)
                self.evaluate(path, Evaluation(against=stage.gate.against if stage.gate
                                               else "dale",
                                               players=stage.gate.players if stage.gate else 2,
                                               games=stage.eval_games, seed=stage.eval_seed),
                              stage, record, "periodic")
                self.save()
        output = folder / "model.safetensors"
        learner.export(output, provenance)
        record["outputs"] = self.hashed([output])
        return output

    def evaluate_stage(self, stage: Stage, record: dict, model_in: Path | None,
                       folder: Path) -> None:
        if model_in is None:
            raise RecipeError(f"stage {stage.name!r}: nothing to evaluate (model is none)")
        row = self.evaluate(model_in, stage.gate, stage, record, "evaluation")
        output = folder / "evaluation.json"
        write_atomically(output, json.dumps(row, indent=1, sort_keys=True) + "\n")
        record["outputs"] = {self.relative(output): sha256_of(output)}
        record["evaluation_passed"] = bool(row["passed"] is not False)
        if row["passed"] is False:
            record["message"] = self.shortfall(stage.gate, row)

    def evaluate(self, model: Path, spec: Evaluation, stage: Stage, record: dict,
                 purpose: str) -> dict:
        """Seeded games of the model's policy; the row joins the evaluation history."""
        began = time.monotonic()
        self.progress.update(self.progress.done, note=f"evaluating {spec.games} games "
                             f"against {spec.against} (~"
                             f"{duration(evaluation_seconds(spec.against, spec.games, spec.players))})")
        result = self.workers.evaluate(model, spec.against, spec.games, spec.seed,
                                       spec.players, self.recipe.torch_threads)
        threshold = spec.min_win_rate if purpose != "periodic" else None
        row = {"stage": stage.name, "attempt": record.get("attempt", 1), "purpose": purpose,
               "against": spec.against, "players": spec.players if spec.against == "greedy"
               else 1, "games": result["games"], "seed": spec.seed,
               "win_rate": result["win_rate"], "win_rate_low": result["win_rate_low"],
               "win_rate_high": result["win_rate_high"],
               "mean_population": result["mean_population"],
               "mean_margin": result["mean_margin"], "env_steps": self.env_steps(),
               "run_seconds": round(self.run_seconds(), 1), "threshold": threshold,
               "passed": None if threshold is None else result["win_rate"] >= threshold,
               "seconds": round(time.monotonic() - began, 1), "time": round(time.time(), 1),
               "model": self.relative(model), "model_sha256": sha256_of(model)}
        add_evaluation(self.run_dir, row)
        self.log("evaluation", stage=stage.name, purpose=purpose, win_rate=row["win_rate"],
                 win_rate_low=row["win_rate_low"], win_rate_high=row["win_rate_high"],
                 games=row["games"], against=spec.against, env_steps=row["env_steps"],
                 **({"nodes": result["nodes"]} if "nodes" in result else {}))
        self.progress.message(
            f"[{stage.name}] {purpose}: win rate {row['win_rate']:.3f} "
            f"[{row['win_rate_low']:.3f}, {row['win_rate_high']:.3f}] over {row['games']} "
            f"games against {spec.against}"
            + ("" if threshold is None else
               f" (threshold {threshold:.2f}: {'passed' if row['passed'] else 'failed'})"))
        self.progress.update(self.progress.done, note="")
        return row

    def shortfall(self, spec: Evaluation, row: dict) -> str:
        return (f"its model won {row['win_rate']:.3f} [{row['win_rate_low']:.3f}, "
                f"{row['win_rate_high']:.3f}] of {row['games']} games against {spec.against}, "
                f"under the threshold {spec.min_win_rate:.2f}")

    def gate(self, stage: Stage, record: dict, model: Path, attempt: int) -> tuple[bool, str]:
        row = self.evaluate(model, stage.gate, stage, record, "gate")
        record["gate"] = {key: row[key] for key in ("win_rate", "win_rate_low",
                                                    "win_rate_high", "games", "passed")}
        return bool(row["passed"]), "" if row["passed"] else self.shortfall(stage.gate, row)

    def input_won_less(self, stage: Stage, record: dict, model_in: Path) -> bool:
        """Whether the stage's input won fewer of the gate's games than the stage's model
        (on_fail keep_better). The input's result on those very games is taken from the
        evaluation history when it is there (e.g. the gate of the stage that made it),
        otherwise played now."""
        spec, digest = stage.gate, sha256_of(model_in)
        players = spec.players if spec.against == "greedy" else 1
        earlier = [row for row in evaluations(self.run_dir)
                   if row.get("model_sha256") == digest and row["against"] == spec.against
                   and row["players"] == players and row["games"] == spec.games
                   and row["seed"] == spec.seed]
        row = earlier[-1] if earlier else self.evaluate(
            model_in, dataclasses.replace(spec, min_win_rate=None), stage, record, "input")
        record["input_gate"] = {key: row[key] for key in ("win_rate", "win_rate_low",
                                                          "win_rate_high", "games")}
        return row["win_rate"] < record["gate"]["win_rate"]

    def finish(self, model: Path | None) -> None:
        data = self.state.data
        if model is not None:
            destination = self.run_dir / "model.safetensors"
            if model.resolve() != destination.resolve():
                shutil.copyfile(model, destination)
                shutil.copyfile(model.with_suffix(".json"), destination.with_suffix(".json"))
            data["final"] = {"path": str(destination), "sha256": sha256_of(destination),
                             "description": str(destination.with_suffix(".json")),
                             "description_sha256": sha256_of(destination.with_suffix(".json")),
                             "from": self.relative(model)}
        data["status"] = "complete"
        self.save()
        self.write_card()
        self.log("run_complete", final=data.get("final"), env_steps=self.env_steps())
        final = data.get("final")
        print(f"recipe {self.recipe.name}: complete in {duration(self.run_seconds())} of wall "
              f"time" + (f"; model {final['path']} (SHA-256 {final['sha256'][:16]}...)"
                         if final else "") + f"; model card {self.run_dir / 'MODEL_CARD.md'}",
              flush=True)
        if self.recipe.next:
            print(f"Next: {self.recipe.next}", flush=True)

    # What each stage is, as commands ---------------------------------------------------------

    def describe(self, stage: Stage, record: dict, model_in: Path | None,
                 folder: Path | None = None) -> None:
        """The stage's command equivalent and settings, for the model card."""
        folder = folder or self.folder(stage, record.get("attempt", 1))
        self.commands[stage.name] = stage_commands(stage, self, model_in, folder)
        self.settings[stage.name] = {key: value for key, value in stage.raw.items()
                                     if key not in ("name", "kind")}


def stage_commands(stage: Stage, run: RecipeRun, model_in: Path | None,
                   folder: Path) -> list[str]:
    seed = stage_seed(run.seed, stage.index)
    model = shlex.quote(str(model_in)) if model_in else None
    network = [f"--{key.replace('_', '-')} " + (" ".join(map(str, value))
                                                   if isinstance(value, list) else str(value))
               for key, value in run.recipe.network.items()]
    if stage.kind == "record":
        first = record_first_seed(run.seed, stage.index)
        demonstrator = stage.demonstrator.replace("{model}", str(model_in))
        opponents = (" --opponents " + " ".join(map(shlex.quote, stage.opponents))
                     if stage.opponents else "")
        return [f"python -m training.imitation {folder}/demonstrations.npz --games "
                f"{stage.games} --seed {first} --demonstrator {shlex.quote(demonstrator)}"
                f"{opponents} --workers {stage.workers}",
                f"# the same games, recorded in chunks of {stage.chunk_games} (seeds "
                f"{first}..{first + stage.games - 1})"]
    if stage.kind == "fit" and stage.learner == "fast":
        files = ",".join(str(path) for path in _demonstration_paths(stage, run))
        return [f"# the fast learner's network ({', '.join(network) or 'default sizes'}"
                f"{', from ' + model if model else ''}) fitted to {files}: "
                f"training.imitation.fit_network, {stage.epochs} epochs, minibatches of "
                f"{stage.batch_size}, learning rate {stage.learning_rate:g}, seed {seed}"]
    if stage.kind == "fit":
        files = ",".join(str(path) for path in _demonstration_paths(stage, run))
        lines = [" ".join(["suburbia train", *([f"--init-model {model}"] if model else []),
                           f"--demonstrations {files}", f"--pretrain-epochs {stage.epochs}",
                           f"--pretrain-learning-rate {stage.learning_rate:g}",
                           "--total-timesteps 0 --num-envs 2 --eval-games 2", *network,
                           f"--torch-threads {run.recipe.torch_threads}",
                           f"--seed {seed} --output-dir {folder} --no-progress-bar"])]
        if stage.batch_size != 256:
            lines.append(f"# with minibatches of {stage.batch_size} decisions (the command "
                         f"uses 256)")
        return lines
    if stage.kind == "ppo":
        options = []
        for key, value in stage.settings.items():
            flag = "--" + key.replace("_", "-")
            if isinstance(value, bool):
                options.append(flag if value else "--no-" + flag[2:])
            elif isinstance(value, list):
                options.append(f"{flag} {' '.join(map(str, value))}")
            else:
                options.append(f"{flag} {value}")
        return [" ".join(["suburbia train", *options, *([f"--init-model {model}"] if model
                                                         else []), *network,
                          f"--torch-threads {run.recipe.torch_threads}",
                          f"--checkpoint-every {stage.checkpoint_every}",
                          f"--seed {seed} --output-dir {folder} --no-progress-bar"]),
                f"# learner {stage.learner}; the recipe learns between checkpoints and "
                f"evaluates every {stage.eval_every or 'no'} steps itself"]
    gate = stage.gate
    players = f" --players {gate.players}" if gate.against == "greedy" else ""
    return [f"python -m training.evaluation {model} --against {gate.against}{players} "
            f"--games {gate.games} --seed {gate.seed}"]


def _demonstration_paths(stage: Stage, run: RecipeRun) -> list[Path]:
    try:
        return run.demonstration_files(stage)
    except RecipeError:
        return [Path(name) for name in stage.demonstrations]


def plan(recipe: Recipe, seed: int, start: str) -> list[str]:
    """The stages a run would take, with their seeds and first estimates (--plan)."""
    lines = [f"recipe {recipe.name} (seed {seed}, start {start}): {recipe.description}"]
    total = 0.0
    for stage in recipe.stages:
        applies = stage.when == "always" or (stage.when == "no_start") == (start == "none")
        seconds = prior_seconds(stage, recipe) if applies else 0.0
        total += seconds
        detail = {"record": lambda: f"{stage.games} games of {stage.demonstrator} from seed "
                                    f"{record_first_seed(seed, stage.index)}",
                  "fit": lambda: f"{stage.epochs} epochs on {', '.join(stage.demonstrations)}"
                                 f" ({stage.learner})",
                  "ppo": lambda: f"{stage.settings['total_timesteps']:,} steps "
                                 f"({stage.learner})",
                  "evaluate": lambda: f"{stage.gate.games} games against {stage.gate.against}"
                  }[stage.kind]()
        gate = stage.gate
        gated = (f"; gate {gate.min_win_rate} against {gate.against} ({gate.games} games, "
                 f"on fail {gate.on_fail})" if gate is not None and gate.min_win_rate
                 is not None and stage.kind != "evaluate" else "")
        lines.append(f"  {stage.index + 1}. {stage.name} [{stage.kind}] "
                     f"{'' if applies else '(skipped: when ' + stage.when + ') '}"
                     f"seed {stage_seed(seed, stage.index)}: {detail}{gated}; "
                     f"~{duration(seconds)}")
    lines.append(f"  about {duration(total)} on the project's 2-core machine (rough)")
    return lines


def main(argv: list[str] | None = None) -> int:
    from suburbia_env.arguments import ArgumentParser
    parser = ArgumentParser(
        prog="suburbia train",
        description="Run a training recipe (training/recipes/*.json) to its final model, "
                    "every stage gated by its evaluation; started again with the same "
                    "command, it goes on from its last checkpoint.")
    parser.add_argument("--recipe", required=True, help=f"a recipe name ({', '.join(recipe_names())}) "
                        f"or a .json file")
    parser.add_argument("--run-dir", type=Path, help="the run folder (default runs/NAME)")
    parser.add_argument("--seed", type=int, help="the run seed (default: the recipe's); "
                        "each stage's seed derives from it")
    parser.add_argument("--start", help="start from this model instead of the recipe's "
                        "start: none, recipe:NAME (that recipe's run in runs/NAME) or a "
                        ".safetensors file")
    parser.add_argument("--plan", action="store_true", help="print the stages, their seeds "
                        "and rough times, and run nothing")
    parser.add_argument("--ray-address", help="HOST:PORT of a Ray cluster's head, or auto: "
                        "the recordings and evaluations run as Ray tasks on it, with the "
                        "same results as on this machine (docs/distributed.md)")
    from agents.ray_session import add_insecure_argument
    add_insecure_argument(parser)
    arguments = parser.parse_args(argv)
    print(f"suburbia train --recipe {arguments.recipe}: reading the recipe", flush=True)
    recipe = load_recipe(arguments.recipe)
    seed = recipe.seed if arguments.seed is None else arguments.seed
    if not 0 <= seed <= 2**32 - 1:
        raise RecipeError(f"--seed must be 0..2**32-1, not {seed}")
    start = arguments.start or recipe.start
    if arguments.start:
        from .recipe import _reference
        _reference(start, "--start", [], allow_previous=False, allow_start=False)
    if arguments.plan:
        print("\n".join(plan(recipe, seed, start)))
        return 0
    start_model(start)  # a missing start model stops here, before the run folder exists
    run_dir = arguments.run_dir or Path("runs") / recipe.name
    command = " ".join(["suburbia train --recipe", shlex.quote(arguments.recipe),
                        "--run-dir", shlex.quote(str(run_dir)), "--seed", str(seed),
                        *(["--start", shlex.quote(start)] if arguments.start else []),
                        *(["--ray-address", shlex.quote(arguments.ray_address)]
                          if arguments.ray_address else [])])
    with stage_workers(arguments.ray_address) as workers:
        if arguments.ray_address:
            where = workers.where
            print(f"recordings and evaluations on the Ray cluster at {where['address']}: "
                  f"{where['nodes']} nodes, {where['cpus']} CPUs", flush=True)
        run = RecipeRun(recipe, run_dir, seed, start, command, workers=workers)
        return run.run()


if __name__ == "__main__":
    sys.exit(main())
