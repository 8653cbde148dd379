"""The TCP and UDP sockets of given processes, read from /proc (Linux), to check that a Ray
instance started by the project talks over loopback addresses only (agents/ray_session.py,
docs/distributed.md).

Ray's gRPC servers (GCS, raylets, workers) listen on the wildcard address unless the node
address is exactly 127.0.0.1 (a local instance's, agents/ray_session.py): `off_loopback`
allows wildcard listeners (a cluster of nodes on 127.0.0.2 and 127.0.0.3),
`listening_off_loopback` does not.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from pathlib import Path

TCP_LISTEN = "0A"
TCP_ESTABLISHED = "01"


def _address(text: str) -> tuple[str, int]:
    """An address of /proc/net/{tcp,udp}[6]: hex, in 32-bit words of host byte order."""
    host, port = text.split(":")
    raw = bytes.fromhex(host)
    if sys.byteorder == "little":
        raw = b"".join(raw[start:start + 4][::-1] for start in range(0, len(raw), 4))
    address = ipaddress.ip_address(raw)
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address), int(port, 16)


def with_descendants(pid: int) -> set[int]:
    """The process and every process started under it (children, their children...)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except (FileNotFoundError, ProcessLookupError):
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    family, added = {pid}, True
    while added:
        more = {child for child, parent in parents.items() if parent in family} - family
        family |= more
        added = bool(more)
    return family


def in_sessions(session_ids: set[int]) -> set[int]:
    """The processes of the given sessions (process groups started with a new session)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) in session_ids:
                    found.add(int(entry.name))
            except (ProcessLookupError, PermissionError):
                pass
    return found


def _socket_inodes(pids) -> dict[int, int]:
    """inode -> pid of the sockets the processes hold open."""
    inodes = {}
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes[int(target[8:-1])] = pid
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass  # the process or descriptor ended meanwhile
    return inodes


def sockets_of(pids) -> list[dict]:
    """The IPv4/IPv6 TCP and UDP sockets of the processes: protocol, pid, local and remote
    (host, port), TCP state (hex, as in /proc)."""
    inodes = _socket_inodes(pids)
    found = []
    for protocol in ("tcp", "tcp6", "udp", "udp6"):
        for line in Path(f"/proc/net/{protocol}").read_text().splitlines()[1:]:
            fields = line.split()
            inode = int(fields[9])
            if inode in inodes:
                found.append({"protocol": protocol, "pid": inodes[inode],
                              "local": _address(fields[1]), "remote": _address(fields[2]),
                              "state": fields[3]})
    return found


def _is_loopback(host: str) -> bool:
    return ipaddress.ip_address(host).is_loopback


def _is_wildcard(host: str) -> bool:
    return ipaddress.ip_address(host).is_unspecified


def off_loopback(sockets: list[dict]) -> list[dict]:
    """The sockets bound or connected to anything but a loopback address; a wildcard
    listener (TCP listening, or UDP not connected) is allowed."""
    wrong = []
    for entry in sockets:
        (local, _), (remote, _) = entry["local"], entry["remote"]
        unconnected = (entry["state"] == TCP_LISTEN if entry["protocol"].startswith("tcp")
                       else _is_wildcard(remote))
        if unconnected:
            fine = (_is_loopback(local) or _is_wildcard(local)) and _is_wildcard(remote)
        else:
            fine = _is_loopback(local) and _is_loopback(remote)
        if not fine:
            wrong.append(entry)
    return wrong


def listening_off_loopback(sockets: list[dict]) -> list[dict]:
    """The listening sockets (TCP listening, UDP not connected) bound to anything but a
    loopback address, the wildcard included: what another machine could reach."""
    return [entry for entry in sockets
            if (entry["state"] == TCP_LISTEN if entry["protocol"].startswith("tcp")
                else _is_wildcard(entry["remote"][0]))
            and not _is_loopback(entry["local"][0])]


def connections_to(sockets: list[dict], host: str, port: int) -> list[dict]:
    """The established TCP connections of the sockets to host:port."""
    return [entry for entry in sockets if entry["protocol"].startswith("tcp")
            and entry["state"] == TCP_ESTABLISHED and tuple(entry["remote"]) == (host, port)]


def free_loopback_port() -> int:
    """A TCP port free on 127.0.0.1 just now, for a server a test starts (Ray, `suburbia
    serve`)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
