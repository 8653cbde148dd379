"""A Ray cluster of two nodes started on this machine for the tests, with `ray start`: a
head on HEAD_IP and a second node on SECOND_IP with a custom resource `second_node`, both
on loopback addresses only, checking a token (docs/distributed.md). Its processes run in
their own sessions and are ended by their ids (every process of those sessions is
checked gone)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agents.ray_session import LOOPBACK_HTTP_ENV
from loopback_sockets import free_loopback_port, in_sessions
from repository import REPO

RAY = str(Path(sys.executable).parent / "ray")
CLUSTER_START_TIMEOUT = 240
CLUSTER_STOP_TIMEOUT = 120
HEAD_IP = "127.0.0.3"  # not 127.0.0.1, which Ray replaces with the default route's address
SECOND_IP = "127.0.0.2"

_PROBE = """
import json, logging, os, sys
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
from loopback_sockets import in_sessions, sockets_of

def inside():
    context = ray.get_runtime_context()
    return {"node_id": context.get_node_id(), "address": ray.util.get_node_ip_address(),
            "gcs_address": context.gcs_address}

ray.init(address=sys.argv[1], logging_level=logging.ERROR)
nodes = [node for node in ray.nodes() if node["Alive"]]
task = ray.remote(num_cpus=0)(inside)
reports = ray.get([task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
    node["NodeID"], soft=False)).remote() for node in nodes])
sessions = {int(pid) for pid in sys.argv[2].split(",")}
print(json.dumps({"nodes": nodes, "gcs_address": ray.get_runtime_context().gcs_address,
                  "inside": reports,
                  "sockets": sockets_of(in_sessions(sessions) | {os.getpid()})}))
"""


class LoopbackCluster:
    """`ray start --block` for a head and a second node, each in its own session, on
    loopback addresses (docs/distributed.md)."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # short socket paths
        self.port = free_loopback_port()
        self.address = f"{HEAD_IP}:{self.port}"
        self.env = {**os.environ, **LOOPBACK_HTTP_ENV, "OMP_NUM_THREADS": "1",
                    "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
                    "PYTHONPATH": os.pathsep.join(filter(None, [
                        str(REPO), os.environ.get("PYTHONPATH")]))}
        self.processes: list[subprocess.Popen] = []

    def start_node(self, name: str, arguments: list[str]) -> None:
        log = open(self.folder / f"{name}.log", "w")
        process = subprocess.Popen(
            [RAY, "start", "--block", "--num-cpus=1", "--object-store-memory=100000000",
             "--disable-usage-stats", f"--dashboard-agent-listen-port={free_loopback_port()}",
             *arguments], stdout=log, stderr=subprocess.STDOUT, env=self.env,
            start_new_session=True)
        self.processes.append(process)
        deadline = time.monotonic() + CLUSTER_START_TIMEOUT
        while "Ray runtime started" not in (self.folder / f"{name}.log").read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ray start ({name}) did not start:\n"
                                   + (self.folder / f"{name}.log").read_text()[-3000:])
            time.sleep(1)

    def start(self) -> None:
        self.start_node("head", ["--head", f"--node-ip-address={HEAD_IP}",
                                 f"--port={self.port}", "--include-dashboard=false",
                                 f"--ray-client-server-port={free_loopback_port()}",
                                 "--min-worker-port=20000", "--max-worker-port=20999",
                                 f"--temp-dir={self.folder}"])
        self.start_node("second", [f"--address={self.address}", f"--node-ip-address={SECOND_IP}",
                                   '--resources={"second_node": 2}',
                                   "--min-worker-port=21000", "--max-worker-port=21999"])

    def nodes(self) -> list[dict]:
        """The cluster's alive nodes as a driver sees them (id, address, resources)."""
        script = ("import json, logging, ray\n"
                  f"ray.init(address={self.address!r}, logging_level=logging.ERROR)\n"
                  "print(json.dumps([n for n in ray.nodes() if n['Alive']]))\n")
        completed = subprocess.run([sys.executable, "-c", script], capture_output=True,
                                   text=True, env=self.env, timeout=CLUSTER_START_TIMEOUT)
        assert completed.returncode == 0, completed.stderr[-3000:]
        return json.loads(completed.stdout.strip().splitlines()[-1])

    def probe(self) -> dict:
        """A driver's view, while connected: the alive nodes, the GCS address, what a task
        on each node reports from inside, and the sockets of the driver and of every
        process of the cluster (tests/loopback_sockets.py)."""
        sessions = ",".join(str(process.pid) for process in self.processes)
        env = {**self.env, "PYTHONPATH": os.pathsep.join([str(REPO / "tests"),
                                                           self.env["PYTHONPATH"]])}
        completed = subprocess.run([sys.executable, "-c", _PROBE, self.address, sessions],
                                   capture_output=True, text=True, env=env,
                                   timeout=CLUSTER_START_TIMEOUT)
        assert completed.returncode == 0, completed.stderr[-3000:]
        return json.loads(completed.stdout.strip().splitlines()[-1])

    def stop(self) -> list[int]:
        """SIGTERM to both sessions (the second node first), SIGKILL what is left after the
        timeout; returns the processes that were still alive after all that."""
        sessions = {process.pid for process in self.processes}
        for process in reversed(self.processes):
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + CLUSTER_STOP_TIMEOUT
        while in_sessions(sessions) and time.monotonic() < deadline:
            for process in self.processes:
                process.poll()  # reaps an ended `ray start`, else it stays in its session
            time.sleep(1)
        for pid in in_sessions(sessions):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        time.sleep(1)
        left = sorted(in_sessions(sessions))
        shutil.rmtree(self.folder, ignore_errors=True)
        return left


def loopback_cluster():
    """A started LoopbackCluster with both nodes alive (its `second`: the second node as
    the cluster sees it), stopped afterwards; for a module's fixture: `yield from`."""
    started = LoopbackCluster()
    try:
        started.start()
        deadline = time.monotonic() + CLUSTER_START_TIMEOUT
        nodes = started.nodes()
        while len(nodes) < 2 and time.monotonic() < deadline:
            time.sleep(2)
            nodes = started.nodes()
        assert len(nodes) == 2, nodes
        started.second = next(node for node in nodes if "second_node" in node["Resources"])
        yield started
    finally:
        left = started.stop()
        assert left == [], f"Ray processes left running: {left}"
