"""The notebooks in notebooks/ run end to end on small settings (SUBURBIA_NOTEBOOK_SMALL=1)
and produce their key outputs: the results tables and the figures."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from repository import REPO

NOTEBOOKS = REPO / "notebooks"


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


@pytest.mark.parametrize("name", ["evaluate_agents.ipynb"])
def test_committed_notebooks_have_no_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.slow
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


@pytest.mark.slow
def test_strategy_notebook_runs(monkeypatch):
    """The strategy study runs on the committed data (SUBURBIA_NOTEBOOK_SMALL: no file
    written) and prints every finding scripts/strategy_findings.py computes; its committed
    outputs are checked in test_strategy_study.py."""
    import json
    notebook = execute("strategy.ipynb", monkeypatch)
    text = text_of(notebook)
    written = json.loads((NOTEBOOKS / "data" / "strategy-findings.json").read_text())
    assert f"{written['data']['games']} games (" in text
    for finding in written["findings"].values():
        assert finding["text"] in text
    assert "Established (" in text and "Could not be established (" in text
    assert "wrote " not in text
    assert images_of(notebook) >= 5


@pytest.mark.slow
def test_league_strategy_notebook_runs_small(monkeypatch):
    """The strategy study of recorded league games (agents/league_analysis.py) on a small
    league it plays itself: every section prints its table, the findings are split into
    established and not established, and the plots are drawn."""
    notebook = execute("league_strategy.ipynb", monkeypatch)
    text = text_of(notebook)
    assert "13 games of dale, greedy, random (6 at 2 players, 3 at 3 players, 4 at 4 " \
           "players); 0 forfeited games left out" in text
    assert "players  turn position  games" in text
    assert "Public goals (R8.2: only a player strictly ahead scores):" in text
    assert "Private goals (scored only strictly alone in front):" in text
    assert "tiles bought in A" in text and "red lines (net)" in text
    assert "lakes  seats    win share [95% CI]" in text
    assert "Established (" in text and "Could not be established (" in text
    assert images_of(notebook) == 5


def test_league_strategy_notebook_is_committed_executed_on_its_dataset():
    """Committed with its outputs and plots, computed from the committed dataset: the
    number of games it printed is the number of lines of that dataset."""
    import gzip
    notebook = nbformat.read(NOTEBOOKS / "league_strategy.ipynb", as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.outputs and cell.execution_count for cell in code)
    assert images_of(notebook) == 5
    with gzip.open(NOTEBOOKS / "data" / "league-strong.jsonl.gz", "rt") as handle:
        games = sum(1 for line in handle if line.strip())
    text = text_of(notebook)
    assert f"{games} games of greedy, ppo-rollout:models/multiplayer.safetensors, " \
           f"ppo:models/multiplayer.safetensors" in text
    assert "Established (" in text and "Could not be established (" in text
