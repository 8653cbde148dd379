"""The seeded games of tests/golden/ replay line for line (golden_playthroughs.py).

A failure prints the first differing lines. If the change was meant (a rules revision),
regenerate with `python tests/golden_playthroughs.py` and explain the diff in the commit.
"""

import difflib

import pytest

from golden_playthroughs import SETUPS, golden_path, golden_text


@pytest.mark.parametrize("setup", SETUPS, ids=[setup.name for setup in SETUPS])
def test_playthrough_matches_golden_file(setup):
    expected = golden_path(setup).read_text()
    actual = golden_text(setup)
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                    str(golden_path(setup)), "this code", lineterm="", n=2)
        shown = "\n".join(list(diff)[:60])
        pytest.fail(f"{setup.name} differs from its golden file:\n{shown}")


def test_every_setup_has_its_file_and_no_file_is_orphaned():
    on_disk = {path.name for path in golden_path(SETUPS[0]).parent.glob("*.txt")}
    assert on_disk == {golden_path(setup).name for setup in SETUPS}
