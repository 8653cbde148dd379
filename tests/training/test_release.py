"""Released models (training/release.py): the repository's files match their list and the
README's table, and a complete recipe run is released with its card and SHA-256."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from training import release
from training.run_state import sha256_of

ROOT = Path(__file__).resolve().parents[2]

SMALL = {
    "name": "small", "seed": 5, "torch_threads": 1,
    "network": {"features_dim": 16, "net_arch": [8]},
    "stages": [
        {"name": "games", "kind": "record", "demonstrator": "greedy", "games": 6,
         "chunk_games": 3},
        {"name": "fit", "kind": "fit", "demonstrations": ["games"], "epochs": 1},
        {"name": "early", "kind": "evaluate", "against": "dale", "games": 8, "seed": 0},
        {"name": "more", "kind": "fit", "demonstrations": ["games"], "epochs": 1},
        {"name": "final", "kind": "evaluate", "against": "greedy", "players": 2, "games": 8,
         "seed": 0, "min_win_rate": 0.0},
    ]}


def test_the_repository_files_match_their_list_and_the_readme():
    assert release.check() == []
    listed = {file for entry in release.read_manifest()["models"].values()
              for file in entry["files"]}
    assert {path.name for path in (ROOT / "models").glob("*.safetensors")} <= listed


def _models_copy(tmp_path: Path) -> Path:
    models = tmp_path / "models"
    models.mkdir()
    shutil.copyfile(ROOT / "models" / "README.md", models / "README.md")
    (models / release.MANIFEST).write_text(json.dumps(
        {"format": "suburbia-released-models", "models": {}}))
    release.write_readme_table(models)
    return models


def _train(recipe: dict, run_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    path = run_dir.parent / f"{recipe['name']}.json"
    path.write_text(json.dumps(recipe))
    return subprocess.run(
        [sys.executable, "-m", "suburbia_env.apps.cli", "train", "--recipe", str(path),
         "--run-dir", str(run_dir), *extra], capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})


@pytest.mark.slow
def test_a_complete_run_is_released_and_an_unfinished_one_refused(tmp_path):
    run_dir = tmp_path / "run"
    assert _train(SMALL, run_dir).returncode == 0
    models = _models_copy(tmp_path)
    entry = release.release(run_dir, "small", models)
    state = json.loads((run_dir / "state.json").read_text())
    assert sha256_of(models / "small.safetensors") == state["final"]["sha256"]
    assert entry["files"]["small.safetensors"] == state["final"]["sha256"]
    assert entry["command"] == "suburbia train --recipe small --seed 5 --run-dir runs/small"
    # Only the released model's own evaluation is its strength, not the earlier stage's.
    assert [row["stage"] for row in entry["final_evaluations"]] == ["final"]
    final = json.loads((run_dir / "stages" / "05-final" / "evaluation.json").read_text())
    assert entry["final_evaluations"][0]["win_rate"] == final["win_rate"]
    card = (models / "cards" / "small.md").read_text()
    assert str(run_dir) not in card and "runs/small" in card
    assert release.check(models) == []
    readme = (models / "README.md").read_text()
    assert f"`small.safetensors` `{state['final']['sha256']}`" in readme
    assert f"{final['win_rate']:.3f}" in readme

    # A run started from another run's model names that run, its recipe and its command.
    follow = {"name": "follow", "seed": 1, "torch_threads": 1,
              "network": SMALL["network"],
              "stages": [{"name": "games", "kind": "record", "demonstrator": "greedy",
                          "games": 4, "chunk_games": 2},
                         {"name": "fit", "kind": "fit", "demonstrations": ["games"],
                          "epochs": 1},
                         {"name": "final", "kind": "evaluate", "against": "greedy",
                          "players": 2, "games": 4, "seed": 0}]}
    follow_dir = tmp_path / "follow"
    assert _train(follow, follow_dir, "--start",
                  str(run_dir / "model.safetensors")).returncode == 0
    followed = release.release(follow_dir, "follow", models)
    assert followed["start_sha256"] == state["final"]["sha256"]
    assert followed["start"] == "runs/small/model.safetensors"
    assert followed["start_run"]["recipe"] == "small" and followed["start_run"]["seed"] == 5
    assert followed["start_run"]["command"] == \
        "suburbia train --recipe small --seed 5 --run-dir runs/small"
    follow_card = (models / "cards" / "follow.md").read_text()
    assert str(tmp_path) not in follow_card and "runs/small/model.safetensors" in follow_card
    assert "after `suburbia train --recipe small --seed 5 --run-dir runs/small`" in \
        (models / "README.md").read_text()
    assert release.check(models) == []

    # A changed byte, a file nobody listed and a stale table are each named.
    data = bytearray((models / "small.safetensors").read_bytes())
    data[-1] ^= 1
    (models / "small.safetensors").write_bytes(bytes(data))
    shutil.copyfile(models / "small.json", models / "stray.json")
    shutil.copyfile(models / "small.safetensors", models / "stray.safetensors")
    (models / "README.md").write_text((models / "README.md").read_text().replace(
        state["final"]["sha256"], "0" * 64))
    problems = release.check(models)
    assert any(problem.startswith("small.safetensors's SHA-256") for problem in problems)
    assert "stray.safetensors is released but not listed in released.json" in problems
    assert any("table of released files" in problem for problem in problems)

    # A run whose final evaluation failed stops, and is not released.
    failing = json.loads(json.dumps(SMALL))
    failing["name"] = "failing"
    failing["stages"][-1]["min_win_rate"] = 1.0
    stopped = tmp_path / "stopped"
    assert _train(failing, stopped).returncode == 1
    with pytest.raises(release.ReleaseError, match="not complete"):
        release.release(stopped, "failing", models)
    assert release.main(["--models", str(models), str(stopped), "failing"]) == 2
    assert not (models / "failing.safetensors").exists()


@pytest.mark.slow
def test_two_runs_with_one_seed_are_identical_and_compare_as_such(tmp_path):
    """Same seed, same run (one torch thread, no kill): the same recorded games and weights,
    byte for byte, and the same evaluations; training.compare_runs says they agree."""
    from training import compare_runs
    recipe = json.loads(json.dumps(SMALL))
    recipe["stages"].insert(2, {
        "name": "ppo", "kind": "ppo", "checkpoint_every": 256, "eval_every": 512,
        "eval_games": 8, "settings": {"total_timesteps": 1024, "num_envs": 8, "n_steps": 32,
                                      "batch_size": 128, "n_epochs": 1}})
    for name in ("a", "b"):
        assert _train(recipe, tmp_path / name).returncode == 0
    result = compare_runs.compare(tmp_path / "a", tmp_path / "b")
    assert result["agree"] and result["only_a"] == result["only_b"] == 0
    assert [row["a"] for row in result["evaluations"]] == \
        [row["b"] for row in result["evaluations"]]
    assert all(row["same_model"] for row in result["evaluations"])
    assert set(result["identical_outputs"]) == {"games", "fit", "ppo", "more"}
    assert all(result["identical_outputs"].values())
    assert compare_runs.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    # Another seed records other games: the comparison names the outputs that differ.
    assert _train(recipe, tmp_path / "c", "--seed", "6").returncode == 0
    other = compare_runs.compare(tmp_path / "a", tmp_path / "c")
    assert other["identical_outputs"]["games"] is False
    assert not any(row["same_model"] for row in other["evaluations"])


def test_a_released_recipe_model_is_what_its_recipe_makes_today():
    """A model released from a run names its recipe, and that recipe file is unchanged
    since (else `suburbia train --recipe NAME` no longer makes the released file)."""
    from training.recipe import load_recipe
    from agents import PPOAgent
    from suburbia_env import Game
    released = {name: entry for name, entry in release.read_manifest()["models"].items()
                if entry.get("recipe")}
    assert "dale" in released
    for name, entry in released.items():
        assert load_recipe(entry["recipe"]).sha256 == entry["recipe_sha256"], name
        description = json.loads((ROOT / "models" / f"{name}.json").read_text())
        assert description["training"]["recipe"] == entry["recipe"]
        assert description["weights"]["sha256"] == entry["files"][f"{name}.safetensors"]
    agent = PPOAgent(ROOT / "models" / "dale.safetensors")
    game = Game(1, "dale", seed=21)
    while not game.is_over:
        game.apply(agent.act(game))
    assert game.winners in ([0], [1], [0, 1])
