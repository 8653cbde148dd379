"""`suburbia serve` as a process: a port another program holds is said before anything is
announced, with its own exit status (command_errors.EXIT_PORT_TAKEN, docs/reference.md)."""

import os
import socket
import subprocess
import sys

import pytest

pytest.importorskip("fastapi")

from suburbia_env.apps import command_errors as statuses


@pytest.mark.slow  # a process that imports the package: seconds each
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_serve_on_a_taken_port_says_so_with_its_own_status(tmp_path, host):
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "suburbia_env.apps.cli", "serve", "--host", host, "--port",
             str(port), "--secret-file", str(tmp_path / "secret.key")],
            cwd=tmp_path, env=dict(os.environ, OMP_NUM_THREADS="1"), capture_output=True,
            text=True, timeout=120)
    finally:
        holder.close()
    assert completed.returncode == statuses.EXIT_PORT_TAKEN == 4, completed.stderr
    assert completed.stdout == ""  # nothing announced
    assert completed.stderr.strip() == (
        f"error: port {port} on {host} is taken: another program listens there (another "
        f"`suburbia serve`?); choose another with --port, or --port 0 for any free port")
    assert not (tmp_path / "secret.key").exists()  # it stopped before setting anything up
    assert statuses.EXIT_PORT_TAKEN not in (statuses.EXIT_BAD_INPUT, statuses.EXIT_OS_ERROR,
                                            statuses.EXIT_MISSING_EXTRA,
                                            statuses.EXIT_INTERNAL_ERROR)
