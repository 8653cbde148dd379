"""How fast `suburbia serve` answers the requests a page makes: median, 95th percentile and
maximum response time per kind of request, while whole games are played through the
same HTTP API the page (suburbia_env/apps/web/static/app.js) uses.

    python benchmarks/web_latency.py [--dale-games N] [--bot-games N] [--seed S]

It starts the real server (`python -m suburbia_env.apps.cli serve` on a free loopback port,
a temporary sealing key), waits for it to answer, then over one kept-alive connection,
as a browser does:
- loads the page (index, script, options, tile texts);
- plays N games of a person against Dale (R9.2, the keep-goal decision first) by
  choosing uniformly among the legal actions the server lists, with an undo every
  tenth decision, a sealed save and its reload, a bots' pace change;
- plays N 3-player games, the person against greedy and random bots at pace 0; the
  wait for the bots (long poll) is their thinking time, shown by the page as such, and
  is reported apart, not as a click;
- opens each finished game as a replay and steps it forwards, backwards and by round.
Times are wall-clock from sending a request to having read its whole answer. Figures are
printed, never asserted (the project's rule: no timed unit tests).

    python benchmarks/web_latency.py --clients 50 --pace person --seconds 60
    python benchmarks/web_latency.py --clients 50 --pace fast --seconds 30

is the load test instead: N people at once, each on its own kept-alive connection from
its own loopback address (127.1.N.2, so each is its own client and network for the
server's limits), each playing games against Dale one after another (a new game when one
ends). `--pace person` clicks every 1 to 3 s (uniformly drawn), as a person does; `fast`
clicks again as soon as the answer is read. A click is a decision sent and its answer
(the new view, with the drawing) read; the wait for Dale is apart. It prints the clicks'
median, 95th and 99th percentiles and the clicks served per second over the run. The
clients run in `--client-processes` processes (default 2) so that their own work does
not queue behind one interpreter lock; they share the machine with the server.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Client:
    """One kept-alive HTTP connection that times every request by its kind."""

    def __init__(self, port: int, source: str | None = None):
        self.connection = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=120, source_address=(source, 0) if source else None)
        self.times: dict[str, list[float]] = defaultdict(list)

    def request(self, kind: str | None, method: str, url: str, body=None, token=None,
                expect=(200, 201)):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["X-Seat-Token"] = token
        payload = json.dumps(body).encode() if body is not None else None
        start = time.perf_counter()
        self.connection.request(method, url, body=payload, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if kind:
            self.times[kind].append(elapsed)
        if response.status not in expect:
            raise RuntimeError(f"{method} {url}: {response.status} {data[:300]!r}")
        content = response.getheader("Content-Type", "")
        return json.loads(data) if "json" in content else data


def legal_numbers(view: dict) -> list[int]:
    """Every action number of the grouped legal actions the page lights up."""
    legal = view["legal"]
    numbers = [n for verb in ("buy", "lake", "basic") for cells in legal[verb].values()
               for n in cells.values()]
    numbers += [n for verb in ("invest", "discard", "remove", "keep") for n in legal[verb].values()]
    if legal["pass"] is not None:
        numbers.append(legal["pass"])
    return numbers


def wait_for_turn(client: Client, game_id: str, token: str, view: dict) -> dict:
    """Long polls until the person decides or the game ends (the bots' time)."""
    while view["legal"] is None and not view["over"]:
        view = client.request("bots' moves (long poll, thinking time)", "GET",
                              f"/api/games/{game_id}?since_version={view['version']}"
                              f"&log_since={view['log_total']}", token=token)
    return view


def play_game(client: Client, rng: random.Random, body: dict, undo_every: int,
              save_at: int | None) -> tuple[str, str]:
    created = client.request("new game", "POST", "/api/games", body)
    game_id, token = created["id"], created["token"]
    view = client.request("view (page opens a game)", "GET", f"/api/games/{game_id}",
                          token=token)
    decisions = 0
    while True:
        view = wait_for_turn(client, game_id, token, view)
        if view["over"]:
            break
        number = rng.choice(legal_numbers(view))
        view = client.request("play a decision", "POST",
                              f"/api/games/{game_id}/actions?log_since={view['log_total']}",
                              {"action": number, "version": view["version"]}, token)
        decisions += 1
        if undo_every and decisions % undo_every == 0 and view["can_undo"]:
            view = client.request("undo", "POST", f"/api/games/{game_id}/undo", token=token)
        if save_at is not None and decisions == save_at and view["can_save"]:
            sealed = client.request("save (sealed)", "POST", f"/api/games/{game_id}/save",
                                    token=token)
            loaded = client.request("load a sealed game", "POST", "/api/load", {"file": sealed})
            client.request(None, "DELETE", f"/api/games/{loaded['id']}", token=loaded["token"])
        if decisions == 3 and view["bots"]["present"]:
            client.request("bots' pace", "POST", f"/api/games/{game_id}/bots",
                           {"delay_ms": 0}, token)
            view = client.request("view (page opens a game)", "GET",
                                  f"/api/games/{game_id}", token=token)  # a new version
    if view["has_record"]:  # none after an undo's redraw: the state instead
        client.request("record (game over)", "GET", f"/api/games/{game_id}/record")
    else:
        client.request("state (game over)", "GET", f"/api/games/{game_id}/state")
    replay = client.request("open a replay", "POST", f"/api/games/{game_id}/replay")
    client.request(None, "DELETE", f"/api/games/{game_id}", token=token)
    return replay["id"], replay["token"]


def step_replay(client: Client, rng: random.Random, replay_id: str, token: str) -> None:
    first = client.request("replay step", "GET", f"/api/replays/{replay_id}?step=0")
    total = first["total"]
    for step in range(1, min(total, 40) + 1):
        client.request("replay step", "GET", f"/api/replays/{replay_id}?step={step}")
    for step in range(min(total, 40) - 1, max(0, min(total, 40) - 10), -1):
        client.request("replay step", "GET", f"/api/replays/{replay_id}?step={step}")
    for entry in first["rounds"]:
        client.request("replay jump", "GET", f"/api/replays/{replay_id}?step={entry['step']}")
    for _ in range(10):
        client.request("replay jump", "GET",
                       f"/api/replays/{replay_id}?step={rng.randrange(total + 1)}")
    client.request(None, "DELETE", f"/api/replays/{replay_id}", token=token)  # its maker


def person(port: int, number: int, pace: str, seconds: float, seed: int) -> dict:
    """One person of the load test: games against Dale, one after another, for `seconds`;
    the times of the clicks (decisions) and the count served."""
    rng = random.Random(seed * 1000 + number)
    client = Client(port, source=f"127.1.{number}.2")
    end = time.monotonic() + seconds
    clicks = 0
    while time.monotonic() < end:
        created = client.request("new game", "POST", "/api/games", {
            "mode": "dale", "players": 1, "seats": [{"kind": "person"}], "delay_ms": 0})
        game_id, token = created["id"], created["token"]
        view = client.request("view (page opens a game)", "GET", f"/api/games/{game_id}",
                              token=token)
        while time.monotonic() < end:
            view = wait_for_turn(client, game_id, token, view)
            if view["over"]:
                break
            if pace == "person":
                time.sleep(rng.uniform(1.0, 3.0))
            view = client.request("click (a decision and its view)", "POST",
                                  f"/api/games/{game_id}/actions?log_since={view['log_total']}",
                                  {"action": rng.choice(legal_numbers(view)),
                                   "version": view["version"]}, token)
            clicks += 1
        client.request(None, "DELETE", f"/api/games/{game_id}", token=token)
    return {"times": dict(client.times), "clicks": clicks}


def _people(arguments) -> list[dict]:
    """Several people on threads of one client process."""
    import threading
    port, numbers, pace, seconds, seed = arguments
    results = []
    threads = [threading.Thread(target=lambda n=n: results.append(
        person(port, n, pace, seconds, seed))) for n in numbers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def load_test(port: int, clients: int, pace: str, seconds: float, seed: int,
              processes: int) -> None:
    groups = [list(range(clients))[index::processes] for index in range(processes)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        results = [result for group in pool.map(
            _people, [(port, group, pace, seconds, seed) for group in groups])
            for result in group]
    elapsed = time.perf_counter() - started
    times: dict[str, list[float]] = defaultdict(list)
    for result in results:
        for kind, values in result["times"].items():
            times[kind].extend(values)
    clicks = sorted(times["click (a decision and its view)"])
    served = sum(result["clicks"] for result in results)

    def percentile(share: float) -> float:
        return clicks[min(len(clicks) - 1, int(round(share * (len(clicks) - 1))))]

    print(f"{clients} people at {pace} pace for {seconds:.0f} s (run took {elapsed:.0f} s), "
          f"seed {seed}, {processes} client processes")
    report(times)
    print(f"clicks: {served} served, {served / seconds:.1f} per second; median "
          f"{statistics.median(clicks):.1f} ms, p95 {percentile(0.95):.1f} ms, p99 "
          f"{percentile(0.99):.1f} ms, max {clicks[-1]:.1f} ms")


def start_server(port: int, folder: Path, options: list[str] = ()) -> subprocess.Popen:
    env = dict(os.environ, XDG_CONFIG_HOME=str(folder), OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "suburbia_env.apps.cli", "serve", "--port", str(port),
         "--models", str(REPO / "models"), "--secret-file", str(folder / "secret.key"),
         "--store", str(folder / "games.sqlite3"), *options],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 600  # the first start may compile the engine's kernels
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/options")
            if connection.getresponse().status == 200:
                return process
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit("suburbia serve did not start:\n" + (process.stdout.read() or ""))
        time.sleep(0.3)


def report(times: dict[str, list[float]]) -> None:
    print(f"{'request':<40} {'n':>5} {'median':>8} {'p95':>8} {'max':>8}  (ms)")
    clicks = []
    for kind, values in times.items():
        values = sorted(values)
        p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
        print(f"{kind:<40} {len(values):>5} {statistics.median(values):>8.1f} {p95:>8.1f} "
              f"{values[-1]:>8.1f}")
        if "long poll" not in kind:
            clicks.extend(values)
    clicks.sort()
    p95 = clicks[min(len(clicks) - 1, int(round(0.95 * (len(clicks) - 1))))]
    print(f"{'every request but the bots long poll':<40} {len(clicks):>5} "
          f"{statistics.median(clicks):>8.1f} {p95:>8.1f} {clicks[-1]:>8.1f}")
    print(f"requests over 100 ms: {sum(value > 100 for value in clicks)} of {len(clicks)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dale-games", type=int, default=5, help="games against Dale")
    parser.add_argument("--bot-games", type=int, default=2, help="3-player games with 2 bots")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and choices")
    parser.add_argument("--clients", type=int, default=0,
                        help="the load test: this many people at once (0: one page, above)")
    parser.add_argument("--pace", choices=("person", "fast"), default="person",
                        help="load test: a click every 1-3 s, or as fast as answered")
    parser.add_argument("--seconds", type=float, default=60, help="load test: how long")
    parser.add_argument("--client-processes", type=int, default=2,
                        help="load test: processes the people run in")
    parser.add_argument("--server-option", action="append", default=[], metavar="OPTION",
                        help="an option for suburbia serve (repeat; e.g. --server-option=--workers=2)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        server = start_server(port, Path(folder), args.server_option)
        print(f"server up in {time.perf_counter() - started:.1f} s on port {port} "
              f"(python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.1f})")
        if args.clients:
            try:
                load_test(port, args.clients, args.pace, args.seconds, args.seed,
                          args.client_processes)
            finally:
                server.terminate()
                server.wait(timeout=10)
            return 0
        try:
            client = Client(port)
            for url, kind in (("/", "page"), ("/static/app.js", "page"),
                              ("/static/style.css", "page"), ("/api/options", "options"),
                              ("/api/tiles", "tile texts")):
                client.request(kind, "GET", url)
            replays = []
            for game in range(args.dale_games):
                replays.append(play_game(
                    client, rng, {"mode": "dale", "players": 1, "seats": [{"kind": "person"}],
                                  "seed": args.seed + game, "delay_ms": 0},
                    undo_every=10, save_at=6))
            for game in range(args.bot_games):
                replays.append(play_game(
                    client, rng, {"mode": "standard", "players": 3, "delay_ms": 0,
                                  "seed": args.seed + 1000 + game,
                                  "seats": [{"kind": "person"},
                                            {"kind": "agent", "agent": "greedy"},
                                            {"kind": "agent", "agent": "random"}]},
                    undo_every=0, save_at=None))
            for replay_id, token in replays:
                step_replay(client, rng, replay_id, token)
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
    print(f"{args.dale_games} games against Dale, {args.bot_games} 3-player games with two "
          f"bots, seed {args.seed}")
    report(client.times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
