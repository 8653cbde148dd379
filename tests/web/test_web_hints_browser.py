"""Hints in the page, in real headless Chromium (issue 33, items 3 and 7): the Hint button
shows only in a game made with hints, clicking it shows the search's best move for the
person's decision, and the final screen says how many hints were used. The server and
the browser are test_web_browser.py's."""

import random

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("torch")

from test_web_browser import browser, click_a_decision, my_turn, page, server, shot  # noqa: F401

pytestmark = pytest.mark.slow


def start_dale_game(page, server, hints: bool, seed: int):
    page.goto(server + "/")
    page.wait_for_selector("#new-game")
    page.check("input[name=mode][value=dale]")
    if hints:
        page.check("#hints-option")
    page.fill("#seed", str(seed))
    page.select_option("#delay", "0")
    page.click("#start")
    page.wait_for_function("() => window.suburbia.view !== null && window.suburbia.game !== null")


def test_the_hint_button_shows_only_when_allowed_and_shows_the_best_move(page, server,
                                                                        tmp_path):
    start_dale_game(page, server, hints=False, seed=515)
    assert my_turn(page)
    assert page.is_hidden("#hint")
    assert page.evaluate("() => window.suburbia.view.hints.on") is False

    start_dale_game(page, server, hints=True, seed=515)
    assert my_turn(page)
    assert page.is_visible("#hint")
    drawn = page.evaluate("() => window.suburbia.view.goal_options.map((goal) => goal.name)")
    page.click("#hint")
    page.wait_for_function("() => document.querySelector('#hint-box table.hint-moves') !== null",
                           timeout=120_000)
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
