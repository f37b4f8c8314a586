"""``holdemjax duplicate serve``: duplicate matches as a web service (FastAPI over the store).

One process holds the store (`store.Store`, the sealed-aware repository: the routes never see a
seed, another line's progress or results before close) and the line service
(`lines.LineService`: the lines being played, one lock per line and no global lock, the
reference lines in a background worker). This module makes the app (`create_app`: the
middleware, the typed errors of `ERRORS`, the routers of `routes`). The JSON API below is what
the pages use, so a bot client can do over HTTP everything a person does in the browser.
Credentials: the operator token (printed by ``serve``; header ``X-Operator``) creates, closes
and enters bots; a door token (share link or invitation: `doors.Doors`) joins; the line key
returned by joining (header ``X-Line-Key``) plays one's own line. Errors are JSON ``{"detail":
...}`` and never a traceback: 403 sealed or a bad credential (`doors.WrongKey`: one answer for
every failed line-key check), 404 an unknown match (`doors.Unknown`: its id only), 409 refused
by the match (`doors.Refused`: closed, full, field closed, a name taken, an action for a
decision not offered now), 413 a body over its cap (`UPLOAD_CAP` for ``/entrants``, `JSON_CAP`
elsewhere: refused from its Content-Length, or once the bytes read pass the cap, never read
whole), 422 a bad value (a malformed name: `names`; a body that is not the route's model, or
not JSON: one sentence saying why; an upload that fails to load: `PolicyLoadError.cause`), 503
when ``max_lines`` lines are already being played (`lines.Busy`) or a closed match's reference
lines are still being played (`lines.Preparing`: its results follow them). The pages answer the
same errors as HTML pages (`pages.error_page`). No read writes: closing at the deadline and the
simultaneous clock are the steward's (`lines.LineService.tick`, started with the app).

=========================================  ==================================================
``POST /api/matches`` (operator)           create: the spec's fields (and ``seed``, else
                                           random); returns id, commitment, share token
``GET /api/matches/{id}``                  status: spec, commitment, state, who took part;
                                           seed and salt once closed; ``references``
                                           (hands done, total) and ``preparing``
``POST /api/matches/{id}/invites`` (op.)   ``{"name"?}`` -> an invitation token
``GET /api/matches/{id}/share`` (op.)      the share link, again (``{"token", "url"}``)
``POST /api/matches/{id}/join``            ``{"token", "name", "browser"?}`` -> ``{"key"}``;
                                           a browser that joined is refused another line
                                           (its signed cookie); a share link admits its cap
``GET /api/matches/{id}/lines/{name}``     the hero's state (`live.LiveLine.state`), with
                                           the offered ``decision``'s id (``"waiting"`` in
                                           a simultaneous match until the hand opens)
``POST .../lines/{name}/act``              ``{"decision", "action", "amount"?}`` -> the next
                                           state (a repeat of the decision just played:
                                           the same answer again, nothing played)
``POST .../lines/{name}/pause``            end this session; the line resumes later
``POST /api/matches/{id}/entrants`` (op.)  a registered bot (``?bot=``), a .wasm body, or a
                                           checkpoint body (``?suffix=.msgpack``, sampled
                                           with ``&sample=true``) plays a whole line
                                           (``?name=``)
``POST /api/matches/{id}/close-field``,    stop joining / close now (operator)
``.../close`` (operator)
``GET /api/matches/{id}/leaderboard``,     after close only (403 while sealed);
``style``, ``review?a=&b=``, ``report``,   ``leaderboard?luck=true`` and ``report?luck=true``
``verify``, ``progress``                   (pages too: ``/m/{id}/report?luck=true``) add
                                           the chips less the luck of the cards
=========================================  ==================================================
"""

from __future__ import annotations

import contextlib
import secrets
import sys

from fastapi import FastAPI, HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from holdemjax.duplicate import pages, routes
from holdemjax.duplicate.doors import Refused, Unknown, WrongKey
from holdemjax.duplicate.entrants import HeroLoaders
from holdemjax.duplicate.lines import IDLE_S, TICK_S, Busy, LineService, Preparing
from holdemjax.duplicate.spec import MatchError
from holdemjax.duplicate.store import Sealed, Store
from holdemjax.series.protocol import MAX_MODULE_BYTES
from holdemjax.series.wasm import PolicyLoadError
from holdemjax.validate import require_int

__all__ = ["create_app", "serve", "ERRORS", "IDLE_S", "UPLOAD_CAP", "JSON_CAP"]

UPLOAD_CAP = MAX_MODULE_BYTES  # 16 MiB: the body of ``/entrants`` (a module or a checkpoint)
JSON_CAP = 64 * 2**10  # 64 KiB: every other body


def _too_large(cap: int, size: int | None = None) -> str:
    what = "the request body" if size is None else f"a request body of {size} bytes"
    return f"{what} is over the {cap}-byte limit of this route"


class _BodyCap:
    """ASGI middleware: a body over its cap (`UPLOAD_CAP` for ``/entrants``, `JSON_CAP`
    elsewhere) is refused with 413 from its Content-Length before anything is read, and a body
    without one (chunked) as soon as the bytes received pass the cap: never read whole."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        cap = UPLOAD_CAP if scope["path"].endswith("/entrants") else JSON_CAP
        length = dict(scope.get("headers", ())).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > cap):
            status, text = ((413, _too_large(cap, int(length))) if length.isdigit()
                            else (400, f"bad Content-Length {length[:40]!r}"))
            return await JSONResponse({"detail": text}, status_code=status)(scope, receive,
                                                                             send)
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > cap:
                    raise HTTPException(413, _too_large(cap))
            return message

        await self.app(scope, counted, send)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _answer(request, detail: str, code: int, **extra):
    """JSON ``{"detail"}`` for the API; an HTML page saying the same for the pages."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": detail, **extra}, status_code=code)
    return HTMLResponse(pages.error_page(code, detail, **extra), status_code=code)


def _refusal(code: int):
    return lambda request, exc: _answer(request, str(exc), code)


def _sealed(request, exc):
    return _answer(request, str(exc), 403, sealed=True)


def _http(request, exc):
    if exc.status_code == 400 and exc.__cause__ is not None:  # FastAPI could not read the body
        return _answer(request, "bad request: " + _unreadable(exc.__cause__), 422)
    return _answer(request, str(exc.detail), exc.status_code)


def _unreadable(cause: BaseException) -> str:
    """Why a body could not be read as JSON, in one sentence."""
    if isinstance(cause, RecursionError):
        return "the body's JSON is nested too deeply to read"
    if isinstance(cause, UnicodeDecodeError):
        return "the body is not UTF-8 text"
    return f"the body could not be read as JSON ({type(cause).__name__})"


def _not_loaded(request, exc):
    return _answer(request, f"the uploaded policy did not load ({exc.stage}): {exc.cause}", 422)


def _malformed(request, exc):
    parts = [_not_json(e) if e["type"] == "json_invalid" else
             f"{'.'.join(str(x) for x in e['loc'] if x != 'body') or 'body'}: {e['msg']} "
             f"(got {_shown(e.get('input'))})" for e in exc.errors()]
    return _answer(request, "bad request: " + "; ".join(parts), 422)


def _not_json(error: dict) -> str:
    """FastAPI's ``json_invalid`` error (its loc: the body and the offset) as one sentence."""
    why = str(error.get("ctx", {}).get("error", "malformed"))
    return f"the body is not JSON: {why[:1].lower()}{why[1:]} at character {error['loc'][-1] + 1}"


#: Typed exceptions -> their answer: the most specific class of an exception picks it (never
#: its text).
ERRORS = {Sealed: _sealed, WrongKey: _refusal(403), Unknown: _refusal(404),
          Busy: _refusal(503), Preparing: _refusal(503), Refused: _refusal(409),
          MatchError: _refusal(409), ValueError: _refusal(422),  # names.BadName among them
          PolicyLoadError: _not_loaded, RequestValidationError: _malformed,
          StarletteHTTPException: _http}


def create_app(path: str, *, operator: str | None = None, max_lines: int = 24,
               hero_loaders: HeroLoaders | None = None, idle_s: float = IDLE_S,
               tick_s: float | None = TICK_S):
    """The FastAPI app over store file ``path``. ``operator``: the operator token (None draws
    one: ``app.state.operator``). ``max_lines``: lines played at once; ``idle_s``: a line
    untouched this long leaves them. ``hero_loaders``: the kinds of upload beyond .wasm
    (`entrants.HeroLoaders`; the ``holdemjax`` command's ``serve`` passes its ``.msgpack``
    checkpoints). ``tick_s``: the steward's period (`lines.LineService.tick`: closing, the
    simultaneous clock), started with the app; None: no steward (tests call ``tick``)."""
    max_lines = require_int("max_lines", max_lines, 1)
    svc = LineService(Store(path), max_lines, hero_loaders, idle_s=idle_s)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if tick_s is not None:
            svc.start(tick_s)
        yield
        svc.close()  # the reference jobs stop after their current hand

    app = FastAPI(title="holdemjax duplicate", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.add_middleware(_BodyCap)
    app.state.operator, app.state.service = operator or secrets.token_urlsafe(18), svc
    for kind, handler in ERRORS.items():
        app.add_exception_handler(kind, handler)
    app.include_router(routes.api)
    app.include_router(routes.web)
    return app


def serve(path: str, *, host: str = "127.0.0.1", port: int = 8765, max_lines: int = 24,
          operator: str | None = None, hero_loaders: HeroLoaders | None = None,
          idle_s: float = IDLE_S) -> int:
    """Run the service until interrupted (uvicorn, one process); prints the URL and the
    operator token."""
    import uvicorn

    # one interpreter runs every request and the reference jobs: a waiting request gets the
    # interpreter's lock after 1 ms of a job's work, not 5 (Python's default)
    sys.setswitchinterval(0.001)
    app = create_app(path, operator=operator, max_lines=max_lines, hero_loaders=hero_loaders,
                     idle_s=idle_s)
    print(f"holdemjax duplicate service: http://{host}:{port}/  (store {path})")
    print(f"operator token: {app.state.operator}  (create, invite, close: paste it on the page)",
          flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
