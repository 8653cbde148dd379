"""What the API's requests carry: the path's ids, the seat token header and the JSON
bodies, each a pydantic model that forbids unknown fields and takes strict types."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Header, Path as PathParam
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from ...engine import action_space as a
from ...engine.rng import MAX_SEED

SessionId = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{8,64}$")]
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"
Token = Annotated[str | None, Header(alias="X-Seat-Token", pattern=TOKEN_PATTERN,
                                     description="a seat's, the creator's or a replay "
                                                 "maker's token (letters, digits, - and _)")]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatIn(_Body):
    kind: Literal["person", "agent"]
    agent: str | None = Field(None, min_length=1, max_length=300,
                              description="agent spec (agents.registry), for kind 'agent'")


class NewGameIn(_Body):
    mode: Literal["standard", "solitary", "dale"] = "dale"
    players: StrictInt = Field(1, ge=1, le=4)
    edition: Literal["2nd", "1st"] = "2nd"
    seed: Annotated[StrictInt, Field(ge=0, le=MAX_SEED)] | Annotated[
        str, Field(pattern=r"^[0-9]{1,20}$")] | None = Field(
        None, description="null: a secret random seed of 64 bits; a typed one as a number "
                          "or as decimal text (a page's numbers are exact to 2**53 only)")
    seats: list[SeatIn] = Field(min_length=1, max_length=4)
    delay_ms: StrictInt | None = Field(None, ge=0, le=10_000)
    hints: StrictBool = Field(False, description="the person may ask the search for hints "
                              "(one person against bots only; off by default)")


class ActionIn(_Body):
    action: StrictInt = Field(ge=0, le=a.NUM_ACTIONS - 1)
    version: StrictInt | None = Field(None, ge=0, description="the game's version the "
                                      "decision was taken on (required)")


class BotsIn(_Body):
    delay_ms: StrictInt | None = Field(None, ge=0, le=10_000)
    paused: StrictBool | None = None
    skip: StrictBool = False
    step: StrictBool = False


class LoadIn(_Body):
    file: dict
    seats: list[SeatIn] | None = Field(None, min_length=1, max_length=4)


class ReplayIn(_Body):
    record: dict
