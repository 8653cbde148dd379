"""Joining a Ray cluster, or starting a local Ray instance, for the code that runs on Ray
(tournaments: agents/ray_games.py; training: training/rllib_train.py).

Given an address ("HOST:PORT" of a cluster's head, or "auto" for the cluster this machine
belongs to) the session connects to it and leaves it running afterwards; without one it
starts a Ray instance on this machine, small by default, whose processes talk over
loopback addresses only (LOCAL_NODE_IP, LOCAL_INSTANCE_ENV), and stops it at the end. A
Ray already initialised in this process (a notebook, a test) is used as it is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys

from suburbia_env.errors import ConfigError

LOCAL_NODE_IP = "127.0.0.1" if sys.platform == "darwin" else "127.0.0.3"
"""The node address of a local instance: a loopback address, so that a run on one machine
reaches no network interface (and no other machine can join it). Not 127.0.0.1 on Linux:
Ray replaces that literal and "localhost" with the address of the default route
(ray._private.services.resolve_ip_for_localhost), while it keeps every other address of
127.0.0.0/8, which Linux routes to the loopback interface. macOS has only 127.0.0.1 on
its loopback interface, and there Ray keeps it (its multi-node mode is off by default)."""

CLOSED_LOOPBACK_PROXY = "http://127.0.0.1:9"
LOOPBACK_HTTP_ENV = {
    **{name: CLOSED_LOOPBACK_PROXY for name in ("http_proxy", "https_proxy", "HTTP_PROXY",
                                                 "HTTPS_PROXY")},
    **{name: "localhost,127.0.0.0/8,::1" for name in ("no_proxy", "NO_PROXY")}}
"""Proxy settings that keep Ray's HTTP requests on this machine. At every start Ray's
dashboard process asks the cloud metadata servers (169.254.169.254,
metadata.google.internal) which cloud it runs on, whatever the usage-stats setting
(get_cluster_config_to_report in ray/_common/usage/usage_lib.py, with `requests`), and a
`ray start` head with usage stats disabled tells usage-stats.ray.io so. With these settings such requests go to
a closed loopback port and fail at once; loopback addresses are reached directly. Ray's
gRPC and aiohttp clients ignore proxy settings (RAY_grpc_enable_http_proxy, trust_env)."""
LOCAL_INSTANCE_ENV = {**LOOPBACK_HTTP_ENV, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
"""Environment of the processes a local instance starts: LOOPBACK_HTTP_ENV, and Ray's
one-machine mode, in which a process without a node yet takes 127.0.0.1 as its address
instead of looking up its route to 8.8.8.8 (ray._private.services.get_node_ip_address;
the runtime-env agent does so at start). In that mode `ray start` adds no second node, so
it is for a local instance only."""

LOCAL_OBJECT_STORE_BYTES = 200 * 1024 * 1024
"""Object store of a local instance: Ray's default takes 30% of the memory."""
WORKER_ENV_VARS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""One thread per worker for numerical libraries: the workers are the parallelism."""


def import_ray():
    """The `ray` module, or ConfigError naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ConfigError('running on Ray needs the distributed extra: '
                          'pip install -e ".[distributed]"') from None
    return ray


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None,
                object_store_bytes: int | None = None):
    """Ray initialised for the block (module docstring); yields the `ray` module."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    options = {"runtime_env": {"env_vars": dict(WORKER_ENV_VARS)}, "log_to_driver": False,
               "logging_level": logging.ERROR}
    if address:
        if num_cpus is not None or object_store_bytes is not None:
            raise ConfigError("the CPUs and object store of an existing cluster are set when "
                              "it is started (ray start), not here")
        options["address"] = address
    else:
        # "local": a new instance even when RAY_ADDRESS names a cluster.
        options.update(address="local", _node_ip_address=LOCAL_NODE_IP,
                       num_cpus=num_cpus or os.cpu_count() or 1, include_dashboard=False,
                       object_store_memory=object_store_bytes or LOCAL_OBJECT_STORE_BYTES)
    try:
        with _environment({} if address else LOCAL_INSTANCE_ENV):
            ray.init(**options)
    except ConnectionError as error:
        raise ConfigError(f"cannot connect to the Ray cluster at {address!r} ({error})") \
            from None
    try:
        yield ray
    finally:
        ray.shutdown()


@contextlib.contextmanager
def _environment(updates: dict[str, str]):
    """os.environ with `updates` for the block (the processes started in it inherit them),
    as it was afterwards."""
    saved = {name: os.environ.get(name) for name in updates}
    os.environ.update(updates)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
