"""The fast learner (training/fast_ppo.py) against MaskablePPO (sb3-contrib), piece by
piece: from the same weights and the same rollout one update changes every parameter
alike and reports the same losses; the rollout it collects itself holds what its games
gave and what its policy chose."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.networks import SparseInputs  # noqa: E402
from training.config import TrainingConfig  # noqa: E402
from training.fast_ppo import FastPPO, Rollout  # noqa: E402
from training.train import make_environment, new_model  # noqa: E402

torch.set_num_threads(1)

ENVS, STEPS = 8, 32


def _config(tmp_path, **changes) -> TrainingConfig:
    values = dict(mode="dale", reward="margin", seed=3, num_envs=ENVS, n_steps=STEPS,
                  batch_size=64, n_epochs=3, learning_rate=3e-4, gamma=0.99,
                  gae_lambda=0.95, clip_range=0.2, ent_coef=0.01, vf_coef=0.5,
                  max_grad_norm=0.5, learner="fast", progress_bar=False,
                  output_dir=str(tmp_path / "run"))
    values.update(changes)
    return TrainingConfig(**values)


def _rollout_of(buffer) -> Rollout:
    """MaskablePPO's rollout buffer as the fast learner's rollout (steps x envs)."""
    observations = torch.from_numpy(buffer.observations.reshape(STEPS, ENVS, -1))
    masks = torch.from_numpy(buffer.action_masks.reshape(STEPS, ENVS, -1) > 0)
    # SB3 marks the first step of a game (episode_starts[t]); the fast learner marks the
    # step that ended one (dones[t] = episode_starts[t + 1]); the last row is filled later
    ends = np.concatenate([buffer.episode_starts[1:], np.zeros((1, ENVS), np.float32)])
    rollout = Rollout(actions=torch.from_numpy(buffer.actions.reshape(STEPS, ENVS)).long(),
                      log_probs=torch.from_numpy(buffer.log_probs.copy()),
                      values=torch.from_numpy(buffer.values.copy()),
                      rewards=torch.from_numpy(buffer.rewards.copy()),
                      dones=torch.from_numpy(ends.astype(np.float32)))
    for step in range(STEPS):
        inputs = SparseInputs.from_observations(observations[step])
        rollout.features.append(inputs.features)
        rollout.weights.append(inputs.weights)
        rollout.counts.append(inputs.counts())
        rows, legal = masks[step].nonzero(as_tuple=True)
        rollout.legal_actions.append(legal)
        rollout.legal_counts.append(torch.bincount(rows, minlength=ENVS))
    return rollout


class SameOrderPPO(FastPPO):
    """The fast learner drawing each epoch's minibatches as SB3's rollout buffer does
    (np.random.permutation over env-major rows), mapped to its step-major rows."""

    def minibatch_order(self, rows: int) -> torch.Tensor:
        order = np.random.permutation(rows)
        return torch.from_numpy((order % STEPS) * ENVS + order // STEPS)


def test_one_update_matches_maskable_ppo_from_the_same_weights_and_rollout(tmp_path):
    """MaskablePPO collects one rollout (8 games x 32 steps) and trains on it (3 epochs of
    4 minibatches, entropy bonus on); the fast learner, given the same starting weights,
    the same rollout and the same minibatches, computes the same advantages (GAE), losses
    and gradients, clips and steps Adam alike: every parameter moves the same way."""
    config = _config(tmp_path)
    model = new_model(config, make_environment(config))
    fast = SameOrderPPO(config)
    captured = {}
    train = model.train

    def train_and_capture() -> None:
        captured["before"] = {name: tensor.clone()
                              for name, tensor in model.policy.state_dict().items()}
        fast.network.load_sb3_compact(model.policy)
        captured["buffer"] = {name: np.copy(getattr(model.rollout_buffer, name))
                              for name in ("advantages", "returns")}
        captured["rollout"] = _rollout_of(model.rollout_buffer)
        np.random.seed(11)
        train()

    model.train = train_and_capture
    model.learn(total_timesteps=ENVS * STEPS)
    assert model.num_timesteps == ENVS * STEPS
    rollout = captured["rollout"]
    assert 0 < float(rollout.dones.sum()) < ENVS * STEPS  # games ended inside the rollout
    last_observations = torch.from_numpy(np.asarray(model._last_obs))
    rollout.dones[-1] = torch.from_numpy(model._last_episode_starts.astype(np.float32))
    fast_before = {name: tensor.clone() for name, tensor in fast.network.state_dict().items()}
    with torch.no_grad():
        last_values = fast.network.values(fast.network.latents(
            SparseInputs.from_observations(last_observations))[1])

    np.random.seed(11)
    losses = fast.update(rollout, last_values)

    logged = model.logger.name_to_value
    assert abs(losses["policy"] - logged["train/policy_gradient_loss"]) < 1e-6
    assert abs(losses["value"] - logged["train/value_loss"]) < 1e-5 * max(
        1.0, abs(logged["train/value_loss"]))
    assert abs(losses["entropy"] + logged["train/entropy_loss"]) < 1e-5
    assert abs(losses["clip_fraction"] - logged["train/clip_fraction"]) < 1e-9
    # SB3 parameter names of the same tensors (agents/networks.py load_sb3_compact)
    names = {"encoder_bias": "features_extractor.dense.0.bias",
             "action_net.weight": "action_net.weight", "action_net.bias": "action_net.bias",
             "value_head.weight": "value_net.weight", "value_head.bias": "value_net.bias",
             **{name: f"mlp_extractor.{name}" for name in fast_before
                if name.startswith(("policy_net.", "value_net."))}}
    after_sb3 = model.policy.state_dict()
    after_fast = fast.network.state_dict()
    moved = {"encoder.weight": (after_fast["encoder.weight"] - fast_before["encoder.weight"],
                                (after_sb3["features_extractor.dense.0.weight"]
                                 - captured["before"]["features_extractor.dense.0.weight"]).T)}
    for name, sb3_name in names.items():
        moved[name] = (after_fast[name] - fast_before[name],
                       after_sb3[sb3_name] - captured["before"][sb3_name])
    assert set(moved) == set(fast_before)
    for name, (fast_change, sb3_change) in moved.items():
        assert float(sb3_change.abs().max()) > 0, name
        difference = float((fast_change - sb3_change).norm() / sb3_change.norm())
        assert difference < 1e-3, (name, difference)


def test_the_rollout_holds_what_the_games_gave_and_the_policy_chose(tmp_path):
    """Over three rollouts and their updates: each step's stored inputs and legal actions
    are those of the observation and mask the games showed before the step, the chosen
    action was legal, its stored log-probability is the policy's, and the stored rewards
    and game ends are what the step returned."""
    learner = FastPPO(_config(tmp_path, n_epochs=1))
    env = learner.games.env
    seen = []
    step = learner.games.step

    def recording_step(actions):
        observation, mask = env.observations.copy(), env.masks.copy()
        rewards, dones = step(actions)
        seen.append((observation, mask, np.array(rewards, np.float32),
                     np.array(dones, np.float32)))
        return rewards, dones

    learner.games.step = recording_step
    ended = 0.0
    for _ in range(3):
        seen.clear()
        rollout, last_values = learner.collect()
        assert len(seen) == STEPS
        with torch.no_grad():
            for index, (observation, mask, rewards, dones) in enumerate(seen):
                inputs = SparseInputs.from_observations(torch.from_numpy(observation))
                assert torch.equal(inputs.features, rollout.features[index])
                assert torch.equal(inputs.weights, rollout.weights[index])
                rows, legal = torch.from_numpy(mask).nonzero(as_tuple=True)
                assert torch.equal(legal, rollout.legal_actions[index])
                assert torch.equal(torch.bincount(rows, minlength=ENVS),
                                   rollout.legal_counts[index])
                actions = rollout.actions[index]
                assert bool(torch.from_numpy(mask)[torch.arange(ENVS), actions].all())
                latent_policy, latent_value = learner.network.latents(inputs)
                distribution = learner.network.legal_pairs_distribution(latent_policy, rows,
                                                                        legal)
                assert torch.allclose(distribution.log_prob(actions), rollout.log_probs[index],
                                      atol=1e-5)
                assert torch.allclose(learner.network.values(latent_value),
                                      rollout.values[index], atol=1e-5)
                assert np.array_equal(rewards, rollout.rewards[index].numpy())
                assert np.array_equal(dones, rollout.dones[index].numpy())
        ended += float(rollout.dones.sum())
        learner.update(rollout, last_values)
    assert ended > 0


def test_a_fast_model_goes_on_in_the_sb3_learner_as_the_same_policy(tmp_path):
    """A recipe's fit stage after a fast ppo stage: the fast learner's exported model,
    loaded with --init-model into MaskablePPO's compact policy, gives the same
    probabilities and values; a network of other sizes is refused by name."""
    import pytest

    from training.fast_ppo import save_policy
    from training.train import load_initial_weights
    config = _config(tmp_path, n_epochs=1)
    learner = FastPPO(config)
    learner.iterate()
    path = save_policy(learner, tmp_path / "fast.safetensors", {"note": "test"})
    model = new_model(config, make_environment(config))
    load_initial_weights(model, path)
    env = learner.games.env
    observations = torch.from_numpy(env.observations.copy())
    masks = torch.from_numpy(env.masks.copy())
    with torch.no_grad():
        reference = model.policy.get_distribution(observations, action_masks=masks.numpy())
        values = model.policy.predict_values(observations).reshape(-1)
        _, latent_value = learner.network.latents(SparseInputs.from_observations(observations))
        probabilities = torch.softmax(learner.network.dense_scores(observations, masks), dim=1)
    assert torch.allclose(reference.distribution.probs, probabilities, atol=1e-5)
    assert torch.allclose(values, learner.network.values(latent_value), atol=1e-5)
    smaller = new_model(_config(tmp_path, features_dim=128),
                        make_environment(_config(tmp_path)))
    with pytest.raises(SystemExit, match="its network differs"):
        load_initial_weights(smaller, path)
