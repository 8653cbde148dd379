"""Every hyperparameter of a training run, from defaults, a JSON config file and the
command line (in that order of precedence, last wins)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path


@dataclass
class TrainingConfig:
    # What to play.
    mode: str = "dale"  # "dale": against Dale (R9.2); "self_play": 2-4 players vs a checkpoint pool
    players: int = 2  # self-play only: seats at the table
    edition: str = "2nd"
    reward: str = "margin"  # "win_loss" or "margin" (suburbia_env.env_core)
    population_shaping: float = 0.0
    # Run.
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
    features: str = "compact"  # "compact": training.features.SuburbiaFeatures; "flat": SB3 flatten
    features_dim: int = 256  # width of the compact extractor's dense layer
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
    progress_bar: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="suburbia train",
        description="Train a MaskablePPO agent for Suburbia (against Dale or by self-play).")
    parser.add_argument("--config", type=Path, help="JSON file with any of the options below")
    for item in fields(TrainingConfig):
        name = "--" + item.name.replace("_", "-")
        default = TrainingConfig().__getattribute__(item.name)
        if isinstance(default, bool):
            parser.add_argument(name, dest=item.name, action=argparse.BooleanOptionalAction,
                                default=None)
        elif isinstance(default, list):
            parser.add_argument(name, dest=item.name, type=int, nargs="+", default=None)
        else:
            parser.add_argument(name, dest=item.name, type=type(default), default=None,
                                help=f"default {default}")
    return parser


def parse_config(argv: list[str] | None = None) -> TrainingConfig:
    """Defaults, then the --config file, then the other command-line options."""
    arguments = vars(_parser().parse_args(argv))
    config = TrainingConfig()
    config_file = arguments.pop("config")
    if config_file is not None:
        values = json.loads(Path(config_file).read_text())
        known = {item.name for item in fields(TrainingConfig)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise SystemExit(f"{config_file}: unknown option(s) {', '.join(unknown)}")
        for name, value in values.items():
            setattr(config, name, value)
    for name, value in arguments.items():
        if value is not None:
            setattr(config, name, value)
    if config.features not in ("compact", "flat"):
        raise SystemExit(f"--features must be 'compact' or 'flat', not {config.features!r}")
    if config.init_model and not Path(config.init_model).is_file():
        raise SystemExit(f"--init-model: no model file at {config.init_model}")
    if config.total_timesteps < 0:
        raise SystemExit(f"--total-timesteps must be 0 (imitate or load, then evaluate) or "
                         f"more, not {config.total_timesteps}")
    if config.mode not in ("dale", "self_play"):
        raise SystemExit(f"--mode must be 'dale' or 'self_play', not {config.mode!r}")
    return config
