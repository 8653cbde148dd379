"""What the web tests share (tests/web, tests/hints, tests/review): the app on its real
framework with a test client, games made through the API, finished records to replay,
and the steps of a page in headless Chromium (the server and browser fixtures are in
tests/web/conftest.py)."""

import os
import shutil
import warnings
from pathlib import Path

import pytest

from repository import REPO

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-default-apps"]
SCREENSHOTS = os.environ.get("SUBURBIA_SCREENSHOTS")


# The app through its test client -----------------------------------------------------------

@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """The app of `suburbia serve` (FastAPI, with the repository's models) through
    Starlette's test client; the lifespan runs (warm-up, store, workers)."""
    pytest.importorskip("fastapi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from suburbia_env.apps.web import Settings, create_app
    secret = tmp_path_factory.mktemp("web") / "secret.key"
    app = create_app(Settings(secret_file=secret, model_dirs=[REPO / "models"]))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def new_game(client, seats, hints=None, seed=11, mode="standard"):
    """POST /api/games: `seats` "person" or an agent spec each; the response."""
    body = {"mode": mode, "players": len(seats), "seed": seed, "delay_ms": 0,
            "seats": [{"kind": "person"} if kind == "person" else
                      {"kind": "agent", "agent": kind} for kind in seats]}
    if hints is not None:
        body["hints"] = hints
    return client.post("/api/games", json=body)


def greedy_record(seed: int, players: int = 2, decisions: int | None = None) -> dict:
    """The record of greedy agents playing each other (to the end, or `decisions` long)."""
    from agents.greedy import GreedyAgent
    from suburbia_env import Game
    game = Game(players=players, seed=seed)
    agent = GreedyAgent()
    while not game.is_over and (decisions is None or len(game.history) < decisions):
        game.apply(agent.act(game))
    return game.record()


def open_replay(client, record: dict) -> str:
    response = client.post("/api/replays", json={"record": record})
    assert response.status_code == 201, response.text
    return response.json()["id"]


# The page in headless Chromium -----------------------------------------------------------

def shot(page, tmp_path, name):
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path))
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(SCREENSHOTS) / f"{name}.png")
    return path


def drawn_box(locator) -> dict:
    """An SVG element's box on the screen as drawn, without its stroke (its getBBox through
    its transforms): Chromium's client rectangle, playwright's bounding box, counts the
    stroke, whose width the page's styles vary."""
    return locator.evaluate("""(element) => {
        const box = element.getBBox(), matrix = element.getScreenCTM();
        const corner = (x, y) => new DOMPoint(x, y).matrixTransform(matrix);
        const low = corner(box.x, box.y), high = corner(box.x + box.width, box.y + box.height);
        return {x: low.x, y: low.y, width: high.x - low.x, height: high.y - low.y};
    }""")


def fill_new_game(page, server, mode="dale", players=1, agents=(), seed=None, delay="0",
                  persons=(), hints=False):
    """The new-game form filled in: `agents` [(seat, spec)], `persons` other seats a person
    takes (seat 0 is a person's unless given an agent), "Allow hints" ticked or not."""
    page.goto(server + "/")
    page.wait_for_selector("#new-game")
    page.check(f"input[name=mode][value={mode}]")
    if mode == "standard":
        page.select_option("#players", str(players))
    for seat, agent in agents:
        row = page.locator(f"#seats .seat-row[data-seat='{seat}']")
        row.locator("select.kind").select_option("agent")
        row.locator("input.agent").fill(agent)
    for seat in persons:
        page.locator(f"#seats .seat-row[data-seat='{seat}'] select.kind").select_option("person")
    if hints:
        page.check("#hints-option")
    if seed is not None:
        page.fill("#seed", str(seed))
    page.select_option("#delay", delay)


def start_game(page, server, mode="dale", players=1, agents=(), seed=None, delay="0",
               persons=(), hints=False):
    """A game made by the page's form (`fill_new_game`), once the page shows it."""
    fill_new_game(page, server, mode, players, agents, seed, delay, persons, hints)
    page.click("#start")
    page.wait_for_function("() => window.suburbia.view !== null && window.suburbia.game !== null")


def my_turn(page, timeout=60_000):
    page.wait_for_function("() => window.suburbia.view && (window.suburbia.view.legal !== null"
                           " || window.suburbia.view.over)", timeout=timeout)
    return not page.evaluate("window.suburbia.view.over")


def click_a_decision(page, rng, screenshot=None):
    """One decision of the person, taken by clicking what the page lights up."""
    version = page.evaluate("window.suburbia.version")
    if page.locator(".goal-choice").count():
        page.locator(".goal-choice").nth(rng.randrange(page.locator(".goal-choice").count())).click()
    elif page.evaluate("['discard', 'remove'].includes(window.suburbia.view.decision)"):
        slots = page.locator("#board g.slot.selectable")
        slots.nth(rng.randrange(slots.count())).click()
    else:
        choices = page.locator("#board g.slot.selectable, #board g.basic.selectable")
        if choices.count():
            choices.nth(rng.randrange(choices.count())).click()
        elif page.locator("#choose-invest").count():
            page.click("#choose-invest")
        else:
            page.click("#decision button[data-action]")  # pass
            page.wait_for_function(f"() => window.suburbia.version > {version}")
            return
        cells = page.locator("#board g.cell.legal")
        cells.first.wait_for()
        if screenshot:
            screenshot()
        cells.nth(rng.randrange(cells.count())).click()
    page.wait_for_function(f"() => window.suburbia.version > {version}")
