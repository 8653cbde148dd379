"""benchmarks/yardsticks.py in a tiny configuration: the table with Wilson intervals and
paired differences, and the JSON and CSV it writes."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

import pytest

from repository import REPO


@pytest.mark.slow
def test_the_yardsticks_benchmark_prints_and_writes_its_rows(tmp_path):
    model = REPO / "models" / "multiplayer.safetensors"
    command = [sys.executable, str(REPO / "benchmarks" / "yardsticks.py"), "--model",
               str(model), "--games", "4", "--search-games", "2", "--search-settings", ",2,1",
               "--workers", "1", "--seed", "123", "--tables", "2p-greedy",
               "4p-mixed-switching", "--output-dir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "win rate [95% Wilson]" in lines[0] and "search - policy [95%]" in lines[0]
    rows = [line for line in lines if line.startswith(("2p-greedy", "4p-mixed-switching"))]
    assert [row.split()[:3] for row in rows] == [
        ["2p-greedy", "policy", "4"], ["2p-greedy", "search", "2"],
        ["4p-mixed-switching", "policy", "4"], ["4p-mixed-switching", "search", "2"]]
    interval = r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]"
    assert all(re.search(interval, row) for row in rows)
    assert all(re.search(r"[+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]", row)
               for row in rows[1::2])

    summary = json.loads((tmp_path / "yardsticks.json").read_text())
    assert summary["settings"]["seed"] == 123 and len(summary["rows"]) == 4
    policy, search = summary["rows"][:2]
    assert policy["seed"] == search["seed"] == 123
    assert len(policy["wins"]) == 4 and set(search["wins"]) == {"0", "1"}
    paired = sum(search["wins"][g] - policy["wins"][g] for g in ("0", "1")) / 2
    assert search["difference"][0] == pytest.approx(paired)
    assert policy["win_rate"] == pytest.approx(sum(policy["wins"].values()) / 4)
    low, high = policy["low"], policy["high"]
    assert 0 <= low <= policy["win_rate"] <= high <= 1
    mixed = summary["rows"][2]
    assert mixed["players"] == 4 and mixed["seed"] != 123  # its own seeds
    with open(tmp_path / "yardsticks.csv") as handle:
        table = list(csv.DictReader(handle))
    assert [row["agent"] for row in table] == ["policy", "search"] * 2
    assert float(table[1]["search_minus_policy"]) == pytest.approx(paired)
