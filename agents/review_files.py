"""The files and the printed summary of a game review (agents/review.py, docs/review.md):
decisions.json, decisions.csv, win_probability.png and the mistakes of each seat."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from suburbia_env.display.drawing import SEAT_COLOURS
from suburbia_env.display.vocabulary import is_dale, seat_name

from .review import Decision, Review

REVIEW_FORMAT = "suburbia-review"
REVIEW_VERSION = 2
"""2: calibrated win probabilities, the raw ones beside them (`*_raw`), `calibration`."""
DIGITS = 6
"""Decimals kept of every probability, margin and score, the same in JSON and CSV."""
POLICY_SEPARATOR = " | "

CSV_FIELDS = ("decision", "round", "seat", "kind", "legal_moves", "move", "best_move",
              "played_is_best", "policy_probability", "policy_rank", "win_probability_played",
              "win_probability_best", "cost_win_probability", "win_probability_played_raw",
              "win_probability_best_raw", "margin_played", "margin_best",
              "cost_margin", "score_played", "score_best", "cost_score", "candidates",
              "policy_top", "win_probability_seat_0", "win_probability_seat_1",
              "win_probability_seat_2", "win_probability_seat_3",
              "win_probability_seat_0_raw", "win_probability_seat_1_raw",
              "win_probability_seat_2_raw", "win_probability_seat_3_raw")
"""The columns of decisions.csv, one row per decision (docs/review.md)."""


def _number(value: float) -> float:
    return round(float(value), DIGITS)


def decision_row(decision: Decision) -> dict:
    """The decision as one flat row: the CSV's columns, the JSON's fields besides the
    lists (docs/review.md)."""
    row = {
        "decision": decision.index, "round": decision.round, "seat": decision.seat,
        "kind": decision.kind, "legal_moves": decision.legal_moves, "move": decision.move,
        "best_move": decision.best_move, "played_is_best": decision.played == decision.best,
        "policy_probability": _number(decision.policy_probability),
        "policy_rank": decision.policy_rank,
        "win_probability_played": _number(decision.win_probability_played),
        "win_probability_best": _number(decision.win_probability_best),
        "cost_win_probability": _number(decision.cost_win_probability),
        "win_probability_played_raw": _number(decision.win_probability_played_raw),
        "win_probability_best_raw": _number(decision.win_probability_best_raw),
        "margin_played": _number(decision.margin_played),
        "margin_best": _number(decision.margin_best),
        "cost_margin": _number(decision.cost_margin),
        "score_played": _number(decision.score_played),
        "score_best": _number(decision.score_best),
        "cost_score": _number(decision.cost_score),
    }
    return row


def review_document(review: Review, record_name: str | None = None) -> dict:
    """decisions.json: a header saying what the review knows and how it searched, the
    game's result, then one entry per decision."""
    settings = review.settings
    decisions = []
    for decision in review.decisions:
        entry = decision_row(decision)
        entry["candidates"] = [{key: (_number(value) if isinstance(value, float) else value)
                                for key, value in candidate.items()}
                               for candidate in decision.candidates]
        entry["policy_top"] = [{"move": top["move"], "probability": _number(top["probability"])}
                               for top in decision.policy_top]
        entry["seat_win_probabilities"] = [_number(p) for p in decision.seat_win_probabilities]
        entry["seat_win_probabilities_raw"] = [_number(p)
                                               for p in decision.seat_win_probabilities_raw]
        decisions.append(entry)
    return {
        "format": REVIEW_FORMAT, "version": REVIEW_VERSION,
        "knowledge": review.knowledge,
        "record": {"file": record_name, "config": review.config, "seed": review.seed,
                   "decisions": len(review.decisions)},
        "search": {"model": Path(review.model).name, "candidates": settings.candidates,
                   "samples": settings.samples, "margin_weight": settings.margin_weight,
                   "opponent": "model", "redraw_seed": review.redraw_seed,
                   "policy_top": settings.policy_top},
        "calibration": review.calibration,
        "result": {"winners": review.winners, "final_scores": review.final_scores},
        "decisions": decisions,
    }


def csv_row(decision: Decision) -> dict:
    row = decision_row(decision)
    row["candidates"] = len(decision.candidates)
    row["policy_top"] = POLICY_SEPARATOR.join(f"{top['move']} = {_number(top['probability'])}"
                                              for top in decision.policy_top)
    for suffix, probabilities in (("", decision.seat_win_probabilities),
                                  ("_raw", decision.seat_win_probabilities_raw)):
        for seat in range(4):
            row[f"win_probability_seat_{seat}{suffix}"] = (
                _number(probabilities[seat]) if seat < len(probabilities) else "")
    return row


def decisions_csv(review: Review) -> str:
    """decisions.csv's text: CSV_FIELDS, then one row per decision."""
    handle = io.StringIO(newline="")
    writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
    writer.writeheader()
    for decision in review.decisions:
        writer.writerow(csv_row(decision))
    return handle.getvalue()


def write_review(review: Review, folder: Path, record_name: str | None = None) -> list[Path]:
    """Write decisions.json, decisions.csv and win_probability.png into `folder` (made if
    missing); returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = folder / "decisions.json", folder / "decisions.csv"
    json_path.write_text(json.dumps(review_document(review, record_name), indent=1) + "\n",
                         encoding="utf-8")
    csv_path.write_text(decisions_csv(review), encoding="utf-8", newline="")
    picture = draw_win_probabilities(review, folder / "win_probability.png")
    return [json_path, csv_path, picture]


def draw_win_probabilities(review: Review, path: Path) -> Path:
    """Each seat's win probability after every decision, the actual result last."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(9, 4.5), dpi=100)
    count = len(review.decisions)
    steps = list(range(count + 1))  # decision indexes, then the result
    mode = review.config.get("mode", "")
    for seat in range(review.seats):
        values = [d.seat_win_probabilities[seat] for d in review.decisions]
        values.append(review.result_win_shares()[seat])
        label = seat_name(mode, seat)
        line, = axes.plot(steps, values, label=label, linewidth=1.6,
                          color=SEAT_COLOURS[seat % len(SEAT_COLOURS)])
        for mistake in review.mistakes(seat):
            axes.plot(mistake.index, mistake.seat_win_probabilities[seat], "o",
                      color=line.get_color(), markersize=6, markerfacecolor="none")
    rounds = {}
    for decision in review.decisions:
        rounds.setdefault(decision.round, decision.index)
    for number, first in rounds.items():
        if number > 1 and number % 2 == 0:
            axes.axvline(first, color="0.9", linewidth=0.8, zorder=0)
    axes.set_xlim(-0.5, count + 0.5)
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("decision (as in decisions.csv; the last point: the actual result; "
                    "grey lines: every second round)")
    axes.set_ylabel("win probability after the move")
    axes.set_title("Win probability by the search (circles: each seat's biggest mistakes)")
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def summary_lines(review: Review, seconds: float | None = None) -> list[str]:
    """The printed summary: what the review knows, the result, each seat's biggest mistakes
    (top 3 by the search's score) with round and move in notation."""
    settings = review.settings
    lines = [f"Review of a {review.config['mode']} game, {review.seats} seats, seed "
             f"{review.seed}: {len(review.decisions)} decisions"
             + (f" in {seconds:.1f} s" if seconds is not None else ""),
             f"Knowledge: {review.knowledge}.",
             f"Search: {Path(review.model).name}, {settings.candidates} candidates x "
             f"{settings.samples} redraws, redraw seed {review.redraw_seed}.",
             "Result: " + ", ".join(
                 f"seat {score['player']} {score['population']} population"
                 + (f" (private goal {score['private_goal']})" if score["private_goal"] else "")
                 + (" WINNER" if score["winner"] else "") for score in review.final_scores)]
    for seat in range(review.seats):
        if is_dale(review.config.get("mode", ""), seat):
            continue  # Dale's turns are the engine's (R9.2): no decisions
        mistakes = review.mistakes(seat)
        lines.append(f"Seat {seat}: biggest mistakes" if mistakes
                     else f"Seat {seat}: every move was the search's best")
        for mistake in mistakes:
            lines.append(
                f"  round {mistake.round} (decision {mistake.index}): played "
                f"'{mistake.move}' (win {mistake.win_probability_played:.2f}, margin "
                f"{mistake.margin_played:+.1f}); best '{mistake.best_move}' (win "
                f"{mistake.win_probability_best:.2f}, margin {mistake.margin_best:+.1f}); "
                f"cost {mistake.cost_score:.3f}")
    return lines
