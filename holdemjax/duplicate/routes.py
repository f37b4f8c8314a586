"""The routes of ``holdemjax duplicate serve``: the JSON API (`api`) and the pages (`web`), each
a small function over the line service (`lines.LineService`, from ``app.state.service``), its
credentials checked by dependencies (`operator_only`, `line_key`). The table of routes and the
statuses are in `holdemjax.duplicate.service`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
import urllib.parse

import anyio
from fastapi import APIRouter, Body, Depends, HTTPException, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict

from holdemjax.duplicate import names, pages
from holdemjax.duplicate.doors import Refused
from holdemjax.duplicate.lines import LineService
from holdemjax.duplicate.spec import MatchSpec, utcnow

__all__ = ["api", "web", "CreateBody", "InviteBody", "JoinBody", "ActBody"]


# ------------------------------------------------------------------------- request bodies
class _Body(BaseModel):
    """A JSON body: unknown fields refused, no silent conversions ("6" is not 6)."""

    model_config = ConfigDict(extra="forbid", strict=True)


_SPEC = {f.name: f.default for f in dataclasses.fields(MatchSpec)}  # its defaults, once


class CreateBody(_Body):
    """``POST /api/matches``: `match.MatchSpec`'s fields (its checks give the 422s, its
    defaults fill what the body leaves out; ``bots`` may be one tier for all, as in the CLI),
    ``seed`` (None: 128 random bits) and ``share_cap`` (the joins its share link admits; None:
    `lines.LineService.create`'s)."""

    seats: int = _SPEC["seats"]
    hands: int = _SPEC["hands"]
    small_blind: int = _SPEC["small_blind"]
    big_blind: int = _SPEC["big_blind"]
    ante: int = _SPEC["ante"]
    stack: int = _SPEC["stack"]
    hero: int = _SPEC["hero"]
    bots: list[str] | str = list(_SPEC["bots"])  # a tier alone: that tier for all
    participants: int | None = _SPEC["participants"]
    deadline: str | None = _SPEC["deadline"]
    simultaneous: bool = _SPEC["simultaneous"]
    clock: int = _SPEC["clock"]
    seed: int | None = None
    share_cap: int | None = None


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


# ---------------------------------------------------------------------------- dependencies
def service(request: Request) -> LineService:
    return request.app.state.service


def operator_only(request: Request) -> None:
    """403 unless header X-Operator holds the operator token (compared in constant time)."""
    given = request.headers.get("x-operator", "")
    if not secrets.compare_digest(hashlib.sha256(given.encode()).digest(),
                                  hashlib.sha256(request.app.state.operator.encode()).digest()):
        raise HTTPException(403, "the operator token is wrong (header X-Operator)" if given
                            else "the operator token is required (header X-Operator)")


def line_key(request: Request) -> str | None:
    return request.headers.get("x-line-key")


Service = Depends(service)
Operator = Depends(operator_only)
Key = Depends(line_key)
api = APIRouter(prefix="/api/matches")
web = APIRouter(default_response_class=HTMLResponse)


# ----------------------------------------------------------------------------- the API
@api.post("", dependencies=[Operator])
def create(body: CreateBody, svc: LineService = Service):
    spec = body.model_dump(exclude={"seed", "share_cap"}, exclude_unset=True)
    m, share = svc.create(MatchSpec.from_dict(spec), body.seed, body.share_cap)
    return {"match": m.id, "state": m.state, "commitment": m.commitment, "share": share,
            "share_url": f"/join/{m.id}/{share}"}


@api.get("")
def match_list(svc: LineService = Service):
    return [{"match": i, "state": svc.store.match(i).state} for i in svc.store.match_ids()]


@api.get("/{match_id}")
def match_status(match_id: str, svc: LineService = Service):
    return svc.status(match_id)


@api.post("/{match_id}/invites", dependencies=[Operator])
def invite(match_id: str, body: InviteBody = Body(default=InviteBody()),  # noqa: B008
           svc: LineService = Service):
    token = svc.store.add_door(match_id, "invite", body.name)
    return {"token": token, "url": f"/join/{match_id}/{token}"}


@api.get("/{match_id}/share", dependencies=[Operator])
def share(match_id: str, svc: LineService = Service):
    """The match's share link, for the operator, every time (`LineService.share_token`)."""
    svc.store.match(match_id)
    token = svc.share_token(match_id)
    return {"token": token, "url": f"/join/{match_id}/{token}"}


def _joined_cookie(match_id: str) -> str:
    return f"dup_joined_{match_id}"


def _play_url(match_id: str, name: str) -> str:
    return f"/m/{match_id}/play/{urllib.parse.quote(name)}"


@api.post("/{match_id}/join")
def join(match_id: str, body: JoinBody, request: Request, response: Response,
         svc: LineService = Service):
    """One line per person: a browser that joined the match through the page (``browser``:
    its signed cookie is set here) is refused a second line, whatever the name, the door or
    the flag of the request (409 naming its line). A client without cookies is held by the
    share link's cap (`doors`)."""
    name = names.normal(body.name)  # the name as the store keeps it (`names`)
    before = svc.joined_as(match_id, request.cookies.get(_joined_cookie(match_id)))
    if before is not None:
        raise Refused(f"this browser already joined match {match_id} as {before!r}: one line "
                      f"per person (yours: {_play_url(match_id, before)})")
    key = svc.store.join_by_door(match_id, body.token, name,
                                 "person" if body.browser else "api", "http", utcnow())
    if body.browser:  # the page's join: this browser has its line now
        response.set_cookie(_joined_cookie(match_id), svc.join_mark(match_id, name),
                            max_age=365 * 86400, httponly=True, samesite="lax")
    return {"match": match_id, "name": name, "key": key, "play_url": _play_url(match_id, name)}


@api.get("/{match_id}/lines/{name}")
def line_state(match_id: str, name: str, key: str | None = Key, svc: LineService = Service):
    return svc.state(match_id, name, key)


@api.post("/{match_id}/lines/{name}/act")
def line_act(match_id: str, name: str, body: ActBody, key: str | None = Key,
             svc: LineService = Service):
    return svc.act(match_id, name, key, body.decision, body.action, body.amount)


@api.post("/{match_id}/lines/{name}/pause")
def line_pause(match_id: str, name: str, key: str | None = Key, svc: LineService = Service):
    return {"status": "paused", "hands_done": svc.pause(match_id, name, key)}


@api.post("/{match_id}/entrants", dependencies=[Operator])
async def entrant(match_id: str, request: Request, name: str, bot: str | None = None,
                  suffix: str | None = None, sample: bool = False,
                  svc: LineService = Service):
    names.require_participant(name)  # the operator's entrants obey the rules for names
    await anyio.to_thread.run_sync(svc.store.check_can_join, match_id, name)  # before the body
    data = await request.body()
    status = await anyio.to_thread.run_sync(  # a whole line: never on the event loop
        svc.entrant, match_id, name, bot, data, suffix, sample)
    return {"name": name, "status": status}


@api.post("/{match_id}/close-field", dependencies=[Operator])
def close_field(match_id: str, svc: LineService = Service):
    svc.store.close_field(match_id)
    return svc.status(match_id)


@api.post("/{match_id}/close", dependencies=[Operator])
def close(match_id: str, svc: LineService = Service):
    svc.close_match(match_id)
    return svc.status(match_id)


@api.get("/{match_id}/{what}")
def results(match_id: str, what: str, a: str | None = None, b: str | None = None,
            luck: bool = False, svc: LineService = Service):
    if what in pages.RESULTS:
        svc.results_ready(match_id)
    return pages.results(svc.store, match_id, what, a, b, luck)


# --------------------------------------------------------------------------- the pages
@web.get("/")
def home(svc: LineService = Service):
    return pages.home([(i, svc.store.match(i).state) for i in svc.store.match_ids()])


@web.get("/m/{match_id}")
def match_page(match_id: str, svc: LineService = Service):
    return pages.status_page(svc.status(match_id))


@web.get("/join/{match_id}/{token}")
def join_page(match_id: str, token: str, request: Request, svc: LineService = Service):
    door = svc.store.door(match_id, token)  # refused: an error page (`service.ERRORS`)
    before = svc.joined_as(match_id, request.cookies.get(_joined_cookie(match_id)))
    if before is not None:
        return HTMLResponse(pages.error_page(
            409, f"This browser already joined match {match_id} as {before!r}: one line per "
            "person.", link=(_play_url(match_id, before), f"your line, {before}")), 409)
    return pages.join_page(svc.status(match_id), token, door)


@web.get("/m/{match_id}/play/{name}")
def play_page(match_id: str, name: str, svc: LineService = Service):
    return pages.play_page(svc.status(match_id), name)


@web.get("/m/{match_id}/{what}")
def result_page(match_id: str, what: str, luck: bool = False, svc: LineService = Service):
    if what in pages.RESULTS:
        svc.results_ready(match_id)
    return pages.result_page(svc.store, match_id, what, luck)


@web.get("/static/{name}")
def static(name: str):
    return pages.static_file(name)
