"""Joining a Ray cluster, or starting a local Ray instance, for the code that runs on Ray
(tournaments: agents/ray_games.py; training: training/rllib_train.py).

Given an address ("HOST:PORT" of a cluster's head, or "auto" for the cluster this machine
belongs to) the session connects to it and leaves it running afterwards; without one it
starts a Ray instance on this machine, small by default, and stops it at the end. A Ray
already initialised in this process (a notebook, a test) is used as it is.
"""

from __future__ import annotations

import contextlib
import logging
import os

from suburbia_env.errors import ConfigError

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
        options.update(num_cpus=num_cpus or os.cpu_count() or 1, include_dashboard=False,
                       object_store_memory=object_store_bytes or LOCAL_OBJECT_STORE_BYTES)
    try:
        ray.init(**options)
    except ConnectionError as error:
        raise ConfigError(f"cannot connect to the Ray cluster at {address!r} ({error})") \
            from None
    try:
        yield ray
    finally:
        ray.shutdown()
