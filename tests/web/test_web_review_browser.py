"""The review of a finished game in the page, in real headless Chromium (issue 33, items
1 and 7): the win-probability chart renders, one line a seat, and a mistake clicked shows
the board at the moment of the decision with the better move drawn on it (the tile it
would place as a ghost on its cell, the card it takes outlined) and the move played."""

import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("torch")

from suburbia_env import Game
from web_fixtures import greedy_record, shot

pytestmark = pytest.mark.slow  # a review takes seconds to a minute of CPU


def test_a_finished_game_is_reviewed_and_a_mistake_shows_the_better_move(page, server,
                                                                          tmp_path):
    page.set_default_timeout(600_000)  # a shared machine: the review may be slow
    record = greedy_record(seed=3)
    game = Game.replay(record)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    page.goto(server + "/")
    page.wait_for_selector("#new-game")
    page.set_input_files("#open-file", str(path))
    page.wait_for_selector("#r-review:not([hidden])")
    page.click("#r-review-start")
    page.wait_for_selector("#r-chart-box:not([hidden]) polyline.seat-line")
    assert page.locator("#r-chart polyline.seat-line").count() == 2
    points = page.get_attribute("#r-chart polyline.seat-line[data-seat='0']", "points")
    assert len(points.split()) == len(game.history) + 1  # every decision, then the result
    assert page.locator("#r-chart circle.mistake-dot").count() == \
        page.locator("#r-mistakes button.mistake").count()
    assert "may use everything" in page.inner_text("#r-review-status")
    mistakes = page.locator("#r-mistakes button.mistake")
    assert 1 <= mistakes.count() <= 6
    decisions = page.evaluate("() => window.suburbia.review.review.decisions")
    placed = [index for index in range(mistakes.count()) if decisions[int(
        mistakes.nth(index).get_attribute("data-decision"))]["best_move"].startswith("buy ")]
    assert placed, "no mistake of this game has a purchase as its better move"
    button = mistakes.nth(placed[0])
    decision = int(button.get_attribute("data-decision"))
    best = decisions[decision]
    button.click()
    page.wait_for_function(
        f"() => document.getElementById('r-position').textContent.startsWith('Step {decision} of')")
    better = page.inner_text("#r-better")
    assert f"Before decision {decision}" in better and "better move" in better
    # the board at that moment: the replay's view of step `decision`, the better move on it
    slot, cell_text = best["best_move"].removeprefix("buy ").split(" @ ")
    column, row = cell_text.split(",")
    position = Game.replay(record | {"actions": record["actions"][:decision]})
    tile = next(entry["tile"] for entry in position.market() if entry["slot"] == int(slot))
    cell = page.locator(f"#replay-board g.cell.better-move[data-seat='{best['seat']}']"
                        f"[data-col='{column}'][data-row='{row}']")
    assert cell.count() == 1
    ghost = page.locator("#replay-board g.ghost.better")
    assert ghost.count() == 1
    assert ghost.get_attribute("data-cell") == cell.get_attribute("data-cell")
    assert ghost.get_attribute("data-seat") == str(best["seat"])
    words = ghost.text_content()
    assert words.startswith("better") and tile in words
    assert page.locator(f"#replay-board g.slot.better-source[data-slot='{slot}']").count() == 1
    box, shape = ghost.bounding_box(), cell.bounding_box()  # drawn where the cell is
    assert abs(box["x"] - shape["x"]) < 3 and abs(box["y"] - shape["y"]) < 3
    shot(page, tmp_path, "web-review")
    page.click("#r-next")  # another step: the drawing of the better move is gone
    page.wait_for_function(
        f"() => document.getElementById('r-position').textContent.startsWith('Step {decision + 1} of')")
    assert page.locator("#replay-board g.ghost").count() == 0
