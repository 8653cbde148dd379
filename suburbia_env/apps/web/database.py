"""The web server's games and replays on disk: one SQLite database (standard library).

Each game or replay is one row: who made it (client address and network prefix, for the
limits), when it was made and last played (a decision, an undo, a bots' setting or a
creation; reading does not count), its version and its record as JSON: how it was set up
(the seed as text, so that every 64-bit seed is kept exactly, or the loaded state), the
seats and their secret tokens, every decision with the seat that took it, every undo's
redraw words, the bots' pace; a replay's finished review beside it (`reviews`). A game is rebuilt from that record by replaying it
(`GameSession`), never from a pickled object, so a server killed at any moment resumes
each game at its last written decision.

Every change is one statement in its own transaction, written before the request that
made it is answered. The database runs in WAL mode with `synchronous=NORMAL`: a killed
process loses no committed write (a power cut may lose the last ones). The file holds the
seeds and tokens, which tell hidden facts (R10.2), so it is made readable by its owner
only (0600) and never served.
"""

from __future__ import annotations

import ipaddress
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

MEMORY = ":memory:"
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('game', 'replay')),
    client TEXT NOT NULL,
    network TEXT NOT NULL,
    created REAL NOT NULL,
    active REAL NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_client ON sessions (client);
CREATE INDEX IF NOT EXISTS sessions_network ON sessions (network);
CREATE INDEX IF NOT EXISTS sessions_active ON sessions (active);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reviews (
    id TEXT PRIMARY KEY,
    made REAL NOT NULL,
    data TEXT NOT NULL
);
"""
# `reviews`: a replay's finished review (reviews.py), deleted with its replay; a store
# written before the table existed gains it when opened (schema 1 all the same).


class StoreError(Exception):
    """A store file that cannot be used; the message says why."""


def default_store_file() -> Path:
    """suburbia/web-games.sqlite3 under $XDG_DATA_HOME (default ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "suburbia" / "web-games.sqlite3"


def network_of(client: str) -> str:
    """The network a client address belongs to for the limits: its /24 (IPv4) or /64
    (IPv6) prefix, since one party commonly holds a whole such block."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


class Database:
    """The rows of the games and replays; safe to call from any thread (one connection
    behind a lock; SQLite serialises writers of other processes on the file)."""

    def __init__(self, path: str | Path = MEMORY):
        self.path = str(path)
        if self.path != MEMORY:
            file = Path(self.path)
            file.parent.mkdir(parents=True, exist_ok=True)
            try:
                descriptor = os.open(file, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as error:
                raise StoreError(f"cannot open the game store {file}: {error.strerror}") from None
            os.close(descriptor)
            os.chmod(file, 0o600)  # an older file too: it holds seeds and tokens
        try:
            self._connection = sqlite3.connect(self.path, check_same_thread=False,
                                               isolation_level=None, timeout=30)
            self._connection.execute("PRAGMA busy_timeout = 30000")
            if self.path != MEMORY:
                self._connection.execute("PRAGMA journal_mode = WAL")
                self._connection.execute("PRAGMA synchronous = NORMAL")
            self._connection.executescript(_SCHEMA)
            found = self._connection.execute(
                "SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a game store this server can use "
                             f"({error})") from None
        if found is None:
            self._connection.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                     (str(SCHEMA_VERSION),))
        elif found[0] != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path} holds games of store version {found[0]}; this "
                             f"server reads version {SCHEMA_VERSION}")
        if self.path != MEMORY:
            for suffix in ("-wal", "-shm"):  # the journal holds the same secrets
                companion = Path(self.path + suffix)
                if companion.exists():
                    os.chmod(companion, 0o600)
        self._lock = threading.Lock()

    def _write(self, sql: str, parameters=()) -> int:
        """Run one statement (its own transaction); the rows it changed."""
        with self._lock:
            return self._connection.execute(sql, parameters).rowcount

    def _one(self, sql: str, parameters=()) -> tuple | None:
        with self._lock:
            return self._connection.execute(sql, parameters).fetchone()

    def insert(self, session_id: str, kind: str, client: str, version: int, data: dict,
               now: float | None = None) -> None:
        now = time.time() if now is None else now
        self._write("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (session_id, kind, client, network_of(client), now, now, version,
                     json.dumps(data, separators=(",", ":"))))

    def update(self, session_id: str, version: int, data: dict, active: bool) -> bool:
        """Write a session's new record; `active` marks it as played now. False when the
        row is gone (deleted or expired meanwhile)."""
        text = json.dumps(data, separators=(",", ":"))
        if active:
            changed = self._write("UPDATE sessions SET version = ?, data = ?, active = ? "
                                  "WHERE id = ?", (version, text, time.time(), session_id))
        else:
            changed = self._write("UPDATE sessions SET version = ?, data = ? WHERE id = ?",
                                  (version, text, session_id))
        return changed == 1

    def load(self, session_id: str) -> tuple[str, str, int, dict] | None:
        """(kind, client, version, record) of a session, or None."""
        row = self._one("SELECT kind, client, version, data FROM sessions WHERE id = ?",
                        (session_id,))
        return None if row is None else (row[0], row[1], row[2], json.loads(row[3]))

    def delete(self, session_id: str) -> bool:
        with self._lock:
            self._connection.execute("DELETE FROM reviews WHERE id = ?", (session_id,))
            return self._connection.execute("DELETE FROM sessions WHERE id = ?",
                                            (session_id,)).rowcount == 1

    def save_review(self, replay_id: str, data: dict) -> bool:
        """Keep a replay's finished review (its settings, document and CSV); False when
        the replay is gone meanwhile (nothing is kept)."""
        text = json.dumps(data, separators=(",", ":"))
        with self._lock:
            if self._connection.execute("SELECT 1 FROM sessions WHERE id = ?",
                                        (replay_id,)).fetchone() is None:
                return False
            self._connection.execute("INSERT OR REPLACE INTO reviews VALUES (?, ?, ?)",
                                     (replay_id, time.time(), text))
        return True

    def load_review(self, replay_id: str) -> dict | None:
        row = self._one("SELECT data FROM reviews WHERE id = ?", (replay_id,))
        return None if row is None else json.loads(row[0])

    def expired(self, idle_seconds: float) -> list[str]:
        """Delete the sessions not played for `idle_seconds`; their ids."""
        limit = time.time() - idle_seconds
        with self._lock:
            rows = self._connection.execute("SELECT id FROM sessions WHERE active < ?",
                                            (limit,)).fetchall()
            self._connection.execute("DELETE FROM sessions WHERE active < ?", (limit,))
            self._connection.execute("DELETE FROM reviews WHERE id NOT IN "
                                     "(SELECT id FROM sessions)")
        return [row[0] for row in rows]

    def counts(self, client: str) -> tuple[int, int, int]:
        """(sessions of this client address, of its network, in all)."""
        with self._lock:
            mine = self._connection.execute("SELECT COUNT(*) FROM sessions WHERE client = ?",
                                            (client,)).fetchone()[0]
            ours = self._connection.execute("SELECT COUNT(*) FROM sessions WHERE network = ?",
                                            (network_of(client),)).fetchone()[0]
            total = self._connection.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        return mine, ours, total

    def heaviest(self) -> tuple[str, int, str] | None:
        """(network, sessions it holds, id of its longest-idle session) of the network
        holding the most sessions, or None for an empty store."""
        with self._lock:
            row = self._connection.execute(
                "SELECT network, COUNT(*) AS held FROM sessions GROUP BY network "
                "ORDER BY held DESC, MIN(active) ASC LIMIT 1").fetchone()
            if row is None:
                return None
            oldest = self._connection.execute(
                "SELECT id FROM sessions WHERE network = ? ORDER BY active ASC LIMIT 1",
                (row[0],)).fetchone()
        return row[0], row[1], oldest[0]

    def __len__(self) -> int:
        return self._one("SELECT COUNT(*) FROM sessions")[0]

    def close(self) -> None:
        with self._lock:
            self._connection.close()
