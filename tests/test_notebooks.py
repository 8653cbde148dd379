"""The notebooks in notebooks/ run end to end on small settings (SUBURBIA_NOTEBOOK_SMALL=1)
and produce their key outputs: the results tables and the figures."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def execute(name: str, monkeypatch) -> nbformat.NotebookNode:
    monkeypatch.setenv("SUBURBIA_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return notebook


def text_of(notebook) -> str:
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            parts.append(output.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def images_of(notebook) -> int:
    return sum("image/png" in output.get("data", {})
               for cell in notebook.cells for output in cell.get("outputs", []))


@pytest.mark.parametrize("name", ["evaluate_agents.ipynb", "strategy.ipynb"])
def test_committed_notebooks_have_no_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


def test_evaluate_agents_notebook_runs(monkeypatch):
    notebook = execute("evaluate_agents.ipynb", monkeypatch)
    text = text_of(notebook)
    assert "4 games per agent, 1 worker(s)" in text
    assert "win rate [95% CI]" in text
    for agent in ("random", "greedy", "dale"):
        assert f"\n{agent} " in text
    assert "Dale (engine): mean population" in text
    assert "greedy minus Dale's procedure, paired over 4 seeds" in text
    assert "Junior Intern" in text  # the ladder table
    # the trained baseline is evaluated when present, else skipped with a note
    assert ("No trained baseline at models/baseline.safetensors: skipping" in text
            or "ppo:" in text)
    assert images_of(notebook) >= 2  # populations and win rates


def test_strategy_notebook_runs(monkeypatch):
    notebook = execute("strategy.ipynb", monkeypatch)
    text = text_of(notebook)
    assert "6 games of greedy against Dale" in text
    assert "Tiles bought most often" in text
    assert "lakes          games  mean final pop  win rate" in text
    assert "investments    games" in text
    assert "curves drawn for 6 games" in text
    assert "record replays to the same score" in text
    assert images_of(notebook) >= 4
