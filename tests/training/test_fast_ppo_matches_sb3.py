"""The fast learner (training/fast_ppo.py) against MaskablePPO (sb3-contrib), piece by
piece: from the same weights and the same rollout one update changes every parameter
alike and reports the same losses; the rollout it collects itself holds what its games
gave and what its policy chose."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.networks import SparseActorCritic  # noqa: E402
from training.config import TrainingConfig  # noqa: E402
from training.fast_ppo import FastPPO  # noqa: E402
from training.throughput import compare_one_update  # noqa: E402
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


def test_one_update_matches_maskable_ppo_from_the_same_weights_and_rollout(tmp_path):
    """MaskablePPO collects one rollout (8 games x 32 steps) and trains on it (3 epochs of
    4 minibatches, entropy bonus on); the fast learner, given the same starting weights,
    the same rollout and the same minibatches (training/throughput.py compare_one_update),
    computes the same advantages (GAE), losses and gradients, clips and steps Adam alike:
    every parameter moves the same way."""
    result = compare_one_update(_config(tmp_path))
    assert 0 < result["game_ends"] < ENVS * STEPS  # games ended inside the rollout
    fast, sb3 = result["fast"], result["sb3"]
    assert abs(fast["policy"] - sb3["policy"]) < 1e-6
    assert abs(fast["value"] - sb3["value"]) < 1e-5 * max(1.0, abs(sb3["value"]))
    assert abs(fast["entropy"] - sb3["entropy"]) < 1e-5 and sb3["entropy"] > 1.0
    assert abs(fast["clip_fraction"] - sb3["clip_fraction"]) < 1e-9
    assert set(result["changes"]) == set(SparseActorCritic().state_dict())
    for name, (norm, difference) in result["changes"].items():
        assert norm > 0, name
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
                inputs = learner.network.inputs(torch.from_numpy(observation))
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
        _, latent_value = learner.network.latents(learner.network.inputs(observations))
        probabilities = torch.softmax(learner.network.dense_scores(observations, masks), dim=1)
    assert torch.allclose(reference.distribution.probs, probabilities, atol=1e-5)
    assert torch.allclose(values, learner.network.values(latent_value), atol=1e-5)
    smaller = new_model(_config(tmp_path, features_dim=128),
                        make_environment(_config(tmp_path)))
    with pytest.raises(SystemExit, match="its network differs"):
        load_initial_weights(smaller, path)
