"""A hint for a person playing against bots (issue 33, item 3; docs/review.md, "Hints").

A hint is the search's view of the person's decision from the person's knowledge only:
`review.evaluate_position` with the person's seat, which redraws everything that seat
cannot see (R10.2: the stack order, One More Round, the other seats' goals) before it
tries anything, so the true hidden facts never reach the search or the answer. Its
settings (`HINT_SETTINGS`) are lighter than a review's, for an answer within 2 s on two
cores (benchmarks/hint_speed.py, docs/performance.md "Hint speed").

The terminal game and the web server show what `hint` returns; whether a game allows
hints, and counting them, is theirs.
"""

from __future__ import annotations

from pathlib import Path

from suburbia_env import Game
from suburbia_env.display.render import describe_action
from suburbia_env.errors import ConfigError

from .review import DecisionEvaluator, SearchSettings, evaluate_position, model_for

HINT_SETTINGS = SearchSettings(candidates=4, samples=12)
"""The policy's 4 most probable moves, each tried on 12 redraws: at most 0.83 s a hint at
4 players on the two shared cores, well within the 2 s budget (docs/performance.md,
"Hint speed")."""


class HintRefused(ConfigError):
    """A hint that cannot be given now (the game is over, it is not the seat's decision)."""


class Hinter:
    """Gives hints for games of one mode, its model loaded once (loading takes seconds)."""

    def __init__(self, mode: str, model: str | Path | None = None,
                 settings: SearchSettings | None = None):
        self.mode = mode
        self.evaluator = DecisionEvaluator(model_for(mode, model), settings or HINT_SETTINGS)

    def hint(self, game: Game, seat: int, seed: int | None = None) -> dict:
        return hint(game, seat, seed=seed, evaluator=self.evaluator)


def hint(game: Game, seat: int, model: str | Path | None = None, seed: int | None = None,
         evaluator: DecisionEvaluator | None = None) -> dict:
    """The search's moves for `seat`'s decision, best first, from `seat`'s knowledge alone.

    Each move: its action number and notation, in words, its win probability
    (calibrated, agents/calibration.py; `win_probability_raw` before the map) and
    expected final margin for `seat` (R8.2, R8.3) and the policy's probability. `seed`
    fixes the redraws (none: 64 bits from the operating system's secure generator)."""
    if game.is_over:
        raise HintRefused("the game is over: there is no decision to hint at")
    if game.current_player != seat:
        raise HintRefused("a hint is for your own decision: it is not yours now")
    evaluator = evaluator or DecisionEvaluator(model_for(game.config.mode, model),
                                               HINT_SETTINGS)
    evaluation = evaluate_position(game, seat, seed=seed, evaluator=evaluator)
    moves = []
    for move in evaluation.moves:
        number = game.text_to_action(move["move"])
        moves.append({"action": int(number), "move": move["move"],
                      "words": describe_action(number, game.state),
                      "win_probability": round(move["win_probability"], 4),
                      "win_probability_raw": round(move["win_probability_raw"], 4),
                      "margin": round(move["margin"], 2),
                      "policy_probability": round(move["policy_probability"], 4)})
    return {"seat": int(seat), "moves": moves, "samples": evaluator.settings.samples,
            "knowledge": evaluation.knowledge}


def hint_lines(answer: dict) -> list[str]:
    """A hint in words, for the terminal: the best move, then the alternatives."""
    lines = ["Hint: your win probability and final margin after each move, over "
             f"{answer['samples']} redraws of what you cannot see:"]
    for rank, move in enumerate(answer["moves"]):
        lead = "  best:" if rank == 0 else "  or:  "
        lines.append(f"{lead} {move['move']}  win {move['win_probability']:.0%}, margin "
                     f"{move['margin']:+.1f} (policy {move['policy_probability']:.0%})")
        lines.append(f"         {move['words']}")
    return lines
