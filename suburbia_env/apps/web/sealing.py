"""Sealed saves: a game file only the server that wrote it can open.

A saved game must hold the whole state (`Game.to_json()`: the order of the stacks, the
position of One More Round, every drawn goal) so that it can be continued exactly, yet a
player must not be able to read what R10.2 hides from them. So "save" hands the browser
the versioned state sealed: encrypted and authenticated with Fernet (AES-128-CBC and
HMAC-SHA256, `cryptography`) under a key that never leaves the server, wrapped in a small
JSON envelope that names its format and version:

    {"format": "suburbia-sealed-game", "version": 1,
     "note": "...", "sealed": "gAAAAAB..."}

Only a server holding the same key opens it again (`suburbia serve` on the same machine
and user account: the key lives in a file under the user's configuration folder, made on
first use with permissions 0600). A file that was changed, truncated or sealed by
another key is refused with a clear message; nothing of it is ever used. Once a game is
over (or when nobody at the table is a person), the plain state and record are offered
for download instead, since nothing is hidden any more.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from ...formats.reading import SEALED_FORMAT
SEALED_VERSION = 1
NOTE = ("A Suburbia game saved by 'suburbia serve'. It is sealed (encrypted and signed) so "
        "that no player can read the hidden stacks and goals; load it in the same server "
        "to continue.")


class SealError(ValueError):
    """A sealed file that cannot be opened; the message says why."""


def default_secret_file() -> Path:
    """suburbia/web-secret.key under $XDG_CONFIG_HOME (default ~/.config)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "suburbia" / "web-secret.key"


def load_or_create_key(path: Path) -> bytes:
    """The Fernet key in `path`, made (readable by the owner only) if it does not exist."""
    path = Path(path)
    if path.exists():
        key = path.read_bytes().strip()
        try:
            Fernet(key)
        except (ValueError, TypeError):
            raise SealError(f"{path} does not hold a sealing key (44 characters of "
                            f"url-safe base64); remove it to make a new one") from None
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Fernet.generate_key()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key + b"\n")
    return key


class Sealer:
    """Seals and opens payloads (JSON-able dicts) with one server key."""

    def __init__(self, key: bytes):
        self._fernet = Fernet(key)

    def seal(self, payload: dict) -> dict:
        token = self._fernet.encrypt(json.dumps(payload, separators=(",", ":")).encode())
        return {"format": SEALED_FORMAT, "version": SEALED_VERSION, "note": NOTE,
                "sealed": token.decode("ascii")}

    def open(self, envelope) -> dict:
        if not isinstance(envelope, dict):
            raise SealError("a sealed game is a JSON object with format, version and sealed")
        if envelope.get("format") != SEALED_FORMAT:
            raise SealError(f"format: expected {SEALED_FORMAT!r}")
        if envelope.get("version") != SEALED_VERSION:
            raise SealError(f"version: this server reads sealed games of version "
                            f"{SEALED_VERSION}, not {envelope.get('version')!r}")
        token = envelope.get("sealed")
        if not isinstance(token, str) or not token:
            raise SealError("sealed: missing or not text")
        try:
            data = self._fernet.decrypt(token.encode("ascii"))
        except (InvalidToken, UnicodeEncodeError):
            raise SealError("sealed: this file was changed or was sealed by another server "
                            "(another key); it cannot be opened") from None
        payload = json.loads(data)
        if not isinstance(payload, dict):
            raise SealError("sealed: the content is not a saved game")
        return payload
