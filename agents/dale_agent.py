"""Dale's decision procedure of R9.2 as a player of any mode (suburbia_env.engine.dale)."""

from __future__ import annotations

import numpy as np

from suburbia_env import Game
from suburbia_env.engine import event_log as ev
from suburbia_env.engine.action_space import NUM_ACTIONS
from suburbia_env.engine.dale import dale_policy_action
from suburbia_env.engine.tile_data import TILES

from .base import Agent


class DaleAgent(Agent):
    """Takes the priciest affordable tile and places it for the best income + reputation
    gain (R9.2), paying full prices; see `dale_policy_action` for the details."""

    name = "dale"
    compiled_opponent = "dale"

    def __init__(self):
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        self._actions = np.zeros(NUM_ACTIONS, dtype=np.int32)
        self._no_log = ev.new_log(0)

    def act(self, game: Game) -> int:
        return int(dale_policy_action(game.state, TILES.table, TILES.basic_kinds,
                                      self._no_log, self._mask, self._actions))
