"""The page and what it asks first: index.html, the agents and options offered, the
tiles in words."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from ....display.tile_text import tile_catalog
from ..agent_specs import SEARCH_KINDS
from ..context import STATIC, AppContext


def router(context: AppContext) -> APIRouter:
    settings, folders = context.settings, context.folders
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    def index():
        return FileResponse(str(STATIC.joinpath("index.html")), media_type="text/html")

    @router.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return Response(status_code=204)

    @router.get("/api/options")
    def options():
        from agents.styles import STYLES
        found = folders.offered_models()
        checkpoints = folders.offered_checkpoints()
        specs = ["greedy", *STYLES, "dale", "random"] + [f"ppo:{m}" for m in found] + \
            [f"ppo-sample:{m}" for m in found] + [f"ppo-goals:{m}" for m in found] + \
            [f"ppo-rollout:{m}" for m in found] + \
            [f"ppo-search:{m}" for m in found] + [f"rllib:{c}" for c in checkpoints]
        return {"modes": {"dale": {"players": [1]}, "solitary": {"players": [1]},
                          "standard": {"players": [2, 3, 4]}},
                "editions": ["2nd", "1st"], "agents": specs, "models": found,
                "checkpoints": checkpoints,
                "search_kinds": list(SEARCH_KINDS), "default_delay_ms": settings.default_delay_ms,
                "limits": {"max_per_client": settings.limits.max_per_client,
                           "max_body_bytes": settings.limits.max_body_bytes,
                           "idle_minutes": settings.limits.idle_seconds / 60}}

    @router.get("/api/tiles")
    def tiles():
        return {"tiles": tile_catalog()}

    return router
