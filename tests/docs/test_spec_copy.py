"""The specification travels with the code (issue 17).

docs/rules/ holds RULES.md, examples.md, tiles.csv and goals.csv so that a clone
contains the rules its code and tests cite. Where the shared specification sits beside
the repository (../shared/rules/), the copies must equal it byte for byte, so they
never drift; the package data CSVs (suburbia_env/engine/data/) must equal the copies always.
Without the shared folder, the copies are still checked for completeness: every rule id
cited anywhere in the repository is defined in the copy of RULES.md, and every worked
example of examples.md has its test.
"""

from __future__ import annotations

import re

import pytest

from repository import REPO

RULES_COPY = REPO / "docs" / "rules"
SHARED_RULES = REPO.parent / "shared" / "rules"
PACKAGE_DATA = REPO / "suburbia_env" / "engine" / "data"
SPEC_FILES = ("RULES.md", "examples.md", "tiles.csv", "goals.csv")
DATA_FILES = ("tiles.csv", "goals.csv")

# Where rule ids are cited: code, tests, notes, notebooks (the copy itself excluded).
CITING_FOLDERS = ("suburbia_env", "agents", "training", "tests", "benchmarks", "scripts",
                  "notebooks", "docs", "models")
CITING_SUFFIXES = {".py", ".md", ".ipynb", ".sh"}


def test_the_copy_holds_the_specification_files():
    """docs/rules/ holds exactly the four files, none empty; and exactly the files of
    ../shared/rules/ when that is present (a file added there must be copied too)."""
    present = sorted(path.name for path in RULES_COPY.iterdir() if path.is_file())
    assert present == sorted(SPEC_FILES)
    assert all((RULES_COPY / name).stat().st_size > 0 for name in SPEC_FILES)
    if SHARED_RULES.is_dir():
        shared = sorted(path.name for path in SHARED_RULES.iterdir() if path.is_file())
        assert shared == present


@pytest.mark.parametrize("name", SPEC_FILES)
def test_the_copy_equals_the_shared_specification(name):
    """Byte for byte, whenever ../shared/rules/ exists (else nothing to compare)."""
    if not SHARED_RULES.is_dir():
        assert (RULES_COPY / name).is_file()
        return
    assert (RULES_COPY / name).read_bytes() == (SHARED_RULES / name).read_bytes(), (
        f"docs/rules/{name} differs from {SHARED_RULES / name}: copy the shared file")


@pytest.mark.parametrize("name", DATA_FILES)
def test_the_package_data_equals_the_copy(name):
    """The engine loads suburbia_env/engine/data/ (tile_data.py): the same bytes as docs/rules/."""
    assert (PACKAGE_DATA / name).read_bytes() == (RULES_COPY / name).read_bytes()


def rule_ids(text: str) -> set[str]:
    """Rule ids cited in `text` (R5.1, R9, and R5.1a as R5.1)."""
    return set(re.findall(r"\b(R\d+(?:\.\d+)?)[a-z]?\b", text))


def test_every_cited_rule_is_in_the_copy():
    """Each rule id the repository cites is defined (as a section or an item) in
    docs/rules/RULES.md, so a clone can look every citation up."""
    rules = (RULES_COPY / "RULES.md").read_text(encoding="utf-8")
    defined = (set(re.findall(r"^- (R\d+\.\d+)\b", rules, re.MULTILINE))
               | set(re.findall(r"^## (R\d+)\b", rules, re.MULTILINE)))
    assert {"R1.1", "R9.2", "R10"} <= defined
    files = [path for folder in CITING_FOLDERS for path in (REPO / folder).rglob("*")
             if path.is_file() and path.suffix in CITING_SUFFIXES
             and RULES_COPY not in path.parents and "__pycache__" not in path.parts]
    undefined = {}
    for path in files + [REPO / "README.md"]:
        for rule in rule_ids(path.read_text(encoding="utf-8")) - defined:
            undefined.setdefault(rule, []).append(path.relative_to(REPO).as_posix())
    assert not undefined, f"rule ids cited but not in docs/rules/RULES.md: {undefined}"


def test_every_worked_example_has_its_test():
    """Each example E<n> of docs/rules/examples.md is checked by tests/rules/test_examples.py."""
    text = (RULES_COPY / "examples.md").read_text(encoding="utf-8")
    examples = re.findall(r"^#+ (E\d+)\b", text, re.MULTILINE)
    assert examples
    tests = set(re.findall(r"^def test_(E\d+)_", (REPO / "tests" / "rules" / "test_examples.py")
                           .read_text(encoding="utf-8"), re.MULTILINE))
    assert set(examples) <= tests
