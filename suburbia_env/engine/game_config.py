"""`GameConfig`: what a game is set up with. Below the facade, so that the file formats
can read and write it (game.py re-exports it: `suburbia_env.GameConfig`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..errors import ConfigError, shown
from . import constants as c
from .setup import seats


@dataclass(frozen=True)
class GameConfig:
    """What a game is set up with (R3.1, R3.2, R3.3, R3.6, R9).

    players: people at the table: 2-4 in "standard", 1 in "solitary" and "dale"
    (Dale takes a second seat of his own). edition: "2nd" (default) or "1st".
    random_private_goals: the engine keeps a random drawn goal for each player
    instead of asking them (R3.6).
    """

    players: int = 2
    mode: str = "standard"
    edition: str = "2nd"
    random_private_goals: bool = False

    def __post_init__(self):
        if not isinstance(self.mode, str) or self.mode not in c.MODE_NAMES:
            raise ConfigError(f"mode must be one of {', '.join(c.MODE_NAMES)}, "
                              f"not {shown(self.mode)}")
        if not isinstance(self.edition, str) or self.edition not in c.EDITION_NAMES:
            raise ConfigError(f"edition must be '2nd' or '1st', not {shown(self.edition)}")
        if (not isinstance(self.players, (int, np.integer))
                or isinstance(self.players, (bool, np.bool_))):
            raise ConfigError(f"players must be a whole number, not {shown(self.players)}")
        allowed = "2 to 4 players" if self.mode == "standard" else "1 player"
        if self.players not in ((2, 3, 4) if self.mode == "standard" else (1,)):
            raise ConfigError(f"wrong player count: mode {self.mode!r} is played by {allowed}, "
                              f"not {shown(self.players)} (R3.1, R9)")

    @property
    def mode_id(self) -> int:
        return c.MODE_NAMES.index(self.mode)

    @property
    def edition_id(self) -> int:
        return c.EDITION_NAMES.index(self.edition)

    @property
    def seats(self) -> int:
        return seats(self.players, self.mode_id)

    def to_dict(self) -> dict:
        return asdict(self)
