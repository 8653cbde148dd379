"""A training recipe: the stages that make a released model, as data.

A recipe is a JSON file (training/recipes/NAME.json, or any path) naming its stages in
order. Each stage is one of four kinds:

- ``record``: games of a demonstrator (an agent spec, ``{model}`` standing for the model
  the stage names) against Dale or other agents, recorded as demonstrations
  (training/imitation.py), in chunks of games;
- ``fit``: the policy fitted to demonstrations (cross-entropy on the chosen actions, the
  value head on the final margin), epoch by epoch; its ``learner`` names the network
  (``sb3``'s policy, the default, or ``fast``'s, fitted in seconds to games encoded once);
- ``ppo``: PPO (``suburbia train``'s settings, training/config.py) from a model or fresh
  weights, through a pluggable learner (training/ppo_backend.py: "fast", the default,
  or "sb3", the same PPO update for update, tests/training/test_fast_ppo_matches_sb3.py);
- ``evaluate``: seeded games of a model against Dale (R9.2) or the greedy player.

A ``fit`` or ``ppo`` stage may carry a ``gate``: an evaluation its model must pass, with
what to do when it does not (stop, retry with other settings, or keep the stage's input
model). Parsing checks everything a run needs before anything runs, and every error names
the recipe, the stage and the field.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from suburbia_env.errors import ConfigError, shown

RECIPES_FOLDER = Path(__file__).resolve().parent / "recipes"
STAGE_KINDS = ("record", "fit", "ppo", "evaluate")
OPPONENTS = ("dale", "greedy")
ON_FAIL = ("stop", "retry", "keep_input", "keep_better")
WHEN = ("always", "no_start", "with_start")
MAX_GAMES = 10**7


class RecipeError(ConfigError):
    """A recipe that cannot run as written: names the recipe, the stage and the field."""


@dataclass(frozen=True)
class Evaluation:
    """Seeded games of a model's policy against Dale or the greedy player; `min_win_rate`
    (optional) is the threshold its win rate must reach."""
    against: str = "dale"
    players: int = 2
    games: int = 200
    seed: int = 6000
    min_win_rate: float | None = None
    on_fail: str = "stop"
    retry: dict = field(default_factory=dict)
    attempts: int = 1


@dataclass(frozen=True)
class Stage:
    name: str
    kind: str
    index: int
    when: str = "always"
    # record
    demonstrator: str = "greedy"
    opponents: tuple[str, ...] = ()
    games: int = 0
    chunk_games: int = 100
    workers: int = 1
    # record ({model}), fit and ppo (init), evaluate (model): a model reference
    model: str = "previous"
    # fit
    demonstrations: tuple[str, ...] = ()
    epochs: int = 1
    learning_rate: float = 1e-3
    batch_size: int = 256
    # ppo: TrainingConfig options (training/config.py)
    settings: dict = field(default_factory=dict)
    learner: str = "fast"
    checkpoint_every: int = 65_536
    eval_every: int = 0
    eval_games: int = 200
    eval_seed: int = 7000
    gate: Evaluation | None = None

    @property
    def makes_model(self) -> bool:
        return self.kind in ("fit", "ppo")

    def with_overrides(self, overrides: dict, earlier: tuple["Stage", ...]) -> "Stage":
        """This stage with a retry's changes applied, checked as the recipe's stages are
        (its gate kept)."""
        raw = merged_stage(self.raw, overrides)
        raw["gate"] = self.raw["gate"]
        return _stage(raw, self.index, self.recipe_name, list(earlier))

    raw: dict = field(default_factory=dict, compare=False, repr=False)
    recipe_name: str = ""


@dataclass(frozen=True)
class Recipe:
    name: str
    description: str
    next: str
    seed: int
    start: str
    torch_threads: int
    network: dict
    stages: tuple[Stage, ...]
    path: Path
    sha256: str

    def stage(self, name: str) -> Stage:
        return next(stage for stage in self.stages if stage.name == name)


STAGE_FIELDS = {
    "record": {"name", "kind", "when", "demonstrator", "opponents", "games", "chunk_games",
               "workers", "model"},
    "fit": {"name", "kind", "when", "model", "demonstrations", "epochs", "learning_rate",
            "batch_size", "learner", "gate"},
    "ppo": {"name", "kind", "when", "model", "settings", "learner", "checkpoint_every",
            "eval_every", "eval_games", "eval_seed", "gate"},
    "evaluate": {"name", "kind", "when", "model", "against", "players", "games", "seed",
                 "min_win_rate"},
}
GATE_FIELDS = {"against", "players", "games", "seed", "min_win_rate", "on_fail", "retry",
               "attempts"}
RECIPE_FIELDS = {"name", "description", "next", "seed", "start", "torch_threads", "network",
                 "stages"}
NETWORK_FIELDS = {"features", "features_dim", "net_arch"}
# Settings a ppo stage may not set: the recipe runner owns them.
RUNNER_SETTINGS = {"learner", "output_dir", "init_model", "seed",
                   "progress_bar", "demonstrations", "pretrain_games", "eval_every",
                   "checkpoint_every", "torch_threads", "features", "features_dim", "net_arch"}


def recipe_path(name: str) -> Path:
    """training/recipes/NAME.json for a bare name, else the path given."""
    if name.endswith(".json") or "/" in name or "\\" in name:
        return Path(name)
    return RECIPES_FOLDER / f"{name}.json"


def recipe_names() -> list[str]:
    return sorted(path.stem for path in RECIPES_FOLDER.glob("*.json"))


def load_recipe(name: str) -> Recipe:
    """The recipe `name` (a bare name or a .json path), checked; RecipeError if not."""
    path = recipe_path(name)
    if not path.is_file():
        known = ", ".join(recipe_names())
        raise RecipeError(f"no recipe {name!r} ({path} does not exist); the recipes are: "
                          f"{known}, or give a path to a .json file")
    data = path.read_bytes()
    if len(data) > 1_000_000:
        raise RecipeError(f"{path}: a recipe is a small JSON file, not {len(data)} bytes")
    try:
        content = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecipeError(f"{path}: not valid JSON ({error})") from None
    return parse_recipe(content, path, hashlib.sha256(data).hexdigest())


def parse_recipe(content, path: Path = Path("<recipe>"), sha256: str = "") -> Recipe:
    where = f"recipe {path}"
    if not isinstance(content, dict):
        raise RecipeError(f"{where}: must be a JSON object, not {type(content).__name__}")
    _no_unknown(content, RECIPE_FIELDS, where)
    name = _text(content.get("name", path.stem), f"{where}: name")
    where = f"recipe {name!r}"
    stages_raw = content.get("stages")
    if not isinstance(stages_raw, list) or not stages_raw:
        raise RecipeError(f"{where}: 'stages' must be a non-empty list of stages")
    network = content.get("network", {})
    if not isinstance(network, dict):
        raise RecipeError(f"{where}: 'network' must be an object")
    _no_unknown(network, NETWORK_FIELDS, f"{where}: network")
    _training_options(network, f"{where}: network")
    stages: list[Stage] = []
    for index, raw in enumerate(stages_raw):
        stages.append(_stage(raw, index, name, stages))
    start = content.get("start", "none")
    _reference(start, f"{where}: start", [], allow_previous=False, allow_start=False)
    return Recipe(name=name, description=_text(content.get("description", ""),
                                               f"{where}: description", empty=True),
                  next=_text(content.get("next", ""), f"{where}: next", empty=True),
                  seed=_whole(content.get("seed", 0), f"{where}: seed", 0, 2**32 - 1),
                  start=start,
                  torch_threads=_whole(content.get("torch_threads", 1),
                                       f"{where}: torch_threads", 1, 256),
                  network=dict(network), stages=tuple(stages), path=path, sha256=sha256)


def _stage(raw, index: int, recipe_name: str, earlier: list[Stage]) -> Stage:
    where = f"recipe {recipe_name!r}, stage {index + 1}"
    if not isinstance(raw, dict):
        raise RecipeError(f"{where}: must be an object, not {shown(raw)}")
    kind = raw.get("kind")
    if kind not in STAGE_KINDS:
        raise RecipeError(f"{where}: unknown stage kind {shown(kind)}; a stage is one of "
                          f"{', '.join(STAGE_KINDS)}")
    name = _text(raw.get("name"), f"{where}: name")
    where = f"recipe {recipe_name!r}, stage {index + 1} ({name!r})"
    if any(stage.name == name for stage in earlier):
        raise RecipeError(f"{where}: the name {name!r} is used by an earlier stage")
    if not all(char.isalnum() or char in "-_" for char in name):
        raise RecipeError(f"{where}: a stage name has letters, digits, - and _ only")
    _no_unknown(raw, STAGE_FIELDS[kind], where)
    when = raw.get("when", "always")
    if when not in WHEN:
        raise RecipeError(f"{where}: 'when' must be one of {', '.join(WHEN)}, not {shown(when)}")
    values: dict = {"name": name, "kind": kind, "index": index, "when": when, "raw": dict(raw),
                    "recipe_name": recipe_name}
    default_model = "none" if kind == "fit" and not any(s.makes_model for s in earlier) \
        else "previous"
    values["model"] = _reference(raw.get("model", default_model), f"{where}: model", earlier)
    if kind == "record":
        values["demonstrator"] = _text(raw.get("demonstrator", "greedy"), f"{where}: demonstrator")
        if "{model}" in values["demonstrator"] and values["model"] == "none":
            raise RecipeError(f"{where}: the demonstrator names {{model}} but model is none")
        opponents = raw.get("opponents", [])
        if not isinstance(opponents, list) or len(opponents) > 3 or not all(
                isinstance(spec, str) and spec for spec in opponents):
            raise RecipeError(f"{where}: 'opponents' must be a list of 0 to 3 agent specs "
                              f"(none: games against Dale, R9.2; R3.1), not {shown(opponents)}")
        values["opponents"] = tuple(opponents)
        values["games"] = _whole(raw.get("games"), f"{where}: games", 1, MAX_GAMES)
        values["chunk_games"] = _whole(raw.get("chunk_games", 100), f"{where}: chunk_games",
                                       1, MAX_GAMES)
        values["workers"] = _whole(raw.get("workers", 1), f"{where}: workers", 1, 256)
    elif kind == "fit":
        sources = raw.get("demonstrations")
        if isinstance(sources, str):
            sources = [sources]
        if not isinstance(sources, list) or not sources:
            raise RecipeError(f"{where}: 'demonstrations' must name the record stages (or "
                              f".npz files) to fit, e.g. [\"greedy-games\"]")
        for source in sources:
            if not isinstance(source, str):
                raise RecipeError(f"{where}: demonstrations: {shown(source)} is not a name")
            recorded = [s for s in earlier if s.name == source]
            if not recorded and not source.endswith(".npz"):
                raise RecipeError(f"{where}: missing input: demonstrations {source!r} is no "
                                  f"earlier record stage (the record stages before it: "
                                  f"{', '.join(s.name for s in earlier if s.kind == 'record') or 'none'})")
            if recorded and recorded[0].kind != "record":
                raise RecipeError(f"{where}: demonstrations {source!r} is a "
                                  f"{recorded[0].kind} stage, not a record stage")
        values["demonstrations"] = tuple(sources)
        values["epochs"] = _whole(raw.get("epochs", 1), f"{where}: epochs", 1, 100_000)
        values["learning_rate"] = _number(raw.get("learning_rate", 1e-3),
                                          f"{where}: learning_rate", 0, 1, open_low=True)
        values["batch_size"] = _whole(raw.get("batch_size", 256), f"{where}: batch_size",
                                      1, 10**6)
        values["learner"] = _learner(raw, where, default="sb3")
    elif kind == "ppo":
        settings = raw.get("settings", {})
        if not isinstance(settings, dict):
            raise RecipeError(f"{where}: 'settings' must be an object of suburbia train "
                              f"options")
        forbidden = sorted(set(settings) & RUNNER_SETTINGS)
        if forbidden:
            raise RecipeError(f"{where}: settings: {', '.join(forbidden)} belong to the "
                              f"recipe (stage fields, the recipe's network and seed)")
        _training_options(settings, f"{where}: settings")
        if "total_timesteps" not in settings or settings["total_timesteps"] < 1:
            raise RecipeError(f"{where}: settings: total_timesteps (at least 1) is required")
        values["settings"] = dict(settings)
        values["learner"] = _learner(raw, where, default="fast")
        values["checkpoint_every"] = _whole(raw.get("checkpoint_every", 65_536),
                                            f"{where}: checkpoint_every", 1, 10**12)
        values["eval_every"] = _whole(raw.get("eval_every", 0), f"{where}: eval_every",
                                      0, 10**12)
        values["eval_games"] = _whole(raw.get("eval_games", 200), f"{where}: eval_games",
                                      1, MAX_GAMES)
        values["eval_seed"] = _whole(raw.get("eval_seed", 7000), f"{where}: eval_seed",
                                     0, 2**63)
    if kind == "evaluate":
        values["gate"] = _evaluation({key: raw[key] for key in raw
                                      if key in GATE_FIELDS}, where, gate=False)
    elif "gate" in raw:
        values["gate"] = _evaluation(raw["gate"], f"{where}: gate", gate=True)
        if values["gate"].on_fail in ("keep_input", "keep_better") \
                and values["model"] == "none":
            raise RecipeError(f"{where}: gate: on_fail {values['gate'].on_fail} needs an input "
                              f"model (model is none)")
    stage = Stage(**values)
    if stage.gate is not None and stage.gate.on_fail == "retry":
        changeable = STAGE_FIELDS[kind] - {"name", "kind", "gate", "when"}
        for key in stage.gate.retry:
            if key not in changeable:
                raise RecipeError(f"{where}: gate: retry cannot change {key!r}; a {kind} "
                                  f"stage's retry may change {', '.join(sorted(changeable))}")
        _stage(merged_stage(raw, stage.gate.retry), index, recipe_name, earlier)
    return stage


def _learner(raw: dict, where: str, default: str) -> str:
    """A fit or ppo stage's learner (training/ppo_backend.py LEARNERS): whose network it
    trains (a fit's default stays sb3, the network the released recipes' fits make)."""
    learner = _text(raw.get("learner", default), f"{where}: learner")
    from .ppo_backend import LEARNERS
    if learner not in LEARNERS:
        raise RecipeError(f"{where}: unknown learner {learner!r}; the learners are: "
                          f"{', '.join(sorted(LEARNERS))}")
    return learner


def merged_stage(raw: dict, overrides: dict) -> dict:
    """A stage's fields with a retry's changes applied (its settings merged), no gate."""
    merged = {key: value for key, value in raw.items() if key != "gate"}
    for key, value in overrides.items():
        merged[key] = ({**raw.get("settings", {}), **value}
                       if key == "settings" and isinstance(value, dict) else value)
    return merged


def _evaluation(raw, where: str, gate: bool) -> Evaluation:
    if not isinstance(raw, dict):
        raise RecipeError(f"{where}: must be an object")
    if gate:
        _no_unknown(raw, GATE_FIELDS, where)
    against = raw.get("against", "dale")
    if against not in OPPONENTS:
        raise RecipeError(f"{where}: 'against' must be one of {', '.join(OPPONENTS)}, "
                          f"not {shown(against)}")
    threshold = raw.get("min_win_rate")
    if threshold is not None:
        threshold = _number(threshold, f"{where}: min_win_rate (a win rate threshold)", 0, 1)
    elif gate:
        raise RecipeError(f"{where}: a gate needs min_win_rate (a win rate threshold 0..1)")
    on_fail = raw.get("on_fail", "stop")
    if on_fail not in ON_FAIL:
        raise RecipeError(f"{where}: 'on_fail' must be one of {', '.join(ON_FAIL)}, "
                          f"not {shown(on_fail)}")
    retry = raw.get("retry", {})
    if not isinstance(retry, dict) or (on_fail == "retry" and not retry):
        raise RecipeError(f"{where}: on_fail retry needs 'retry', an object of the stage "
                          f"fields to change, e.g. {{\"epochs\": 12}}")
    attempts = _whole(raw.get("attempts", 2 if on_fail == "retry" else 1),
                      f"{where}: attempts", 1, 10)
    return Evaluation(against=against,
                      players=_whole(raw.get("players", 2), f"{where}: players", 2, 4),
                      games=_whole(raw.get("games", 200), f"{where}: games", 1, MAX_GAMES),
                      seed=_whole(raw.get("seed", 6000), f"{where}: seed", 0, 2**63),
                      min_win_rate=threshold, on_fail=on_fail, retry=dict(retry),
                      attempts=attempts)


def _reference(value, where: str, earlier: list[Stage], allow_previous: bool = True,
               allow_start: bool = True) -> str:
    """A model reference: none, start, previous, stage:NAME (an earlier fit or ppo
    stage), recipe:NAME (another recipe's run) or a path to a .safetensors model."""
    if not isinstance(value, str) or not value:
        raise RecipeError(f"{where}: a model reference is text, not {shown(value)}")
    if value == "none" or (value == "start" and allow_start) \
            or (value == "previous" and allow_previous):
        return value
    if value.startswith("stage:"):
        name = value[len("stage:"):]
        found = [stage for stage in earlier if stage.name == name]
        if not found:
            raise RecipeError(f"{where}: missing input: {value} names no earlier stage")
        if not found[0].makes_model:
            raise RecipeError(f"{where}: {value} is a {found[0].kind} stage, which makes "
                              f"no model")
        return value
    if value.startswith("recipe:"):
        return value
    if value.endswith((".safetensors", ".json")):
        return value
    raise RecipeError(f"{where}: {shown(value)} is no model reference (none, "
                      f"{'start, previous, ' if allow_previous else ''}stage:NAME, "
                      f"recipe:NAME or a .safetensors path)")


def _training_options(values: dict, where: str) -> None:
    """Checks `suburbia train` options with training/config.py's own rules."""
    from .config import TrainingConfig, _checked
    defaults = TrainingConfig()
    for key, value in values.items():
        if not hasattr(defaults, key):
            raise RecipeError(f"{where}: unknown option {key!r} (suburbia train --help "
                              f"lists them, with _ for -)")
        try:
            _checked(key, value, getattr(defaults, key), "")
        except SystemExit as error:
            raise RecipeError(f"{where}: {error}") from None


def _no_unknown(raw: dict, allowed: set, where: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise RecipeError(f"{where}: unknown field {', '.join(map(repr, unknown))}; allowed: "
                          f"{', '.join(sorted(allowed))}")


def _text(value, where: str, empty: bool = False) -> str:
    if not isinstance(value, str) or (not value and not empty):
        raise RecipeError(f"{where} must be text, not {shown(value)}")
    return value


def _whole(value, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RecipeError(f"{where} must be a whole number {low}..{high}, not {shown(value)}")
    return value


def _number(value, where: str, low: float, high: float, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not low <= value <= high \
            or (open_low and value == low):
        bound = f"{'above ' if open_low else ''}{low}..{high}"
        raise RecipeError(f"{where} must be a number {bound}, not {shown(value)}")
    return float(value)
