"""The seats of a web game (a person or an agent spec each), their labels, and the
secret tokens and ids that bind a browser to a seat, a game or a replay."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from ...display.vocabulary import DALE
from ...engine import constants as c

DALE_SEAT = int(c.DALE_SEAT)  # a plain int for JSON


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_id() -> str:
    return secrets.token_urlsafe(16)


@dataclass
class Seat:
    """A deciding seat: a person (agent is None) or an agent spec."""

    seat: int
    agent: str | None
    label: str

    @property
    def human(self) -> bool:
        return self.agent is None

    def to_dict(self) -> dict:
        return {"seat": self.seat, "agent": self.agent, "label": self.label}


def seat_labels(mode: str, seats: list[Seat]) -> dict[int, str]:
    labels = {seat.seat: seat.label for seat in seats}
    if mode == "dale":
        labels[DALE_SEAT] = DALE
    return labels
