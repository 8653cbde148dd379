"""Loading an agent from a spec in a child process, timed and with its memory measured and
capped, so that a model file that reads forever, blocks or allocates gigabytes fails its
test instead of hanging or swapping the machine (agents/model_format.py, issue 30 item 8).

The child imports everything a load may import first (torch, stable-baselines3, Ray's
RLlib module), then caps its address space at what it has plus `headroom_bytes`
(RLIMIT_AS: a larger allocation fails at once) and resets its peak resident size
(/proc/self/clear_refs), so that the growth it reports is the load's own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from repository import REPO

CHILD = r"""
import json, os, resource, sys, time
import torch
torch.set_num_threads(1)
import safetensors.torch, sb3_contrib.common.maskable.policies  # noqa: F401
import agents.features  # noqa: F401
import agents.ppo_agent, agents.value_search  # noqa: F401
if sys.argv[3] == "rllib":
    import agents.rllib_agent, agents.rllib_module  # noqa: F401
from agents.registry import make_agent

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
headroom = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (status("VmSize") + headroom, resource.RLIM_INFINITY))
for spec in json.loads(sys.argv[1]):
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # VmHWM := VmRSS
    before = status("VmRSS")
    started = time.perf_counter()
    try:
        make_agent(spec, seed=0)
        outcome, message = "loaded", ""
    except BaseException as error:
        outcome, message = type(error).__name__, str(error)[:500]
    elapsed = time.perf_counter() - started
    print(json.dumps({"spec": spec, "outcome": outcome, "message": message,
                      "seconds": elapsed, "grown_bytes": status("VmHWM") - before}),
          flush=True)
"""


def load_in_child(specs: list[str], headroom_bytes: int = 1 << 30,
                  timeout: float = 120.0) -> list[dict]:
    """What loading each spec did, one after the other in one fresh process: spec, outcome
    (the exception's class name, or "loaded"), message, seconds, grown_bytes (peak
    resident growth during that load). A load that does not end in `timeout` seconds (in
    all) ends the child: its result and those after it have outcome "timeout"."""
    rllib = any(spec.startswith("rllib:") for spec in specs)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO),
                                                       os.environ.get("PYTHONPATH")]))}
    arguments = [sys.executable, "-c", CHILD, json.dumps(specs), str(headroom_bytes),
                 "rllib" if rllib else "ppo"]
    try:
        completed = subprocess.run(arguments, capture_output=True, text=True,
                                   timeout=timeout, env=env)
        stdout, failure = completed.stdout, (completed.returncode != 0
                                             and completed.stderr[-2000:])
    except subprocess.TimeoutExpired as expired:
        stdout = (expired.stdout or b"").decode(errors="replace") \
            if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        failure = f"no answer in {timeout} s"
    results = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    for spec in specs[len(results):]:
        results.append({"spec": spec, "outcome": "timeout" if "no answer" in str(failure)
                        else "crashed", "message": str(failure), "seconds": None,
                        "grown_bytes": None})
    return results
