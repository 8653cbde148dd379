"""Joining a Ray cluster, or starting a local Ray instance, for the code that runs on Ray
(tournaments: agents/ray_games.py; training: training/rllib_train.py; a recipe's
recordings and evaluations: training/ray_stages.py).

Given an address ("HOST:PORT" of a cluster's head, or "auto" for the cluster this machine
belongs to) the session connects to it (once its head accepts a connection within
REACH_TIMEOUT_SECONDS) and leaves it running afterwards; without one it
starts a Ray instance on this machine, small by default, and stops it at the end. A Ray
already initialised in this process (a notebook, a test) is used as it is.

Anyone who reaches a Ray instance's ports can run code on it unless it checks a token
(docs/distributed.md). So a local instance listens on the loopback interface only
(LOCAL_NODE_IP, LOCAL_INSTANCE_ENV) and checks a token: a fresh secret of this process
(RAY_AUTH_TOKEN), unless the environment names one. A session refuses to start or join
Ray without token authentication (RAY_AUTH_MODE other than "token") unless asked to
explicitly: `--ray-insecure`, or SUBURBIA_RAY_INSECURE=1.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import secrets
import socket

from suburbia_env.errors import ConfigError

LOCAL_NODE_IP = "127.0.0.1"
"""The node address of a local instance. Ray's gRPC servers (GCS, raylet, workers)
listen on the loopback interface only when the node address is exactly 127.0.0.1; with
any other address, even 127.0.0.3, they listen on every interface (seen with Ray 2.60).
Ray keeps 127.0.0.1 only in its one-machine mode (LOCAL_INSTANCE_ENV, and
`_one_machine_mode` for this process, which read the mode when it imported ray);
otherwise it replaces 127.0.0.1 with the default route's address
(ray._private.services.resolve_ip_for_localhost)."""

INSECURE_ENV = "SUBURBIA_RAY_INSECURE"
INSECURE_FLAG = "--ray-insecure"
AUTH_MODE_ENV = "RAY_AUTH_MODE"
TOKEN_ENVS = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
_PROCESS_TOKEN: list[str] = []

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

REACH_TIMEOUT_SECONDS = 10.0
"""How long a session waits for a cluster's head to accept a connection before it names
the address as unreachable: Ray's own driver retries a dead address for minutes."""

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


def insecure_allowed() -> bool:
    """Whether the user asked for Ray without token authentication (INSECURE_ENV)."""
    return os.environ.get(INSECURE_ENV, "").strip().lower() in ("1", "true", "yes")


class AllowInsecureRay(argparse.Action):
    """`--ray-insecure`: sets INSECURE_ENV for this process and the ones it starts."""

    def __init__(self, option_strings, dest, **kwargs):
        kwargs.setdefault("help", "start or join Ray without token authentication (anyone "
                                  "who reaches its ports can run code on it; "
                                  "docs/distributed.md); same as SUBURBIA_RAY_INSECURE=1")
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        os.environ[INSECURE_ENV] = "1"
        setattr(namespace, self.dest, True)


def add_insecure_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(INSECURE_FLAG, action=AllowInsecureRay)


def _refusal(what: str, why: str) -> ConfigError:
    return ConfigError(f"{what} without token authentication: {why}. Anyone who reaches "
                       f"Ray's ports could then run code on it. Pass {INSECURE_FLAG} (or set "
                       f"{INSECURE_ENV}=1) to do so anyway, e.g. on a machine no one else "
                       f"can reach (docs/distributed.md)")


def _token_environment(address: str | None, insecure: bool) -> dict[str, str]:
    """The variables a session adds so that Ray checks a token; ConfigError when token
    authentication is turned off or, to join a cluster, not turned on, and not allowed."""
    mode = os.environ.get(AUTH_MODE_ENV)
    if insecure:
        return {}
    if address:
        if (mode or "").strip().lower() != "token":
            raise _refusal(f"joining the Ray cluster at {address!r}",
                           f"{AUTH_MODE_ENV} is {mode!r}, not 'token'. Start the cluster's "
                           f"nodes with {AUTH_MODE_ENV}=token and a token (`ray "
                           f"get-auth-token --generate`), and set {AUTH_MODE_ENV}=token and "
                           f"the same token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or "
                           f"~/.ray/auth_token) here")
        return {}
    if mode is not None and mode.strip().lower() != "token":
        raise _refusal("starting a local Ray instance",
                       f"{AUTH_MODE_ENV} is {mode!r}; unset it and a fresh token is made "
                       f"for the instance")
    if any(os.environ.get(name) for name in TOKEN_ENVS):
        return {}
    if not _PROCESS_TOKEN:
        _PROCESS_TOKEN.append(secrets.token_hex(32))
    return {"RAY_AUTH_TOKEN": _PROCESS_TOKEN[0]}


def token_auth_enabled() -> bool:
    """Whether this process's Ray checks tokens (ray._raylet's authentication mode); False
    for a Ray that has no token authentication."""
    try:
        from ray._private.authentication.authentication_utils import is_token_auth_enabled
    except ImportError:
        return False
    return bool(is_token_auth_enabled())


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None,
                object_store_bytes: int | None = None, insecure: bool | None = None):
    """Ray initialised for the block (module docstring); yields the `ray` module.
    `insecure`: allow Ray without token authentication (default: insecure_allowed())."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    insecure = insecure_allowed() if insecure is None else bool(insecure)
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
                       dashboard_host=LOCAL_NODE_IP,
                       object_store_memory=object_store_bytes or LOCAL_OBJECT_STORE_BYTES)
    updates = _token_environment(address, insecure)
    if address:
        check_reachable(ray, address)
    if not address:
        updates.update(LOCAL_INSTANCE_ENV)
    try:
        with _environment(updates, also_restore=(AUTH_MODE_ENV,)), \
                _one_machine_mode(ray, not address):
            ray.init(**options)
    except ConnectionError as error:
        raise ConfigError(f"cannot connect to the Ray cluster at {address!r} ({error})") \
            from None
    try:
        if not insecure and not token_auth_enabled():
            raise _refusal("Ray started" if not address else f"Ray joined at {address!r}",
                           "this Ray did not turn token authentication on")
        yield ray
    finally:
        ray.shutdown()


def check_reachable(ray, address: str, timeout: float = REACH_TIMEOUT_SECONDS) -> str:
    """The HOST:PORT a driver would dial for `address` ("auto": the cluster this machine
    belongs to), once it accepts a TCP connection within `timeout` seconds; ConfigError
    naming the address otherwise."""
    from ray._private.services import canonicalize_bootstrap_address
    try:
        target = canonicalize_bootstrap_address(address)
    except (ConnectionError, ValueError) as error:
        raise ConfigError(f"cannot find the Ray cluster {address!r}: {error}") from None
    if target is None:
        raise ConfigError(f"no Ray cluster at {address!r}: give HOST:PORT of its head (the "
                          f"--port of `ray start --head`, 6379 by default) or auto")
    host, _, port = target.rpartition(":")
    dialled = "" if target == address else f" (dialled as {target})"
    if not host or not port.isdigit():
        raise ConfigError(f"Ray cluster address {address!r}: expected HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as error:
        reason = "no answer" if isinstance(error, TimeoutError) else \
            (error.strerror or str(error))
        raise ConfigError(f"cannot reach the Ray cluster at {address!r}{dialled}: {reason} "
                          f"(waited at most {timeout:g} s); is its head running (`ray status "
                          f"--address {address}`)?") from None
    return target


@contextlib.contextmanager
def _one_machine_mode(ray, local: bool):
    """Ray's one-machine mode in this process for the block (it reads
    RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when imported), so that it keeps LOCAL_NODE_IP."""
    if not local:
        yield
        return
    from ray._private import ray_constants
    saved = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved


@contextlib.contextmanager
def _environment(updates: dict[str, str], also_restore: tuple[str, ...] = ()):
    """os.environ with `updates` for the block (the processes started in it inherit them),
    as it was afterwards (with the variables `also_restore`, which Ray may set)."""
    saved = {name: os.environ.get(name) for name in (*updates, *also_restore)}
    os.environ.update(updates)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
