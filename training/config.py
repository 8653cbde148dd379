"""Every hyperparameter of a training run, from defaults, a JSON config file and the
command line (in that order of precedence, last wins)."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from agents.model_format import MAX_GOAL_PRIOR_WEIGHT
from suburbia_env.arguments import ArgumentParser
from suburbia_env.engine.observation import OBSERVATION_SIZE_V1, OBSERVATION_SIZES
from suburbia_env.errors import shown


@dataclass
class TrainingConfig:
    # What to play.
    mode: str = "dale"  # "dale": against Dale (R9.2); "self_play": 2-4 players vs a checkpoint pool
    # self-play only: seats at the table, drawn per game from this list (2 to 4, R3.1)
    players: list[int] = field(default_factory=lambda: [2])
    edition: str = "2nd"
    reward: str = "margin"  # "win_loss" or "margin" (suburbia_env.engine.env_core)
    population_shaping: float = 0.0
    # Run.
    learner: str = "sb3"  # "sb3": MaskablePPO; "fast": training/fast_ppo.py (plain torch)
    resume: str = ""  # fast learner: a checkpoint to go on from (checkpoints/*.pt)
    total_timesteps: int = 2_000_000  # 0: no PPO, only imitation / --init-model, then evaluation
    seed: int = 0
    output_dir: str = "runs/dale"
    num_envs: int = 64
    torch_threads: int = 1
    env_threads: int = 1
    # MaskablePPO.
    learning_rate: float = 3e-4
    n_steps: int = 128
    batch_size: int = 2048
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    features: str = "compact"  # "compact": agents.features.SuburbiaFeatures; "flat": SB3 flatten
    features_dim: int = 256  # width of the compact extractor's dense layer
    observation_size: int = OBSERVATION_SIZE_V1  # entries the network reads (MEANINGS)
    net_arch: list[int] = field(default_factory=lambda: [128])
    # Imitation before PPO (training/imitation.py): pretrain_games games of the
    # demonstrator (an agent spec, e.g. "ppo-rollout:models/baseline.safetensors") against
    # Dale, or saved demonstrations; 0 games and no file: none.
    pretrain_games: int = 0
    demonstrator: str = "greedy"
    demonstrations: str = ""  # .npz files saved by training.imitation, comma-separated (skips collecting)
    pretrain_epochs: int = 5
    pretrain_learning_rate: float = 1e-3
    # Continue training: a saved MaskablePPO model (.zip) whose weights and optimizer state
    # start this run, or a safe-format model (.safetensors, weights only); the other
    # options of this config still apply. Empty: fresh weights.
    init_model: str = ""
    # Evaluation and checkpoints.
    eval_every: int = 200_000
    eval_games: int = 200
    checkpoint_every: int = 500_000
    # Self-play pool.
    pool_size: int = 5
    pool_update_every: int = 200_000
    # Self-play opponents: these shares of the other seats go to Dale's procedure, the
    # greedy player and the heuristic styles, the rest to the pool (training/self_play.py).
    dale_share: float = 0.2
    greedy_share: float = 0.0
    style_share: float = 0.0
    # How often each style takes a style seat, in the order goals, lakes, reputation, hoarder.
    style_weights: list[int] = field(default_factory=lambda: [1, 1, 1, 1])
    # Fast learner, self-play: the goal prior's term (agents/goal_prior.py) in the policy.
    goal_prior_weight: float = 0.0
    goal_prior_denial: float = 0.0
    # Fast learner, self-play: refit goal chances for the term (a JSON file; empty: its own).
    goal_chances: str = ""
    # Fast learner, self-play: reward changes of the goal standing (potential-based shaping).
    goal_shaping: float = 0.0
    progress_bar: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


# What each option means; the allowed values are added from CHOICES and LIMITS (or
# ALLOWED where neither says it), then the default.
MEANINGS = {
    "mode": "what to play: dale (one player against Dale, R9.2) or self_play (2-4 players "
            "against a pool of earlier snapshots, Dale and the greedy player)",
    "players": "self-play: seat counts, one drawn per game (a count given twice is drawn "
               "twice as often)",
    "edition": "stack layout, R3.2, R3.3",
    "reward": "win_loss (+1 sole winner, 0 shared, -1 loss, R8.3) or margin (own final "
              "population minus the best other's, /100)",
    "population_shaping": "extra reward per population point gained at each step",
    "learner": "sb3 (MaskablePPO of sb3-contrib) or fast (the same PPO in plain torch on a "
               "sparse network, several times faster: training/fast_ppo.py)",
    "resume": "fast learner: a checkpoint (OUTPUT/checkpoints/*.pt) to go on from exactly; "
              "empty: a fresh start",
    "total_timesteps": "environment steps of PPO (0: none, only imitation or --init-model, "
                       "then the evaluation); rounded up to whole rollouts of "
                       "n-steps x num-envs steps, as printed at the start",
    "seed": "seed of the environments, the network and the evaluations",
    "output_dir": "folder of the run's files (config, logs, checkpoints, models)",
    "num_envs": "games stepped together",
    "torch_threads": "threads of torch",
    "env_threads": "threads stepping the games and deciding their greedy and style seats",
    "learning_rate": "MaskablePPO's learning rate",
    "n_steps": "steps per game per rollout",
    "batch_size": "minibatch size",
    "n_epochs": "passes over each rollout",
    "gamma": "discount factor",
    "gae_lambda": "GAE's lambda",
    "clip_range": "PPO's clip range",
    "ent_coef": "entropy bonus coefficient",
    "vf_coef": "value loss coefficient",
    "max_grad_norm": "gradient norm clip",
    "features": "observation features: compact (agents.features.SuburbiaFeatures) or "
                "flat (stable-baselines3's flatten)",
    "features_dim": "width of the compact extractor's dense layer",
    "observation_size": "observation entries the network reads: 8714, the observation "
                        "before its goal_races part (every released recipe), or 8759, "
                        "with the goal races (R8.2)",
    "net_arch": "hidden layer widths of the policy and value heads",
    "pretrain_games": "games of the demonstrator against Dale to imitate before PPO (0: none)",
    "demonstrator": "agent spec to imitate, e.g. greedy, dale or ppo-rollout:PATH",
    "demonstrations": "comma-separated .npz files saved by python -m training.imitation, "
                      "imitated instead of collecting games",
    "pretrain_epochs": "epochs of imitation",
    "pretrain_learning_rate": "learning rate of imitation",
    "init_model": "a saved model to start from: a MaskablePPO .zip (weights and optimizer) "
                  "or a .safetensors model (weights); empty: fresh weights",
    "eval_every": "steps between evaluations (each printed once)",
    "eval_games": "games per evaluation",
    "checkpoint_every": "steps between checkpoints",
    "pool_size": "self-play: snapshots kept in the opponent pool",
    "pool_update_every": "self-play: steps between snapshots",
    "dale_share": "self-play: share of the other seats played by Dale's procedure",
    "greedy_share": "self-play: share played by the greedy player",
    "style_share": "self-play: share played by the heuristic styles of agents/styles.py "
                   "(goals, lakes, reputation, hoarder; one drawn per seat); with "
                   "--dale-share and --greedy-share at most 1",
    "style_weights": "self-play: how often each style takes a style seat, in the order "
                     "goals lakes reputation hoarder (whole numbers)",
    "goal_prior_weight": "fast learner, self-play: add this times each legal action's "
                         "expected goal bonus after its own-turn trial to the network's "
                         "scores while training (agents/goal_prior.py; the model then plays "
                         "as ppo-goals:MODEL,W); 0: none",
    "goal_prior_denial": "fast learner, self-play, with --goal-prior-weight: the goal term "
                         "also subtracts this times the other players' expected public goal "
                         "bonuses after the trial (agents/one_ply.py); 0: the player's own "
                         "bonus alone",
    "goal_chances": "fast learner, self-play, with --goal-prior-weight: a JSON file of the "
                    "goal chances refit from games (benchmarks/goal_chance.py --output, its "
                    "`goal_chances`), which the goal term and the goal shaping then use and "
                    "the model carries; empty: the term's own chances",
    "goal_shaping": "fast learner, self-play: add this times the change of the learner's goal "
                    "standing (its expected goal bonus less the others' expected public "
                    "ones, agents/one_ply.py goal_standing, /100 as the margin) to each "
                    "step's reward, a potential-based shaping: gamma x the standing after "
                    "the step (0 at a game's end) less the standing before; 0: none",
    "progress_bar": "a progress bar while training",
}
CHOICES = {"learner": ("sb3", "fast"), "mode": ("dale", "self_play"),
           "edition": ("2nd", "1st"), "reward": ("win_loss", "margin"),
           "features": ("compact", "flat"), "observation_size": OBSERVATION_SIZES}
ALLOWED = {"players": "1 to 8 counts among 2 3 4",
           "style_weights": "4 whole numbers 0..1000, not all 0",
           "net_arch": "up to 16 widths 1..65536",
           "total_timesteps": "0..10**12", "demonstrator": "any agent spec",
           "demonstrations": "any paths", "init_model": "a path or empty",
           "resume": "a checkpoint path or empty",
           "output_dir": "any folder", "progress_bar": "on, or off with --no-progress-bar"}


def _allowed(name: str) -> str:
    if name in CHOICES:
        return " or ".join(map(str, CHOICES[name]))
    if name in ALLOWED:
        return ALLOWED[name]
    low, high = LIMITS.get(name, (None, None))
    if low is not None and high is not None:
        return f"{low}..{high}"
    if low is not None:
        return f"{low} or more"
    return f"up to {high}" if high is not None else "any number"


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="suburbia train",
        description="Train a MaskablePPO agent for Suburbia (against Dale or by self-play).",
        epilog="--backend rllib: train PPO with RLlib on Ray instead (a local instance or a "
               "cluster); its options: suburbia train --backend rllib --help. --recipe NAME: "
               "a whole recipe of stages (training/recipes/); its options: suburbia train "
               "--recipe NAME --help")
    parser.add_argument("--config", type=Path, help="JSON file with any of the options below "
                        "(the command line wins)")
    for item in fields(TrainingConfig):
        name = "--" + item.name.replace("_", "-")
        default = TrainingConfig().__getattribute__(item.name)
        meaning = MEANINGS[item.name]
        if isinstance(default, bool):
            shown_default = "on" if default else "off"
        elif isinstance(default, list):
            shown_default = " ".join(map(str, default))
        else:
            shown_default = default if default != "" else "none"
        named = item.name in CHOICES and all(str(choice) in meaning
                                             for choice in CHOICES[item.name])
        text = f"{meaning}{'' if named else '; ' + _allowed(item.name)} (default {shown_default})"
        if isinstance(default, bool):
            parser.add_argument(name, dest=item.name, action=argparse.BooleanOptionalAction,
                                default=None, help=text)
        elif isinstance(default, list):
            parser.add_argument(name, dest=item.name, type=int, nargs="+", default=None,
                                help=text)
        else:
            parser.add_argument(name, dest=item.name, type=type(default), default=None,
                                choices=CHOICES.get(item.name), help=text)
    return parser


# Ranges of the numeric options: (low, high), None for no bound. Values outside fail
# with a message here instead of deep inside the training libraries.
LIMITS = {
    "population_shaping": (None, None), "total_timesteps": (None, 10**12),
    "seed": (0, 2**32 - 1), "num_envs": (1, 4096), "torch_threads": (1, 256),
    "env_threads": (1, 256), "learning_rate": (0, 1), "n_steps": (1, 1_000_000),
    "batch_size": (1, 10**7), "n_epochs": (1, 10_000), "gamma": (0, 1), "gae_lambda": (0, 1),
    "clip_range": (0, None), "ent_coef": (None, None), "vf_coef": (0, None),
    "max_grad_norm": (0, None), "features_dim": (1, 65_536), "pretrain_games": (0, 10**7),
    "pretrain_epochs": (0, 100_000), "pretrain_learning_rate": (0, 1),
    "eval_every": (1, None), "eval_games": (1, 10**7), "checkpoint_every": (1, None),
    "pool_size": (1, 10_000), "pool_update_every": (1, None), "dale_share": (0, 1),
    "greedy_share": (0, 1), "style_share": (0, 1), "goal_prior_weight": (0, MAX_GOAL_PRIOR_WEIGHT),
    "goal_prior_denial": (0, 1), "goal_shaping": (0, 100),
}


def _checked(name: str, value, default, source: str):
    """`value` for option `name` if it has the default's type and lies in LIMITS, else
    SystemExit naming the option (a JSON file can hold any type)."""
    option = "--" + name.replace("_", "-")
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise SystemExit(f"{source}{option} must be true or false, not {shown(value)}")
        return value
    if name == "players":
        value = [value] if isinstance(value, int) and not isinstance(value, bool) else value
        if (not isinstance(value, list) or not 1 <= len(value) <= 8
                or not all(type(count) is int and 2 <= count <= 4 for count in value)):
            raise SystemExit(f"{source}{option} must be 1 to 8 player counts 2..4, not "
                             f"{shown(value)}")
        return value
    if name == "style_weights":
        if (not isinstance(value, list) or len(value) != 4
                or not all(type(weight) is int and 0 <= weight <= 1000 for weight in value)
                or not any(value)):
            raise SystemExit(f"{source}{option} must be 4 whole numbers 0..1000 (goals lakes "
                             f"reputation hoarder), not all 0, not {shown(value)}")
        return value
    if isinstance(default, list):
        if (not isinstance(value, list) or len(value) > 16
                or not all(isinstance(units, int) and not isinstance(units, bool)
                           and 1 <= units <= 65_536 for units in value)):
            raise SystemExit(f"{source}{option} must be at most 16 layer widths 1..65536")
        return value
    if isinstance(default, str):
        if not isinstance(value, str):
            raise SystemExit(f"{source}{option} must be text, not {type(value).__name__}")
        return value
    whole = isinstance(default, int)
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or (whole and not isinstance(value, int)) or not math.isfinite(value)):
        kind = "a whole number" if whole else "a finite number"
        raise SystemExit(f"{source}{option} must be {kind}, not {shown(value)}")
    low, high = LIMITS.get(name, (None, None))
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low if low is not None else '...'}..{high if high is not None else '...'}"
        raise SystemExit(f"{source}{option} must be in {bounds}, not {shown(value)}")
    return value


def _config_file_values(config_file: Path) -> dict:
    try:
        data = Path(config_file).read_bytes()
    except OSError as error:
        raise SystemExit(f"--config: cannot read {config_file} ({error.strerror or error})") \
            from None
    try:
        values = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise SystemExit(f"--config: {config_file} is not UTF-8 text") from None
    except (ValueError, RecursionError) as error:
        raise SystemExit(f"--config: {config_file} is not readable JSON "
                         f"({str(error)[:200] or type(error).__name__})") from None
    if not isinstance(values, dict):
        raise SystemExit(f"--config: {config_file} must hold a JSON object of options")
    return values


def parse_config(argv: list[str] | None = None) -> TrainingConfig:
    """Defaults, then the --config file, then the other command-line options; every value
    is checked for its type and range (SystemExit naming the option)."""
    arguments = vars(_parser().parse_args(argv))
    config = TrainingConfig()
    config_file = arguments.pop("config")
    if config_file is not None:
        values = _config_file_values(config_file)
        known = {item.name for item in fields(TrainingConfig)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise SystemExit(f"{config_file}: unknown option(s) {', '.join(unknown)}"[:500])
        for name, value in values.items():
            setattr(config, name, _checked(name, value, getattr(TrainingConfig(), name),
                                           f"{config_file}: "))
    for name, value in arguments.items():
        if value is not None:
            setattr(config, name, _checked(name, value, getattr(TrainingConfig(), name), ""))
    if config.observation_size not in OBSERVATION_SIZES:
        raise SystemExit(f"--observation-size must be "
                         f"{' or '.join(map(str, OBSERVATION_SIZES))}, not "
                         f"{config.observation_size}")
    if config.observation_size != OBSERVATION_SIZES[0] and config.features != "compact":
        raise SystemExit("--observation-size other than the first needs --features compact")
    if config.features not in ("compact", "flat"):
        raise SystemExit(f"--features must be 'compact' or 'flat', not {config.features!r}")
    if config.learner not in ("sb3", "fast"):
        raise SystemExit(f"--learner must be 'sb3' or 'fast', not {config.learner!r}")
    if config.resume and config.learner != "fast":
        raise SystemExit("--resume continues a checkpoint of the fast learner: add "
                         "--learner fast (MaskablePPO continues from a zip with --init-model)")
    if config.resume and not Path(config.resume).is_file():
        raise SystemExit(f"--resume: no checkpoint at {config.resume}")
    if config.init_model and not Path(config.init_model).is_file():
        raise SystemExit(f"--init-model: no model file at {config.init_model}")
    if config.total_timesteps < 0:
        raise SystemExit(f"--total-timesteps must be 0 (imitate or load, then evaluate) or "
                         f"more, not {config.total_timesteps}")
    if config.total_timesteps == 0 and not (config.pretrain_games or config.demonstrations
                                            or config.init_model):
        raise SystemExit("--total-timesteps 0 trains nothing: give 1 or more environment "
                         "steps, or imitation (--pretrain-games, --demonstrations) or "
                         "--init-model to evaluate without PPO")
    if config.mode not in ("dale", "self_play"):
        raise SystemExit(f"--mode must be 'dale' or 'self_play', not {config.mode!r}")
    if config.dale_share + config.greedy_share + config.style_share > 1:
        raise SystemExit(f"--dale-share, --greedy-share and --style-share add up to more "
                         f"than 1 ({config.dale_share} + {config.greedy_share} + "
                         f"{config.style_share})")
    return config
