"""Training throughput and learning quality of PPO settings on a CPU machine.

A setting fixes the learner (MaskablePPO of sb3-contrib, or the plain-torch learner of
training/fast_ppo.py, "fast-" settings), the environment (one Gymnasium env or the
batched vector env), rollout length, batch size, epochs, network and torch threads;
everything else is SB3's default (learning rate 3e-4, gamma 0.99, no entropy bonus)
with the margin reward, the same for both learners. `run_setting` trains one from
scratch against Dale (R9.2) until a budget of env steps or of seconds is spent, measures
env steps/s of the whole training and where its time went (`breakdown`: environment,
observation, inference, update, Python between them), and can then play seeded games
against Dale with the trained policy, so that a faster setting is also checked for
learning as well in the same time (or the same steps).
`benchmarks/training_throughput.py` prints these figures.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402

from suburbia_env.envs.gym_env import SuburbiaEnv  # noqa: E402
from suburbia_env.envs.sb3 import SB3VectorEnv  # noqa: E402

from .config import TrainingConfig  # noqa: E402
from .evaluation import evaluate_against_dale  # noqa: E402
from .train import policy_options  # noqa: E402

COMPACT = policy_options(TrainingConfig(features="compact"))
"""The compact extractor with its 256 features and one hidden layer of 128, as `suburbia
train` builds it by default."""


@dataclass(frozen=True)
class Setting:
    environment: str  # "gym": one SuburbiaEnv; "vector": SB3VectorEnv of num_envs games
    num_envs: int
    n_steps: int
    batch_size: int
    n_epochs: int
    policy_kwargs: dict = field(default_factory=dict)
    torch_threads: int = 1
    learner: str = "sb3"  # "sb3": MaskablePPO; "fast": training/fast_ppo.py (compact network)


SETTINGS = {
    "sb3-defaults": Setting("gym", 1, 2048, 64, 10),
    "vector64-flat": Setting("vector", 64, 64, 2048, 4, {"net_arch": [256, 256]}),
    "vector64-compact": Setting("vector", 64, 64, 2048, 4, COMPACT),
    "vector64-compact-2threads": Setting("vector", 64, 64, 2048, 4, COMPACT, 2),
    "vector128-compact-2epochs": Setting("vector", 128, 64, 4096, 2, COMPACT),
    "vector256-compact-2epochs-2threads": Setting("vector", 256, 32, 4096, 2, COMPACT, 2),
    "fast-vector64-compact": Setting("vector", 64, 64, 2048, 4, COMPACT, 1, "fast"),
    "fast-vector64-compact-2threads": Setting("vector", 64, 64, 2048, 4, COMPACT, 2, "fast"),
    # the dale recipe's ppo stage (training/recipes/dale.json): 256 games, rollouts of 32
    "fast-vector256-compact-2epochs": Setting("vector", 256, 32, 4096, 2, COMPACT, 1, "fast"),
    "fast-vector256-compact-2epochs-2threads": Setting("vector", 256, 32, 4096, 2, COMPACT, 2,
                                                       "fast"),
}
BREAKDOWN_PARTS = ("environment", "observation", "inference", "update", "python between")
"""Where a training step's time goes: stepping the games (with their compiled opponents
and the observation encoder, which the engine runs inside the step), turning observations
and masks into the network's input, the policy's forward pass while collecting, the
updates (forward, backward, optimizer over all epochs), and the rest (rollout storage,
callbacks, Python between the parts)."""

EVALUATION_SEED = 90_000
"""First game seed of the evaluation games, apart from the seeds training draws from."""


class Stopwatch:
    """Adds the time spent inside wrapped functions to named parts."""

    def __init__(self):
        self.seconds = dict.fromkeys(BREAKDOWN_PARTS, 0.0)

    def wrap(self, part: str, function):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - started
        return timed


def instrument_sb3(model: MaskablePPO) -> Stopwatch:
    """Time MaskablePPO's parts by wrapping, on this model only, the vector env's step,
    the conversion of observations to tensors and the reading of masks, the policy's
    forward pass (collection only: the update calls `evaluate_actions`) and `train()`."""
    from sb3_contrib.ppo_mask import ppo_mask
    watch = Stopwatch()
    model.env.step_wait = watch.wrap("environment", model.env.step_wait)
    model.policy.forward = watch.wrap("inference", model.policy.forward)
    model.policy.predict_values = watch.wrap("inference", model.policy.predict_values)
    model.train = watch.wrap("update", model.train)
    watch.patched = {"obs_as_tensor": ppo_mask.obs_as_tensor,
                     "get_action_masks": ppo_mask.get_action_masks}
    for name, function in watch.patched.items():
        setattr(ppo_mask, name, watch.wrap("observation", function))
    return watch


def uninstrument_sb3(watch: Stopwatch) -> None:
    from sb3_contrib.ppo_mask import ppo_mask
    for name, function in watch.patched.items():
        setattr(ppo_mask, name, function)


class WallClockBudget(BaseCallback):
    """Ends `learn()` at the first rollout that starts after `seconds` have passed, so the
    last completed rollout has had its update."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds = seconds
        self._deadline = 0.0
        self._spent = False

    def _on_training_start(self) -> None:
        self._deadline = time.perf_counter() + self.seconds

    def _on_rollout_start(self) -> None:
        self._spent = time.perf_counter() >= self._deadline

    def _on_step(self) -> bool:
        return not self._spent


def make_model(setting: Setting, seed: int) -> MaskablePPO:
    if setting.environment == "gym":
        environment = SuburbiaEnv(observation_format="flat", reward="margin")
    else:
        environment = SB3VectorEnv(num_envs=setting.num_envs, reward="margin", num_threads=1)
    return MaskablePPO("MlpPolicy", environment, n_steps=setting.n_steps,
                       batch_size=setting.batch_size, n_epochs=setting.n_epochs,
                       policy_kwargs=setting.policy_kwargs, seed=seed, device="cpu")


def fast_config(setting: Setting, seed: int) -> TrainingConfig:
    """The fast learner's config with the hyperparameters MaskablePPO uses by default."""
    return TrainingConfig(mode="dale", reward="margin", seed=seed, num_envs=setting.num_envs,
                          n_steps=setting.n_steps, batch_size=setting.batch_size,
                          n_epochs=setting.n_epochs, torch_threads=setting.torch_threads,
                          learning_rate=3e-4, gamma=0.99, gae_lambda=0.95, clip_range=0.2,
                          ent_coef=0.0, vf_coef=0.5, max_grad_norm=0.5,
                          features_dim=setting.policy_kwargs["features_extractor_kwargs"][
                              "features_dim"],
                          net_arch=list(setting.policy_kwargs["net_arch"]))


def run_fast_setting(setting: Setting, steps: int, seconds: float | None, seed: int):
    """(policy, steps, seconds, breakdown) of the fast learner: whole rollouts until
    `steps`, or until `seconds` have passed at the start of a rollout."""
    from .fast_ppo import FastPPO
    learner = FastPPO(fast_config(setting, seed))
    started = time.perf_counter()
    while learner.timesteps < steps and (seconds is None or learner.timesteps == 0
                                         or time.perf_counter() - started < seconds):
        learner.iterate()
    learn_seconds = time.perf_counter() - started
    learner.timings.total = learn_seconds
    return learner.policy(), learner.timesteps, learn_seconds, learner.timings.shares()


def run_setting(name: str, steps: int, seconds: float | None = None, seed: int = 0,
                evaluate_games: int = 0, evaluation_seed: int = EVALUATION_SEED) -> dict:
    """Train setting `name` for `steps` env steps, or until `seconds` have passed (then
    `steps` is only a cap); with `evaluate_games`, then play that many games against Dale
    from `evaluation_seed` with the policy's most probable legal action. The result's
    `breakdown` gives the seconds of each of BREAKDOWN_PARTS.

    Torch uses the setting's thread count during training and the caller's outside it.
    """
    setting = SETTINGS[name]
    threads_before = torch.get_num_threads()
    torch.set_num_threads(setting.torch_threads)
    try:
        if setting.learner == "fast":
            model, timesteps, learn_seconds, breakdown = run_fast_setting(
                setting, steps, seconds, seed)
        else:
            model = make_model(setting, seed)
            watch = instrument_sb3(model)
            callbacks = [] if seconds is None else [WallClockBudget(seconds)]
            started = time.perf_counter()
            try:
                model.learn(total_timesteps=steps, callback=callbacks)
            finally:
                uninstrument_sb3(watch)
            learn_seconds = time.perf_counter() - started
            timesteps = int(model.num_timesteps)
            breakdown = dict(watch.seconds)
            breakdown["python between"] = max(0.0, learn_seconds - sum(breakdown.values()))
    finally:
        torch.set_num_threads(threads_before)
    result = {"setting": name, "seed": seed, "steps": timesteps,
              "seconds": learn_seconds, "steps_per_second": timesteps / learn_seconds,
              "update_share": breakdown["update"] / learn_seconds, "breakdown": breakdown}
    if evaluate_games:
        evaluation = evaluate_against_dale(model, evaluate_games, evaluation_seed)
        result.update({key: evaluation[key] for key in (
            "games", "win_rate", "win_rate_low", "win_rate_high", "mean_population",
            "mean_margin")})
    return result


def compare_one_update(config: TrainingConfig, order_seed: int = 11) -> dict:
    """One MaskablePPO update against one fast-learner update from the same weights, the
    same rollout and the same minibatches (training/fast_ppo.py claims the same PPO).

    MaskablePPO (built from `config` as `suburbia train` builds it) collects one rollout
    against Dale and trains on it; just before its update, its weights go into a fast
    learner and its rollout buffer becomes the fast learner's rollout; the fast learner
    then updates with SB3's minibatches (numpy's permutation seeded with `order_seed`,
    SB3's env-major rows mapped to the fast learner's step-major rows). Returns both
    learners' mean losses ("fast", "sb3": policy, value, entropy, clip_fraction), per
    parameter the norm of MaskablePPO's change and the relative difference of the two
    changes ("changes": {fast name: (sb3 norm, relative difference)}), and the number of
    games that ended inside the rollout."""
    import numpy as np

    from .fast_ppo import FastPPO, Rollout
    from .train import make_environment, new_model
    steps, envs = config.n_steps, config.num_envs

    class SameOrderPPO(FastPPO):
        def minibatch_order(self, rows: int) -> torch.Tensor:
            order = np.random.permutation(rows)
            return torch.from_numpy((order % steps) * envs + order // steps)

    def rollout_of(buffer) -> Rollout:
        observations = torch.from_numpy(buffer.observations.reshape(steps, envs, -1))
        masks = torch.from_numpy(buffer.action_masks.reshape(steps, envs, -1) > 0)
        # SB3 marks the first step of a game (episode_starts[t]), the fast learner the
        # step that ended one (dones[t] = episode_starts[t + 1]; the last row comes after)
        ends = np.concatenate([buffer.episode_starts[1:], np.zeros((1, envs), np.float32)])
        rollout = Rollout(actions=torch.from_numpy(buffer.actions.reshape(steps, envs)).long(),
                          log_probs=torch.from_numpy(buffer.log_probs.copy()),
                          values=torch.from_numpy(buffer.values.copy()),
                          rewards=torch.from_numpy(buffer.rewards.copy()),
                          dones=torch.from_numpy(ends.astype(np.float32)))
        for step in range(steps):
            inputs = fast.network.inputs(observations[step])
            rollout.features.append(inputs.features)
            rollout.weights.append(inputs.weights)
            rollout.counts.append(inputs.counts())
            rows, legal = masks[step].nonzero(as_tuple=True)
            rollout.legal_actions.append(legal)
            rollout.legal_counts.append(torch.bincount(rows, minlength=envs))
        return rollout

    model = new_model(config, make_environment(config))
    fast = SameOrderPPO(config)
    captured = {}
    train = model.train

    def train_after_capturing() -> None:
        captured["before"] = {name: tensor.clone()
                              for name, tensor in model.policy.state_dict().items()}
        fast.network.load_sb3_compact(model.policy)
        captured["rollout"] = rollout_of(model.rollout_buffer)
        np.random.seed(order_seed)
        train()

    model.train = train_after_capturing
    model.learn(total_timesteps=steps * envs)
    rollout = captured["rollout"]
    rollout.dones[-1] = torch.from_numpy(
        np.asarray(model._last_episode_starts, dtype=np.float32))
    before = {name: tensor.clone() for name, tensor in fast.network.state_dict().items()}
    with torch.no_grad():
        last_values = fast.network.values(fast.network.latents(fast.network.inputs(
            torch.from_numpy(np.asarray(model._last_obs))))[1])
    np.random.seed(order_seed)
    fast_losses = fast.update(rollout, last_values)
    logged = model.logger.name_to_value
    sb3_losses = {"policy": float(logged["train/policy_gradient_loss"]),
                  "value": float(logged["train/value_loss"]),
                  "entropy": -float(logged["train/entropy_loss"]),
                  "clip_fraction": float(logged["train/clip_fraction"])}
    after_sb3, after_fast = model.policy.state_dict(), fast.network.state_dict()
    sb3_names = {"encoder.weight": "features_extractor.dense.0.weight",
                 "encoder_bias": "features_extractor.dense.0.bias",
                 "action_net.weight": "action_net.weight", "action_net.bias": "action_net.bias",
                 "value_head.weight": "value_net.weight", "value_head.bias": "value_net.bias",
                 **{name: f"mlp_extractor.{name}" for name in before
                    if name.startswith(("policy_net.", "value_net."))}}
    changes = {}
    for name, sb3_name in sb3_names.items():
        sb3_change = after_sb3[sb3_name] - captured["before"][sb3_name]
        if name == "encoder.weight":
            sb3_change = sb3_change.T
        fast_change = after_fast[name] - before[name]
        norm = float(sb3_change.norm())
        changes[name] = (norm, float((fast_change - sb3_change).norm()) / max(norm, 1e-30))
    return {"fast": fast_losses, "sb3": sb3_losses, "changes": changes,
            "game_ends": int(rollout.dones.sum())}
