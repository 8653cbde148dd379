"""Long polling: the page's request for a view waits until the game changes."""

from __future__ import annotations

import asyncio
import threading


class Notifier:
    """Wakes the requests waiting for a change (asyncio futures, set from any thread)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = []

    async def wait(self, timeout: float, unchanged) -> None:
        """Wait up to `timeout` seconds for `notify`, if `unchanged()` still holds once this
        waiter is registered (so that a change in between is never missed)."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            self._waiters.append((loop, future))
        try:
            if unchanged():
                await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            pass
        finally:
            with self._lock:
                if (loop, future) in self._waiters:
                    self._waiters.remove((loop, future))

    def notify(self) -> None:
        with self._lock:
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            loop.call_soon_threadsafe(_resolve, future)

    @property
    def waiting(self) -> int:
        with self._lock:
            return len(self._waiters)


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
