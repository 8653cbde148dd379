"""Hints in the page, in real headless Chromium (issue 33, items 3 and 7): off by default;
the Hint button shows only to the one person of a game made with hints against bots
(never in a game of several people, never to a watcher); a hint shows the search's best
move in a table and draws it on the board (the card it takes outlined, the tile as a
ghost on its cell, or the goal to keep marked), and the drawing goes once the person
decides; the final screen and the record downloaded say how many hints were used."""

import json
import random

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("torch")

from suburbia_env import Game
from web_fixtures import (click_a_decision, drawn_box, fill_new_game, my_turn, shot,
                          start_game)

pytestmark = pytest.mark.slow

HINT_SHOWN = "() => document.querySelector('#hint-box table.hint-moves') !== null"


def ask_hint(page):
    """Click Hint; the best move's action number once the table shows."""
    page.click("#hint")
    page.wait_for_function(HINT_SHOWN, timeout=300_000)
    return page.evaluate("() => window.suburbia.hint.answer.moves[0].action")


def placed_move(legal: dict, number: int):
    """(verb, slot or basic tile, cell) of an action number, from the view's legal moves."""
    for verb in ("buy", "lake", "basic"):
        for source, cells in legal[verb].items():
            for cell, action in cells.items():
                if action == number:
                    return verb, source, cell
    for cell, action in legal["invest"].items():
        if action == number:
            return "invest", None, cell
    return None


def test_the_hint_button_shows_only_when_allowed_and_shows_the_best_move(page, server,
                                                                        tmp_path):
    start_game(page, server, seed=515)
    assert my_turn(page)
    assert page.is_hidden("#hint")
    assert page.evaluate("() => window.suburbia.view.hints.on") is False

    start_game(page, server, seed=515, hints=True)
    assert my_turn(page)
    assert page.is_visible("#hint")
    drawn = page.evaluate("() => window.suburbia.view.goal_options.map((goal) => goal.name)")
    ask_hint(page)
    rows = page.locator("#hint-box table.hint-moves tr")
    best = rows.nth(1).inner_text()
    assert best.startswith("Best") and "keeps" in best
    assert any(goal in best for goal in drawn)
    assert rows.count() == 1 + len(drawn)  # both goals, the best first
    assert "%" in best
    shot(page, tmp_path, "web-hint")
    page.wait_for_function("() => window.suburbia.view.hints.used['0'] === 1")
    rng = random.Random(3)
    click_a_decision(page, rng)
    assert page.is_hidden("#hint-box")  # the hint was for the decision taken
    decisions = 1
    while my_turn(page):
        click_a_decision(page, rng)
        decisions += 1
        assert decisions < 200
    assert page.is_hidden("#hint")
    assert page.inner_text("#hints-used") == "Hints used: Player 0: 1"
    with page.expect_download() as download:  # the record the page offers says so too
        page.click("#download-record")
    saved = tmp_path / "record.json"
    download.value.save_as(saved)
    record = json.loads(saved.read_text())
    assert record["hints_used"] == {"0": 1}
    assert len(record["actions"]) == decisions and Game.replay(record).is_over


def test_a_hint_is_drawn_on_the_board_and_cleared_by_the_move(page, server, tmp_path):
    page.set_default_timeout(300_000)
    start_game(page, server, mode="standard", players=2, agents=[(1, "greedy")], seed=4321,
               hints=True)
    assert my_turn(page)
    assert page.evaluate("() => window.suburbia.view.decision") == "keep_goal"
    best = ask_hint(page)  # a goal to keep: its button is marked, nothing on the board
    marked = page.locator("#decision button.hint-choice")
    assert marked.count() == 1 and int(marked.get_attribute("data-action")) == best
    assert page.locator("#board g.ghost").count() == 0
    version = page.evaluate("() => window.suburbia.version")
    marked.click()
    page.wait_for_function(f"() => window.suburbia.version > {version}")
    assert my_turn(page)
    assert page.locator("#decision button.hint-choice").count() == 0
    assert page.evaluate("() => window.suburbia.view.decision") == "turn"
    tiles = page.locator("#board g.cell.tile").count()
    best = ask_hint(page)
    view = page.evaluate("() => window.suburbia.view")
    move = placed_move(view["legal"], best)
    assert move is not None, best  # a tile placed: a purchase, a lake, a basic tile
    verb, source, cell = move
    ghost = page.locator("#board g.ghost.hinted")
    assert ghost.count() == 1
    assert ghost.get_attribute("data-cell") == cell
    assert ghost.get_attribute("data-seat") == str(view["you"])
    target = page.locator(f"#board g.cell.hint-target[data-seat='{view['you']}']"
                          f"[data-cell='{cell}']")
    assert target.count() == 1  # the place it would go, in the person's own borough
    # drawn where the cell is: its outline on the cell's, its words centred on it (a long
    # name may overflow the cell, so the whole drawing's box is not the cell's)
    outline = drawn_box(ghost.locator("polygon"))
    shape = drawn_box(target.locator("polygon").first)
    assert all(abs(outline[side] - shape[side]) < 1.5
               for side in ("x", "y", "width", "height")), (outline, shape)
    for line in range(ghost.locator("text").count()):
        text = ghost.locator("text").nth(line).bounding_box()
        assert abs(text["x"] + text["width"] / 2 - shape["x"] - shape["width"] / 2) < 3
    if verb == "basic":
        card = page.locator(f"#board g.basic.hint-source[data-basic='{source}']")
        tile = page.evaluate("(kind) => window.suburbia.tiles[kind].name",
                             int(card.get_attribute("data-kind")))
    else:
        card = page.locator(f"#board g.slot.hint-source[data-slot='{source}']")
        tile = "Lake" if verb == "lake" else next(
            row["tile"] for row in view["market"] if str(row["slot"]) == source)
    assert card.count() == 1 and page.locator("#board .hint-source").count() == 1
    words = ghost.text_content()
    assert words.lower().startswith("hint") and tile in words
    assert page.locator("#board g.cell.tile").count() == tiles  # no real tile added
    shot(page, tmp_path, "web-hint-board")
    click_a_decision(page, random.Random(5))
    assert page.locator("#board g.ghost").count() == 0
    assert page.locator("#board .hint-source, #board .hint-target").count() == 0
    assert page.is_hidden("#hint-box")


def test_hints_are_offered_only_to_one_person_against_bots(page, server, browser):
    page.goto(server + "/")
    page.wait_for_selector("#new-game")
    assert not page.is_checked("#hints-option")  # off by default
    # a game of several people with hints ticked: refused, said, no game made
    fill_new_game(page, server, mode="standard", players=3, agents=[(2, "greedy")],
                  persons=[1], hints=True)
    page.click("#start")
    page.wait_for_function("() => document.getElementById('message').className === 'error'")
    assert "not for a game of several people" in page.inner_text("#message")
    assert page.evaluate("() => window.suburbia.game") is None
    # the same game without hints: no Hint button for its people
    start_game(page, server, mode="standard", players=3, agents=[(2, "greedy")], persons=[1],
               seed=3)  # seat 0 decides first (a random seed may give it to seat 1's person)
    assert my_turn(page)
    assert page.is_hidden("#hint")
    assert page.evaluate("() => window.suburbia.view.hints") == {
        "on": False, "can_ask": False, "running": False, "used": {"0": 0, "1": 0}}
    # Solitary Architect with hints ticked: refused, no opponent to win against (R9.1)
    fill_new_game(page, server, mode="solitary", hints=True)
    page.click("#start")
    page.wait_for_function("() => document.getElementById('message').className === 'error'")
    assert "Solitary Architect" in page.inner_text("#message")
    assert page.evaluate("() => window.suburbia.game") is None
    # a game with hints: the Hint button only at the person's own decisions
    start_game(page, server, mode="standard", players=2, agents=[(1, "greedy")], hints=True,
               seed=3)
    assert my_turn(page) and page.is_visible("#hint")
    page.click("#bot-pause")
    page.wait_for_function("() => window.suburbia.view.bots.paused")
    click_a_decision(page, random.Random(9))
    page.wait_for_function("() => window.suburbia.view.current === 1")
    assert page.is_hidden("#hint")  # the bot's turn, paused: nothing to hint
    assert page.evaluate("() => window.suburbia.view.hints.can_ask") is False
    page.click("#bot-pause")  # resumed: the bot decides, the person's turn comes back
    assert my_turn(page) and page.is_visible("#hint")
    # ... and watched without a seat: no Hint button for the watcher
    watcher = browser.new_context().new_page()
    watcher.goto(f"{server}/#/game/{page.evaluate('() => window.suburbia.game')}")
    watcher.wait_for_function("() => window.suburbia.view !== null")
    assert watcher.evaluate("() => window.suburbia.view.you") is None
    assert watcher.is_hidden("#hint")
    watcher.context.close()
