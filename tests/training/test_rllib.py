"""RLlib on Ray (training/rllib_train.py, agents/rllib_module.py, agents/rllib_agent.py).

- A few PPO iterations against Dale on a local Ray instance (`suburbia train --backend
  rllib`, the default), then the checkpoint plays through the `rllib:PATH` spec.
- A cluster started here with `ray start` (tests/ray_cluster.py): a head on 127.0.0.3
  and a second node on 127.0.0.2 with a custom resource `second_node`, both on loopback addresses only (a
  driver checks the nodes' addresses from outside and inside, and the sockets of every
  process of the cluster). Self-play with one shared policy for every seat runs with its
  env runners pinned to that resource; the env runners report, from inside, the node
  and address they sampled on. Then `suburbia match --backend ray` plays the checkpoint
  on the cluster and matches the local runner.

The trainings run as subprocesses of the command line, with timeouts; the cluster's
processes are started in their own sessions and ended by their ids at the end (every
process of those sessions is checked gone). Ray is kept small: 1 CPU per node, 100 MB
object stores, batches of 200 steps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.registry import AgentSpecError
from agents.ray_session import LOCAL_NODE_IP
from agents.rllib_agent import DESCRIPTION_FILE, POLICY_FILE, RLlibAgent
from agents.tournament import run_tournament
from loopback_sockets import connections_to, off_loopback
from ray_cluster import HEAD_IP, SECOND_IP, loopback_cluster
from repository import REPO
from suburbia_env import Game
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.errors import ModelFileNotFoundError, ModelFormatError
from suburbia_env.engine.observation import OBSERVATION_SIZE, encode_observation
from suburbia_env.engine.tile_data import TILES

TRAIN_TIMEOUT = 900
SMALL_RUN = ["--train-batch-size", "200", "--minibatch-size", "100", "--n-epochs", "2"]


def run_cli(arguments: list[str], env: dict | None = None,
            timeout: float = TRAIN_TIMEOUT) -> subprocess.CompletedProcess:
    environment = {**os.environ, **(env or {}), "OMP_NUM_THREADS": "1",
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO),
                                                               os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run([sys.executable, "-m", "suburbia_env.apps.cli", *arguments],
                               capture_output=True, text=True, timeout=timeout,
                               env=environment, cwd=REPO)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return completed


def progress_lines(output_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (output_dir / "progress.jsonl").read_text().splitlines()]


# Without Ray: the spec and the command line --------------------------------------------------

def test_rllib_spec_needs_a_checkpoint_of_ours(tmp_path):
    with pytest.raises(AgentSpecError, match="give the checkpoint folder"):
        make_agent("rllib:")
    with pytest.raises(ModelFileNotFoundError, match="no RLlib checkpoint folder"):
        make_agent(f"rllib:{tmp_path / 'missing'}")
    with pytest.raises(ModelFormatError, match=f"no {POLICY_FILE}"):
        make_agent(f"rllib:{tmp_path}")
    (tmp_path / POLICY_FILE).write_bytes(b"not tensors")
    (tmp_path / DESCRIPTION_FILE).write_text('{"format": "something else"}')
    with pytest.raises(ModelFormatError, match="not a description of format"):
        make_agent(f"rllib:{tmp_path}")


def test_train_backend_rllib_lists_its_options(capsys):
    from suburbia_env.apps.cli import main
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "--backend", "rllib", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for option in ("--address", "--num-env-runners", "--num-learners", "--env-runner-resources",
                   "--mode {dale,self_play}", "--total-timesteps", "--learning-rate"):
        assert option in text


@pytest.mark.parametrize("arguments, message", [
    (["--mode", "self_play", "--players", "5"], "--players must be 2, 3 or 4"),
    (["--minibatch-size", "500", "--train-batch-size", "400"], "must not exceed"),
    (["--env-runner-resources", '{"second_node": -1}'], "positive amounts"),
    (["--address", "auto", "--num-cpus", "2"], "--num-cpus is for a local instance"),
])
def test_train_backend_rllib_refuses_bad_options(arguments, message):
    from training.rllib_train import parse_options
    with pytest.raises(SystemExit, match=message):
        parse_options(arguments)


# A local Ray instance ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dale_run(tmp_path_factory):
    """Two PPO iterations against Dale, one env runner, on the local instance that
    `suburbia train --backend rllib` starts and stops by itself."""
    output_dir = tmp_path_factory.mktemp("rllib_dale")
    completed = run_cli(["train", "--backend", "rllib", "--mode", "dale", "--total-timesteps",
                         "400", *SMALL_RUN, "--num-env-runners", "1", "--num-cpus", "2",
                         "--object-store-memory", "100", "--eval-games", "2", "--seed", "3",
                         "--output-dir", str(output_dir)])
    return output_dir, completed.stdout


@pytest.mark.slow
def test_training_against_dale_runs_its_iterations(dale_run):
    output_dir, stdout = dale_run
    summary = json.loads((output_dir / "summary.json").read_text())
    progress = progress_lines(output_dir)
    assert summary["iterations"] == len(progress) == 2
    assert all(entry["env_steps"] >= 200 for entry in progress)
    assert summary["env_steps"] == progress[-1]["env_steps_total"] \
        == sum(entry["env_steps"] for entry in progress) >= 400
    assert all(entry["learner_steps_per_second"] > 0 and entry["episodes"] > 0
               for entry in progress)
    assert progress[-1]["module_steps"] == {"default_policy": progress[-1]["env_steps"]}
    nodes = summary["env_steps_by_node"]
    assert len(nodes) == 1 and nodes[0]["env_steps"] == summary["env_steps"]
    assert nodes[0]["address"] == LOCAL_NODE_IP  # reported from inside the env runner
    evaluation = summary["evaluation"]
    assert evaluation["opponent"] == "dale" and evaluation["games"] == 2
    assert f"rllib:{summary['checkpoint']}" in stdout


@pytest.mark.slow
def test_checkpoint_plays_through_the_rllib_spec(dale_run):
    output_dir, _ = dale_run
    checkpoint = output_dir / "checkpoint"
    assert (checkpoint / "rllib_checkpoint.json").is_file()  # RLlib's own, to resume
    description = json.loads((checkpoint / DESCRIPTION_FILE).read_text())
    assert description["module_id"] == "default_policy" and description["mode"] == "dale"
    result = run_tournament([f"rllib:{checkpoint}"], "dale", games=1, seed=40, workers=1,
                            progress=False)
    player, dale = result.rows
    assert player["forfeit"] is None and player["decisions"] > 10
    assert player["population"] > 0 and dale["agent"] == "Dale (engine)"
    standard = run_tournament([f"rllib:{checkpoint}", "greedy"], "standard", games=1,
                              players=2, seed=41, workers=1, progress=False)
    assert all(row["forfeit"] is None for row in standard.rows)


@pytest.mark.slow
def test_policy_plays_only_legal_actions(dale_run):
    """The module masks the logits (R10.1): with one legal action left in the mask, that
    action is chosen; with the real mask, the choice is its most probable legal action."""
    agent = make_agent(f"rllib:{dale_run[0] / 'checkpoint'}")
    assert isinstance(agent, RLlibAgent)
    game = Game(1, "dale", "2nd", 9)
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(game.state, TILES.table, game.current_player, observation)
    legal = np.flatnonzero(game.legal_action_mask())
    assert len(legal) >= 2
    for action in legal[:2]:
        only = np.zeros(NUM_ACTIONS, dtype=bool)
        only[action] = True
        assert agent.act_on_observation(observation, only) == action
    chosen = agent.act(game)
    assert chosen in legal
    game.apply(chosen)


# A cluster of two nodes started here ---------------------------------------------------------

@pytest.fixture(scope="module")
def cluster():
    yield from loopback_cluster()



@pytest.fixture(scope="module")
def self_play_run(cluster, tmp_path_factory):
    """Self-play at 2 seats, one shared policy, 2 env runners (half a CPU each) that need
    the second node's custom resource; the learner runs in the driver."""
    output_dir = tmp_path_factory.mktemp("rllib_cluster")
    run_cli(["train", "--backend", "rllib", "--mode", "self_play", "--players", "2",
             "--total-timesteps", "200", *SMALL_RUN, "--address", cluster.address,
             "--num-env-runners", "2", "--num-cpus-per-env-runner", "0.5",
             "--env-runner-resources", '{"second_node": 1}', "--eval-games", "0",
             "--output-dir", str(output_dir)], env=cluster.env)
    return output_dir


@pytest.mark.slow
def test_cluster_talks_over_loopback_only(cluster):
    """Both nodes, seen from a driver and from a task on each, are at their loopback
    addresses, the GCS at the head's; no socket of the driver or of any process of the
    cluster is bound or connected to another address (Ray's wildcard listeners aside)."""
    probe = cluster.probe()
    addresses = {node["NodeID"]: node["NodeManagerAddress"] for node in probe["nodes"]}
    assert sorted(addresses.values()) == [SECOND_IP, HEAD_IP]
    assert all(f"node:{node['NodeManagerAddress']}" in node["Resources"]
               for node in probe["nodes"])
    assert probe["gcs_address"] == cluster.address
    assert sorted(probe["inside"], key=lambda report: report["address"]) == [
        {"node_id": node_id, "address": address, "gcs_address": cluster.address}
        for node_id, address in sorted(addresses.items(), key=lambda item: item[1])]
    sockets = probe["sockets"]
    assert off_loopback(sockets) == []
    assert len(connections_to(sockets, HEAD_IP, cluster.port)) >= 3  # driver and raylets


@pytest.mark.slow
def test_env_runners_ran_on_the_second_node(cluster, self_play_run):
    summary = json.loads((self_play_run / "summary.json").read_text())
    assert cluster.second["NodeManagerAddress"] == SECOND_IP
    assert summary["env_steps_by_node"] == [{"node_id": cluster.second["NodeID"],
                                             "address": SECOND_IP,
                                             "env_steps": summary["env_steps"]}]
    assert summary["num_env_runners"] == 2 and summary["env_steps"] >= 200


@pytest.mark.slow
def test_one_shared_policy_plays_every_seat(self_play_run):
    progress = progress_lines(self_play_run)[-1]
    assert set(progress["agent_steps"]) == {"player_0", "player_1"}
    assert all(steps > 0 for steps in progress["agent_steps"].values())
    assert progress["module_steps"] == {"shared": sum(progress["agent_steps"].values())}
    description = json.loads((self_play_run / "checkpoint" / DESCRIPTION_FILE).read_text())
    assert description["module_id"] == "shared" and description["mode"] == "self_play"


@pytest.mark.slow
def test_match_on_the_cluster_equals_the_local_runner(cluster, self_play_run, tmp_path):
    """`suburbia match --backend ray` spreads the games over both nodes' CPUs; the rows are
    those of local processes for the same seeds."""
    agents = ["--agents", f"rllib:{self_play_run / 'checkpoint'}", "greedy", "dale",
              "--mode", "standard", "--players", "3", "--games", "3", "--seed", "21",
              "--no-progress"]
    run_cli(["match", *agents, "--backend", "ray", "--address", cluster.address,
             "--workers", "2", "--output-dir", str(tmp_path / "ray")], env=cluster.env)
    run_cli(["match", *agents, "--workers", "1", "--output-dir", str(tmp_path / "local")])
    on_ray = (tmp_path / "ray" / "results.csv").read_text()
    assert on_ray == (tmp_path / "local" / "results.csv").read_text()
    assert len(on_ray.splitlines()) == 1 + 3 * 3
    summary = json.loads((tmp_path / "ray" / "summary.json").read_text())
    assert summary["config"]["backend"] == "ray" and summary["forfeits"] == []
