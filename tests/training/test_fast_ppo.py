"""The fast learner (training/fast_ppo.py) and its network (agents/networks.py): legal
sampling, the sparse layers against their dense definitions, GAE, exact resumption, the
exported model, and learning itself (slow)."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from agents.networks import (COMPACT_SIZE, SparseActorCritic, SparseInputs,  # noqa: E402
                             compact_inputs)
from agents.registry import make_agent  # noqa: E402
from suburbia_env import Game  # noqa: E402
from suburbia_env.engine.action_space import NUM_ACTIONS  # noqa: E402
from suburbia_env.errors import ModelFormatError  # noqa: E402
from suburbia_env.engine.observation import (OBSERVATION_SIZE, encode_observation)  # noqa: E402
from suburbia_env.engine.tile_data import TILES  # noqa: E402
from suburbia_env.envs.vector_env import SuburbiaVectorEnv  # noqa: E402
from training.config import TrainingConfig, parse_config  # noqa: E402
from training.evaluation import evaluate_against_dale  # noqa: E402
from training.fast_ppo import (FastPPO, generalized_advantages, save_policy,  # noqa: E402
                               train_fast)

torch.set_num_threads(1)


def _network(seed: int = 0) -> SparseActorCritic:
    network = SparseActorCritic()
    network.initialize(torch.Generator().manual_seed(seed))
    return network


def _positions(count: int = 16, seed: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """Observations and masks of Dale games a few random moves in."""
    env = SuburbiaVectorEnv(count, observation_format="flat", num_threads=1)
    observations, _ = env.reset(seed=seed)
    generator = np.random.default_rng(seed)
    for _ in range(seed * 3):
        masks = env.action_masks()
        observations, *_ = env.step((generator.random(masks.shape) * masks).argmax(1))
    return torch.from_numpy(observations), torch.from_numpy(env.action_masks())


def _small_config(tmp_path, **changes) -> TrainingConfig:
    values = dict(num_envs=8, n_steps=16, batch_size=64, n_epochs=2, seed=5,
                  output_dir=str(tmp_path / "run"), eval_every=10**9, eval_games=4,
                  checkpoint_every=10**9, progress_bar=False, learner="fast")
    values.update(changes)
    return TrainingConfig(**values)


def test_masked_sampling_never_picks_an_illegal_action():
    """Peaked random scores over random legal sets, one legal action in some rows: every
    sample, the mode and all probability lie on legal actions (R5)."""
    network = _network(1)
    with torch.no_grad():
        network.action_net.weight.mul_(500.0)  # scores far apart: illegal favourites abound
    generator = torch.Generator().manual_seed(2)
    observations, _ = _positions(32)
    masks = torch.rand((32, NUM_ACTIONS), generator=generator) < 0.02
    masks[:4] = False
    masks[torch.arange(4), torch.tensor([0, 5, NUM_ACTIONS - 1, 1000])] = True
    latent, _ = network.latents(SparseInputs.from_observations(observations))
    distribution = network.legal_distribution(latent, masks)
    for _ in range(200):
        sample = distribution.sample(generator)
        assert bool(masks[torch.arange(32), sample].all())
    assert bool(masks[torch.arange(32), distribution.mode()].all())
    assert torch.equal(distribution.sample(generator)[:4], torch.tensor([0, 5, NUM_ACTIONS - 1,
                                                                         1000]))
    totals = torch.zeros(32).index_add(0, distribution.rows, distribution.log_probabilities.exp())
    assert torch.allclose(totals, torch.ones(32), atol=1e-5)
    scores = network.dense_scores(observations, masks)
    assert bool(torch.isinf(scores[~masks]).all()) and bool(torch.isfinite(scores[masks]).all())


def test_a_row_without_a_legal_action_is_refused():
    network = _network()
    observations, masks = _positions(2)
    masks[1] = False
    latent, _ = network.latents(SparseInputs.from_observations(observations))
    with pytest.raises(ValueError, match="at least one legal action"):
        network.legal_distribution(latent, masks)


def test_the_sparse_layers_compute_the_dense_policy_and_its_gradients():
    """The first layer over non-zero entries is the dense layer over the compact view; the
    legal-pair scores are the masked rows of the dense action layer; so are the gradients."""
    network = _network(3)
    observations, masks = _positions(12)
    latent, value_latent = network.latents(SparseInputs.from_observations(observations))
    distribution = network.legal_distribution(latent, masks)
    loss = distribution.log_prob(distribution.mode()).sum() + network.values(value_latent).sum()
    loss.backward()
    sparse_gradients = {name: parameter.grad.clone()
                        for name, parameter in network.named_parameters()}
    network.zero_grad()
    features = torch.relu(compact_inputs(observations) @ network.encoder.weight
                          + network.encoder_bias)
    dense_latent = network.policy_net(features)
    scores = (dense_latent @ network.action_net.weight.T + network.action_net.bias
              ).masked_fill(~masks, -torch.inf)
    assert torch.allclose(scores[masks], distribution.scores, atol=1e-5)
    log_probabilities = torch.log_softmax(scores, dim=1)
    chosen = distribution.mode()
    assert torch.equal(chosen, scores.argmax(1))
    dense_loss = (log_probabilities[torch.arange(12), chosen].sum()
                  + network.value_head(network.value_net(features)).sum())
    assert torch.allclose(dense_loss, loss, atol=1e-4)
    dense_loss.backward()
    for name, parameter in network.named_parameters():
        assert torch.allclose(parameter.grad, sparse_gradients[name], atol=1e-5), name
    assert network.encoder.weight.shape == (COMPACT_SIZE, 256)


def test_entropy_and_log_probabilities_match_the_masked_categorical():
    network = _network(6)
    observations, masks = _positions(8)
    latent, _ = network.latents(SparseInputs.from_observations(observations))
    distribution = network.legal_distribution(latent, masks)
    scores = network.dense_scores(observations, masks)
    reference = torch.distributions.Categorical(logits=scores)
    chosen = distribution.sample(torch.Generator().manual_seed(0))
    assert torch.allclose(distribution.log_prob(chosen), reference.log_prob(chosen), atol=1e-5)
    probabilities = reference.probs
    entropy = -(probabilities * torch.log(probabilities.clamp(min=1e-30))).sum(1)
    assert torch.allclose(distribution.entropy(), entropy, atol=1e-5)


def test_generalized_advantages_of_a_hand_example():
    """Two games, three steps; game 1 ends at step 1 (no bootstrap across it)."""
    rewards = torch.tensor([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0]])
    values = torch.tensor([[0.5, 0.2], [0.4, 0.1], [0.3, 0.6]])
    dones = torch.tensor([[0.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    last_values = torch.tensor([1.0, -1.0])
    gamma, lam = 0.9, 0.8
    advantages, returns = generalized_advantages(rewards, values, dones, last_values, gamma, lam)
    # plain reference, step by step
    expected = np.zeros((3, 2))
    for game in range(2):
        running = 0.0
        for step in (2, 1, 0):
            following = last_values[game] if step == 2 else values[step + 1, game]
            alive = 1.0 - float(dones[step, game])
            delta = float(rewards[step, game] + gamma * following * alive - values[step, game])
            running = delta + gamma * lam * alive * running
            expected[step, game] = running
    assert np.allclose(advantages.numpy(), expected, atol=1e-6)
    # by hand: game 1, step 1 ends the game: delta = 0 - 0.1; step 2: 2 + 0.9 * -1 - 0.6
    assert advantages[1, 1].item() == pytest.approx(-0.1)
    assert advantages[2, 1].item() == pytest.approx(0.5)
    assert advantages[0, 1].item() == pytest.approx(1.0 + 0.9 * 0.1 - 0.2 + 0.72 * -0.1)
    assert torch.allclose(returns, advantages + values)


def _states_equal(first: FastPPO, second: FastPPO) -> None:
    for (name, one), (_, other) in zip(first.network.state_dict().items(),
                                       second.network.state_dict().items()):
        assert torch.equal(one, other), name
    assert torch.equal(first.generator.get_state(), second.generator.get_state())
    for name, tensor in first.games.state()["buffers"].items():
        assert torch.equal(tensor, second.games.state()["buffers"][name]), name
    assert first.timesteps == second.timesteps and first.updates == second.updates


@pytest.mark.parametrize("mode", ["dale", "self_play"])
def test_resuming_a_checkpoint_continues_bit_for_bit(tmp_path, mode):
    """Three updates straight, or one, a checkpoint, a fresh process state and two: the
    same weights, optimizer moments, generators, games and counters (one thread). In
    self-play a snapshot of the learner joins the pool after the first update."""
    config = _small_config(tmp_path, mode=mode, players=[2, 3], greedy_share=0.3)
    straight = FastPPO(config)
    resumed = FastPPO(config)
    for learner in (straight, resumed):
        learner.iterate()
        if mode == "self_play":
            learner.games.add_snapshot(learner.policy(), seed=9)
    path = resumed.save_checkpoint(tmp_path / "one.pt", {"note": "after one"})
    del resumed
    resumed, extra = FastPPO.resume(path)
    assert extra == {"note": "after one"}
    for _ in range(2):
        straight.iterate()
        resumed.iterate()
    _states_equal(straight, resumed)
    for one, other in zip(straight.optimizer.state_dict()["state"].values(),
                          resumed.optimizer.state_dict()["state"].values()):
        assert all(torch.equal(one[key], other[key]) for key in one)
    if mode == "self_play":
        assert len(resumed.games.env.pool) == 1
        assert np.array_equal(straight.games.env.seat_policies, resumed.games.env.seat_policies)


def test_a_checkpoint_that_is_not_one_is_refused(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(SystemExit, match="not a readable checkpoint"):
        FastPPO.resume(bad)
    torch.save({"format": "something else"}, bad)
    with pytest.raises(SystemExit, match="not a checkpoint of the fast learner"):
        FastPPO.resume(bad)
    with pytest.raises(SystemExit, match="no checkpoint"):
        parse_config(["--learner", "fast", "--resume", str(tmp_path / "missing.pt")])
    with pytest.raises(SystemExit, match="--learner fast"):
        parse_config(["--resume", str(bad)])


def test_the_exported_model_plays_as_the_policy_in_training(tmp_path):
    """Saved in the safe format and loaded as `ppo:PATH`, the network makes the moves the
    learner's own policy makes, game after game, and scores the same."""
    learner = FastPPO(_small_config(tmp_path))
    learner.iterate()
    path = save_policy(learner, tmp_path / "model.safetensors", {"note": "test"})
    description = json.loads(path.with_suffix(".json").read_text())
    assert description["policy"] == {"class": "SparseActorCritic", "features_dim": 256,
                                     "net_arch": [128], "activation_fn": "Tanh"}
    agent = make_agent(f"ppo:{path}")
    policy = learner.policy()
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    moves = 0
    for seed in (1, 2):
        game = Game(players=1, mode="dale", seed=seed)
        while not game.is_over:
            encode_observation(game.state, TILES.table, game.current_player, observation)
            mask = game.legal_action_mask()
            action, _ = policy.predict(observation, action_masks=mask, deterministic=True)
            assert agent.act(game) == int(action)
            game.apply(int(action))
            moves += 1
    assert moves > 40
    observations, masks = _positions(6)
    loaded = agent.model.policy.network
    assert torch.equal(loaded.dense_scores(observations, masks),
                       learner.network.dense_scores(observations, masks))
    search = make_agent(f"ppo-rollout:{path}", seed=3)
    game = Game(players=2, mode="standard", seed=7)
    assert game.is_legal(game.action_number(search.act(game)))


def test_a_description_of_a_network_larger_than_its_weights_is_refused(tmp_path):
    learner = FastPPO(_small_config(tmp_path))
    path = save_policy(learner, tmp_path / "model.safetensors", {})
    description_path = path.with_suffix(".json")
    description = json.loads(description_path.read_text())
    description["policy"]["features_dim"] = 60_000
    description_path.write_text(json.dumps(description))
    with pytest.raises(ModelFormatError, match="more than the .* bytes of the weights"):
        make_agent(f"ppo:{path}")
    description["policy"]["features_dim"] = 256
    description["policy"]["activation_fn"] = "Softmax"
    description_path.write_text(json.dumps(description))
    with pytest.raises(ModelFormatError, match="activation_fn"):
        make_agent(f"ppo:{path}")


def test_a_callback_can_stop_a_run_which_then_resumes_to_the_end(tmp_path):
    config = _small_config(tmp_path, total_timesteps=3 * 8 * 16)
    events = []

    def stop_after_two(event):
        events.append(event)
        return event["timesteps"] < 2 * 8 * 16

    stopped = train_fast(config, callback=stop_after_two)
    assert stopped["stopped"] and stopped["timesteps"] == 256
    assert [event["timesteps"] for event in events] == [128, 256]
    assert events[0]["total_timesteps"] == 384 and set(events[0]["losses"]) >= {"policy",
                                                                                 "value"}
    summary = train_fast(config, resume_from=stopped["checkpoint"])
    assert summary["timesteps"] == 384
    assert (tmp_path / "run" / "model.safetensors").is_file()
    assert summary["final_evaluation"]["games"] == 4


@pytest.mark.slow
def test_a_short_training_plays_better_than_random_against_dale(tmp_path):
    """About 50k steps against Dale (R9.2) beat the random player's margin on 60 seeded
    games no training saw."""
    config = _small_config(tmp_path, num_envs=64, n_steps=64, batch_size=1024, n_epochs=4,
                           total_timesteps=49_152, ent_coef=0.0, gamma=0.99, seed=1)
    summary = train_fast(config)
    assert summary["timesteps"] == 49_152
    trained = evaluate_against_dale(FastPPO.resume(summary["checkpoint"])[0].policy(), 60,
                                    seed=77_000)

    class RandomPolicy:
        generator = np.random.default_rng(0)

        def predict(self, observations, action_masks, deterministic):
            scores = self.generator.random(action_masks.shape) * action_masks
            return scores.argmax(1), None

    random = evaluate_against_dale(RandomPolicy(), 60, seed=77_000)
    assert trained["mean_margin"] > random["mean_margin"] + 10
    assert trained["mean_population"] > random["mean_population"] + 10


def test_a_compact_sb3_policy_becomes_the_same_sparse_network(tmp_path):
    """The fast learner starts from the sb3 learner's compact models (the recipes' fits):
    same probabilities and values on real positions."""
    from sb3_contrib import MaskablePPO

    from suburbia_env.envs.sb3 import SB3VectorEnv
    from agents.features import SuburbiaFeatures
    model = MaskablePPO("MlpPolicy", SB3VectorEnv(num_envs=2, num_threads=1), seed=3,
                        device="cpu", policy_kwargs={
                            "net_arch": [128], "features_extractor_class": SuburbiaFeatures,
                            "features_extractor_kwargs": {"features_dim": 256}})
    network = SparseActorCritic()
    network.load_sb3_compact(model.policy)
    observations, masks = _positions(10)
    with torch.no_grad():
        reference = model.policy.get_distribution(observations, action_masks=masks.numpy())
        values = model.policy.predict_values(observations).reshape(-1)
        latent, value_latent = network.latents(SparseInputs.from_observations(observations))
    probabilities = torch.softmax(network.dense_scores(observations, masks), dim=1)
    assert torch.allclose(probabilities, reference.distribution.probs, atol=1e-5)
    assert torch.allclose(network.values(value_latent), values, atol=1e-5)
    with pytest.raises(ValueError, match="not a stable-baselines3 compact policy"):
        SparseActorCritic(features_dim=128).load_sb3_compact(model.policy)


def test_the_recipes_fast_learner_checkpoints_and_exports(tmp_path):
    """training/ppo_backend.py's "fast" learner: learn in whole rollouts, a checkpoint
    the recipe runner resumes from, an export `ppo:PATH` plays."""
    from training.ppo_backend import make_learner
    config = _small_config(tmp_path, mode="self_play", pool_update_every=128)
    learner = make_learner("fast", config)
    learner.start(None)
    seen = []
    learner.learn_until(200, seen.append)
    assert seen == [128, 256] and learner.steps == 256 == 2 * learner.rollout_steps()
    assert len(learner.learner.games.env.pool) == 2
    learner.save_checkpoint(tmp_path / "stage.pt")
    learner.export(tmp_path / "stage.safetensors", {"stage": "test"})
    again = make_learner("fast", config)
    again.resume(tmp_path / "stage.pt")
    assert again.steps == 256
    _states_equal(learner.learner, again.learner)
    game = Game(players=2, mode="standard", seed=1)
    assert game.is_legal(game.action_number(make_agent(
        f"ppo:{tmp_path / 'stage.safetensors'}").act(game)))


REFIT_CHANCES = [[0.13, 0.04, 0.24], [0.17, 0.04, -0.27], [3.6, 1.27, -2.9], [0.05, 0.07, 0.7],
                 [1.07, 1.07, 1.25], [2.0, 0.48, -1.69], [0.03, 0.02, 0.05], [0.08, 0.06, 0.07]]


@pytest.mark.parametrize("denial, refit", [(0.0, False), (0.5, False), (0.0, True)])
def test_with_a_goal_prior_the_sampled_policy_adds_its_term_to_the_scores(tmp_path, denial,
                                                                          refit):
    """goal_prior_weight W: each collected step's probabilities are the softmax of the
    network's scores plus W x each legal action's expected goal bonus (agents/goal_prior.py,
    R8.2; less goal_prior_denial x the others' public ones; with --goal-chances, the
    chances refit in that file), and the update trains through the same sum; the network
    carries the refit chances in its description."""
    from agents.one_ply import OWN_CHANCES, trial_goal_bonuses
    from suburbia_env.engine.tile_data import GOALS
    chances = np.array(REFIT_CHANCES) if refit else OWN_CHANCES
    chances_file = ""
    if refit:
        chances_file = str(tmp_path / "chances.json")
        Path(chances_file).write_text(json.dumps({"goal_chances": REFIT_CHANCES}))
    config = _small_config(tmp_path, mode="self_play", players=[2, 3, 4], greedy_share=0.5,
                           n_steps=1, batch_size=8, goal_prior_weight=2.0,
                           goal_prior_denial=denial, goal_chances=chances_file)
    learner = FastPPO(config)
    assert learner.network.description().get("goal_chances") == (REFIT_CHANCES if refit
                                                                   else None)
    states = learner.games.env.states.copy()
    observations = torch.from_numpy(learner.games.observations.copy())
    masks = torch.from_numpy(learner.games.masks.copy())
    rollout, _ = learner.collect()
    bonuses = np.zeros(masks.shape, dtype=np.float64)
    mask, actions = np.zeros(NUM_ACTIONS, dtype=np.bool_), np.zeros(NUM_ACTIONS, np.int32)
    for row, state in enumerate(states):
        found = trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds, mask,
                                   actions, denial, chances)
        bonuses[row, actions[:found.shape[0]]] = found
    assert np.count_nonzero(bonuses) > 0
    with torch.inference_mode():
        scores = learner.network.dense_scores(observations, masks).double()
    expected = torch.log_softmax(scores + 2.0 * torch.from_numpy(bonuses), dim=1)
    chosen = rollout.actions[0]
    assert torch.allclose(rollout.log_probs[0].double(),
                          expected[torch.arange(chosen.numel()), chosen], atol=1e-4)
    rows, legal = masks.nonzero(as_tuple=True)
    assert torch.allclose(rollout.goal_priors[0].double(),
                          2.0 * torch.from_numpy(bonuses)[rows, legal], atol=1e-5)
    losses = learner.update(rollout, torch.zeros(config.num_envs))
    assert all(np.isfinite(value) for value in losses.values())


def test_without_a_goal_prior_nothing_is_added_and_against_dale_one_is_refused(tmp_path):
    learner = FastPPO(_small_config(tmp_path, mode="self_play", players=[2], n_steps=1))
    rollout, _ = learner.collect()
    assert rollout.goal_priors == [None]
    with pytest.raises(SystemExit, match="--goal-prior-weight needs --mode self_play"):
        FastPPO(_small_config(tmp_path, mode="dale", goal_prior_weight=1.0))
    with pytest.raises(SystemExit, match="--goal-prior-weight must be in 0..100"):
        parse_config(["--goal-prior-weight", "-1"])
    with pytest.raises(SystemExit, match="--goal-prior-denial needs --goal-prior-weight"):
        FastPPO(_small_config(tmp_path, mode="self_play", goal_prior_denial=0.5))
    with pytest.raises(SystemExit, match="--goal-prior-denial must be in 0..1"):
        parse_config(["--goal-prior-denial", "1.5"])
    with pytest.raises(SystemExit, match="--goal-chances needs --goal-prior-weight"):
        FastPPO(_small_config(tmp_path, mode="self_play", goal_chances="chances.json"))
    (tmp_path / "short.json").write_text(json.dumps({"goal_chances": REFIT_CHANCES[:7]}))
    (tmp_path / "none.json").write_text("{}")
    for name, message in [("short.json", "must be 8 rows"), ("none.json", "has no goal_chances"),
                          ("missing.json", "No such file")]:
        with pytest.raises(SystemExit, match=f"--goal-chances .*{name}: .*{message}"):
            FastPPO(_small_config(tmp_path, mode="self_play", goal_prior_weight=1.0,
                                  goal_chances=str(tmp_path / name)))


def test_goal_shaping_adds_the_change_of_the_goal_standing_to_each_reward(tmp_path):
    """goal_shaping L: the same games as without (shaping moves no action), each reward
    plus L x (gamma x the learner's goal standing after the step, 0 where its game ended,
    less the standing before) / 100, the standings read from the real states around each
    step (agents/one_ply.goal_standing, R8.2); games end within the rollout."""
    from agents.one_ply import OWN_CHANCES, goal_standing
    from suburbia_env.engine.tile_data import GOALS
    changes = dict(mode="self_play", players=[2, 3], greedy_share=0.5, num_envs=4,
                   n_steps=48, batch_size=64)
    plain = FastPPO(_small_config(tmp_path, **changes))
    shaped = FastPPO(_small_config(tmp_path, goal_shaping=0.5, **changes))
    standings = []

    def standings_now():
        return np.array([goal_standing(state, TILES.table, GOALS.table, OWN_CHANCES)
                         for state in shaped.games.env.states])
    step = shaped.games.step

    def recorded_step(actions):
        before = standings_now()
        rewards, dones = step(actions)
        standings.append((before, standings_now()))
        return rewards, dones
    shaped.games.step = recorded_step
    without, _ = plain.collect()
    with_shaping, _ = shaped.collect()
    assert torch.equal(without.actions, with_shaping.actions)
    assert without.dones.sum() >= 2
    expected = without.rewards.double().clone()
    for index, (before, after) in enumerate(standings):
        ended = without.dones[index].double().numpy()
        expected[index] += torch.from_numpy(
            0.5 * (plain.config.gamma * after * (1 - ended) - before) / 100.0)
    assert any(np.abs(before).max() > 1.0 for before, _ in standings)
    assert torch.allclose(with_shaping.rewards.double(), expected, atol=1e-6)
    assert not torch.allclose(with_shaping.rewards, without.rewards)


def test_goal_shaping_is_refused_against_dale_and_out_of_range(tmp_path):
    with pytest.raises(SystemExit, match="--goal-shaping needs --mode self_play"):
        FastPPO(_small_config(tmp_path, mode="dale", goal_shaping=1.0))
    with pytest.raises(SystemExit, match="--goal-shaping must be in 0..100"):
        parse_config(["--goal-shaping", "-0.5"])


def test_a_warm_start_into_a_wider_network_begins_at_the_models_outputs(tmp_path):
    """--init-model of a smaller model into a run with more units (features_dim, net_arch):
    the same probabilities and values on real positions (weights out of the new units are
    zero), the new units' own weights drawn, and PPO's first update moves the weights out
    of them; a narrower run is refused by name."""
    from agents.model_format import load_safe_model, save_safe_model
    from agents.networks import SparsePolicy
    from agents.random_agent import RandomAgent
    from training.fast_ppo import load_initial_network
    released = load_safe_model("models/multiplayer-goal-prior.safetensors").policy
    config = _small_config(tmp_path, mode="self_play", players=[2, 3], greedy_share=0.8,
                           n_steps=4, batch_size=16, features_dim=320, net_arch=[160],
                           goal_prior_weight=1.0,
                           init_model="models/multiplayer-goal-prior.safetensors")
    learner = FastPPO(config)
    load_initial_network(learner, config.init_model)
    network = learner.network
    assert (network.features_dim, network.net_arch) == (320, [160])
    assert network.encoder.weight[:, 256:].abs().sum() > 0
    assert network.policy_net[0].weight[128:].abs().sum() > 0
    assert not network.policy_net[0].weight[:128, 256:].any()
    assert not network.action_net.weight[:, 128:].any()
    assert not network.value_head.weight[:, 128:].any()
    observations, masks = [], []
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    for players, seed in [(2, 3), (3, 4)]:
        game, agent = Game(players, "standard", "2nd", seed), RandomAgent(seed=seed)
        while not game.is_over:
            encode_observation(game.state, TILES.table, game.current_player, observation)
            observations.append(observation.copy())
            masks.append(game.legal_action_mask())
            game.apply(agent.act(game))
    observations = torch.from_numpy(np.stack(observations))
    masks = torch.from_numpy(np.stack(masks))
    with torch.inference_mode():
        expected = released.network.dense_scores(observations, masks)
        got = network.dense_scores(observations, masks)
        legal = masks.bool()
        assert torch.allclose(expected[legal], got[legal], rtol=1e-5, atol=1e-5)
        inputs = network.inputs(observations)
        assert torch.allclose(released.network.values(released.network.latents(inputs)[1]),
                              network.values(network.latents(inputs)[1]), atol=1e-5)
    rollout, last_values = learner.collect()
    learner.update(rollout, last_values)
    assert network.action_net.weight[:, 128:].abs().sum() > 0
    save_safe_model(SparsePolicy(network), tmp_path / "wide.safetensors", 0.99)
    narrow = FastPPO(_small_config(tmp_path, mode="self_play", features_dim=128,
                                   net_arch=[128],
                                   init_model=str(tmp_path / "wide.safetensors")))
    with pytest.raises(SystemExit, match="cannot narrow a network of features_dim 320"):
        load_initial_network(narrow, narrow.config.init_model)
