"""Models without code execution (agents/model_format.py, issue 22 item 4).

The shipped models in the safe format (models/baseline.safetensors and
models/multiplayer.safetensors, each with its .json) play exactly as the pickled zips they
were converted from; loading runs no unpickler; corrupted or
mismatched files give a ModelFormatError naming the problem; a zip carrying a malicious
pickle is refused by default (nothing runs) and converted without running it, and loads
only with explicit permission and a warning.
"""

from __future__ import annotations

import io
import json
import pickle
import struct
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents import PPOAgent, make_agent
from agents.model_format import (PickledModelWarning, convert_pickled_model, load_safe_model,
                                 save_safe_model)
from agents.ppo_agent import load_model
from repository import REPO
from suburbia_env import Game
from suburbia_env.errors import ModelFileNotFoundError, ModelFormatError, SuburbiaError
from suburbia_env.engine.observation import (OBSERVATION_SIZE, OBSERVATION_SIZE_V1,
                                             encode_observation)
from suburbia_env.engine.tile_data import TILES

BASELINE_ZIP = REPO / "models" / "baseline.zip"
BASELINE = REPO / "models" / "baseline.safetensors"


SHIPPED = {"baseline": "Suburbia-v1", "multiplayer": "suburbia_v1"}
"""Each released model and the environment it was trained on (models/README.md): the
baseline against Dale (gym id), the multi-player model by self-play (PettingZoo name)."""


@pytest.fixture(scope="module", params=sorted(SHIPPED))
def shipped_models(request):
    """(safe, pickled) PPOAgents of one shipped model."""
    with pytest.warns(PickledModelWarning, match="runs code stored in the file"):
        pickled = PPOAgent(REPO / "models" / f"{request.param}.zip", allow_pickle=True)
    return PPOAgent(REPO / "models" / f"{request.param}.safetensors"), pickled


def _positions(count: int, seed: int = 0):
    """(observation, mask) of positions of random play in every mode."""
    generator = np.random.default_rng(seed)
    positions = []
    setups = [(1, "dale"), (1, "solitary"), (2, "standard"), (4, "standard")]
    game_seed = 0
    while len(positions) < count:
        players, mode = setups[game_seed % len(setups)]
        game = Game(players, mode, "2nd" if game_seed % 3 else "1st", seed=game_seed)
        game_seed += 1
        while not game.is_over and len(positions) < count:
            observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
            encode_observation(game.state, TILES.table, game.current_player, observation)
            positions.append((observation, game.legal_action_mask()))
            game.apply(int(generator.choice(game.legal_actions())))
    return positions


def test_each_safe_model_decides_exactly_as_its_zip(shipped_models):
    import torch
    safe, pickled = shipped_models
    positions = _positions(400)
    for observation, mask in positions:
        assert safe.act_on_observation(observation, mask) == \
            pickled.act_on_observation(observation, mask)
        assert np.array_equal(safe.action_probabilities(observation, mask),
                              pickled.action_probabilities(observation, mask))
    batch = np.stack([observation for observation, _ in positions[:64]])
    with torch.no_grad():
        values = [agent.model.policy.predict_values(agent.model.policy.obs_to_tensor(batch)[0])
                  for agent in shipped_models]
    assert torch.equal(values[0], values[1])  # the critic too (ppo-search)
    assert safe.model.gamma == pickled.model.gamma


def test_each_safe_model_plays_the_same_seeded_games(shipped_models):
    safe, pickled = shipped_models
    for players, mode, seed in ((1, "dale", 11), (1, "solitary", 12), (3, "standard", 13)):
        histories = []
        for agent in (safe, pickled):
            game = Game(players, mode, seed=seed)
            while not game.is_over:
                game.apply(agent.act(game))
            histories.append(game.history)
        assert histories[0] == histories[1]
    games = []
    for spec in (f"ppo-sample:{BASELINE}", f"ppo-sample:pickle:{BASELINE_ZIP}"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PickledModelWarning)
            agent = make_agent(spec, seed=5)
        game = Game(1, "dale", seed=14)
        while not game.is_over:
            game.apply(agent.act(game))
        games.append(game.history)
    assert games[0] == games[1]


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_the_shipped_description_says_what_the_weights_are(name):
    description = json.loads((REPO / "models" / f"{name}.json").read_text())
    assert description["format"] == "suburbia-policy" and description["format_version"] == 1
    assert description["policy"]["features_extractor"] == {"class": "SuburbiaFeatures",
                                                           "features_dim": 256}
    assert description["policy"]["net_arch"] == [128]
    assert description["observation_format"] == "flat"
    assert description["observation_space"]["shape"] == [OBSERVATION_SIZE_V1]  # before v1.8
    assert description["environment"]["observation_size"] == OBSERVATION_SIZE_V1
    # both trained under the rules of 2026-11-25 (R9.2's goal choice), models/README.md
    assert description["environment"]["id"] == SHIPPED[name]
    assert description["training"]["converted_from"]["file"] == f"{name}.zip"


def test_loading_unpickles_nothing(monkeypatch):
    import torch

    def refuse(*args, **kwargs):
        raise AssertionError("something was unpickled")
    game = Game(1, "dale", seed=3)
    load_model(BASELINE)  # the ~1,300 modules a first load imports, some built on pickle's
    # classes, are imported unpatched (alone, this test failed at that import)
    with monkeypatch.context() as patches:  # while the model loads (numba's cache unpickles)
        for module, name in ((pickle, "load"), (pickle, "loads"), (pickle, "Unpickler"),
                             (torch, "load")):
            patches.setattr(module, name, refuse)
        agent = PPOAgent(BASELINE)
        model = load_model(BASELINE.with_suffix(".json"))  # either file names the model
    assert game.is_legal(agent.act(game))
    assert model.description["gamma"] == 0.995


# A tiny model to corrupt (`tiny`, agents/conftest.py) -----------------------------------------

def _copy(tiny, tmp_path, name="model"):
    """A fresh copy of the tiny safe model: (weights path, description dict)."""
    weights = tmp_path / f"{name}.safetensors"
    weights.write_bytes(tiny[1].read_bytes())
    weights.with_suffix(".json").write_text(tiny[1].with_suffix(".json").read_text())
    return weights, json.loads(weights.with_suffix(".json").read_text())


def _write(weights: Path, description: dict | None = None, tensors: dict | None = None):
    """Rewrite a model's files; with `tensors` the weights are replaced and the
    description's SHA-256 and size follow them (the corruption is in the tensors, not a
    mismatch)."""
    import hashlib

    from safetensors.torch import save
    if description is None:
        description = json.loads(weights.with_suffix(".json").read_text())
    if tensors is not None:
        data = save(tensors)
        weights.write_bytes(data)
        description["weights"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    weights.with_suffix(".json").write_text(json.dumps(description))


def _tensors(weights: Path) -> dict:
    from safetensors.torch import load
    return load(weights.read_bytes())


def _refused(path, message: str) -> str:
    with pytest.raises(ModelFormatError, match=message) as raised:
        PPOAgent(path)
    text = str(raised.value)
    assert str(Path(path).with_suffix("").name) in text and len(text) < 2000
    return text


def test_a_converted_model_plays_as_its_zip(tiny):
    with pytest.warns(PickledModelWarning):
        pickled = PPOAgent(tiny[0], allow_pickle=True)
    safe = PPOAgent(tiny[1])
    game = Game(1, "dale", seed=9)
    while not game.is_over:
        action = safe.act(game)
        assert action == pickled.act(game)
        game.apply(action)


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(format="other"), "'format' must be 'suburbia-policy'"),
    (lambda d: d.update(format_version=2), "format_version 2; this version of the package "
                                           "reads version 1"),
    (lambda d: d.pop("policy"), "policy is missing"),
    (lambda d: d["policy"].update({"class": "os.system"}), "policy.class must be one of"),
    (lambda d: d["policy"]["features_extractor"].update({"class": "Evil"}),
     "features_extractor.class must be one of"),
    (lambda d: d["policy"]["features_extractor"].update(features_dim=-3),
     "features_dim must be a whole number"),
    (lambda d: d["policy"]["features_extractor"].update(features_dim=10**9),
     "features_dim must be a whole number"),
    (lambda d: d["policy"].update(net_arch=[16, "x"]), "net_arch must be a list"),
    (lambda d: d["policy"].update(net_arch=[16] * 17), "net_arch must be a list"),
    (lambda d: d["policy"].update(activation_fn="Exec"), "activation_fn must be one of"),
    (lambda d: d["observation_space"].update(shape=[10**9]), "shape must be a list"),
    (lambda d: d["observation_space"].update(dtype="object"), "dtype must be one of"),
    (lambda d: d["observation_space"].update(low=float("nan")), "low must be a finite"),
    (lambda d: d["action_space"].update(n="2123"), "action_space.n must be a whole number"),
    (lambda d: d.update(observation_format="dict"), "observation_format is 'dict'"),
    (lambda d: d.update(gamma="0.99"), "gamma must be a finite number"),
    (lambda d: d["weights"].update(sha256="0" * 63), "sha256 must be 64 lowercase hex"),
    (lambda d: d["weights"].update(sha256="0" * 64), "the weights do not match"),
    (lambda d: d["weights"].update(bytes=-1), "weights.bytes must be a whole number"),
    (lambda d: d["weights"].update(bytes=12), "is [0-9]+ bytes, its description says 12"),
    (lambda d: d["policy"].update(net_arch=[17]), "tensors do not fit|has shape"),
    (lambda d: d["policy"]["features_extractor"].update(features_dim=17), "has shape"),
    (lambda d: d["policy"].update(share_features_extractor=False), "missing"),
])
def test_a_bad_description_is_named(tiny, tmp_path, edit, message):
    weights, description = _copy(tiny, tmp_path)
    edit(description)
    _write(weights, description)
    _refused(weights, message)


@pytest.mark.parametrize("text, message", [
    (b"{not json", "not JSON"), (b"\xff\xfe{}", "not UTF-8"), (b"[1, 2]", "must be an object"),
    (b"[" * 100_000 + b"]" * 100_000, "not a readable JSON|not JSON"),
    (b'{"format": 1' + b"0" * 5000 + b"}", "not a readable JSON|not JSON"),
    (b"", "not JSON"), (b" " * 2_000_000, "more than 1000000"),
])
def test_an_unreadable_description_is_named(tiny, tmp_path, text, message):
    weights, _ = _copy(tiny, tmp_path)
    weights.with_suffix(".json").write_bytes(text)
    _refused(weights, message)


@pytest.mark.parametrize("edit", [
    lambda d: d["policy"].update(net_arch=[100_000] * 16),
    lambda d: d["policy"]["features_extractor"].update(features_dim=100_000),
    lambda d: d["action_space"].update(n=10_000_000),
], ids=["16 layers of 100,000", "features_dim 100,000", "10 million actions"])
def test_a_description_of_a_huge_network_is_refused_before_any_memory_is_taken(tiny, tmp_path,
                                                                              edit):
    """A few forged bytes of description once made the loader build the network it names:
    16 layers of 100,000 units are 160 billion parameters (640 GB). The network is laid out
    on torch's meta device first and refused when its tensors need more bytes than the
    weights file that must fill them."""
    import resource
    import time
    weights, description = _copy(tiny, tmp_path)
    edit(description)
    _write(weights, description)
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    text = _refused(weights, r"the network described has [0-9,]+ parameters \([0-9,]+ bytes\), "
                             r"more than the [0-9,]+ bytes of the weights")
    assert time.perf_counter() - started < 30, text
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 500_000, f"the refusal took {grown_kib} KiB"


def test_a_zip_describing_a_huge_network_is_not_converted(tiny, tmp_path):
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(tiny[0]) as original, zipfile.ZipFile(forged, "w") as copy:
        for item in original.infolist():
            content = original.read(item.filename)
            if item.filename == "data":
                data = json.loads(content)
                data["policy_kwargs"]["net_arch"] = [100_000] * 16
                content = json.dumps(data).encode()
            copy.writestr(item, content)
    with pytest.raises(ModelFormatError, match="the network described has [0-9,]+ parameters"):
        convert_pickled_model(forged, tmp_path / "out.safetensors")
    assert not (tmp_path / "out.safetensors").exists()


def test_bad_tensors_are_named(tiny, tmp_path):
    import torch
    weights, _ = _copy(tiny, tmp_path)
    original = _tensors(weights)
    name = "action_net.weight"

    def variant(**changes):
        tensors = dict(original)
        tensors.update(changes)
        return {key: value for key, value in tensors.items() if value is not None}
    cases = [
        (variant(**{name: original[name][:-1].clone()}), rf"tensor {name} has shape"),
        (variant(**{name: original[name].to(torch.float16)}), rf"tensor {name} is torch.float16"),
        (variant(**{name: original[name].to(torch.float64)}), rf"tensor {name} is torch.float64"),
        (variant(**{name: original[name].to(torch.int32)}), rf"tensor {name} is torch.int32"),
        (variant(**{name: None}), rf"missing {name}"),
        (variant(extra=torch.zeros(3)), "unexpected extra"),
        (variant(**{"pi_features_extractor.dense.0.weight":
                    original["features_extractor.dense.0.weight"].clone()}), "unexpected"),
        (variant(**{name: torch.full_like(original[name], float("nan"))}), "NaN or infinite"),
        (variant(**{name: torch.full_like(original[name], float("inf"))}), "NaN or infinite"),
    ]
    for tensors, message in cases:
        _write(weights, tensors=tensors)
        _refused(weights, message)


@pytest.mark.parametrize("deterministic", [True, False])
def test_weights_that_overflow_give_an_error_not_an_illegal_action(tiny, tmp_path,
                                                                   deterministic):
    """Finite but huge weights pass every check of the format; the network's output is NaN,
    whose mode was action 0, illegal at a goal choice (found by tests/engine/test_fuzz.py)."""
    weights, _ = _copy(tiny, tmp_path)
    tensors = _tensors(weights)
    name = "action_net.weight"
    tensors[name] = tensors[name].clone().fill_(3e38)
    # every policy latent at tanh's 1, whatever the random initialisation: scores overflow
    bias = "mlp_extractor.policy_net.0.bias"
    tensors[bias] = tensors[bias].clone().fill_(3e38)
    _write(weights, tensors=tensors)
    agent = PPOAgent(weights, deterministic=deterministic, seed=1)
    with pytest.raises(ModelFormatError, match="not a probability distribution"):
        agent.act(Game(2, seed=4))


def test_truncated_or_foreign_weights_are_named(tiny, tmp_path):
    import hashlib
    weights, description = _copy(tiny, tmp_path)
    data = weights.read_bytes()
    for cut in (len(data) - 1, len(data) // 2, 9, 8, 3, 0):
        weights.write_bytes(data[:cut])
        _refused(weights, "its description says")  # the description no longer matches
        description["weights"].update(sha256=hashlib.sha256(data[:cut]).hexdigest(), bytes=cut)
        _write(weights, description)  # now the file matches: it is read, and refused
        _refused(weights, "not a readable safetensors file")
    header = json.dumps({"x": {"dtype": "F32", "shape": [10**12], "data_offsets": [0, 4]}})
    forged = struct.pack("<Q", len(header)) + header.encode() + b"\0" * 4
    weights.write_bytes(forged)
    description["weights"].update(sha256=hashlib.sha256(forged).hexdigest(), bytes=len(forged))
    _write(weights, description)
    _refused(weights, "not a readable safetensors file")
    weights.write_bytes(data)
    description["weights"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    _write(weights, description)
    assert PPOAgent(weights).model.policy is not None


def test_missing_files_and_wrong_names(tiny, tmp_path):
    weights, _ = _copy(tiny, tmp_path)
    weights.with_suffix(".json").unlink()
    with pytest.raises(ModelFormatError, match=r"model.json: no such file"):
        PPOAgent(weights)
    weights, _ = _copy(tiny, tmp_path, "other")
    weights.unlink()
    with pytest.raises(ModelFileNotFoundError, match=r"other.safetensors: no such file"):
        PPOAgent(weights.with_suffix(".json"))
    with pytest.raises(FileNotFoundError, match="no model file"):
        make_agent(f"ppo:{tmp_path / 'nowhere.safetensors'}")
    text = tmp_path / "model.txt"
    text.write_text("hello")
    with pytest.raises(ModelFormatError, match="a model is NAME.safetensors"):
        PPOAgent(text)
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "folder.safetensors").write_bytes(b"")
    with pytest.raises(ModelFormatError, match="is a directory"):
        PPOAgent(tmp_path / "folder.safetensors")


def test_a_zip_is_refused_by_default_whatever_its_name(tiny, tmp_path):
    disguised = tmp_path / "disguised.safetensors"
    disguised.write_bytes(tiny[0].read_bytes())
    for path in (tiny[0], disguised):
        for load in (PPOAgent, load_model, lambda p: make_agent(f"ppo:{p}"),
                     lambda p: make_agent(f"ppo-rollout:{p},2,2")):
            with pytest.raises(ModelFormatError) as raised:
                load(path)
            message = str(raised.value)
            assert "runs code stored in the file" in message
            assert "suburbia convert-model" in message and "allow_pickle=True" in message


# Malicious pickles ------------------------------------------------------------------------------

class _Marker:
    """A pickle that creates a file when it is loaded (what an attack would do)."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _inject(source: Path, target: Path, marker: Path, member: str = "data", field: str =
            "lr_schedule") -> Path:
    """A copy of the zip whose `data` field (or a whole member) runs `_Marker` when loaded."""
    import base64
    payload = pickle.dumps(_Marker(marker))
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for item in original.infolist():
            content = original.read(item.filename)
            if item.filename == member == "data":
                data = json.loads(content)
                data[field][":serialized:"] = base64.b64encode(payload).decode()
                content = json.dumps(data).encode()
            elif item.filename == member:
                content = payload
            copy.writestr(item, content)
    return target


def test_a_malicious_zip_runs_nothing_unless_allowed(tiny, tmp_path):
    marker = tmp_path / "marker"
    evil = _inject(tiny[0], tmp_path / "evil.zip", marker)
    for load in (PPOAgent, lambda p: make_agent(f"ppo:{p}"), load_model):
        with pytest.raises(ModelFormatError, match="pickled stable-baselines3 model"):
            load(evil)
    assert not marker.exists()
    # converting reads the plain fields and the tensors: the payload is never run
    converted = convert_pickled_model(evil, tmp_path / "converted.safetensors")
    assert not marker.exists()
    game = Game(1, "dale", seed=1)
    assert PPOAgent(converted).act(game) == PPOAgent(tiny[1]).act(game)
    # with explicit permission the file is unpickled (and its code runs), with a warning
    with pytest.warns(PickledModelWarning, match="runs code stored in the file"):
        agent = make_agent(f"ppo:pickle:{evil}")
    assert marker.exists()
    assert game.is_legal(agent.act(game))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("member, field, message", [
    ("data", "policy_class", "policy_class names a policy class"),
    ("policy.pth", None, "policy.pth is not a plain tensor file"),
])
def test_conversion_refuses_what_it_cannot_read_without_running(tiny, tmp_path, member, field,
                                                                 message):
    marker = tmp_path / "marker"
    evil = _inject(tiny[0], tmp_path / "evil.zip", marker, member, field)
    with pytest.raises(ModelFormatError, match=message):
        convert_pickled_model(evil, tmp_path / "out.safetensors")
    assert not marker.exists() and not (tmp_path / "out.safetensors").exists()


@pytest.mark.parametrize("content, message", [
    (b"PK\x03\x04 truncated", "not a readable zip archive"),
    (b"not a zip at all", "not a readable zip archive"),
])
def test_conversion_of_a_broken_zip_is_named(tmp_path, content, message):
    broken = tmp_path / "broken.zip"
    broken.write_bytes(content)
    with pytest.raises(ModelFormatError, match=message):
        convert_pickled_model(broken, tmp_path / "out.safetensors")
    with pytest.raises(ModelFormatError, match="not a loadable stable-baselines3 model"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PickledModelWarning)
            PPOAgent(broken, allow_pickle=True)


def test_a_zip_without_its_parts_is_named(tiny, tmp_path):
    for dropped, message in (("data", "no 'data' in the archive"),
                             ("policy.pth", "no 'policy.pth' in the archive")):
        partial = tmp_path / f"without-{dropped}.zip"
        with zipfile.ZipFile(tiny[0]) as original, zipfile.ZipFile(partial, "w") as copy:
            for item in original.infolist():
                if item.filename != dropped:
                    copy.writestr(item, original.read(item.filename))
        with pytest.raises(ModelFormatError, match=message):
            convert_pickled_model(partial, tmp_path / "out.safetensors")


# Other networks and entry points ----------------------------------------------------------------

@pytest.mark.parametrize("policy_name, options", [
    ("MultiInputPolicy", {"net_arch": [8]}),
    ("MlpPolicy", {"net_arch": {"pi": [8, 4], "vf": [6]}, "share_features_extractor": False,
                   "activation_fn": "ReLU"}),
])
def test_other_networks_round_trip(tmp_path, policy_name, options):
    import torch
    from sb3_contrib import MaskablePPO

    from suburbia_env.envs.gym_env import SuburbiaEnv
    if "activation_fn" in options:
        options["activation_fn"] = getattr(torch.nn, options["activation_fn"])
    env = SuburbiaEnv(observation_format="dict" if policy_name == "MultiInputPolicy"
                      else "flat")
    model = MaskablePPO(policy_name, env, n_steps=8, batch_size=8, device="cpu", seed=2,
                        policy_kwargs=options)
    path = save_safe_model(model.policy, tmp_path / "net.safetensors", model.gamma)
    loaded = load_safe_model(path)
    game = Game(1, "dale", seed=4)
    observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(game.state, TILES.table, 0, observation)
    mask = game.legal_action_mask()
    model_input = observation
    if policy_name == "MultiInputPolicy":
        model_input = {"observation": observation, "action_mask": mask.astype(np.int8)}
    for use in (model, loaded):
        use.policy.set_training_mode(False)
    with torch.no_grad():
        expected = model.policy.get_distribution(model.policy.obs_to_tensor(model_input)[0],
                                                 action_masks=mask[None]).distribution.probs
        got = loaded.policy.get_distribution(loaded.policy.obs_to_tensor(model_input)[0],
                                             action_masks=mask[None]).distribution.probs
    assert torch.equal(expected, got)


def test_export_and_convert_commands(tiny, tmp_path, capsys):
    from suburbia_env.apps.cli import main
    from training.export import export_model
    from training.export import main as export_main
    export_main(["--safe", str(tiny[0]), str(tmp_path / "a.safetensors"), "--env-id",
                 "Suburbia-v1", "--notes", "test"])
    description = json.loads((tmp_path / "a.json").read_text())
    assert description["environment"]["id"] == "Suburbia-v1"
    assert description["training"]["notes"] == "test"
    assert main(["convert-model", str(tiny[0]), str(tmp_path / "b.safetensors")],
                stdout=io.StringIO()) == 0
    assert (tmp_path / "b.safetensors").read_bytes() == (tmp_path / "a.safetensors").read_bytes()
    assert main(["convert-model", str(tmp_path / "missing.zip"),
                 str(tmp_path / "c.safetensors")], stdout=io.StringIO()) == 2
    assert "no model file at" in capsys.readouterr().err
    with pytest.raises(ModelFormatError, match="runs code stored in the file"):
        export_model(tiny[0], tmp_path / "d.zip")
    with pytest.raises(SystemExit):
        export_main([str(tiny[0]), str(tmp_path / "d.zip")])
    assert "runs code stored in the file" in capsys.readouterr().err


def test_play_allows_a_pickled_opponent_only_when_asked(tiny, capsys):
    from suburbia_env.apps.cli import main
    argv = ["play", "--players", "2", "--opponents", f"ppo:{tiny[0]}", "--no-board"]
    assert main(argv, stdin=io.StringIO("quit\nno\n"), stdout=io.StringIO()) == 2
    assert "runs code stored in the file" in capsys.readouterr().err
    with pytest.warns(PickledModelWarning):
        assert main(argv + ["--allow-pickle"], stdin=io.StringIO("quit\nno\n"),
                    stdout=io.StringIO()) == 0


def test_errors_are_suburbia_errors():
    assert issubclass(ModelFormatError, SuburbiaError) and issubclass(ModelFormatError,
                                                                      ValueError)
    assert issubclass(ModelFileNotFoundError, FileNotFoundError)
