"""Model files that hold only tensors and plain data: loading one runs no code from it.

A model is two files side by side, with the same name:

    NAME.safetensors   the policy's weights (safetensors: a JSON header, then raw tensors)
    NAME.json          what the weights are (below), plain JSON

Either path names the model (`ppo:models/baseline.safetensors`). The loader reads the
description, builds the network it describes from this package's own code (SB3's
MaskableActorCriticPolicy with the compact extractor of agents/features.py, or SB3's
flatten / combined extractor, or the fast learner's SparseActorCritic of
agents/networks.py), and copies the tensors into it after checking their names, shapes,
dtypes, values (finite) and the weights file's SHA-256 against the description.
Nothing is unpickled. Anything wrong gives a ModelFormatError naming the file and the
problem.

The description (format "suburbia-policy", version MODEL_FORMAT_VERSION of versions.py):

    format, format_version       "suburbia-policy", MODEL_FORMAT_VERSION
    weights                      {"format": "safetensors", "sha256": hex digest, "bytes": size}
    policy                       {"class": "SparseActorCritic", "features_dim": 256,
                                  "net_arch": [128], "activation_fn": "Tanh"} (the fast
                                  learner's network, agents/networks.py: flat observations;
                                  trained with the goal term it also carries
                                  "goal_prior_weight" 0..100, "goal_prior_denial" 0..1 and
                                  "goal_chances", 8 rows (s0 > 0, s1 >= 0, centre),
                                  agents/goal_term.py and one_ply.chance_with),
                                  or {"class": "MaskableActorCriticPolicy" (flat observations) or
                                  "MaskableMultiInputActorCriticPolicy" (dict observations),
                                  "features_extractor": {"class": "SuburbiaFeatures",
                                  "features_dim": 256} | {"class": "FlattenExtractor"} |
                                  {"class": "CombinedExtractor"}, "net_arch": [128] or
                                  {"pi": [...], "vf": [...]}, "activation_fn": "Tanh",
                                  "share_features_extractor": true, "normalize_images": true}
    observation_format           "flat" or "dict" (the environments' option)
    observation_space            {"type": "Box", "shape": [8759], "dtype": "float32",
                                  "low": -1.0, "high": 100.0}, or {"type": "Dict", "spaces":
                                  {"observation": Box, "action_mask": Box}}: the observation
                                  the network reads, [8714] for models trained before the
                                  "goal_races" part (they read that prefix of today's)
    action_space                 {"type": "Discrete", "n": 2123}
    gamma                        the discount it was trained with (the critic's scale)
    environment                  {"id": the gym id it was trained on, e.g. "Suburbia-v0",
                                  "observation_size": 8759, "num_actions": 2123}
    training                     provenance, free-form plain JSON: how the weights were made

A stable-baselines3 zip (what `MaskablePPO.save` writes) holds pickles, which run code
when loaded; `convert_pickled_model` turns one into this format without unpickling
anything: the network is read from the zip's plain JSON fields (`data`), the weights with
`torch.load(weights_only=True)`.

    python -m training.export --safe IN.zip OUT.safetensors
    suburbia convert-model IN.zip OUT.safetensors
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import io
import json
import math
import pickle
import pickletools
import re
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from suburbia_env.errors import ModelFormatError, shown
from suburbia_env.versions import MODEL_FORMAT_VERSION

from .model_files import check_regular_file, check_safetensors_header, read_model_file

FORMAT = "suburbia-policy"
MAX_DESCRIPTION_BYTES = 1_000_000
MAX_WEIGHTS_BYTES = 1_000_000_000
MAX_ZIP_MEMBER_BYTES = 1_000_000_000
MAX_UNITS = 100_000  # per layer
MAX_SPACE_SIZE = 10_000_000  # actions of a Discrete space
MAX_BOX_ELEMENTS = 100_000
"""Elements of one Box space: gymnasium allocates its bounds in full (a Dict of 16 Boxes of
10 million float64 elements, 2 kB of description, took 3 GB). The environments' largest
has 8,759."""
MAX_GOAL_PRIOR_WEIGHT = 100
"""Largest goal prior weight a network may carry (agents/networks.py)."""
NETWORK_SLACK_BYTES = 1 << 20  # a network may exceed its weights file by this before it is built

POLICY_CLASSES = ("MaskableActorCriticPolicy", "MaskableMultiInputActorCriticPolicy")
EXTRACTORS = ("SuburbiaFeatures", "FlattenExtractor", "CombinedExtractor")
ACTIVATIONS = ("Tanh", "ReLU", "ELU", "LeakyReLU", "SiLU", "GELU")
BOX_DTYPES = ("float32", "float64", "int8", "int16", "int32", "int64", "uint8")

# Where the classes above live, as a stable-baselines3 zip names them (convert only).
_ZIP_CLASSES = {
    "sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy":
        "MaskableActorCriticPolicy",
    "sb3_contrib.common.maskable.policies.MaskableMultiInputActorCriticPolicy":
        "MaskableMultiInputActorCriticPolicy",
    "agents.features.SuburbiaFeatures": "SuburbiaFeatures",
    "training.features.SuburbiaFeatures": "SuburbiaFeatures",  # zips saved before the move
    "stable_baselines3.common.torch_layers.FlattenExtractor": "FlattenExtractor",
    "stable_baselines3.common.torch_layers.CombinedExtractor": "CombinedExtractor",
    **{f"torch.nn.modules.activation.{name}": name for name in ACTIVATIONS},
}
_ZIP_POLICY_KWARGS = {"net_arch", "features_extractor_class", "features_extractor_kwargs",
                      "activation_fn", "share_features_extractor", "normalize_images",
                      "ortho_init", "optimizer_class", "optimizer_kwargs"}
_ZIP_PROVENANCE_FIELDS = ("num_timesteps", "_total_timesteps", "seed", "learning_rate",
                          "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda",
                          "ent_coef", "vf_coef", "max_grad_norm", "n_envs", "tensorboard_log",
                          "normalize_advantage", "target_kl")


class PickledModelWarning(UserWarning):
    """A pickled stable-baselines3 model was loaded: code stored in the file ran."""


# Paths ------------------------------------------------------------------------------------

def model_paths(path: str | Path) -> tuple[Path, Path]:
    """(weights, description) of the model named by either of its two files."""
    path = Path(path)
    return path.with_suffix(".safetensors"), path.with_suffix(".json")


def is_pickled_model(path: str | Path) -> bool:
    """Whether `path` is a zip archive (a stable-baselines3 model), whatever its name."""
    path = Path(path)
    return path.suffix.lower() == ".zip" or (path.is_file() and zipfile.is_zipfile(path))


def pickle_refusal(path: str | Path) -> str:
    """Why a pickled model is not loaded by default, and what to do instead."""
    target = Path(path).with_suffix(".safetensors")
    return (f"{path} is a pickled stable-baselines3 model: loading it runs code stored in the "
            f"file, so it is loaded only when asked for explicitly. Convert it once (this "
            f"reads its weights and plain description, and runs nothing from it): "
            f"`suburbia convert-model {path} {target}` (or `python -m training.export --safe "
            f"{path} {target}`), then use {target}. If you trust the file, allow it: "
            f"allow_pickle=True, the agent spec prefix 'ppo:pickle:PATH', or --allow-pickle")


# Checking the description -------------------------------------------------------------------

class _Fields:
    """Reads one JSON object of the description, naming the field in every error."""

    def __init__(self, source: Path, where: str, value: Any):
        self.source, self.where = source, where
        if not isinstance(value, dict):
            self.fail(f"must be an object, not {shown(value)}")
        self.value = value

    def fail(self, problem: str, field: str | None = None):
        name = f"{self.where}.{field}" if field and self.where else (field or self.where)
        raise ModelFormatError(f"{self.source}: {name or 'the description'} {problem}")

    def get(self, field: str, default: Any = ...) -> Any:
        if field not in self.value:
            if default is ...:
                self.fail("is missing", field)
            return default
        return self.value[field]

    def integer(self, field: str, low: int, high: int, default: Any = ...) -> int:
        value = self.get(field, default)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            self.fail(f"must be a whole number {low}..{high}, not {shown(value)}", field)
        return value

    def number(self, field: str, default: Any = ...) -> float:
        value = self.get(field, default)
        if (not isinstance(value, (int, float)) or isinstance(value, bool)
                or not math.isfinite(value)):
            self.fail(f"must be a finite number, not {shown(value)}", field)
        return float(value)

    def boolean(self, field: str, default: Any = ...) -> bool:
        value = self.get(field, default)
        if not isinstance(value, bool):
            self.fail(f"must be true or false, not {shown(value)}", field)
        return value

    def choice(self, field: str, choices: tuple, default: Any = ...) -> str:
        value = self.get(field, default)
        if not isinstance(value, str) or value not in choices:
            self.fail(f"must be one of {', '.join(choices)}, not {shown(value)}", field)
        return value

    def object(self, field: str, default: Any = ...) -> "_Fields":
        inner = self.where + "." + field if self.where else field
        return _Fields(self.source, inner, self.get(field, default))


def _layers(fields: _Fields, field: str, value: Any) -> list[int]:
    if (not isinstance(value, list) or len(value) > 16
            or not all(isinstance(units, int) and not isinstance(units, bool)
                       and 1 <= units <= MAX_UNITS for units in value)):
        fields.fail(f"must be a list of at most 16 layer widths 1..{MAX_UNITS}, "
                    f"not {shown(value)}", field)
    return list(value)


def _net_arch(fields: _Fields) -> list[int] | dict[str, list[int]]:
    value = fields.get("net_arch")
    if isinstance(value, dict):
        if set(value) != {"pi", "vf"}:
            fields.fail(f"must be a list of widths or {{'pi': [...], 'vf': [...]}}, "
                        f"not {shown(value)}", "net_arch")
        return {key: _layers(fields, f"net_arch.{key}", value[key]) for key in ("pi", "vf")}
    return _layers(fields, "net_arch", value)


def _space(fields: _Fields, nested: bool = False) -> gym.spaces.Space:
    kind = fields.choice("type", ("Box", "Discrete") if nested else ("Box", "Discrete", "Dict"))
    if kind == "Discrete":
        return gym.spaces.Discrete(fields.integer("n", 1, MAX_SPACE_SIZE),
                                   start=fields.integer("start", 0, 0, 0))
    if kind == "Dict":
        spaces = fields.get("spaces")
        if not isinstance(spaces, dict) or not 1 <= len(spaces) <= 16:
            fields.fail(f"must map at most 16 names to spaces, not {shown(spaces)}", "spaces")
        inner = fields.object("spaces")
        return gym.spaces.Dict({str(name): _space(inner.object(name), nested=True)
                                for name in spaces})
    shape = fields.get("shape")
    if (not isinstance(shape, list) or not 1 <= len(shape) <= 4
            or not all(isinstance(size, int) and not isinstance(size, bool) and size >= 1
                       for size in shape) or math.prod(shape) > MAX_BOX_ELEMENTS):
        fields.fail(f"must be a list of 1 to 4 positive sizes with at most {MAX_BOX_ELEMENTS} "
                    f"elements in all, not {shown(shape)}", "shape")
    dtype = np.dtype(fields.choice("dtype", BOX_DTYPES))
    low, high = fields.number("low"), fields.number("high")
    limits = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype)
    for name, bound in (("low", low), ("high", high)):
        if not float(limits.min) <= bound <= float(limits.max):
            fields.fail(f"{bound} is outside what {dtype} holds ({limits.min}..{limits.max})",
                        name)
        if dtype.kind in "iu" and bound != math.floor(bound):
            fields.fail(f"{bound} must be a whole number for {dtype}", name)
    if low > high:
        fields.fail(f"{low} is above high {high}", "low")
    try:
        return gym.spaces.Box(low, high, tuple(shape), dtype)
    except ValueError as error:  # gymnasium's own checks, should a version add some
        raise ModelFormatError(f"{fields.source}: {fields.where} is not a usable Box "
                               f"({error})") from None


def _describe_space(space: gym.spaces.Space) -> dict:
    if isinstance(space, gym.spaces.Discrete):
        if int(space.start) != 0:
            raise ModelFormatError(f"cannot describe {space}: only Discrete spaces from 0")
        return {"type": "Discrete", "n": int(space.n)}
    if isinstance(space, gym.spaces.Dict):
        return {"type": "Dict",
                "spaces": {name: _describe_space(inner) for name, inner in space.spaces.items()}}
    if isinstance(space, gym.spaces.Box):
        low, high = np.unique(space.low), np.unique(space.high)
        if low.size != 1 or high.size != 1 or not np.isfinite([low[0], high[0]]).all():
            raise ModelFormatError(f"cannot describe {space}: only Box spaces with one finite "
                                   f"low and one finite high bound")
        return {"type": "Box", "shape": [int(size) for size in space.shape],
                "dtype": str(space.dtype), "low": float(low[0]), "high": float(high[0])}
    raise ModelFormatError(f"cannot describe the space {space}")


def _policy_options(fields: _Fields) -> tuple[str, dict]:
    """The policy class name and its constructor's options, from `policy`."""
    from torch import nn
    policy_class = fields.choice("class", POLICY_CLASSES)
    extractor_fields = fields.object("features_extractor")
    extractor = extractor_fields.choice("class", EXTRACTORS)
    options: dict[str, Any] = {
        "net_arch": _net_arch(fields),
        "activation_fn": getattr(nn, fields.choice("activation_fn", ACTIVATIONS, "Tanh")),
        "share_features_extractor": fields.boolean("share_features_extractor", True),
        "normalize_images": fields.boolean("normalize_images", True),
        "ortho_init": False,  # the weights are overwritten anyway
    }
    if extractor == "SuburbiaFeatures":
        from agents.features import SuburbiaFeatures
        options["features_extractor_class"] = SuburbiaFeatures
        options["features_extractor_kwargs"] = {
            "features_dim": extractor_fields.integer("features_dim", 1, MAX_UNITS)}
    elif extractor == "FlattenExtractor":
        from stable_baselines3.common.torch_layers import FlattenExtractor
        options["features_extractor_class"] = FlattenExtractor
    else:
        from stable_baselines3.common.torch_layers import CombinedExtractor
        options["features_extractor_class"] = CombinedExtractor
    return policy_class, options


def _build_sparse_policy(policy_fields: _Fields, observation_space, action_space,
                         weights_bytes: int):
    """The fast learner's network (agents/networks.py), for flat observations and the
    environments' actions; sized from the description and refused, before anything is
    allocated, if it needs more bytes than its weights file holds (as `_build_policy`)."""
    import torch
    from suburbia_env.engine.action_space import NUM_ACTIONS
    from suburbia_env.engine.observation import OBSERVATION_SIZES
    from .networks import ACTIVATIONS as SPARSE_ACTIVATIONS
    from .networks import SparseActorCritic, SparsePolicy, compact_size
    features_dim = policy_fields.integer("features_dim", 1, MAX_UNITS)
    net_arch = _layers(policy_fields, "net_arch", policy_fields.get("net_arch"))
    activation = policy_fields.choice("activation_fn", tuple(SPARSE_ACTIVATIONS))
    goal_prior_weight = policy_fields.number("goal_prior_weight", 0.0)
    if not 0 <= goal_prior_weight <= MAX_GOAL_PRIOR_WEIGHT:
        policy_fields.fail(f"must be in 0..{MAX_GOAL_PRIOR_WEIGHT}, not {goal_prior_weight}",
                           "goal_prior_weight")
    goal_prior_denial = policy_fields.number("goal_prior_denial", 0.0)
    if not 0 <= goal_prior_denial <= 1:
        policy_fields.fail(f"must be in 0..1, not {goal_prior_denial}", "goal_prior_denial")
    from .one_ply import checked_goal_chances
    try:
        goal_chances = checked_goal_chances(policy_fields.get("goal_chances", None))
    except ValueError as error:
        policy_fields.fail(str(error), "goal_chances")
    if (not isinstance(observation_space, gym.spaces.Box)
            or tuple(observation_space.shape) not in [(size,) for size in OBSERVATION_SIZES]):
        policy_fields.fail(f"reads flat observations of shape "
                           f"{' or '.join(f'[{size}]' for size in OBSERVATION_SIZES)}", "class")
    observation_size = int(observation_space.shape[0])
    if not isinstance(action_space, gym.spaces.Discrete) or action_space.n != NUM_ACTIONS:
        policy_fields.fail(f"scores the environments' {NUM_ACTIONS} actions", "class")
    widths = [features_dim, *net_arch]
    parameters = (compact_size(observation_size) * features_dim + features_dim
                  + 2 * sum(inner * outer + outer for inner, outer in zip(widths, widths[1:]))
                  + (widths[-1] + 1) * (NUM_ACTIONS + 1))
    if parameters * 4 > weights_bytes + NETWORK_SLACK_BYTES:
        policy_fields.fail(f"describes a network of {parameters:,} parameters "
                           f"({parameters * 4:,} bytes), more than the {weights_bytes:,} "
                           f"bytes of the weights that must fill it")
    with torch.random.fork_rng(devices=[]):
        policy = SparsePolicy(SparseActorCritic(features_dim, tuple(net_arch), activation,
                                                observation_size, goal_prior_weight,
                                                goal_prior_denial, goal_chances),
                              observation_space, action_space)
    policy.set_training_mode(False)
    return accept_current_observations(policy)


def _build_policy(source: Path, policy_fields: _Fields, observation_space, action_space,
                  weights_bytes: int):
    """The network the description names, with fresh weights (torch's global random
    state is left as it was).

    It is first laid out on torch's "meta" device, which allocates nothing: a network
    whose tensors need more bytes than `weights_bytes` (the size of the file that must
    fill them) and `NETWORK_SLACK_BYTES` is refused before any memory is taken, so a forged
    description of a few bytes cannot make the loader allocate gigabytes. (A smaller
    mismatch is named tensor by tensor once the weights are read.)"""
    import torch
    from sb3_contrib.common.maskable import policies
    from .networks import NETWORK_CLASS
    if policy_fields.get("class", None) == NETWORK_CLASS:
        return _build_sparse_policy(policy_fields, observation_space, action_space,
                                    weights_bytes)
    policy_class, options = _policy_options(policy_fields)
    is_dict = isinstance(observation_space, gym.spaces.Dict)
    if is_dict != (policy_class == "MaskableMultiInputActorCriticPolicy"):
        policy_fields.fail(f"{policy_class} does not take {'dict' if is_dict else 'flat'} "
                           f"observations", "class")
    if not isinstance(action_space, gym.spaces.Discrete):
        raise ModelFormatError(f"{source}: action_space must be Discrete")
    extractor = options["features_extractor_class"].__name__
    if is_dict == (extractor != "CombinedExtractor"):
        policy_fields.fail(f"{extractor} does not fit {'dict' if is_dict else 'flat'} "
                           f"observations", "features_extractor.class")

    def build(policy_type):
        with torch.random.fork_rng(devices=[]):
            try:
                return policy_type(observation_space, action_space, lambda _: 0.0, **options)
            except (ValueError, RuntimeError, TypeError, AssertionError) as error:
                raise ModelFormatError(f"{source}: the network described cannot be built "
                                       f"({type(error).__name__}: {error})") from None
    policy_type = getattr(policies, policy_class)
    # SB3 moves parts to `policy.device`, which must say meta too while nothing is allocated
    skeleton_type = type("Skeleton", (policy_type,),
                         {"device": property(lambda self: torch.device("meta"))})
    with torch.device("meta"):
        tensors = list(_unique_parameters(build(skeleton_type)).values())
    needed = sum(tensor.numel() * tensor.element_size() for tensor in tensors)
    if needed > weights_bytes + NETWORK_SLACK_BYTES:
        raise ModelFormatError(f"{source}: the network described has "
                               f"{sum(tensor.numel() for tensor in tensors):,} parameters "
                               f"({needed:,} bytes), more than the {weights_bytes:,} bytes of "
                               f"the weights that must fill it")
    policy = build(policy_type)
    policy.set_training_mode(False)
    return accept_current_observations(policy)


def _extractors(policy) -> list:
    if getattr(policy, "share_features_extractor", True):
        return [policy.features_extractor]
    return [policy.pi_features_extractor, policy.vf_features_extractor]


def network_observation_size(policy) -> int:
    """How many observation entries the policy's network reads (agents/networks.py): the
    size its description records, whatever space the policy accepts."""
    from .features import SuburbiaFeatures
    from .networks import SparsePolicy
    if isinstance(policy, SparsePolicy):
        return policy.network.observation_size
    extractors = _extractors(policy)
    if all(isinstance(extractor, SuburbiaFeatures) for extractor in extractors):
        return extractors[0].observation_size
    space = policy.observation_space
    box = space["observation"] if isinstance(space, gym.spaces.Dict) else space
    return int(np.prod(box.shape))


def accept_current_observations(policy):
    """`policy`, taking today's observations when its network reads a prefix of them:
    a model trained before "goal_races" (observation.OBSERVATION_SIZES) reads the first
    8714 entries and decides exactly as it did. The environments' space goes on the
    policy (stable-baselines3 checks observations against it); the network keeps its
    size (`network_observation_size`). SB3's flatten and combined extractors read their
    whole input, so such a policy keeps the space it was built for."""
    from suburbia_env.engine.observation import OBSERVATION_SIZE
    from suburbia_env.envs.env_options import observation_spaces
    from .features import SuburbiaFeatures
    from .networks import SparsePolicy
    space = policy.observation_space
    is_dict = isinstance(space, gym.spaces.Dict)
    box = space["observation"] if is_dict else space
    reads_prefix = isinstance(policy, SparsePolicy) or all(
        isinstance(extractor, SuburbiaFeatures) for extractor in _extractors(policy))
    if reads_prefix and tuple(box.shape) != (OBSERVATION_SIZE,):
        policy.observation_space = observation_spaces("dict" if is_dict else "flat")
    return policy


def _network_space(policy) -> gym.spaces.Space:
    """The observation space the policy's network was built for (what a description
    records): the policy's own, its box cut to `network_observation_size`."""
    space = policy.observation_space
    is_dict = isinstance(space, gym.spaces.Dict)
    box = space["observation"] if is_dict else space
    size = network_observation_size(policy)
    if tuple(box.shape) == (size,):
        return space
    resized = gym.spaces.Box(float(np.min(box.low)), float(np.max(box.high)), (size,),
                             box.dtype)
    return gym.spaces.Dict({**space.spaces, "observation": resized}) if is_dict else resized


def _unique_parameters(policy) -> dict[str, Any]:
    """The policy's tensors by name, each shared tensor once (under its first name: the
    shared extractor is `features_extractor.*`, not `pi_/vf_features_extractor.*`)."""
    unique, seen = {}, set()
    for name, tensor in policy.state_dict(keep_vars=True).items():
        if id(tensor) not in seen:
            seen.add(id(tensor))
            unique[name] = tensor
    return unique


# The loaded model ------------------------------------------------------------------------------

class SafePolicyModel:
    """A policy loaded from the safe format, with what the agents use of a MaskablePPO
    model: `policy`, `observation_space`, `action_space`, `gamma`, `predict`."""

    def __init__(self, policy, description: dict, path: Path):
        self.policy = policy
        self.description = description
        self.path = path
        self.observation_space = policy.observation_space
        self.action_space = policy.action_space
        self.gamma = float(description["gamma"])

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = False,
                action_masks=None):
        return self.policy.predict(observation, state, episode_start, deterministic,
                                   action_masks=action_masks)

    def __repr__(self) -> str:
        return f"SafePolicyModel(path={str(self.path)!r})"


def read_description(path: str | Path) -> dict:
    """The JSON description of a model, parsed and checked to be an object of this format
    and version (its fields are checked by `load_safe_model`)."""
    description_path = model_paths(path)[1]
    data = read_model_file(description_path, MAX_DESCRIPTION_BYTES, "description")
    try:
        description = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ModelFormatError(f"{description_path}: not UTF-8 text (byte {error.start})") \
            from None
    except json.JSONDecodeError as error:
        raise ModelFormatError(f"{description_path}: not JSON ({error})") from None
    except (RecursionError, ValueError) as error:  # deep nesting, numbers too long to read
        raise ModelFormatError(f"{description_path}: not a readable JSON description "
                               f"({type(error).__name__})") from None
    fields = _Fields(description_path, "", description)
    if fields.get("format", None) != FORMAT:
        fields.fail(f"is not a model description: 'format' must be {FORMAT!r}, "
                    f"not {shown(fields.get('format', None))}")
    version = fields.get("format_version", None)
    if version != MODEL_FORMAT_VERSION:
        fields.fail(f"has format_version {shown(version)}; this version of the package reads "
                    f"version {MODEL_FORMAT_VERSION}")
    return description


def load_safe_model(path: str | Path) -> SafePolicyModel:
    """The model named by `path` (NAME.safetensors or NAME.json), loaded without
    unpickling anything; ModelFormatError for anything malformed (module docstring)."""
    import torch
    from safetensors import SafetensorError
    from safetensors.torch import load as load_tensors
    weights_path, description_path = model_paths(path)
    if is_pickled_model(path):
        raise ModelFormatError(pickle_refusal(path))
    if Path(path).suffix not in (".safetensors", ".json"):
        raise ModelFormatError(f"{path}: a model is NAME.safetensors with NAME.json beside it "
                               f"(or a pickled .zip, see convert-model)")
    description = read_description(path)
    fields = _Fields(description_path, "", description)
    observation_space = _space(fields.object("observation_space"))
    action_space = _space(fields.object("action_space"))
    observation_format = fields.choice("observation_format", ("flat", "dict"))
    if (observation_format == "dict") != isinstance(observation_space, gym.spaces.Dict):
        fields.fail(f"is {observation_format!r}, which observation_space is not",
                    "observation_format")
    fields.number("gamma")
    weights_fields = fields.object("weights")
    weights_fields.choice("format", ("safetensors",))
    expected_digest = weights_fields.get("sha256")
    if not isinstance(expected_digest, str) or not re.fullmatch(r"[0-9a-f]{64}", expected_digest):
        weights_fields.fail(f"must be 64 lowercase hex digits, not {shown(expected_digest)}",
                            "sha256")
    expected_bytes = weights_fields.integer("bytes", 0, MAX_WEIGHTS_BYTES, None) \
        if weights_fields.get("bytes", None) is not None else None
    data = read_model_file(weights_path, MAX_WEIGHTS_BYTES, "weights file", expected_bytes)
    if hashlib.sha256(data).hexdigest() != expected_digest:
        raise ModelFormatError(f"{weights_path}: the weights do not match {description_path.name} "
                               f"(SHA-256 differs: a changed, truncated or other model's file)")
    check_safetensors_header(data, weights_path)
    policy = _build_policy(description_path, fields.object("policy"), observation_space,
                           action_space, len(data))
    try:
        tensors = load_tensors(data)
    except (SafetensorError, ValueError, OverflowError, RuntimeError) as error:
        raise ModelFormatError(f"{weights_path}: not a readable safetensors file "
                               f"({error})") from None
    expected = _unique_parameters(policy)
    missing = [name for name in expected if name not in tensors]
    unexpected = [name for name in tensors if name not in expected]
    if missing or unexpected:
        raise ModelFormatError(
            f"{weights_path}: the tensors do not fit the network described in "
            f"{description_path.name}: " + "; ".join(
                part for part in (f"missing {', '.join(missing[:8])}" if missing else "",
                                  f"unexpected {', '.join(unexpected[:8])}" if unexpected
                                  else "") if part))
    for name, parameter in expected.items():
        tensor = tensors[name]
        if tensor.dtype != parameter.dtype:
            raise ModelFormatError(f"{weights_path}: tensor {name} is {tensor.dtype}, the "
                                   f"network needs {parameter.dtype}")
        if tuple(tensor.shape) != tuple(parameter.shape):
            raise ModelFormatError(f"{weights_path}: tensor {name} has shape "
                                   f"{list(tensor.shape)}, the network described needs "
                                   f"{list(parameter.shape)}")
        if not bool(torch.isfinite(tensor).all()):
            raise ModelFormatError(f"{weights_path}: tensor {name} holds NaN or infinite "
                                   f"values")
    with torch.no_grad():
        for name, parameter in expected.items():
            parameter.copy_(tensors[name])
    return SafePolicyModel(policy, description, weights_path)


# Saving -----------------------------------------------------------------------------------------

def library_versions() -> dict[str, str]:
    import sb3_contrib
    import stable_baselines3
    import torch
    import safetensors
    return {"stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__, "torch": torch.__version__,
            "gymnasium": gym.__version__, "numpy": np.__version__,
            "safetensors": safetensors.__version__}


def current_env_id() -> str | None:
    """The newest Suburbia gym id registered (the rules this package plays now)."""
    import suburbia_env  # noqa: F401  (registers the environment)
    ids = [name for name, spec in gym.registry.items()
           if spec.entry_point == "suburbia_env.envs.gym_env:SuburbiaEnv"]
    return max(ids, key=lambda name: int(name.rpartition("-v")[2] or 0)) if ids else None


def describe_policy(policy) -> dict:
    """The `policy` part of a description, from a live MaskableActorCriticPolicy or the
    fast learner's SparsePolicy (agents/networks.py)."""
    from .networks import SparsePolicy
    if isinstance(policy, SparsePolicy):
        return policy.network.description()
    policy_class = type(policy).__name__
    extractor = type(policy.features_extractor).__name__
    activation = getattr(policy.activation_fn, "__name__", str(policy.activation_fn))
    if policy_class not in POLICY_CLASSES or extractor not in EXTRACTORS \
            or activation not in ACTIVATIONS:
        raise ModelFormatError(f"the safe format describes {', '.join(POLICY_CLASSES)} with "
                               f"extractor {' / '.join(EXTRACTORS)} and activation "
                               f"{' / '.join(ACTIVATIONS)}, not {policy_class} / {extractor} / "
                               f"{activation}")
    features: dict[str, Any] = {"class": extractor}
    if extractor == "SuburbiaFeatures":
        features["features_dim"] = int(policy.features_extractor.features_dim)
    net_arch = policy.net_arch
    net_arch = ({key: [int(units) for units in net_arch[key]] for key in ("pi", "vf")}
                if isinstance(net_arch, dict) else [int(units) for units in net_arch])
    return {"class": policy_class, "features_extractor": features, "net_arch": net_arch,
            "activation_fn": activation,
            "share_features_extractor": bool(policy.share_features_extractor),
            "normalize_images": bool(policy.normalize_images)}


def save_safe_model(policy, path: str | Path, gamma: float, env_id: str | None = "current",
                    training: dict | None = None) -> Path:
    """Write `policy` (a MaskableActorCriticPolicy) as NAME.safetensors + NAME.json;
    returns the weights path. `env_id`: the gym id the policy was trained on ("current":
    the one registered now; None: unknown). `training`: provenance (plain JSON)."""
    from safetensors.torch import save as save_tensors
    weights_path, description_path = model_paths(path)
    observation_space = _network_space(policy)
    observation_format = "dict" if isinstance(observation_space, gym.spaces.Dict) else "flat"
    tensors = {name: tensor.detach().cpu().contiguous()
               for name, tensor in _unique_parameters(policy).items()}
    data = save_tensors(tensors, metadata={"format": FORMAT})
    box = observation_space["observation"] if observation_format == "dict" \
        else observation_space
    description = {
        "format": FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "weights": {"format": "safetensors", "sha256": hashlib.sha256(data).hexdigest(),
                    "bytes": len(data)},
        "policy": describe_policy(policy),
        "observation_format": observation_format,
        "observation_space": _describe_space(observation_space),
        "action_space": _describe_space(policy.action_space),
        "gamma": float(gamma),
        "environment": {"id": current_env_id() if env_id == "current" else env_id,
                        "observation_size": int(np.prod(box.shape)),
                        "num_actions": int(policy.action_space.n)},
        "training": training or {},
    }
    try:
        text = json.dumps(description, indent=1, allow_nan=False) + "\n"
    except (TypeError, ValueError) as error:
        raise ModelFormatError(f"the provenance of {description_path} must be plain JSON "
                               f"({error})") from None
    weights_path.parent.mkdir(parents=True, exist_ok=True)
    weights_path.write_bytes(data)
    description_path.write_text(text)
    return weights_path


def save_model_safely(model, path: str | Path, env_id: str | None = "current",
                      training: dict | None = None) -> Path:
    """`save_safe_model` for a MaskablePPO model, its provenance completed with the
    libraries' versions and the time."""
    provenance = {"algorithm": type(model).__name__,
                  "num_timesteps": int(getattr(model, "num_timesteps", 0)),
                  "saved": datetime.datetime.now(datetime.timezone.utc).isoformat(
                      timespec="seconds"),
                  "library_versions": library_versions(), **(training or {})}
    return save_safe_model(model.policy, path, model.gamma, env_id, provenance)


# Converting a stable-baselines3 zip without unpickling -----------------------------------------

def _pickled_global(encoded: str) -> str | None:
    """`module.name` of the class a pickle refers to, read from its opcodes (nothing is
    executed); None if it is not a lone global reference."""
    try:
        raw = base64.b64decode(encoded, validate=True)
        strings, found = [], None
        for opcode, argument, _ in pickletools.genops(raw):
            if opcode.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8"):
                strings.append(argument)
            elif opcode.name == "STACK_GLOBAL" and len(strings) >= 2 and found is None:
                found = f"{strings[-2]}.{strings[-1]}"
            elif opcode.name == "GLOBAL" and found is None:
                found = str(argument).replace(" ", ".")
        return found
    except (binascii.Error, ValueError, pickle.UnpicklingError, TypeError):
        return None


def _class_name(text: Any) -> str | None:
    """The class named by "<class 'module.Name'>", if it is one the safe format knows."""
    match = re.fullmatch(r"<class '([\w.]+)'>", text) if isinstance(text, str) else None
    return _ZIP_CLASSES.get(match.group(1)) if match else None


def _zip_member(archive: zipfile.ZipFile, name: str, source: Path) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ModelFormatError(f"{source}: no {name!r} in the archive: not a "
                               f"stable-baselines3 model") from None
    if info.file_size > MAX_ZIP_MEMBER_BYTES:
        raise ModelFormatError(f"{source}: {name!r} is {info.file_size} bytes, more than "
                               f"{MAX_ZIP_MEMBER_BYTES}")
    return archive.read(info)


def _zip_description(source: Path, data: dict) -> tuple[dict, str, dict]:
    """(policy description, observation format, provenance) from the plain fields of a
    stable-baselines3 zip's `data` entry."""
    from suburbia_env.engine.observation import OBSERVATION_SIZE, OBSERVATION_SIZES
    fields = _Fields(source, "data", data)
    policy_class = _ZIP_CLASSES.get(_pickled_global(
        fields.object("policy_class").get(":serialized:", "")) or "")
    if policy_class not in POLICY_CLASSES:
        fields.fail("names a policy class the safe format does not describe (MaskablePPO's "
                    "actor-critic policies only)", "policy_class")
    kwargs = fields.object("policy_kwargs", {})
    unknown = sorted(set(kwargs.value) - _ZIP_POLICY_KWARGS - {":type:", ":serialized:"})
    if unknown:
        kwargs.fail(f"has options the safe format does not describe: {', '.join(unknown)}")
    default_extractor = ("CombinedExtractor" if policy_class.startswith("MaskableMulti")
                         else "FlattenExtractor")
    extractor = (_class_name(kwargs.get("features_extractor_class"))
                 if "features_extractor_class" in kwargs.value else default_extractor)
    activation = (_class_name(kwargs.get("activation_fn"))
                  if "activation_fn" in kwargs.value else "Tanh")
    if extractor not in EXTRACTORS:
        kwargs.fail(f"must be one of {', '.join(EXTRACTORS)}, not "
                    f"{shown(kwargs.get('features_extractor_class'))}",
                    "features_extractor_class")
    if activation not in ACTIVATIONS:
        kwargs.fail(f"must be one of {', '.join(ACTIVATIONS)}, not "
                    f"{shown(kwargs.get('activation_fn'))}", "activation_fn")
    features: dict[str, Any] = {"class": extractor}
    extractor_kwargs = kwargs.object("features_extractor_kwargs", {})
    if extractor == "SuburbiaFeatures":
        features["features_dim"] = extractor_kwargs.integer("features_dim", 1, MAX_UNITS, 256)
    elif extractor_kwargs.value:
        extractor_kwargs.fail(f"are not read for {extractor}")
    net_arch = (_net_arch(kwargs) if "net_arch" in kwargs.value
                else {"pi": [64, 64], "vf": [64, 64]})
    policy = {"class": policy_class, "features_extractor": features, "net_arch": net_arch,
              "activation_fn": activation,
              "share_features_extractor": kwargs.boolean("share_features_extractor", True),
              "normalize_images": kwargs.boolean("normalize_images", True)}
    observation = fields.object("observation_space")
    space_type = observation.get(":type:", "")
    observation_size = OBSERVATION_SIZE
    if isinstance(space_type, str) and "gymnasium.spaces.dict.Dict" in space_type:
        observation_format = "dict"
    elif (isinstance(space_type, str) and "gymnasium.spaces.box.Box" in space_type
          and observation.get("_shape", None) in [[size] for size in OBSERVATION_SIZES]):
        observation_format = "flat"
        observation_size = observation.get("_shape")[0]
    else:
        observation.fail(f"is not one of the environments' observation spaces "
                         f"({shown(space_type)}, shape {shown(observation.get('_shape', None))})")
    provenance = {key: data[key] for key in _ZIP_PROVENANCE_FIELDS
                  if isinstance(data.get(key), (int, float, str, bool)) or data.get(key) is None}
    return policy, observation_format, observation_size, provenance


def convert_pickled_model(source: str | Path, destination: str | Path,
                          env_id: str | None = None, notes: str | None = None) -> Path:
    """Write the model of a stable-baselines3 zip in the safe format, without unpickling
    anything (module docstring); returns the weights path. The network is rebuilt from the
    zip's plain description and must take its weights exactly."""
    import torch
    from suburbia_env.envs.env_options import observation_spaces
    source = check_regular_file(source, "model file")
    try:
        with zipfile.ZipFile(source) as archive:
            data_bytes = _zip_member(archive, "data", source)
            weights_bytes = _zip_member(archive, "policy.pth", source)
            version = (archive.read("_stable_baselines3_version").decode("utf-8", "replace")
                       [:40] if "_stable_baselines3_version" in archive.namelist() else None)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as error:
        raise ModelFormatError(f"{source}: not a readable zip archive ({error})") from None
    try:
        data = json.loads(data_bytes.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError) as error:
        raise ModelFormatError(f"{source}: its 'data' entry is not readable JSON "
                               f"({type(error).__name__})") from None
    policy_description, observation_format, observation_size, provenance = _zip_description(
        source, data)
    fields = _Fields(source, "data", data)
    gamma = fields.number("gamma")
    action_n = fields.object("action_space").get("n")  # SB3 writes the number as text
    if isinstance(action_n, str) and re.fullmatch(r"[0-9]{1,8}", action_n):
        action_n = int(action_n)
    if (not isinstance(action_n, int) or isinstance(action_n, bool)
            or not 1 <= action_n <= MAX_SPACE_SIZE):
        raise ModelFormatError(f"{source}: data.action_space.n must be a whole number "
                               f"1..{MAX_SPACE_SIZE}, not {shown(action_n)}")
    action_space = gym.spaces.Discrete(action_n)
    try:
        state = torch.load(io.BytesIO(weights_bytes), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError,
            AttributeError, KeyError) as error:
        raise ModelFormatError(f"{source}: policy.pth is not a plain tensor file "
                               f"({type(error).__name__}: {str(error)[:200]})") from None
    policy = _build_policy(source, _Fields(source, "policy", policy_description),
                           observation_spaces(observation_format, observation_size),
                           action_space,
                           len(weights_bytes))
    if not isinstance(state, dict) or not all(isinstance(value, torch.Tensor)
                                              for value in state.values()):
        raise ModelFormatError(f"{source}: policy.pth does not hold a dict of tensors")
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as error:
        raise ModelFormatError(f"{source}: the weights do not fit the network its data "
                               f"describes: {str(error)[:500]}") from None
    if not all(bool(torch.isfinite(tensor).all()) for tensor in state.values()
               if tensor.is_floating_point()):
        raise ModelFormatError(f"{source}: policy.pth holds NaN or infinite values")
    provenance = {
        "algorithm": "MaskablePPO",
        "converted_from": {"file": source.name,
                           "sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
                           "stable_baselines3_version": version},
        "converted": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "converted_with": "agents.model_format.convert_pickled_model (nothing unpickled)",
        "hyperparameters": provenance,
        **({"notes": notes} if notes else {}),
    }
    return save_safe_model(policy, destination, gamma, env_id, provenance)
