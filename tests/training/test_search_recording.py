"""Recording a search demonstrator's games many at a time (agents/lockstep.py,
training/imitation.py `LOCKSTEP_GAMES`): the demonstrations are those of the games
recorded one after another, byte for byte, whatever the number played together; a
recipe's recording killed with SIGKILL goes on from its chunks and ends with them."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.lockstep import LockstepPolicy, play_in_lockstep
from agents.model_format import save_safe_model
from agents.networks import SparseActorCritic, SparsePolicy
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.observation import OBSERVATION_SIZE
from training.imitation import _play_games
from training.run_state import sha256_of


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    """A small network of the fast learner with seeded weights."""
    network = SparseActorCritic(32, (16,))
    network.initialize(torch.Generator().manual_seed(11))
    path = tmp_path_factory.mktemp("model") / "tiny.safetensors"
    save_safe_model(SparsePolicy(network), path, 0.99, None)
    return str(path)


def _same(first: tuple, second: tuple) -> None:
    for mine, theirs in zip(first[:3], second[:3]):
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
        assert mine.tobytes() == theirs.tobytes()
    assert first[3] == second[3]


class _CountingPolicy:
    """A real policy that counts its forward passes."""

    def __init__(self, policy):
        self.policy, self.passes = policy, 0

    def get_distribution(self, observations, action_masks):
        self.passes += 1
        return self.policy.get_distribution(observations, action_masks=action_masks)


def test_merged_passes_answer_each_game_as_alone(tiny_model):
    """Five tasks asking three distributions each: three merged passes, each task's
    answer the probabilities its rows get alone."""
    from agents.ppo_agent import load_model
    counting = _CountingPolicy(load_model(tiny_model).policy)
    generator = np.random.default_rng(4)
    inputs = []
    for task in range(5):
        rows = 1 + task
        observations = (generator.random((rows, OBSERVATION_SIZE)) < 0.02).astype(np.float32)
        masks = generator.random((rows, NUM_ACTIONS)) < 0.05
        masks[:, 7] = True
        inputs.append((torch.from_numpy(observations), masks))

    def task(index: int):
        policy = LockstepPolicy(counting)
        return [policy.get_distribution(*inputs[index]).distribution.probs for _ in range(3)]

    answers = play_in_lockstep([lambda index=index: task(index) for index in range(5)], 5)
    assert counting.passes == 3
    for (observations, masks), answer in zip(inputs, answers):
        with torch.no_grad():
            alone = counting.policy.get_distribution(observations, action_masks=masks)
        for probabilities in answer:
            assert torch.equal(probabilities, alone.distribution.probs)


def test_games_paused_inside_no_grad_leave_the_grad_mode_as_it_was(tiny_model):
    """torch's grad mode belongs to the thread: games that pause inside their `no_grad`
    blocks, in interleaved order, neither leave it off for the caller nor see another
    game's mode (the leak once turned off gradients for every later test)."""
    from agents.ppo_agent import load_model
    policy = load_model(tiny_model).policy
    observations = torch.zeros((1, OBSERVATION_SIZE))
    masks = np.ones((1, NUM_ACTIONS), dtype=bool)
    seen = []

    def task(grad_inside: bool):
        lockstep = LockstepPolicy(policy)
        with torch.set_grad_enabled(grad_inside):
            for _ in range(2):
                lockstep.get_distribution(observations, masks)
                seen.append((grad_inside, torch.is_grad_enabled()))
        return torch.is_grad_enabled()

    for outer in (True, False):
        seen.clear()
        with torch.set_grad_enabled(outer):
            after = play_in_lockstep([lambda: task(False), lambda: task(True),
                                      lambda: task(False)], 3)
            assert torch.is_grad_enabled() is outer
        assert after == [outer] * 3
        assert len(seen) == 6 and all(inside == mode for inside, mode in seen)
    assert torch.is_grad_enabled()


def test_a_task_that_raises_stops_the_lockstep_with_its_error():
    def failing():
        raise RuntimeError("seat 3 exploded")
    with pytest.raises(RuntimeError, match="seat 3 exploded"):
        play_in_lockstep([lambda: 1, failing, lambda: 2], 2)


@pytest.mark.slow
def test_dale_games_together_equal_games_one_at_a_time(tiny_model):
    """The search against Dale (R9.2): 1 (today's recorder, the plain policy), 2 and 4
    games at a time give the same demonstrations, byte for byte."""
    spec = f"ppo-rollout:{tiny_model},3,2"
    alone = _play_games(900, 4, "2nd", spec, (), 1)
    assert len(alone[1]) > 60
    for lockstep in (4, 2):
        _same(_play_games(900, 4, "2nd", spec, (), lockstep), alone)


@pytest.mark.slow
def test_standard_games_together_equal_games_one_at_a_time(tiny_model):
    """2-player games against greedy, with the inferred opponent model (the other seat's
    moves observed, the safe model drawing from the search's generator): the same."""
    spec = f"ppo-rollout:{tiny_model},2,2"
    alone = _play_games(40, 3, "2nd", spec, ("greedy",), 1)
    _same(_play_games(40, 3, "2nd", spec, ("greedy",), 3), alone)


@pytest.mark.slow
def test_a_killed_search_recording_resumes_from_its_chunks(tiny_model, tmp_path):
    """A recipe's search recording killed with SIGKILL after its first chunk goes on from
    there and ends with the demonstrations of games recorded one at a time."""
    from tests.training.test_recipes import _command, _events, _run, _run_until
    from training.recipe_runner import record_first_seed, write_npz
    recipe = {"name": "search-recording", "seed": 5, "torch_threads": 1,
              "stages": [{"name": "search-games", "kind": "record", "model": tiny_model,
                          "demonstrator": "ppo-rollout:{model},2,2", "games": 6,
                          "chunk_games": 2, "workers": 1}]}
    recipe_path = tmp_path / "search.json"
    recipe_path.write_text(json.dumps(recipe))
    run_dir = tmp_path / "run"
    command = _command(recipe_path, run_dir)
    _run_until(command, run_dir, lambda events: any(
        event["event"] == "chunk_done" for event in events), timeout=600)
    killed = json.loads((run_dir / "state.json").read_text())["stages"]["search-games"]
    assert killed["status"] == "running" and 1 <= len(killed["chunks"]) < 3
    finished = _run(command, tmp_path)
    assert finished.returncode == 0, finished.stderr[-3000:]
    events = _events(run_dir)
    resumed = [event for event in events if event["event"] == "stage_resumed"]
    assert resumed and resumed[0]["chunks_done"] == len(killed["chunks"])
    state = json.loads((run_dir / "state.json").read_text())
    first = record_first_seed(5, 0)
    parts = [_play_games(first + start, 2, "2nd", f"ppo-rollout:{tiny_model},2,2", (), 1)
             for start in range(0, 6, 2)]
    reference = tmp_path / "reference.npz"
    write_npz(reference, {name: np.concatenate([part[position] for part in parts])
                          for position, name in enumerate(("states", "actions", "returns"))})
    demonstrations = run_dir / state["stages"]["search-games"]["demonstrations"]
    assert sha256_of(demonstrations) == sha256_of(reference)
