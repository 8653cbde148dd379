"""Every id results are reported under names the rules version (versions.py, RULES.md
"Revisions"): the Gymnasium id, the PettingZoo name, the file formats, the docstrings."""

import json

import gymnasium as gym
import pytest
from gymnasium.error import DeprecatedEnv

import suburbia_env
from suburbia_env import Game, gym_env, pettingzoo, vector_env
from suburbia_env.versions import ENV_ID, FORMAT_VERSION, PETTINGZOO_NAME, RULES_REVISION


def test_the_current_ids_name_the_revision_of_2026_11_25():
    assert (RULES_REVISION, ENV_ID, PETTINGZOO_NAME, FORMAT_VERSION) == (
        "2026-11-25", "Suburbia-v1", "suburbia_v1", 2)
    assert pettingzoo.raw_env.metadata["name"] == "suburbia_v1"
    assert gym.spec("Suburbia-v1").entry_point == "suburbia_env.gym_env:SuburbiaEnv"


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
    assert suburbia_env.serialization.STATE_VERSION == FORMAT_VERSION
