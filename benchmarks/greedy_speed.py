"""How fast the greedy player decides: its decisions/s over seeded games.

    python benchmarks/greedy_speed.py [--games N] [--seed S] [--repeats R]

The games are those of the golden playthroughs (tests/golden_playthroughs.py): greedy
alone against Dale (mode "dale", edition 2nd) and greedy against Dale's procedure in a
standard 2-player game. Every position the greedy player faced is stored once, then
`greedy_action` is timed over the stored positions (after a warm-up call), so the
figure is the greedy player's own time, not the engine's between its turns. Printed,
never asserted; the best of `--repeats` passes is shown.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from suburbia_env import Game
from suburbia_env.engine import action_space as a
from agents.dale_agent import DaleAgent
from agents.greedy import DEFAULT_MONEY_WEIGHT, GreedyAgent, greedy_action
from suburbia_env.engine.tile_data import GOALS, TILES

SETUPS = (("dale 2nd, greedy alone", dict(players=1, mode="dale", edition="2nd")),
          ("standard 2p 2nd, greedy vs Dale's procedure",
           dict(players=2, mode="standard", edition="2nd")))


def greedy_positions(config: dict, games: int, seed: int) -> list[np.ndarray]:
    """The states before every decision of seat 0 (greedy) in `games` seeded games."""
    greedy, dale = GreedyAgent(), DaleAgent()
    positions = []
    for game_seed in range(seed, seed + games):
        game = Game(seed=game_seed, **config)
        while not game.is_over:
            if game.current_player == 0:
                positions.append(game.state.copy())
                game.apply(greedy.act(game))
            else:
                game.apply(dale.act(game))
    return positions


def decisions_per_second(positions: list[np.ndarray], repeats: int) -> float:
    mask = np.zeros(a.NUM_ACTIONS, dtype=np.bool_)
    actions = np.zeros(a.NUM_ACTIONS, dtype=np.int32)
    arguments = (TILES.table, GOALS.table, TILES.basic_kinds, DEFAULT_MONEY_WEIGHT, mask,
                 actions)
    greedy_action(positions[0], *arguments)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for state in positions:
            greedy_action(state, *arguments)
        best = min(best, time.perf_counter() - start)
    return len(positions) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    for label, config in SETUPS:
        positions = greedy_positions(config, options.games, options.seed)
        rate = decisions_per_second(positions, options.repeats)
        print(f"{label}: {len(positions)} positions, {rate:,.0f} greedy decisions/s")


if __name__ == "__main__":
    main()
