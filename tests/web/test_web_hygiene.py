"""What `suburbia serve` accepts from its clients (suburbia_env/apps/web/http_guards.py,
agent_specs.py): the Host and Origin checks, the headers against framing and sniffing,
who may delete a game or a replay, agent specs confined to the model folders and checked
when the seat is made, no absolute path of the server in any answer, the inputs that
once gave a 500, and a move that must name the version it was decided on.

Every request goes to the real FastAPI application (httpx through its ASGI transport);
the served model folder is a temporary one, so that its absolute path is distinctive.
"""

import json
import shutil
import time
import warnings

import pytest

pytest.importorskip("fastapi")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from repository import REPO
from suburbia_env import Game
from suburbia_env.apps.web import Settings, create_app
from suburbia_env.apps.web.agent_specs import hide_paths
from suburbia_env.apps.web.http_guards import PAGE_POLICY

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A served folder `models` (a good model, a damaged one, one without description,
    one whose description is not one, a link out of the folder, a fake RLlib checkpoint)
    and, beside it, an `outside` folder holding a real model."""
    root = tmp_path_factory.mktemp("hygiene")
    models, outside = root / "models", root / "outside"
    models.mkdir()
    outside.mkdir()
    source = REPO / "models" / "baseline"
    for name in ("good", "damaged"):
        shutil.copy(source.with_suffix(".safetensors"), models / f"{name}.safetensors")
        shutil.copy(source.with_suffix(".json"), models / f"{name}.json")
    with open(models / "damaged.safetensors", "r+b") as weights:
        weights.truncate(4096)  # its description is fine, its weights are not
    shutil.copy(source.with_suffix(".safetensors"), models / "alone.safetensors")
    (models / "notone.safetensors").write_bytes(b"x")
    (models / "notone.json").write_text('{"format": "chess"}')
    shutil.copy(source.with_suffix(".safetensors"), outside / "secret.safetensors")
    shutil.copy(source.with_suffix(".json"), outside / "secret.json")
    (models / "escape.safetensors").symlink_to(outside / "secret.safetensors")
    (models / "escape.json").symlink_to(outside / "secret.json")
    checkpoint = models / "rllib-run"
    checkpoint.mkdir()
    (checkpoint / "suburbia_policy.safetensors").write_bytes(b"not tensors")
    (checkpoint / "suburbia_policy.json").write_text('{"format": "suburbia-rllib-policy"}')
    outside_checkpoint = outside / "rllib-run"
    shutil.copytree(checkpoint, outside_checkpoint)
    return root


class Recorded(TestClient):
    """A client that keeps the text of every answer, to look for the server's paths."""

    texts: list

    def request(self, *args, **kwargs):
        response = super().request(*args, **kwargs)
        self.texts.append(response.text + json.dumps(dict(response.headers)))
        return response


def make_client(root, base_url=LOCAL, **settings):
    app = create_app(Settings(secret_file=root / "secret.key", model_dirs=[root / "models"],
                              **settings))
    client = Recorded(app, base_url=base_url)
    client.texts = []
    return client


@pytest.fixture(scope="module")
def client(root):
    with make_client(root) as client:
        yield client
    paths = [str(root), str(REPO), str(REPO.parent)]
    leaked = [text[:300] for text in client.texts if any(path in text for path in paths)]
    assert not leaked, leaked  # no answer of the whole module showed a server path


def seat(spec, mode="dale", delay_ms=10_000):
    """A game with an agent `spec` at seat 0 (and a person at seat 1 in a standard game);
    its bot moves after `delay_ms` (the tests that do not watch it play leave it idle)."""
    players = 1 if mode == "dale" else 2
    seats = [{"kind": "agent", "agent": spec}] + [{"kind": "person"}] * (players - 1)
    return {"mode": mode, "players": players, "seats": seats, "delay_ms": delay_ms}


def headers(token):
    return {"X-Seat-Token": token}


def wait_for(client, game_id, condition, token=None, timeout=60):
    view = client.get(f"/api/games/{game_id}", headers=headers(token) if token else {}).json()
    end = time.monotonic() + timeout
    while not condition(view):
        assert time.monotonic() < end, view["bots"]
        view = client.get(f"/api/games/{game_id}?since_version={view['version']}",
                          headers=headers(token) if token else {}).json()
    return view


# Host, Origin, headers ------------------------------------------------------------------------

@pytest.mark.parametrize("host, answered", [
    ("127.0.0.1:8000", True), ("localhost:8000", True), ("LOCALHOST.", True),
    ("[::1]:8000", True), ("127.8.9.10", True), ("app.localhost:80", True),
    ("evil.example", False), ("evil.example:8000", False), ("192.168.1.20:8000", False),
    ("127.0.0.1.evil.example", False), ("", False), ("[::1", False), ("a b", False)])
def test_only_the_servers_own_names_are_answered(client, host, answered):
    """DNS rebinding: a page of evil.example pointed at 127.0.0.1 sends Host evil.example."""
    for method, url in (("GET", "/"), ("GET", "/api/options"),
                        ("POST", "/api/replays")):
        response = client.request(method, url, headers={"host": host},
                                  json={} if method == "POST" else None)
        if answered:
            assert response.status_code in (200, 422), (host, url, response.text)
        else:
            assert response.status_code == 400, (host, url)
            assert "host name" in response.json()["error"]
            assert response.headers["x-frame-options"] == "DENY"


def test_the_names_given_and_the_address_listened_on_are_answered(root):
    with make_client(root, host="192.168.1.20", allowed_hosts=["Game.Example.org"]) as client:
        for host, status in (("game.example.org", 200), ("GAME.EXAMPLE.ORG:8080", 200),
                             ("192.168.1.20:8000", 200), ("10.0.0.1", 400),
                             ("other.example.org", 400), ("localhost", 200)):
            assert client.get("/api/options", headers={"host": host}).status_code == status, host
    with make_client(root, host="0.0.0.0") as client:  # on every address: any address,
        for host, status in (("10.0.0.1:8000", 200), ("[fe80::1]:8000", 200),  # no name
                             ("evil.example", 400)):
            assert client.get("/api/options", headers={"host": host}).status_code == status, host


def test_pages_of_other_origins_change_nothing(client):
    body = seat("greedy")
    refused = client.post("/api/games", json=body, headers={"origin": "http://evil.example"})
    assert refused.status_code == 403 and "another site" in refused.json()["error"]
    for origin in ("null", "http://127.0.0.1:9999", "file://"):
        assert client.post("/api/games", json=body,
                           headers={"origin": origin}).status_code == 403, origin
    created = client.post("/api/games", json=body, headers={"origin": LOCAL})
    assert created.status_code == 201
    game_id = created.json()["id"]
    # reading is not changing: a GET with any Origin is answered (CORS keeps it unread)
    assert client.get(f"/api/games/{game_id}",
                      headers={"origin": "http://evil.example"}).status_code == 200
    deleted = client.delete(f"/api/games/{game_id}", headers={
        **headers(created.json()["token"]), "origin": "http://evil.example"})
    assert deleted.status_code == 403
    assert client.get(f"/api/games/{game_id}").status_code == 200


def test_every_answer_forbids_framing_and_sniffing(client):
    answers = [client.get("/"), client.get("/static/app.js"), client.get("/static/style.css"),
               client.get("/api/options"), client.get("/api/games/unknown-id-1234"),
               client.post("/api/games", json={"mode": "chess"}),
               client.post("/api/games", content=b"x" * (2 << 20),
                           headers={"content-type": "application/json"})]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 200, 404, 422, 413]
    for answer in answers:
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["content-security-policy"] == PAGE_POLICY
        assert "frame-ancestors 'none'" in PAGE_POLICY and "script-src 'self';" in PAGE_POLICY
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"
    assert answers[3].headers["cache-control"] == "no-store"  # answers carry tokens
    docs = client.get("/api/docs")  # FastAPI's page: its CDN, still never framed
    assert docs.status_code == 200 and "frame-ancestors 'none'" in docs.headers[
        "content-security-policy"]


# Who may delete --------------------------------------------------------------------------------

def test_only_the_creator_deletes_a_shared_game(client):
    body = {"mode": "standard", "players": 3, "seats": [{"kind": "person"}] * 2
            + [{"kind": "agent", "agent": "greedy"}], "delay_ms": 10_000}
    created = client.post("/api/games", json=body).json()
    game_id = created["id"]
    invited = created["join"]["1"]
    for token in (invited, "x" * 32):
        refused = client.delete(f"/api/games/{game_id}", headers=headers(token))
        assert refused.status_code == 403, refused.text
    refused = client.delete(f"/api/games/{game_id}")
    assert refused.status_code == 403 and "creator" in refused.json()["error"]
    assert client.get(f"/api/games/{game_id}").status_code == 200
    assert client.delete(f"/api/games/{game_id}",
                         headers=headers(created["token"])).status_code == 200
    assert client.get(f"/api/games/{game_id}").status_code == 404
    other = client.post("/api/games", json=body).json()  # the owner token is the creator's too
    assert client.delete(f"/api/games/{other['id']}",
                         headers=headers(other["owner_token"])).status_code == 200


def test_only_the_maker_deletes_a_replay(client):
    game = Game(2, "standard", "2nd", 3)
    while not game.is_over:
        game.apply(int(game.legal_actions()[0]))
    made = client.post("/api/replays", json={"record": game.record()}).json()
    opened = client.post("/api/load", json={"file": game.record()}).json()
    game_made = client.post("/api/games", json=seat("greedy")).json()
    for replay in (made, opened):
        assert replay["kind"] == "replay"
        url = f"/api/replays/{replay['id']}"
        for token in (None, game_made["token"], made["token"] if replay is opened else
                      opened["token"]):
            refused = client.delete(url, headers=headers(token) if token else {})
            assert refused.status_code == 403 and "maker" in refused.json()["error"], token
        assert client.get(url).status_code == 200
        assert client.delete(url, headers=headers(replay["token"])).status_code == 200
        assert client.get(url).status_code == 404


# Agent specs -----------------------------------------------------------------------------------

@pytest.mark.slow  # the first model loaded imports torch
def test_model_specs_name_no_path_and_play(client):
    options = client.get("/api/options").json()
    assert "ppo:models/good.safetensors" in options["agents"]
    assert "rllib:models/rllib-run" in options["agents"]
    assert not [spec for spec in options["agents"] if "escape" in spec or "alone" in spec
                or "notone" in spec or "secret" in spec]
    created = client.post("/api/games", json=seat("ppo:models/good.safetensors", delay_ms=0))
    created = created.json()
    view = wait_for(client, created["id"], lambda v: v["log_total"] >= 2 or v["bots"]["error"])
    assert view["bots"]["error"] is None
    assert view["seats"][0]["agent"] == "ppo:models/good.safetensors"
    assert view["seats"][0]["label"] == "Player 0 · ppo:good"


def refusal(client, spec, mode="dale"):
    response = client.post("/api/games", json=seat(spec, mode))
    assert response.status_code == 422, (spec, response.text)
    return response.json()["error"]


def test_a_path_outside_the_folders_and_a_missing_one_get_one_answer(client):
    """Whether a path exists outside the served folder is never told."""
    pairs = [("models/../outside/secret.safetensors", "models/../outside/nothing.safetensors"),
             ("models/escape.safetensors", "models/nothing.safetensors"),  # a link out
             ("models/alone.safetensors", "models/nothing.safetensors"),  # no description
             ("outside/secret.safetensors", "elsewhere/secret.safetensors")]
    for kind in ("ppo", "ppo-sample", "ppo-goals", "ppo-search", "ppo-rollout"):
        for present, absent in pairs:
            answers = [refusal(client, f"{kind}:{path}").replace(path, "PATH")
                       for path in (present, absent)]
            assert answers[0] == answers[1], answers
            assert "not one of the models this server offers" in answers[0]
    for present, absent in [("models/../outside/rllib-run", "models/../outside/nothing"),
                            ("outside/rllib-run", "nowhere/rllib-run"),
                            ("models/good.safetensors", "models/nothing")]:
        answers = [refusal(client, f"rllib:{path}").replace(path, "PATH")
                   for path in (present, absent)]
        assert answers[0] == answers[1] and "not one of the models" in answers[0], answers
    for path in ("/etc", "/etc/passwd", "models/../../../../etc", "~"):  # absolute, up, home
        assert "not one of the models" in refusal(client, f"rllib:{path}")


@pytest.mark.parametrize("spec, words", [
    # the inputs that gave a 500: a NUL byte, a name longer than the system allows
    ("ppo:models/a\x00b.safetensors", "not one of the models"),
    ("ppo:models/" + "a" * 270 + ".safetensors", "not one of the models"),
    ("ppo-search:models/" + "a/" * 130 + "x.safetensors,2,2", "not one of the models"),
    ("ppo-rollout:models/\x00.safetensors,2,2", "not one of the models"),
    ("rllib:models/" + "b" * 280, "not one of the models"),
    ("rllib:models/\x00", "not one of the models"),
    ("ppo:a\x00b", ".safetensors file"),
    # bots that could never move
    ("ppo-search:models/good.safetensors,-1,4", "at least 1"),
    ("ppo-search:models/good.safetensors,0,4", "at least 1"),
    ("ppo-rollout:models/good.safetensors,4,-2", "at least 1"),
    ("ppo-search:models/good.safetensors,99999999999999999999,1", "at most"),
    ("ppo-search:models/good.safetensors,8,9", "at most 64"),
    ("ppo-rollout:models/good.safetensors,4,4,nan", "W finite"),
    ("ppo-rollout:models/good.safetensors,4,4,inf", "W finite"),
    ("ppo-rollout:models/good.safetensors,4,4,-inf", "W finite"),
    ("ppo-rollout:models/good.safetensors,x,4", "whole numbers"),
    ("ppo-rollout:models/good.safetensors,4,4,0,bogus", "bogus"),
    ("ppo-rollout:models/good.safetensors,4,4,0,greedy,1,9", "up to five"),
    ("ppo-rollout:models/good.safetensors,4,4,0,greedy,-1", "G (the goal prior"),
    ("ppo:models/good.safetensors,4,4", "takes the model file alone"),
    ("ppo-sample:models/good.safetensors,1", "takes the model file alone"),
    ("ppo-goals:models/good.safetensors,-1", "at least 0"),
    ("ppo-goals:models/good.safetensors,nan", "finite"),
    ("ppo-goals:models/good.safetensors,1,2", "at most one"),
    ("ppo:models/baseline.zip", "never loads pickled models"),
    ("ppo:pickle:models/good.safetensors", "never loads pickled models"),
    ("ppo-rollout:models/some.zip,2,2", "only .safetensors"),
    ("ppo:models/good.json", ".safetensors file"),
    ("ppo:models/notone.safetensors", "cannot be loaded"),
    ("greedy:nan", "finite"),
    ("greedy:inf", "finite"),
    ("os:system", "Python code"),
])
def test_specs_that_fail_or_could_never_move_are_refused_when_the_seat_is_made(
        client, spec, words):
    message = refusal(client, spec)
    assert words in message, message


def test_model_search_agents_and_an_rllib_checkpoint_of_the_folder_are_seated(client):
    for spec in ("ppo-search:models/good.safetensors,8,4",
                 "ppo-goals:models/good.safetensors", "ppo-goals:models/good.safetensors,0.5",
                 "ppo-rollout:models/good.safetensors,2,2,0.5,greedy",
                 "ppo:models/../models/good.safetensors", "rllib:models/rllib-run"):
        assert client.post("/api/games", json=seat(spec)).status_code == 201, spec


def test_a_bots_error_shows_no_server_path(client, root):
    """A model whose weights are damaged passes the seat's checks and fails when loaded:
    the error names the file by its last part only."""
    for spec, file in (("ppo:models/damaged.safetensors", "damaged.safetensors"),
                       ("rllib:models/rllib-run", "rllib-run")):
        created = client.post("/api/games", json=seat(spec, delay_ms=0)).json()
        view = wait_for(client, created["id"], lambda v: v["bots"]["error"] is not None)
        error = view["bots"]["error"]
        assert file in error and str(root) not in error and "/" + file not in error, error


def test_hide_paths_cuts_absolute_paths_to_their_last_part():
    assert hide_paths("no file at /srv/x/m.json (y)") == "no file at m.json (y)"
    assert hide_paths("'/home/u/m.safetensors': bad; K/S = 2/3") == \
        "'m.safetensors': bad; K/S = 2/3"
    assert hide_paths(r"C:\Users\u\m.json: no") == "m.json: no"


def test_a_sealed_save_naming_a_model_by_its_absolute_path_shows_its_folder_name(client, root):
    """Saves of earlier versions held the model's absolute path in their seats."""
    from suburbia_env.apps.web.sealing import Sealer, load_or_create_key
    created = client.post("/api/games", json=seat("greedy", "standard", delay_ms=0)).json()
    game_id = created["id"]
    wait_for(client, game_id, lambda v: v["legal"] is not None, token=created["token"])
    saved = client.post(f"/api/games/{game_id}/save", headers=headers(created["token"])).json()
    sealer = Sealer(load_or_create_key(root / "secret.key"))
    payload = sealer.open(saved)
    payload["seats"][0]["agent"] = f"ppo:{root / 'models' / 'good.safetensors'}"
    loaded = client.post("/api/load", json={"file": sealer.seal(payload)})
    assert loaded.status_code == 201, loaded.text
    view = client.get(f"/api/games/{loaded.json()['id']}").json()
    assert view["seats"][0]["agent"] == "ppo:models/good.safetensors"


# Tokens, versions ------------------------------------------------------------------------------

@pytest.mark.parametrize("token", ["é".encode(), "☃".encode(), b"\xff\xfe", b"abc def",
                                   b"a" * 129])
def test_a_token_of_other_characters_is_refused_not_a_500(client, token):
    created = client.post("/api/games", json=seat("greedy", "standard")).json()
    game_id = created["id"]
    for method, url, body in (("GET", f"/api/games/{game_id}", None),
                              ("POST", f"/api/games/{game_id}/actions",
                               {"action": 0, "version": 1}),
                              ("POST", f"/api/games/{game_id}/undo", None),
                              ("POST", f"/api/games/{game_id}/bots", {"paused": True}),
                              ("POST", f"/api/games/{game_id}/save", None),
                              ("DELETE", f"/api/games/{game_id}", None)):
        response = client.request(method, url, headers=[(b"X-Seat-Token", token)], json=body)
        assert response.status_code == 422, (method, url, response.text)
        assert "X-Seat-Token" in response.json()["error"]
    assert client.get(f"/api/games/{game_id}").status_code == 200


def test_a_move_names_its_version_and_counts_once(client):
    created = client.post("/api/games", json={"mode": "dale", "players": 1, "delay_ms": 0,
                                              "seats": [{"kind": "person"}]}).json()
    game_id, token = created["id"], created["token"]
    view = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    keep = view["legal"]["keep"]["0"]
    url = f"/api/games/{game_id}/actions"
    for body in ({"action": keep}, {"action": keep, "version": None}):
        refused = client.post(url, json=body, headers=headers(token))
        assert refused.status_code == 422, refused.text
        assert "version: required" in refused.json()["error"]
    assert client.get(f"/api/games/{game_id}", headers=headers(token)).json()["version"] == \
        view["version"]
    first = client.post(url, json={"action": keep, "version": view["version"]},
                        headers=headers(token))
    again = client.post(url, json={"action": keep, "version": view["version"]},
                        headers=headers(token))  # the same click, sent twice
    assert first.status_code == 200 and again.status_code == 409
    assert "changed meanwhile" in again.json()["error"]
    assert first.json()["log_total"] == 1
    assert client.get(f"/api/games/{game_id}", headers=headers(token)).json()["log_total"] == 1


def test_the_creator_and_the_maker_still_delete_after_a_restart(root, tmp_path):
    """Their tokens are kept with the game and the replay in the store (database.py)."""
    store = tmp_path / "games.sqlite3"
    with make_client(root, store=store) as client:
        body = {"mode": "standard", "players": 2, "seats": [{"kind": "person"}] * 2}
        game = client.post("/api/games", json=body).json()
        record = Game(1, "dale", "2nd", 4)
        while not record.is_over:
            record.apply(int(record.legal_actions()[-1]))
        replay = client.post("/api/replays", json={"record": record.record()}).json()
    with make_client(root, store=store) as client:  # the server started again
        assert client.delete(f"/api/games/{game['id']}",
                             headers=headers(game["join"]["1"])).status_code == 403
        assert client.delete(f"/api/replays/{replay['id']}").status_code == 403
        assert client.delete(f"/api/games/{game['id']}",
                             headers=headers(game["token"])).status_code == 200
        assert client.delete(f"/api/replays/{replay['id']}",
                             headers=headers(replay["token"])).status_code == 200
        assert client.get(f"/api/replays/{replay['id']}").status_code == 404
