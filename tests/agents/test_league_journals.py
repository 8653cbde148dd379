"""The league journals checked in (benchmarks/results/league/*.played.jsonl.gz) give back
the summaries published beside them (docs/league.md): replayed through `run_league` with
their own settings, no game is played and the leads are the same."""

import gzip
import json
from pathlib import Path

import pytest

from agents.league import run_league

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "league"
JOURNALS = sorted(RESULTS.glob("*.played.jsonl.gz"))


def test_every_journal_has_its_summary():
    assert {path.name.replace(".played.jsonl.gz", "") for path in JOURNALS} >= {
        "styles-2p", "styles-3p", "styles-4p", "goal-prior-2p", "goal-prior-3p",
        "goal-chances-2p", "goal-chances-4p"}
    for path in JOURNALS:
        assert path.with_name(path.name.replace(".played.jsonl.gz", ".summary.json")).is_file()


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda path: path.name.split(".")[0])
def test_a_journal_replays_to_its_published_summary(journal, tmp_path):
    published = json.loads(journal.with_name(
        journal.name.replace(".played.jsonl.gz", ".summary.json")).read_text())
    config = published["config"]
    unpacked = tmp_path / "played.jsonl"
    with gzip.open(journal, "rt") as source:
        unpacked.write_text(source.read())
    _, _, summary, replayed = run_league(config["agents"], config["player_counts"],
                                         config["rounds"], config["games"], config["seed"],
                                         config["edition"], progress=False, journal=unpacked)
    assert replayed["games_from_journal"] == replayed["games_played"] == config["games"]
    for players in config["player_counts"]:
        lead, expected = (summary["player_counts"][players]["lead"],
                          published["player_counts"][str(players)]["lead"])
        assert (lead["leader"], lead["next"]) == (expected["leader"], expected["next"])
        assert lead["z"] == pytest.approx(expected["z"], abs=1e-9)
        assert lead["deal_z"] == pytest.approx(expected["deal_z"], abs=1e-9)
        assert summary["player_counts"][players]["games"] == \
            published["player_counts"][str(players)]["games"]


def test_the_published_leads_are_the_journals():
    """docs/league.md states each journal's strength lead in standard errors as the
    summary holds it (two decimals)."""
    text = (RESULTS.parents[2] / "docs" / "league.md").read_text()
    for journal in JOURNALS:
        published = json.loads(journal.with_name(
            journal.name.replace(".played.jsonl.gz", ".summary.json")).read_text())
        for lead in (entry["lead"] for entry in published["player_counts"].values()):
            assert f"{lead['z']:.2f}" in text, (journal.name, lead["z"])
