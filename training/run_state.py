"""The state file of a recipe run (RUN_DIR/state.json): what is done, with the SHA-256
of every output, so a run killed at any moment goes on from where it was.

Every write goes to a temporary file in the same folder, is flushed to disk and then
replaces the old file (os.replace is atomic on POSIX), so a kill leaves either the old
or the new state, never half of one. A stage counts as done only while its outputs still
have the hashes it recorded; a missing, partial or changed output is made again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from suburbia_env.errors import ConfigError

STATE_FORMAT = "suburbia-recipe-run"
STATE_VERSION = 1


def sha256_of(path: str | Path) -> str | None:
    """The file's SHA-256, or None when it does not exist."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except FileNotFoundError:
        return None
    return digest.hexdigest()


def write_atomically(path: str | Path, data: bytes | str) -> None:
    """Write `data` to `path` through a temporary file and os.replace."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(data.encode() if isinstance(data, str) else data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def replace_atomically(temporary: str | Path, path: str | Path) -> None:
    """Move a finished temporary file into place (flushed first)."""
    with open(temporary, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def outputs_intact(run_dir: Path, outputs: dict[str, str]) -> bool:
    """Whether every output (path relative to the run folder -> SHA-256) is as recorded."""
    return bool(outputs) and all(sha256_of(run_dir / name) == digest
                                 for name, digest in outputs.items())


class RunState:
    """state.json of one run: the recipe and seed it was started with, and per stage its
    status, attempts, outputs (with hashes), inputs (with hashes), checkpoints and times."""

    def __init__(self, run_dir: Path, data: dict):
        self.run_dir = run_dir
        self.data = data

    @property
    def path(self) -> Path:
        return self.run_dir / "state.json"

    @classmethod
    def open(cls, run_dir: Path, recipe_name: str, recipe_sha256: str, seed: int,
             start: str) -> "RunState":
        """The run's state, or a new one; a run folder started with another recipe, seed
        or start refuses to go on (its outputs would not be this command's)."""
        path = run_dir / "state.json"
        if path.exists():
            try:
                data = json.loads(path.read_text())
                if data.get("format") != STATE_FORMAT:
                    raise ValueError("not a recipe run's state")
            except (ValueError, UnicodeDecodeError) as error:
                raise ConfigError(f"{path}: not a recipe run's state file ({error}); use "
                                  f"another --run-dir") from None
            for key, value, option in (("recipe", recipe_name, "--recipe"),
                                       ("recipe_sha256", recipe_sha256, "the recipe file"),
                                       ("seed", seed, "--seed"), ("start", start, "--start")):
                if data.get(key) != value:
                    raise ConfigError(
                        f"{run_dir} holds a run of recipe {data.get('recipe')!r} with seed "
                        f"{data.get('seed')} and start {data.get('start')!r}; {option} differs "
                        f"({data.get(key)!r} there, {value!r} now): give another --run-dir to "
                        f"start a new run, or the same options to go on with this one")
            data["sessions"] = data.get("sessions", 0) + 1
            return cls(run_dir, data)
        run_dir.mkdir(parents=True, exist_ok=True)
        return cls(run_dir, {"format": STATE_FORMAT, "version": STATE_VERSION,
                             "recipe": recipe_name, "recipe_sha256": recipe_sha256,
                             "seed": seed, "start": start, "created": time.time(),
                             "sessions": 1, "run_seconds": 0.0, "env_steps": 0,
                             "stages": {}})

    def stage(self, name: str) -> dict:
        return self.data["stages"].setdefault(name, {"status": "pending", "attempt": 1})

    def save(self) -> None:
        write_atomically(self.path, json.dumps(self.data, indent=1, sort_keys=True) + "\n")
