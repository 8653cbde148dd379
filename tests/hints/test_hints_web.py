"""Hints in the web server (suburbia_env/apps/web/hints.py, issue 33 item 3): off by
default, refused in games of several people, answered for the person's decision with
legal moves and no hidden fact, counted in the view, the record and the final screen."""

import json
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("torch")

from suburbia_env import Game
from web_fixtures import client, new_game  # noqa: F401  (client: the app's fixture)


def ask(client, game, token):
    return client.post(f"/api/games/{game}/hint", headers={"X-Seat-Token": token})


def test_hints_are_off_by_default_and_refused_then(client):
    made = new_game(client, ["person", "greedy"]).json()
    answer = ask(client, made["id"], made["token"])
    assert answer.status_code == 409
    assert "made without hints" in answer.json()["error"]
    view = client.get(f"/api/games/{made['id']}",
                      headers={"X-Seat-Token": made["token"]}).json()
    assert view["hints"] == {"on": False, "can_ask": False, "running": False, "used": {"0": 0}}


def test_hints_are_refused_in_games_of_several_people(client):
    refused = new_game(client, ["person", "person"], hints=True)
    assert refused.status_code == 422
    assert "not for a game of several people" in refused.json()["error"]
    made = new_game(client, ["person", "person", "greedy"]).json()
    answer = ask(client, made["id"], made["token"])
    assert answer.status_code == 409
    assert "one person playing against bots" in answer.json()["error"]
    solitary = new_game(client, ["person"], hints=True, mode="solitary")
    assert solitary.status_code == 422 and "no opponent" in solitary.json()["error"]


@pytest.mark.slow
def test_a_hint_answers_the_persons_decision_and_is_counted(client):
    made = new_game(client, ["person", "greedy", "greedy"], hints=True, seed=12).json()
    game_id, token = made["id"], made["token"]
    headers = {"X-Seat-Token": token}
    assert ask(client, game_id, "not-a-token-of-it").status_code == 403
    view = client.get(f"/api/games/{game_id}", headers=headers).json()
    assert view["hints"]["on"] and view["hints"]["can_ask"] and view["current"] == 0
    answer = ask(client, game_id, token)
    assert answer.status_code == 200, answer.text
    hint = answer.json()
    legal = {number for group in view["legal"].values() if isinstance(group, dict)
             for value in group.values()
             for number in (value.values() if isinstance(value, dict) else [value])}
    assert hint["moves"] and {move["action"] for move in hint["moves"]} <= legal
    assert hint["used"] == 1 and hint["seat"] == 0
    # No hidden fact: the other seats' goals and the stacks to come are named nowhere.
    truth = Game(3, "standard", "2nd", 12)
    hidden = [goal for seat in (1, 2) for goal in truth.goal_options(seat)
              if goal not in truth.goal_options(0) and goal not in truth.public_goals]
    assert len(hidden) >= 2
    assert not [goal for goal in hidden if goal in answer.text]
    assert set(hint) == {"seat", "moves", "samples", "knowledge", "used"}
    assert ask(client, game_id, token).json()["used"] == 2
    view = client.get(f"/api/games/{game_id}", headers=headers).json()
    assert view["hints"]["used"] == {"0": 2}
    # Play the game out: the final view and the record say how many hints were used.
    client.post(f"/api/games/{game_id}/bots", headers=headers, json={"skip": True})
    while not view["over"]:
        if view["current"] == 0 and view["legal"]:
            number = min(number for group in view["legal"].values() if isinstance(group, dict)
                         for value in group.values()
                         for number in (value.values() if isinstance(value, dict) else [value]))
            played = client.post(f"/api/games/{game_id}/actions", headers=headers,
                                 json={"action": number, "version": view["version"]})
            if played.status_code == 200:
                client.post(f"/api/games/{game_id}/bots", headers=headers, json={"skip": True})
        view = client.get(f"/api/games/{game_id}?since_version={view['version']}",
                          headers=headers).json()
    assert view["hints"]["used"] == {"0": 2} and not view["hints"]["can_ask"]
    assert ask(client, game_id, token).status_code == 409
    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["hints_used"] == {"0": 2}
    assert Game.replay(json.dumps(record)).is_over
    replay = client.post("/api/replays", json={"record": record})
    assert replay.status_code == 201


def test_a_record_with_a_bad_hint_count_is_refused_naming_it():
    game = Game(2, seed=1)
    record = game.record() | {"hints_used": {"5": 1}}
    with pytest.raises(Exception, match="hints_used: '5' .*is not a seat 0..1"):
        Game.replay(record)
    with pytest.raises(Exception, match=r"hints_used\.0: must be a count"):
        Game.replay(game.record() | {"hints_used": {"0": -1}})
    assert Game.replay(game.record() | {"hints_used": {"0": 3}}).history == []


def test_one_hint_at_a_time_per_game():
    """A second hint asked while one is worked out is refused; when the first ends (given
    or not), the next may be asked, and only a given hint is counted."""
    from suburbia_env.apps.web.errors import WebError
    from suburbia_env.apps.web.seats import Seat
    from suburbia_env.apps.web.sessions import GameSession
    session = GameSession(mode="standard", players=2, edition="2nd", seed=4, seed_chosen=True,
                          seats=[Seat(0, None, "Player 0"), Seat(1, "greedy", "Player 1")],
                          client="test", agent_factory=None, paused=True, hints=True)
    try:
        copy = session.begin_hint(0)
        assert copy is not session.game and copy.to_json() == session.game.to_json()
        with pytest.raises(WebError, match="already being worked out"):
            session.begin_hint(0)
        session.end_hint(0, given=False)
        assert session.hints_used_all() == {0: 0}
        session.begin_hint(0)
        session.end_hint(0, given=True)
        assert session.hints_used_all() == {0: 1}
        with pytest.raises(WebError, match="not yours now"):
            session.begin_hint(1)
    finally:
        session.close()


@pytest.mark.slow
def test_a_sealed_save_keeps_the_hint_option_and_count(client):
    made = new_game(client, ["person", "greedy"], hints=True, seed=13).json()
    headers = {"X-Seat-Token": made["token"]}
    assert ask(client, made["id"], made["token"]).status_code == 200
    sealed = client.post(f"/api/games/{made['id']}/save", headers=headers)
    assert sealed.status_code == 200, sealed.text
    loaded = client.post("/api/load", json={"file": sealed.json()})
    assert loaded.status_code == 201, loaded.text
    again = loaded.json()
    view = client.get(f"/api/games/{again['id']}",
                      headers={"X-Seat-Token": again["token"]}).json()
    assert view["hints"]["on"] and view["hints"]["used"] == {"0": 1}


@pytest.mark.slow
def test_the_server_answers_while_a_hint_is_worked_out(client):
    """The hint runs off the event loop: views are answered meanwhile, and they say a
    hint is running, and a second hint for the game is refused until it ends."""
    import threading
    made = new_game(client, ["person", "greedy", "greedy", "greedy"], hints=True,
                    seed=14).json()
    headers = {"X-Seat-Token": made["token"]}
    # Seat 2 begins at seed 14: the bots' thread moves before the person may ask.
    deadline = time.monotonic() + 60
    while client.get(f"/api/games/{made['id']}", headers=headers).json()["current"] != 0:
        assert time.monotonic() < deadline, "the bots never came to the person's decision"
        time.sleep(0.05)
    refused = None
    for _ in range(5):  # a hint takes about half a second: try again if it was missed
        answers = []
        asking = threading.Thread(target=lambda: answers.append(
            ask(client, made["id"], made["token"])))
        asking.start()
        while asking.is_alive() and refused is None:
            view = client.get(f"/api/games/{made['id']}", headers=headers).json()
            if view["hints"]["running"]:
                second = ask(client, made["id"], made["token"])
                if second.status_code == 409:  # else the first had just ended: again
                    refused = second
        asking.join()
        assert answers[0].status_code == 200, answers[0].text
        if refused is not None:
            break
    assert refused is not None, "no view saying a hint runs was answered while one ran"
    assert "already being worked out" in refused.json()["error"]
