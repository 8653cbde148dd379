"""Processor time of a one-ply decision (agents/one_ply.py), the greedy player's and each
style's, with the fast trial scoring (`trial_values`) and its plain form
(`trial_values_reference`), interleaved over rounds on the same positions: the positions
of seeded greedy games at 2, 3 and 4 players (docs/performance.md, "Self-play's other
seats"); and the goal prior's term (`trial_goal_bonuses`, agents/goal_prior.py).

    python benchmarks/one_ply_speed.py --games 6 --rounds 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.greedy import DEFAULT_MONEY_WEIGHT, GreedyAgent
from agents.one_ply import (FULL_TURN, MONEY, NUM_WEIGHTS, OWN_CHANCES, OWN_TURN,
                            trial_goal_bonuses, trial_values, trial_values_reference)
from agents.styles import STYLES
from suburbia_env import Game
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.tile_data import GOALS, TILES


def positions(games: int, seed: int) -> list[np.ndarray]:
    """Every position of `games` greedy games at each of 2, 3 and 4 players."""
    found = []
    agent = GreedyAgent()
    for players in (2, 3, 4):
        for game_index in range(games):
            game = Game(players, "standard", "2nd", seed + 100 * players + game_index)
            while not game.is_over:
                found.append(game.state.copy())
                game.apply(agent.act(game))
    return found


def players() -> dict[str, tuple[np.ndarray, np.bool_]]:
    greedy = np.zeros(NUM_WEIGHTS)
    greedy[MONEY] = DEFAULT_MONEY_WEIGHT
    chosen = {"greedy": (greedy, FULL_TURN)}
    chosen.update({name: (np.array(weights, dtype=np.float64), OWN_TURN)
                   for name, weights in STYLES.items()})
    return chosen


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games at each player count")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    states = positions(args.games, args.seed)
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(NUM_ACTIONS, dtype=np.int64)
    timings: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for name, (weights, full_turn) in players().items():
            for scoring in (trial_values, trial_values_reference):
                scoring(states[0], TILES.table, GOALS.table, TILES.basic_kinds, weights,
                        full_turn, mask, actions)  # compiled before the clock
                began = time.process_time()
                for state in states:
                    scoring(state, TILES.table, GOALS.table, TILES.basic_kinds, weights,
                            full_turn, mask, actions)
                spent = (time.process_time() - began) / len(states) * 1e6
                timings.setdefault((name, scoring.__name__), []).append(spent)
        trial_goal_bonuses(states[0], TILES.table, GOALS.table, TILES.basic_kinds, mask,
                           actions, 0.0, OWN_CHANCES)
        began = time.process_time()
        for state in states:
            trial_goal_bonuses(state, TILES.table, GOALS.table, TILES.basic_kinds, mask,
                               actions, 0.0, OWN_CHANCES)
        timings.setdefault(("goal prior", "term"), []).append(
            (time.process_time() - began) / len(states) * 1e6)
    print(f"{len(states)} positions of {3 * args.games} greedy games; processor time per "
          f"decision, best of {args.rounds} interleaved rounds")
    print(f"{'player':12} {'fast (us)':>10} {'reference (us)':>15} {'ratio':>6}")
    for name in players():
        fast = min(timings[(name, "trial_values")])
        reference = min(timings[(name, "trial_values_reference")])
        print(f"{name:12} {fast:10.0f} {reference:15.0f} {reference / fast:6.2f}")
    print(f"{'goal prior':12} {min(timings[('goal prior', 'term')]):10.0f}  (its term "
          f"alone: trial_goal_bonuses)")


if __name__ == "__main__":
    main()
