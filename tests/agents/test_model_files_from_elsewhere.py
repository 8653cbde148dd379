"""Model files from elsewhere (issue 30 item 8): every hostile file of a model folder is
refused with a ModelFormatError in under 1 s and 100 MB (agents/model_files.py,
agents/model_format.py, agents/rllib_agent.py).

Before: a description linked to /dev/zero read forever, a FIFO blocked the loader, a
description of 2 kB (16 Boxes of 10 million elements) took 33 s and 2.9 GB before its
refusal, an RLlib description of 124 bytes (features_dim 400,000) took 98 s and 4.9 GB,
and Box bounds outside their dtype raised gymnasium's ValueError. Each load runs in a
child process with its address space capped and its peak memory measured
(tests/bounded_load.py), so that a regression fails instead of hanging or swapping.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from bounded_load import load_in_child
from repository import REPO

BASELINE = REPO / "models" / "baseline"
MAX_SECONDS = 1.0
MAX_GROWTH_BYTES = 100 * 10**6


def _model(folder: Path, name: str, description: dict | None = None,
           weights: bytes | None = None) -> Path:
    """NAME.safetensors + NAME.json in `folder`: the baseline's, or the given ones (the
    description's SHA-256 and size follow the given weights)."""
    data = weights if weights is not None else BASELINE.with_suffix(".safetensors").read_bytes()
    document = json.loads(BASELINE.with_suffix(".json").read_text()) \
        if description is None else description
    document["weights"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    path = folder / f"{name}.safetensors"
    path.write_bytes(data)
    path.with_suffix(".json").write_text(json.dumps(document))
    return path


def _description(**changes) -> dict:
    document = json.loads(BASELINE.with_suffix(".json").read_text())
    for key, value in changes.items():
        if key.startswith("observation_space_"):
            document["observation_space"][key[len("observation_space_"):]] = value
        else:
            document[key] = value
    return document


def _forged_header(shape: list[int], offsets: list[int], body: int) -> bytes:
    header = json.dumps({"x": {"dtype": "F32", "shape": shape, "data_offsets": offsets}})
    return struct.pack("<Q", len(header)) + header.encode() + b"\0" * body


def _ppo_cases(folder: Path) -> dict[str, tuple[str, str]]:
    """name -> (spec, what the error must say)."""
    cases = {}
    path = _model(folder, "zero_description")
    path.with_suffix(".json").unlink()
    path.with_suffix(".json").symlink_to("/dev/zero")
    cases["description linked to /dev/zero"] = (f"ppo:{path}", "is a link to a character "
                                                "device, not a regular file")
    path = folder / "zero_weights.safetensors"
    path.symlink_to("/dev/zero")
    path.with_suffix(".json").write_text(BASELINE.with_suffix(".json").read_text())
    cases["weights linked to /dev/zero"] = (f"ppo:{path}", "is a link to a character device")
    for kind in ("ppo", "ppo-rollout", "ppo-search"):
        path = _model(folder, f"fifo_{kind}")
        path.with_suffix(".json").unlink()
        os.mkfifo(path.with_suffix(".json"))
        cases[f"{kind}: description is a FIFO"] = (f"{kind}:{path}", r"is a FIFO \(named pipe\)")
    path = folder / "fifo_weights.safetensors"
    os.mkfifo(path)
    path.with_suffix(".json").write_text(BASELINE.with_suffix(".json").read_text())
    cases["weights are a FIFO"] = (f"ppo:{path}", r"is a FIFO \(named pipe\)")
    path = _model(folder, "directory")
    path.with_suffix(".json").unlink()
    path.with_suffix(".json").mkdir()
    cases["description is a directory"] = (f"ppo:{path}", "is a directory, not a regular file")
    box = {"type": "Box", "shape": [10_000_000], "dtype": "float64", "low": -1.0, "high": 1.0}
    spaces = _description(observation_format="dict", observation_space={
        "type": "Dict", "spaces": {f"s{index}": box for index in range(16)}})
    assert len(json.dumps(spaces)) < 3000
    cases["2 kB description of 16 huge Boxes"] = (
        f"ppo:{_model(folder, 'spaces', spaces)}", "shape must be a list of 1 to 4 positive "
                                                   "sizes with at most 100000 elements")
    for name, changes, message in [
            ("low below uint8", {"dtype": "uint8", "low": -1.0}, r"low -1.0 is outside what "
                                                                  r"uint8 holds \(0..255\)"),
            ("high above float32", {"high": 1e300}, "high 1e[+]300 is outside what float32 holds"),
            ("high above int8", {"dtype": "int8", "high": 1000}, "high 1000.0 is outside"),
            ("fractional int bound", {"dtype": "int32", "low": 0.5}, "low 0.5 must be a whole"),
            ("low above high", {"low": 5.0, "high": 1.0}, "low 5.0 is above high 1.0")]:
        description = _description(**{f"observation_space_{key}": value
                                       for key, value in changes.items()})
        cases[f"Box: {name}"] = (f"ppo:{_model(folder, name.replace(' ', '_'), description)}",
                                 message)
    path = _model(folder, "size_mismatch")
    description = json.loads(path.with_suffix(".json").read_text())
    description["weights"]["bytes"] += 1
    path.with_suffix(".json").write_text(json.dumps(description))
    cases["weights size not the described one"] = (f"ppo:{path}", "its description says")
    for name, forged in [("10^12 elements", _forged_header([10**12], [0, 4], 4)),
                         ("offsets outside", _forged_header([1], [0, 4], 0)),
                         ("header longer than the file", struct.pack("<Q", 10**15) + b"{}")]:
        path = _model(folder, f"header_{name.replace(' ', '_')}", _description(), forged)
        cases[f"safetensors header: {name}"] = (f"ppo:{path}", "not a readable safetensors "
                                                               "file")
    return cases


def _rllib_checkpoint(folder: Path, name: str, model_config, weights: bytes | None = None,
                      description: bytes | None = None) -> str:
    from safetensors.numpy import save
    from suburbia_env.engine.action_space import NUM_ACTIONS
    from suburbia_env.engine.observation import OBSERVATION_SIZE
    checkpoint = folder / name
    checkpoint.mkdir()
    (checkpoint / "suburbia_policy.safetensors").write_bytes(
        weights if weights is not None else save({"x": np.zeros(2, np.float32)}))
    text = description if description is not None else json.dumps(
        {"format": "suburbia-rllib-policy", "observation_size": OBSERVATION_SIZE,
         "num_actions": NUM_ACTIONS, "model_config": model_config}).encode()
    (checkpoint / "suburbia_policy.json").write_bytes(text)
    return f"rllib:{checkpoint}"


def _rllib_cases(folder: Path) -> dict[str, tuple[str, str]]:
    cases = {}
    spec = _rllib_checkpoint(folder, "wide", {"features_dim": 400_000})
    assert len(Path(spec[6:], "suburbia_policy.json").read_bytes()) < 150
    cases["features_dim 400,000 in 124 bytes"] = (spec, "features_dim must be a whole number "
                                                        "1..100000, not 400000")
    cases["16 layers of 100,000"] = (
        _rllib_checkpoint(folder, "deep", {"features_dim": 100_000, "hidden": [100_000] * 16}),
        r"the network described needs [0-9,]+ bytes, more than the [0-9,]+ bytes of the "
        r"weights")
    cases["hidden not widths"] = (_rllib_checkpoint(folder, "strings", {"hidden": ["x"]}),
                                  "model_config.hidden must be a list")
    spec = _rllib_checkpoint(folder, "zero", {})
    os.unlink(Path(spec[6:], "suburbia_policy.json"))
    os.symlink("/dev/zero", Path(spec[6:], "suburbia_policy.json"))
    cases["description linked to /dev/zero"] = (spec, "is a link to a character device")
    spec = _rllib_checkpoint(folder, "fifo", {})
    os.unlink(Path(spec[6:], "suburbia_policy.safetensors"))
    os.mkfifo(Path(spec[6:], "suburbia_policy.safetensors"))
    cases["weights are a FIFO"] = (spec, r"is a FIFO \(named pipe\)")
    cases["forged safetensors header"] = (
        _rllib_checkpoint(folder, "forged", {}, _forged_header([10**6, 10**6], [0, 4], 4)),
        "not a readable safetensors file")
    return cases


def _check(results: list[dict], cases: dict[str, tuple[str, str]]) -> None:
    import re
    by_spec = {result["spec"]: result for result in results}
    for name, (spec, message) in cases.items():
        result = by_spec[spec]
        assert result["outcome"] == "ModelFormatError", (name, result)
        assert re.search(message, result["message"]), (name, result["message"])
        assert result["seconds"] < MAX_SECONDS, (name, result)
        assert result["grown_bytes"] < MAX_GROWTH_BYTES, (name, result)


@pytest.mark.slow
def test_hostile_ppo_model_files_are_refused_in_bounded_time_and_memory(tmp_path):
    cases = _ppo_cases(tmp_path)
    specs = [f"ppo:{BASELINE}.safetensors"] + [spec for spec, _ in cases.values()]
    results = load_in_child(specs)
    control = results[0]
    assert control["outcome"] == "loaded", control  # the cap leaves room for a real model
    _check(results[1:], cases)


@pytest.mark.slow
def test_hostile_rllib_checkpoints_are_refused_in_bounded_time_and_memory(tmp_path):
    pytest.importorskip("ray")
    cases = _rllib_cases(tmp_path)
    _check(load_in_child([spec for spec, _ in cases.values()]), cases)


def test_an_rllib_policy_round_trips_through_its_bounded_reader(tmp_path):
    """A policy saved as the trainer saves it loads, tensor for tensor."""
    pytest.importorskip("ray")
    import torch

    from agents.rllib_agent import load_policy, save_policy
    from agents.rllib_module import build_module
    torch.manual_seed(0)
    module = build_module({"features_dim": 16, "hidden": [8]}, inference_only=True)
    weights = {name: tensor.detach().numpy() for name, tensor in module.state_dict().items()}
    save_policy(tmp_path, weights, {"model_config": {"features_dim": 16, "hidden": [8]}})
    description, loaded = load_policy(tmp_path)
    assert description["model_config"] == {"features_dim": 16, "hidden": [8]}
    for name, tensor in loaded.state_dict().items():
        assert np.array_equal(tensor.numpy(), weights[name]), name
