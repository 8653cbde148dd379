"""Demonstrations and pretraining (training/imitation.py): what is recorded is what was
played, by the demonstrator the spec names, and pretraining fits the policy to it."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from agents.registry import AgentSpecError, make_agent  # noqa: E402
from agents.table import agent_seed  # noqa: E402
from suburbia_env import Game  # noqa: E402
from suburbia_env.errors import ConfigError  # noqa: E402
from suburbia_env.engine.state_layout import STATE_SIZE  # noqa: E402
from suburbia_env.envs.sb3 import SB3VectorEnv  # noqa: E402
from training.imitation import (_encode_batch, _play_demonstrations,  # noqa: E402
                                collect_demonstrations, load_demonstrations, main, pretrain)

torch.set_num_threads(1)


def _replay(data: dict[str, np.ndarray], first_seed: int, spec: str) -> int:
    """Replays the recorded games from their seeds with a fresh agent of `spec`, checking
    every stored state, action and return; returns the number of games."""
    agent = make_agent(spec, seed=first_seed)
    row, seed = 0, first_seed
    while row < len(data["actions"]):
        agent.reset(seed)
        game = Game(players=1, mode="dale", seed=seed)
        start = row
        while not game.is_over:
            assert np.array_equal(game.state, data["states"][row]), (seed, row)
            assert data["actions"][row] == agent.act(game)
            assert game.is_legal(int(data["actions"][row]))
            game.apply(int(data["actions"][row]))
            row += 1
        scores = game.final_scores()
        margin = (scores[0]["population"] - scores[1]["population"]) / 100.0
        assert np.allclose(data["returns"][start:row], margin)
        seed += 1
    return seed - first_seed


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_demonstrations_record_the_demonstrators_own_games(spec):
    states, actions, returns, forfeits = _play_demonstrations((11, 2, "2nd", spec, ()))
    assert forfeits == []
    data = {"states": states, "actions": actions, "returns": returns}
    assert len(states) == len(actions) == len(returns) > 20
    assert _replay(data, 11, spec) == 2


def test_different_demonstrators_choose_differently():
    random_actions = _play_demonstrations((3, 1, "2nd", "random", ()))[1]
    greedy_actions = _play_demonstrations((3, 1, "2nd", "greedy", ()))[1]
    assert not np.array_equal(random_actions[:10], greedy_actions[:10])


def test_standard_games_record_only_the_demonstrators_seat_as_it_rotates():
    """Against opponents (R3.1) the demonstrator sits at seat seed % players; only its
    decisions are kept, each with its margin over the best other seat (R8.3)."""
    opponents = ("random", "random")
    states, actions, returns, _ = _play_demonstrations((30, 3, "2nd", "greedy", opponents))
    row = 0
    for seed in (30, 31, 32):
        seat = seed % 3
        demonstrator = make_agent("greedy")
        others = [make_agent("random"), make_agent("random")]
        seated = others[:seat] + [demonstrator] + others[seat:]
        for index, player in enumerate(seated):
            player.reset(seed if index == seat else agent_seed(seed, index))
        game = Game(players=3, mode="standard", seed=seed)
        start = row
        while not game.is_over:
            mover = game.current_player
            action = game.action_number(seated[mover].act(game))
            if mover == seat:
                assert np.array_equal(states[row], game.state) and actions[row] == action
                row += 1
            game.apply(action)
        populations = [score["population"] for score in game.final_scores()]
        best_other = max(p for index, p in enumerate(populations) if index != seat)
        assert row > start + 10
        assert np.allclose(returns[start:row], (populations[seat] - best_other) / 100.0)
    assert row == len(actions)
    observations, masks = _encode_batch(states)
    assert all(masks[index, action] for index, action in enumerate(actions))


class QuitsInRound3:
    """An opponent (or demonstrator) that plays the first legal action, then raises in
    round 3."""

    name = "quitter"

    def act(self, game):
        if game.round == 2:
            raise RuntimeError("gone home")
        return game.legal_actions()[0]


def test_an_opponent_that_fails_forfeits_and_the_stand_in_plays_its_seat_on():
    """As in a tournament: the game goes on with the stand-in (the first legal action) in
    the seat, and the demonstrator's decisions of the whole game are kept."""
    states, actions, returns, forfeits = _play_demonstrations(
        (40, 2, "2nd", "greedy", (QuitsInRound3(),)))
    assert len(forfeits) == 2
    for seed, line in zip((40, 41), forfeits):
        assert line.startswith(f"quitter forfeited the game seeded {seed} in seat "
                               f"{1 - seed % 2}: at the game's decision ")
        assert line.endswith("raised RuntimeError: gone home (the stand-in played the seat on)")
    row = 0
    for seed in (40, 41):  # replayed by hand with the stand-in from round 3 on
        seat = seed % 2
        demonstrator = make_agent("greedy")
        demonstrator.reset(seed)
        game = Game(players=2, mode="standard", seed=seed)
        while not game.is_over:
            if game.current_player == seat:
                action = game.action_number(demonstrator.act(game))
                assert np.array_equal(states[row], game.state) and actions[row] == action
                row += 1
            else:
                action = int(game.legal_actions()[0])
            game.apply(action)
        assert game.round > 2
    assert row == len(actions) == len(returns)


def test_a_game_the_demonstrator_forfeits_gives_no_demonstrations():
    states, actions, returns, forfeits = _play_demonstrations(
        (50, 1, "2nd", QuitsInRound3(), ("greedy",)))
    assert len(states) == len(actions) == len(returns) == 0
    assert states.shape == (0, STATE_SIZE)  # joins the other workers' states
    [line] = forfeits
    assert line.startswith("quitter forfeited the game seeded 50 in seat 0: ")
    assert line.endswith("raised RuntimeError: gone home (no demonstrations kept)")


def test_too_many_opponents_are_refused_before_any_game():
    with pytest.raises(ConfigError, match="at most 3 opponents"):
        collect_demonstrations(1, demonstrator="random", opponents=("random",) * 4)


@pytest.mark.slow
def test_the_command_collects_over_workers_into_a_file(tmp_path):
    path = tmp_path / "demonstrations.npz"
    main([str(path), "--games", "3", "--seed", "40", "--demonstrator", "random",
          "--workers", "2"])
    data = load_demonstrations(str(path))
    assert _replay(data, 40, "random") == 3


def test_a_bad_demonstrator_fails_before_any_game(tmp_path):
    with pytest.raises(AgentSpecError, match="unknown agent spec 'nonsense'"):
        collect_demonstrations(1, demonstrator="nonsense")
    with pytest.raises(FileNotFoundError, match="no model file at .*missing.zip"):
        collect_demonstrations(1, demonstrator=f"ppo-rollout:{tmp_path / 'missing.zip'}")


def test_loading_a_file_that_is_not_demonstrations_names_it(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, states=np.zeros((1, 3)))
    with pytest.raises(ValueError, match="other.npz: not a demonstrations file "
                                         r"\(missing actions, returns\)"):
        load_demonstrations(str(path))


def test_pretraining_fits_the_policy_to_the_demonstrated_actions():
    states, actions, returns, _ = _play_demonstrations((21, 2, "2nd", "greedy", ()))
    data = {"states": states, "actions": actions, "returns": returns}
    model = MaskablePPO("MlpPolicy", SB3VectorEnv(num_envs=1, players=1, mode="dale"), seed=0,
                        device="cpu",
                        policy_kwargs={"net_arch": [64]})
    observations, masks = _encode_batch(states)

    def agreement() -> float:
        with torch.no_grad():
            chosen = model.policy.get_distribution(torch.as_tensor(observations),
                                                   action_masks=masks).mode().numpy()
        assert all(masks[row, action] for row, action in enumerate(chosen))
        return float(np.mean(chosen == actions))

    before = agreement()
    losses = pretrain(model, data, epochs=30, batch_size=16, learning_rate=1e-3, seed=0)
    assert losses[-1] < 0.5 * losses[0]
    after = agreement()
    assert after > before + 0.3, (before, after)


def _greedy_data(first_seed: int, games: int) -> dict[str, np.ndarray]:
    states, actions, returns, _ = _play_demonstrations((first_seed, games, "2nd", "greedy", ()))
    return {"states": states, "actions": actions, "returns": returns}


def test_encoded_demonstrations_give_the_rows_the_observations_give():
    """A batch gathered from the encoding done once is the batch the network would read
    from the observations and masks encoded afresh, rows in the order asked."""
    from agents.networks import SparseInputs
    from training.imitation import EncodedDemonstrations
    data = _greedy_data(31, 2)
    encoded = EncodedDemonstrations(data, chunk=7)  # several chunks, a short last one
    assert len(encoded) == len(data["actions"])
    index = np.array([5, 0, len(encoded) - 1, 12, 5])
    inputs, rows, legal, chosen, returns = encoded.batch(index)
    observations, masks = _encode_batch(data["states"][index])
    fresh = SparseInputs.from_observations(torch.from_numpy(observations))
    assert torch.equal(inputs.features, fresh.features)
    assert torch.equal(inputs.weights, fresh.weights)
    assert torch.equal(inputs.offsets, fresh.offsets) and inputs.rows == 5
    mask_rows, mask_actions = np.nonzero(masks)
    assert np.array_equal(rows.numpy(), mask_rows)
    assert np.array_equal(legal.numpy(), mask_actions)
    assert np.array_equal(chosen.numpy(), data["actions"][index])
    assert np.allclose(returns.numpy(), data["returns"][index])
    assert all(masks[row, action] for row, action in enumerate(chosen.numpy()))


@pytest.mark.slow
def test_the_fast_fit_learns_the_demonstrated_actions_and_resumes_exactly():
    """fit_network raises agreement with the demonstrator; stopped after an epoch and
    resumed from its checkpoint, it ends with the weights of a fit that never stopped."""
    import json

    from agents.networks import SparseActorCritic, SparsePolicy
    from training.imitation import EncodedDemonstrations, fit_network
    data = _greedy_data(41, 2)
    encoded = EncodedDemonstrations(data)
    observations, masks = _encode_batch(data["states"])

    def fresh() -> SparseActorCritic:
        network = SparseActorCritic(32, (16,))
        network.initialize(torch.Generator().manual_seed(3))
        return network

    def agreement(network) -> float:
        chosen, _ = SparsePolicy(network).predict(observations, action_masks=masks,
                                                  deterministic=True)
        assert all(masks[row, action] for row, action in enumerate(chosen))
        return float(np.mean(chosen == data["actions"]))

    whole = fresh()
    before = agreement(whole)
    losses = fit_network(whole, encoded, epochs=40, batch_size=16, learning_rate=3e-3, seed=5)
    assert losses[-1] < 0.5 * losses[0]
    assert agreement(whole) > before + 0.3, (before, agreement(whole))

    checkpoints = []
    first = fresh()
    fit_network(first, encoded, epochs=1, batch_size=16, learning_rate=3e-3, seed=5,
                on_epoch=checkpoints.append)
    resumed = fresh()
    resumed.load_state_dict(first.state_dict())
    saved = checkpoints[0]
    assert saved["epoch"] == 1
    fit_network(resumed, encoded, epochs=40, batch_size=16, learning_rate=3e-3, seed=5,
                resume={**saved, "generator": json.loads(json.dumps(saved["generator"]))})
    for name, tensor in whole.state_dict().items():
        assert torch.equal(tensor, resumed.state_dict()[name]), name
