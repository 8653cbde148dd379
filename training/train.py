"""Train MaskablePPO (sb3-contrib) against Dale or by self-play; `suburbia train --help`.

Writes to `output_dir`: config.json, TensorBoard logs (tensorboard/), checkpoints
(checkpoints/), evaluations against Dale or, in self-play, the greedy player
(evaluations.jsonl), the best model by
evaluation (best_model.zip), the final model (model.zip) and summary.json. The final,
best and pretrained models are also written in the safe format (model.safetensors with
model.json, ...: agents/model_format.py), which the agents load without running code
from the file; the zips (pickles) are for continuing training.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import (BaseCallback, CallbackList,  # noqa: E402
                                                CheckpointCallback)

from suburbia_env.envs.sb3 import SB3VectorEnv  # noqa: E402

from agents.model_format import save_model_safely  # noqa: E402

from .config import TrainingConfig, parse_config  # noqa: E402
from .evaluation import evaluate_against_dale, evaluate_against_greedy  # noqa: E402


class PeriodicEvaluation(BaseCallback):
    """Every `every` steps: win rate with its 95% interval, logged and kept; against Dale
    (R9.2) when training against Dale, against the greedy player in 2-player games when
    training by self-play (the yardstick of issue 18)."""

    def __init__(self, every: int, games: int, seed: int, output_dir: Path, edition: str,
                 provenance: dict | None = None, opponent: str = "dale"):
        super().__init__()
        self.opponent = opponent
        self.provenance = provenance or {}
        self.every = every
        self.games = games
        self.seed = seed
        self.output_dir = output_dir
        self.edition = edition
        self.next_evaluation = every
        self.best = None
        self.history: list[dict] = []

    def _on_step(self) -> bool:
        """Once per multiple of `every` passed (a vector step adds num_envs steps); none at
        the run's last step, which train() evaluates after the last update."""
        if self.num_timesteps >= self.next_evaluation:
            self.next_evaluation = (self.num_timesteps // self.every + 1) * self.every
            if self.num_timesteps < self.model._total_timesteps:
                self.evaluate()
        return True

    def evaluate(self) -> dict:
        started = time.time()
        if self.opponent == "greedy":
            result = evaluate_against_greedy(self.model, self.games, self.seed, players=2,
                                             edition=self.edition)
        else:
            result = evaluate_against_dale(self.model, self.games, self.seed,
                                           edition=self.edition)
        result["timesteps"] = int(self.num_timesteps)
        result["seconds"] = round(time.time() - started, 1)
        for key in ("win_rate", "win_rate_low", "win_rate_high", "mean_population",
                    "mean_margin"):
            self.logger.record(f"eval/{key}", result[key])
        self.history.append(result)
        with open(self.output_dir / "evaluations.jsonl", "a") as handle:
            handle.write(json.dumps(result) + "\n")
        score = (result["win_rate"], result["mean_population"])
        if self.best is None or score > self.best:
            self.best = score
            self.model.save(self.output_dir / "best_model.zip")
            save_model_safely(self.model, self.output_dir / "best_model.safetensors",
                              training={**self.provenance, "evaluation": result})
        other = result.get("mean_dale_population", result.get("mean_best_other_population"))
        print(f"[eval {self.num_timesteps:>9} steps] win rate vs {self.opponent} "
              f"{result['win_rate']:.3f} "
              f"(95% CI {result['win_rate_low']:.3f}-{result['win_rate_high']:.3f}), "
              f"mean population {result['mean_population']:.1f} "
              f"({self.opponent} {other:.1f})", flush=True)
        return result


def make_environment(config: TrainingConfig):
    if config.mode == "dale":
        return SB3VectorEnv(num_envs=config.num_envs, players=1, mode="dale",
                            edition=config.edition, reward=config.reward,
                            population_shaping=config.population_shaping,
                            num_threads=config.env_threads)
    from .self_play import SelfPlayVecEnv
    return SelfPlayVecEnv(num_envs=config.num_envs, players=tuple(config.players),
                          edition=config.edition, reward=config.reward,
                          population_shaping=config.population_shaping,
                          pool_size=config.pool_size, dale_share=config.dale_share,
                          greedy_share=config.greedy_share, seed=config.seed,
                          style_share=config.style_share,
                          style_weights=tuple(config.style_weights),
                          num_threads=config.env_threads)


def policy_options(config: TrainingConfig) -> dict:
    """Network of the policy: the extractor (shared by actor and critic), then heads."""
    options = {"net_arch": list(config.net_arch)}
    if config.features == "compact":
        from agents.features import SuburbiaFeatures
        options["features_extractor_class"] = SuburbiaFeatures
        options["features_extractor_kwargs"] = {"features_dim": config.features_dim,
                                                "observation_size": config.observation_size}
    return options


def new_model(config: TrainingConfig, environment, tensorboard_log: str | None = None):
    """A fresh MaskablePPO of `config` on `environment` (seeded with config.seed), as every
    run of `suburbia train` and the recipes' fit and PPO stages build it."""
    environment.seed(config.seed)
    return MaskablePPO(
        "MlpPolicy", environment, learning_rate=config.learning_rate, n_steps=config.n_steps,
        batch_size=config.batch_size, n_epochs=config.n_epochs, gamma=config.gamma,
        gae_lambda=config.gae_lambda, clip_range=config.clip_range, ent_coef=config.ent_coef,
        vf_coef=config.vf_coef, max_grad_norm=config.max_grad_norm,
        policy_kwargs=policy_options(config), seed=config.seed, device="cpu",
        tensorboard_log=tensorboard_log, verbose=0)


def train(config: TrainingConfig, resume_from: str | Path | None = None,
          callback=None) -> dict:
    """Run one training; returns the summary written to summary.json. With
    `config.learner == "fast"`, training/fast_ppo.py's `train_fast` (which also takes
    `resume_from`, a checkpoint, and `callback`, called after every update and
    evaluation); the sb3 learner takes neither."""
    if config.learner == "fast":
        from .fast_ppo import train_fast
        return train_fast(config, resume_from=resume_from, callback=callback)
    if resume_from or callback is not None:
        raise SystemExit("resume_from and callback are the fast learner's (--learner fast)")
    torch.set_num_threads(config.torch_threads)
    output_dir = Path(config.output_dir)
    (output_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (output_dir / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    environment = make_environment(config)
    model = new_model(config, environment, tensorboard_log=str(output_dir / "tensorboard"))
    if config.init_model:
        load_initial_weights(model, config.init_model)
    provenance = {"trained_by": "suburbia train", "config": config.to_dict()}
    if config.pretrain_games > 0 or config.demonstrations:
        from .imitation import (collect_demonstrations, load_demonstrations, pretrain,
                                save_demonstrations)
        if config.demonstrations:
            demonstrations = load_demonstrations(config.demonstrations)
        else:
            demonstrations = collect_demonstrations(config.pretrain_games, edition=config.edition,
                                                    demonstrator=config.demonstrator)
            save_demonstrations(output_dir / "demonstrations.npz", demonstrations)
        pretrain(model, demonstrations, config.pretrain_epochs,
                 learning_rate=config.pretrain_learning_rate, seed=config.seed)
        model.save(output_dir / "pretrained_model.zip")
        save_model_safely(model, output_dir / "pretrained_model.safetensors",
                          training={**provenance, "stage": "imitation"})
    evaluation = PeriodicEvaluation(config.eval_every, config.eval_games, config.seed + 1,
                                    output_dir, config.edition, provenance,
                                    "greedy" if config.mode == "self_play" else "dale")
    callbacks = [evaluation, CheckpointCallback(
        save_freq=max(1, config.checkpoint_every // config.num_envs),
        save_path=str(output_dir / "checkpoints"), name_prefix="model")]
    if config.mode == "self_play":
        callbacks.append(environment.pool_callback(config.pool_update_every))
    announce_rounding(config)
    started = time.time()
    model.learn(total_timesteps=config.total_timesteps, callback=CallbackList(callbacks),
                progress_bar=config.progress_bar, tb_log_name="ppo")
    learn_seconds = time.time() - started
    model.save(output_dir / "model.zip")
    save_model_safely(model, output_dir / "model.safetensors", training=provenance)
    final = evaluation.evaluate()
    summary = {"timesteps": int(model.num_timesteps), "learn_seconds": round(learn_seconds, 1),
               "env_steps_per_second": round(model.num_timesteps / max(learn_seconds, 1e-9), 1),
               "final_evaluation": final, "best": evaluation.best,
               "evaluations": evaluation.history}
    (output_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"trained {model.num_timesteps} steps in {learn_seconds:.0f} s "
          f"({summary['env_steps_per_second']:.0f} env steps/s); model saved to "
          f"{output_dir / 'model.safetensors'} (and model.zip for further training)")
    return summary


def planned_timesteps(config: TrainingConfig) -> int:
    """The steps PPO will take: stable-baselines3 collects whole rollouts of n_steps steps
    in each of num_envs games, so --total-timesteps is rounded up to a multiple of them."""
    rollout = config.n_steps * config.num_envs
    return -(-config.total_timesteps // rollout) * rollout


def announce_rounding(config: TrainingConfig) -> None:
    planned = planned_timesteps(config)
    if planned != config.total_timesteps:
        print(f"--total-timesteps {config.total_timesteps}: PPO learns from whole rollouts of "
              f"n-steps x num-envs = {config.n_steps} x {config.num_envs} = "
              f"{config.n_steps * config.num_envs} steps, so this run trains {planned} steps",
              flush=True)


def load_initial_weights(model, path: str | Path) -> None:
    """--init-model: the weights (and, from a zip, the optimizer state) of a saved model.
    A zip's tensors are read with torch.load(weights_only=True), nothing unpickled; the
    safe format gives the weights alone (the optimizer starts fresh), also from the fast
    learner's network into a compact policy of the same sizes."""
    from agents.model_format import load_safe_model
    from suburbia_env.errors import SuburbiaError
    if Path(path).suffix not in (".safetensors", ".json"):
        model.set_parameters(str(path), exact_match=True, device="cpu")
        return
    from agents.model_format import network_observation_size
    from agents.networks import SparseActorCritic, SparsePolicy
    size = network_observation_size(model.policy)  # this run's (--observation-size)
    try:
        policy = load_safe_model(path).policy
        if isinstance(policy, SparsePolicy):
            activation = getattr(model.policy.activation_fn, "__name__", "")
            if policy.network.activation_name != activation:
                raise SystemExit(f"--init-model {path}: its network uses "
                                 f"{policy.network.activation_name}, this run's {activation}")
            weights = policy.network.widened(size).sb3_compact_state_dict()
        elif network_observation_size(policy) != size:  # widened: the same outputs
            weights = SparseActorCritic.from_sb3_compact(policy).widened(size) \
                .sb3_compact_state_dict()
        else:
            weights = policy.state_dict()
        model.policy.load_state_dict(weights, strict=True)
    except SuburbiaError as error:
        raise SystemExit(f"--init-model: {error}") from None
    except (RuntimeError, ValueError) as error:  # a network of other sizes than this run's
        raise SystemExit(f"--init-model {path}: its network differs from this run's "
                         f"({str(error).splitlines()[0]})") from None


def main(argv: list[str] | None = None) -> None:
    train(parse_config(argv))


if __name__ == "__main__":
    main()
