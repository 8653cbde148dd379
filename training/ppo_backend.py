"""PPO learners for the recipes' ppo stages, behind one small interface so a faster
learner plugs in without touching the recipe runner.

A learner (a class in LEARNERS, named by a stage's "learner" field) is built from a
TrainingConfig (training/config.py: the stage's settings, the recipe's network and the
stage's seed) and offers:

- ``start(init_model)``: fresh weights, or the weights of a safe-format model
  (``.safetensors``; None for fresh weights);
- ``resume(checkpoint)``: everything a checkpoint written by ``save_checkpoint`` holds;
- ``steps``: environment steps learnt so far (restored by ``resume``);
- ``learn_until(steps, on_steps)``: learn until at least `steps` environment steps,
  calling ``on_steps(steps)`` now and then (for the progress line);
- ``save_checkpoint(path)``: weights, optimizer state and step counters in one file,
  written to `path` whole (the runner writes to a temporary name and renames);
- ``export(path, provenance)``: the policy in the safe format (agents/model_format.py),
  which the recipe's evaluations, later stages and the agents (``ppo:PATH``) load.

The runner checkpoints every stage's ``checkpoint_every`` steps, so a killed run loses
at most that much learning. "fast" (the recipes' default) restores everything, games in
progress and generators included, so a resumed stage goes on bit for bit; "sb3" restores
weights, optimizer and counters but not the games in progress nor the generators' states
(new games start), so its resumed stage is not bit-identical to an uninterrupted one.
"""

from __future__ import annotations

from pathlib import Path

from suburbia_env.errors import ConfigError

from .config import TrainingConfig


class SB3Learner:
    """MaskablePPO of stable-baselines3 / sb3-contrib, as `suburbia train` runs it
    (training/train.py); a checkpoint is its .zip (weights, optimizer, step counter)."""

    name = "sb3"

    def __init__(self, config: TrainingConfig):
        import torch
        torch.set_num_threads(config.torch_threads)
        from .train import make_environment
        self.config = config
        self.environment = make_environment(config)
        self.model = None
        self.pool_callback = (self.environment.pool_callback(config.pool_update_every)
                              if config.mode == "self_play" else None)

    def start(self, init_model: str | Path | None) -> None:
        from .train import load_initial_weights, new_model
        self.model = new_model(self.config, self.environment)
        if init_model:
            load_initial_weights(self.model, init_model)

    def resume(self, checkpoint: str | Path) -> None:
        from sb3_contrib import MaskablePPO
        self.environment.seed(self.config.seed)
        self.model = MaskablePPO.load(str(checkpoint), env=self.environment, device="cpu")

    @property
    def steps(self) -> int:
        return int(self.model.num_timesteps)

    def rollout_steps(self) -> int:
        return self.config.n_steps * self.config.num_envs

    def learn_until(self, steps: int, on_steps=None) -> None:
        from stable_baselines3.common.callbacks import BaseCallback, CallbackList

        class Report(BaseCallback):
            def _on_step(self) -> bool:
                if on_steps is not None:
                    on_steps(int(self.num_timesteps))
                return True

        callbacks = [Report()] + ([self.pool_callback] if self.pool_callback else [])
        if steps > self.steps:
            self.model.learn(total_timesteps=steps - self.steps, reset_num_timesteps=False,
                             callback=CallbackList(callbacks), progress_bar=False)

    def save_checkpoint(self, path: str | Path) -> None:
        self.model.save(str(path))

    def export(self, path: str | Path, provenance: dict) -> None:
        from agents.model_format import save_model_safely
        save_model_safely(self.model, path, training=provenance)


class FastLearner:
    """The plain-torch PPO of training/fast_ppo.py (the same algorithm, several times the
    steps per second); a checkpoint holds weights, optimizer, generators, the games in
    progress and counters, so a resumed stage goes on bit for bit as an uninterrupted
    one (same threads)."""

    name = "fast"

    def __init__(self, config: TrainingConfig):
        self.config = config
        self.learner = None

    def start(self, init_model: str | Path | None) -> None:
        from .fast_ppo import FastPPO, load_initial_network
        self.learner = FastPPO(self.config)
        if init_model:
            load_initial_network(self.learner, init_model)

    def resume(self, checkpoint: str | Path) -> None:
        from .fast_ppo import FastPPO
        self.learner, self.progress = FastPPO.resume(checkpoint, self.config)

    @property
    def steps(self) -> int:
        return int(self.learner.timesteps)

    def rollout_steps(self) -> int:
        return self.config.n_steps * self.config.num_envs

    def learn_until(self, steps: int, on_steps=None) -> None:
        """Whole rollouts (each with its update) until at least `steps`; self-play adds a
        snapshot of the learner to the pool every `pool_update_every` steps."""
        from .fast_ppo import SelfPlayGames
        every = self.config.pool_update_every
        while self.learner.timesteps < steps:
            before = self.learner.timesteps
            self.learner.iterate()
            if (isinstance(self.learner.games, SelfPlayGames)
                    and self.learner.timesteps // every > before // every):
                self.learner.games.add_snapshot(self.learner.policy(),
                                                seed=self.config.seed + self.learner.updates)
            if on_steps is not None:
                on_steps(self.learner.timesteps)

    def save_checkpoint(self, path: str | Path) -> None:
        import torch
        torch.save(self.learner.checkpoint(), path)

    def export(self, path: str | Path, provenance: dict) -> None:
        from .fast_ppo import save_policy
        save_policy(self.learner, path, provenance)


LEARNERS = {"sb3": SB3Learner, "fast": FastLearner}
"""The learners a ppo stage may name ("learner"); a new one registers here."""


def make_learner(name: str, config: TrainingConfig):
    """The learner `name` for `config`; a ConfigError names the learners (recipe.py checks
    a stage's learner against LEARNERS first, importing this module, not the reverse)."""
    try:
        learner = LEARNERS[name]
    except KeyError:
        raise ConfigError(f"unknown learner {name!r}; the learners are: "
                          f"{', '.join(sorted(LEARNERS))}") from None
    return learner(config)
