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
    assert {path.stem for path in EXPERIMENTS} >= {"goals-fit", "goal-races",
                                                   "goal-races-control"}


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
