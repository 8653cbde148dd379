"""The agent specs a client of `suburbia serve` may seat (a part of agents.registry's).

- **Confined.** Trained models are named `FOLDER/PATH`: FOLDER is the last part of a
  served model folder (`--models`), PATH a file (`ppo*:`) or checkpoint folder (`rllib:`)
  under it. Nothing outside the folders is looked at, and a missing path and a refused
  one get the same answer, so that a client learns nothing of the server's files.
- **Checked when the seat is made.** A spec is read by the registry's own rules (the
  search settings by `registry.search_settings`), bounded by this server (trials per
  decision), and its model checked to be of a loadable kind (a `.safetensors` file with
  its description, an RLlib checkpoint of ours), so that a bot that could never move is
  refused with the reason rather than failing on its first turn.
- **No server path reaches a client.** A seat holds the spec as the client may read it;
  it is turned into files only when the agent is built (`build_agent`), and the text of
  a bot's error is shown with every absolute path cut to its last part (`hide_paths`).
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from ...errors import SuburbiaError, shown

MODEL_KINDS = ("ppo", "ppo-sample", "ppo-goals", "ppo-search", "ppo-rollout")
SEARCH_KINDS = ("ppo-search", "ppo-rollout")
CHECKPOINT_KIND = "rllib"
MODEL_SUFFIX = ".safetensors"
MAX_OFFERED = 50
MAX_WEB_SEARCH_TRIALS = 64
"""K x S trials per decision at most for a search agent a client seats: the defaults
(8 x 4, 4 x 4) fit, thousands would keep the server's cores busy for one client."""

_ABSOLUTE_PATH = re.compile(r"(?<![\w.~/:-])(?:~|[A-Za-z]:)?(?:[/\\][^\s/\\'\"]+)+[/\\]?")


class SpecRefused(Exception):
    """A spec this server does not seat; the message says why (status 422)."""


def hide_paths(text: str) -> str:
    """`text` with every absolute path cut to its last part (`/srv/m/a.json` -> `a.json`):
    how a bot's error is shown to a browser."""
    def last_part(match: re.Match) -> str:
        parts = [part for part in re.split(r"[/\\]", match.group(0)) if part]
        return parts[-1] if parts else "/"
    return _ABSOLUTE_PATH.sub(last_part, text)


def short_spec(spec: str) -> str:
    """An agent spec as a label: a model's folders are left out (`ppo:baseline`)."""
    kind, separator, arguments = spec.strip().partition(":")
    if kind.lower() in MODEL_KINDS + (CHECKPOINT_KIND,) and separator:
        path, *rest = arguments.split(",")
        arguments = ",".join([Path(path.strip()).stem] + rest)
    return (kind + separator + arguments)[:40]


def without_pickle_permission(spec: str) -> str:
    """`spec` without the ``pickle:`` permission before a model's path: whatever a stored
    or sealed seat says, the server never loads a pickled model (it runs code from the
    file); such a spec then fails to load with the error that says so."""
    kind, separator, arguments = spec.strip().partition(":")
    if kind.lower() in MODEL_KINDS and separator \
            and arguments.strip().lower().startswith("pickle:"):
        return f"{kind}:{arguments.strip()[len('pickle:'):]}"
    return spec


class ModelFolders:
    """The served model folders, each known to clients by its last part only."""

    def __init__(self, folders: list[Path]):
        self._folders: list[tuple[str, Path]] = []
        for folder in folders:
            real = Path(os.path.realpath(Path(folder).expanduser()))
            label = real.name or "models"
            taken = {known for known, _ in self._folders}
            number = 2
            while label in taken:
                label, number = f"{real.name}-{number}", number + 1
            self._folders.append((label, real))

    def _inside(self, path: Path) -> bool:
        return any(path.is_relative_to(real) for _, real in self._folders)

    def _public(self, path: Path) -> str | None:
        for label, real in self._folders:
            if path.is_relative_to(real):
                return f"{label}/{path.relative_to(real).as_posix()}"
        return None

    def _resolve(self, name: str) -> Path | None:
        """The real path named FOLDER/PATH if it lies under that folder, else None (for a
        name that is malformed, too long, outside or missing alike)."""
        label, separator, rest = name.strip().partition("/")
        if not separator or not rest or "\x00" in name:
            return None
        for known, real in self._folders:
            if known == label:
                try:
                    path = Path(os.path.realpath(real / rest))
                except (OSError, ValueError):
                    return None
                return path if path.is_relative_to(real) else None
        return None

    def model(self, name: str) -> Path | None:
        """A `.safetensors` model with its `.json` description beside it, both regular
        files under the folder; None otherwise."""
        path = self._resolve(name)
        if path is None or path.suffix != MODEL_SUFFIX:
            return None
        description = Path(os.path.realpath(path.with_suffix(".json")))
        try:
            found = path.is_file() and description.is_file()
        except (OSError, ValueError):
            return None
        return path if found and self._inside(description) else None

    def checkpoint(self, name: str) -> Path | None:
        """An RLlib checkpoint folder holding the policy files its agent loads."""
        from agents.rllib_agent import DESCRIPTION_FILE, POLICY_FILE
        path = self._resolve(name)
        if path is None:
            return None
        try:
            files = [Path(os.path.realpath(path / file)) for file in (POLICY_FILE,
                                                                       DESCRIPTION_FILE)]
            found = path.is_dir() and all(file.is_file() for file in files)
        except (OSError, ValueError):
            return None
        return path if found and all(self._inside(file) for file in files) else None

    def offered_models(self) -> list[str]:
        found = []
        for _, real in self._folders:
            if real.is_dir():
                for path in sorted(real.rglob(f"*{MODEL_SUFFIX}")):
                    name = self._public(Path(os.path.realpath(path)))
                    if name is not None and self.model(name) is not None \
                            and _description_error(self.model(name)) is None:
                        found.append(name)
        return found[:MAX_OFFERED]

    def offered_checkpoints(self) -> list[str]:
        from agents.rllib_agent import POLICY_FILE
        found = []
        for _, real in self._folders:
            if real.is_dir():
                for path in sorted(real.rglob(POLICY_FILE)):
                    name = self._public(Path(os.path.realpath(path.parent)))
                    if name is not None and self.checkpoint(name) is not None:
                        found.append(name)
        return found[:MAX_OFFERED]

    def public_spec(self, spec: str | None) -> str | None:
        """A spec as a client may read it: a model named by its absolute path (a sealed
        save of an older version) is renamed FOLDER/PATH, or cut to its last part."""
        if spec is None:
            return None
        kind, separator, arguments = spec.partition(":")
        if kind.lower() not in MODEL_KINDS + (CHECKPOINT_KIND,) or not separator:
            return spec
        path_text, *rest = arguments.split(",")
        path = Path(path_text.strip())
        if not path.is_absolute():
            return spec
        name = self._public(Path(os.path.realpath(path))) or path.name
        return ":".join([kind, ",".join([name] + rest)])


def _not_offered(spec: str, what: str) -> SpecRefused:
    return SpecRefused(f"agent {shown(spec)}: {what} is not one of the models this server offers "
                       f"(GET /api/options lists them)")


def _needs(spec: str, modules: tuple[str, ...], extra: str) -> None:
    if any(importlib.util.find_spec(module) is None for module in modules):
        raise SpecRefused(f"agent {shown(spec)}: this server cannot run it (its install lacks the "
                          f"{extra!r} extra)")


def check_agent_spec(spec: str, mode: str, folders: ModelFolders) -> str:
    """The spec a seat keeps (the kind in lower case, settings trimmed), once it is known
    to name an agent that can play `mode` here; SpecRefused saying why otherwise."""
    from agents.registry import AgentSpecError, goal_prior_settings, make_agent, search_settings
    text = spec.strip()
    kind, separator, arguments = text.partition(":")
    kind = kind.lower()
    if kind in MODEL_KINDS and separator:
        path_text, *settings = [part.strip() for part in arguments.split(",")]
        if path_text.lower().startswith("pickle:") or path_text.lower().endswith(".zip"):
            raise SpecRefused(f"agent {shown(text)}: the web server never loads pickled models "
                              f"(they run code from the file), only {MODEL_SUFFIX} ones; "
                              f"convert it with 'suburbia convert-model'")
        if not path_text.endswith(MODEL_SUFFIX):
            raise SpecRefused(f"agent {shown(text)}: name the model by its {MODEL_SUFFIX} file, "
                              f"e.g. '{kind}:models/baseline{MODEL_SUFFIX}'")
        if kind in SEARCH_KINDS:
            evaluation = "critic" if kind == "ppo-search" else "rollout"
            try:
                _, chosen = search_settings(text, kind, arguments, evaluation)
            except AgentSpecError as error:
                raise SpecRefused(str(error)) from None
            trials = chosen["candidates"] * chosen["samples"]
            if trials > MAX_WEB_SEARCH_TRIALS:
                raise SpecRefused(f"agent {shown(text)}: K x S = {trials} trials per "
                                  f"decision; this server allows at most "
                                  f"{MAX_WEB_SEARCH_TRIALS}")
        elif kind == "ppo-goals":
            try:
                goal_prior_settings(text, arguments)
            except AgentSpecError as error:
                raise SpecRefused(str(error)) from None
        elif settings:
            raise SpecRefused(f"agent {shown(text)}: {kind} takes the model file alone; the "
                              f"settings K,S,W,O,G are for {' and '.join(SEARCH_KINDS)}")
        if folders.model(path_text) is None:
            raise _not_offered(text, shown(path_text))
        _needs(text, ("torch", "safetensors"), "train")
        _check_description(text, folders.model(path_text))
        return ":".join([kind, ",".join([path_text] + settings)])
    if kind == CHECKPOINT_KIND and separator:
        path_text = arguments.strip()
        if folders.checkpoint(path_text) is None:
            raise _not_offered(text, shown(path_text))
        _needs(text, ("torch", "ray"), "distributed")
        return f"{kind}:{path_text}"
    try:
        agent = make_agent(text, seed=0)  # the built-in bots: cheap, and checks the spec
        agent.check_mode(mode)
    except (SuburbiaError, ValueError) as error:
        raise SpecRefused(hide_paths(str(error))) from None  # it names the spec
    return text


def _description_error(path: Path) -> str | None:
    """Why the model's description is not one (its paths hidden), or None. It is bounded
    in size; the weights are read when the agent is built."""
    from agents.model_format import read_description
    try:
        read_description(path)
    except SuburbiaError as error:
        return hide_paths(str(error))
    return None


def _check_description(spec: str, path: Path) -> None:
    error = _description_error(path)
    if error is not None:
        raise SpecRefused(f"agent {shown(spec)}: the model cannot be loaded ({error})")


def build_agent(spec: str, seed: int, folders: ModelFolders):
    """The agent of a seat's spec, its model found in the folders again (a file removed
    since the seat was made fails here, with its path hidden)."""
    from agents.registry import make_agent
    kind, separator, arguments = without_pickle_permission(spec).partition(":")
    if kind in MODEL_KINDS + (CHECKPOINT_KIND,) and separator:
        path_text, *settings = arguments.split(",")
        found = (folders.checkpoint(path_text) if kind == CHECKPOINT_KIND
                 else folders.model(path_text))
        if found is None:
            raise SpecRefused(f"the model {shown(path_text)} is no longer offered by this server")
        real_spec = ":".join([kind, ",".join([str(found)] + settings)])
    else:
        real_spec = kind + separator + arguments
    try:
        agent = make_agent(real_spec, seed=seed)
    except Exception as error:
        raise SpecRefused(hide_paths(f"{type(error).__name__}: {error}")) from None
    agent.name = spec
    return agent
