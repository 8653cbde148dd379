"""The web application's API (suburbia_env/apps/web): hidden information (R10.2), validation
of every request, per-client bounds, undo, sealed saves and replays.

The hidden-information tests plant what must never leak: the goals each seat drew
(R3.6), the order of the stacks (R3.2) and the seed that would tell both, and read every
response body a seat or a watcher receives while the game is played to the end.
"""

import json
import random
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("fastapi")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from hidden_facts import undrawn_stacks
from repository import REPO
from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.apps.web import Settings, create_app
from suburbia_env.apps.web.store import Limits

SEED = 987654321  # a distinctive number: it must not appear before the game is over


@pytest.fixture(scope="module")
def secret(tmp_path_factory):
    return tmp_path_factory.mktemp("web") / "secret.key"


def make_client(secret, **limits):
    app = create_app(Settings(limits=Limits(**limits), secret_file=secret,
                              model_dirs=[REPO / "models"]))
    return TestClient(app, base_url="http://127.0.0.1")  # a Host the server answers


@pytest.fixture(scope="module")
def client(secret):
    with make_client(secret) as client:
        yield client


def new_game(client, mode="standard", players=2, seats=None, seed=SEED, delay_ms=0):
    seats = seats or [{"kind": "person"}] * players
    body = {"mode": mode, "players": players, "seats": seats, "delay_ms": delay_ms}
    if seed is not None:
        body["seed"] = seed
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def legal_numbers(view):
    """Every action number the page lights up for the viewer."""
    legal = view["legal"]
    numbers = [n for verb in ("buy", "lake", "basic") for cells in legal[verb].values()
               for n in cells.values()]
    numbers += [n for verb in ("invest", "discard", "remove", "keep")
                for n in legal[verb].values()]
    return sorted(numbers + ([legal["pass"]] if legal["pass"] is not None else []))


def headers(token):
    return {"X-Seat-Token": token}


def any_action(view, rng):
    """A legal action of the view's grouped legal actions (the engine's mask)."""
    legal = view["legal"]
    numbers = [number for verb in ("buy", "lake", "basic") for cells in legal[verb].values()
               for number in cells.values()]
    numbers += [n for verb in ("invest", "discard", "remove", "keep") for n in legal[verb].values()]
    if legal["pass"] is not None:
        numbers.append(legal["pass"])
    return rng.choice(numbers)


def hidden_names(game, seat):
    """The goals drawn by `seat` (kept or returned): names the others must never read."""
    base = s.player_base(seat)
    return [GOALS.names[int(g)] for g in game.state[base + s.GOAL_OPTIONS:base + s.GOAL_OPTIONS + 2]]


def stack_order_texts(game):
    """The undrawn stacks in order, as a JSON list would spell them (several windows)."""
    pile = [TILES.names[int(k)] for k in
            game.state[s.PILE + int(game.state[s.PILE_POSITION]):s.PILE + int(game.state[s.PILE_END])]]
    windows = [pile[start:start + 3] for start in range(0, len(pile) - 3, 3)]
    return ([json.dumps(window)[1:-1] for window in windows]
            + [json.dumps(window, separators=(",", ":"))[1:-1] for window in windows]
            + [", ".join(window) for window in windows])


def wait_for_version_change(client, game_id, token, version, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = client.get(f"/api/games/{game_id}?since_version={version}", headers=headers(token))
        assert view.status_code == 200
        if view.json()["version"] != version:
            return view.json()
    raise AssertionError("no change")


# Hidden information (R10.2) -------------------------------------------------------------------

def test_two_people_never_read_each_others_goals_or_the_stacks_r10_2(client):
    """Two people at one table: every body each seat or a watcher receives, from setup to
    the last decision, names neither the other seat's drawn goals (the kept one and the
    returned one), the stack order, where One More Round lies, nor the seed (shown only to
    the creator, who typed it); each seat sees its own goals."""
    created = new_game(client, players=2)
    game_id, tokens = created["id"], {0: created["token"], 1: created["join"]["1"]}
    reference = Game(2, "standard", "2nd", SEED)  # the same setup, to know what is hidden
    secrets_of = {seat: hidden_names(reference, seat) for seat in (0, 1)}
    public = set(reference.public_goals)
    assert not public & set(secrets_of[0] + secrets_of[1])
    stack_texts = stack_order_texts(reference)
    rng = random.Random(3)
    bodies_seen = {0: [], 1: [], None: []}
    for _ in range(400):
        for seat in (0, 1, None):
            response = client.get(f"/api/games/{game_id}?log_since=0",
                                  headers=headers(tokens[seat]) if seat is not None else {})
            assert response.status_code == 200
            bodies_seen[seat].append(response.text)
        view = json.loads(bodies_seen[None][-1])
        if view["over"]:
            break
        seat = view["current"]
        mine = client.get(f"/api/games/{game_id}", headers=headers(tokens[seat])).json()
        other = 1 - seat
        # the other seat cannot play for this one: 409, and the answer names nothing hidden
        refused = client.post(f"/api/games/{game_id}/actions", headers=headers(tokens[other]),
                              json={"action": any_action(mine, rng), "version": mine["version"]})
        assert refused.status_code == 409 and "not your decision" in refused.json()["error"]
        bodies_seen[other].append(refused.text)
        played = client.post(f"/api/games/{game_id}/actions", headers=headers(tokens[seat]),
                             json={"action": any_action(mine, rng), "version": mine["version"]})
        assert played.status_code == 200, played.text
        bodies_seen[seat].append(played.text)
    assert view["over"], "the game did not end"
    for seat, bodies in bodies_seen.items():
        during = [body for body in bodies if '"over":true' not in body]
        assert len(bodies) - len(during) <= 2  # the finished game's bodies show everything
        others = [s_ for s_ in (0, 1) if s_ != seat]
        drawn = [index for index, body in enumerate(during)
                 if "One More Round is drawn" in body]
        assert drawn, "One More Round is drawn before a standard game ends (R4.3)"
        for index, body in enumerate(during):
            for other in others:
                for name in secrets_of[other]:
                    assert name not in body, f"seat {seat} read {name} of seat {other}"
            for text in stack_texts:
                assert text not in body, f"seat {seat} read the stack order {text}"
            for leak in ('"stacks"', '"rng_state"', '"pile"'):
                assert leak not in body
            if index < drawn[0]:
                assert "One More Round" not in body, f"seat {seat} read where it lies"
            if seat != 0:
                assert str(SEED) not in body, f"seat {seat} read the seed"
            view = json.loads(body)
            if "svg" in view and seat is None:
                assert view["goal_options"] is None and view["private_goal"] is None
                assert "Your goal" not in view["svg"]
        if seat is not None:
            assert any(secrets_of[seat][0] in body or secrets_of[seat][1] in body
                       for body in during), "a seat sees its own drawn goals"
    assert all(f'"seed":"{SEED}"' in body for body in bodies_seen[0] if '"svg"' in body)
    final = json.loads(bodies_seen[None][-1])
    assert final["seed"] == str(SEED) and final["can_download"]
    assert client.get(f"/api/games/{game_id}/record").json()["seed"] == SEED


def test_a_person_against_bots_sees_only_public_information_and_the_log_hides_kept_goals(client):
    created = new_game(client, players=3, seats=[
        {"kind": "person"}, {"kind": "agent", "agent": "random"}, {"kind": "agent", "agent": "random"}])
    reference = Game(3, "standard", "2nd", SEED)
    hidden = hidden_names(reference, 1) + hidden_names(reference, 2)
    token = created["token"]
    view = client.get(f"/api/games/{created['id']}", headers=headers(token)).json()
    rng = random.Random(1)
    for _ in range(6):
        while view["legal"] is None:
            view = wait_for_version_change(client, created["id"], token, view["version"])
        body = client.post(f"/api/games/{created['id']}/actions", headers=headers(token),
                           json={"action": any_action(view, rng), "version": view["version"]})
        assert body.status_code == 200
        view = body.json()
        watched = client.get(f"/api/games/{created['id']}")
        for name in hidden:
            assert name not in body.text and name not in watched.text
        assert view["seed"] == str(SEED)  # the person typed it (as text: 64 bits)
        assert str(SEED) not in watched.text  # a watcher did not
    bot_keeps = [entry for entry in view["log"] if entry["seat"] != 0 and entry["round"] == 1
                 and "keep" in entry["action"]]
    assert bot_keeps and all(entry["action"] == "keeps a private goal"
                             and entry["notation"] == "keep ?" for entry in bot_keeps)
    # no plain state or record while a person plays (R10.2)
    assert client.get(f"/api/games/{created['id']}/state").status_code == 403
    assert client.get(f"/api/games/{created['id']}/record").status_code == 403
    assert client.post(f"/api/games/{created['id']}/replay").status_code == 403


def test_a_random_seed_is_shown_only_when_the_game_is_over(client):
    """A seed nobody typed would tell the stacks and goals (R10.2): the person learns it
    with the final scoring, on the page and in the drawing."""
    created = new_game(client, mode="dale", players=1, seats=[{"kind": "person"}], seed=None)
    game_id, token = created["id"], created["token"]
    rng = random.Random(9)
    view = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    bodies = []
    while not view["over"]:
        assert view["seed"] is None and "random" in view["seed_note"]
        response = client.post(f"/api/games/{game_id}/actions", headers=headers(token),
                               json={"action": any_action(view, rng), "version": view["version"]})
        bodies.append(response.text)
        view = response.json()
    seed = view["seed"]
    assert isinstance(seed, str) and seed.isdigit() and f"seed {seed}" in view["svg"]
    assert not any(seed in body for body in bodies[:-1])
    assert client.get(f"/api/games/{game_id}/record").json()["seed"] == int(seed)


def test_sealed_save_hides_everything_and_loads_back_with_undo(client):
    """The sealed file names no goal and no tile; loading it continues the same position,
    and undo still takes back the person's last move (R5, R10.2)."""
    created = new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
    token, game_id = created["token"], created["id"]
    rng = random.Random(5)
    view = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    for _ in range(3):
        view = client.post(f"/api/games/{game_id}/actions", headers=headers(token),
                           json={"action": any_action(view, rng), "version": view["version"]}).json()
    saved = client.post(f"/api/games/{game_id}/save", headers=headers(token))
    assert saved.status_code == 200
    envelope = saved.json()
    assert envelope["format"] == "suburbia-sealed-game" and envelope["version"] == 1
    for name in TILES.names + GOALS.names:
        assert name not in envelope["sealed"]
    assert '"stacks"' not in saved.text and str(SEED) not in saved.text
    loaded = client.post("/api/load", json={"file": envelope})
    assert loaded.status_code == 201
    again = client.get(f"/api/games/{loaded.json()['id']}",
                       headers=headers(loaded.json()["token"])).json()
    assert again["svg"] == view["svg"] and again["log_total"] == view["log_total"]
    assert again["private_goal"] == view["private_goal"]
    undone = client.post(f"/api/games/{loaded.json()['id']}/undo",
                         headers=headers(loaded.json()["token"]))
    assert undone.status_code == 200 and undone.json()["log_total"] == view["log_total"] - 1
    # a changed byte, or a key of another server: refused, nothing loaded
    tampered = dict(envelope, sealed=envelope["sealed"][:-6] + "AAAAAA")
    refused = client.post("/api/load", json={"file": tampered})
    assert refused.status_code == 422 and "changed" in refused.json()["error"]


def test_several_people_save_only_when_the_game_is_over(client):
    created = new_game(client, players=2)
    saved = client.post(f"/api/games/{created['id']}/save", headers=headers(created["token"]))
    assert saved.status_code == 409 and "others' goals" in saved.json()["error"]


# Undo ---------------------------------------------------------------------------------------------

def test_undo_takes_back_the_persons_last_decision_and_the_bots_after_it(client):
    created = new_game(client, players=2, seats=[{"kind": "person"},
                                                 {"kind": "agent", "agent": "random"}])
    game_id, token = created["id"], created["token"]
    view = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    rng = random.Random(2)
    while view["legal"] is None:
        view = wait_for_version_change(client, game_id, token, view["version"])
    before = view
    view = client.post(f"/api/games/{game_id}/actions", headers=headers(token),
                       json={"action": any_action(view, rng), "version": view["version"]}).json()
    while view["legal"] is None:  # the bot answers
        view = wait_for_version_change(client, game_id, token, view["version"])
    assert view["log_total"] > before["log_total"]
    undone = client.post(f"/api/games/{game_id}/undo", headers=headers(token)).json()
    assert undone["log_total"] == before["log_total"]
    assert undone["legal"] == before["legal"] and undone["svg"] == before["svg"]
    # a page that asks for the log past its shortened end is told where the answer starts
    # (what it asked, clamped), so it can tell a late answer from one it must join
    asked = view["log_total"]
    late = client.get(f"/api/games/{game_id}?log_since={asked}", headers=headers(token)).json()
    assert (late["log_since"], late["log_from"], late["log"]) == (before["log_total"],) * 2 + ([],)
    since = before["log_total"] - 1
    part = client.get(f"/api/games/{game_id}?log_since={since}", headers=headers(token)).json()
    assert (part["log_since"], part["log_from"]) == (since, since)
    assert [entry["n"] for entry in part["log"]] == [before["log_total"]]
    # a watcher cannot undo, nor can a person with nothing to undo
    assert client.post(f"/api/games/{game_id}/undo").status_code == 409
    fresh = new_game(client, players=2, seats=[{"kind": "person"}, {"kind": "agent", "agent": "random"}])
    assert client.post(f"/api/games/{fresh['id']}/undo",
                       headers=headers(fresh["token"])).status_code in (409,)


def test_undo_deals_the_unseen_anew_and_the_game_replays_here_not_from_its_seed(client):
    """After an undo the person has seen the tiles drawn after the move taken back; what
    he cannot see is dealt anew (R10.2) from fresh secret words (rng.secret_words), kept
    with the game, so the stacks to come are not the ones he saw. The game then has no
    seed-and-moves record, but replays here to its final position, and a sealed save
    keeps the redraw."""
    created = new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
    game_id, token = created["id"], created["token"]
    rng = random.Random(4)
    view = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    played = []
    for _ in range(3):
        played.append(any_action(view, rng))
        view = client.post(f"/api/games/{game_id}/actions", headers=headers(token),
                           json={"action": played[-1], "version": view["version"]}).json()
    undone = client.post(f"/api/games/{game_id}/undo", headers=headers(token))
    assert undone.status_code == 200
    played.pop()
    expected = Game(1, "dale", "2nd", SEED)
    for number in played:
        expected.apply(number)
    original_order = undrawn_stacks(expected.state)
    redraw, = client.app.state.store.get(game_id, "game").redraws  # what the game keeps
    assert (redraw.at, redraw.viewer) == (len(played), 0)
    expected.redraw_hidden(0, redraw.words)
    assert not np.array_equal(undrawn_stacks(expected.state), original_order)
    saved = client.post(f"/api/games/{game_id}/save", headers=headers(token)).json()
    view = undone.json()
    while not view["over"]:
        number = any_action(view, rng)
        expected.apply(number)
        view = client.post(f"/api/games/{game_id}/actions", headers=headers(token),
                           json={"action": number, "version": view["version"]}).json()
    assert expected.is_over
    assert client.get(f"/api/games/{game_id}/state").text == expected.to_json()
    refused = client.get(f"/api/games/{game_id}/record")
    assert refused.status_code == 409 and "undo" in refused.json()["error"]
    replay = client.post(f"/api/games/{game_id}/replay")
    assert replay.status_code == 201
    replay_id, total = replay.json()["id"], replay.json()["total"]
    assert total == len(expected.history)
    last = client.get(f"/api/replays/{replay_id}?step={total}").json()
    assert last["over"] and last["scores"] == view["scores"]
    assert last["this_step"]["notation"] == expected.history[-1]
    assert client.get(f"/api/replays/{replay_id}/record").status_code == 409
    assert not view["has_record"] and not last["has_record"]  # the page hides its buttons
    # the sealed save made after the undo replays, redraw included, to its saved state
    loaded = client.post("/api/load", json={"file": saved})
    assert loaded.status_code == 201
    loaded = loaded.json()
    again = client.get(f"/api/games/{loaded['id']}", headers=headers(loaded["token"])).json()
    assert again["svg"] == undone.json()["svg"]


# Validation -------------------------------------------------------------------------------------

@pytest.mark.parametrize("body, words", [
    ({"mode": "dale", "players": "one", "seats": [{"kind": "person"}]}, "players"),
    ({"mode": "dale", "players": 1.0, "seats": [{"kind": "person"}]}, "players"),
    ({"mode": "chess", "players": 1, "seats": [{"kind": "person"}]}, "mode"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "person"}], "cheat": True}, "cheat"),
    ({"mode": "dale", "players": 1, "seats": []}, "seats"),
    ({"mode": "standard", "players": 3, "seats": [{"kind": "person"}]}, "seats"),
    ({"mode": "standard", "players": 5, "seats": [{"kind": "person"}] * 5}, "players"),
    ({"mode": "solitary", "players": 2, "seats": [{"kind": "person"}] * 2}, "players"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "agent"}]}, "agent spec"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "agent", "agent": "alphazero"}]},
     "alphazero"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "agent", "agent": "greedy:x,y"}]},
     "greedy"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "agent", "agent": "ppo:/etc/passwd"}]},
     ".safetensors file"),
    ({"mode": "standard", "players": 2, "seats": [
        {"kind": "person"}, {"kind": "agent", "agent": "ppo-rollout:models/missing.safetensors"}]},
     "not one of the models"),
    ({"mode": "dale", "players": 1, "seats": [
        {"kind": "agent", "agent": "ppo:pickle:models/baseline.zip"}]}, "pickled"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "person"}], "seed": -1}, "seed"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "person"}], "seed": 2**64}, "seed"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "person", "agent": "greedy"}]}, "person"),
    # specs that would run code from a file or a module are never taken from a client
    ({"mode": "dale", "players": 1, "seats": [{"kind": "agent", "agent": "os:system"}]},
     "os:system"),
    ({"mode": "dale", "players": 1, "seats": [{"kind": "agent", "agent": "/tmp/bot.py:Bot"}]},
     "bot.py"),
    # a search agent's trials per decision are bounded (the server's cores are shared)
    ({"mode": "dale", "players": 1, "seats": [
        {"kind": "agent", "agent": "ppo-search:models/baseline.safetensors,64,64"}]},
     "at most 64"),
])
def test_malformed_new_games_get_a_4xx_naming_the_problem(client, body, words):
    response = client.post("/api/games", json=body)
    assert response.status_code == 422, response.text
    assert words in response.json()["error"]


def test_malformed_and_illegal_actions_leave_the_game_unchanged(client):
    created = new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
    game_id, token = created["id"], created["token"]
    view = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    url = f"/api/games/{game_id}/actions"
    cases = [
        ({"action": "buy 2 @ 0,3"}, 422, "action"),
        ({"action": True}, 422, "action"),
        ({"action": 10**30}, 422, "action"),
        ({"action": -1}, 422, "action"),
        ({"action": view["legal"]["keep"]["0"], "extra": 1}, 422, "extra"),
        ({"action": 0, "version": view["version"]}, 422, "illegal action"),  # a buy, at keep_goal
        ({"action": view["legal"]["keep"]["0"]}, 422, "version: required"),
        ({}, 422, "action"),
    ]
    for body, status, words in cases:
        response = client.post(url, json=body, headers=headers(token))
        assert response.status_code == status, (body, response.text)
        assert words in response.json()["error"], (body, response.text)
    response = client.post(url, content=b"{not json", headers={**headers(token),
                                                               "Content-Type": "application/json"})
    assert response.status_code == 422
    mine = {"action": view["legal"]["keep"]["0"], "version": view["version"]}
    assert client.post(url, json=mine).status_code == 403
    assert client.post(url, json={**mine, "action": 1},
                       headers=headers("x" * 30)).status_code == 403
    stale = client.post(url, json={"action": view["legal"]["keep"]["0"], "version": 0},
                        headers=headers(token))
    assert stale.status_code == 409 and "changed" in stale.json()["error"]
    after = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    assert after["version"] == view["version"] and after["svg"] == view["svg"]
    assert client.post(url, json={"action": view["legal"]["keep"]["1"],
                                  "version": view["version"]},
                       headers=headers(token)).status_code == 200


def test_malformed_bot_and_load_requests_leave_the_game_unchanged(client):
    created = new_game(client, players=2, seats=[{"kind": "person"},
                                                 {"kind": "agent", "agent": "random"}],
                       delay_ms=10_000)
    game_id, token = created["id"], created["token"]
    before = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    url = f"/api/games/{game_id}/bots"
    for body, words in [({"delay_ms": -5}, "delay_ms"), ({"delay_ms": 10**9}, "delay_ms"),
                        ({"paused": "no"}, "paused"), ({"speed": 3}, "speed"),
                        ({"step": 1}, "step")]:
        response = client.post(url, json=body, headers=headers(token))
        assert response.status_code == 422 and words in response.json()["error"], response.text
    for body, words in [({"file": {"format": "suburbia-state"}, "seats": []}, "seats"),
                        ({"file": "state.json"}, "file"), ({}, "file")]:
        response = client.post("/api/load", json=body)
        assert response.status_code == 422 and words in response.json()["error"], response.text
    assert client.get(f"/api/games/{game_id}?log_since=-1").status_code == 422
    assert client.get(f"/api/games/{game_id}?since_version=x").status_code == 422
    assert client.post(f"/api/games/{game_id}/undo", headers=headers("y" * 40)).status_code == 403
    after = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
    settings = ("delay_ms", "paused", "fast_forward", "error")
    assert (after["version"], after["svg"], [after["bots"][k] for k in settings]) == (
        before["version"], before["svg"], [before["bots"][k] for k in settings])


@pytest.mark.parametrize("url", ["/api/games/unknown-id-1234", "/api/replays/unknown-id-1234",
                                 "/api/games/unknown-id-1234/record"])
def test_unknown_ids_are_404(client, url):
    response = client.get(url)
    assert response.status_code == 404 and "no " in response.json()["error"]


def test_ids_of_the_wrong_shape_are_refused(client):
    assert client.get("/api/games/a..b").status_code in (404, 422)
    assert client.get("/api/games/" + "x" * 100).status_code == 422


def test_huge_bodies_get_413(client):
    big = {"mode": "dale", "players": 1, "seats": [{"kind": "person"}], "pad": "x" * (2 << 20)}
    response = client.post("/api/games", json=big)
    assert response.status_code == 413 and "larger than" in response.json()["error"]


def test_loading_files_that_are_not_games(client):
    for data, words in [({"format": "chess"}, "format"),
                        ({"format": "suburbia-sealed-game", "version": 1, "sealed": "abc"},
                         "changed"),
                        ({"format": "suburbia-sealed-game", "version": 7, "sealed": "abc"},
                         "version"),
                        ({"format": "suburbia-state", "version": 2}, "state"),
                        ({"format": "suburbia-record", "version": 2,
                          "config": {"players": 1, "mode": "dale", "edition": "2nd",
                                     "random_private_goals": False},
                          "seed": 1, "actions": ["pass"]}, "actions[0]")]:
        response = client.post("/api/load", json={"file": data})
        assert response.status_code == 422, response.text
        assert words in response.json()["error"]
    assert client.post("/api/load", json={"file": []}).status_code == 422
    record = {"format": "suburbia-record", "version": 2,
              "config": {"players": 1, "mode": "dale", "edition": "2nd",
                         "random_private_goals": False}, "seed": 1,
              "actions": ["pass"] * 6000}
    assert client.post("/api/replays", json={"record": record}).status_code == 413


# Bounds --------------------------------------------------------------------------------------------

def test_games_per_client_and_in_all_are_bounded(secret):
    with make_client(secret, max_per_client=3, max_sessions=100) as client:
        ids = [new_game(client, mode="dale", players=1, seats=[{"kind": "person"}]) for _ in range(3)]
        refused = client.post("/api/games", json={"mode": "dale", "players": 1,
                                                  "seats": [{"kind": "person"}]})
        assert refused.status_code == 429 and "already hold 3" in refused.json()["error"]
        assert client.delete(f"/api/games/{ids[0]['id']}").status_code == 403  # not a member
        assert client.delete(f"/api/games/{ids[0]['id']}",
                             headers=headers(ids[0]["token"])).status_code == 200
        new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
    with make_client(secret, max_per_client=10, max_sessions=2) as client:
        for _ in range(2):
            new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
        refused = client.post("/api/games", json={"mode": "dale", "players": 1,
                                                  "seats": [{"kind": "person"}]})
        assert refused.status_code == 429 and "server holds" in refused.json()["error"]


def test_bot_settings_and_views_do_not_pile_up_drawings(client):
    """The drawings a game keeps are bounded by its viewers, however often a client
    changes the bots' pace (each change is a new version) or asks for views."""
    created = new_game(client, players=2, seats=[{"kind": "person"},
                                                 {"kind": "agent", "agent": "random"}],
                       delay_ms=10_000)
    game_id, token = created["id"], created["token"]
    session = client.app.state.store.get(game_id, "game")
    for delay in range(50):
        assert client.post(f"/api/games/{game_id}/bots", json={"delay_ms": 5000 + delay},
                           headers=headers(token)).status_code == 200
        client.get(f"/api/games/{game_id}", headers=headers(token))
        client.get(f"/api/games/{game_id}")
    assert len(session._svg_cache) <= 2


def test_open_long_polls_per_client_are_bounded(secret):
    """A page holds one long poll; a client holding many more is refused (429), and the
    ones it holds still answer."""
    import threading
    with make_client(secret, max_waits_per_client=2) as client:
        created = new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
        game_id, token = created["id"], created["token"]
        version = client.get(f"/api/games/{game_id}", headers=headers(token)).json()["version"]
        answers = []

        def wait():
            answers.append(client.get(f"/api/games/{game_id}?since_version={version}",
                                      headers=headers(token)).status_code)

        waiters = [threading.Thread(target=wait) for _ in range(2)]
        for waiter in waiters:
            waiter.start()
        session = client.app.state.store.get(game_id, "game")
        end = time.monotonic() + 10
        while session.notifier.waiting < 2 and time.monotonic() < end:
            time.sleep(0.02)
        refused = client.get(f"/api/games/{game_id}?since_version={version}",
                             headers=headers(token))
        assert refused.status_code == 429 and "waiting requests" in refused.json()["error"]
        view = client.get(f"/api/games/{game_id}", headers=headers(token)).json()
        client.post(f"/api/games/{game_id}/actions", headers=headers(token),
                    json={"action": view["legal"]["keep"]["0"], "version": view["version"]})
        for waiter in waiters:
            waiter.join(timeout=10)
        assert answers == [200, 200]
        again = client.get(f"/api/games/{game_id}?since_version=0", headers=headers(token))
        assert again.status_code == 200  # the slots are given back


def test_idle_games_expire_on_a_timer_and_reading_does_not_renew_them(secret):
    """Only a move (or a creation) renews a game; a sweep on a timer deletes the others,
    with no other request needed."""
    idle = 4.0  # well above a loop of three requests on a loaded machine
    with make_client(secret, idle_seconds=idle, sweep_seconds=0.1) as client:
        played = new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
        start = time.monotonic()
        read = new_game(client, mode="dale", players=1, seats=[{"kind": "person"}])
        # until the sweep deletes the game only read (no fixed wait: a loaded machine may
        # slow every request), the other is played every 0.3 s
        while client.get(f"/api/games/{read['id']}").status_code == 200:
            assert time.monotonic() - start < 60, "the game only read never expired"
            view = client.get(f"/api/games/{played['id']}",
                              headers=headers(played["token"])).json()
            legal = legal_numbers(view)
            answer = client.post(f"/api/games/{played['id']}/actions",
                                 headers=headers(played["token"]),
                                 json={"action": legal[0], "version": view["version"]})
            assert answer.status_code == 200, answer.text
            time.sleep(0.3)
        assert time.monotonic() - start > idle - 0.1  # not before its time
        assert client.get(f"/api/games/{read['id']}").status_code == 404
        assert client.get(f"/api/games/{played['id']}").status_code == 200
        assert len(client.app.state.store) == 1


def test_games_beyond_the_memory_bound_go_back_to_the_store_and_come_back(secret):
    """At most `max_resident` games live in memory (with their bots' threads); the others
    are read back from the store when asked for, tokens and all."""
    import threading
    with make_client(secret, max_resident=2) as client:
        store = client.app.state.store
        bots_before = sum(t.name.startswith("bots-") for t in threading.enumerate())
        games = [new_game(client, players=2, delay_ms=0, seats=[
            {"kind": "person"}, {"kind": "agent", "agent": "greedy"}]) for _ in range(4)]
        assert store.resident == 2 and len(store) == 4
        time.sleep(0.2)
        assert sum(t.name.startswith("bots-") for t in threading.enumerate()) <= bots_before + 2
        first = games[0]
        view = client.get(f"/api/games/{first['id']}", headers=headers(first["token"])).json()
        assert view["you"] == 0 and store.resident == 2
        answer = client.post(f"/api/games/{first['id']}/actions", headers=headers(first["token"]),
                             json={"action": legal_numbers(view)[0], "version": view["version"]})
        assert answer.status_code == 200
        played = [entry["notation"] for entry in answer.json()["log"]]
        assert len(played) >= 1
        client.get(f"/api/games/{games[1]['id']}")  # puts the first back to the store
        again = client.get(f"/api/games/{first['id']}", headers=headers(first["token"])).json()
        assert [entry["notation"] for entry in again["log"]][:len(played)] == played


# Bots, replays ------------------------------------------------------------------------------------

def test_all_bot_games_are_watched_with_everything_shown_and_skip_ends_them(client):
    created = new_game(client, players=3, delay_ms=5000, seats=[
        {"kind": "agent", "agent": "random"}, {"kind": "agent", "agent": "greedy"},
        {"kind": "agent", "agent": "dale"}])
    game_id, token = created["id"], created["token"]
    assert created["seat"] is None
    view = client.get(f"/api/games/{game_id}").json()
    assert view["seed"] == str(SEED)  # nothing is hidden from the watcher of bots
    assert client.post(f"/api/games/{game_id}/bots", json={"skip": "yes"},
                       headers=headers(token)).status_code == 422
    assert client.post(f"/api/games/{game_id}/bots", json={"skip": True}).status_code == 403
    assert client.post(f"/api/games/{game_id}/bots", json={"skip": True},
                       headers=headers(token)).status_code == 200
    end = time.monotonic() + 300
    while not view["over"] and time.monotonic() < end:
        view = client.get(f"/api/games/{game_id}?since_version={view['version']}").json()
    assert view["over"]
    scores = view["scores"]
    assert [row["label"] for row in scores["rows"]] == [
        "Player 0 · random", "Player 1 · greedy", "Player 2 · dale"]
    for row in scores["rows"]:  # the breakdown adds up (R8.2)
        assert (row["population_before_goals"] + row["goals_total"] + row["money_converted"]
                == row["population"])
    assert "★ winner" in view["svg"]


def test_a_trained_model_plays_against_dale(client):
    """Trained models are agents like any other (the model folder's .safetensors)."""
    options = client.get("/api/options").json()
    spec = next(spec for spec in options["agents"] if spec.startswith("ppo:"))
    assert spec.endswith("baseline.safetensors")
    created = new_game(client, mode="dale", players=1, seats=[{"kind": "agent", "agent": spec}])
    view = client.get(f"/api/games/{created['id']}").json()
    end = time.monotonic() + 120
    while view["log_total"] < 3 and time.monotonic() < end and not view["bots"]["error"]:
        view = client.get(f"/api/games/{created['id']}?since_version={view['version']}").json()
    assert view["bots"]["error"] is None and view["log_total"] >= 3
    assert view["seats"][0]["label"] == "Player 0 · ppo:baseline"


def test_replays_step_both_ways_and_by_round(client):
    game = Game(2, "standard", "2nd", 17)
    rng = random.Random(17)
    while not game.is_over:
        game.apply(int(rng.choice(list(game.legal_actions()))))
    record = game.record()
    created = client.post("/api/replays", json={"record": record})
    assert created.status_code == 201
    replay_id, total = created.json()["id"], created.json()["total"]
    assert total == len(record["actions"])
    views = {step: client.get(f"/api/replays/{replay_id}?step={step}").json()
             for step in (0, 1, 2, 3, 2, 1, total)}
    assert client.get(f"/api/replays/{replay_id}?step=2").json()["svg"] == views[2]["svg"]
    assert views[0]["this_step"] is None and views[total]["over"]
    assert views[total]["scores"]["rows"][0]["population"] == game.final_scores()[0]["population"]
    rounds = views[0]["rounds"]
    assert rounds[0] == {"round": 1, "step": 0} and len(rounds) == game.round + 1
    # positions between the kept ones are replayed: each is the game's own drawing
    from suburbia_env.display.drawing import table_svg
    labels = {seat: f"Player {seat}" for seat in range(2)}
    for step in (5, 16, 17, 31, total - 1):
        at = Game(2, "standard", "2nd", 17)
        for text in record["actions"][:step]:
            at.apply(text)
        assert client.get(f"/api/replays/{replay_id}?step={step}").json()["svg"] == table_svg(
            at, labels=labels, reveal=True, seed_shown=17)
    assert views[3]["this_step"]["notation"] == record["actions"][2]
    assert views[3]["this_step"]["action"].startswith(("buys", "takes", "invests", "discards",
                                                       "passes", "keeps"))
    assert client.get(f"/api/replays/{replay_id}?step=-1").status_code == 422
    assert client.get(f"/api/replays/{replay_id}?step=abc").status_code == 422
