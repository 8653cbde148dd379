"""Writing the state format (docs/state-format.md): a game as JSON text that loads back
to the identical state vector."""

from __future__ import annotations

import json

import numpy as np

from ..engine import state_layout as s
from ..engine.hex_grid import cell_index
from ..engine.tile_data import TILES
from ..versions import FORMAT_VERSION
from .reading import _WORD_MAX

STATE_FORMAT = "suburbia-state"
STATE_VERSION = FORMAT_VERSION
_LINE_WIDTH = 116  # a borough cell with the longest tile name fits on one line


def game_to_dict(game) -> dict:
    """The state format of `game` (a Game, read through its public accessors) as a dict of
    plain JSON values (docs/state-format.md)."""
    state = game.state
    over = game.is_over
    final_round = int(state[s.FINAL_ROUND])
    position = int(state[s.PILE_POSITION])
    a_end, b_end, end = (int(state[s.PILE_A_END]), int(state[s.PILE_B_END]),
                         int(state[s.PILE_END]))
    pile = [TILES.names[kind] for kind in s.pile_view(state)[:end]]
    scores = game.final_scores() if over else [None] * game.num_seats
    return {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "config": game.config.to_dict(),
        "seed": None if game.seed is None else int(game.seed),
        "round": game.round,
        "final_round": final_round if final_round >= 0 else None,
        "first_player": int(state[s.FIRST_PLAYER]),
        "current_player": None if over else game.current_player,
        "pending_decision": game.pending_decision,
        "game_over": over,
        "placement_counter": int(state[s.PLACEMENT_COUNTER]),
        "rng_state": [int(word) & _WORD_MAX for word in s.rng_words(state)],
        "market": [TILES.names[kind] if kind >= 0 else None
                   for kind in s.market_slots(state)],
        "stacks": {"A": pile[min(position, a_end):a_end],
                   "B": pile[max(position, a_end):b_end],
                   "C": pile[max(position, b_end):end]},
        "drawn": pile[:position],
        "supply": game.supply(),
        "discarded": _counts_by_name(s.discarded_counts(state)[:TILES.num_kinds]),
        "box": _counts_by_name(s.box_counts(state)[:TILES.num_kinds]),
        "public_goals": game.public_goals,
        "players": [_player_to_dict(game, player, scores[player])
                    for player in range(game.num_seats)],
    }


def game_to_json(game, hints_used: dict[int, int] | None = None) -> str:
    """The state format as JSON text; `game_from_json` of it restores the game exactly.
    `hints_used` (a game that allowed hints, issue 33) adds the optional field saying how
    many hints each person asked for, as a record's (records.HINTS_FIELD)."""
    document = game_to_dict(game)
    if hints_used is not None:
        document["hints_used"] = {str(seat): int(count)
                                  for seat, count in sorted(hints_used.items())}
    return _format_json(document) + "\n"


def _counts_by_name(counts: np.ndarray) -> dict[str, int]:
    return {TILES.names[kind]: int(count) for kind, count in enumerate(counts) if count}


def _player_to_dict(game, player: int, score: dict | None) -> dict:
    public = game.player_state(player)
    sequences = s.cell_sequences(game.state, player)
    borough = [dict(cell, sequence=int(sequences[cell_index(cell["col"], cell["row"])]))
               for cell in public["borough"]]
    if score is not None:
        score = {"population_before_goals": score["population_before_goals"],
                 "public_goals": list(score["public_goals"].values()),
                 "private_goal": score["private_goal_bonus"],
                 "money_converted": score["money_converted"],
                 "final_population": score["population"],
                 "winner": score["winner"]}
    return {
        "money": public["money"],
        "income": public["income"],
        "reputation": public["reputation"],
        "population": public["population"],
        "markers_left": public["markers_left"],
        "private_goal": game.private_goal(player),
        "goal_options": game.goal_options(player),
        "borough": borough,
        "score": score,
    }


def _format_json(value, indent: int = 0, key: str = "") -> str:
    """`key` and JSON `value` on one line when they fit; otherwise the items go one per
    line, or, when they are all plain values (names, numbers), as many per line as fit."""
    flat = key + json.dumps(value, separators=(", ", ": "))
    if not isinstance(value, (dict, list)) or not value or indent + len(flat) < _LINE_WIDTH:
        return flat
    if isinstance(value, dict):
        items = [_format_json(item, indent + 2, json.dumps(name) + ": ")
                 for name, item in value.items()]
        opening, closing, values = "{", "}", value.values()
    else:
        items = [_format_json(item, indent + 2) for item in value]
        opening, closing, values = "[", "]", value
    inner = " " * (indent + 2)
    lines = items
    if not any(isinstance(item, (dict, list)) for item in values):
        lines = [items[0]]
        for item in items[1:]:
            if len(inner) + len(lines[-1]) + len(", ") + len(item) < _LINE_WIDTH:
                lines[-1] += ", " + item
            else:
                lines.append(item)
    body = ",\n".join(inner + line for line in lines)
    return f"{key}{opening}\n{body}\n{' ' * indent}{closing}"
