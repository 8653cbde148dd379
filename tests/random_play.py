"""Positions reached by seeded random play, where many tests start: a game after a number
of uniformly random legal decisions, the deal and the choices seeded alike, so every run
reaches the same position."""

import numpy as np

from suburbia_env import Game


def midgame(config: dict, seed: int = 3, decisions: int = 12) -> Game:
    """A game of `config` (Game's keyword arguments) after `decisions` random legal
    decisions drawn with default_rng(seed); fewer when the game ends first."""
    game = Game(seed=seed, **config)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        game.apply(int(rng.choice(game.legal_actions())))
    return game
