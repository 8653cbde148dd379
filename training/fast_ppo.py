"""A lean PPO in plain torch for the batched environments: `suburbia train --learner fast`.

The same algorithm as MaskablePPO (sb3-contrib) with the same hyperparameters (masked
categorical policy, GAE, clipped surrogate, value loss, entropy bonus, per-minibatch
advantage normalisation, gradient-norm clipping, Adam), on the same function
(agents/networks.py: the compact policy), computed with less work:

- The environments' own buffers are read in place (vector env `copy=False`, the
  self-play runner's buffers); a rollout stores each observation as its non-zero
  entries, never the 8759 floats.
- The first layer reads the non-zero entries only, the action scores are computed for
  the legal actions only (agents/networks.py).
- Inference runs under `torch.inference_mode` on one thread while collecting; the
  updates on `torch_threads` threads.

Every random draw comes from the learner's own seeded generators (torch for actions and
minibatches; the environments' own). A checkpoint (`save_checkpoint`) holds the weights,
the optimizer, the generators, the environments' buffers and the step counters, saved at
a rollout boundary; `FastPPO.resume` continues from it exactly as the run would have
gone on (same threads). Checkpoints load with `torch.load(weights_only=True)`: tensors
and plain data, nothing unpickled.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.networks import SparseActorCritic, SparseInputs, SparsePolicy  # noqa: E402

from .config import TrainingConfig  # noqa: E402

CHECKPOINT_FORMAT = "suburbia-fast-ppo-checkpoint"
CHECKPOINT_VERSION = 1


def generalized_advantages(rewards: torch.Tensor, values: torch.Tensor, dones: torch.Tensor,
                           last_values: torch.Tensor, gamma: float, gae_lambda: float
                           ) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE over a (steps, envs) rollout: `dones[t]` marks a game that ended at step t (its
    next value is not bootstrapped); returns (advantages, returns = advantages + values)."""
    advantages = torch.zeros_like(values)
    running = torch.zeros_like(last_values)
    next_values = last_values
    for step in range(values.shape[0] - 1, -1, -1):
        alive = 1.0 - dones[step]
        delta = rewards[step] + gamma * next_values * alive - values[step]
        running = delta + gamma * gae_lambda * alive * running
        advantages[step] = running
        next_values = values[step]
    return advantages, advantages + values


# Environments ---------------------------------------------------------------------------------

class DaleGames:
    """The vector env against Dale (R9.2), read in place (copy=False)."""

    def __init__(self, config: TrainingConfig):
        from suburbia_env.envs.vector_env import SuburbiaVectorEnv
        self.env = SuburbiaVectorEnv(num_envs=config.num_envs, players=1, mode="dale",
                                     edition=config.edition, reward=config.reward,
                                     population_shaping=config.population_shaping,
                                     observation_format="flat",
                                     num_threads=config.env_threads, copy=False)
        self.env.reset(seed=config.seed)
        self.observations = self.env.observations
        self.masks = self.env.masks

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, rewards, terminated, _, _ = self.env.step(actions)
        return rewards, terminated

    def state(self) -> dict:
        runner = self.env.runner
        buffers = {f"games.{name}": getattr(runner.games, name) for name in runner.games._fields}
        buffers.update({f"outcomes.{name}": getattr(runner.outcomes, name)
                        for name in runner.outcomes._fields})
        return {"buffers": {name: torch.from_numpy(array.copy())
                            for name, array in buffers.items()}}

    def restore(self, state: dict) -> None:
        runner = self.env.runner
        for name, tensor in state["buffers"].items():
            bundle, _, field_name = name.partition(".")
            np.copyto(getattr(getattr(runner, bundle), field_name), tensor.numpy())
        runner.started = True


class SelfPlayGames(DaleGames):
    """training/self_play.py's games: other seats by Dale's procedure, greedy or a
    snapshot of this learner (the pool)."""

    def __init__(self, config: TrainingConfig):
        from .self_play import SelfPlayVecEnv
        self.env = SelfPlayVecEnv(num_envs=config.num_envs, players=tuple(config.players),
                                  edition=config.edition, reward=config.reward,
                                  population_shaping=config.population_shaping,
                                  pool_size=config.pool_size, dale_share=config.dale_share,
                                  greedy_share=config.greedy_share, seed=config.seed,
                                  style_share=config.style_share,
                                  style_weights=tuple(config.style_weights),
                                  num_threads=config.env_threads)
        self.template = None
        self.env.reset()
        self.observations = self.env.observations
        self.masks = self.env.masks

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.env.step_async(actions)
        _, rewards, dones, _ = self.env.step_wait()
        return rewards, dones

    def add_snapshot(self, policy: SparsePolicy, seed: int) -> None:
        self.env.add_snapshot(policy)
        self.env.pool[-1].reseed(seed)

    def state(self) -> dict:
        state = super().state()
        state["self_play"] = json.dumps({
            "generator": _generator_state(self.env.generator),
            "pool_generators": [_generator_state(snapshot.generator)
                                for snapshot in self.env.pool]})
        state["seat_policies"] = torch.from_numpy(self.env.seat_policies.copy())
        state["pool"] = [snapshot.network.state_dict() for snapshot in self.env.pool]
        return state

    def restore(self, state: dict, make_policy: Callable[[], SparsePolicy] | None = None
                ) -> None:
        super().restore(state)
        plain = json.loads(state["self_play"])
        self.env.generator.bit_generator.state = _generator_from_state(plain["generator"])
        np.copyto(self.env.seat_policies, state["seat_policies"].numpy())
        self.env.pool.clear()
        for weights, generator in zip(state["pool"], plain["pool_generators"]):
            snapshot = make_policy()
            snapshot.network.load_state_dict(weights)
            snapshot.set_training_mode(False)
            snapshot.generator.bit_generator.state = _generator_from_state(generator)
            self.env.pool.append(snapshot)


def _generator_state(generator: np.random.Generator) -> dict:
    """A numpy generator's state as JSON (its 128-bit numbers as text)."""
    return json.loads(json.dumps(generator.bit_generator.state, default=str),
                      parse_int=str)


def _generator_from_state(plain: dict) -> dict:
    def numbers(value):
        if isinstance(value, dict):
            return {key: numbers(inner) for key, inner in value.items()}
        return int(value) if isinstance(value, str) and value.lstrip("-").isdigit() else value
    return numbers(plain)


# The rollout ----------------------------------------------------------------------------------

@dataclass
class Timings:
    """Seconds spent per part of a training step (the --breakdown of the benchmark)."""
    environment: float = 0.0
    observation: float = 0.0
    inference: float = 0.0
    update: float = 0.0
    total: float = 0.0

    def shares(self) -> dict[str, float]:
        parts = {"environment": self.environment, "observation": self.observation,
                 "inference": self.inference, "update": self.update}
        parts["python between"] = max(0.0, self.total - sum(parts.values()))
        return parts


@dataclass
class Rollout:
    features: list = field(default_factory=list)
    weights: list = field(default_factory=list)
    counts: list = field(default_factory=list)
    legal_actions: list = field(default_factory=list)
    legal_counts: list = field(default_factory=list)
    goal_priors: list = field(default_factory=list)
    actions: torch.Tensor | None = None
    log_probs: torch.Tensor | None = None
    values: torch.Tensor | None = None
    rewards: torch.Tensor | None = None
    dones: torch.Tensor | None = None


def goal_chances_of(path: str):
    """The refit goal chances in a JSON file (its `goal_chances`: one row (s0, s1, centre)
    per goal criterion, benchmarks/goal_chance.py --output), None for an empty path;
    SystemExit naming the file and the problem."""
    if not path:
        return None
    from agents.one_ply import checked_goal_chances
    try:
        values = json.loads(Path(path).read_text())["goal_chances"]
        return checked_goal_chances(values)
    except (OSError, ValueError, KeyError, TypeError) as error:
        problem = "has no goal_chances" if isinstance(error, KeyError) else str(error)
        raise SystemExit(f"--goal-chances {path}: {problem}") from None


class FastPPO:
    """The learner: its network, optimizer, generators, environments and counters."""

    def __init__(self, config: TrainingConfig):
        if config.features != "compact":
            raise SystemExit("--learner fast trains the compact network only "
                             "(--features compact)")
        if config.goal_prior_weight and config.mode == "dale":
            raise SystemExit("--goal-prior-weight needs --mode self_play: against Dale "
                             "there are no goals to race for (R9.2)")
        if config.goal_prior_denial and not config.goal_prior_weight:
            raise SystemExit("--goal-prior-denial needs --goal-prior-weight: it is part of the "
                             "goal term")
        if config.goal_chances and not config.goal_prior_weight:
            raise SystemExit("--goal-chances needs --goal-prior-weight: they are the goal "
                             "term's chances")
        if config.goal_shaping and config.mode == "dale":
            raise SystemExit("--goal-shaping needs --mode self_play: against Dale there are "
                             "no goal races to shape (R9.2)")
        self.config = config
        self.generator = torch.Generator().manual_seed(config.seed)
        self.network = SparseActorCritic(config.features_dim, tuple(config.net_arch),
                                         observation_size=config.observation_size,
                                         goal_prior_weight=config.goal_prior_weight,
                                         goal_prior_denial=config.goal_prior_denial,
                                         goal_chances=goal_chances_of(config.goal_chances))
        self.network.initialize(self.generator)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate,
                                          eps=1e-5)
        self.games = DaleGames(config) if config.mode == "dale" else SelfPlayGames(config)
        self._goal_bonuses = np.zeros(self.games.masks.shape, dtype=np.float32)
        self._standings = np.zeros(config.num_envs)
        self.timesteps = 0
        self.updates = 0
        self.timings = Timings()
        self.last_losses: dict[str, float] = {}

    # Policies for others ------------------------------------------------------------------

    def policy(self, seed: int | None = None) -> SparsePolicy:
        """The current network with the SB3-style methods the agents and evaluations call
        (shares the weights: a view of the learner, not a copy)."""
        return SparsePolicy(self.network, seed=seed)

    def _new_policy(self) -> SparsePolicy:
        config = self.config
        return SparsePolicy(SparseActorCritic(config.features_dim, tuple(config.net_arch),
                                              observation_size=config.observation_size))

    # Collecting ---------------------------------------------------------------------------

    def collect(self) -> tuple[Rollout, torch.Tensor]:
        """n_steps steps of every game with the current policy; returns the rollout and the
        values of the observations after it (for bootstrapping)."""
        config, games, timings = self.config, self.games, self.timings
        steps, envs = config.n_steps, config.num_envs
        rollout = Rollout(actions=torch.empty((steps, envs), dtype=torch.int64),
                          log_probs=torch.empty((steps, envs)),
                          values=torch.empty((steps, envs)),
                          rewards=torch.empty((steps, envs)),
                          dones=torch.empty((steps, envs)))
        observations = torch.from_numpy(games.observations)
        masks = torch.from_numpy(games.masks)
        standing = self.goal_standing()
        with torch.inference_mode():
            for step in range(steps):
                started = time.perf_counter()
                inputs = self.network.inputs(observations)
                rollout.features.append(inputs.features)
                rollout.weights.append(inputs.weights)
                rollout.counts.append(inputs.counts())
                rows, legal = masks.nonzero(as_tuple=True)
                rollout.legal_actions.append(legal)
                rollout.legal_counts.append(torch.bincount(rows, minlength=envs))
                prior = self.goal_prior(rows, legal)
                rollout.goal_priors.append(prior)
                encoded = time.perf_counter()
                latent_policy, latent_value = self.network.latents(inputs)
                distribution = self.network.legal_pairs_distribution(latent_policy, rows, legal,
                                                                     prior)
                actions = distribution.sample(self.generator)
                rollout.actions[step] = actions
                rollout.log_probs[step] = distribution.log_prob(actions)
                rollout.values[step] = self.network.values(latent_value)
                inferred = time.perf_counter()
                rewards, dones = games.step(actions.numpy())
                if standing is not None:
                    rewards, standing = self.shaped(rewards, dones, standing)
                stepped = time.perf_counter()
                rollout.rewards[step] = torch.from_numpy(np.asarray(rewards, np.float32))
                rollout.dones[step] = torch.from_numpy(np.asarray(dones, np.float32))
                timings.observation += encoded - started
                timings.inference += inferred - encoded
                timings.environment += stepped - inferred
            started = time.perf_counter()
            inputs = self.network.inputs(observations)
            encoded = time.perf_counter()
            last_values = self.network.values(self.network.latents(inputs)[1])
            timings.observation += encoded - started
            timings.inference += time.perf_counter() - encoded
        self.timesteps += steps * envs
        return rollout, last_values

    def goal_prior(self, rows: torch.Tensor, legal: torch.Tensor) -> torch.Tensor | None:
        """goal_prior_weight x each legal (row, action) pair's expected goal bonus after
        its own-turn trial, less goal_prior_denial x the others' public ones
        (agents/goal_prior.py, agents/one_ply.py, R8.2), the term added to the network's
        scores; None when the weight is 0."""
        weight = self.network.goal_prior_weight
        if not weight:
            return None
        from agents.one_ply import goal_bonus_table
        from suburbia_env.engine.tile_data import GOALS, TILES
        goal_bonus_table(self.games.env.states, TILES.table, GOALS.table, TILES.basic_kinds,
                         self._goal_bonuses, self.config.env_threads,
                         self.network.goal_prior_denial, self.network.goal_chances)
        table = torch.from_numpy(self._goal_bonuses)
        return weight * table[rows, legal]

    def goal_standing(self) -> np.ndarray | None:
        """Each game's `one_ply.goal_standing` for the seat to move (the learner's, R8.2),
        in population; None without goal shaping."""
        if not self.config.goal_shaping:
            return None
        from agents.one_ply import goal_standings
        from suburbia_env.engine.tile_data import GOALS, TILES
        goal_standings(self.games.env.states, TILES.table, GOALS.table, self._standings,
                       self.network.goal_chances)
        return self._standings.copy()

    def shaped(self, rewards, dones, before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rewards plus goal_shaping x (gamma x the standing after the step, 0 where the
        game ended, less the standing before) / 100, the standing now): a potential-based
        shaping (Ng, Harada and Russell 1999), so the best policy stays the best; /100 puts
        it in the margin reward's units. A finished game's next standing is its successor's
        first."""
        config = self.config
        after = self.goal_standing()
        ended = np.asarray(dones, dtype=np.float64)
        change = config.gamma * after * (1.0 - ended) - before
        return np.asarray(rewards, np.float64) + config.goal_shaping * change / 100.0, after

    # Updating -----------------------------------------------------------------------------

    def update(self, rollout: Rollout, last_values: torch.Tensor) -> dict[str, float]:
        """n_epochs passes of minibatches over the rollout (MaskablePPO's losses)."""
        config = self.config
        advantages, returns = generalized_advantages(
            rollout.rewards, rollout.values, rollout.dones, last_values, config.gamma,
            config.gae_lambda)
        features = torch.cat(rollout.features)
        weights = torch.cat(rollout.weights)
        counts = torch.cat(rollout.counts)
        starts = torch.cumsum(counts, 0) - counts
        legal_actions = torch.cat(rollout.legal_actions)
        legal_counts = torch.cat(rollout.legal_counts)
        legal_starts = torch.cumsum(legal_counts, 0) - legal_counts
        goal_priors = (torch.cat(rollout.goal_priors)
                       if rollout.goal_priors and rollout.goal_priors[0] is not None else None)
        actions, old_log_probs = rollout.actions.reshape(-1), rollout.log_probs.reshape(-1)
        advantages, returns = advantages.reshape(-1), returns.reshape(-1)
        total = counts.shape[0]
        losses = {"policy": 0.0, "value": 0.0, "entropy": 0.0, "clip_fraction": 0.0}
        batches = 0
        self.network.train(True)
        for _ in range(config.n_epochs):
            order = self.minibatch_order(total)
            for first in range(0, total, config.batch_size):
                chosen = order[first:first + config.batch_size]
                offsets, chosen_features, chosen_weights = _rows_of(
                    chosen, counts, starts, features, weights)
                inputs = SparseInputs(chosen_features, chosen_weights, offsets, chosen.numel())
                _, legal = _rows_of(chosen, legal_counts, legal_starts, legal_actions)
                prior = (None if goal_priors is None else
                         _rows_of(chosen, legal_counts, legal_starts, goal_priors)[1])
                rows = torch.repeat_interleave(legal_counts.index_select(0, chosen))
                latent_policy, latent_value = self.network.latents(inputs)
                distribution = self.network.legal_pairs_distribution(latent_policy, rows, legal,
                                                                     prior)
                log_probs = distribution.log_prob(actions[chosen])
                values = self.network.values(latent_value)
                advantage = advantages[chosen]
                if advantage.numel() > 1:
                    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                ratio = torch.exp(log_probs - old_log_probs[chosen])
                policy_loss = -torch.min(
                    advantage * ratio,
                    advantage * torch.clamp(ratio, 1 - config.clip_range, 1 + config.clip_range)
                ).mean()
                value_loss = torch.nn.functional.mse_loss(returns[chosen], values)
                entropy_loss = -distribution.entropy().mean()
                loss = policy_loss + config.ent_coef * entropy_loss + config.vf_coef * value_loss
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.network.parameters(), config.max_grad_norm)
                self.optimizer.step()
                losses["policy"] += float(policy_loss.detach())
                losses["value"] += float(value_loss.detach())
                losses["entropy"] += float(-entropy_loss.detach())
                losses["clip_fraction"] += float(
                    ((ratio.detach() - 1).abs() > config.clip_range).float().mean())
                batches += 1
        self.network.train(False)
        self.updates += 1
        self.last_losses = {key: value / max(batches, 1) for key, value in losses.items()}
        return self.last_losses

    def minibatch_order(self, rows: int) -> torch.Tensor:
        """One epoch's order of the rollout's rows (step-major: row = step * num_envs +
        env), cut into minibatches of batch_size: a permutation from the learner's
        generator."""
        return torch.randperm(rows, generator=self.generator)

    def iterate(self) -> dict[str, float]:
        """One rollout and its update, timed."""
        started = time.perf_counter()
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            rollout, last_values = self.collect()
        finally:
            torch.set_num_threads(threads)
        updating = time.perf_counter()
        torch.set_num_threads(self.config.torch_threads)
        try:
            losses = self.update(rollout, last_values)
        finally:
            torch.set_num_threads(threads)
        ended = time.perf_counter()
        self.timings.update += ended - updating
        self.timings.total += ended - started
        return losses

    # Checkpoints --------------------------------------------------------------------------

    def checkpoint(self, extra: dict | None = None) -> dict:
        """Everything a run needs to go on exactly (module docstring), as tensors and
        plain data."""
        return {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION,
                "config": json.dumps(self.config.to_dict()),
                "network": self.network.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "generator": self.generator.get_state(),
                "games": self.games.state(),
                "timesteps": self.timesteps, "updates": self.updates,
                "extra": json.dumps(extra or {})}

    def save_checkpoint(self, path: str | Path, extra: dict | None = None) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".partial")
        torch.save(self.checkpoint(extra), temporary)
        os.replace(temporary, path)  # a kill while writing leaves the last checkpoint whole
        return path

    @classmethod
    def resume(cls, path: str | Path, config: TrainingConfig | None = None
               ) -> tuple["FastPPO", dict]:
        """The learner saved at `path` (its config unless `config` is given: e.g. more
        total steps) and the `extra` data saved with it."""
        data = load_checkpoint(path)
        if config is None:
            config = TrainingConfig(**json.loads(data["config"]))
        learner = cls(config)
        learner.network.load_state_dict(data["network"])
        learner.optimizer.load_state_dict(data["optimizer"])
        learner.generator.set_state(data["generator"])
        if isinstance(learner.games, SelfPlayGames):
            learner.games.restore(data["games"], learner._new_policy)
        else:
            learner.games.restore(data["games"])
        learner.timesteps = int(data["timesteps"])
        learner.updates = int(data["updates"])
        return learner, json.loads(data["extra"])


def load_checkpoint(path: str | Path) -> dict:
    """A checkpoint's contents, read without unpickling code; SystemExit naming the file
    if it is not one."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise SystemExit(f"--resume: no checkpoint at {path}") from None
    except Exception as error:  # a truncated or foreign file fails anywhere inside torch
        raise SystemExit(f"--resume: {path} is not a readable checkpoint "
                         f"({type(error).__name__}: {str(error)[:200]})") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise SystemExit(f"--resume: {path} is not a checkpoint of the fast learner")
    if data.get("version") != CHECKPOINT_VERSION:
        raise SystemExit(f"--resume: {path} has checkpoint version {data.get('version')!r}; "
                         f"this version reads {CHECKPOINT_VERSION}")
    return data


def _rows_of(chosen: torch.Tensor, counts: torch.Tensor, starts: torch.Tensor,
             *columns: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Rows `chosen` of data stored row after row (row i: `counts[i]` entries from
    `starts[i]` in each of `columns`): their offsets, then each column's entries."""
    chosen_counts = counts.index_select(0, chosen)
    offsets = torch.cumsum(chosen_counts, 0) - chosen_counts
    shift = (starts.index_select(0, chosen) - offsets).repeat_interleave(chosen_counts)
    entries = torch.arange(shift.numel()) + shift
    return (offsets, *(column.index_select(0, entries) for column in columns))


# A whole run -----------------------------------------------------------------------------------

def planned_timesteps(config: TrainingConfig) -> int:
    """Steps of a run: whole rollouts of n_steps x num_envs, rounded up."""
    rollout = config.n_steps * config.num_envs
    return -(-config.total_timesteps // rollout) * rollout


def _evaluate(learner: FastPPO, config: TrainingConfig) -> dict:
    """Win rate with its 95% interval: against Dale (R9.2) in mode dale, against the
    greedy player at 2 players in self-play (the yardstick of train.py), on one thread."""
    from .evaluation import evaluate_against_dale, evaluate_against_greedy
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    started = time.perf_counter()
    try:
        if config.mode == "self_play":
            result = evaluate_against_greedy(learner.policy(), config.eval_games,
                                             config.seed + 1, players=2, edition=config.edition)
        else:
            result = evaluate_against_dale(learner.policy(), config.eval_games, config.seed + 1,
                                           edition=config.edition)
    finally:
        torch.set_num_threads(threads)
    result["timesteps"] = learner.timesteps
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def save_policy(learner: FastPPO, path: str | Path, provenance: dict) -> Path:
    """The network in the safe format (agents/model_format.py): NAME.safetensors + .json."""
    import datetime

    from agents.model_format import library_versions, save_safe_model
    training = {"algorithm": "FastPPO (training/fast_ppo.py)",
                "num_timesteps": learner.timesteps,
                "saved": datetime.datetime.now(datetime.timezone.utc).isoformat(
                    timespec="seconds"),
                "library_versions": library_versions(), **provenance}
    return save_safe_model(learner.policy(), path, learner.config.gamma, "current", training)


def load_initial_network(learner: FastPPO, path: str | Path) -> None:
    """--init-model for the fast learner: the weights of a safe-format model of its own
    kind or of the sb3 learner's compact policy with the same sizes (the same function,
    agents/networks.py); weights only, the optimizer starts fresh. A model of an earlier,
    shorter observation, or of fewer units than this run's `features_dim` and `net_arch`,
    is widened (`SparseActorCritic.widened`): zero weights for the new inputs and out of
    the new units, so the run starts from exactly that model's outputs."""
    from agents.model_format import load_safe_model
    from agents.networks import SparseActorCritic, SparsePolicy
    from suburbia_env.errors import SuburbiaError
    try:
        model = load_safe_model(path)
    except SuburbiaError as error:
        raise SystemExit(f"--init-model: {error}") from None
    try:
        if isinstance(model.policy, SparsePolicy):
            network = model.policy.network
        else:
            network = SparseActorCritic.from_sb3_compact(model.policy)
        learner.network.load_state_dict(network.widened(
            learner.network.observation_size, learner.network.features_dim,
            learner.network.net_arch, learner.generator).state_dict())
    except (RuntimeError, ValueError) as error:
        raise SystemExit(f"--init-model {path}: its network differs from this run's "
                         f"({str(error).splitlines()[0]})") from None


def train_fast(config: TrainingConfig, resume_from: str | Path | None = None,
               callback: Callable[[dict], bool | None] | None = None) -> dict:
    """Run (or, from a checkpoint, go on with) one training of the fast learner; returns
    the summary written to summary.json.

    Writes to `config.output_dir` what `suburbia train` writes (config.json,
    evaluations.jsonl, best_model / model .safetensors + .json, summary.json) and
    checkpoints/step_N.pt every `checkpoint_every` steps and at the end (also on a stop).
    `callback(event)` gets a dict after every update ({"event": "update", "timesteps",
    "total_timesteps", "seconds", "steps_per_second", "losses"}) and after every
    evaluation ({"event": "evaluation", ..., "evaluation": result}); returning False
    stops the run after a checkpoint. `resume_from` (or config.resume): a checkpoint
    of this learner; the run goes on exactly as it would have (same threads), towards
    `config.total_timesteps`.
    """
    resume_from = resume_from or config.resume or None
    if config.pretrain_games > 0 or config.demonstrations:
        raise SystemExit("--learner fast does not imitate yet: pretrain with the sb3 learner")
    output_dir = Path(config.output_dir)
    (output_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (output_dir / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    if resume_from:
        learner, progress = FastPPO.resume(resume_from, config)
        print(f"resumed from {resume_from} at {learner.timesteps} steps", flush=True)
    else:
        learner = FastPPO(config)
        if config.init_model:
            load_initial_network(learner, config.init_model)
        progress = {"next_evaluation": config.eval_every,
                    "next_checkpoint": config.checkpoint_every,
                    "next_snapshot": config.pool_update_every, "best": None,
                    "evaluations": [], "seconds": 0.0}
    provenance = {"trained_by": "suburbia train --learner fast", "config": config.to_dict()}
    total = planned_timesteps(config)
    if total != config.total_timesteps:
        print(f"--total-timesteps {config.total_timesteps}: PPO learns from whole rollouts of "
              f"n-steps x num-envs = {config.n_steps * config.num_envs} steps, so this run "
              f"trains {total} steps", flush=True)
    seconds_before = progress["seconds"]
    started = time.perf_counter()
    last_print = 0.0
    checkpoint = None

    def elapsed() -> float:
        return seconds_before + time.perf_counter() - started

    def save(name: str) -> Path:
        progress["seconds"] = elapsed()
        return learner.save_checkpoint(output_dir / "checkpoints" / name, progress)

    def evaluate() -> dict:
        result = _evaluate(learner, config)
        progress["evaluations"].append(result)
        with open(output_dir / "evaluations.jsonl", "a") as handle:
            handle.write(json.dumps(result) + "\n")
        score = [result["win_rate"], result["mean_population"]]
        if progress["best"] is None or score > progress["best"]:
            progress["best"] = score
            save_policy(learner, output_dir / "best_model.safetensors",
                        {**provenance, "evaluation": result})
        other = result.get("mean_dale_population", result.get("mean_best_other_population"))
        print(f"[eval {learner.timesteps:>9} steps] win rate vs "
              f"{'greedy' if config.mode == 'self_play' else 'dale'} {result['win_rate']:.3f} "
              f"(95% CI {result['win_rate_low']:.3f}-{result['win_rate_high']:.3f}), "
              f"mean population {result['mean_population']:.1f} (other {other:.1f})",
              flush=True)
        return result

    stopped = False
    while learner.timesteps < total and not stopped:
        losses = learner.iterate()
        if (isinstance(learner.games, SelfPlayGames)
                and learner.timesteps >= progress["next_snapshot"]):
            progress["next_snapshot"] += config.pool_update_every
            learner.games.add_snapshot(learner.policy(),
                                       seed=config.seed + learner.updates)
        now = elapsed()
        event = {"event": "update", "timesteps": learner.timesteps, "total_timesteps": total,
                 "seconds": now, "steps_per_second": learner.timesteps / max(now, 1e-9),
                 "losses": losses}
        if callback is not None and callback(event) is False:
            stopped = True
        if config.progress_bar and (time.perf_counter() - last_print > 5 or
                                    learner.timesteps >= total):
            last_print = time.perf_counter()
            remaining = (total - learner.timesteps) / max(event["steps_per_second"], 1e-9)
            print(f"[fast] {learner.timesteps:>9}/{total} steps, "
                  f"{event['steps_per_second']:.0f} steps/s, about {remaining:.0f} s left",
                  flush=True)
        if learner.timesteps >= progress["next_evaluation"] and learner.timesteps < total:
            progress["next_evaluation"] = ((learner.timesteps // config.eval_every + 1)
                                           * config.eval_every)
            result = evaluate()
            if callback is not None and callback(
                    {**event, "event": "evaluation", "evaluation": result}) is False:
                stopped = True
        if learner.timesteps >= progress["next_checkpoint"] or stopped:
            progress["next_checkpoint"] = ((learner.timesteps // config.checkpoint_every + 1)
                                           * config.checkpoint_every)
            checkpoint = save(f"step_{learner.timesteps}.pt")
    learn_seconds = elapsed()
    if stopped:
        return {"timesteps": learner.timesteps, "stopped": True,
                "checkpoint": str(checkpoint), "learn_seconds": round(learn_seconds, 1)}
    save_policy(learner, output_dir / "model.safetensors", provenance)
    final = evaluate()
    checkpoint = save(f"step_{learner.timesteps}.pt")
    summary = {"learner": "fast", "timesteps": learner.timesteps,
               "learn_seconds": round(learn_seconds, 1),
               "env_steps_per_second": round(learner.timesteps / max(learn_seconds, 1e-9), 1),
               "final_evaluation": final, "best": progress["best"],
               "evaluations": progress["evaluations"], "checkpoint": str(checkpoint),
               "breakdown": {part: round(seconds, 2)
                             for part, seconds in learner.timings.shares().items()}}
    (output_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"trained {learner.timesteps} steps in {learn_seconds:.0f} s "
          f"({summary['env_steps_per_second']:.0f} env steps/s); model saved to "
          f"{output_dir / 'model.safetensors'}; checkpoint {checkpoint}", flush=True)
    return summary
