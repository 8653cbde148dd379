"""Where the repository is, for tests that read its files (README, docs, models,
examples) or start its scripts: one definition, whatever folder a test file sits in."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def python_files(directories) -> list[Path]:
    """The Python files under the repository's `directories`, relative to it, for the
    scans that fail on a pattern written outside its one home."""
    files = []
    for directory in directories:
        files += sorted((REPO / directory).rglob("*.py"))
    return [path.relative_to(REPO) for path in files]
