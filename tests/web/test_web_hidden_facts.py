"""No answer of `suburbia serve` carries a hidden fact (issue 33 item 2, R10.2).

The real server (a `suburbia serve` process with its SQLite store) holds games in
progress: a person against a bot at 2 players (hints on), two people and two bots at 4
players, and a person against Dale (hints on); then a sealed save loaded back and a
loaded state. EVERY route of the app (enumerated from its router: a route added later
without a call here fails `test_every_route_is_called`) is called as each seat's token,
the creator's owner token and a watcher without token: views, the long poll, moves,
hints, undo, bots, save, load, records and states, replays and their reviews (one of a
record that ends before the game does), deletions, and the refusals (a wrong token, a
stale version, an illegal move, an unknown id). Each answer, body and headers, is
searched for the facts the asker may not know, read from the truth: the store's record
of the game (seed, decisions, redraws) replayed by the engine.

The hidden facts and how each is searched for (encodings that cannot match by accident,
or almost never):
- another seat's goals (drawn, kept or returned, R3.6): their names as whole words
  (20 goal names, none a word of anything else the game shows), and their numbers as the
  value of any JSON field whose name says "goal";
- the order of the stacks (R4.2): any 4 consecutive tiles still to be drawn, One More
  Round included, named in that order (tile names read in the order they occur in the
  text, the SVG's tags removed), or any 5 consecutive of their kind numbers in that order
  among the integers of the JSON (the SVG left out: its coordinates are numbers); in the
  answers about another game, runs of 10 (stack A has only 15 kinds: 4 names of one
  game's market matched 4 tiles of another's stack A about once in five runs);
- One More Round's place (R4.3): besides the sequences above, no mention of it within 60
  characters of the number of tiles before it, in the answers about its game (a finished
  game's replay says "round 18 · One More Round drawn");
- the secret seed and an undo's redraw words, which fix all of the above: their decimal
  text (64 and 32 bits; never shown before the game is over when the seed was random).
A leak of fewer tiles than a run escapes this search; the game views are also checked
for a leak of any size by non-interference (test_web_views_hidden.py).
Goal names are only searched in the answers about their own game (another game's public
goal may bear the same name); the stacks, seeds and words in every answer.
"""

from __future__ import annotations

import html
import http.client
import json
import random
import re
import sqlite3
import threading
import time
from urllib.parse import urlencode

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("torch")

from real_server import Server, legal_numbers
from repository import REPO
from suburbia_env import Game
from suburbia_env.engine import state_layout as s
from suburbia_env.engine.tile_data import GOALS, TILES
from suburbia_env.formats.reading import SEALED_FORMAT
from suburbia_env.serialization import game_from_json

pytestmark = pytest.mark.slow  # a server, three games and a review: a minute or two

ONE_MORE_ROUND = TILES.names[TILES.one_more_round]
TILE_NAMES = re.compile("|".join(re.escape(name) for name in
                                 sorted(TILES.names, key=len, reverse=True)))
GOAL_NAMES = [re.compile(rf"\b{re.escape(name)}\b") for name in GOALS.names]
INTEGERS = re.compile(r"(?<![\d.])-?\d+(?![\d.])")
NAME_WINDOW, NUMBER_WINDOW = 4, 5
OTHER_GAME_WINDOW = 10
"""Another game's stacks are searched for in longer runs: stack A has 15 kinds, so 4 names
of one game's market match 4 tiles of another game's stack A by chance, about once in five
runs of this file at 4 (measured); 10 give the chance 15**-10 per place."""


# The truth: the store's record replayed by the engine --------------------------------------

def store_row(store, game_id: str) -> str | None:
    """The game's record as the store holds it now (JSON text), None once deleted."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
        row = connection.execute("SELECT data FROM sessions WHERE id = ?",
                                 (game_id,)).fetchone()
    return None if row is None else row[0]


def replayed(row: str) -> Game:
    """The game of a store record, rebuilt as the server rebuilds it
    (sessions.GameSession._replay): setup, decisions, each redraw at its place."""
    data = json.loads(row)
    game = (game_from_json(data["base_state"]) if data["base_state"] is not None
            else Game(data["players"], data["mode"], data["edition"], int(data["seed"])))
    redraws = data["redraws"]
    for index, number in enumerate(data["actions"] + [None]):
        for at, viewer, words in redraws:
            if at == index:
                game.redraw_hidden(viewer, words)
        if number is not None:
            game.apply(number)
    game.seed_text = str(int(data["seed"])) if data["base_state"] is None else None
    game.words = [str(word) for _, _, words in redraws for word in words]
    return game


def upcoming(game: Game) -> list[int]:
    state = game.state
    return [int(kind) for kind in state[s.PILE + state[s.PILE_POSITION]:s.PILE + state[s.PILE_END]]]


class Hidden:
    """What one viewer (a seat, or None) of one game may not know, from the truth."""

    def __init__(self, game: Game, viewer: int | None, seed_hidden: bool):
        state = game.state
        own = set() if viewer is None else {int(g) for g in s.goal_options(state, viewer)}
        public = {GOALS.names.index(name) for name in game.public_goals}
        goals = set()
        for seat in range(game.num_seats):
            if seat != viewer:
                goals |= {int(g) for g in s.goal_options(state, seat)}
                goals.add(int(s.private_goal(state, seat)))
        self.goals = sorted(goals - own - public - {-1})
        self.pile = upcoming(game)
        self.one_more_round = (self.pile.index(TILES.one_more_round)
                               if TILES.one_more_round in self.pile else None)
        self.secrets = list(game.words) + ([game.seed_text] if seed_hidden and game.seed_text
                                           else [])

    def stack_findings(self, text: str, numbers: list[int], own: bool = True) -> list[str]:
        """`own`: the answer is about this game (another game's answer is searched for
        longer runs of this game's stacks, OTHER_GAME_WINDOW)."""
        found = []
        names = [TILES.names.index(match) for match in TILE_NAMES.findall(text)]
        name_window, number_window = ((NAME_WINDOW, NUMBER_WINDOW) if own
                                      else (OTHER_GAME_WINDOW, OTHER_GAME_WINDOW))
        for size, stream, what in ((name_window, names, "names"),
                                   (number_window, numbers, "kind numbers")):
            windows = {tuple(self.pile[i:i + size]) for i in range(len(self.pile) - size + 1)}
            for i in range(len(stream) - size + 1):
                if tuple(stream[i:i + size]) in windows:
                    found.append(f"the stacks' order as {what}: {stream[i:i + size]}")
                    break
        if own and self.one_more_round is not None:  # a replay's title: "round 18 · One More Round"
            for match in re.finditer(re.escape(ONE_MORE_ROUND), text, re.IGNORECASE):
                near = text[max(0, match.start() - 60):match.end() + 60]
                if str(self.one_more_round) in INTEGERS.findall(near):
                    found.append(f"One More Round's place {self.one_more_round}: {near!r}")
        found += [f"a secret word or seed {secret}" for secret in self.secrets
                  if secret in text]
        return found

    def goal_findings(self, text: str, answer) -> list[str]:
        found = [f"the hidden goal {GOALS.names[g]}" for g in self.goals
                 if GOAL_NAMES[g].search(text)]
        for key, value in _fields(answer):
            if "goal" in key.lower():
                found += [f"hidden goal number {g} in {key}" for g in self.goals
                          if g in _values(value)]
        return found


def _fields(answer):
    if isinstance(answer, dict):
        for key, value in answer.items():
            yield str(key), value
            yield from _fields(value)
    elif isinstance(answer, list):
        for value in answer:
            yield from _fields(value)


def _values(value) -> set:
    """A goal field's numbers: the field itself or the items of its list (a goal's
    bonuses, in an object under it, are other numbers)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return {value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, int) and not isinstance(v, bool)}
    return set()


def _without_svg(answer):
    if isinstance(answer, dict):
        return {key: _without_svg(value) for key, value in answer.items() if key != "svg"}
    if isinstance(answer, list):
        return [_without_svg(value) for value in answer]
    return answer


def _json_integers(answer) -> list[int]:
    """The JSON integers of an answer in document order: what a leak of the stacks as
    kind numbers would be (digits inside strings, as in ids, tokens and hashes, are
    letters of those strings, and a run of them would match by chance)."""
    if isinstance(answer, bool):
        return []
    if isinstance(answer, int):
        return [answer]
    if isinstance(answer, dict):
        return [number for value in answer.values() for number in _json_integers(value)]
    if isinstance(answer, list):
        return [number for value in answer for number in _json_integers(value)]
    return []


def _without_ciphertext(answer, data: str) -> tuple[object, str]:
    """A sealed save's envelope with its ciphertext left out, and its text: the sealed
    state is encrypted and authenticated under a key only the server holds
    (apps/web/sealing.py, tested in tests/web), so its base64 letters and digits say
    nothing, yet by chance they can spell a run of tile numbers."""
    if isinstance(answer, dict) and answer.get("format") == SEALED_FORMAT \
            and isinstance(answer.get("sealed"), str):
        answer = {**answer, "sealed": ""}
        return answer, json.dumps(answer)
    return answer, data


def readable(body: str) -> str:
    """The text a person reads: tags removed (an SVG draws a name over several <text>
    lines), entities decoded, JSON escapes undone."""
    text = body.replace("\\n", " ").replace('\\"', '"')
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())


# The calls -------------------------------------------------------------------------------

class Probe:
    """Calls the real server, notes which route each call is for, and checks every answer
    against every live game's hidden facts for the asker."""

    def __init__(self, server: Server):
        self.server = server
        self.port = server.port
        self.covered: set[tuple[str, str]] = set()
        self.games: dict[str, dict] = {}  # id -> {"tokens": {token: seat}, "seed_hidden"}
        self.answers = 0
        self._truths: dict[str, tuple[str, Game]] = {}  # id -> (store row, its game)

    def truth(self, game_id: str) -> Game:
        """The game as the server holds it (the store's row replayed by the engine); the
        last one read for a game deleted since, so that the answer of its deletion is
        checked against the game it deleted."""
        row = store_row(self.server.store, game_id)
        known = self._truths.get(game_id)
        if row is None:
            assert known is not None, f"game {game_id} is not in the store"
            return known[1]
        if known is None or known[0] != row:
            known = self._truths[game_id] = (row, replayed(row))
        return known[1]

    def raw(self, method, template, params=None, query=None, body=None, token=None,
            timeout=60):
        self.covered.add((method, template))
        url = template.format(**(params or {})) + (f"?{urlencode(query)}" if query else "")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["X-Seat-Token"] = token
        connection.request(method, url, body=None if body is None else json.dumps(body),
                           headers=headers)
        response = connection.getresponse()
        data = response.read().decode("utf-8", "replace")
        head = "\n".join(f"{k}: {v}" for k, v in response.getheaders())
        connection.close()
        return response.status, data, head

    def call(self, method, template, params=None, query=None, body=None, token=None,
             game_id=None, expect=None, timeout=60):
        """One call, checked; `game_id`: the game it is about (its goals are searched)."""
        status, data, head = self.raw(method, template, params, query, body, token, timeout)
        if expect is not None:
            assert status in (expect if isinstance(expect, tuple) else (expect,)), (
                method, template, status, data[:300])
        self.check(data, head, game_id, token)
        try:
            return status, json.loads(data)
        except ValueError:
            return status, data

    def check(self, data: str, head: str, game_id: str | None, token: str | None):
        self.answers += 1
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        answer, data = _without_ciphertext(answer, data)
        text = readable(data) + "\n" + head
        numbers = _json_integers(_without_svg(answer))
        findings = []
        for known_id, known in self.games.items():
            truth = self.truth(known_id)
            if truth.is_over:
                continue
            viewer = known["tokens"].get(token) if known_id == game_id else None
            hidden = Hidden(truth, viewer, known["seed_hidden"])
            findings += hidden.stack_findings(text, numbers, own=known_id == game_id)
            if known_id == game_id:
                findings += hidden.goal_findings(text, answer)
        assert not findings, (findings, data[:500])

    def add_game(self, made: dict, seed_hidden: bool = True) -> dict:
        view = json.loads(self.raw("GET", "/api/games/{game_id}", {"game_id": made["id"]},
                                   token=made["owner_token"])[1])
        tokens = {made["owner_token"]: view["you"], made["token"]: made["seat"]}
        tokens.update({token: int(seat) for seat, token in made["join"].items()})
        self.games[made["id"]] = {"tokens": tokens, "seed_hidden": seed_hidden,
                                  "made": made}
        self.call("GET", "/api/games/{game_id}", {"game_id": made["id"]}, token=made["owner_token"],
                  game_id=made["id"], expect=200)
        return made


def settled(probe: Probe, game_id: str, timeout: float = 120) -> dict:
    """The watcher's view once a person decides (the bots wait for the person): the game
    stands still, so the truth read from the store is the game the answers were made of."""
    import time
    status, view = probe.call("GET", "/api/games/{game_id}", {"game_id": game_id}, game_id=game_id)
    end = time.monotonic() + timeout
    humans = [seat["seat"] for seat in view["seats"] if seat["kind"] == "person"]
    while not (view["over"] or view["current"] in humans) or view["bots"]["thinking"]:
        assert time.monotonic() < end, view["bots"]
        status, view = probe.call("GET", "/api/games/{game_id}", {"game_id": game_id},
                                  query={"since_version": view["version"]}, game_id=game_id,
                                  timeout=30)
    return view


def token_of(probe: Probe, game_id: str, seat: int) -> str:
    made = probe.games[game_id]["made"]
    return made["token"] if made["seat"] == seat else made["join"][str(seat)]


def play_persons(probe: Probe, game_id: str, decisions: int, rng: random.Random) -> None:
    """The persons' decisions, clicked as the page would (a legal move, with the version)."""
    for _ in range(decisions):
        view = settled(probe, game_id)
        assert not view["over"]
        token = token_of(probe, game_id, view["current"])
        _, mine = probe.call("GET", "/api/games/{game_id}", {"game_id": game_id}, token=token,
                             game_id=game_id, expect=200)
        number = rng.choice(legal_numbers(mine))
        probe.call("POST", "/api/games/{game_id}/actions", {"game_id": game_id}, token=token,
                   body={"action": number, "version": mine["version"]}, game_id=game_id,
                   expect=200)
    settled(probe, game_id)


def long_poll(probe: Probe, game_id: str, token: str | None) -> None:
    """A poll waiting on the current version, woken by a change of the bots' pace."""
    _, view = probe.call("GET", "/api/games/{game_id}", {"game_id": game_id}, token=token,
                         game_id=game_id, expect=200)
    answers = []
    waiting = threading.Thread(target=lambda: answers.append(probe.call(
        "GET", "/api/games/{game_id}", {"game_id": game_id}, token=token, game_id=game_id,
        query={"since_version": view["version"], "log_since": 1}, timeout=60)))
    waiting.start()
    import time
    time.sleep(0.3)
    creator = probe.games[game_id]["made"]["owner_token"]
    probe.call("POST", "/api/games/{game_id}/bots", {"game_id": game_id}, token=creator,
               body={"delay_ms": 0}, game_id=game_id, expect=200)
    waiting.join(60)
    status, answer = answers[0]
    assert status == 200 and answer["version"] > view["version"]


def every_reading(probe: Probe, game_id: str) -> None:
    """What each asker of the game may call without changing it, and the refusals."""
    game = probe.games[game_id]
    askers = [None, *game["tokens"]]
    for token in askers:
        route = {"game_id": game_id}
        probe.call("GET", "/api/games/{game_id}", route, token=token, game_id=game_id, expect=200)
        probe.call("GET", "/api/games/{game_id}", route, token=token, game_id=game_id,
                   query={"since_version": 0, "log_since": 0}, expect=200)
        for template in ("/api/games/{game_id}/record", "/api/games/{game_id}/state"):
            probe.call("GET", template, route, token=token, game_id=game_id, expect=403)
        probe.call("POST", "/api/games/{game_id}/replay", route, token=token, game_id=game_id,
                   expect=403)
        probe.call("POST", "/api/games/{game_id}/actions", route, token=token, game_id=game_id,
                   body={"action": 0, "version": 1}, expect=(403, 409, 422))
        probe.call("POST", "/api/games/{game_id}/actions", route, token=token, game_id=game_id,
                   body={"action": 10**6, "version": 10**6}, expect=(403, 409, 422))
        _, seen = probe.call("GET", "/api/games/{game_id}", route, token=token, game_id=game_id)
        if seen["legal"] is not None:  # an illegal move at the right version
            number = next(n for n in range(max(legal_numbers(seen)), -1, -1)
                          if n not in legal_numbers(seen))
            probe.call("POST", "/api/games/{game_id}/actions", route, token=token,
                       game_id=game_id, body={"action": number, "version": seen["version"]},
                       expect=422)
        probe.call("POST", "/api/games/{game_id}/undo", route, token=token, game_id=game_id,
                   expect=(200, 409))
        probe.call("POST", "/api/games/{game_id}/save", route, token=token, game_id=game_id,
                   expect=(200, 403, 409))
        if token not in (game["made"]["token"], game["made"]["owner_token"]):
            probe.call("DELETE", "/api/games/{game_id}", route, token=token, game_id=game_id,
                       expect=403)  # only the creator deletes
        long_poll(probe, game_id, token)
        settled(probe, game_id)
    probe.call("GET", "/api/games/{game_id}", {"game_id": game_id}, token="not-a-token-of-this-game",
               game_id=game_id, expect=403)
    probe.call("GET", "/api/games/{game_id}", {"game_id": game_id}, query={"log_since": -1},
               game_id=game_id, expect=422)


# The test ---------------------------------------------------------------------------------

def _flat(routes):
    """The routes of the app, those of its included routers (no prefix) among them."""
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI >= 0.165
        if included is not None:
            yield from _flat(included.routes)
        else:
            yield route


def app_routes() -> set[tuple[str, str]]:
    """Every route the app serves, from its router: (method, path) and the static mount."""
    import tempfile
    from pathlib import Path

    from starlette.routing import Mount

    from suburbia_env.apps.web import Settings, create_app
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(secret_file=Path(folder) / "secret.key",
                                  model_dirs=[REPO / "models"]))
        routes = set()
        for route in _flat(app.routes):
            if isinstance(route, Mount):
                routes.add(("GET", route.path + "/{path}"))
                continue
            routes |= {(method, route.path) for method in route.methods - {"HEAD"}}
        return routes


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hidden")
    server = Server(folder, folder / "games.sqlite3").start(timeout=2400)  # a shared machine
    try:
        probe = Probe(server)
        run_everything(probe, folder)
        yield probe
    finally:
        server.stop()


def new_game(probe, seats, mode="standard", hints=False):
    body = {"mode": mode, "players": len(seats) if mode == "standard" else 1, "delay_ms": 0,
            "hints": hints, "seats": [{"kind": "person"} if kind == "person"
                                      else {"kind": "agent", "agent": kind} for kind in seats]}
    _, made = probe.call("POST", "/api/games", body=body, expect=201)
    return probe.add_game(made)


def run_everything(probe: Probe, folder) -> None:
    rng = random.Random(33)
    for method, template in sorted(app_routes()):  # the page, options, tiles, API docs...
        if method == "GET" and "{" not in template:
            probe.call("GET", template, expect=(200, 204))
    for name in ("app.js", "style.css", "index.html"):
        probe.call("GET", "/static/{path}", {"path": name}, expect=200)
    two = new_game(probe, ["person", "greedy"], hints=True)["id"]
    four = new_game(probe, ["person", "person", "greedy", "random"])["id"]
    dale = new_game(probe, ["person"], mode="dale", hints=True)["id"]
    for game_id, decisions in ((two, 6), (four, 8), (dale, 6)):
        play_persons(probe, game_id, decisions, rng)
    for game_id in (two, four, dale):
        every_reading(probe, game_id)
        truth = probe.truth(game_id)
        _, view = probe.call("GET", "/api/games/{game_id}", {"game_id": game_id}, game_id=game_id)
        assert not truth.is_over and view["log_total"] == len(truth.history)  # the truth
        assert view["market"] == truth.market() and view["current"] == truth.current_player
    # hints: given to the person whose decision it is, refused elsewhere
    for game_id in (two, dale):
        view = settled(probe, game_id)
        token = token_of(probe, game_id, view["current"])
        probe.call("POST", "/api/games/{game_id}/hint", {"game_id": game_id}, token=token,
                   game_id=game_id, expect=200, timeout=300)
        probe.call("POST", "/api/games/{game_id}/hint", {"game_id": game_id}, game_id=game_id,
                   expect=403)
    for token in probe.games[four]["tokens"]:
        probe.call("POST", "/api/games/{game_id}/hint", {"game_id": four}, token=token, game_id=four,
                   expect=(403, 409))
    # an undo deals the person's unseen facts anew: the answers keep the new ones hidden
    play_persons(probe, two, 2, rng)
    probe.call("POST", "/api/games/{game_id}/undo", {"game_id": two}, token=token_of(probe, two, 0),
               game_id=two, expect=200)
    settled(probe, two)
    every_reading(probe, two)
    # a sealed save loaded back, and a plain state loaded with seats
    _, sealed = probe.call("POST", "/api/games/{game_id}/save", {"game_id": dale},
                           token=token_of(probe, dale, 0), game_id=dale, expect=200)
    _, loaded = probe.call("POST", "/api/load", body={"file": sealed}, expect=201)
    probe.add_game(loaded)
    settled(probe, loaded["id"])
    every_reading(probe, loaded["id"])
    position = Game(2, "standard", "2nd", rng.randrange(2**63))
    for _ in range(4):
        position.apply(int(position.legal_actions()[0]))
    _, from_state = probe.call("POST", "/api/load", body={"file": json.loads(
        position.to_json())}, expect=201)
    probe.add_game(from_state, seed_hidden=False)
    settled(probe, from_state["id"])
    every_reading(probe, from_state["id"])
    probe.call("DELETE", "/api/games/{game_id}", {"game_id": from_state["id"]},
               token=from_state["token"], expect=200)
    del probe.games[from_state["id"]]
    # replays of other games' records, a review of a finished one and of an unfinished one
    finished = Game(1, "dale", "2nd", rng.randrange(2**63))
    while not finished.is_over:
        finished.apply(int(finished.legal_actions()[-1]))
    unfinished = Game(2, "standard", "2nd", rng.randrange(2**63))
    for _ in range(10):
        unfinished.apply(int(unfinished.legal_actions()[0]))
    _, replay = probe.call("POST", "/api/replays", body={"record": finished.record()},
                           expect=201)
    _, opened = probe.call("POST", "/api/load", body={"file": unfinished.record()},
                           expect=201)
    for made in (replay, opened):
        for step in (0, 1, made["total"]):
            probe.call("GET", "/api/replays/{replay_id}", {"replay_id": made["id"]},
                       query={"step": step}, expect=200)
        probe.call("GET", "/api/replays/{replay_id}/record", {"replay_id": made["id"]},
                   expect=200)
        probe.call("GET", "/api/replays/{replay_id}/review", {"replay_id": made["id"]},
                   expect=200)
    probe.call("POST", "/api/replays/{replay_id}/review", {"replay_id": opened["id"]},
               expect=409)
    probe.call("POST", "/api/replays/{replay_id}/review", {"replay_id": replay["id"]},
               query={"candidates": 1, "samples": 1}, expect=202)
    probe.call("GET", "/api/replays/{replay_id}/review", {"replay_id": replay["id"]},
               expect=200)
    for _ in range(600):  # the review's files once it is done
        _, answer = probe.call("GET", "/api/replays/{replay_id}/review",
                               {"replay_id": replay["id"]}, expect=200)
        if answer["status"] not in ("queued", "running"):
            break
        time.sleep(0.5)
    assert answer["status"] == "done", answer
    for name in ("decisions.json", "decisions.csv"):
        probe.call("GET", "/api/replays/{replay_id}/review/{name}",
                   {"replay_id": replay["id"], "name": name}, expect=200)
    probe.call("GET", "/api/replays/{replay_id}/review/{name}",
               {"replay_id": opened["id"], "name": "decisions.csv"}, expect=409)
    probe.call("POST", "/api/replays/{replay_id}/review", {"replay_id": "unknown-id-1234"},
               expect=404)
    probe.call("DELETE", "/api/replays/{replay_id}", {"replay_id": opened["id"]}, expect=403)
    probe.call("DELETE", "/api/replays/{replay_id}", {"replay_id": opened["id"]},
               token=opened["token"], expect=200)
    probe.call("GET", "/api/games/{game_id}", {"game_id": "unknown-id-1234"}, expect=404)
    probe.call("POST", "/api/games", body={"mode": "chess"}, expect=422)
    for game_id in (two, four, dale, loaded["id"]):  # still in progress, all checked
        assert not probe.truth(game_id).is_over


def test_every_route_is_called(probed):
    missing = app_routes() - probed.covered
    assert not missing, f"routes served but not probed for hidden facts: {sorted(missing)}"


def test_no_answer_carries_a_hidden_fact(probed):
    """The answers were checked as they came (Probe.check); here, that there were many and
    that the hidden facts searched for were there to be found."""
    assert probed.answers > 150
    for game_id in probed.games:
        truth = probed.truth(game_id)
        hidden = Hidden(truth, 0, True)
        assert len(hidden.pile) > 2 * NAME_WINDOW
        assert truth.config.mode == "dale" or hidden.goals


def test_the_search_finds_a_leak_when_there_is_one(probed):
    """The checks are not blind: a body holding the true stack order, a hidden goal or
    One More Round's place is caught, in each encoding."""
    game_id, known = next((i, g) for i, g in probed.games.items() if len(g["tokens"]) > 2)
    truth = probed.truth(game_id)
    hidden = Hidden(truth, 0, True)
    pile = hidden.pile
    leaks = [json.dumps({"next": [TILES.names[k] for k in pile[3:3 + NAME_WINDOW]]}),
             "<svg>" + "".join(f"<text>{part}</text>" for k in pile[:NAME_WINDOW]
                               for part in TILES.names[k].split()) + "</svg>",
             json.dumps({"stacks": pile[2:2 + NUMBER_WINDOW]}),
             json.dumps({"note": f"goal of seat 1: {GOALS.names[hidden.goals[0]]}"}),
             json.dumps({"their_goal": hidden.goals[-1]})]
    if hidden.one_more_round is not None:
        leaks.append(json.dumps({"note": f"{ONE_MORE_ROUND} after {hidden.one_more_round}"
                                         f" tiles"}))
    token = next(t for t, seat in known["tokens"].items() if seat == 0)
    for leak in leaks:
        with pytest.raises(AssertionError):
            probed.check(leak, "", game_id, token)
    # in an answer about no game (or another one), a longer run of this game's stacks
    elsewhere = json.dumps({"next": [TILES.names[k] for k in pile[:OTHER_GAME_WINDOW]]})
    with pytest.raises(AssertionError, match="stacks' order as names"):
        probed.check(elsewhere, "", None, None)
