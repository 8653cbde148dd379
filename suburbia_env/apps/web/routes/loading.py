"""Loading a file: a sealed saved game (continued with its seats), a plain state
(continued with the seats given) or a game record (opened as a replay)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ....engine.rng import secret_seed
from ....errors import SuburbiaError
from ....serialization import game_from_dict
from ..context import AppContext, client_address, replay_answer, tokens_answer
from ..errors import WebError
from ..replays import ReplaySession
from ..requests import LoadIn, SeatIn
from ..sealing import SealError
from ..seats import Seat


def router(context: AppContext) -> APIRouter:
    settings, store, sealer, folders = (context.settings, context.store, context.sealer,
                                        context.folders)
    router = APIRouter()

    @router.post("/api/load", status_code=201)
    def load(body: LoadIn, request: Request):
        """A sealed game (continued with its seats), a plain state (continued with the
        seats given) or a game record (opened as a replay)."""
        data = body.file
        client = client_address(request)
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
                          else context.check_agent(  # game's
                              folders.public_spec(str(s["agent"])), str(payload["mode"])),
                          str(s["label"])) for s in payload["seats"]]
            session = context.new_session(
                client, mode=payload["mode"], players=payload["players"],
                edition=payload["edition"], seed=payload["seed"],
                seed_chosen=payload["seed_chosen"], seats=seats,
                base_state=payload["base_state"], actions=payload["actions"],
                deciders=payload["deciders"], redraws=payload.get("redraws", []),
                undos=payload.get("undos", 0), delay_ms=payload["delay_ms"],
                hints=bool(payload.get("hints", False)),
                hints_used=payload.get("hints_used"),
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
            seats = context.build_seats(config.mode, config.players, seats_in)
            session = context.new_session(
                client, mode=config.mode, players=config.players, edition=config.edition,
                seed=game.seed if game.seed is not None else secret_seed(),
                seed_chosen=True, seats=seats, base_state=game.to_json(),
                delay_ms=settings.default_delay_ms)
            return tokens_answer(session)
        raise WebError(422, "file.format: expected 'suburbia-sealed-game' (a saved game), "
                            "'suburbia-state' or 'suburbia-record'")

    return router
