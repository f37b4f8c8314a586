"""The service's pages (server-rendered HTML, every value escaped; a little JS from
``static/``, no build step, nothing loaded from the network) and the results it serves after
close (`results`). The pages act through the JSON API of `holdemjax.duplicate.service`."""

from __future__ import annotations

import html
import importlib.resources
import json

from holdemjax.duplicate import match as M
from holdemjax.duplicate import report, scores, style
from holdemjax.duplicate import review as RV
from holdemjax.duplicate.doors import Unknown

__all__ = ["home", "status_page", "join_page", "play_page", "sealed", "refused", "results",
           "result_page", "static_file", "RESULTS"]

RESULTS = ("leaderboard", "style", "review", "report", "verify")
_STATIC = {"play.js": "text/javascript", "duplicate.css": "text/css", "app.js": "text/javascript"}


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _page(title: str, body: str, *, script: str | None = None, data: dict | None = None) -> str:
    blob = ("" if data is None else '<script type="application/json" id="page-data">'
            + json.dumps(data).replace("</", "<\\/") + "</script>")
    js = f'<script src="/static/{script}"></script>' if script not in (None, "app.js") else ""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}'
            '</title><link rel="stylesheet" href="/static/duplicate.css"></head><body>'
            f'<header><a href="/">holdemjax duplicate</a> · {_e(title)}</header><main>{body}'
            f'</main>{blob}<script src="/static/app.js"></script>{js}</body></html>')


def home(matches: list) -> str:
    rows = "".join(f'<li><a href="/m/{_e(i)}">{_e(i)}</a> {_e(s)}</li>' for i, s in matches)
    tiers = ", ".join(M.tier_names())
    form = (
        '<h2>Create a match (operator)</h2><form id="create">'
        '<label>operator token <input name="operator" type="password" required></label>'
        '<label>seats <input name="seats" type="number" value="6" min="2" max="9"></label>'
        '<label>hands <input name="hands" type="number" value="100" min="1"></label>'
        f'<label>bots ({_e(tiers)}) <input name="bots" value="intermediate"></label>'
        '<label>participants <input name="participants" type="number" min="1"></label>'
        '<label>deadline <input name="deadline" placeholder="2030-01-01T18:00Z"></label>'
        '<button type="submit">create</button></form><p id="created"></p>')
    return _page("matches", f'<h2>Matches</h2><ul id="matches">{rows or "<li>none</li>"}</ul>'
                 + form, script="app.js")


def status_page(st: dict) -> str:
    spec = st["spec"]
    closed = st["state"] == "closed"
    who = "".join(f'<li class="participant">{_e(p["name"])}'
                  + (f' · {_e(p["kind"])} · {_e(p["status"])}' if closed else "") + "</li>"
                  for p in st["participants"])
    seed = (f'<p id="seed">seed {st["seed"]} (hex {st["seed_hex"]}), salt {_e(st["salt"])}</p>'
            if closed else '<p id="sealed-note">Sealed: only participation shows until the '
            'match closes.</p>')
    refs = st["references"]
    closing = ("" if not refs else f'<p id="references">reference lines: {refs[0]}/{refs[1]} '
               f'hands{" (playing…)" if st["preparing"] else ""}</p>')
    links = " · ".join(f'<a href="/m/{_e(st["match"])}/{w}" class="result-link" '
                       f'id="link-{w}">{w}</a>' for w in RESULTS)
    ops = ('<div id="operator"><h3>Operator</h3><label>token <input id="op-token" '
           'type="password"></label> <button data-op="invites">invite</button> '
           '<button data-op="close-field">close the field</button> <button data-op="close">'
           'close now</button> <label>bot <input id="op-bot" value="advanced"></label> '
           '<label>name <input id="op-name"></label> <button data-op="entrants">enter the bot'
           '</button> <label>or a file (.wasm, .msgpack checkpoint) <input id="op-wasm" '
           'type="file" accept=".wasm,.msgpack"></label> <label><input id="op-sample" '
           'type="checkbox"> sampled</label><p id="op-out"></p>'
           '</div>') if not closed else ""
    body = (f'<h2>Match {_e(st["match"])}: <span id="state">{_e(st["state"])}</span>'
            f'{" (" + _e(st["close_reason"]) + ")" if closed else ""}</h2>'
            f'<p>{spec["seats"]} seats, {spec["hands"]} hands, blinds {spec["small_blind"]}/'
            f'{spec["big_blind"]}, {spec["stack"]} chips every hand, bots '
            f'{_e(", ".join(spec["bots"]))}</p><p id="commitment">commitment '
            f'{_e(st["commitment"])}</p>{seed}{closing}<h3>Took part</h3><ul>{who}</ul>'
            f'<p>{links}</p>{ops}')
    return _page(f"match {st['match']}", body, script="app.js",
                 data={"match": st["match"], "preparing": st["preparing"]})


def join_page(st: dict, token: str, door: dict) -> str:
    name = door["name"] or ""
    body = (f'<h2>Join match {_e(st["match"])}</h2><p>{st["spec"]["hands"]} hands against the '
            f'bots, the same deals as everyone. Results are sealed until the match closes.</p>'
            f'<form id="join"><label>your name <input name="name" value="{_e(name)}" required '
            'maxlength="64"></label><button type="submit" id="join-button">join and play'
            '</button></form><p id="join-out"></p>')
    return _page(f"join {st['match']}", body, script="app.js",
                 data={"match": st["match"], "token": token})


def play_page(st: dict, name: str) -> str:
    body = (f'<h2>Match {_e(st["match"])} · {_e(name)}</h2><p id="progress"></p>'
            '<div id="table"></div><p id="board"></p><p id="hole"></p><p id="pot"></p>'
            '<div id="actions"></div><ol id="log"></ol><p id="note"></p>')
    return _page(f"play {st['match']}", body, script="play.js",
                 data={"match": st["match"], "name": name, "seats": st["spec"]["seats"],
                       "hero": st["spec"]["hero"], "bots": st["spec"]["bots"]})


def sealed(message: str) -> str:
    return _page("sealed", f'<h2 id="sealed">Sealed</h2><p>{_e(message)}</p>')


def refused(message: str) -> str:
    return _page("refused", f'<h2 id="refused">No way in</h2><p>{_e(message)}</p>')


def results(store, match_id: str, what: str, a: str | None = None, b: str | None = None):
    """A closed match's ``what`` (`RESULTS`) as JSON-ready data (`store.Sealed` while open)."""
    if what not in RESULTS:
        raise Unknown(f"no match result {what!r}; results: {', '.join(RESULTS)}")
    m = store.require_closed(match_id)
    if what == "verify":
        return store.verify(match_id)
    if what == "report":
        return report.document(store, match_id)
    lines = store.lines(match_id)
    if what == "leaderboard":
        return scores.leaderboard(m.spec, lines)
    if what == "style":
        return style.style_table(m.spec, lines)
    field = scores.field_of(lines)[0]
    if a is None or b is None:
        if len(field) < 2:
            raise M.MatchError("only one line: nothing to review")
        a, b = field[0].name, field[1].name
    return RV.review(m.spec, lines, a, b)


def result_page(store, match_id: str, what: str) -> str:
    """The report page (leaderboard, style, review) of a closed match; `Sealed` while open."""
    if what not in RESULTS:
        raise Unknown(f"no match page {what!r}; pages: {', '.join(RESULTS)}")
    if what == "verify":
        r = store.verify(match_id)
        items = "".join(f"<li>{_e(p)}</li>" for p in r["problems"])
        verdict = "verified" if r["ok"] else "NOT verified"
        return _page(f"verify {match_id}", f'<h2 id="verified">{verdict}</h2><p>'
                     f'{r["hands_checked"]} hands checked, {r["hands_replayed"]} replayed with '
                     f'every reference-bot decision.</p><ul>{items}</ul>')
    return report.render(report.document(store, match_id))


def static_file(name: str):
    from fastapi import HTTPException
    from fastapi.responses import Response

    if name not in _STATIC:
        raise HTTPException(404, f"no static file {name!r}")
    data = importlib.resources.files("holdemjax.duplicate").joinpath("static", name)
    return Response(data.read_bytes(), media_type=_STATIC[name])
