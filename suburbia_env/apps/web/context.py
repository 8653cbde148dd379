"""What the API's routes share: the server's settings, the store of games and replays,
the served model folders, the sealer of saved games, and the steps several routes take
(seating agents, making a game, answering with its tokens, finding a live session)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import orjson
from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from ...display.vocabulary import labelled_seat_name
from ...errors import SuburbiaError
from .agent_specs import ModelFolders, SpecRefused, build_agent, check_agent_spec, short_spec
from .database import MEMORY, Database
from .errors import WebError
from .replays import ReplaySession
from .hints import HintWorker
from .reviews import ReviewJobs
from .requests import SeatIn
from .sealing import Sealer, default_secret_file, load_or_create_key
from .seats import Seat
from .sessions import GameSession
from .store import Limits, Store

POLL_SECONDS = 20.0
STATIC = resources.files("suburbia_env.apps.web").joinpath("static")
"""The page's files (index.html, its script and style)."""


@dataclass
class Settings:
    """What `create_app` is configured with (the options of `suburbia serve`)."""

    limits: Limits = field(default_factory=Limits)
    model_dirs: list[Path] = field(default_factory=lambda: [Path("models")])
    secret_file: Path | None = None
    default_delay_ms: int = 700
    store: Path | str | None = None
    """The SQLite file of the games and replays (database.py); None: in memory only
    (`suburbia serve` defaults to a file, `database.default_store_file`)."""
    host: str = "127.0.0.1"
    """The address listened on: requests may name it in Host (http_guards.py)."""
    allowed_hosts: list[str] = field(default_factory=list)
    """Further names requests may give in Host (`--allow-host`): the server's names."""


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def json_answer(content: dict) -> Response:
    """A view as JSON, encoded once by orjson instead of walked by FastAPI's encoder and
    then encoded: that was most of a click's time (docs/performance.md)."""
    return Response(orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS),
                    media_type="application/json")


def error_answer(status: int, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


class AppContext:
    """The parts of one app (`create_app`) its routes share."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.sealer = Sealer(load_or_create_key(settings.secret_file or default_secret_file()))
        self.folders = ModelFolders([Path(d) for d in settings.model_dirs])
        self.database = Database(settings.store if settings.store is not None else MEMORY)
        self.store = Store(settings.limits, self.database, self.agent_factory)
        self.reviews = ReviewJobs(self.database)
        self.hints = HintWorker()

    def agent_factory(self, spec: str, seed: int, seat: int, mode: str):
        """A bot for a seat (its spec checked when the seat was made); its model is found
        in the served folders again."""
        from agents.table import agent_seed
        agent = build_agent(spec, agent_seed(seed, seat), self.folders)
        agent.check_mode(mode)
        return agent

    def check_agent(self, spec: str, mode: str) -> str:
        """The spec a seat keeps; 422 when it names no agent that can play here."""
        try:
            return check_agent_spec(spec, mode, self.folders)
        except SpecRefused as error:
            raise WebError(422, str(error)) from None

    def build_seats(self, mode: str, players: int, seats_in: list[SeatIn]) -> list[Seat]:
        if len(seats_in) != players:
            raise WebError(422, f"seats: {len(seats_in)} seat(s) given for {players} player(s); "
                                f"give one per player")
        seats = []
        for number, seat in enumerate(seats_in):
            if seat.kind == "person":
                if seat.agent is not None:
                    raise WebError(422, f"seats.{number}: a person's seat takes no agent")
                seats.append(Seat(number, None, labelled_seat_name(number)))
            else:
                if seat.agent is None:
                    raise WebError(422, f"seats.{number}: an agent seat needs an agent spec, "
                                        f"e.g. 'greedy'")
                spec = self.check_agent(seat.agent, mode)
                seats.append(Seat(number, spec, labelled_seat_name(number, short_spec(seat.agent))))
        return seats

    def new_session(self, client: str, **kwargs) -> GameSession:
        self.store.check_room(client)
        try:
            session = GameSession(client=client, agent_factory=self.agent_factory, **kwargs)
        except (SuburbiaError, ValueError) as error:
            raise WebError(422, str(error)) from None
        self.store.add(session)
        return session

    async def live(self, session_id: str, kind: str):
        """`store.get` off the event loop when the session must be read back from the
        database (a replay of its decisions)."""
        return self.store.peek(session_id, kind) or await run_in_threadpool(
            self.store.get, session_id, kind)


def tokens_answer(session: GameSession) -> dict:
    by_seat = {seat: token for token, seat in session.tokens.items()}
    humans = sorted(by_seat)
    answer = {"kind": "game", "id": session.id, "owner_token": session.owner_token,
              "seat": humans[0] if humans else None,
              "token": by_seat[humans[0]] if humans else session.owner_token,
              "join": {str(seat): by_seat[seat] for seat in humans[1:]}}
    return answer


def replay_answer(replay: ReplaySession) -> dict:
    return {"kind": "replay", "id": replay.id, "total": replay.total,
            "token": replay.maker_token}
