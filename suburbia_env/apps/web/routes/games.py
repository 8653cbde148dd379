"""A game's routes: make one, see it (a long poll), decide, undo, set the bots, save it
sealed, download its record or state once nothing is hidden, replay it, delete it."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ....engine.rng import MAX_SEED, secret_seed
from ....errors import SuburbiaError
from ....game import GameConfig
from ..context import (POLL_SECONDS, AppContext, client_address, json_answer, replay_answer,
                       tokens_answer)
from ..errors import WebError
from ..replays import ReplaySession
from ..requests import ActionIn, BotsIn, NewGameIn, SessionId, Token
from ..sessions import MAX_DECISIONS, GameSession


def router(context: AppContext) -> APIRouter:
    settings, store, sealer = context.settings, context.store, context.sealer
    router = APIRouter()

    @router.post("/api/games", status_code=201)
    def create_game(body: NewGameIn, request: Request):
        players = body.players
        try:
            GameConfig(players, body.mode, body.edition)
        except SuburbiaError as error:
            raise WebError(422, f"players: {error}") from None
        seats = context.build_seats(body.mode, players, body.seats)
        seed = secret_seed() if body.seed is None else int(body.seed)
        if seed > MAX_SEED:
            raise WebError(422, f"seed: at most {MAX_SEED} (64 bits), not {seed}")
        session = context.new_session(
            client_address(request), mode=body.mode, players=players, edition=body.edition,
            seed=seed, seed_chosen=body.seed is not None, seats=seats,
            delay_ms=body.delay_ms if body.delay_ms is not None else settings.default_delay_ms,
            hints=body.hints)
        if body.hints:
            context.hints.prepare(body.mode)
        return tokens_answer(session)

    @router.get("/api/games/{game_id}")
    async def game_view(game_id: SessionId, request: Request, token: Token = None,
                        since_version: Annotated[int | None, Query(ge=0)] = None,
                        log_since: Annotated[int, Query(ge=0, le=MAX_DECISIONS)] = 0):
        """The game as the token's seat sees it. With `since_version` equal to the current
        version the answer waits (up to 20 s) for a change: the page's long poll."""
        session: GameSession = await context.live(game_id, "game")
        viewer = session.seat_of(token)
        if since_version is not None:
            with store.waiting(client_address(request)):
                await session.notifier.wait(POLL_SECONDS,
                                            lambda: session.version == since_version)
            session = await context.live(game_id, "game")  # still there (read back), and seen
        return json_answer(await run_in_threadpool(session.view, viewer, log_since))

    @router.post("/api/games/{game_id}/actions")
    def play(game_id: SessionId, body: ActionIn, token: Token = None,
             log_since: Annotated[int, Query(ge=0, le=MAX_DECISIONS)] = 0):
        if body.version is None:
            raise WebError(422, "version: required, the game's version you decided on (from "
                                "the view): a click sent twice then counts once")
        session: GameSession = store.get(game_id, "game")
        viewer = session.seat_of(token)
        session.play(viewer, body.action, body.version)
        return json_answer(session.view(viewer, log_since))

    @router.post("/api/games/{game_id}/hint")
    async def hint(game_id: SessionId, token: Token = None):
        """The search's best moves for the person's decision, from the person's knowledge
        only (agents/hints.py); worked out off the event loop, one at a time per game."""
        session: GameSession = await context.live(game_id, "game")
        viewer = session.seat_of(token)
        game = session.begin_hint(viewer)
        given = False
        try:
            answer = await context.hints.hint(game, viewer)
            given = True
        finally:
            await run_in_threadpool(session.end_hint, viewer, given)
        answer["used"] = session.hints_used.get(viewer, 0)
        return json_answer(answer)

    @router.post("/api/games/{game_id}/undo")
    def undo(game_id: SessionId, token: Token = None):
        session: GameSession = store.get(game_id, "game")
        viewer = session.seat_of(token)
        session.undo(viewer)
        return json_answer(session.view(viewer, 0))

    @router.post("/api/games/{game_id}/bots")
    def bots(game_id: SessionId, body: BotsIn, token: Token = None):
        session: GameSession = store.get(game_id, "game")
        if not session.is_member(token):
            raise WebError(403, "only a seat of this game (or its creator) sets the bots")
        session.set_bots(body.delay_ms, body.paused, body.skip, body.step)
        return {"ok": True, "version": session.version}

    @router.post("/api/games/{game_id}/save")
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

    @router.get("/api/games/{game_id}/record")
    def record(game_id: SessionId):
        session: GameSession = store.get(game_id, "game")
        plain(session)
        return session.record()

    @router.get("/api/games/{game_id}/state")
    def state(game_id: SessionId):
        session: GameSession = store.get(game_id, "game")
        plain(session)
        with session.lock:
            text = session.game.to_json()
        return Response(text, media_type="application/json")

    @router.post("/api/games/{game_id}/replay", status_code=201)
    def replay_game(game_id: SessionId, request: Request):
        session: GameSession = store.get(game_id, "game")
        plain(session)
        store.check_room(client_address(request))
        replay = ReplaySession.of_game(session, client_address(request))
        store.add(replay)
        return replay_answer(replay)

    @router.delete("/api/games/{game_id}")
    def delete_game(game_id: SessionId, token: Token = None):
        session: GameSession = store.get(game_id, "game")
        if not session.is_creator(token):
            raise WebError(403, "only the creator of this game can delete it")
        store.remove(game_id)
        return {"ok": True}

    return router
