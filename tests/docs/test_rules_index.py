"""docs/rules-index.md is what scripts/rules_index.py writes from the code (issue 31,
item 5), and the script finds the citations it claims to find."""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import pytest

from repository import REPO


@pytest.fixture(scope="module")
def rules_index():
    spec = importlib.util.spec_from_file_location("rules_index", REPO / "scripts" / "rules_index.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_index_is_what_the_script_writes(rules_index):
    written = (REPO / "docs" / "rules-index.md").read_text(encoding="utf-8")
    assert written == rules_index.render(REPO), (
        "docs/rules-index.md is out of date: run python scripts/rules_index.py")


def test_every_rule_of_rules_md_has_a_section(rules_index):
    written = (REPO / "docs" / "rules-index.md").read_text(encoding="utf-8")
    rules = rules_index.rule_ids((REPO / "docs" / "rules" / "RULES.md").read_text())
    assert len(rules) == 41 and list(rules)[:2] == ["R1.1", "R1.2"]
    assert [line[3:] for line in written.splitlines() if line.startswith("## R")] == list(rules)


def test_docstrings_comments_nested_functions_and_test_names_cite(rules_index):
    source = textwrap.dedent('''
        """Module docstring: R1.1 is the module's."""
        def pay(state):
            """Step 2 (R5.2)."""
            def clamp(value):
                return value  # R1.2: levels stay in -5..15
            return clamp(state)

        class Market:
            """Seven slots (R4.1)."""
            def refill(self):
                # slide down and draw (R4.2, R5.1b); R10 is a section, not a rule
                pass

        def test_R8_2_goals_before_conversion():
            pass
        ''')
    assert rules_index.citing_definitions(source) == {
        "": {"R1.1"}, "pay": {"R5.2", "R1.2"}, "Market": {"R4.1"},
        "Market.refill": {"R4.2", "R5.1"}}
    assert rules_index.citing_definitions(source, names_cite=True)[
        "test_R8_2_goals_before_conversion"] == {"R8.2"}


def test_a_rule_no_engine_function_or_no_test_cites_is_flagged(rules_index, tmp_path):
    (tmp_path / "docs" / "rules").mkdir(parents=True)
    (tmp_path / "docs" / "rules" / "RULES.md").write_text(
        "## R1 Parts\n- R1.1 Money: dollars.\n- R1.2 Levels are clamped.\n- R1.3 Unused.\n")
    (tmp_path / "suburbia_env" / "engine").mkdir(parents=True)
    (tmp_path / "suburbia_env" / "engine" / "money.py").write_text(
        "def pay():\n    '''Pay (R1.1).'''\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "bot.py").write_text("def act():\n    return 0  # R1.2\n")
    (tmp_path / "training").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_money.py").write_text(
        "def test_R1_1_pay():\n    pass\n\ndef helper():\n    '''R1.2'''\n")
    (tmp_path / "tests" / "test_levels.py").write_text('"""Levels (R1.3)."""\n')
    page = rules_index.render(tmp_path)
    assert "- cited by no engine function: R1.2, R1.3\n" in page
    assert "- cited by no test: R1.2\n" in page
    assert "Tested by:\n- `tests/test_levels.py` (the file)\n" in page
    assert "Implemented in:\n- `suburbia_env.engine.money`: `pay`\n" in page
    assert "Also cited by:\n- `agents.bot`: `act`\n" in page
    assert "Tested by:\n- `tests/test_money.py`: `test_R1_1_pay`\n" in page


def test_the_engine_docstring_plays_a_game_in_its_handful_of_calls():
    """The engine package says how a game runs (issue 31, item 5); its example runs."""
    import suburbia_env.engine
    lines = suburbia_env.engine.__doc__.split("a handful of calls")[1].splitlines()[2:]
    block = list(itertools.takewhile(lambda line: not line or line.startswith("    "), lines))
    namespace = {}
    exec(textwrap.dedent("\n".join(block)), namespace)
    state, s = namespace["state"], namespace["s"]
    assert state[s.GAME_OVER] and namespace["winners"] == [1] and state[s.ROUND] == 13
