"""The pre-flop explorer's page: a local FastAPI app over one `Explorer` (the duplicate
service's stack: Jinja2 with autoescape from `holdemjax.series.html`, the viewer's felt CSS).

``GET /`` is the page (its first grid computed into it; a bad query is a 422 page with the
sentence), ``GET /api/grid`` the same grid as JSON (a bad query is a 422 ``{"detail"}``), and
``/static/`` the page's script and styles. Query: ``stack``, ``level``, ``players``,
``actions`` (comma-separated menu names), ``position`` (optional: fold to it). The drills'
page and API (``/drill``, ``/api/drill/...``) are `training.drill_page`'s.
"""

from __future__ import annotations

import importlib.resources

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from holdemjax.series.html import environment
from holdemjax.training.drill_page import add_routes as add_drill_routes
from holdemjax.training.explore import MAX_DEPTH, ExploreError, Explorer, Grid, Stage, positions
from holdemjax.training.preflop_grid import RANKS, cell_class, cell_label

__all__ = ["create_app", "grid_document", "serve"]

_STATIC = {"explore.js": ("holdemjax.training", "text/javascript"),
           "explore.css": ("holdemjax.training", "text/css"),
           "drill.js": ("holdemjax.training", "text/javascript"),
           "felt.css": ("holdemjax.series", "text/css")}


def _number(name: str, text: str | None, default: int) -> int:
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise ExploreError(f"{name} must be a whole number, got {text!r}") from None


def parse_query(query, default: Stage) -> tuple[Stage, list[str], str | None]:
    """(stage, actions, position) of a page or API query; `ExploreError` for bad values."""
    stage = Stage(_number("stack", query.get("stack"), default.stack_bb),
                  _number("level", query.get("level"), default.level),
                  _number("players", query.get("players"), default.players))
    actions = [a for a in (query.get("actions") or "").split(",") if a.strip()]
    return stage, actions, query.get("position") or None


def grid_document(explorer: Explorer, grid: Grid, stage: Stage, actions) -> dict:
    """What the page draws: the cells (label, class shares over the menu, the deciding seat's
    own weight), the line with each earlier actor's range, what may be done next."""
    line = grid.line
    bb = line.big_blind
    cells = [[{"label": cell_label(r, c), "shares": [round(float(x), 4) for x in
                                                     grid.shares[cell_class(r, c)]],
               "reach": round(float(grid.reach[cell_class(r, c)]), 4)} for c in range(13)]
             for r in range(13)]
    ranges = [[[round(float(grid.ranges[i, cell_class(r, c)]), 4) for c in range(13)]
               for r in range(13)] for i in range(len(line.steps))]
    return {
        "policy": explorer.policy.name, "description": explorer.policy.description,
        "exact": grid.exact, "samples": grid.samples,
        "stage": {"stack": stage.stack_bb, "level": stage.level, "players": stage.players},
        "positions": list(positions(stage.players)), "menu": list(explorer.names),
        "actions": [s.action for s in line.steps], "given": list(actions),
        "steps": [{"position": s.position, "action": s.action, "raise_to_bb": s.raise_to / bb,
                   "range": ranges[i]} for i, s in enumerate(line.steps)],
        "position": line.position, "pot_bb": line.pot / bb, "big_blind": bb,
        "legal": {name: amount / bb for name, amount in line.legal.items()},
        "cells": cells, "ranks": RANKS, "max_depth": MAX_DEPTH,
        "seconds": grid.seconds, "compiled": grid.compiled,
        "states": (MAX_DEPTH + 1) * 1326,
    }


def _render(document: dict | None, error: str | None, explorer: Explorer) -> str:
    env = environment("holdemjax.training")
    return env.get_template("explore.html").render(
        title=f"explore {explorer.policy.name}", data=document, error=error,
        policy=explorer.policy)


def create_app(explorer: Explorer, stage: Stage | None = None, drill=None):
    """The explorer's FastAPI app; ``stage``: the page's stage when the query names none
    (default: `Stage()`, a tournament's start); ``drill``: a `training.drills.Drill` served
    at ``/drill`` (`training.drill_page`)."""
    stage = (stage or Stage()).check(explorer.env)
    app = FastAPI(title="holdemjax explore")
    add_drill_routes(app, drill)

    def compute(request: Request):
        at, actions, position = parse_query(request.query_params, stage)
        return grid_document(explorer, explorer.grid(at, actions, position), at, actions)

    @app.get("/", response_class=HTMLResponse)
    def page(request: Request):
        try:
            return HTMLResponse(_render(compute(request), None, explorer))
        except ExploreError as err:
            return HTMLResponse(_render(None, str(err), explorer), status_code=422)

    @app.get("/api/grid")
    def api_grid(request: Request):
        try:
            return compute(request)
        except ExploreError as err:
            return JSONResponse({"detail": str(err)}, status_code=422)

    @app.get("/static/{name}")
    def static(name: str):
        if name not in _STATIC:
            raise HTTPException(404, f"no static file {name!r}")
        package, media = _STATIC[name]
        data = importlib.resources.files(package).joinpath("static", name)
        return Response(data.read_bytes(), media_type=media)

    return app


def serve(explorer: Explorer, stage: Stage, *, host: str = "127.0.0.1", port: int = 8052,
          announce=print, drill=None) -> int:
    """Run the page with uvicorn until interrupted (``drill``: served at ``/drill``)."""
    import uvicorn

    app = create_app(explorer, stage, drill)
    where = f"http://{host}:{port}/" + ("drill" if drill is not None else "")
    announce(f"holdemjax explore: {explorer.policy.name} on {where} (Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0

