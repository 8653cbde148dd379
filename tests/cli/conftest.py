"""Every command-line test runs in a folder of its own: `suburbia play` saves unfinished
games to the current folder, and SUBURBIA_DEBUG (tracebacks instead of messages) is off."""

import pytest


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    """The test's own folder, made the current one; tests that save there take it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SUBURBIA_DEBUG", raising=False)
    return tmp_path
