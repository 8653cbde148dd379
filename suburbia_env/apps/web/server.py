"""`suburbia serve`: the web application under uvicorn, on 127.0.0.1 by default.

The listening socket is bound before anything is announced, so that a port another
program holds is said at once, with its own exit status
(command_errors.EXIT_PORT_TAKEN), and uvicorn serves on that very socket.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import sys
from pathlib import Path

from ..command_errors import CliError, PortTakenError
from .app import Settings, create_app
from .database import StoreError, default_store_file
from .store import Limits


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


PUBLIC_MAX_PER_CLIENT = 20
PUBLIC_MAX_PER_NETWORK = 60


def party_caps(args) -> tuple[int, int]:
    """The per-address and per-network caps: as given, else the public defaults, except
    on a loopback host, where every client is a user of this machine and one person
    playing many games must not be refused (only --max-games bounds them)."""
    local = _is_loopback(args.host)
    per_client = args.max_games_per_client
    per_network = args.max_games_per_network
    if per_client is None:
        per_client = args.max_games if local else PUBLIC_MAX_PER_CLIENT
    if per_network is None:
        per_network = args.max_games if local else PUBLIC_MAX_PER_NETWORK
    return per_client, per_network


def settings_from_arguments(args) -> Settings:
    for name in ("max_games", "max_games_per_client", "max_games_per_network"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if not args.idle_minutes > 0:
        raise ValueError("--idle-minutes must be positive")
    per_client, per_network = party_caps(args)
    return Settings(limits=Limits(max_sessions=args.max_games,
                                  max_per_client=per_client,
                                  max_per_network=per_network,
                                  idle_seconds=args.idle_minutes * 60),
                    model_dirs=list(args.models or [Path("models")]),
                    secret_file=args.secret_file, host=args.host,
                    allowed_hosts=list(args.allow_host or []),
                    store=args.store if args.store is not None else default_store_file())


def trusted_proxies(args) -> list[str]:
    """The addresses whose X-Forwarded-For is believed (`--trusted-proxy`); none by
    default, so that a client cannot name itself another address to pass the limits."""
    proxies = []
    for text in args.trusted_proxy or []:
        try:
            proxies.append(str(ipaddress.ip_network(text.strip(), strict=False)))
        except ValueError:
            raise ValueError(f"--trusted-proxy {text!r}: not an IP address or network") from None
    return proxies


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port` (0: any free port) and listening; PortTakenError
    when another program holds the port, CliError for any other reason it cannot be."""
    address = host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
    try:
        sock.bind((address, port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortTakenError(f"port {port} on {host} is taken: another program listens "
                                 f"there (another `suburbia serve`?); choose another with "
                                 f"--port, or --port 0 for any free port") from None
        if error.errno == errno.EACCES:
            raise CliError(f"cannot listen on port {port} of {host}: permission denied (ports "
                           f"below 1024 need privileges)") from None
        raise CliError(f"cannot listen on {host}:{port}: "
                       f"{getattr(error, 'strerror', None) or error}") from None
    return sock


def run_server(args, stdout=sys.stdout) -> int:
    import uvicorn
    try:
        settings = settings_from_arguments(args)
        proxies = trusted_proxies(args)
    except ValueError as error:
        raise CliError(str(error)) from None
    if not 0 <= args.port <= 65535:
        raise CliError("--port must be 0..65535")
    sock = listening_socket(args.host, args.port)
    port = sock.getsockname()[1]
    if not _is_loopback(args.host):
        print(f"warning: listening on {args.host}, not only this machine: anyone who can "
              f"reach it can start games", file=sys.stderr)
    try:
        app = create_app(settings)
    except StoreError as error:
        raise CliError(str(error)) from None
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Suburbia is served at http://{shown_host}:{port}/  (Ctrl-C stops it)",
          file=stdout, flush=True)
    server = uvicorn.Server(uvicorn.Config(
        app, log_level="warning", access_log=False,
        timeout_graceful_shutdown=3,  # long polls do not hold Ctrl-C up
        proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    if not server.started:
        raise CliError("the server did not start (see the messages above)")
    return 0
