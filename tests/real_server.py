"""A real `suburbia serve` process for tests that restart it, kill it or measure it, and
a small HTTP client for its JSON API (one kept-alive connection, as a page holds)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from repository import REPO


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`python -m suburbia_env.apps.cli serve` on a loopback port with the given store file,
    sealing key and extra options; `start` waits until it answers."""

    def __init__(self, folder: Path, store: Path, *options: str):
        self.folder, self.store, self.options = Path(folder), Path(store), list(options)
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log = self.folder / f"server-{self.port}.log"

    def start(self, timeout: float = 600) -> "Server":
        env = dict(os.environ, XDG_CONFIG_HOME=str(self.folder), OMP_NUM_THREADS="1")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "suburbia_env.apps.cli", "serve", "--port", str(self.port),
                 "--models", str(REPO / "models"), "--secret-file",
                 str(self.folder / "secret.key"), "--store", str(self.store), *self.options],
                cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout  # a first start may compile the kernels
        while True:
            try:
                client = Client(self.port, timeout=5)
                if client.call("GET", "/api/options")[0] == 200:
                    return self
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError("suburbia serve did not start:\n" + self.log.read_text())
            time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL: no shutdown code of the server runs."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")


class Client:
    """One kept-alive connection; `call` returns (status, JSON answer)."""

    def __init__(self, port: int, timeout: float = 60, forwarded_for: str | None = None,
                 source: str | None = None):
        """`source`: the loopback address to connect from (127.0.0.0/8 is all this
        machine's), so that one test is many clients of several networks."""
        self.port, self.timeout, self.forwarded_for = port, timeout, forwarded_for
        self.source = (source, 0) if source else None
        self.connection = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout,
                                          source_address=self.source)

    def call(self, method: str, url: str, body=None, token: str | None = None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["X-Seat-Token"] = token
        if self.forwarded_for:
            headers["X-Forwarded-For"] = self.forwarded_for
        payload = json.dumps(body).encode() if body is not None else None
        for attempt in range(2):  # a kept-alive connection the server closed: once more
            try:
                self.connection.request(method, url, body=payload, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = self._connect()
                if attempt:
                    raise
        kind = response.getheader("Content-Type", "")
        return response.status, (json.loads(data) if "json" in kind else data)

    def ok(self, method: str, url: str, body=None, token: str | None = None):
        status, answer = self.call(method, url, body, token)
        assert status in (200, 201), (method, url, status, answer)
        return answer


def legal_numbers(view: dict) -> list[int]:
    """Every action number the page lights up for the viewer."""
    legal = view["legal"]
    numbers = [n for verb in ("buy", "lake", "basic") for cells in legal[verb].values()
               for n in cells.values()]
    numbers += [n for verb in ("invest", "discard", "remove", "keep")
                for n in legal[verb].values()]
    return sorted(numbers + ([legal["pass"]] if legal["pass"] is not None else []))
