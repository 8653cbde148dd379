"""Tournaments and leagues on Ray (agents/ray_games.py): the same seeds give exactly the
rows of the local runner, whatever the backend and the number of games at once; and the
local instance that the command line starts talks over loopback addresses only.

One small local Ray instance serves the whole module (2 CPUs, a 100 MB object store),
started as `suburbia match --backend ray` starts one (agents/ray_session.py); the runner
then uses the Ray already initialised in the process, as it would a notebook's.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents import GreedyAgent
from agents.league import run_league
from agents.ray_session import LOCAL_INSTANCE_ENV, LOCAL_NODE_IP, ray_session
from agents.registry import AgentSpecError
from agents.tournament import TournamentError, run_tournament
from loopback_sockets import (connections_to, listening_off_loopback, off_loopback,
                             sockets_of, with_descendants)

pytestmark = pytest.mark.slow  # a local Ray instance and its tournaments


@pytest.fixture(scope="module")
def local_ray():
    with ray_session(num_cpus=2, object_store_bytes=100 * 1024 * 1024) as ray:
        yield ray


def _started_programs(pids) -> dict[str, int]:
    """The GCS server, raylet and dashboard among the processes: program name -> pid."""
    found = {}
    for pid in pids:
        try:
            arguments = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:3]
        except (FileNotFoundError, ProcessLookupError):
            continue
        for argument in arguments:
            name = Path(argument.decode(errors="replace")).name
            if name in ("gcs_server", "raylet", "dashboard.py"):
                found[name] = pid
    return found


def _environment(pid: int) -> dict[str, str]:
    """A process's environment as it started (processes that rewrite their title with
    setproctitle, as Ray's agents and workers do, overwrite it: not those)."""
    entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(entry.decode(errors="replace").split("=", 1)
                for entry in entries if b"=" in entry)


def test_the_local_instance_talks_over_loopback_only(local_ray):
    """Ray would put the instance on the machine's default-route address; it is on
    LOCAL_NODE_IP, seen from here and from a task, and no socket of this process or of
    the instance's processes listens, is bound or connected to another address (not
    even the wildcard address, on which Ray listens for any node address but 127.0.0.1). The GCS server, raylet (whose agents and workers inherit it) and
    dashboard started with LOCAL_INSTANCE_ENV; this process has it no longer."""
    context = local_ray.get_runtime_context()
    host, port = context.gcs_address.rsplit(":", 1)
    assert host == LOCAL_NODE_IP
    (node,) = local_ray.nodes()
    assert node["NodeManagerAddress"] == LOCAL_NODE_IP
    assert f"node:{LOCAL_NODE_IP}" in node["Resources"]

    def where_it_runs() -> dict:  # local: pickled by value for the worker
        return {"address": local_ray.util.get_node_ip_address(),
                "gcs_address": local_ray.get_runtime_context().gcs_address}

    task = local_ray.remote(num_cpus=1)(where_it_runs)
    assert local_ray.get(task.remote()) == {"address": LOCAL_NODE_IP,
                                            "gcs_address": context.gcs_address}
    processes = with_descendants(os.getpid())
    sockets = sockets_of(processes)
    assert off_loopback(sockets) == []
    listening = [entry for entry in sockets if entry["state"] == "0A"]
    assert len(listening) >= 4  # the GCS server, the raylet's, this driver's, a worker's
    assert listening_off_loopback(sockets) == []  # no wildcard listener either
    assert len(connections_to(sockets, host, int(port))) >= 3  # this driver, raylet, agents
    started = _started_programs(processes - {os.getpid()})
    assert set(started) == {"gcs_server", "raylet", "dashboard.py"}
    assert all(LOCAL_INSTANCE_ENV.items() <= _environment(pid).items()
               for pid in started.values())
    assert not LOCAL_INSTANCE_ENV.items() <= dict(os.environ).items()


_CONNECT = """
import logging, sys
import ray
ray.init(address=sys.argv[1], logging_level=logging.ERROR)
print("CONNECTED")
"""


@pytest.mark.parametrize("credentials", [{"RAY_AUTH_MODE": "disabled"},
                                         {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}],
                         ids=["no token", "a wrong token"])
def test_the_local_instance_refuses_a_driver_without_its_token(local_ray, credentials,
                                                              tmp_path):
    """The instance checks a token made for it (agents/ray_session.py): a driver without
    it, on this very machine, does not get in."""
    import subprocess
    import sys
    gcs_address = local_ray.get_runtime_context().gcs_address
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("RAY_AUTH")}
    # no ~/.ray/auth_token; one-machine mode, else Ray turns 127.0.0.1 into this
    # machine's network address, where nothing of the instance listens
    environment.update(credentials, HOME=str(tmp_path), **LOCAL_INSTANCE_ENV)
    driver = subprocess.Popen([sys.executable, "-c", _CONNECT, gcs_address], text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    try:  # the driver gives up after about 20 s; its refusals are logged at once
        stdout, stderr = driver.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        driver.kill()
        stdout, stderr = driver.communicate()
    assert "CONNECTED" not in stdout
    assert "InvalidAuthToken" in stderr or "Unauthenticated" in stderr, stderr[-2000:]


def test_standard_games_on_ray_equal_the_local_runner(local_ray):
    """Seats rotate (agents/tournament.py), random reseeded per game and seat, and an
    agent object (a greedy player with its own weights) travels pickled to the workers."""
    agents = ["random", GreedyAgent(money_weight=2.5), "dale"]
    local = run_tournament(agents, "standard", games=4, players=3, seed=11, workers=1,
                           progress=False)
    on_ray = run_tournament(agents, "standard", games=4, players=3, seed=11, workers=3,
                            progress=False, backend="ray")
    assert on_ray.rows == local.rows
    assert len(local.rows) == 12 and {row["seed"] for row in local.rows} == {11, 12, 13, 14}
    assert all(row["population"] is not None and row["forfeit"] is None for row in local.rows)
    assert on_ray.config["backend"] == "ray" and local.config["backend"] == "process"


def test_dale_mode_on_ray_equals_local_processes(local_ray):
    specs = ["random", "greedy"]
    local = run_tournament(specs, "dale", games=3, seed=5, workers=2, progress=False)
    on_ray = run_tournament(specs, "dale", games=3, seed=5, workers=1, progress=False,
                            backend="ray")
    assert on_ray.rows == local.rows
    assert [row["agent"] for row in local.rows].count("Dale (engine)") == 6


def test_league_on_ray_equals_the_local_league(local_ray):
    specs = ["greedy", "random", "dale"]
    rows, _, summary, config = run_league(specs, player_counts=(2, 3), games=3, seed=2,
                                          workers=1, progress=False)
    rows_ray, _, summary_ray, config_ray = run_league(specs, player_counts=(2, 3), games=3,
                                                      seed=2, workers=2, progress=False,
                                                      backend="ray")
    assert rows_ray == rows and summary_ray == summary
    assert config_ray["games_played"] == config["games_played"] == 6


def test_records_come_back_from_ray(local_ray):
    local = run_tournament(["greedy"], "solitary", games=2, seed=3, workers=1,
                           progress=False, keep_records=True)
    on_ray = run_tournament(["greedy"], "solitary", games=2, seed=3, workers=2,
                            progress=False, keep_records=True, backend="ray")
    assert on_ray.records == local.records and len(local.records) == 2


def test_bad_specs_and_settings_fail_before_any_game(local_ray):
    with pytest.raises(AgentSpecError, match="unknown agent spec"):
        run_tournament(["greedy", "nobody"], "standard", games=2, progress=False,
                       backend="ray")
    with pytest.raises(TournamentError, match="at least 1"):
        run_tournament(["greedy"], "dale", games=2, workers=0, progress=False, backend="ray")
    with pytest.raises(TournamentError, match="backend must be one of process, ray"):
        run_tournament(["greedy"], "dale", games=2, progress=False, backend="spark")


def test_a_forfeit_on_ray_gives_the_rows_of_the_local_runner(local_ray, tmp_path):
    """A bot file that raises in round 3 of even seeds at 3 seats: on Ray as locally, its
    seat is last, the stand-in plays it on and the rows mark the game (issue 30 item 10)."""
    bot_file = tmp_path / "flaky_bot.py"
    bot_file.write_text("def flaky(game):\n"
                        "    if game.seed % 2 == 0 and game.round == 2:\n"
                        "        raise KeyError('lost my notes')\n"
                        "    return game.legal_actions()[0]\n")
    agents = [f"{bot_file}:flaky", "greedy", "random"]
    local = run_tournament(agents, "standard", games=3, players=3, seed=20, workers=1,
                           progress=False)
    on_ray = run_tournament(agents, "standard", games=3, players=3, seed=20, workers=2,
                            progress=False, backend="ray")
    assert on_ray.rows == local.rows
    forfeited = [row for row in local.rows if row["forfeit"]]
    assert [row["seed"] for row in forfeited] == [20, 22]
    for row in forfeited:
        game = [other for other in local.rows if other["table"] == row["table"]]
        assert all(other["stand_in_seats"] == [row["seat"]] for other in game)
        assert sum(other["win"] for other in game) == pytest.approx(1.0) and row["win"] == 0
