"""A recipe's parallel stages on a Ray cluster (`suburbia train --recipe NAME --ray-address
ADDRESS`, training/ray_stages.py), on a cluster of two nodes started here on loopback
addresses (tests/ray_cluster.py): the same demonstrations, byte for byte, the same
models and the same evaluation results as the same recipe run on this machine; the
chunks and evaluation games ran on both nodes; a run killed with SIGKILL mid-recording
goes on from its finished chunks; a bad address is named at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loopback_sockets import free_loopback_port
from ray_cluster import HEAD_IP, SECOND_IP, loopback_cluster
from repository import REPO
from training.run_state import sha256_of

pytestmark = pytest.mark.slow  # a Ray cluster of two nodes and whole recipe runs

RUN_TIMEOUT = 600

RECIPE = {
    "name": "tiny-ray",
    "description": "A recipe small enough for the Ray tests.",
    "seed": 5,
    "torch_threads": 1,
    "network": {"features_dim": 32, "net_arch": [16]},
    "stages": [
        {"name": "greedy-games", "kind": "record", "demonstrator": "greedy", "games": 24,
         "chunk_games": 4, "workers": 2},
        {"name": "imitate", "kind": "fit", "demonstrations": ["greedy-games"], "epochs": 1,
         "gate": {"against": "greedy", "players": 2, "games": 24, "seed": 5000000,
                  "min_win_rate": 0.0}},
        {"name": "policy-games", "kind": "record", "demonstrator": "ppo:{model}",
         "opponents": ["greedy"], "games": 8, "chunk_games": 4},
        {"name": "final-dale", "kind": "evaluate", "against": "dale", "games": 16, "seed": 0,
         "min_win_rate": 0.0},
        {"name": "final-3p", "kind": "evaluate", "against": "greedy", "players": 3,
         "games": 30, "seed": 1000000, "min_win_rate": 0.0},
    ],
}
SAME_FIELDS = ("stage", "attempt", "purpose", "against", "players", "games", "seed",
               "win_rate", "win_rate_low", "win_rate_high", "mean_population", "mean_margin",
               "threshold", "passed", "model_sha256")


def _command(folder: Path, run_dir: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "suburbia_env.apps.cli", "train", "--recipe",
            str(folder / "recipe.json"), "--run-dir", str(folder / run_dir), *extra]


def _events(run_dir: Path) -> list[dict]:
    path = run_dir / "log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run(command: list[str], env: dict, cwd: Path, timeout: float = RUN_TIMEOUT):
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)


def _kill_when(command: list[str], env: dict, cwd: Path, run_dir: Path, stop) -> None:
    """Starts the command and SIGKILLs it once stop(events) holds."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env=env, cwd=cwd)
    deadline = time.monotonic() + RUN_TIMEOUT
    try:
        while not stop(_events(run_dir)):
            if process.poll() is not None:
                raise AssertionError("the run ended before it could be killed: "
                                     + process.stderr.read()[-2000:])
            if time.monotonic() > deadline:
                raise AssertionError("the run never reached the point to kill it")
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGKILL


@pytest.fixture(scope="module")
def cluster():
    yield from loopback_cluster()


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    """The recipe on this machine; then on the cluster, killed with SIGKILL after two
    chunks of its first recording and started again with the same command."""
    folder = tmp_path_factory.mktemp("recipe_on_ray")
    (folder / "recipe.json").write_text(json.dumps(RECIPE, indent=1))
    local = _run(_command(folder, "local"), cluster.env, folder)
    assert local.returncode == 0, local.stderr[-3000:]
    on_ray = _command(folder, "ray", "--ray-address", cluster.address)
    _kill_when(on_ray, cluster.env, folder, folder / "ray", lambda events: sum(
        event["event"] == "chunk_done" for event in events) >= 2)
    state_after_kill = json.loads((folder / "ray" / "state.json").read_text())
    finished = _run(on_ray, cluster.env, folder)
    assert finished.returncode == 0, finished.stderr[-3000:]
    return {"local": folder / "local", "ray": folder / "ray", "stdout": finished.stdout,
            "state_after_kill": state_after_kill}


def _state(run_dir: Path) -> dict:
    return json.loads((run_dir / "state.json").read_text())


def _evaluations(run_dir: Path) -> list[dict]:
    return [{key: row[key] for key in SAME_FIELDS}
            for row in map(json.loads, (run_dir / "evaluations.jsonl").read_text().splitlines())]


def test_the_cluster_gives_the_results_of_one_machine(runs):
    local, on_ray = _state(runs["local"]), _state(runs["ray"])
    assert local["status"] == on_ray["status"] == "complete"
    for name in ("greedy-games", "policy-games"):
        mine, theirs = local["stages"][name], on_ray["stages"][name]
        assert sha256_of(runs["local"] / mine["demonstrations"]) \
            == sha256_of(runs["ray"] / theirs["demonstrations"]) is not None
        assert mine["chunks"] == theirs["chunks"] and mine["decisions"] == theirs["decisions"]
        assert mine["decisions"] > 0
    assert local["stages"]["greedy-games"]["games"] == 24
    assert local["final"]["sha256"] == on_ray["final"]["sha256"]
    rows = _evaluations(runs["local"])
    assert rows == _evaluations(runs["ray"])
    assert [(row["stage"], row["against"], row["games"]) for row in rows] == [
        ("imitate", "greedy", 24), ("final-dale", "dale", 16), ("final-3p", "greedy", 30)]


def test_chunks_and_evaluation_games_ran_on_both_nodes(runs, cluster):
    events = _events(runs["ray"])
    chunk_nodes = {node for event in events if event["event"] == "chunk_done"
                   for node in event["node"].split(",")}
    assert chunk_nodes == {HEAD_IP, SECOND_IP}
    evaluation_nodes = [event["nodes"] for event in events if event["event"] == "evaluation"]
    assert len(evaluation_nodes) == 3 and all(evaluation_nodes)
    assert {node for nodes in evaluation_nodes for node in nodes} <= {HEAD_IP, SECOND_IP}
    assert not any("node" in event for event in _events(runs["local"])
                   if event["event"] == "chunk_done")


def test_the_run_record_names_the_cluster(runs, cluster):
    where = _state(runs["ray"])["provenance"]["parallel_stages"]
    assert where == {"kind": "ray", "address": cluster.address,
                     "gcs_address": cluster.address, "nodes": 2, "cpus": 2,
                     "node_addresses": [SECOND_IP, HEAD_IP]}
    assert _state(runs["local"])["provenance"]["parallel_stages"] == {"kind": "local"}
    card = (runs["ray"] / "MODEL_CARD.md").read_text()
    assert (f"ran on: the Ray cluster at {cluster.address} (2 nodes: {SECOND_IP}, "
            f"{HEAD_IP}; 2 CPUs)") in card
    assert f"--ray-address {cluster.address}" in card
    assert f"the Ray cluster at {cluster.address}: 2 nodes, 2 CPUs" in runs["stdout"]


def test_a_run_killed_on_the_cluster_goes_on_from_its_chunks(runs):
    recorded = runs["state_after_kill"]["stages"]["greedy-games"]
    assert recorded["status"] == "running" and 2 <= len(recorded["chunks"]) < 6
    events = _events(runs["ray"])
    sessions = [i for i, event in enumerate(events) if event["event"] == "session_started"]
    assert len(sessions) == 2
    second = events[sessions[1]:]
    resumed = [event for event in second if event["event"] == "stage_resumed"]
    assert resumed[0]["stage"] == "greedy-games"
    assert resumed[0]["chunks_done"] == len(recorded["chunks"])
    played_again = {event["chunk"] for event in second if event["event"] == "chunk_done"
                    and event["stage"] == "greedy-games"}
    assert played_again == set(range(6)) - {int(index) for index in recorded["chunks"]}


@pytest.mark.parametrize("address", [f"{HEAD_IP}:{{port}}", "head-without-a-port"])
def test_a_bad_address_is_named_at_once(address, tmp_path):
    """No Ray head there: a clear error naming the address within the reach timeout
    (agents/ray_session.py), not Ray's minutes of retries, and no run folder."""
    address = address.format(port=free_loopback_port())
    (tmp_path / "recipe.json").write_text(json.dumps(RECIPE))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(REPO), os.environ.get("PYTHONPATH")])), "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": "0" * 32, "RAY_ADDRESS": ""}
    began = time.monotonic()
    completed = _run(_command(tmp_path, "run", "--ray-address", address), env, tmp_path,
                     timeout=120)
    assert time.monotonic() - began < 60
    assert completed.returncode == 2, completed.stderr[-2000:]
    assert f"Ray cluster {address!r}" in completed.stderr \
        or f"Ray cluster at {address!r}" in completed.stderr
    assert not (tmp_path / "run").exists()


class FirstLegalPolicy:
    """A policy that plays its first legal action (a model's predict interface)."""

    def predict(self, observation, action_masks=None, deterministic=True):
        import numpy as np
        return np.flatnonzero(action_masks)[:1], None


@pytest.mark.parametrize("players", [2, 3])
def test_games_against_greedy_in_blocks_equal_one_call(players):
    """The blocks RayWorkers cuts an evaluation into (multiples of GREEDY_BLOCK, the
    last one short) give, joined, the summary of one call: every game keeps its seed
    and its seat."""
    from training.evaluation import (GREEDY_BLOCK, evaluate_against_greedy,
                                     play_against_greedy, summarise_against_greedy)
    games = 2 * GREEDY_BLOCK + 5
    whole = evaluate_against_greedy(FirstLegalPolicy(), games, 40, players)
    blocks = [play_against_greedy(FirstLegalPolicy(), first, min(GREEDY_BLOCK, games - first),
                                  40, players) for first in range(0, games, GREEDY_BLOCK)]
    joined = {key: [entry for block in blocks for entry in block[key]]
              for key in ("populations", "best_others", "wins")}
    assert summarise_against_greedy(joined, players) == whole
    assert whole["games"] == games and 0 <= whole["win_rate"] < 1
    assert len(set(joined["populations"])) > 3  # different games, not one game repeated
