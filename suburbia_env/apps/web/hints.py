"""Hints for a person playing against bots (issue 33, item 3; docs/review.md, "Hints"):
the search (agents/hints.py) runs in one worker thread, never on the event loop, and a
game has one hint worked out at a time (`GameSession.begin_hint`).

A hint takes about half a second of CPU (docs/performance.md, "Hint speed"), so the
request waits for it, but off the event loop: the other games' long polls and clicks
are answered meanwhile. The model of each mode is loaded once (about 4 s), in the worker
as soon as a game with hints is made (`prepare`), so that the first hint need not wait.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from ...errors import SuburbiaError
from ...game import Game
from .agent_specs import hide_paths
from .errors import WebError


class HintWorker:
    """The server's hints, worked out one at a time by one thread."""

    def __init__(self):
        self._hinters: dict[str, object] = {}
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hint")

    def _hinter(self, mode: str):
        from agents.hints import Hinter
        if mode not in self._hinters:
            self._hinters[mode] = Hinter(mode)
        return self._hinters[mode]

    def _hint(self, game: Game, seat: int) -> dict:
        return self._hinter(game.config.mode).hint(game, seat)

    def prepare(self, mode: str) -> None:
        """Load the model of `mode` in the worker now, if it is not yet (a failure is
        said by the first hint, which tries again)."""
        if mode not in self._hinters:
            self._worker.submit(self._hinter, mode)

    async def hint(self, game: Game, seat: int) -> dict:
        """The hint for `seat`'s decision in `game` (a copy the caller no longer uses)."""
        future = self._worker.submit(self._hint, game, seat)
        try:
            return await asyncio.wrap_future(future)
        except ModuleNotFoundError as error:
            raise WebError(503, f"the server cannot give hints: the module {error.name!r} is "
                                f"missing (pip install -e \".[train]\")") from None
        except (SuburbiaError, ValueError) as error:
            raise WebError(409, hide_paths(str(error))) from None

    def close(self) -> None:
        self._worker.shutdown(wait=False, cancel_futures=True)
