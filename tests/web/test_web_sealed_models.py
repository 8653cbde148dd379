"""A sealed save whose seats name a model never makes the server load a pickle (issue 30
item 8): the seats of a loaded save are checked as a new game's are (model files under
the served folders, no ``pickle:`` permission), and the server's agent factory drops any
such permission whatever a stored seat says. A stable-baselines3 zip carrying a pickle
that would create a marker file is the model named; the marker must never appear.
"""

import base64
import json
import pickle
import warnings
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from repository import REPO
from suburbia_env.apps.web import Settings, create_app
from suburbia_env.apps.web.agent_specs import without_pickle_permission
from suburbia_env.apps.web.sealing import Sealer, load_or_create_key


class _Marker:
    """A pickle that creates a file when it is loaded (what an attack would do)."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _malicious_zip(target: Path, marker: Path) -> Path:
    """The shipped baseline zip with a `data` field that runs `_Marker` when unpickled."""
    with zipfile.ZipFile(REPO / "models" / "baseline.zip") as original, \
            zipfile.ZipFile(target, "w") as copy:
        for item in original.infolist():
            content = original.read(item.filename)
            if item.filename == "data":
                data = json.loads(content)
                data["lr_schedule"][":serialized:"] = base64.b64encode(
                    pickle.dumps(_Marker(marker))).decode()
                content = json.dumps(data).encode()
            copy.writestr(item, content)
    return target


def test_the_web_never_grants_pickle_permission():
    assert without_pickle_permission("ppo:pickle:models/x.zip") == "ppo:models/x.zip"
    assert without_pickle_permission("ppo-search:PICKLE:m.zip,2,2") == "ppo-search:m.zip,2,2"
    assert without_pickle_permission("ppo:models/x.safetensors") == "ppo:models/x.safetensors"
    assert without_pickle_permission("greedy") == "greedy"


@pytest.mark.slow
def test_a_sealed_save_naming_a_pickled_model_loads_no_pickle(tmp_path, monkeypatch):
    import torch

    def refuse(*args, **kwargs):
        raise AssertionError("torch.load was called")
    monkeypatch.setattr(torch, "load", refuse)
    models = tmp_path / "models"
    models.mkdir()
    marker = tmp_path / "marker"
    evil = _malicious_zip(models / "evil.zip", marker)
    secret = tmp_path / "secret.key"
    app = create_app(Settings(secret_file=secret, model_dirs=[models]))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        created = client.post("/api/games", json={
            "mode": "standard", "players": 2, "delay_ms": 0, "seed": 5,
            "seats": [{"kind": "person"}, {"kind": "agent", "agent": "greedy"}]})
        assert created.status_code == 201, created.text
        game = created.json()
        saved = client.post(f"/api/games/{game['id']}/save",
                            headers={"X-Seat-Token": game["token"]})
        assert saved.status_code == 200, saved.text
        sealer = Sealer(load_or_create_key(secret))
        payload = sealer.open(saved.json())
        forged = []
        for spec in (f"ppo:pickle:{evil}", f"ppo-rollout:pickle:{evil},2,2",
                     f"ppo:pickle:{REPO / 'models' / 'baseline.zip'}"):
            payload["seats"][1]["agent"] = spec
            answer = client.post("/api/load", json={"file": sealer.seal(payload)})
            assert answer.status_code == 422, answer.text
            forged.append(answer.json()["error"])
        assert all("never loads pickled models" in error for error in forged[:2]), forged
        # a zip named without the permission is refused too, when its seat is made (the
        # seat's bot could never move): the web seats .safetensors models only
        payload["seats"] = [{"seat": 0, "agent": f"ppo:{evil}", "label": "bot"},
                            {"seat": 1, "agent": None, "label": "you"}]
        answer = client.post("/api/load", json={"file": sealer.seal(payload)})
        assert answer.status_code == 422, answer.text
        assert "never loads pickled models" in answer.json()["error"]
    assert not marker.exists()
