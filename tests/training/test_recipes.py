"""Training recipes (`suburbia train --recipe`): recipes are checked with errors naming
the problem; a run killed with SIGKILL in the middle of a stage goes on from its last
checkpoint when started again and ends with the same demonstrations, byte for byte; a
tampered or missing output is made again; the progress line and its ETA come first; the
model card carries the run's own figures."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from training.progress import ProgressLine
from training.recipe import RecipeError, load_recipe, parse_recipe, recipe_names
from training.run_state import sha256_of

ROOT = Path(__file__).resolve().parents[2]

TINY = {
    "name": "tiny",
    "description": "A recipe small enough for the tests.",
    "seed": 3,
    "torch_threads": 1,
    "network": {"features_dim": 32, "net_arch": [16]},
    "stages": [
        {"name": "greedy-games", "kind": "record", "demonstrator": "greedy", "games": 40,
         "chunk_games": 4},
        {"name": "imitate", "kind": "fit", "demonstrations": ["greedy-games"], "epochs": 2,
         "gate": {"against": "dale", "games": 16, "seed": 6000, "min_win_rate": 0.0}},
        {"name": "ppo", "kind": "ppo",
         "settings": {"total_timesteps": 4096, "num_envs": 8, "n_steps": 32,
                      "batch_size": 128, "n_epochs": 1},
         "checkpoint_every": 256, "eval_every": 2048, "eval_games": 16},
        {"name": "final", "kind": "evaluate", "against": "dale", "games": 16, "seed": 0,
         "min_win_rate": 0.0},
    ],
}


def _parse(recipe: dict):
    return parse_recipe(json.loads(json.dumps(recipe)))


def _with_stage(index: int, **changes) -> dict:
    recipe = json.loads(json.dumps(TINY))
    recipe["stages"][index].update(changes)
    return recipe


# Parsing ---------------------------------------------------------------------------------------

def test_shipped_recipes_parse():
    shipped = ("dale", "multiplayer", "multiplayer-styles", "quickstart")
    assert set(shipped) <= set(recipe_names())
    for name in shipped:
        recipe = load_recipe(name)
        assert recipe.stages and recipe.sha256
    dale = load_recipe("dale")
    assert [stage.kind for stage in dale.stages] == ["record", "fit", "ppo", "record", "fit",
                                                     "evaluate", "record", "fit", "evaluate"]
    assert dale.stage("fit-search").gate.on_fail == "keep_better"
    assert dale.stage("fit-search-2").demonstrations == ("search-games", "search-games-2")
    assert dale.stage("after-round-1").gate.seed == dale.stage("final").gate.seed
    assert dale.stage("ppo-dale").gate.retry == {"settings": {"total_timesteps": 9000000}}
    styles = load_recipe("multiplayer-styles")
    assert styles.start == "recipe:multiplayer"
    assert [stage.kind for stage in styles.stages] == ["ppo", "evaluate", "evaluate"]
    # the finals are the multiplayer recipe's own, so the two runs compare game for game
    multiplayer = load_recipe("multiplayer")
    for name in ("final-2p", "final-4p"):
        assert styles.stage(name).gate == multiplayer.stage(name).gate


def test_the_goal_prior_recipe_trains_the_styles_stage_with_the_prior_inside():
    """multiplayer-goal-prior: the multiplayer-styles stage (4,000,000 steps instead of
    8,000,000) with the goal prior's tuned weight in the policy, then the same final
    games as multiplayer-styles, held to issue 32's targets (0.85 and 0.60)."""
    from agents.goal_prior import GOAL_WEIGHT
    recipe, styles = load_recipe("multiplayer-goal-prior"), load_recipe("multiplayer-styles")
    assert recipe.start == "recipe:multiplayer-styles"
    assert [stage.kind for stage in recipe.stages] == ["ppo", "evaluate", "evaluate"]
    settings = dict(recipe.stage("ppo-goal-prior").settings)
    assert settings.pop("goal_prior_weight") == GOAL_WEIGHT
    assert settings.pop("total_timesteps") == 4_000_000
    assert settings.pop("observation_size") == 8714
    expected = dict(styles.stage("ppo-vs-styles").settings)
    expected.pop("total_timesteps")
    assert settings == expected
    for name, target in (("final-2p", 0.85), ("final-4p", 0.60)):
        gate, other = recipe.stage(name).gate, styles.stage(name).gate
        assert (gate.against, gate.players, gate.games, gate.seed) == (
            other.against, other.players, other.games, other.seed)
        assert gate.min_win_rate == target


def test_the_goal_chances_recipe_trains_the_goal_prior_stage_with_refit_chances():
    """multiplayer-goal-chances: the multiplayer-goal-prior stage again, from that recipe's
    model, its goal term reading the chances in the checked-in file (a valid table of the
    eight criteria, sharper on counts than the term's own), then the same final games."""
    from agents.one_ply import checked_goal_chances
    from suburbia_env.engine.constants import CRITERION_FEATURE_COUNT, NUM_CRITERIA
    from training.fast_ppo import goal_chances_of
    recipe, prior = load_recipe("multiplayer-goal-chances"), load_recipe("multiplayer-goal-prior")
    assert recipe.start == "recipe:multiplayer-goal-prior"
    assert [stage.kind for stage in recipe.stages] == ["ppo", "evaluate", "evaluate"]
    settings = dict(recipe.stage("ppo-goal-chances").settings)
    path = settings.pop("goal_chances")
    assert path == "training/recipes/data/goal-chances-against-goals.json"
    assert settings == dict(prior.stage("ppo-goal-prior").settings)
    fitted = json.loads((ROOT / path).read_text())["arguments"]
    assert (fitted["agent"], fitted["opponent"], fitted["games"], fitted["seed"]) == (
        "ppo:models/multiplayer-goal-prior.safetensors", "goals", "300", "9100000")
    chances = goal_chances_of(str(ROOT / path))
    assert chances.shape == (NUM_CRITERIA, 3)
    counts = chances[CRITERION_FEATURE_COUNT]
    assert counts[0] < 0.5 and counts[1] < 0.15  # the term's own spread: 0.5 + 0.15 a turn
    released = json.loads((ROOT / "models" / "multiplayer-goal-chances.json").read_text())
    assert np.array_equal(checked_goal_chances(released["policy"]["goal_chances"]), chances)
    for name in ("final-2p", "final-4p"):
        assert recipe.stage(name).gate == prior.stage(name).gate


def test_the_quickstart_imitates_then_trains_with_the_fast_learner_then_evaluates():
    """The quickstart starts from nothing a fresh clone lacks, trains the fast network
    and ends with a checked evaluation on seeds apart from every recorded game (2**32
    up) and from those its settings were tuned on (6000..6399, docs/performance.md)."""
    from training.recipe_runner import plan
    quickstart = load_recipe("quickstart")
    assert quickstart.start == "none" and quickstart.torch_threads == 1
    assert [stage.kind for stage in quickstart.stages] == ["record", "fit", "ppo", "evaluate"]
    assert quickstart.stages[1].learner == quickstart.stages[2].learner == "fast"
    assert quickstart.stage("greedy-games").demonstrator == "greedy"
    final = quickstart.stages[-1].gate
    assert final.against == "dale" and final.min_win_rate == 0.6 and final.games >= 1000
    assert not set(range(final.seed, final.seed + final.games)) & set(range(6000, 6400))
    assert "suburbia train --recipe dale" in quickstart.next
    lines = plan(quickstart, 0, "none")
    assert [line.split("]")[0].strip() for line in lines[1:5]] == [
        "1. greedy-games [record", "2. imitate-greedy [fit", "3. ppo-dale [ppo",
        "4. final [evaluate"]
    fit, ppo = quickstart.stage("imitate-greedy"), quickstart.stage("ppo-dale")
    assert f"{fit.epochs} epochs on greedy-games (fast)" in lines[2]
    assert f"{ppo.settings['total_timesteps']:,} steps (fast)" in lines[3]
    assert f"{final.games} games against dale" in lines[4]
    assert lines[-1].startswith("  about ") and "on the project's 2-core machine" in lines[-1]


def test_a_fit_names_a_known_learner():
    with pytest.raises(RecipeError) as error:
        _parse(_with_stage(1, learner="abacus"))
    assert "'imitate'" in str(error.value) and "unknown learner 'abacus'" in str(error.value)
    assert _parse(_with_stage(1, learner="fast")).stage("imitate").learner == "fast"


@pytest.mark.parametrize("change, words", [
    (_with_stage(1, kind="distil"), ["stage 2", "unknown stage kind 'distil'", "record, fit"]),
    (_with_stage(1, demonstrations=["no-such-games"]),
     ["'imitate'", "missing input", "'no-such-games'", "greedy-games"]),
    (_with_stage(2, model="stage:nowhere"), ["'ppo'", "missing input", "stage:nowhere"]),
    (_with_stage(1, gate={"against": "dale", "min_win_rate": 1.5}),
     ["'imitate'", "gate", "min_win_rate", "threshold", "0..1", "1.5"]),
    (_with_stage(1, gate={"against": "dale", "min_win_rate": "high"}),
     ["min_win_rate", "'high'"]),
    (_with_stage(1, gate={"against": "dale", "games": 10}), ["gate needs min_win_rate"]),
    (_with_stage(1, gate={"against": "dale", "min_win_rate": 0.5, "on_fail": "pray"}),
     ["on_fail", "stop, retry, keep_input, keep_better", "'pray'"]),
    (_with_stage(1, gate={"against": "dale", "min_win_rate": 0.5, "on_fail": "retry",
                          "retry": {"games": 3}}),
     ["retry cannot change 'games'", "epochs"]),
    (_with_stage(1, gate={"against": "bob", "min_win_rate": 0.5}), ["'against'", "'bob'"]),
    (_with_stage(0, games=0), ["'greedy-games'", "games", "1..", "not 0"]),
    (_with_stage(0, colour="red"), ["unknown field 'colour'"]),
    (_with_stage(0, opponents=["greedy"] * 4), ["opponents", "0 to 3"]),
    (_with_stage(2, settings={"total_timesteps": 100, "learning_rate": 7}),
     ["'ppo'", "--learning-rate", "0..1", "7"]),
    (_with_stage(2, settings={"total_timesteps": 100, "warp": 9}), ["unknown option 'warp'"]),
    (_with_stage(2, settings={"total_timesteps": 100, "seed": 9}),
     ["seed belong to the recipe"]),
    (_with_stage(2, learner="warp-drive"), ["unknown learner 'warp-drive'", "sb3"]),
    (_with_stage(1, name="greedy-games"), ["'greedy-games' is used by an earlier stage"]),
    ({**TINY, "stages": []}, ["'stages' must be a non-empty list"]),
])
def test_bad_recipes_are_refused_naming_the_problem(change, words):
    with pytest.raises(RecipeError) as error:
        _parse(change)
    for word in words:
        assert word in str(error.value), (word, str(error.value))


def test_the_example_recipe_of_models_readme_parses():
    text = (ROOT / "models" / "README.md").read_text()
    section = text[text.index("## Recipes"):]
    example = section[section.index("```json") + len("```json"):]
    recipe = parse_recipe(json.loads(example[:example.index("```")]))
    assert [stage.kind for stage in recipe.stages] == ["record", "fit", "ppo", "evaluate"]


def test_unknown_recipe_through_the_command(capsys):
    from suburbia_env.apps.cli import main
    status = main(["train", "--recipe", "no-such-recipe"])
    assert status == 2
    message = capsys.readouterr().err
    assert "no recipe 'no-such-recipe'" in message and "dale" in message


def test_a_missing_start_model_is_named_before_anything_runs(tmp_path, monkeypatch, capsys):
    from suburbia_env.apps.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--recipe", "multiplayer", "--start", "recipe:dale"]) == 2
    message = capsys.readouterr().err
    assert "runs/dale/model.safetensors does not exist" in message
    assert "suburbia train --recipe dale" in message
    assert not (tmp_path / "runs").exists()
    assert main(["train", "--recipe", "multiplayer", "--start", "previous"]) == 2
    assert "is no model reference" in capsys.readouterr().err


def test_demonstration_files_are_the_same_bytes_for_the_same_games(tmp_path):
    from training.recipe_runner import read_npz, write_npz
    arrays = {"states": np.arange(12, dtype=np.int32).reshape(3, 4),
              "actions": np.array([5, 1, 7]), "returns": np.array([0.5, -0.25, 1.0])}
    write_npz(tmp_path / "a.npz", arrays)
    time.sleep(1.1)  # np.savez would stamp another time into the archive
    write_npz(tmp_path / "b.npz", arrays)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    loaded = read_npz(tmp_path / "a.npz")
    for name, array in arrays.items():
        assert np.array_equal(loaded[name], array) and loaded[name].dtype == array.dtype
    from training.imitation import load_demonstrations
    assert len(load_demonstrations(str(tmp_path / "a.npz"))["actions"]) == 3


def test_bad_json_names_the_file(tmp_path, capsys):
    from suburbia_env.apps.cli import main
    path = tmp_path / "broken.json"
    path.write_text('{"stages": [')
    assert main(["train", "--recipe", str(path)]) == 2
    assert f"{path}: not valid JSON" in capsys.readouterr().err


def test_same_seed_same_plan_other_seed_other_seeds(capsys):
    from training.recipe_runner import main
    outputs = []
    for seed in (5, 5, 6):
        assert main(["--recipe", "dale", "--seed", str(seed), "--plan"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert outputs[0] != outputs[2]
    assert "seed 5" in outputs[0] and "ppo-dale [ppo]" in outputs[0]


def test_progress_line_redraws_in_place_on_a_terminal():
    stream = io.StringIO()
    progress = ProgressLine(stream, tty=True)
    progress.stage("tiny 1/2 games", "games", 100, 0, 50.0, 20.0)
    time.sleep(0.25)  # the line is redrawn at most 5 times a second
    progress.update(25)
    progress.close()
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert "\r[tiny 1/2 games] 0/100 games (0%), stage ETA ~50s, run ETA ~1m10s" in text
    assert "\r[tiny 1/2 games] 25/100 games (25%), stage ETA " in text


@pytest.mark.slow
def test_fit_resumed_after_an_epoch_equals_an_uninterrupted_fit():
    """Per-epoch checkpoints (training/imitation.py pretrain): weights, optimizer and
    shuffling restored give the same weights as a fit that never stopped."""
    import torch
    from training.config import TrainingConfig
    from training.imitation import _play_demonstrations, pretrain
    from training.train import make_environment, new_model
    torch.set_num_threads(1)
    states, actions, returns, _ = _play_demonstrations((10, 2, "2nd", "greedy", ()))
    data = {"states": states, "actions": actions, "returns": returns}
    config = TrainingConfig(num_envs=2, features_dim=16, net_arch=[8], seed=4)

    def fresh():
        return new_model(config, make_environment(config))

    whole = fresh()
    pretrain(whole, data, epochs=3, batch_size=16, seed=4)
    checkpoints = []
    first = fresh()
    pretrain(first, data, epochs=1, batch_size=16, seed=4, on_epoch=checkpoints.append)
    resumed = fresh()
    resumed.policy.load_state_dict(first.policy.state_dict())
    saved = checkpoints[0]
    assert saved["epoch"] == 1
    pretrain(resumed, data, epochs=3, batch_size=16, seed=4,
             resume={**saved, "generator": json.loads(json.dumps(saved["generator"]))})
    for name, tensor in whole.policy.state_dict().items():
        assert torch.equal(tensor, resumed.policy.state_dict()[name]), name
    assert not torch.equal(first.policy.state_dict()["action_net.weight"],
                           whole.policy.state_dict()["action_net.weight"])


# Whole runs in a real process ---------------------------------------------------------------------

def _command(recipe_path: Path, run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "suburbia_env.apps.cli", "train", "--recipe", str(recipe_path),
            "--run-dir", str(run_dir), *extra]


def _environment() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", "SUBURBIA_DEBUG": "1"}


def _events(run_dir: Path) -> list[dict]:
    path = run_dir / "log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run_until(command: list[str], run_dir: Path, stop, timeout: float = 300):
    """Start the command; SIGKILL it once stop(events) holds. Returns its stdout lines."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=_environment(), text=True, cwd=run_dir.parent)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if stop(_events(run_dir)):
                process.send_signal(signal.SIGKILL)
                break
            if process.poll() is not None:
                raise AssertionError(f"the run ended before it could be killed: "
                                     f"{process.stderr.read()[-2000:]}")
            time.sleep(0.05)
        else:
            raise AssertionError("the run never reached the point to kill it")
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    return output.splitlines()


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, env=_environment(),
                          cwd=cwd, timeout=600)


KILLED_GAMES, KILLED_STEPS = 80, 8192


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory):
    """The tiny recipe, with 20 chunks to record and 8,192 PPO steps so that a kill seen
    late on a loaded machine still lands inside the stage, killed twice with SIGKILL (in
    the recording, then in PPO after a checkpoint) and started again each time with the
    same command until it completes."""
    folder = tmp_path_factory.mktemp("recipe")
    recipe_path = folder / "tiny.json"
    recipe = json.loads(json.dumps(TINY))
    recipe["stages"][0]["games"] = KILLED_GAMES
    recipe["stages"][2]["settings"]["total_timesteps"] = KILLED_STEPS
    recipe["stages"][2]["eval_every"] = KILLED_STEPS // 2
    recipe_path.write_text(json.dumps(recipe, indent=1))
    run_dir = folder / "run"
    command = _command(recipe_path, run_dir)
    first_lines = _run_until(command, run_dir, lambda events: sum(
        event["event"] == "chunk_done" for event in events) >= 3)
    state_after_kill = json.loads((run_dir / "state.json").read_text())
    second_lines = _run_until(command, run_dir, lambda events: any(
        event["event"] == "checkpoint" and event["stage"] == "ppo" and event["steps"] >= 512
        for event in events))
    state_after_second_kill = json.loads((run_dir / "state.json").read_text())
    finished = _run(command, folder)
    assert finished.returncode == 0, finished.stderr[-3000:]
    return {"folder": folder, "run_dir": run_dir, "recipe": recipe_path, "command": command,
            "first_lines": first_lines, "second_lines": second_lines,
            "state_after_kill": state_after_kill,
            "state_after_second_kill": state_after_second_kill, "finished": finished}


def _reference_demonstrations(seed: int, index: int, games: int, chunk: int) -> str:
    """The SHA-256 of the demonstrations an uninterrupted recording writes."""
    from training.imitation import _play_demonstrations
    from training.recipe_runner import record_first_seed, write_npz
    first = record_first_seed(seed, index)
    parts = [_play_demonstrations((first + start, min(chunk, games - start), "2nd", "greedy",
                                   ())) for start in range(0, games, chunk)]
    arrays = {name: np.concatenate([part[position] for part in parts])
              for position, name in enumerate(("states", "actions", "returns"))}
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"reference-{os.getpid()}.npz"
    write_npz(path, arrays)
    digest = sha256_of(path)
    path.unlink()
    return digest


@pytest.mark.slow
def test_a_killed_run_resumes_and_ends_with_the_same_demonstrations(killed_run):
    run_dir = killed_run["run_dir"]
    events = _events(run_dir)
    sessions = [i for i, event in enumerate(events) if event["event"] == "session_started"]
    assert len(sessions) == 3
    # The first kill came mid-recording: some chunks were done, not all.
    recorded = killed_run["state_after_kill"]["stages"]["greedy-games"]
    assert recorded["status"] == "running" and 3 <= len(recorded["chunks"]) < 20
    # The second session went on from those chunks instead of starting over.
    second = events[sessions[1]:sessions[2]]
    resumed = [event for event in second if event["event"] == "stage_resumed"]
    assert resumed and resumed[0]["stage"] == "greedy-games"
    assert resumed[0]["chunks_done"] >= len(recorded["chunks"])
    redone = [event["chunk"] for event in second if event["event"] == "chunk_done"]
    assert redone and min(redone) >= resumed[0]["chunks_done"]
    # The second kill came in PPO after a checkpoint; the third session resumed there.
    ppo_state = killed_run["state_after_second_kill"]["stages"]["ppo"]
    assert ppo_state["status"] == "running" and ppo_state["steps"] >= 512
    third = events[sessions[2]:]
    skipped = {event["stage"] for event in third if event["event"] == "stage_skipped"}
    assert {"greedy-games", "imitate"} <= skipped
    ppo_resumed = [event for event in third
                   if event["event"] == "stage_resumed" and event["stage"] == "ppo"]
    assert ppo_resumed and ppo_resumed[0]["steps"] >= 512
    checkpoints = [event["steps"] for event in third if event["event"] == "checkpoint"]
    assert min(checkpoints) > ppo_resumed[0]["steps"] and max(checkpoints) == KILLED_STEPS
    # Completed, with the demonstrations of an uninterrupted recording, byte for byte.
    state = json.loads((run_dir / "state.json").read_text())
    assert state["status"] == "complete" and state["env_steps"] == KILLED_STEPS
    demonstrations = run_dir / state["stages"]["greedy-games"]["demonstrations"]
    assert sha256_of(demonstrations) == _reference_demonstrations(3, 0, KILLED_GAMES, 4)
    assert state["final"]["sha256"] == sha256_of(run_dir / "model.safetensors")


@pytest.mark.slow
def test_progress_and_eta_come_first(killed_run):
    lines = killed_run["first_lines"]
    assert lines[0] == f"suburbia train --recipe {killed_run['recipe']}: reading the recipe"
    # First the kernels (compiled once per installation, else loaded), then the stages.
    assert lines[1].startswith(("[tiny kernels] 0/2 parts (0%), stage ETA ~",
                                "[tiny] compiling the game's kernels (numba)"))
    assert "run ETA ~" in lines[1] or "run ETA ~" in lines[2]
    first_stage = next(line for line in lines if line.startswith("[tiny 1/4 "))
    assert first_stage.startswith(f"[tiny 1/4 greedy-games] 0/{KILLED_GAMES} games (0%), "
                                  f"stage ETA ~")
    assert "run ETA ~" in first_stage
    # Each later session shows where it goes on from at once, after the kernels load.
    assert any(line.startswith("[tiny 1/4 greedy-games] ") and "ETA" in line
               for line in killed_run["second_lines"][:8])


@pytest.mark.slow
def test_the_run_folder_and_the_model_card_hold_the_run(killed_run):
    run_dir = killed_run["run_dir"]
    state = json.loads((run_dir / "state.json").read_text())
    for name in ("log.jsonl", "evaluations.jsonl", "evaluations.csv", "learning_curve.png",
                 "MODEL_CARD.md", "model.safetensors", "model.json"):
        assert (run_dir / name).is_file(), name
    assert (run_dir / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = [json.loads(line) for line in (run_dir / "evaluations.jsonl").read_text()
            .splitlines()]
    assert [row["purpose"] for row in rows] == ["gate", "periodic", "evaluation"]
    assert rows[1]["env_steps"] == KILLED_STEPS // 2 and rows[2]["env_steps"] == KILLED_STEPS
    csv_lines = (run_dir / "evaluations.csv").read_text().splitlines()
    assert len(csv_lines) == 4 and csv_lines[0].startswith("stage,attempt,purpose,against")
    card = (run_dir / "MODEL_CARD.md").read_text()
    for row in rows:
        figure = (f"{row['win_rate']:.3f} [{row['win_rate_low']:.3f}, "
                  f"{row['win_rate_high']:.3f}]")
        assert figure in card
        assert f"{row['games']:,} ({row['seed']}..{row['seed'] + row['games'] - 1})" in card
    assert state["final"]["sha256"] in card
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    assert f"git commit `{commit}`" in card
    import torch
    assert f"torch {torch.__version__}" in card
    assert f"{os.cpu_count()} cores" in card
    for name, seed in state["provenance"]["stage_seeds"].items():
        assert f"`{name}`" in card
        assert f"seed {seed}" in card
    assert f"wall time {state['stages']['greedy-games']['wall_seconds'] / 60:.1f} min" in card
    assert "python -m training.imitation" in card and "--pretrain-epochs 2" in card
    assert "python -m training.evaluation" in card
    assert "3 session(s)" in card
    assert "bit-identical" in card
    log = _events(run_dir)
    assert {"session_started", "chunk_done", "epoch_done", "checkpoint", "evaluation",
            "stage_done", "run_complete"} <= {event["event"] for event in log}
    assert all(isinstance(event["time"], float) for event in log)


@pytest.mark.slow
def test_a_tampered_or_missing_output_is_made_again(killed_run):
    run_dir, folder = killed_run["run_dir"], killed_run["folder"]
    state = json.loads((run_dir / "state.json").read_text())
    demonstrations = run_dir / state["stages"]["greedy-games"]["demonstrations"]
    original = sha256_of(demonstrations)
    data = bytearray(demonstrations.read_bytes())
    data[len(data) // 2] ^= 0xFF
    demonstrations.write_bytes(bytes(data))
    (run_dir / "stages" / "04-final" / "evaluation.json").unlink()
    before = len(_events(run_dir))
    again = _run(killed_run["command"], folder)
    assert again.returncode == 0, again.stderr[-3000:]
    events = _events(run_dir)[before:]
    redone = {event["stage"] for event in events if event["event"] == "stage_redone"}
    skipped = {event["stage"] for event in events if event["event"] == "stage_skipped"}
    assert redone == {"greedy-games", "final"}
    # The same games again: the fit and PPO inputs are unchanged, so they stay done.
    assert sha256_of(demonstrations) == original
    assert skipped == {"imitate", "ppo"}
    # Run again untouched: everything is skipped.
    before = len(_events(run_dir))
    assert _run(killed_run["command"], folder).returncode == 0
    events = _events(run_dir)[before:]
    assert {event["stage"] for event in events if event["event"] == "stage_skipped"} == \
        {"greedy-games", "imitate", "ppo", "final"}
    # Another seed in the same folder is refused, naming the difference.
    other = _run(killed_run["command"] + ["--seed", "4"], folder)
    assert other.returncode == 2 and "--seed differs" in other.stderr


@pytest.mark.slow
def test_keep_better_passes_on_the_model_that_won_more(tmp_path):
    gate = {"against": "greedy", "players": 2, "games": 30, "seed": 6000,
            "min_win_rate": 1.0, "on_fail": "keep_better"}
    recipe = {
        "name": "better", "seed": 2, "torch_threads": 1,
        "network": {"features_dim": 16, "net_arch": [8]},
        "stages": [
            {"name": "games", "kind": "record", "demonstrator": "greedy", "games": 6,
             "chunk_games": 3},
            {"name": "plain", "kind": "fit", "demonstrations": ["games"], "epochs": 1},
            {"name": "judged", "kind": "fit", "demonstrations": ["games"], "epochs": 2,
             "gate": gate},
            {"name": "judged-again", "kind": "fit", "demonstrations": ["games"], "epochs": 2,
             "gate": gate},
        ]}
    recipe_path = tmp_path / "better.json"
    recipe_path.write_text(json.dumps(recipe))
    run_dir = tmp_path / "run"
    result = _run(_command(recipe_path, run_dir), tmp_path)
    assert result.returncode == 0, result.stderr
    stages = json.loads((run_dir / "state.json").read_text())["stages"]
    rows = [json.loads(line) for line in (run_dir / "evaluations.jsonl").read_text()
            .splitlines()]
    # The plain fit was never evaluated, so its result on the gate's games is played once;
    # the second judged stage's input was, so its row is taken from the history.
    assert [(row["stage"], row["purpose"]) for row in rows] == \
        [("judged", "gate"), ("judged", "input"), ("judged-again", "gate")]
    assert rows[1]["model"] == stages["plain"]["model"]
    for stage, gate_row, input_row in (("judged", rows[0], rows[1]),
                                       ("judged-again", rows[2], None)):
        record = stages[stage]
        if input_row is None:
            input_row = next(row for row in rows[:2]
                             if row["model"] == stages["judged"]["model"])
        assert record["input_gate"]["win_rate"] == input_row["win_rate"]
        output_won_more = gate_row["win_rate"] > input_row["win_rate"]
        assert record["model"] == (gate_row["model"] if output_won_more
                                   else input_row["model"])
        assert ("beat its input" in record["note"]) == output_won_more


@pytest.mark.slow
def test_gates_keep_the_input_retry_then_stop(tmp_path):
    recipe = {
        "name": "gated", "seed": 1, "torch_threads": 1,
        "network": {"features_dim": 16, "net_arch": [8]},
        "stages": [
            {"name": "games", "kind": "record", "demonstrator": "greedy", "games": 6,
             "chunk_games": 3},
            {"name": "first-fit", "kind": "fit", "demonstrations": ["games"], "epochs": 1},
            {"name": "hopeless", "kind": "fit", "demonstrations": ["games"], "epochs": 1,
             "gate": {"against": "dale", "games": 24, "seed": 6000, "min_win_rate": 1.0,
                      "on_fail": "keep_input"}},
            {"name": "retried", "kind": "fit", "demonstrations": ["games"], "epochs": 1,
             "gate": {"against": "dale", "games": 24, "seed": 6000, "min_win_rate": 1.0,
                      "on_fail": "retry", "retry": {"epochs": 2}, "attempts": 2}},
            {"name": "never", "kind": "evaluate", "against": "dale", "games": 4, "seed": 0},
        ]}
    recipe_path = tmp_path / "gated.json"
    recipe_path.write_text(json.dumps(recipe))
    run_dir = tmp_path / "run"
    result = _run(_command(recipe_path, run_dir), tmp_path)
    assert result.returncode == 1
    assert "stage 'retried' after its last attempt: its model won" in result.stderr
    assert "under the threshold 1.00" in result.stderr
    state = json.loads((run_dir / "state.json").read_text())
    stages = state["stages"]
    assert stages["hopeless"]["status"] == "done"
    assert stages["hopeless"]["model"] == stages["first-fit"]["model"]
    assert "keep_input" in stages["hopeless"]["note"]
    assert stages["retried"]["status"] == "failed" and stages["retried"]["attempt"] == 2
    assert stages["retried"]["epochs_done"] == 2
    assert (run_dir / "stages" / "04-retried-attempt2" / "model.safetensors").is_file()
    assert "never" not in stages or stages["never"]["status"] == "pending"
    assert state["status"] == "stopped"
    gates = [json.loads(line) for line in (run_dir / "evaluations.jsonl").read_text()
             .splitlines()]
    assert [(row["stage"], row["attempt"], row["passed"]) for row in gates] == \
        [("hopeless", 1, False), ("retried", 1, False), ("retried", 2, False)]
    # Started again, it stops with the same message without training again.
    before = len(_events(run_dir))
    again = _run(_command(recipe_path, run_dir), tmp_path)
    assert again.returncode == 1 and "after its last attempt" in again.stderr
    assert not [event for event in _events(run_dir)[before:]
                if event["event"] in ("stage_started", "evaluation")]


@pytest.mark.slow
def test_a_recipe_of_the_fast_learner_runs_end_to_end(tmp_path):
    """A fast fit and fast PPO in a real run: the kernels are readied (with a line) before
    the first stage, the fit's model is the fast network, PPO starts from it, the final
    evaluation prints its Wilson interval and the recipe's next sentence ends the run."""
    from agents.model_format import load_safe_model
    from agents.networks import SparsePolicy
    recipe = {
        "name": "tiny-fast", "seed": 2, "torch_threads": 1,
        "next": "run the real thing.",
        "network": {"features_dim": 32, "net_arch": [16]},
        "stages": [
            {"name": "games", "kind": "record", "demonstrator": "greedy", "games": 6,
             "chunk_games": 3, "workers": 2},
            {"name": "imitate", "kind": "fit", "learner": "fast", "demonstrations": ["games"],
             "epochs": 2, "batch_size": 64},
            {"name": "ppo", "kind": "ppo", "learner": "fast",
             "settings": {"mode": "dale", "total_timesteps": 512, "num_envs": 8,
                          "n_steps": 32, "batch_size": 128, "n_epochs": 1},
             "checkpoint_every": 256},
            {"name": "final", "kind": "evaluate", "against": "dale", "games": 8, "seed": 0},
        ]}
    recipe_path = tmp_path / "tiny-fast.json"
    recipe_path.write_text(json.dumps(recipe))
    run_dir = tmp_path / "run"
    result = _run(_command(recipe_path, run_dir), tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    first = next(line for line in lines if line.startswith("[tiny-fast"))
    assert first.startswith("[tiny-fast kernels] 0/2 parts") or first.startswith(
        "[tiny-fast] compiling the game's kernels (numba) in 2 processes: once per installation")
    # The recording waits for the recording's kernels only; the training's may load or
    # compile beside it, but before the fit.
    ready = [index for index, line in enumerate(lines)
             if line.startswith(("[tiny-fast kernels] compiled ", "[tiny-fast kernels] loaded "))]
    every = [index for index in ready if " compiled in " in lines[index]
             or " loaded in " in lines[index]]
    assert len(every) == 1
    assert ready[0] < min(index for index, line in enumerate(lines)
                          if line.startswith("[tiny-fast 1/4 games]"))
    assert every[0] < min(index for index, line in enumerate(lines)
                          if line.startswith("[tiny-fast 2/4 imitate]"))
    assert any(line.startswith("[final] evaluation: win rate ") and "over 8 games against "
               "dale" in line for line in lines)
    assert lines[-1] == "Next: run the real thing."
    state = json.loads((run_dir / "state.json").read_text())
    fitted = run_dir / state["stages"]["imitate"]["model"]
    assert isinstance(load_safe_model(fitted).policy, SparsePolicy)
    assert len(state["stages"]["imitate"]["agreements"]) == 2
    assert isinstance(load_safe_model(run_dir / "model.safetensors").policy, SparsePolicy)
    events = _events(run_dir)
    assert [event["event"] for event in events].index("kernels_ready") < \
        [event["event"] for event in events].index("stage_started")
    card = (run_dir / "MODEL_CARD.md").read_text()
    assert "fit_network, 2 epochs, minibatches of 64" in card


@pytest.mark.slow
def test_the_kernels_count_as_compiled_only_when_the_warm_ups_own_are_cached(tmp_path):
    """A fresh installation (an empty numba cache) is told that the kernels compile; the
    few kernels importing the package compiles do not count as the warm-up's."""
    environment = {**_environment(), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def ask(code: str) -> list[str]:
        return subprocess.run([sys.executable, "-c", code], env=environment, text=True,
                              capture_output=True, check=True, timeout=600).stdout.split()

    cached = "from training.warm_up import kernels_cached; print(kernels_cached())"
    assert ask(cached) == ["False"]
    folders = ask("from suburbia_env.engine.kernel_cache import cache_directories, "
                  "kernel_source_dirs\nfor source in kernel_source_dirs(): "
                  "print(source.name, cache_directories(source)[0])")
    where = dict(zip(folders[::2], map(Path, folders[1::2])))
    assert all(folder.is_relative_to(tmp_path) for folder in where.values())
    assert ask(cached) == ["False"]
    (where["engine"] / "env_core.step_batch-1.py311.nbi").write_bytes(b"")
    assert ask(cached) == ["False"]
    where["agents"].mkdir(parents=True, exist_ok=True)
    (where["agents"] / "greedy.greedy_action-1.py311.nbi").write_bytes(b"")
    assert ask(cached) == ["True"]
