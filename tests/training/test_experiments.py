"""The experiment recipes of training/experiments (docs/yardsticks.md): each one runs as
its description says (it parses, its start model is in the repository), and a control
differs from its experiment only in what the experiment tests."""

import json
from pathlib import Path

import pytest

from training.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = sorted((ROOT / "training" / "experiments").glob("*.json"))


def test_there_are_experiments():
    assert {path.stem for path in EXPERIMENTS} >= {
        "goals-fit", "goal-races", "goal-races-control", "search-fit", "two-player-goal-racer",
        "win-loss-reward", "goal-prior-in-training", "goal-denial-in-training",
        "wider-goal-prior", "goal-shaping", "goal-racer-only"}


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda path: path.stem)
def test_an_experiment_parses_and_names_its_command(path):
    recipe = load_recipe(str(path))
    assert recipe.name == path.stem
    assert (ROOT / recipe.start).is_file(), recipe.start
    assert f"suburbia train --recipe training/experiments/{path.name}" in recipe.description


def test_the_goal_races_control_changes_only_the_observation_size():
    experiment = json.loads((ROOT / "training/experiments/goal-races.json").read_text())
    control = json.loads((ROOT / "training/experiments/goal-races-control.json").read_text())
    sizes = []
    for recipe in (experiment, control):
        recipe.pop("name"), recipe.pop("description")
        sizes.append(recipe["stages"][0]["settings"].pop("observation_size"))
    assert sizes == [8759, 8714]
    assert experiment == control


@pytest.mark.parametrize("name, changed", [
    ("two-player-goal-racer", {"players": [2, 2, 2, 3, 4], "style_share": 0.65,
                               "greedy_share": 0.3, "dale_share": 0.05,
                               "style_weights": [3, 1, 1, 1]}),
    ("win-loss-reward", {"reward": "win_loss"})])
def test_a_training_experiment_changes_only_what_it_tests(name, changed):
    """Each is measured against goal-races-control: same start, seed, steps and network."""
    control = json.loads((ROOT / "training/experiments/goal-races-control.json").read_text())
    experiment = json.loads((ROOT / f"training/experiments/{name}.json").read_text())
    settings = experiment["stages"][0]["settings"]
    assert {key: settings[key] for key in changed} == changed
    control["stages"][0]["settings"].update(changed)
    for recipe in (experiment, control):
        recipe.pop("name"), recipe.pop("description"), recipe["stages"][0].pop("name")
    assert experiment == control


def test_the_goal_prior_experiment_trains_the_controls_stage_with_the_prior_added():
    """Same start, seed, network, opponents and steps as goal-races-control; the goal
    prior's weight is the one tuned for ppo-goals (agents/goal_prior.py). Its model is
    measured as ppo-goals:MODEL outside the recipe, since an evaluate stage plays the
    network alone."""
    from agents.goal_prior import GOAL_WEIGHT
    control = json.loads((ROOT / "training/experiments/goal-races-control.json").read_text())
    experiment = json.loads(
        (ROOT / "training/experiments/goal-prior-in-training.json").read_text())
    stage = experiment["stages"][0]
    assert [one["kind"] for one in experiment["stages"]] == ["ppo"]
    assert stage["settings"].pop("goal_prior_weight") == GOAL_WEIGHT
    assert stage["settings"] == control["stages"][0]["settings"]
    for key in ("seed", "start", "torch_threads", "network"):
        assert experiment[key] == control[key]


def test_the_goal_denial_experiment_adds_only_the_denial_to_the_goal_prior_stage():
    """goal-denial-in-training trains the released multiplayer-goal-prior model on with
    the goal-prior experiment's stage, another seed and the denial of the goals as the
    only change to its settings."""
    prior = json.loads((ROOT / "training/experiments/goal-prior-in-training.json").read_text())
    denial = json.loads((ROOT / "training/experiments/goal-denial-in-training.json").read_text())
    assert denial["start"] == "models/multiplayer-goal-prior.safetensors"
    assert denial["stages"][0]["settings"].pop("goal_prior_denial") == 1.0
    for recipe in (prior, denial):
        for key in ("name", "description", "start", "seed"):
            recipe.pop(key)
    assert denial == prior


def test_the_wider_experiment_changes_only_the_network_size_and_start():
    """wider-goal-prior: the goal-prior experiment's stage from the released
    multiplayer-goal-prior model, widened (training.fast_ppo.load_initial_network)."""
    prior = json.loads((ROOT / "training/experiments/goal-prior-in-training.json").read_text())
    wider = json.loads((ROOT / "training/experiments/wider-goal-prior.json").read_text())
    assert wider["start"] == "models/multiplayer-goal-prior.safetensors"
    assert wider.pop("network") == {"features": "compact", "features_dim": 512,
                                    "net_arch": [256]}
    assert prior.pop("network")["features_dim"] == 256
    for recipe in (prior, wider):
        for key in ("name", "description", "start", "seed"):
            recipe.pop(key)
    assert wider == prior


def test_the_goal_shaping_experiment_adds_only_the_shaping_to_the_goal_prior_stage():
    """goal-shaping: the goal-prior experiment's stage from the released
    multiplayer-goal-prior model, another seed and the goal shaping as the only change."""
    prior = json.loads((ROOT / "training/experiments/goal-prior-in-training.json").read_text())
    shaping = json.loads((ROOT / "training/experiments/goal-shaping.json").read_text())
    assert shaping["start"] == "models/multiplayer-goal-prior.safetensors"
    assert shaping["stages"][0]["settings"].pop("goal_shaping") == 1.0
    for recipe in (prior, shaping):
        for key in ("name", "description", "start", "seed"):
            recipe.pop(key)
    assert shaping == prior


def test_the_goal_racer_only_experiment_changes_only_the_opponents():
    """goal-racer-only: the released multiplayer-goal-chances stage (its goal term and
    refit chances) from that model, every game a 2-player game against the goal racer:
    the opponents are the only change to the stage's settings. No gate; the tuning
    evaluations at 2 and 4 players instead of the recipe's finals."""
    recipe = json.loads(
        (ROOT / "training/recipes/multiplayer-goal-chances.json").read_text())
    racer = json.loads((ROOT / "training/experiments/goal-racer-only.json").read_text())
    assert racer["start"] == "models/multiplayer-goal-chances.safetensors"
    stage, released = racer["stages"][0], recipe["stages"][0]
    changed = {"players": [2], "greedy_share": 0.0, "style_share": 1.0, "dale_share": 0.0,
               "style_weights": [1, 0, 0, 0]}
    assert {key: stage["settings"].pop(key) for key in changed} == changed
    for key in ("players", "greedy_share", "style_share", "dale_share"):
        released["settings"].pop(key)
    assert stage["settings"] == released["settings"]
    assert stage["kind"] == released["kind"] == "ppo" and "gate" not in stage
    assert [(one["kind"], one["against"], one["players"], one["seed"])
            for one in racer["stages"][1:]] == [("evaluate", "greedy", 2, 5000000),
                                                 ("evaluate", "greedy", 4, 5100000)]
    assert racer["network"] == recipe["network"]
    assert racer["torch_threads"] == recipe["torch_threads"]
