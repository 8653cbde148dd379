"""Every place that shows version facts shows those of suburbia_env/versions.py (issue 31,
item 3): the rendered ones are what scripts/version_tables.py writes, the others name
the current versions."""

from __future__ import annotations

import importlib
import importlib.util
import re
import warnings

import pytest

from repository import REPO
from suburbia_env import versions


@pytest.fixture(scope="module")
def version_tables():
    spec = importlib.util.spec_from_file_location("version_tables",
                                                  REPO / "scripts" / "version_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", ["docs/reference.md", "README.md",
                                  "suburbia_env/envs/gym_env.py",
                                  "suburbia_env/envs/vector_env.py",
                                  "suburbia_env/envs/pettingzoo.py"])
def test_each_rendered_place_is_what_the_table_gives(version_tables, path):
    text = (REPO / path).read_text(encoding="utf-8")
    assert version_tables.rendered(path, text) == text, (
        f"{path} is out of date: run python scripts/version_tables.py")


def test_the_rendering_follows_the_table(version_tables, monkeypatch):
    """A new row shows up in the history, in the environments it touches and in README."""
    newest = versions.HISTORY[-1]
    row = versions.Version("v2", "2027-01-02", "R8.3: ties go to money first.", "2027-01-02",
                           "Suburbia-v2", "suburbia_v2", formats=3, model_format=1,
                           dataset_format=2, modes=("standard",), rule_ids=("R8.3",),
                           environments=("pettingzoo",))
    monkeypatch.setattr(versions, "HISTORY", versions.HISTORY + (row,))
    for name, value in (("ENV_ID", "Suburbia-v2"), ("PETTINGZOO_NAME", "suburbia_v2"),
                        ("RULES_REVISION", "2027-01-02"), ("FORMAT_VERSION", 3)):
        monkeypatch.setattr(versions, name, value)
    table = version_tables.history_table()
    assert table.splitlines()[2].startswith(
        "| v2 | 2027-01-02 | 2027-01-02 | `Suburbia-v2` | `suburbia_v2` | 3 | 1 | 2 | R8.3")
    assert f"| {newest.id} | {newest.date} |" in table.splitlines()[3]
    assert version_tables.environment_history("pettingzoo").splitlines()[1] == (
        "- suburbia_v2 (2027-01-02, v2): R8.3: ties go to money first.")
    assert "suburbia_v2" not in version_tables.environment_history("gym")
    assert "(R8.3 changed; state and record format version 3)" in " ".join(
        version_tables.current_text().split())


def test_the_moved_modules_are_listed_in_the_history(version_tables):
    """Old paths users may import are listed in the version history (issue 31, item 2)."""
    from suburbia_env._moved import OLD_TO_NEW
    moved = [row for row in versions.HISTORY if row.aliases]
    assert [row.aliases for row in moved] == ["suburbia_env._moved.OLD_TO_NEW"]
    reference = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    assert len(OLD_TO_NEW) > 30
    for old, new in OLD_TO_NEW.items():
        assert f"| `{old}` | `{new}` |" in reference


def test_the_dataset_page_names_the_dataset_version():
    text = (REPO / "docs" / "dataset.md").read_text(encoding="utf-8")
    version = versions.DATASET_FORMAT_VERSION
    assert text.splitlines()[0].endswith(f"version {version})")
    assert f"| `version` | `{version}` " in text
    assert f'"version":{version},"rules":"{versions.RULES_REVISION}"' in text


def test_the_figures_name_the_rules_they_were_measured_under():
    text = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")
    assert f"measured under the rules of {versions.RULES_REVISION}" in " ".join(text.split())


def test_the_training_aliases_the_history_names_are_the_moved_modules():
    row = next(row for row in versions.HISTORY if row.aliases)
    names = list(dict.fromkeys(re.findall(r"training\.(\w+)", row.changed)))
    assert names == ["features", "compact_input", "rllib_module"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for name in names:
            assert importlib.import_module(f"training.{name}") is importlib.import_module(
                f"agents.{name}")


def test_the_state_format_page_names_the_format_versions_of_the_table():
    """docs/state-format.md's table of format versions has one row per version of the
    history, newest first, and its headings name the current one."""
    text = (REPO / "docs" / "state-format.md").read_text(encoding="utf-8")
    table = text.split("## Versions of both formats")[1].split("\n## ")[0]
    listed = [int(row.split("|")[1]) for row in table.splitlines()
              if re.match(r"^\| \d+ \|", row)]
    assert listed == sorted({row.formats for row in versions.HISTORY}, reverse=True)
    current = versions.FORMAT_VERSION
    assert f"## State format `suburbia-state`, version {current}" in text
    assert f"## Game record format `suburbia-record`, version {current}" in text
    reference = " ".join((REPO / "docs" / "reference.md").read_text(encoding="utf-8").split())
    assert f"the `suburbia-state` format, version {current}" in reference
