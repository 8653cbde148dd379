"""The FastAPI application of `suburbia serve`: JSON API, page and static files.

Every request body is a pydantic model that forbids unknown fields and takes strict
types; a malformed request gets a 4xx answer `{"error": "...", ...}` naming the field
at fault, never a 500 and never a change to a game. A person's seat is bound to a secret
token (header `X-Seat-Token`) handed only to the browser that created or joined it; a
request without it sees what a watcher sees. See `suburbia_env/apps/web/__init__.py` for
the design, `routes/` for the routes by job and `sessions.py` for the games themselves.
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from .context import STATIC, AppContext, Settings, error_answer
from .errors import WebError
from .http_guards import AllowedHosts, BodyLimit, RequestGuard
from .routes import games, loading, pages, replays

__all__ = ["Settings", "create_app", "warm_up"]


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
    from ...serialization import game_from_json, replay_record
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
    """The app of `suburbia serve`: its guards, its error answers and the routes of
    routes/ over one AppContext (the store, the model folders, the sealer)."""
    context = AppContext(settings or Settings())
    settings = context.settings
    app = FastAPI(title="Suburbia", version="1", docs_url="/api/docs", redoc_url=None,
                  lifespan=_lifespan(context))
    app.state.store = context.store
    app.state.settings = settings
    app.add_middleware(BodyLimit, max_bytes=settings.limits.max_body_bytes)
    app.add_middleware(RequestGuard, allowed=AllowedHosts(settings.host, settings.allowed_hosts))
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    _answer_errors(app)
    for routes in (pages, games, loading, replays):
        app.include_router(routes.router(context))
    return app


def _lifespan(context: AppContext):
    store = context.store

    async def sweep_forever():
        while True:
            await asyncio.sleep(context.settings.limits.sweep_seconds)
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
        context.reviews.close()
        context.hints.close()
        store.close_all()
        context.database.close()

    return lifespan


def _answer_errors(app: FastAPI) -> None:
    """Every refusal as `{"error": ...}`: a WebError with its status, a malformed request
    422 naming the field, anything unexpected 500 (a bug: the game is unchanged)."""

    @app.exception_handler(WebError)
    async def web_error(request, error: WebError):
        return error_answer(error.status, str(error))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request, error: RequestValidationError):
        details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")}
                   for e in error.errors()[:20]]
        return error_answer(422, _validation_message(error.errors()), detail=details)

    @app.exception_handler(Exception)
    async def unexpected(request, error: Exception):  # a bug: say so, keep the game
        return error_answer(500, f"internal error ({type(error).__name__}); the game is "
                                 f"unchanged")
