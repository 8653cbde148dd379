"""Which requests `suburbia serve` answers, and the headers every answer carries.

- **Host (DNS rebinding).** A page of another site can point its own name at this
  server's address and then read the answers as its own; its requests carry that name in
  `Host`. Only the names the server is reached by are answered (400 otherwise): loopback
  names and addresses (`localhost`, `*.localhost`, 127.0.0.0/8, ::1), the address it
  listens on (any IP address when it listens on all: a rebinding needs a name), and the
  names given with `--allow-host`.
- **Origin.** A request that changes something (any method but GET, HEAD, OPTIONS) sent
  by a page of another origin is refused (403): a browser names the page in `Origin`.
- **Framing and sniffing.** `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`
  (no page may frame this one: clickjacking), `X-Content-Type-Options: nosniff`, a CSP
  letting the page run only its own script and style, `Referrer-Policy: no-referrer`,
  and API answers, which carry tokens, marked not to be stored.
- **Size.** A request body larger than the limit (`Limits.max_body_bytes`), declared or
  sent, is refused (413) before it is read whole (`BodyLimit`).
"""

from __future__ import annotations

import ipaddress
import json
from urllib.parse import urlsplit

PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; "
               "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; "
               "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
DOCS_POLICY = ("default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
               "style-src 'self' https://cdn.jsdelivr.net; "
               "img-src 'self' data: https://fastapi.tiangolo.com; connect-src 'self'; "
               "base-uri 'none'; frame-ancestors 'none'")
"""The API's own documentation page (/api/docs) is FastAPI's: inline script and files
from its CDN."""
DOCS_PATHS = ("/api/docs", "/api/docs/oauth2-redirect")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")


def host_of(value: str) -> str | None:
    """The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), in lower
    case without a final dot; None when malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        inside, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return inside
    name, colon, port = value.rpartition(":")
    if not colon:
        name = value
    elif not port.isdigit():
        return None
    name = name.rstrip(".")
    if not name or any(ch in name for ch in "/\\@ \t"):
        return None
    return name


def _address(name: str):
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


class AllowedHosts:
    """The names and addresses requests may name in `Host` (module docstring)."""

    def __init__(self, bound_host: str, extra: list[str] = ()):
        bound = (bound_host or "").strip().lower()
        self.bound_address = _address(bound.strip("[]"))
        self.bound_name = None if self.bound_address else host_of(bound)
        self.everywhere = bound in WILDCARD_ADDRESSES or (
            self.bound_address is not None and self.bound_address.is_unspecified)
        self.names = {host_of(name) for name in extra} - {None}

    def allows(self, name: str | None) -> bool:
        if not name:
            return False
        address = _address(name)
        if address is None:
            return (name == "localhost" or name.endswith(".localhost")
                    or name == self.bound_name or name in self.names)
        return address.is_loopback or self.everywhere or address == self.bound_address \
            or name in self.names


class RequestGuard:
    """ASGI middleware: the Host and Origin checks and the headers of the module docstring."""

    def __init__(self, app, allowed: AllowedHosts):
        self.app, self.allowed = app, allowed

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {key.lower(): value for key, value in scope["headers"]}
        host_value = headers.get(b"host", b"").decode("latin-1")
        path = scope.get("path", "")
        if not self.allowed.allows(host_of(host_value)):
            return await _refuse(send, 400, f"this server does not answer to the host name "
                                            f"{host_value[:100]!r} (a guard against DNS "
                                            f"rebinding); its operator may allow it with "
                                            f"--allow-host")
        origin = headers.get(b"origin")
        if origin is not None and scope.get("method", "GET") not in SAFE_METHODS:
            parts = urlsplit(origin.decode("latin-1"))
            if parts.scheme not in ("http", "https") or \
                    parts.netloc.lower() != host_value.strip().lower():
                return await _refuse(send, 403, "a page of another site may not change "
                                                "anything here (its Origin is not this "
                                                "server's)")
        policy = DOCS_POLICY if path in DOCS_PATHS else PAGE_POLICY
        extra = [(b"x-frame-options", b"DENY"),
                 (b"content-security-policy", policy.encode()),
                 (b"x-content-type-options", b"nosniff"),
                 (b"referrer-policy", b"no-referrer"),
                 (b"cross-origin-opener-policy", b"same-origin")]
        if path.startswith("/api/"):
            extra.append((b"cache-control", b"no-store"))

        async def send_with_headers(event):
            if event["type"] == "http.response.start":
                present = {key.lower() for key, _ in event.get("headers", [])}
                event = {**event, "headers": list(event.get("headers", []))
                         + [(key, value) for key, value in extra if key not in present]}
            await send(event)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"x-frame-options", b"DENY"),
                            (b"content-security-policy", PAGE_POLICY.encode()),
                            (b"x-content-type-options", b"nosniff")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: 413 for a request body larger than `max_bytes` (declared or sent)."""

    def __init__(self, app, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        message = (f"the request body is larger than {self.max_bytes} bytes, the most this "
                   f"server reads")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            return await _refuse(send, 413, message)
        received = 0
        started = False

        async def limited_receive():
            nonlocal received
            event = await receive()
            if event["type"] == "http.request":
                received += len(event.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge()
            return event

        async def tracking_send(event):
            nonlocal started
            if event["type"] == "http.response.start":
                started = True
            await send(event)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _refuse(send, 413, message)


class _TooLarge(Exception):
    pass
