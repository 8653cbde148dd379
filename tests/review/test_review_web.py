"""The web server's reviews (suburbia_env/apps/web/reviews.py, issue 33): a finished
replay is reviewed in the background and its progress and result read by polling; what
cannot be reviewed is refused with a message saying why."""

import csv
import io
import json
import time

import pytest

pytest.importorskip("fastapi")

from agents.review_files import CSV_FIELDS
from web_fixtures import client, greedy_record, open_replay  # noqa: F401  (client: fixture)


@pytest.mark.slow
def test_a_finished_replay_is_reviewed_in_the_background(client):
    record = greedy_record(seed=3)
    replay = open_replay(client, record)
    assert client.get(f"/api/replays/{replay}/review").json() == {"status": "none"}
    started = client.post(f"/api/replays/{replay}/review?candidates=2&samples=2")
    assert started.status_code == 202
    assert started.json()["status"] in ("queued", "running", "done")
    deadline = time.monotonic() + 300
    while True:
        answer = client.get(f"/api/replays/{replay}/review").json()
        if answer["status"] not in ("queued", "running") or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert answer["status"] == "done", answer
    assert any(line.startswith("evaluated ") for line in answer["progress"])
    review = answer["review"]
    assert review["format"] == "suburbia-review"
    assert "may use everything" in review["knowledge"]
    assert [d["move"] for d in review["decisions"]] == record["actions"]
    assert review["search"]["samples"] == 2 and review["search"]["candidates"] == 2
    for seat, indexes in answer["mistakes"].items():
        assert len(indexes) <= 3
        assert all(review["decisions"][i]["seat"] == int(seat)
                   and not review["decisions"][i]["played_is_best"] for i in indexes)
    # its files, as `suburbia review` writes them
    document = client.get(f"/api/replays/{replay}/review/decisions.json")
    assert document.status_code == 200 and document.json() == review
    assert 'filename="decisions.json"' in document.headers["content-disposition"]
    table = client.get(f"/api/replays/{replay}/review/decisions.csv")
    assert table.status_code == 200 and table.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert list(rows[0]) == list(CSV_FIELDS) and len(rows) == len(record["actions"])
    assert [row["move"] for row in rows] == [d["move"] for d in review["decisions"]]
    assert client.get(f"/api/replays/{replay}/review/notes.txt").status_code == 422
    again = client.post(f"/api/replays/{replay}/review").json()
    assert again["status"] == "done" and again["review"] == review  # kept, not redone
    json.dumps(answer)
    # its redraw seed makes it again exactly; another seed is another review
    seed = answer["redraw_seed"]
    assert review["search"]["redraw_seed"] == int(seed) and 0 <= int(seed) < 2**64
    remade = _reviewed(client, replay, f"candidates=2&samples=2&seed={seed}")
    assert remade["review"] == review and remade["redraw_seed"] == seed
    other = client.post(f"/api/replays/{replay}/review?candidates=2&samples=2&seed=7")
    assert other.status_code == 202
    busy = client.post(f"/api/replays/{replay}/review?candidates=2&samples=2&seed=8")
    assert busy.status_code == 409 and "under way" in busy.json()["error"]
    seven = _reviewed(client, replay, "seed=7")
    assert seven["redraw_seed"] == "7" and seven["review"]["search"]["redraw_seed"] == 7
    assert [d["move"] for d in seven["review"]["decisions"]] == record["actions"]
    assert [d["seat_win_probabilities"] for d in seven["review"]["decisions"]] != \
        [d["seat_win_probabilities"] for d in review["decisions"]]


def _reviewed(client, replay: str, query: str) -> dict:
    """Ask for a review with these settings and wait for it."""
    answer = client.post(f"/api/replays/{replay}/review?{query}").json()
    deadline = time.monotonic() + 300
    while answer["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.5)
        answer = client.get(f"/api/replays/{replay}/review").json()
    assert answer["status"] == "done", answer
    return answer


def test_what_cannot_be_reviewed_is_refused(client):
    unfinished = open_replay(client, greedy_record(seed=4, decisions=8))
    response = client.post(f"/api/replays/{unfinished}/review")
    assert response.status_code == 409
    assert "before the game is over" in response.json()["error"]
    finished = open_replay(client, greedy_record(seed=4))
    for query in ("samples=0", "samples=33", "candidates=9", "candidates=x", "seed=-1",
                  f"seed={2**64}", "seed=1.5"):
        response = client.post(f"/api/replays/{finished}/review?{query}")
        assert response.status_code == 422, query
        assert query.split("=")[0] in response.json()["error"]
    assert client.get(f"/api/replays/{finished}/review").json() == {"status": "none"}
    missing = client.get(f"/api/replays/{finished}/review/decisions.csv")
    assert missing.status_code == 409 and "no finished review" in missing.json()["error"]
    assert client.post("/api/replays/unknown-id-1234/review").status_code == 404
