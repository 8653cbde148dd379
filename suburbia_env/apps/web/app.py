"""The FastAPI application of `suburbia serve`: JSON API, page and static files.

Every request body is a pydantic model that forbids unknown fields and takes strict
types; a malformed request gets a 4xx answer `{"error": "...", ...}` naming the field
at fault, never a 500 and never a change to a game. A person's seat is bound to a secret
token (header `X-Seat-Token`) handed only to the browser that created or joined it; a
request without it sees what a watcher sees. See `suburbia_env/apps/web/__init__.py` for the
design and `sessions.py` for the games themselves.
"""

from __future__ import annotations

import asyncio
import json
import sys

import orjson
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from ...errors import SuburbiaError
from ...game import GameConfig
from ...engine.rng import MAX_SEED, secret_seed
from ...formats.serialization import game_from_dict
from ...display.tile_text import tile_catalog
from ...display.vocabulary import labelled_seat_name
from .database import MEMORY, Database
from .http_guards import AllowedHosts, BodyLimit, RequestGuard
from .sealing import SealError, Sealer, default_secret_file, load_or_create_key
from .agent_specs import (SEARCH_KINDS, ModelFolders, SpecRefused, build_agent,
                          check_agent_spec, short_spec)
from .errors import WebError
from .replays import ReplaySession
from .requests import (ActionIn, BotsIn, LoadIn, NewGameIn, ReplayIn, SeatIn, SessionId,
                       Token)
from .seats import Seat
from .sessions import MAX_DECISIONS, GameSession
from .store import Limits, Store

POLL_SECONDS = 20.0


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


# The application ---------------------------------------------------------------------------

def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def json_answer(content: dict) -> Response:
    """A view as JSON, encoded once by orjson instead of walked by FastAPI's encoder and
    then encoded: that was most of a click's time (docs/performance.md)."""
    return Response(orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS),
                    media_type="application/json")


def _error(status: int, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def _validation_message(errors: list) -> str:
    parts = []
    for error in errors[:5]:
        location = tuple(error.get("loc", ()))
        if location == ("header", "X-Seat-Token"):
            parts.append("X-Seat-Token: a token is 1 to 128 letters, digits, '-' and '_'")
            continue
        where = ".".join(str(part) for part in location if part != "body")
        parts.append(f"{where or 'body'}: {error.get('msg', 'invalid')}")
    return "; ".join(parts) or "malformed request"


def warm_up() -> None:
    """Play a little of each mode once, so that the engine's compiled kernels are loaded
    (or compiled) before the first click rather than during it."""
    from ...game import Game
    from ...engine.rng import secret_words
    from ...formats.serialization import game_from_json, replay_record
    from .views import legal_choices
    for players, mode in ((1, "dale"), (2, "standard"), (1, "solitary")):
        game = Game(players, mode, "2nd", 0)
        for _ in range(6):
            if game.is_over:
                break
            legal_choices(game)
            number = int(game.legal_actions()[-1])
            game.is_legal(number)
            game.apply(number)
        replay_record(game.record())
        game_from_json(game.to_json())
        game.redraw_hidden(0, secret_words())
    from agents.registry import make_agent  # the built-in agents' kernels too: their first
    game = Game(3, "standard", "2nd", 0)      # move is then a move, not a compilation
    for spec in ("random", "greedy", "dale"):
        game.apply(game.action_number(make_agent(spec, seed=0).act(game)))


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    secret_file = settings.secret_file or default_secret_file()
    sealer = Sealer(load_or_create_key(secret_file))
    folders = ModelFolders([Path(d) for d in settings.model_dirs])

    def agent_factory(spec: str, seed: int, seat: int, mode: str):
        """A bot for a seat (its spec checked when the seat was made); its model is found
        in the served folders again."""
        from agents.table import agent_seed
        agent = build_agent(spec, agent_seed(seed, seat), folders)
        agent.check_mode(mode)
        return agent

    database = Database(settings.store if settings.store is not None else MEMORY)
    store = Store(settings.limits, database, agent_factory)

    async def sweep_forever():
        while True:
            await asyncio.sleep(settings.limits.sweep_seconds)
            try:
                await run_in_threadpool(store.sweep)
            except Exception as error:  # a full disk, say: try again at the next sweep
                print(f"suburbia serve: the sweep failed: {type(error).__name__}: {error}",
                      file=sys.stderr)

    @asynccontextmanager
    async def lifespan(app):
        await run_in_threadpool(warm_up)  # before the first request, not during it
        await run_in_threadpool(store.sweep)  # what expired while the server was down
        sweeper = asyncio.create_task(sweep_forever())
        yield
        sweeper.cancel()
        store.close_all()
        database.close()

    app = FastAPI(title="Suburbia", version="1", docs_url="/api/docs", redoc_url=None,
                  lifespan=lifespan)
    app.state.store = store
    app.state.settings = settings
    app.add_middleware(BodyLimit, max_bytes=settings.limits.max_body_bytes)
    app.add_middleware(RequestGuard, allowed=AllowedHosts(settings.host, settings.allowed_hosts))
    static = resources.files("suburbia_env.apps.web").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.exception_handler(WebError)
    async def web_error(request, error: WebError):
        return _error(error.status, str(error))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request, error: RequestValidationError):
        details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")}
                   for e in error.errors()[:20]]
        return _error(422, _validation_message(error.errors()), detail=details)

    @app.exception_handler(Exception)
    async def unexpected(request, error: Exception):  # a bug: say so, keep the game
        return _error(500, f"internal error ({type(error).__name__}); the game is unchanged")

    # Agents --------------------------------------------------------------------------------

    def check_agent(spec: str, mode: str) -> str:
        """The spec a seat keeps; 422 when it names no agent that can play here."""
        try:
            return check_agent_spec(spec, mode, folders)
        except SpecRefused as error:
            raise WebError(422, str(error)) from None

    def build_seats(mode: str, players: int, seats_in: list[SeatIn]) -> list[Seat]:
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
                spec = check_agent(seat.agent, mode)
                seats.append(Seat(number, spec, labelled_seat_name(number, short_spec(seat.agent))))
        return seats

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

    def new_session(client: str, **kwargs) -> GameSession:
        store.check_room(client)
        try:
            session = GameSession(client=client, agent_factory=agent_factory, **kwargs)
        except (SuburbiaError, ValueError) as error:
            raise WebError(422, str(error)) from None
        store.add(session)
        return session

    async def live(session_id: str, kind: str):
        """`store.get` off the event loop when the session must be read back from the
        database (a replay of its decisions)."""
        return store.peek(session_id, kind) or await run_in_threadpool(store.get, session_id,
                                                                        kind)

    # Routes ----------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(str(static.joinpath("index.html")), media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return Response(status_code=204)

    @app.get("/api/options")
    def options():
        from agents.styles import STYLES
        found = folders.offered_models()
        checkpoints = folders.offered_checkpoints()
        specs = ["greedy", *STYLES, "dale", "random"] + [f"ppo:{m}" for m in found] + \
            [f"ppo-sample:{m}" for m in found] + [f"ppo-rollout:{m}" for m in found] + \
            [f"ppo-search:{m}" for m in found] + [f"rllib:{c}" for c in checkpoints]
        return {"modes": {"dale": {"players": [1]}, "solitary": {"players": [1]},
                          "standard": {"players": [2, 3, 4]}},
                "editions": ["2nd", "1st"], "agents": specs, "models": found,
                "checkpoints": checkpoints,
                "search_kinds": list(SEARCH_KINDS), "default_delay_ms": settings.default_delay_ms,
                "limits": {"max_per_client": settings.limits.max_per_client,
                           "max_body_bytes": settings.limits.max_body_bytes,
                           "idle_minutes": settings.limits.idle_seconds / 60}}

    @app.get("/api/tiles")
    def tiles():
        return {"tiles": tile_catalog()}

    @app.post("/api/games", status_code=201)
    def create_game(body: NewGameIn, request: Request):
        players = body.players
        try:
            GameConfig(players, body.mode, body.edition)
        except SuburbiaError as error:
            raise WebError(422, f"players: {error}") from None
        seats = build_seats(body.mode, players, body.seats)
        seed = secret_seed() if body.seed is None else int(body.seed)
        if seed > MAX_SEED:
            raise WebError(422, f"seed: at most {MAX_SEED} (64 bits), not {seed}")
        session = new_session(_client(request), mode=body.mode, players=players,
                              edition=body.edition, seed=seed, seed_chosen=body.seed is not None,
                              seats=seats, delay_ms=body.delay_ms if body.delay_ms is not None
                              else settings.default_delay_ms)
        return tokens_answer(session)

    @app.get("/api/games/{game_id}")
    async def game_view(game_id: SessionId, request: Request, token: Token = None,
                        since_version: Annotated[int | None, Query(ge=0)] = None,
                        log_since: Annotated[int, Query(ge=0, le=MAX_DECISIONS)] = 0):
        """The game as the token's seat sees it. With `since_version` equal to the current
        version the answer waits (up to 20 s) for a change: the page's long poll."""
        session: GameSession = await live(game_id, "game")
        viewer = session.seat_of(token)
        if since_version is not None:
            with store.waiting(_client(request)):
                await session.notifier.wait(POLL_SECONDS,
                                            lambda: session.version == since_version)
            session = await live(game_id, "game")  # still there (or read back), and seen
        return json_answer(await run_in_threadpool(session.view, viewer, log_since))

    @app.post("/api/games/{game_id}/actions")
    def play(game_id: SessionId, body: ActionIn, token: Token = None,
             log_since: Annotated[int, Query(ge=0, le=MAX_DECISIONS)] = 0):
        if body.version is None:
            raise WebError(422, "version: required, the game's version you decided on (from "
                                "the view): a click sent twice then counts once")
        session: GameSession = store.get(game_id, "game")
        viewer = session.seat_of(token)
        session.play(viewer, body.action, body.version)
        return json_answer(session.view(viewer, log_since))

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: SessionId, token: Token = None):
        session: GameSession = store.get(game_id, "game")
        viewer = session.seat_of(token)
        session.undo(viewer)
        return json_answer(session.view(viewer, 0))

    @app.post("/api/games/{game_id}/bots")
    def bots(game_id: SessionId, body: BotsIn, token: Token = None):
        session: GameSession = store.get(game_id, "game")
        if not session.is_member(token):
            raise WebError(403, "only a seat of this game (or its creator) sets the bots")
        session.set_bots(body.delay_ms, body.paused, body.skip, body.step)
        return {"ok": True, "version": session.version}

    @app.post("/api/games/{game_id}/save")
    def save(game_id: SessionId, token: Token = None):
        session: GameSession = store.get(game_id, "game")
        viewer = session.seat_of(token)
        if not session.is_member(token):
            raise WebError(403, "only a seat of this game (or its creator) can save it")
        if viewer is None and session.humans:
            raise WebError(403, "save from a person's seat")
        if len(session.humans) > 1 and not session.game.is_over:
            raise WebError(409, "a game of several people is saved when it is over: a sealed "
                                "file loaded by one of them would show him the others' goals")
        payload = session.save_payload()
        payload["saved_by"] = viewer
        envelope = sealer.seal(payload)
        return Response(json.dumps(envelope), media_type="application/json",
                        headers={"Content-Disposition":
                                 'attachment; filename="suburbia-game.sealed.json"'})

    def plain(session: GameSession) -> None:
        if not session.reveal_for(None):
            raise WebError(403, "the plain state and record tell the hidden stacks and goals "
                                "(R10.2): they are offered once the game is over (save a "
                                "sealed game meanwhile)")

    @app.get("/api/games/{game_id}/record")
    def record(game_id: SessionId):
        session: GameSession = store.get(game_id, "game")
        plain(session)
        return session.record()

    @app.get("/api/games/{game_id}/state")
    def state(game_id: SessionId):
        session: GameSession = store.get(game_id, "game")
        plain(session)
        with session.lock:
            text = session.game.to_json()
        return Response(text, media_type="application/json")

    @app.post("/api/games/{game_id}/replay", status_code=201)
    def replay_game(game_id: SessionId, request: Request):
        session: GameSession = store.get(game_id, "game")
        plain(session)
        store.check_room(_client(request))
        replay = ReplaySession.of_game(session, _client(request))
        store.add(replay)
        return replay_answer(replay)

    @app.delete("/api/games/{game_id}")
    def delete_game(game_id: SessionId, token: Token = None):
        session: GameSession = store.get(game_id, "game")
        if not session.is_creator(token):
            raise WebError(403, "only the creator of this game can delete it")
        store.remove(game_id)
        return {"ok": True}

    @app.post("/api/load", status_code=201)
    def load(body: LoadIn, request: Request):
        """A sealed game (continued with its seats), a plain state (continued with the
        seats given) or a game record (opened as a replay)."""
        data = body.file
        client = _client(request)
        kind = data.get("format")
        if kind == "suburbia-record":
            store.check_room(client)
            replay = ReplaySession(data, client)
            store.add(replay)
            return replay_answer(replay)
        if kind == "suburbia-sealed-game":
            try:
                payload = sealer.open(data)
            except SealError as error:
                raise WebError(422, f"cannot open this sealed game: {error}") from None
            seats = [Seat(int(s["seat"]), None if s["agent"] is None  # checked as a new
                          else check_agent(folders.public_spec(str(s["agent"])),  # game's
                                           str(payload["mode"])),
                          str(s["label"])) for s in payload["seats"]]
            session = new_session(client, mode=payload["mode"], players=payload["players"],
                                  edition=payload["edition"], seed=payload["seed"],
                                  seed_chosen=payload["seed_chosen"], seats=seats,
                                  base_state=payload["base_state"], actions=payload["actions"],
                                  deciders=payload["deciders"],
                                  redraws=payload.get("redraws", []),
                                  undos=payload.get("undos", 0), delay_ms=payload["delay_ms"],
                                  saved_state=payload["state"])
            return tokens_answer(session)
        if kind == "suburbia-state":
            try:
                game = game_from_dict(data)
            except SuburbiaError as error:
                raise WebError(422, f"not a loadable state: {error}") from None
            if game.is_over:
                raise WebError(422, "this state is of a finished game: nothing to play (open "
                                    "its record to replay it)")
            config = game.config
            seats_in = body.seats or [SeatIn(kind="person")] + [
                SeatIn(kind="agent", agent="greedy") for _ in range(config.players - 1)]
            seats = build_seats(config.mode, config.players, seats_in)
            session = new_session(client, mode=config.mode, players=config.players,
                                  edition=config.edition,
                                  seed=game.seed if game.seed is not None else secret_seed(),
                                  seed_chosen=True, seats=seats, base_state=game.to_json(),
                                  delay_ms=settings.default_delay_ms)
            return tokens_answer(session)
        raise WebError(422, "file.format: expected 'suburbia-sealed-game' (a saved game), "
                            "'suburbia-state' or 'suburbia-record'")

    @app.post("/api/replays", status_code=201)
    def new_replay(body: ReplayIn, request: Request):
        client = _client(request)
        store.check_room(client)
        replay = ReplaySession(body.record, client)
        store.add(replay)
        return replay_answer(replay)

    @app.get("/api/replays/{replay_id}")
    def replay_view(replay_id: SessionId,
                    step: Annotated[int, Query(ge=0, le=MAX_DECISIONS)] = 0):
        replay: ReplaySession = store.get(replay_id, "replay")
        return json_answer(replay.view(step))

    @app.get("/api/replays/{replay_id}/record")
    def replay_record_download(replay_id: SessionId):
        record = store.get(replay_id, "replay").record
        if record is None:
            raise WebError(409, "this game has no seed-and-moves record (it began from a "
                                "loaded state, or an undo dealt its hidden stacks anew): "
                                "download its state from the game instead")
        return record

    @app.delete("/api/replays/{replay_id}")
    def delete_replay(replay_id: SessionId, token: Token = None):
        replay: ReplaySession = store.get(replay_id, "replay")
        if not replay.is_maker(token):
            raise WebError(403, "only the maker of this replay can delete it (with the token "
                                "its creation answered)")
        store.remove(replay_id)
        return {"ok": True}

    return app
