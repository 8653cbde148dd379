"""Every id results are reported under names the rules version (versions.py, RULES.md
"Revisions"): the Gymnasium id, the PettingZoo name, the file formats, the docstrings."""

import dataclasses
import json
import re

import gymnasium as gym
import pytest
from gymnasium.error import DeprecatedEnv

import suburbia_env
from suburbia_env import Game
from suburbia_env.envs import gym_env, pettingzoo, vector_env
from repository import REPO
from suburbia_env import versions
from suburbia_env.engine.constants import MODE_NAMES
from suburbia_env.versions import ENV_ID, FORMAT_VERSION, PETTINGZOO_NAME, RULES_REVISION


def test_the_current_ids_name_the_revision_of_2026_11_25():
    assert (RULES_REVISION, ENV_ID, PETTINGZOO_NAME, FORMAT_VERSION) == (
        "2026-11-25", "Suburbia-v1", "suburbia_v1", 2)
    assert pettingzoo.raw_env.metadata["name"] == "suburbia_v1"
    assert gym.spec("Suburbia-v1").entry_point == "suburbia_env.envs.gym_env:SuburbiaEnv"


def test_the_old_gym_id_is_refused_naming_the_new_one():
    with pytest.raises(DeprecatedEnv, match="Suburbia-v1"):
        gym.make("Suburbia-v0")


@pytest.mark.parametrize("module", [gym_env, pettingzoo, vector_env])
def test_each_environment_documents_its_version_history(module):
    history = module.__doc__[module.__doc__.index("Version history"):]
    assert "2026-11-25" in history and ("v1" in history) and ("v0" in history)


def test_saved_states_and_records_carry_the_format_version():
    game = Game(players=1, mode="dale", seed=3)
    assert json.loads(game.to_json())["version"] == FORMAT_VERSION
    assert game.record()["version"] == FORMAT_VERSION
    assert suburbia_env.formats.state_writer.STATE_VERSION == FORMAT_VERSION


# The table (versions.HISTORY) --------------------------------------------------------------

def test_the_constants_are_the_newest_row_and_old_standard_files_load():
    newest = versions.HISTORY[-1]
    assert (newest.rules, newest.env_id, newest.pettingzoo_name, newest.formats) == (
        RULES_REVISION, ENV_ID, PETTINGZOO_NAME, FORMAT_VERSION)
    assert (versions.MODEL_FORMAT_VERSION, versions.DATASET_FORMAT_VERSION) == (1, 2)
    assert versions.MODES_UNCHANGED_SINCE == {1: ("standard",)}


def test_rows_are_in_order_and_numbered_after_the_gym_id():
    dates = [row.date for row in versions.HISTORY]
    assert dates == sorted(dates) and len({row.id for row in versions.HISTORY}) == len(dates)
    for row in versions.HISTORY:
        major = row.id[1:].split(".")[0]
        assert row.env_id == f"Suburbia-v{major}" and row.pettingzoo_name == f"suburbia_v{major}"
        assert set(row.environments) <= set(versions.ENVIRONMENTS)
        assert {name for name, _ in row.notes} <= set(row.environments), row.id


def test_the_ids_and_formats_move_with_the_rules_and_only_with_them():
    """A rules revision moves every id and the state and record formats together; a row
    that keeps the rules keeps them (docs/architecture.md, "How to change a rule")."""
    for before, row in zip(versions.HISTORY, versions.HISTORY[1:]):
        moved = (row.env_id != before.env_id, row.pettingzoo_name != before.pettingzoo_name,
                 row.formats != before.formats, bool(row.modes))
        assert moved == ((row.rules != before.rules),) * 4, row.id
        assert row != dataclasses.replace(before, id=row.id, date=row.date), row.id


def test_the_rules_revisions_are_those_of_rules_md():
    text = (REPO / "docs" / "rules" / "RULES.md").read_text(encoding="utf-8")
    revisions = re.findall(r"^- (\d{4}-\d\d-\d\d):", text.split("## Revisions")[1], re.M)
    assert [row.rules for row in versions.HISTORY if row.modes][1:] == revisions
    entries = dict(re.findall(r"^- (\d{4}-\d\d-\d\d): (.*?)(?=^- |\Z)",
                              text.split("## Revisions")[1], re.M | re.S))
    for row in versions.HISTORY[1:]:
        assert bool(row.rule_ids) == bool(row.modes), row.id
        if row.rule_ids:
            assert sorted(set(re.findall(r"R\d+\.\d+", entries[row.rules]))) == list(
                row.rule_ids), row.id
    assert versions.revision_after(1) is versions.HISTORY[1]
    assert versions.HISTORY[0].rules == "original"
    assert versions.HISTORY[0].modes == MODE_NAMES


def test_the_committed_models_carry_the_model_format_version():
    for weights in sorted((REPO / "models").glob("*.safetensors")):
        data = json.loads(weights.with_suffix(".json").read_text(encoding="utf-8"))
        assert (data["format"], data["format_version"]) == (
            "suburbia-policy", versions.MODEL_FORMAT_VERSION)

