"""Games survive a restart (suburbia_env/apps/web/database.py): the real server process is
killed with SIGKILL in the middle of games (several people, bots, undos, a paused bot, a
replay) and started again on the same store file; every game is then where it was at
its last answered move, with the same ids and seat tokens, its bots carrying on, and it
plays on to the end through the HTTP API."""

import os
import random
import stat
import threading
import time

import pytest

pytest.importorskip("fastapi")

from real_server import Client, Server, legal_numbers

pytestmark = pytest.mark.slow

SHOWN = ("log", "market", "round", "current", "decision", "private_goal", "goal_options",
         "legal", "seed", "can_undo", "you", "over", "scores", "seats", "svg")


def shown(view: dict) -> dict:
    return {key: view[key] for key in SHOWN}


def public(notation: str) -> str:
    """A log entry as a seat reads it before the game is over (the bot's kept goal
    hidden, R10.2), after it the same entry in full."""
    return "keep ?" if notation.startswith("keep ") else notation


def view_of(client: Client, game: str, token: str | None) -> dict:
    return client.ok("GET", f"/api/games/{game}", token=token)


def wait_until(client: Client, game: str, token: str | None, condition, timeout=60.0) -> dict:
    deadline = time.monotonic() + timeout
    view = view_of(client, game, token)
    while not condition(view):
        assert time.monotonic() < deadline, "the game did not get there in time"
        view = client.ok("GET", f"/api/games/{game}?since_version={view['version']}",
                         token=token)
    return view


def play_random(client: Client, rng: random.Random, game: str, token: str) -> dict:
    view = view_of(client, game, token)
    return client.ok("POST", f"/api/games/{game}/actions",
                     {"action": rng.choice(legal_numbers(view)), "version": view["version"]},
                     token)


def my_turn(view: dict) -> bool:
    return view["over"] or view["legal"] is not None


def test_a_killed_server_resumes_every_game_at_its_last_move(tmp_path):
    rng = random.Random(7)
    store = tmp_path / "games.sqlite3"
    server = Server(tmp_path, store).start()
    try:
        client = Client(server.port)
        # Two people and a bot (greedy), bots at once.
        table = client.ok("POST", "/api/games", {
            "mode": "standard", "players": 3, "delay_ms": 0,
            "seats": [{"kind": "person"}, {"kind": "person"},
                      {"kind": "agent", "agent": "greedy"}]})
        people = {0: table["token"], 1: table["join"]["1"]}
        # One person against a random bot, with undos.
        undone = client.ok("POST", "/api/games", {
            "mode": "standard", "players": 2, "delay_ms": 0,
            "seats": [{"kind": "person"}, {"kind": "agent", "agent": "random"}]})
        # A person against a bot the person paused.
        paused = client.ok("POST", "/api/games", {
            "mode": "standard", "players": 2, "delay_ms": 0,
            "seats": [{"kind": "person"}, {"kind": "agent", "agent": "greedy"}]})
        # Bots alone, at a pace that keeps them playing when the server is killed.
        watched = client.ok("POST", "/api/games", {
            "mode": "standard", "players": 2, "delay_ms": 150,
            "seats": [{"kind": "agent", "agent": "random"},
                      {"kind": "agent", "agent": "greedy"}]})
        # A finished game's replay.
        finished = client.ok("POST", "/api/games", {
            "mode": "standard", "players": 2, "delay_ms": 0,
            "seats": [{"kind": "agent", "agent": "random"},
                      {"kind": "agent", "agent": "random"}]})
        wait_until(client, finished["id"], None, lambda view: view["over"])
        replay = client.ok("POST", f"/api/games/{finished['id']}/replay")

        for _ in range(8):  # the two people, in turn, with the bot between them
            for seat, token in people.items():
                view = view_of(client, table["id"], token)
                if view["legal"] is not None:
                    play_random(client, rng, table["id"], token)
        for decision in range(12):
            wait_until(client, undone["id"], undone["token"], my_turn)
            play_random(client, rng, undone["id"], undone["token"])
            if decision % 4 == 3:
                client.ok("POST", f"/api/games/{undone['id']}/undo", token=undone["token"])
        wait_until(client, paused["id"], paused["token"], my_turn)
        client.ok("POST", f"/api/games/{paused['id']}/bots", {"paused": True}, paused["token"])
        play_random(client, rng, paused["id"], paused["token"])
        wait_until(client, undone["id"], undone["token"], my_turn)
        wait_until(client, table["id"], people[0],
                   lambda view: view["current"] in people or view["over"])

        seen = {}
        for game, tokens in ((table["id"], list(people.values()) + [table["owner_token"], None]),
                             (undone["id"], [undone["token"], None]),
                             (paused["id"], [paused["token"], None])):
            for token in tokens:
                seen[game, token] = shown(view_of(client, game, token))
        steps = {step: client.ok("GET", f"/api/replays/{replay['id']}?step={step}")
                 for step in (0, 5, replay["total"])}
        watched_before = view_of(client, watched["id"], None)
        assert 0 < len(watched_before["log"]) and not watched_before["over"]

        # Clicks as fast as one client makes them, and the kill at some moment among them.
        answered = []
        stop = threading.Event()

        def click():
            fast = Client(server.port)
            try:
                while not stop.is_set():
                    view = view_of(fast, undone["id"], undone["token"])
                    if view["legal"] is None:
                        continue
                    status, answer = fast.call(
                        "POST", f"/api/games/{undone['id']}/actions",
                        {"action": rng.choice(legal_numbers(view)), "version": view["version"]},
                        undone["token"])
                    if status == 200:
                        answered.append([public(entry["notation"])
                                         for entry in answer["log"]])
            except OSError:
                pass  # the server is gone

        clicker = threading.Thread(target=click)
        clicker.start()
        time.sleep(1.0 + rng.random())
        server.kill()
        stop.set()
        clicker.join(timeout=30)
        assert answered, "no click was answered before the kill"

        for file in [store] + [store.with_name(store.name + end) for end in ("-wal", "-shm")
                               if store.with_name(store.name + end).exists()]:
            mode = stat.S_IMODE(os.stat(file).st_mode)
            assert mode == 0o600, (file, oct(mode))  # it holds seeds and tokens

        server = Server(tmp_path, store).start()
        client = Client(server.port)
        for (game, token), before in seen.items():
            if game == undone["id"]:
                continue
            assert shown(view_of(client, game, token)) == before  # ids and tokens still valid
        after = view_of(client, undone["id"], undone["token"])
        notations = [public(entry["notation"]) for entry in after["log"]]
        assert notations[:len(answered[-1])] == answered[-1]  # the last answered click kept
        for step, view in steps.items():
            assert client.ok("GET", f"/api/replays/{replay['id']}?step={step}") == view

        # The bots carry on: the watched game plays on by itself, the paused one waits.
        resumed = wait_until(client, watched["id"], None,
                             lambda view: len(view["log"]) > len(watched_before["log"]) + 3)
        notations = [entry["notation"] for entry in resumed["log"]]
        assert notations[:len(watched_before["log"])] == [
            entry["notation"] for entry in watched_before["log"]]
        time.sleep(0.5)
        view = view_of(client, paused["id"], paused["token"])
        assert view["bots"]["paused"] and view["legal"] is None
        assert shown(view) == seen[paused["id"], paused["token"]]

        # And every game plays on to its end through the API.
        client.ok("POST", f"/api/games/{paused['id']}/bots", {"paused": False},
                  paused["token"])
        client.ok("POST", f"/api/games/{watched['id']}/bots", {"skip": True},
                  watched["token"])
        for game, token in ((paused["id"], paused["token"]), (undone["id"], undone["token"])):
            view = wait_until(client, game, token, my_turn)
            if view["can_undo"]:
                client.ok("POST", f"/api/games/{game}/undo", token=token)
                view = wait_until(client, game, token, my_turn)
            while not view["over"]:
                play_random(client, rng, game, token)
                view = wait_until(client, game, token, my_turn)
            assert view["scores"] is not None
        view = view_of(client, table["id"], people[0])
        while not view["over"]:
            token = people.get(view["current"])
            if token is None:
                view = wait_until(client, table["id"], people[0],
                                  lambda v: v["current"] in people or v["over"])
                continue
            play_random(client, rng, table["id"], token)
            view = view_of(client, table["id"], people[0])
        assert wait_until(client, watched["id"], None, lambda v: v["over"])["scores"]
    finally:
        server.stop()


def test_a_finished_review_outlives_a_killed_server_and_goes_with_its_replay(tmp_path):
    """A replay's review is kept in the store beside it: the server killed (SIGKILL) after
    the review finished answers it again, files included, without reviewing again; deleting
    the replay deletes its review."""
    import sqlite3

    from web_fixtures import greedy_record
    store = tmp_path / "games.sqlite3"
    server = Server(tmp_path, store).start()
    try:
        client = Client(server.port)
        opened = client.ok("POST", "/api/replays", {"record": greedy_record(seed=5)})
        replay = opened["id"]
        started = client.call("POST", f"/api/replays/{replay}/review?candidates=1&samples=2"
                                      f"&seed=77")
        assert started[0] == 202
        deadline = time.monotonic() + 600
        answer = client.ok("GET", f"/api/replays/{replay}/review")
        while answer["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, answer
            time.sleep(0.5)
            answer = client.ok("GET", f"/api/replays/{replay}/review")
        assert answer["status"] == "done" and answer["redraw_seed"] == "77"
        table = client.call("GET", f"/api/replays/{replay}/review/decisions.csv")
        server.kill()
        server.start()
        client = Client(server.port)
        again = client.ok("GET", f"/api/replays/{replay}/review")
        assert again == answer  # the same review, progress lines included: not made again
        assert client.call("GET", f"/api/replays/{replay}/review/decisions.csv") == table
        kept = client.call("POST", f"/api/replays/{replay}/review")  # again: the kept one
        assert kept == (202, answer)
        with sqlite3.connect(store) as connection:
            assert connection.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 1
        client.ok("DELETE", f"/api/replays/{replay}", token=opened["token"])
        with sqlite3.connect(store) as connection:
            assert connection.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 0
    finally:
        server.stop()
