"""Pieces of the JSON views: a seed as text, the legal actions grouped for clicking (the
engine's decoder, engine/action_space.py) and the final scoring."""

from __future__ import annotations

from ...display.vocabulary import seat_name
from ...engine import action_space as a
from ...game import Game


def seed_text(seed: int | None) -> str | None:
    """A seed as the JSON views send it: decimal text, since a seed of 64 bits is more
    than a JavaScript number holds exactly (2**53)."""
    return None if seed is None else str(int(seed))


def legal_choices(game: Game) -> dict:
    """The engine's legal actions, grouped for clicking: buy/lake by slot and basic by
    tile, each a map cell -> action number; invest cell -> number; discard/remove slot ->
    number; keep option -> number; pass -> number or null."""
    choices = {"buy": {}, "lake": {}, "basic": {}, "invest": {}, "discard": {}, "remove": {},
               "keep": {}, "pass": None}
    for number in game.legal_actions():
        number = int(number)
        move = a.decode_action(number)
        if move.kind in ("buy", "lake"):
            choices[move.kind].setdefault(str(move.slot), {})[str(move.cell)] = number
        elif move.kind == "basic":
            choices["basic"].setdefault(str(move.basic), {})[str(move.cell)] = number
        elif move.kind == "invest":
            choices["invest"][str(move.cell)] = number
        elif move.kind in ("discard", "remove"):
            choices[move.kind][str(move.slot)] = number
        elif move.kind == "keep":
            choices["keep"][str(move.option)] = number
        else:
            choices["pass"] = number
    return choices


def final_scores_view(game: Game, labels: dict[int, str]) -> dict:
    """The final scoring broken down (R8.2, R8.3) from `Game.final_scores`."""
    rows = []
    for score in game.final_scores():
        rows.append({**score, "label": labels.get(score["player"],
                                                  seat_name(game.config.mode, score["player"])),
                     "goals_total": sum(score["public_goals"].values())
                     + score["private_goal_bonus"]})
    rank = game.solo_rank()
    note = None
    if game.config.mode == "dale" and rank is None:
        note = "No ladder rank: Dale was not beaten (R9.2)"
    return {"rows": rows, "public_goals": game.public_goals, "solo_rank": rank, "note": note,
            "winners": [labels.get(p, seat_name(game.config.mode, p)) for p in game.winners]}
