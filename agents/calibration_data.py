"""The data behind the calibration of the review's win probabilities (issue 33, item 4;
docs/calibration.md): seeded games of strong agents, and for sampled decisions every
seat's win probability as the review reports it, beside the seat's actual share of the
win (R8.3).

Conditions (`CONDITIONS`): the released multiplayer model at 2, 3 and 4 players against
itself (every seat) and against the greedy player (the model in one seat, rotating with
the game index), and the released baseline model against Dale (R9.2). The model plays
deterministically (its most probable legal move); the game seed makes the deal.

Seeds (`game_seed`): the fitting games are seeded `FIT_SEED_BASE + 1000 * condition +
game`, the held-out games `HELD_OUT_SEED_BASE + 1000 * condition + game`; the two sets
never meet (at most 1000 games a condition). A calibration map is fitted on the fitting
games only and measured on the held-out ones.

Each decision is evaluated by `review.review_record` itself (one home for the evaluation:
its default SearchSettings, the game seed as the redraw seed), restricted with `only` to
the sampled decisions, which get the redraws a whole review would give them, and with
`played_only` to the move played, whose values are those a whole review reports (the
other candidates' copies do not change them; tests/review/test_calibration.py). The sample:
`per_game` decisions a game, spread evenly over its first, middle and last third of
decisions (a generator seeded by the game seed), to fit the CPU budget: early decisions
are the dearest (their play-outs are longest).

Output: one JSON-lines file a game, `OUT/SPLIT/CONDITION/SEED.jsonl`, written whole
(temporary file, then renamed), so an interrupted job resumes where it stopped by
skipping the games already written. Each line is one sampled decision (`decision_line`).

    nice -n 19 python -m agents.calibration_data --out /work/runs/calibration \
        --games 40 [--first 0] [--per-game 6] [--conditions ...]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from suburbia_env import Game

from .greedy import GreedyAgent
from .review import DecisionEvaluator, Review, SearchSettings, model_for, review_record

FIT_SEED_BASE = 1_000_000
HELD_OUT_SEED_BASE = 2_000_000
SPLITS = {"fit": FIT_SEED_BASE, "held-out": HELD_OUT_SEED_BASE}
GAMES_PER_CONDITION = 1000
"""Room for each condition's seeds between the bases (the two sets never meet)."""


@dataclass(frozen=True)
class Condition:
    """Who plays a game: `opponent` "self" (the model at every seat), "greedy" (the model
    at one seat, greedy players at the others) or "dale" (the model against Dale)."""

    name: str
    players: int
    mode: str
    opponent: str


CONDITIONS = (
    Condition("standard-2-self", 2, "standard", "self"),
    Condition("standard-2-greedy", 2, "standard", "greedy"),
    Condition("standard-3-self", 3, "standard", "self"),
    Condition("standard-3-greedy", 3, "standard", "greedy"),
    Condition("standard-4-self", 4, "standard", "self"),
    Condition("standard-4-greedy", 4, "standard", "greedy"),
    Condition("dale", 1, "dale", "dale"),
)
CONDITION_NAMES = tuple(condition.name for condition in CONDITIONS)


def game_seed(split: str, condition: Condition, game: int) -> int:
    """The seed of game `game` (0-based) of `condition` in `split` (module docstring)."""
    if not 0 <= game < GAMES_PER_CONDITION:
        raise ValueError(f"game must be 0..{GAMES_PER_CONDITION - 1}, not {game}")
    return SPLITS[split] + GAMES_PER_CONDITION * CONDITIONS.index(condition) + game


def model_seats(condition: Condition, game: int) -> list[int]:
    """The seats the model plays: all against itself, one (rotating) against greedy."""
    if condition.opponent == "self":
        return list(range(condition.players))
    if condition.opponent == "greedy":
        return [game % condition.players]
    return [0]


def play_game(condition: Condition, seed: int, seats: list[int],
              evaluator: DecisionEvaluator) -> Game:
    """The finished game: the evaluator's model (deterministic) at `seats`, greedy
    elsewhere; Dale's turns are the engine's."""
    game = Game(condition.players, condition.mode, seed=seed)
    greedy = GreedyAgent()
    while not game.is_over:
        agent = evaluator.agent if game.current_player in seats else greedy
        game.apply(agent.act(game))
    return game


def sampled_decisions(count: int, per_game: int, seed: int) -> list[int]:
    """`per_game` decision indexes of `count`, spread evenly over the three thirds of the
    game (each third gets per_game // 3, the first thirds one more for a remainder)."""
    generator = np.random.default_rng([seed, 7])
    thirds = np.array_split(np.arange(count), 3)
    chosen = []
    for part, indexes in enumerate(thirds):
        take = min(indexes.size, per_game // 3 + (part < per_game % 3))
        chosen.extend(int(i) for i in generator.choice(indexes, size=take, replace=False))
    return sorted(chosen)


def decision_lines(review: Review, condition: Condition, split: str, seed: int,
                   seats: list[int], cpu_seconds: float) -> list[dict]:
    """One line per evaluated decision: where it is in the game, every seat's reported
    win probability after the move played (`raw`, as the review computes it before any
    calibration) and every seat's actual share of the win (`outcome`, R8.3)."""
    outcome = review.result_win_shares()
    return [{"condition": condition.name, "split": split, "game_seed": seed,
             "players": condition.players, "mode": condition.mode, "seats": review.seats,
             "model_seats": seats, "decision": decision.index,
             "decisions": review.record_decisions, "round": decision.round,
             "rounds": review.record_rounds, "seat": decision.seat, "kind": decision.kind,
             "legal_moves": decision.legal_moves,
             "raw": [round(float(p), 6) for p in decision.seat_win_probabilities_raw],
             "outcome": outcome, "cpu_seconds": round(cpu_seconds, 3),
             "samples": review.settings.samples, "candidates": review.settings.candidates}
            for decision in review.decisions]


def run_game(out: Path, split: str, condition: Condition, game: int, per_game: int,
             evaluator: DecisionEvaluator) -> Path | None:
    """Play, sample and evaluate one game into its file; None if it was already written."""
    seed = game_seed(split, condition, game)
    path = out / split / condition.name / f"{seed}.jsonl"
    if path.exists():
        return None
    began = time.process_time()
    seats = model_seats(condition, game)
    finished = play_game(condition, seed, seats, evaluator)
    record = finished.record()
    only = sampled_decisions(len(record["actions"]), per_game, seed)
    review = review_record(record, seed=seed, evaluator=evaluator, only=only,
                           played_only=True)
    lines = decision_lines(review, condition, split, seed, seats,
                           time.process_time() - began)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".part")
    temporary.write_text("".join(json.dumps(line) + "\n" for line in lines),
                         encoding="utf-8")
    os.replace(temporary, path)
    return path


def run(out: Path, first: int, games: int, per_game: int, conditions: list[str],
        splits: list[str], settings: SearchSettings | None = None,
        say=print) -> int:
    """Games first..games-1 of every condition and split, interleaved (game by game, so
    a stopped job leaves every condition with about as many games); returns how many
    games it wrote."""
    evaluators: dict[str, DecisionEvaluator] = {}
    written = 0
    for game in range(first, games):
        for condition in CONDITIONS:
            if condition.name not in conditions:
                continue
            if condition.mode not in evaluators:
                evaluators[condition.mode] = DecisionEvaluator(model_for(condition.mode),
                                                               settings)
            for split in splits:
                began = time.perf_counter()
                path = run_game(out, split, condition, game, per_game,
                                evaluators[condition.mode])
                if path is not None:
                    written += 1
                    say(f"{split} {condition.name} game {game}: {path.name} "
                        f"({time.perf_counter() - began:.1f} s)", flush=True)
    return written


def read_lines(folder: Path, split: str | None = None) -> list[dict]:
    """Every decision line under `folder` (of one split, or all), in a fixed order."""
    pattern = f"{split}/*/*.jsonl" if split else "*/*/*.jsonl"
    lines = []
    for path in sorted(Path(folder).glob(pattern)):
        lines.extend(json.loads(text) for text in path.read_text(encoding="utf-8")
                     .splitlines() if text.strip())
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--games", type=int, default=40,
                        help="games first..games-1 of each condition and split")
    parser.add_argument("--per-game", type=int, default=6)
    parser.add_argument("--conditions", nargs="+", default=list(CONDITION_NAMES),
                        choices=CONDITION_NAMES)
    parser.add_argument("--splits", nargs="+", default=list(SPLITS), choices=list(SPLITS))
    args = parser.parse_args(argv)
    written = run(args.out, args.first, args.games, args.per_game, args.conditions,
                  args.splits)
    print(f"wrote {written} games into {args.out}")


if __name__ == "__main__":
    main()
