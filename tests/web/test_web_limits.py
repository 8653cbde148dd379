"""Fair limits of `suburbia serve` (suburbia_env/apps/web/sessions.py, `Store`), with real
clients on loopback, each from its own address of 127.0.0.0/8: caps per address and per
network (/24) well below the total; a full server makes room at the expense of the
network holding the most, never of a party holding fewer; X-Forwarded-For believed only
from a configured proxy. The memory bound: 5,000 idle games held by the real process
within 1 GB (idle games live in the store, not in memory)."""

import random
import threading
import time

import pytest

pytest.importorskip("fastapi")

from real_server import Client, Server, legal_numbers

pytestmark = pytest.mark.slow

DALE = {"mode": "dale", "players": 1, "seats": [{"kind": "person"}], "delay_ms": 0}


def create(client: Client, body=DALE):
    return client.call("POST", "/api/games", body)


def test_no_party_fills_the_server_and_forwarded_addresses_need_a_trusted_proxy(tmp_path):
    server = Server(tmp_path, tmp_path / "games.sqlite3", "--max-games", "16",
                    "--max-games-per-client", "3", "--max-games-per-network", "5",
                    "--trusted-proxy", "127.0.0.1").start()
    try:
        # Through the trusted proxy (127.0.0.1), the forwarded address is the client.
        proxied = Client(server.port, source="127.0.0.1", forwarded_for="10.20.30.40")
        for _ in range(3):
            assert create(proxied)[0] == 201
        status, answer = create(proxied)
        assert status == 429 and "already hold 3" in answer["error"]
        proxied.forwarded_for = "10.20.30.41"
        assert create(proxied)[0] == 201
        # Ten requests of one address at once: the limit holds, exactly three are made.
        answers = []
        burst = [threading.Thread(target=lambda: answers.append(
            create(Client(server.port, source="127.0.9.2")))) for _ in range(10)]
        for thread in burst:
            thread.start()
        for thread in burst:
            thread.join()
        made = [answer for status, answer in answers if status == 201]
        assert len(made) == 3 and sorted(status for status, _ in answers) == [201] * 3 + [429] * 7
        for answer in made:
            Client(server.port, source="127.0.9.2").ok(
                "DELETE", f"/api/games/{answer['id']}", token=answer["token"])
        alice = Client(server.port, source="127.0.0.2")
        games = {"127.0.0.2": [create(alice)[1] for _ in range(3)]}
        status, answer = create(alice)
        assert status == 429 and "already hold 3" in answer["error"]
        # Naming another address is not believed from a client that is not the proxy.
        alice.forwarded_for = "10.20.30.50"
        status, answer = create(alice)
        assert status == 429 and "already hold 3" in answer["error"]
        neighbour = Client(server.port, source="127.0.0.3")
        games["127.0.0.3"] = [create(neighbour)[1] for _ in range(2)]
        status, answer = create(neighbour)
        assert status == 429 and "127.0.0.0/24" in answer["error"]
        for source, count in (("127.0.1.2", 3), ("127.0.1.3", 2)):
            client = Client(server.port, source=source)
            games[source] = [create(client)[1] for _ in range(count)]
        small = Client(server.port, source="127.0.2.2")
        games["127.0.2.2"] = [create(small)[1] for _ in range(2)]  # 16: the server is full
        # A newcomer gets room: the longest-idle game of the heaviest network goes.
        newcomer = Client(server.port, source="127.0.3.2")
        status, answer = create(newcomer)
        assert status == 201, answer
        assert alice.call("GET", f"/api/games/{games['127.0.0.2'][0]['id']}")[0] == 404
        assert alice.call("GET", f"/api/games/{games['127.0.0.2'][1]['id']}")[0] == 200
        # A small holder too, at the expense of the other heavy network.
        status, answer = create(small)
        assert status == 201, answer
        assert alice.call("GET", f"/api/games/{games['127.0.1.2'][0]['id']}")[0] == 404
        # A party of a heaviest network (4 games each now) is refused, not served at the
        # expense of another.
        status, answer = create(Client(server.port, source="127.0.0.9"))
        assert status == 429 and "server holds 16" in answer["error"]
    finally:
        server.stop()


def test_five_thousand_idle_games_take_less_than_a_gigabyte(tmp_path):
    """5,000 games (a fifth with a bot) made through the API by 50 clients, then left
    idle: the server holds them within 1 GB of resident memory, and any of them plays on."""
    server = Server(tmp_path, tmp_path / "games.sqlite3", "--max-games-per-client", "5000",
                    "--max-games-per-network", "5000").start()
    try:
        rng = random.Random(3)
        clients = [Client(server.port, source=f"127.0.{n // 10}.{n % 10 + 2}")
                   for n in range(50)]
        started = server.rss_bytes()
        made = []
        begin = time.monotonic()
        for number in range(5000):
            body = DALE if number % 5 else {
                "mode": "standard", "players": 2, "delay_ms": 0,
                "seats": [{"kind": "person"}, {"kind": "agent", "agent": "greedy"}]}
            status, answer = create(clients[number % 50], body)
            assert status == 201, answer
            made.append(answer)
        took = time.monotonic() - begin
        rss = server.rss_bytes()
        print(f"\n5000 games made in {took:.0f} s; server RSS {started / 2**20:.0f} MiB at "
              f"the start, {rss / 2**20:.0f} MiB holding 5000 games")
        assert rss < 2**30
        for game in rng.sample(made, 5):
            view = clients[0].ok("GET", f"/api/games/{game['id']}", token=game["token"])
            deadline = time.monotonic() + 30
            while view["legal"] is None:
                assert time.monotonic() < deadline
                view = clients[0].ok("GET", f"/api/games/{game['id']}?since_version="
                                            f"{view['version']}", token=game["token"])
            clients[0].ok("POST", f"/api/games/{game['id']}/actions",
                          {"action": legal_numbers(view)[0], "version": view["version"]},
                          game["token"])
    finally:
        server.stop()
