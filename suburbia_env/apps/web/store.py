"""The web server's store: sessions by id, each a row of the database and live in memory
while in use, within limits per client address, per network and in all."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from ...errors import SuburbiaError
from .database import Database, network_of
from .errors import WebError
from .replays import ReplaySession
from .sessions import GameSession


@dataclass
class Limits:
    """What the server holds, so that no one party can fill it (see `Store`)."""

    max_sessions: int = 10_000
    """Games and replays kept in all (in the store; only the recently used in memory)."""
    max_per_client: int = 20
    """... per client address."""
    max_per_network: int = 60
    """... per network (/24 IPv4, /64 IPv6 prefix: one party often holds a block)."""
    idle_seconds: float = 7 * 24 * 3600.0
    """A game or replay nobody played (a decision, undo, bots' setting) for this long is
    deleted; reading it does not count."""
    max_resident: int = 400
    """Games and replays held in memory at most (the least recently used go back to the
    store, with their bots' threads, and are read again when asked for)."""
    resident_seconds: float = 300.0
    """A game or replay nobody asked for this long goes back to the store."""
    sweep_seconds: float = 30.0
    """How often expiry and the memory bound run (a background task)."""
    max_body_bytes: int = 1 << 20
    max_waits_per_client: int = 32
    """Long polls one client address may hold open at once (a page holds one)."""


class Store:
    """Sessions by id. Every game and replay is a row of the database (`Database`), written
    as it changes; the recently used ones are also live in memory (`max_resident`, a bots'
    thread each), the others are rebuilt from their row when asked for. Limits: per
    client address, per network and in all; when the server is full, the longest-idle
    session of the network holding the most is deleted to make room for a party holding
    fewer, so that nobody is locked out by another. Idle sessions expire on a timer
    (`sweep`, run by the app every `sweep_seconds`)."""

    def __init__(self, limits: Limits, database: Database, agent_factory=None):
        self.limits = limits
        self.database = database
        self._agent_factory = agent_factory
        self._lock = threading.Lock()
        self._admitting = threading.Lock()
        self._resident: dict[str, GameSession | ReplaySession] = {}
        self._loading: dict[str, threading.Lock] = {}
        self._waits: dict[str, int] = {}

    @contextmanager
    def waiting(self, client: str):
        """Counts a client's open long polls; 429 beyond `max_waits_per_client`."""
        with self._lock:
            if self._waits.get(client, 0) >= self.limits.max_waits_per_client:
                raise WebError(429, f"you already hold {self.limits.max_waits_per_client} "
                                    f"waiting requests, the most one client may hold")
            self._waits[client] = self._waits.get(client, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._waits[client] -= 1
                if not self._waits[client]:
                    del self._waits[client]

    # Limits and expiry ----------------------------------------------------------------------

    def check_room(self, client: str) -> None:
        """429 when this client or its network holds as many sessions as allowed; when
        the server is full, make room at the expense of the heaviest holder, or 429 when
        that is this client's own network."""
        limits = self.limits
        mine, ours, total = self.database.counts(client)
        if mine >= limits.max_per_client:
            raise WebError(429, f"you already hold {mine} games and replays, the most one "
                                f"client may hold; delete some (or let them expire after "
                                f"{_duration(limits.idle_seconds)} without a move)")
        if ours >= limits.max_per_network:
            raise WebError(429, f"your network ({network_of(client)}) already holds {ours} "
                                f"games and replays, the most one network may hold")
        while total >= limits.max_sessions:
            heaviest = self.database.heaviest()
            if heaviest is None or heaviest[1] <= ours + 1:
                raise WebError(429, f"the server holds {total} games and replays, its limit, "
                                    f"and none of a party holding more than yours; try again "
                                    f"later")
            self.remove(heaviest[2])
            total -= 1

    def sweep(self) -> None:
        """Delete the sessions idle past `idle_seconds`; put back to the store the ones
        nobody asked for within `resident_seconds`, and the least recently used beyond
        `max_resident`."""
        for session_id in self.database.expired(self.limits.idle_seconds):
            self._unload(session_id)
        now = time.monotonic()
        with self._lock:
            by_use = sorted(self._resident.values(), key=lambda session: session.last_seen)
        surplus = len(by_use) - self.limits.max_resident
        for index, session in enumerate(by_use):
            if index < surplus or now - session.last_seen > self.limits.resident_seconds:
                self._unload(session.id, idle_since=session.last_seen)

    def _unload(self, session_id: str, idle_since: float | None = None) -> None:
        """Drop a session from memory (its record stays in the database unless deleted);
        with `idle_since`, only if nobody asked for it since."""
        with self._lock:
            session = self._resident.get(session_id)
            if session is None or (idle_since is not None and session.last_seen != idle_since):
                return
            del self._resident[session_id]
        if isinstance(session, GameSession):
            session.close()

    # Sessions -------------------------------------------------------------------------------

    def add(self, session) -> None:
        """A new session: written to the database, then live. The room is checked again
        here, under one lock with the writing, so that requests arriving together do not
        pass a limit together."""
        with self._admitting:
            try:
                self.check_room(session.client)
            except WebError:
                if isinstance(session, GameSession):
                    session.close()
                raise
            self.database.insert(session.id, session.kind, session.client,
                                 getattr(session, "version", 0), session.record_data())
        self._attach(session)
        self._make_resident(session)

    def _make_resident(self, session) -> None:
        """Live in memory, the least recently used put back beyond `max_resident`."""
        with self._lock:
            self._resident[session.id] = session
            surplus = len(self._resident) - self.limits.max_resident
            oldest = (sorted(self._resident.values(), key=lambda s: s.last_seen)[:surplus]
                      if surplus > 0 else [])
        for old in oldest:
            if old is not session:
                self._unload(old.id, idle_since=old.last_seen)

    def _attach(self, session) -> None:
        if isinstance(session, GameSession):
            session.persist = self._persist

    def _persist(self, session: GameSession, active: bool) -> None:
        if not self.database.update(session.id, session.version, session.record_data(),
                                    active):
            session.closed = True  # deleted or expired meanwhile: nothing more to keep
            raise WebError(404, "no game with this id (it has expired or was deleted)")

    def peek(self, session_id: str, kind: str):
        """The session of an id if it is live in memory (marked as asked for), else None."""
        with self._lock:
            session = self._resident.get(session_id)
            if session is None or session.kind != kind:
                return None
            session.last_seen = time.monotonic()
            return session

    def get(self, session_id: str, kind: str):
        """The live session of an id, rebuilt from the database when not in memory."""
        with self._lock:
            session = self._resident.get(session_id)
            if session is not None:
                session.last_seen = time.monotonic()
            else:
                loading = self._loading.setdefault(session_id, threading.Lock())
        if session is None:
            with loading:  # one rebuild per id, however many ask at once
                with self._lock:
                    session = self._resident.get(session_id)
                if session is None:
                    session = self._load(session_id)
            with self._lock:
                self._loading.pop(session_id, None)
        if session is None or session.kind != kind:
            raise WebError(404, f"no {kind} with this id (it may have expired)")
        return session

    def _load(self, session_id: str):
        found = self.database.load(session_id)
        if found is None:
            return None
        kind, client, version, data = found
        try:
            if kind == "game":
                session = GameSession.restore(session_id, client, version, data,
                                              self._agent_factory)
            else:
                session = ReplaySession.restore(session_id, client, data)
        except (SuburbiaError, WebError, KeyError, TypeError, ValueError) as error:
            raise WebError(500, f"this {kind} could not be read back from the store "
                                f"({type(error).__name__})") from None
        self._attach(session)
        self._make_resident(session)
        return session

    def remove(self, session_id: str) -> None:
        self.database.delete(session_id)
        self._unload(session_id)

    def close_all(self) -> None:
        """Stop every live session (the server stops); the records stay in the database."""
        with self._lock:
            sessions, self._resident = list(self._resident.values()), {}
        for session in sessions:
            if isinstance(session, GameSession):
                session.close()

    @property
    def resident(self) -> int:
        with self._lock:
            return len(self._resident)

    def __len__(self) -> int:
        return len(self.database)


def _duration(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.0f} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds / 60:.0f} minutes"
