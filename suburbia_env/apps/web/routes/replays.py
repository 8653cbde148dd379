"""A replay's routes: open one from a record, step through it, download its record,
delete it, have it reviewed by the search (reviews.py)."""

from __future__ import annotations

from typing import Annotated, Literal

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ..context import AppContext, client_address, json_answer, replay_answer
from ..errors import WebError
from ..replays import ReplaySession
from ..reviews import MAX_CANDIDATES, MAX_SAMPLES
from ..requests import ReplayIn, SessionId, Token
from ..sessions import MAX_DECISIONS


def router(context: AppContext) -> APIRouter:
    store = context.store
    router = APIRouter()

    @router.post("/api/replays", status_code=201)
    def new_replay(body: ReplayIn, request: Request):
        client = client_address(request)
        store.check_room(client)
        replay = ReplaySession(body.record, client)
        store.add(replay)
        return replay_answer(replay)

    @router.get("/api/replays/{replay_id}")
    def replay_view(replay_id: SessionId,
                    step: Annotated[int, Query(ge=0, le=MAX_DECISIONS)] = 0):
        replay: ReplaySession = store.get(replay_id, "replay")
        return json_answer(replay.view(step))

    @router.get("/api/replays/{replay_id}/record")
    def replay_record_download(replay_id: SessionId):
        record = store.get(replay_id, "replay").record
        if record is None:
            raise WebError(409, "this game has no seed-and-moves record (it began from a "
                                "loaded state, or an undo dealt its hidden stacks anew): "
                                "download its state from the game instead")
        return record

    @router.post("/api/replays/{replay_id}/review", status_code=202)
    def start_review(replay_id: SessionId,
                     candidates: Annotated[int | None, Query(ge=1, le=MAX_CANDIDATES)] = None,
                     samples: Annotated[int | None, Query(ge=1, le=MAX_SAMPLES)] = None,
                     seed: Annotated[int | None, Query(ge=0, lt=2**64)] = None):
        """Queue the search's review of a finished game (docs/review.md); poll GET.
        Settings not given: the review kept for this replay, else 4 candidates, 16
        redraws and a random `seed` (the redraws' seed of an earlier review makes it again)."""
        replay: ReplaySession = store.get(replay_id, "replay")
        over = replay.game_at(replay.total).is_over
        answer = context.reviews.start(replay.id, replay.record, over, candidates, samples,
                                       seed)
        return Response(orjson.dumps(answer), status_code=202, media_type="application/json")

    @router.get("/api/replays/{replay_id}/review")
    def review_progress(replay_id: SessionId):
        replay: ReplaySession = store.get(replay_id, "replay")
        return json_answer(context.reviews.answer(replay.id))

    @router.get("/api/replays/{replay_id}/review/{name}")
    def review_file(replay_id: SessionId, name: Literal["decisions.json", "decisions.csv"]):
        """The finished review as `suburbia review` writes it: decisions.json or .csv."""
        replay: ReplaySession = store.get(replay_id, "replay")
        content, media_type = context.reviews.files(replay.id)[name]
        return Response(content, media_type=media_type,
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @router.delete("/api/replays/{replay_id}")
    def delete_replay(replay_id: SessionId, token: Token = None):
        replay: ReplaySession = store.get(replay_id, "replay")
        if not replay.is_maker(token):
            raise WebError(403, "only the maker of this replay can delete it (with the token "
                                "its creation answered)")
        store.remove(replay_id)
        return {"ok": True}

    return router
