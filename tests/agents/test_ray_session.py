"""Ray without token authentication is refused unless asked for (agents/ray_session.py,
issue 30 item 9). These checks come before any Ray process starts; the local instance
itself (loopback listeners only, a driver without its token refused) is tested in
tests/agents/test_ray_tournament.py.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

pytest.importorskip("ray")

from agents.ray_session import (INSECURE_ENV, _token_environment, insecure_allowed,
                                ray_session)
from agents.tournament_cli import add_backend_arguments
from repository import REPO
from suburbia_env.errors import ConfigError


@pytest.fixture
def secure(monkeypatch):
    """An environment that neither turns token authentication off nor allows it off."""
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", INSECURE_ENV):
        monkeypatch.setenv(name, "")  # so that teardown restores what was there
        monkeypatch.delenv(name)
    return monkeypatch


def test_a_local_instance_with_authentication_off_is_refused(secure):
    secure.setenv("RAY_AUTH_MODE", "disabled")
    with pytest.raises(ConfigError) as raised:
        with ray_session(num_cpus=1):
            pytest.fail("Ray started without token authentication")
    message = str(raised.value)
    assert "starting a local Ray instance without token authentication" in message
    assert "RAY_AUTH_MODE is 'disabled'" in message
    assert "--ray-insecure" in message and f"{INSECURE_ENV}=1" in message


@pytest.mark.parametrize("mode", [None, "disabled"])
def test_joining_a_cluster_without_token_authentication_is_refused(secure, mode):
    if mode is not None:
        secure.setenv("RAY_AUTH_MODE", mode)
    with pytest.raises(ConfigError, match=r"joining the Ray cluster at '127.0.0.1:1' without "
                                          r"token authentication: RAY_AUTH_MODE is "
                                          rf"{mode!r}, not 'token'.*--ray-insecure"):
        with ray_session("127.0.0.1:1"):
            pytest.fail("joined")


def test_a_local_instance_gets_a_secret_token_of_this_process(secure):
    first = _token_environment(None, insecure=False)
    assert set(first) == {"RAY_AUTH_TOKEN"} and len(first["RAY_AUTH_TOKEN"]) == 64
    int(first["RAY_AUTH_TOKEN"], 16)
    assert _token_environment(None, insecure=False) == first  # Ray caches a process's token
    secure.setenv("RAY_AUTH_TOKEN", "mine")
    assert _token_environment(None, insecure=False) == {}  # the user's token is used
    secure.setenv("RAY_AUTH_MODE", "token")
    assert _token_environment("10.0.0.5:6379", insecure=False) == {}


def test_the_flag_allows_ray_without_token_authentication(secure):
    parser = argparse.ArgumentParser()
    add_backend_arguments(parser)
    assert not insecure_allowed()
    assert parser.parse_args([]).ray_insecure is False and not insecure_allowed()
    assert parser.parse_args(["--ray-insecure"]).ray_insecure is True
    assert os.environ[INSECURE_ENV] == "1" and insecure_allowed()
    secure.setenv("RAY_AUTH_MODE", "disabled")
    assert _token_environment(None, insecure=True) == {}
    assert _token_environment("10.0.0.5:6379", insecure=True) == {}


@pytest.mark.parametrize("command", [
    ["match", "--agents", "greedy", "random", "--games", "1", "--backend", "ray"],
    ["train", "--backend", "rllib", "--total-timesteps", "10"]])
def test_the_command_line_names_the_flag(command, tmp_path):
    environment = {**os.environ, "RAY_AUTH_MODE": "disabled",
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO),
                                                               os.environ.get("PYTHONPATH")]))}
    environment.pop(INSECURE_ENV, None)
    completed = subprocess.run([sys.executable, "-m", "suburbia_env.apps.cli", *command],
                               capture_output=True, text=True, env=environment, cwd=tmp_path,
                               timeout=300)
    assert completed.returncode != 0
    assert "without token authentication" in completed.stderr, completed.stderr[-2000:]
    assert "--ray-insecure" in completed.stderr and "Traceback" not in completed.stderr
