"""The service's pages, rendered from Jinja2 templates (``templates/``, autoescaped: every
value a participant or the operator typed is escaped) with a little JS from ``static/`` (no
build step, nothing loaded from the network); the play page draws the table with the series
viewer's own code (``holdemjax/series/static/felt.js`` and ``felt.css``, served here under
``/static/``). Also the results it serves after close (`results`). The pages act through the
JSON API of `holdemjax.duplicate.service`; an error on a page is a page too (`error_page`)."""

from __future__ import annotations

import importlib.resources

from holdemjax.duplicate import report, review, scores, style, verify
from holdemjax.duplicate.doors import Unknown
from holdemjax.duplicate.spec import MatchError, tier_names
from holdemjax.series.html import environment

__all__ = ["home", "status_page", "join_page", "play_page", "error_page", "results",
           "result_page", "static_file", "RESULTS"]

RESULTS = ("leaderboard", "style", "review", "report", "verify")
# name -> (package, media type): the service's own files, and the table drawing it shares
# with the series viewer
_STATIC = {"play.js": ("holdemjax.duplicate", "text/javascript"),
           "duplicate.css": ("holdemjax.duplicate", "text/css"),
           "app.js": ("holdemjax.duplicate", "text/javascript"),
           "felt.js": ("holdemjax.series", "text/javascript"),
           "felt.css": ("holdemjax.series", "text/css")}
_HEADINGS = {403: ("refused", "Not allowed"), 404: ("missing", "Not found"),
             409: ("refused", "No way in"), 413: ("refused", "Too large"),
             422: ("refused", "Not understood"), 503: ("busy", "Busy: try again shortly")}


def _render(template: str, title: str, data: dict | None = None, **values) -> str:
    # the series' environment helper: autoescape, and its filter embed_json for page data
    return environment("holdemjax.duplicate").get_template(template).render(
        title=title, data=data, **values)


def home(matches: list) -> str:
    return _render("home.html", "matches", matches=matches, tiers=tier_names())


def status_page(st: dict) -> str:
    closed = st["state"] == "closed"
    return _render("status.html", f"match {st['match']}", st=st, closed=closed,
                   results=RESULTS,
                   data={"match": st["match"], "preparing": st["preparing"]})


def join_page(st: dict, token: str, door: dict) -> str:
    return _render("join.html", f"join {st['match']}", st=st, name=door["name"] or "",
                   data={"match": st["match"], "token": token})


def play_page(st: dict, name: str) -> str:
    spec = st["spec"]
    return _render("play.html", f"play {st['match']}", st=st, name=name,
                   data={"match": st["match"], "name": name, "seats": spec["seats"],
                         "hero": spec["hero"], "bots": spec["bots"],
                         "simultaneous": spec["simultaneous"]})


def error_page(status: int, message: str, *, sealed: bool = False,
               link: tuple[str, str] | None = None) -> str:
    """The page of a refused request (what the API answers as JSON ``{"detail"}``);
    ``link``: (address, words) of where to go instead (default: the matches)."""
    anchor, heading = ("sealed", "Sealed") if sealed else _HEADINGS.get(
        status, ("refused", "Refused"))
    return _render("message.html", heading.lower(), anchor=anchor, heading=heading,
                   message=message, link=link or ("/", "the matches"))


def results(store, match_id: str, what: str, a: str | None = None, b: str | None = None,
            luck: bool = False):
    """A closed match's ``what`` (`RESULTS`) as JSON-ready data (`store.Sealed` while open);
    ``luck``: the leaderboard's rows (in ``leaderboard`` and ``report``) with their chips less
    the luck of the cards too (`report.match_luck`)."""
    if what not in RESULTS:
        raise Unknown(f"no match result {what!r}; results: {', '.join(RESULTS)}")
    m = store.require_closed(match_id)
    if what == "verify":  # anyone may ask: replayed once per match, then kept in the store
        return verify.kept(store, match_id)
    if what == "report":
        return report.document(store, match_id, luck=luck)
    lines = store.lines(match_id)
    if what == "leaderboard":
        return scores.leaderboard(m.spec, lines,
                                  report.match_luck(store, match_id) if luck else None)
    if what == "style":
        return style.style_table(m.spec, lines)
    field = scores.field_of(lines)[0]
    if a is None or b is None:
        if len(field) < 2:
            raise MatchError("only one line: nothing to review")
        a, b = field[0].name, field[1].name
    return review.review(m.spec, lines, a, b)


def result_page(store, match_id: str, what: str, luck: bool = False) -> str:
    """The report page (leaderboard, style, review) of a closed match, ``luck``: with the
    leaderboard's chips less the luck too; `Sealed` while open."""
    if what not in RESULTS:
        raise Unknown(f"no match page {what!r}; pages: {', '.join(RESULTS)}")
    if what == "verify":
        return _render("verify.html", f"verify {match_id}", r=verify.kept(store, match_id))
    return report.render(report.document(store, match_id, luck=luck))


def static_file(name: str):
    from fastapi import HTTPException
    from fastapi.responses import Response

    if name not in _STATIC:
        raise HTTPException(404, f"no static file {name!r}")
    package, media = _STATIC[name]
    data = importlib.resources.files(package).joinpath("static", name)
    return Response(data.read_bytes(), media_type=media)
