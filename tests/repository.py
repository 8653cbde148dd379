"""Where the repository is, for tests that read its files (README, docs, models,
examples) or start its scripts: one definition, whatever folder a test file sits in."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
