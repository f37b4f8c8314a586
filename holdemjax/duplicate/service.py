"""``holdemjax duplicate serve``: duplicate matches as a web service (FastAPI over the store).

One process holds the store (`store.Store`, the sealed-aware repository: the routes never see
a seed, another line's progress or results before close) and the lines being played
(`live.LiveLine`). The JSON API below is what the pages use, so a bot client can do over HTTP
everything a person does in the browser. Credentials: the operator token (printed by
``serve``; header ``X-Operator``) creates, closes and enters bots; a door token (share link or
invitation: `doors.Doors`) joins; the line key returned by joining (header ``X-Line-Key``)
plays one's own line. Errors are JSON ``{"detail": ...}`` and never a traceback: 403 sealed
or a bad credential (`doors.WrongKey`: one answer for every failed line-key check), 404 an
unknown match (`doors.Unknown`: its id only), 409 refused by the match (`doors.Refused`:
closed, full, field closed, a name taken, an action for a decision not offered now), 413 a body
over its cap (`UPLOAD_CAP` for ``/entrants``, `JSON_CAP` elsewhere: refused from its
Content-Length, or once the bytes read pass the cap, never read whole), 422 a bad value (a
malformed name: `names`; a body that is not the route's model; an upload that fails to load:
`PolicyLoadError.cause`), 503 when ``max_lines`` lines are already being played.

=========================================  ==================================================
``POST /api/matches`` (operator)           create: the spec's fields (and ``seed``, else
                                           random); returns id, commitment, share token
``GET /api/matches/{id}``                  status: spec, commitment, state, who took part;
                                           seed and salt once closed
``POST /api/matches/{id}/invites`` (op.)   ``{"name"?}`` -> an invitation token
``POST /api/matches/{id}/join``            ``{"token", "name"}`` -> ``{"key"}``
``GET /api/matches/{id}/lines/{name}``     the hero's state (`live.LiveLine.state`), with
                                           the offered ``decision``'s id
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
``GET /api/matches/{id}/leaderboard``,     after close only (403 while sealed)
``style``, ``review?a=&b=``, ``report``,
``verify``, ``progress``
=========================================  ==================================================
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import urllib.parse

import anyio
from fastapi import Body, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict

from holdemjax.duplicate import match as M
from holdemjax.duplicate import names, pages
from holdemjax.duplicate.doors import Refused, Unknown, WrongKey
from holdemjax.duplicate.live import LiveLine
from holdemjax.duplicate.store import Sealed, Store
from holdemjax.series.protocol import MAX_MODULE_BYTES
from holdemjax.series.wasm import PolicyLoadError
from holdemjax.validate import require_int

__all__ = ["create_app", "serve", "IDLE_S", "UPLOAD_CAP", "JSON_CAP"]

IDLE_S = 15 * 60  # a line nobody touched for this long leaves the cap of lines in play
UPLOAD_CAP = MAX_MODULE_BYTES  # 16 MiB: the body of ``/entrants`` (a module or a checkpoint)
JSON_CAP = 64 * 2**10  # 64 KiB: every other body


# ------------------------------------------------------------------------- request bodies
class _Body(BaseModel):
    """A JSON body: unknown fields refused, no silent conversions ("6" is not 6)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CreateBody(_Body):
    """``POST /api/matches``: `match.MatchSpec`'s fields (its checks give the 422s) and
    ``seed`` (None: 128 random bits)."""

    seats: int = 6
    hands: int = 100
    small_blind: int = 10
    big_blind: int = 20
    ante: int = 0
    stack: int = 2000
    hero: int = 0
    bots: list[str] = []
    participants: int | None = None
    deadline: str | None = None
    seed: int | None = None


class InviteBody(_Body):
    name: str | None = None


class JoinBody(_Body):
    token: str
    name: str
    browser: bool = False


class ActBody(_Body):
    """``decision``: the id of the decision the state offered (required)."""

    decision: int
    action: str
    amount: int = 0


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


class _Service:
    """The store, its lock (one connection, one request at a time in it) and the live lines."""

    def __init__(self, path: str, operator: str, max_lines: int):
        self.path = path
        self.store = Store(path)
        self.jobs: dict[str, threading.Thread] = {}
        self.lock = threading.RLock()
        self.operator, self.max_lines = operator, max_lines
        self.live: dict[tuple[str, str], tuple[LiveLine, float]] = {}
        self.progress: dict[str, tuple[int, int]] = {}  # match -> reference hands done/total
        # (match, name) -> (the decision last played, the answer given): a repeat gets it again
        self.answers: dict[tuple[str, str], tuple[int, dict]] = {}

    def start_references(self, match_id: str) -> None:
        """Play the reference lines in the background, on a connection of their own; the
        status shows their progress (the long part of creating a long match)."""
        def run():
            with Store(self.path) as own:
                own.play_references(match_id, progress=lambda done, total: self.progress
                                    .__setitem__(match_id, (done, total)))

        job = self.jobs[match_id] = threading.Thread(target=run, daemon=True)
        job.start()

    def ready(self, match_id: str) -> None:
        """Wait for the match's reference lines (before anything that may close it)."""
        job = self.jobs.get(match_id)
        if job is not None:
            job.join()
            self.jobs.pop(match_id, None)

    def preparing(self, match_id: str) -> bool:
        job = self.jobs.get(match_id)
        return job is not None and job.is_alive()

    def check_key(self, match_id: str, name: str, key: str | None) -> None:
        """`doors.WrongKey` unless ``key`` opens ``name``'s line: the same answer whether the
        line is being played, paused, never opened, finished, or there is no such name."""
        if not self.store._authorized(match_id, name, key):
            raise WrongKey.of(match_id, name)

    def line(self, match_id: str, name: str, key: str | None) -> LiveLine:
        self.ready(match_id)
        self.check_key(match_id, name, key)  # first: the cap below must not tell who plays
        now = time.monotonic()
        found = self.live.get((match_id, name))
        if found is not None:
            live, _ = found
        else:
            for k, (_, seen) in list(self.live.items()):
                if now - seen > IDLE_S:
                    del self.live[k]
            if len(self.live) >= self.max_lines:
                raise HTTPException(503, f"{self.max_lines} lines are being played: try again "
                                    "when one pauses or ends")
            live = LiveLine(self.store, match_id, name, key or "")
        self.live[(match_id, name)] = (live, now)
        return live

    def done(self, live: LiveLine, state: dict) -> dict:
        if state["status"] != "decision":
            self.live.pop((live.match_id, live.name), None)
        return state


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def create_app(path: str, *, operator: str | None = None, max_lines: int = 24):
    """The FastAPI app over store file ``path``. ``operator``: the operator token (None draws
    one: ``app.state.operator``). ``max_lines``: lines played at once."""
    max_lines = require_int("max_lines", max_lines, 1)
    svc = _Service(path, operator or secrets.token_urlsafe(18), max_lines)
    app = FastAPI(title="holdemjax duplicate", docs_url=None, redoc_url=None)
    app.add_middleware(_BodyCap)
    app.state.operator, app.state.service = svc.operator, svc

    def refusal(code: int):
        return lambda request, exc: JSONResponse({"detail": str(exc)}, status_code=code)

    @app.exception_handler(Sealed)
    def _sealed(request, exc):
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": str(exc), "sealed": True}, status_code=403)
        return HTMLResponse(pages.sealed(str(exc)), status_code=403)

    # by type, never by the text: the most specific class of the exception picks its status
    app.add_exception_handler(WrongKey, refusal(403))
    app.add_exception_handler(Unknown, refusal(404))
    app.add_exception_handler(Refused, refusal(409))
    app.add_exception_handler(M.MatchError, refusal(409))
    app.add_exception_handler(ValueError, refusal(422))  # names.BadName among them

    @app.exception_handler(PolicyLoadError)
    def _not_loaded(request, exc):
        return JSONResponse({"detail": f"the uploaded policy did not load ({exc.stage}): "
                             f"{exc.cause}"}, status_code=422)

    @app.exception_handler(RequestValidationError)
    def _malformed(request, exc):
        parts = [f"{'.'.join(str(x) for x in e['loc'] if x != 'body') or 'body'}: {e['msg']} "
                 f"(got {_shown(e.get('input'))})" for e in exc.errors()]
        return JSONResponse({"detail": "bad request: " + "; ".join(parts)}, status_code=422)

    def operator_only(request: Request) -> None:
        given = request.headers.get("x-operator", "")
        if not secrets.compare_digest(hashlib.sha256(given.encode()).digest(),
                                      hashlib.sha256(svc.operator.encode()).digest()):
            raise HTTPException(403, "the operator token is required (header X-Operator)")

    def status(match_id: str) -> dict:
        preparing = svc.preparing(match_id)
        m = svc.store.match(match_id)
        state = m.state if preparing else svc.store.refresh(match_id)
        m = svc.store.match(match_id)
        return {"match": m.id, "state": state, "spec": m.spec.as_dict(),
                "commitment": m.commitment, "created_at": m.created_at,
                "closed_at": m.closed_at, "close_reason": m.close_reason,
                "field_closed": m.field_closed, "seed": m.seed, "salt": m.salt,
                "seed_hex": None if m.seed is None else f"{m.seed:032x}",
                "versions": m.versions, "references": svc.progress.get(match_id),
                "preparing": preparing,
                "participants": [{"name": p.name, "kind": p.kind, "status": p.status}
                                 for p in svc.store.participants(match_id)]}

    # ---------------------------------------------------------------------------- the API
    @app.post("/api/matches")
    def create(request: Request, body: CreateBody):
        operator_only(request)
        with svc.lock:
            spec = body.model_dump(exclude={"seed"}, exclude_unset=True)
            m = svc.store.create_match(M.MatchSpec.from_dict(spec), body.seed)
            share = svc.store.add_door(m.id, "share")
        svc.start_references(m.id)
        return {"match": m.id, "commitment": m.commitment, "share": share,
                "share_url": f"/join/{m.id}/{share}"}

    @app.get("/api/matches")
    def match_list():
        with svc.lock:
            return [{"match": i, "state": svc.store.match(i).state}
                    for i in svc.store.match_ids()]

    @app.get("/api/matches/{match_id}")
    def match_status(match_id: str):
        with svc.lock:
            return status(match_id)

    @app.post("/api/matches/{match_id}/invites")
    def invite(match_id: str, request: Request,
               body: InviteBody = Body(default=InviteBody())):  # noqa: B008
        operator_only(request)
        with svc.lock:
            token = svc.store.add_door(match_id, "invite", body.name)
        return {"token": token, "url": f"/join/{match_id}/{token}"}

    @app.post("/api/matches/{match_id}/join")
    def join(match_id: str, body: JoinBody):
        name = names.normal(body.name)  # the name as the store keeps it (`names`)
        with svc.lock:
            key = svc.store.join_by_door(match_id, body.token, name,
                                         "person" if body.browser else "api", "http",
                                         M.utcnow())
        return {"match": match_id, "name": name, "key": key,
                "play_url": f"/m/{match_id}/play/{urllib.parse.quote(name)}"}

    @app.get("/api/matches/{match_id}/lines/{name}")
    def line_state(match_id: str, name: str, request: Request):
        with svc.lock:
            live = svc.line(match_id, name, request.headers.get("x-line-key"))
            return svc.done(live, live.state())

    @app.post("/api/matches/{match_id}/lines/{name}/act")
    def line_act(match_id: str, name: str, request: Request, body: ActBody):
        with svc.lock:
            key = request.headers.get("x-line-key")
            svc.check_key(match_id, name, key)
            last = svc.answers.get((match_id, name))
            if last is not None and last[0] == body.decision:
                return last[1]  # a repeat (a retry, a double click): nothing more is played
            live = svc.line(match_id, name, key)
            if live.hand is None:
                live.state()
            answer = svc.done(live, live.act(body.action, body.amount, body.decision))
            svc.answers[(match_id, name)] = (body.decision, answer)
            return answer

    @app.post("/api/matches/{match_id}/lines/{name}/pause")
    def line_pause(match_id: str, name: str, request: Request):
        with svc.lock:
            key = request.headers.get("x-line-key")
            svc.check_key(match_id, name, key)
            done, _ = svc.store.progress(match_id, name, key)
            svc.live.pop((match_id, name), None)
        return {"status": "paused", "hands_done": done}

    @app.post("/api/matches/{match_id}/entrants")
    async def entrant(match_id: str, request: Request, name: str, bot: str | None = None,
                      suffix: str | None = None, sample: bool = False):
        operator_only(request)
        if names.normal(name) != name:  # the operator's entrants obey the rules for names
            raise names.BadName(f"participant name {name!r} is not in its normal form: write "
                                f"{names.normal(name)!r}")
        svc.ready(match_id)
        with svc.lock:
            svc.store.check_can_join(match_id, name)  # before the body is read
        data = await request.body()

        def run():  # in a worker thread: a whole line must not block the event loop
            with svc.lock:
                return pages.play_entrant(svc.store, match_id, name, bot, data, suffix,
                                          sample)

        return {"name": name, "status": await anyio.to_thread.run_sync(run)}

    @app.post("/api/matches/{match_id}/close-field")
    def close_field(match_id: str, request: Request):
        operator_only(request)
        svc.ready(match_id)
        with svc.lock:
            svc.store.close_field(match_id)
            return status(match_id)

    @app.post("/api/matches/{match_id}/close")
    def close(match_id: str, request: Request):
        operator_only(request)
        svc.ready(match_id)
        with svc.lock:
            svc.store.close_match(match_id, "closed", progress=lambda d, t: svc.progress
                                  .__setitem__(match_id, (d, t)))
            return status(match_id)

    @app.get("/api/matches/{match_id}/{what}")
    def results(match_id: str, what: str, a: str | None = None, b: str | None = None):
        with svc.lock:
            return pages.results(svc.store, match_id, what, a, b)

    # -------------------------------------------------------------------------- the pages
    @app.get("/", response_class=HTMLResponse)
    def home():
        with svc.lock:
            return pages.home([(i, svc.store.match(i).state) for i in svc.store.match_ids()])

    @app.get("/m/{match_id}", response_class=HTMLResponse)
    def match_page(match_id: str):
        with svc.lock:
            return pages.status_page(status(match_id))

    @app.get("/join/{match_id}/{token}", response_class=HTMLResponse)
    def join_page(match_id: str, token: str):
        with svc.lock:
            try:
                door = svc.store.door(match_id, token)
            except M.MatchError as exc:
                return HTMLResponse(pages.refused(str(exc)), status_code=409)
            return pages.join_page(status(match_id), token, door)

    @app.get("/m/{match_id}/play/{name}", response_class=HTMLResponse)
    def play_page(match_id: str, name: str):
        with svc.lock:
            return pages.play_page(status(match_id), name)

    @app.get("/m/{match_id}/{what}", response_class=HTMLResponse)
    def result_page(match_id: str, what: str):
        with svc.lock:
            return pages.result_page(svc.store, match_id, what)

    @app.get("/static/{name}")
    def static(name: str):
        return pages.static_file(name)

    return app


def serve(path: str, *, host: str = "127.0.0.1", port: int = 8765, max_lines: int = 24,
          operator: str | None = None) -> int:
    """Run the service until interrupted (uvicorn, one process); prints the URL and the
    operator token."""
    import uvicorn

    app = create_app(path, operator=operator, max_lines=max_lines)
    print(f"holdemjax duplicate service: http://{host}:{port}/  (store {path})")
    print(f"operator token: {app.state.operator}  (create, invite, close: paste it on the page)",
          flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
