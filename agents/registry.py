"""Agents from short text specs, as the command line and the tournament runner name them.

=============================  =====================================================
spec                           agent
=============================  =====================================================
``random``                     RandomAgent (uniform legal play, seeded)
``dale``                       DaleAgent (Dale's procedure of R9.2, any mode)
``greedy``                     GreedyAgent with its default weights
``greedy:W1,W2,...``           GreedyAgent with these weights, in the order of its
                               constructor's parameters (`greedy_weight_names()`)
``goals`` ``lakes``            StyleAgent, a one-ply player of that style
``reputation`` ``hoarder``     (agents/styles.py, docs/agents.md; ties drawn, seeded)
``STYLE:W1,...,W6``            a style with these weights, in the order of
                               styles.WEIGHT_NAMES
``switching:A,B,round=R``      SwitchingAgent: plays as spec A before round R (rounds
``switching:A,B,C,round=R/T``  counted from 1) and as B from it on (C from round T);
                               A, B, C are specs without commas, e.g.
                               ``switching:greedy,hoarder,round=6``; seeded
``ppo:PATH``                   PPOAgent, a saved MaskablePPO model, deterministic;
                               PATH is NAME.safetensors (with NAME.json beside it,
                               agents/model_format.py)
``ppo-sample:PATH``            PPOAgent sampling from its policy (seeded)
``ppo-goals:PATH[,W]``         GoalPriorAgent: the policy's log-probabilities plus W
                               (default 1) x the expected goal bonus after each
                               action (agents/goal_prior.py); deterministic
``ppo-rollout:PATH``           ValueSearchAgent: the model's 4 likeliest actions, each
                               played out to the end on 4 redraws of the hidden
                               information, the other seats by the model or greedy
                               as their moves suggest ("inferred"); every mode
``ppo-search:PATH``            ValueSearchAgent valuing its 8 likeliest actions with
                               its critic at its own next decision (every mode)
``ppo-rollout:PATH,K,S,W,O,G`` either with K candidates, S redraws, prior weight W,
``ppo-search:PATH,K,S,W,O,G``  G the goal prior's weight (candidates ranked as by
                               ``ppo-goals:PATH,G``; default 0, the policy's) and
                               O playing the other seats inside the search: inferred
                               (default: greedy's share of each seat's redraws
                               follows the moves seen in the game, value_search.py),
                               model, greedy, dale, random, mixed (the model in
                               half the redraws, greedy in the others) or
                               inferred-styles (inferred, the four styles known too)
``ppo:pickle:PATH.zip`` ...    any ppo spec with ``pickle:`` before the path: a pickled
                               stable-baselines3 zip is allowed, which runs code stored
                               in the file (trusted files only; a warning is shown)
``rllib:PATH``                 RLlibAgent, a policy trained by ``suburbia train
                               --backend rllib``; PATH is its checkpoint folder
                               (agents/rllib_agent.py)
``FILE.py:NAME``               your own bot: NAME in the Python file FILE.py (its folder
                               goes on sys.path, so it may import files beside it)
``MODULE:NAME``                your own bot: NAME in an importable module, e.g.
                               ``mypackage.bots:MyBot`` (the current folder is on the path)
=============================  =====================================================

NAME (or an object given instead of a spec) is an `Agent` subclass or instance, an
agent factory (a class or function called with no argument, or with ``seed=`` if it
takes one, returning an agent) or a plain function ``(game) -> action``; an object
with an ``act(game)`` method plays as well. Specs that load code are refused unless the
caller passes ``allow_code=True``: the command line and the tournament runner do (the
person typing the spec could run the code anyway), a server taking specs from its
clients must not.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import keyword
import math
import os
import sys
from pathlib import Path

from suburbia_env.errors import ConfigError, ModelFormatError, shown

from .base import Agent
from .dale_agent import DaleAgent
from .greedy import GreedyAgent
from .random_agent import RandomAgent
from .styles import STYLES, WEIGHT_NAMES, StyleAgent, SwitchingAgent
from .table import error_text
from .value_search import ROLLOUT_OPPONENTS, ValueSearchAgent

# Settings of the search agents when a spec gives none (chosen on 200 games, seeds 6000+).
SEARCH_DEFAULTS = {
    "critic": {"candidates": 8, "samples": 4, "prior_weight": 0.02, "reward": "margin"},
    "rollout": {"candidates": 4, "samples": 4, "prior_weight": 0.0, "reward": "win_loss",
                "margin_weight": 0.5},
}

AGENT_SPECS = ("random", "dale", "greedy", "greedy:WEIGHTS", *STYLES, "STYLE:WEIGHTS",
               "switching:A,B,round=R",
               "ppo:PATH", "ppo-sample:PATH", "ppo-goals:PATH[,W]",
               "ppo-search:PATH[,K,S,W,O,G]", "ppo-rollout:PATH[,K,S,W,O,G]", "rllib:PATH",
               "FILE.py:NAME", "MODULE:NAME")
PPO_KINDS = ("ppo", "ppo-sample", "ppo-goals", "ppo-search", "ppo-rollout")
BUILT_IN_KINDS = ("random", "dale", "greedy", "rllib", "switching") + tuple(STYLES) \
    + PPO_KINDS
PICKLE_PREFIX = "pickle:"
"""Before a ppo spec's path: permission to load a pickled model (which runs its code)."""


MAX_SEARCH_TRIALS = 4096
"""At most K x S trials per decision for the search agents (each trial holds a state, an
observation and a mask, about 46 kB)."""


class AgentSpecError(ConfigError):
    """An agent spec that names no agent, or names it with unusable arguments (a
    SuburbiaError and a ValueError)."""


def _known() -> str:
    return ", ".join(AGENT_SPECS)


def greedy_weight_names() -> list[str]:
    """The weights GreedyAgent takes, in order (its constructor's parameters)."""
    return [name for name in inspect.signature(GreedyAgent.__init__).parameters
            if name != "self"]


def _greedy(spec: str, arguments: str) -> GreedyAgent:
    names = greedy_weight_names()
    parts = [part.strip() for part in arguments.split(",")]
    if not 1 <= len(parts) <= len(names):
        raise AgentSpecError(f"agent spec {shown(spec)}: greedy takes up to {len(names)} weight(s) "
                             f"'greedy:{','.join(names)}', got {len(parts)} value(s)")
    try:
        weights = [float(part) for part in parts]
    except ValueError:
        raise AgentSpecError(f"agent spec {shown(spec)}: the greedy weights "
                             f"({', '.join(names)}) must be numbers") from None
    if not all(math.isfinite(weight) for weight in weights):
        raise AgentSpecError(f"agent spec {shown(spec)}: the greedy weights must be finite")
    agent = GreedyAgent(*weights)
    agent.name = spec
    return agent


def _style(spec: str, style: str, arguments: str, seed: int | None) -> StyleAgent:
    parts = [part.strip() for part in arguments.split(",")]
    try:
        weights = [float(part) for part in parts]
    except ValueError:
        weights = None
    if weights is None or len(weights) != len(WEIGHT_NAMES) \
            or not all(math.isfinite(weight) for weight in weights):
        raise AgentSpecError(f"agent spec {shown(spec)}: a style takes {len(WEIGHT_NAMES)} "
                             f"finite weights '{style}:{','.join(WEIGHT_NAMES)}'")
    agent = StyleAgent(style, weights, seed)
    agent.name = spec
    return agent


def _switching(spec: str, arguments: str, seed: int | None, allow_pickle: bool,
               allow_code: bool) -> SwitchingAgent:
    """SwitchingAgent of 'switching:A,B[,C...],round=R[/T...]' (module docstring)."""
    parts = [part.strip() for part in arguments.split(",")]
    usage = "give the specs and the rounds they start from, e.g. 'switching:greedy,hoarder,round=6'"
    if len(parts) < 3 or not parts[-1].lower().startswith("round="):
        raise AgentSpecError(f"agent spec {shown(spec)}: {usage}")
    specs, rounds_text = parts[:-1], parts[-1].partition("=")[2]
    try:
        rounds = [int(text) for text in rounds_text.split("/")]
    except ValueError:
        raise AgentSpecError(f"agent spec {shown(spec)}: the rounds must be whole numbers, "
                             f"not {shown(rounds_text)}") from None
    if len(rounds) != len(specs) - 1 or any(r < 2 for r in rounds) or rounds != sorted(set(rounds)):
        raise AgentSpecError(f"agent spec {shown(spec)}: {len(specs)} specs need "
                             f"{len(specs) - 1} rising round(s) from 2 up, 'round=R/T...'; "
                             f"got {shown(rounds_text)}")
    if any(not text or text.lower().startswith("switching") for text in specs):
        raise AgentSpecError(f"agent spec {shown(spec)}: each part is a spec of its own "
                             f"(not empty, not another switching one)")
    agents = [make_agent(text, seed, allow_pickle, allow_code) for text in specs]
    agent = SwitchingAgent(agents, rounds, name=spec)
    agent.reset(seed)
    return agent


def _model_path(spec: str, path_text: str) -> Path:
    from .model_files import check_regular_file
    path = Path(path_text).expanduser()
    try:
        return check_regular_file(path, "model file")
    except ModelFormatError as error:
        raise type(error)(f"agent spec {shown(spec)}: {error}") from None


def _ppo(spec: str, path_text: str, deterministic: bool, seed: int | None,
         allow_pickle: bool) -> Agent:
    if not path_text:
        raise AgentSpecError(f"agent spec {shown(spec)}: give the model file, e.g. "
                             f"'ppo:models/baseline.safetensors'")
    path = _model_path(spec, path_text)
    from .ppo_agent import PPOAgent
    agent = PPOAgent(path, deterministic=deterministic, seed=seed, allow_pickle=allow_pickle)
    agent.name = spec
    return agent


def _model_and_settings(spec: str, kind: str, arguments: str,
                        example: str) -> tuple[str, list[str]]:
    """(model path text, the settings after it) of a model spec's arguments 'PATH,...';
    AgentSpecError when the path is missing."""
    path_text, *values = [part.strip() for part in arguments.split(",")]
    if not path_text:
        raise AgentSpecError(f"agent spec {shown(spec)}: give the model file, e.g. "
                             f"'{kind}:{example}'")
    return path_text, values


def goal_prior_settings(spec: str, arguments: str) -> tuple[str, float]:
    """(model path text, goal weight) of a ``ppo-goals`` spec's arguments 'PATH[,W]',
    checked (AgentSpecError naming the problem); nothing is loaded."""
    from .goal_prior import GOAL_WEIGHT
    path_text, values = _model_and_settings(spec, "ppo-goals", arguments,
                                            "models/multiplayer-styles.safetensors")
    if len(values) > 1:
        raise AgentSpecError(f"agent spec {shown(spec)}: ppo-goals takes PATH and at most one "
                             f"setting, the goal weight W: 'ppo-goals:PATH,W'")
    weight = _goal_weight(spec, values[0], "the goal weight W") if values else GOAL_WEIGHT
    return path_text, weight


def _goal_weight(spec: str, text: str, label: str) -> float:
    """A goal prior's weight from a spec's text: a finite number of at least 0."""
    try:
        weight = float(text)
    except ValueError:
        weight = math.nan
    if not math.isfinite(weight) or weight < 0:
        raise AgentSpecError(f"agent spec {shown(spec)}: {label} must be a finite number of "
                             f"at least 0, not {shown(text)}")
    return weight


def _ppo_goals(spec: str, arguments: str, allow_pickle: bool) -> Agent:
    from .goal_prior import GoalPriorAgent
    path_text, weight = goal_prior_settings(spec, arguments)
    agent = GoalPriorAgent(_model_path(spec, path_text), weight, allow_pickle=allow_pickle)
    agent.name = spec
    return agent


def search_settings(spec: str, kind: str, arguments: str,
                    evaluation: str) -> tuple[str, dict]:
    """(model path text, ValueSearchAgent settings) of a search spec's arguments
    'PATH,K,S,W,O,G', each setting checked (AgentSpecError naming it); nothing is loaded."""
    path_text, values = _model_and_settings(spec, kind, arguments,
                                            "models/baseline.safetensors")
    if len(values) > 5:
        raise AgentSpecError(f"agent spec {shown(spec)}: the search agents take PATH and up to "
                             f"five settings '{kind}:PATH,K,S,W,O,G', got {len(values)}")
    opponent = values[3].lower() if len(values) >= 4 else None
    if opponent is not None and opponent not in ROLLOUT_OPPONENTS:
        raise AgentSpecError(f"agent spec {shown(spec)}: O (who plays the other seats inside "
                             f"the search) must be one of {', '.join(ROLLOUT_OPPONENTS)}, not "
                             f"{shown(values[3])}")
    try:
        counts = [int(text) for text in values[:2]]
        prior = [float(text) for text in values[2:3]]
    except ValueError:
        raise AgentSpecError(f"agent spec {shown(spec)}: K and S must be whole numbers and W "
                             f"a number") from None
    if any(count < 1 for count in counts) or not all(math.isfinite(w) for w in prior):
        raise AgentSpecError(f"agent spec {shown(spec)}: K and S must be at least 1, W finite")
    if math.prod(min(count, MAX_SEARCH_TRIALS + 1) for count in counts) > MAX_SEARCH_TRIALS:
        raise AgentSpecError(f"agent spec {shown(spec)}: K x S must be at most {MAX_SEARCH_TRIALS} "
                             f"trials per decision")
    settings = dict(SEARCH_DEFAULTS[evaluation])
    settings.update(zip(("candidates", "samples"), counts))
    if prior:
        settings["prior_weight"] = prior[0]
    if opponent is not None:
        settings["opponent"] = opponent
    if len(values) == 5:
        settings["goal_weight"] = _goal_weight(spec, values[4], "G (the goal prior's weight)")
    return path_text, settings


def _ppo_search(spec: str, kind: str, arguments: str, seed: int | None,
                evaluation: str, allow_pickle: bool) -> Agent:
    path_text, settings = search_settings(spec, kind, arguments, evaluation)
    path = _model_path(spec, path_text)
    agent = ValueSearchAgent(path, evaluation=evaluation, seed=seed, allow_pickle=allow_pickle,
                             **settings)
    agent.name = spec
    return agent


def _rllib(spec: str, path_text: str) -> Agent:
    if not path_text:
        raise AgentSpecError(f"agent spec {shown(spec)}: give the checkpoint folder, e.g. "
                             f"'rllib:runs/rllib/checkpoint'")
    from .rllib_agent import RLlibAgent
    agent = RLlibAgent(Path(path_text).expanduser())
    agent.name = spec
    return agent


# Bots of your own -------------------------------------------------------------------------

class CallableAgent(Agent):
    """A function ``(game) -> action``, or an object's ``act``, seated as an Agent: its
    ``reset`` (when it has one) is called before each game, with the seed if it takes one,
    and its ``observe`` (when it has one) is shown the other seats' moves."""

    def __init__(self, function, name: str, reset=None, observe=None):
        self.function = function
        self.name = name
        self._reset = reset
        if callable(observe):
            self.observe = observe

    def act(self, game):
        return self.function(game)

    def reset(self, seed: int | None = None) -> None:
        if self._reset is not None:
            self._reset(*([seed] if _required_arguments(self._reset) else []))


def agent_name(entry) -> str:
    """How results label an entrant: a spec is its own name, an object its `name`
    (unless the base class's) or the name of its class or function."""
    if isinstance(entry, str):
        return entry
    name = getattr(entry, "name", None)
    if isinstance(name, str) and name and name != Agent.name:
        return name
    return getattr(entry, "__name__", None) or type(entry).__name__


def _required_arguments(function) -> int:
    """Positional arguments `function` needs (1 when its signature cannot be read, as for
    many builtins; `*args` counts as taking the game)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = sum(p.kind in kinds and p.default is p.empty for p in parameters)
    return required or int(any(p.kind == p.VAR_POSITIONAL for p in parameters))


def _takes_seed(function) -> bool:
    try:
        return "seed" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _seated(value, name: str, where: str) -> Agent | None:
    """`value` as an Agent if it plays (an Agent, an object with `act`, a function of the
    game), None if it may be a factory (a class, a function of no argument)."""
    if isinstance(value, Agent):
        return value
    if isinstance(value, type):
        return None
    act = getattr(value, "act", None)
    if callable(act):
        return CallableAgent(act, name, getattr(value, "reset", None),
                             getattr(value, "observe", None))
    if not callable(value):
        return None
    required = _required_arguments(value)
    if required > 1:
        raise AgentSpecError(f"{where}: {name} takes {required} arguments; a bot function "
                             f"takes the game alone, (game) -> action")
    return CallableAgent(value, name) if required == 1 else None


def _agent_from_object(value, seed: int | None, name: str, where: str) -> Agent:
    """An agent from an Agent, agent factory or function (the module docstring)."""
    agent = _seated(value, name, where)
    if agent is None and callable(value):
        try:
            built = value(**({"seed": seed} if _takes_seed(value) else {}))
        except Exception as error:
            raise AgentSpecError(f"{where}: building the agent, {name}() raised "
                                 f"{error_text(error)}") from None
        agent = _seated(built, name, where)
        if agent is None:
            raise AgentSpecError(f"{where}: {name}() returned {shown(built)}, not an Agent or "
                                 f"a function (game) -> action")
    if agent is None:
        raise AgentSpecError(f"{where}: {shown(value)} is a {type(value).__name__}, not an "
                             f"Agent, an agent factory or a function (game) -> action")
    if agent.name == Agent.name:
        agent.name = name
    return agent


def _code_error(spec: str, where: str, error: BaseException) -> AgentSpecError:
    if isinstance(error, SyntaxError):
        return AgentSpecError(f"agent spec {shown(spec)}: syntax error in {error.filename} "
                              f"line {error.lineno}: {error.msg}")
    return AgentSpecError(f"agent spec {shown(spec)}: loading {where} raised "
                          f"{error_text(error)}")


_FILE_MODULES: dict[Path, object] = {}


def _load_file(spec: str, path_text: str):
    """The module of a bot file, executed once per process. It is registered under its
    file name when no other module has that name (so objects of its classes pickle and
    its folder's other files import), else under a private name."""
    path = Path(path_text).expanduser()
    try:
        resolved = path.resolve()
        found = resolved.is_file()
    except (OSError, ValueError) as error:
        raise AgentSpecError(f"agent spec {shown(spec)}: no file can be at {shown(str(path))} "
                             f"({getattr(error, 'strerror', None) or error})") from None
    if not found:
        raise AgentSpecError(f"agent spec {shown(spec)}: no file {shown(str(path))}")
    if resolved in _FILE_MODULES:
        return _FILE_MODULES[resolved]
    directory = str(resolved.parent)
    if directory not in sys.path:
        sys.path.append(directory)
    name = resolved.stem
    usable = name.isidentifier() and not keyword.iskeyword(name)
    try:
        other = importlib.util.find_spec(name) if usable else None
    except (ImportError, ValueError):
        other = None
    if not usable or (other is not None and other.origin and Path(other.origin) != resolved):
        name = f"_suburbia_bot_{hashlib.sha1(str(resolved).encode()).hexdigest()[:12]}"
    module = sys.modules.get(name)
    if module is None or Path(getattr(module, "__file__", "") or "").resolve() != resolved:
        module_spec = importlib.util.spec_from_file_location(name, resolved)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except (Exception, SystemExit) as error:
            del sys.modules[name]
            raise _code_error(spec, str(path), error) from None
    _FILE_MODULES[resolved] = module
    return module


def _import_module(spec: str, name: str):
    """The module `name`, imported with the current folder on the path (as `python -m`)."""
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and (name == error.name or name.startswith(error.name + ".")):
            raise AgentSpecError(f"agent spec {shown(spec)}: no module named {error.name!r} "
                                 f"(a file is named as FILE.py:NAME)") from None
        raise _code_error(spec, f"module {name!r}", error) from None
    except (Exception, SystemExit) as error:
        raise _code_error(spec, f"module {name!r}", error) from None


def _candidates(module) -> str:
    """The agents and functions a module defines, to suggest after a wrong name."""
    names = [name for name, value in vars(module).items() if not name.startswith("_")
             and getattr(value, "__module__", None) == module.__name__
             and (inspect.isfunction(value)
                  or (isinstance(value, type) and (issubclass(value, Agent)
                                                   or callable(getattr(value, "act", None)))))]
    return f" (it defines {', '.join(names[:10])})" if names else ""


def _agent_from_code(spec: str, target: str, member: str, seed: int | None) -> Agent:
    """NAME of FILE.py or MODULE, as an agent (the module docstring)."""
    is_file = target.lower().endswith(".py")
    where = shown(target) if is_file else f"module {target!r}"
    if not member:
        raise AgentSpecError(f"agent spec {shown(spec)}: name the bot after the colon, e.g. "
                             f"'{target}:MyBot'")
    module = _load_file(spec, target) if is_file else _import_module(spec, target)
    value = module
    for part in member.split("."):
        try:
            value = getattr(value, part)
        except Exception:
            raise AgentSpecError(f"agent spec {shown(spec)}: {where} has no {member!r}"
                                 f"{_candidates(module)}") from None
    return _agent_from_object(value, seed, spec, f"agent spec {shown(spec)}")


def _is_code_spec(target: str) -> bool:
    return target.lower().endswith(".py") or (
        bool(target) and all(part.isidentifier() for part in target.split(".")))


def allow_pickle_in_spec(spec: str) -> str:
    """`spec` with permission to load a pickled model (the ``pickle:`` prefix before its
    path) if it is a ppo spec, else unchanged: how a command line's --allow-pickle reaches
    agents built from specs in other processes."""
    if not isinstance(spec, str):
        return spec
    kind, separator, arguments = spec.strip().partition(":")
    if kind.lower() not in PPO_KINDS or not separator or arguments.startswith(PICKLE_PREFIX):
        return spec
    return f"{kind}:{PICKLE_PREFIX}{arguments}"


def model_file_of(spec) -> str | None:
    """The model file a ppo spec names (without ``pickle:`` and search settings), else
    None: how results say which model they measured."""
    if not isinstance(spec, str):
        return None
    kind, separator, arguments = spec.strip().partition(":")
    if kind.lower() not in PPO_KINDS or not separator:
        return None
    if arguments.startswith(PICKLE_PREFIX):
        arguments = arguments[len(PICKLE_PREFIX):]
    path = arguments.split(",")[0].strip() if kind.lower() in ("ppo-search", "ppo-rollout") \
        else arguments.strip()
    return path or None


def make_agent(spec, seed: int | None = None, allow_pickle: bool = False,
               allow_code: bool = False) -> Agent:
    """The agent a spec names (table above); `seed` seeds agents that draw at random.
    `allow_pickle` (or the spec's ``pickle:`` prefix) lets a ppo spec load a pickled
    stable-baselines3 zip, which runs code stored in the file. `allow_code` lets a spec
    name a bot in a Python file or module (``FILE.py:NAME``, ``MODULE:NAME``). Instead of
    a spec, an Agent, agent factory or function may be given (module docstring).

    Raises AgentSpecError for an unknown or malformed spec or a bot that cannot be
    loaded or built (naming the file, the line of a syntax error, the missing name),
    ModelFileNotFoundError (a FileNotFoundError) for a model file that does not exist
    and ModelFormatError for one that cannot be loaded safely.
    """
    if not isinstance(spec, str):
        if isinstance(spec, Agent) or callable(spec) or callable(getattr(spec, "act", None)):
            return _agent_from_object(spec, seed, agent_name(spec), f"agent {agent_name(spec)!r}")
        raise AgentSpecError(f"an agent spec is text such as 'greedy' (or an Agent, an agent "
                             f"factory or a function (game) -> action), not {shown(spec)}")
    text = spec.strip()
    kind, separator, arguments = text.partition(":")
    kind = kind.lower()
    if kind == "random" and not separator:
        return RandomAgent(seed)
    if kind == "dale" and not separator:
        return DaleAgent()
    if kind == "greedy":
        return _greedy(text, arguments) if separator else GreedyAgent()
    if kind == "switching" and separator:
        return _switching(text, arguments, seed, allow_pickle, allow_code)
    if kind in STYLES:
        return _style(text, kind, arguments, seed) if separator else StyleAgent(kind, seed=seed)
    if kind in PPO_KINDS and separator and arguments.startswith(PICKLE_PREFIX):
        allow_pickle, arguments = True, arguments[len(PICKLE_PREFIX):]
    if kind in ("ppo-search", "ppo-rollout") and separator:
        evaluation = "critic" if kind == "ppo-search" else "rollout"
        return _ppo_search(text, kind, arguments, seed, evaluation, allow_pickle)
    if kind == "ppo-goals" and separator:
        return _ppo_goals(text, arguments, allow_pickle)
    if kind in ("ppo", "ppo-sample") and separator:
        return _ppo(text, arguments.strip(), kind == "ppo", seed, allow_pickle)
    if kind == "rllib" and separator:
        return _rllib(text, arguments.strip())
    target, _, member = text.rpartition(":")
    if separator and kind not in BUILT_IN_KINDS and _is_code_spec(target.strip()):
        if not allow_code:
            raise AgentSpecError(f"agent spec {shown(spec)} names Python code, which is not "
                                 f"loaded here")
        return _agent_from_code(text, target.strip(), member.strip(), seed)
    if text.lower().endswith(".py"):
        raise AgentSpecError(f"agent spec {shown(spec)}: name the bot in the file after a "
                             f"colon, e.g. '{text}:MyBot'")
    raise AgentSpecError(f"unknown agent spec {shown(spec)}: use one of {_known()}")
