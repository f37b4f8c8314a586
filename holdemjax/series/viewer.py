"""The series viewer: one self-contained HTML file (standings, the HUD, then every hand step by
step).

`render` fills the Jinja2 template ``templates/viewer.html`` (autoescape on,
`holdemjax.series.html.environment`) with the title, the HUD table (each slot's ``hud`` from the
results, through the shared macro ``templates/hud.html``) and the results and replay documents
as JSON (`embed_json`); everything else (the standings table, the table picture, the step
controls) is plain JavaScript inside the page. The page's CSS and JavaScript are package data
files next to this module (``static/viewer.css``, ``viewer.js``, and the table picture it shares
with the duplicate service's play page, ``felt.css`` and ``felt.js``), read once per process. The
written file loads nothing: no network, no fonts, no images, so it opens offline from disk and
shows the same thing on every machine.

A policy's chat is hostile input. It reaches the page only as JSON data, escaped so that no
string can end the data ``<script>`` element, and the page writes it with ``textContent`` only.
"""

from __future__ import annotations

import functools
import math
import pathlib

import markupsafe

from holdemjax.series import hud as _hud
from holdemjax.series import replay as _replay
from holdemjax.series import results as _results
from holdemjax.series.html import embed_json, environment

__all__ = ["render", "template", "embed_json", "DATA_ELEMENT_ID"]

#: id of the ``<script type="application/json">`` element holding ``{"results", "replay"}``
#: (``static/viewer.js`` reads it by this id).
DATA_ELEMENT_ID = "series-data"


def _check(doc, what: str, schema: str) -> None:
    if not isinstance(doc, dict):
        raise TypeError(f"{what} must be a dict (the {schema} document), got {type(doc).__name__}")
    if doc.get("schema") != schema:
        raise ValueError(f"{what} has schema {doc.get('schema')!r}, expected {schema!r}")


def _non_finite(doc, path: str):
    """(path, value) of the first NaN or infinity inside ``doc``, or None."""
    if isinstance(doc, float) and not math.isfinite(doc):
        return path, doc
    if isinstance(doc, dict):
        items = doc.items()
    elif isinstance(doc, (list, tuple)):
        items = enumerate(doc)
    else:
        return None
    for key, value in items:
        found = _non_finite(value, f"{path}[{key!r}]")
        if found is not None:
            return found
    return None


@functools.cache
def _inline() -> dict[str, markupsafe.Markup]:
    """The page's style and script: the package files of ``static/``, read once per process and
    put in as they are (ours, not data: marked safe, so autoescape leaves them alone)."""
    static = pathlib.Path(__file__).resolve().parent / "static"
    css, felt_css, felt_js, js = (
        (static / name).read_bytes().decode("utf-8")
        for name in ("viewer.css", "felt.css", "felt.js", "viewer.js"))
    return {"style": markupsafe.Markup(css + felt_css), "script": markupsafe.Markup(felt_js + js)}


def _hud_rows(results) -> list[tuple[str, dict]]:
    """(alias, HUD) of every slot whose results have one, in the standings' order (score, then
    slot): the rows of the HUD table."""
    slots = [s for s in (results or {}).get("slots", ()) if isinstance(s.get("hud"), dict)]
    slots.sort(key=lambda s: (-s.get("score", 0), s.get("slot", 0)))
    return [(s.get("alias", ""), s["hud"]) for s in slots]


def _page(title: str, data) -> str:
    return environment("holdemjax.series").get_template("viewer.html").render(
        title=title, data_id=DATA_ELEMENT_ID, data=data,
        hud_rows=_hud_rows(data and data["results"]), hud_columns=_hud.COLUMNS, **_inline())


@functools.cache
def template() -> str:
    """The page with no series in it (no title, ``null`` data): the markup, style and script
    every viewer page shares."""
    return _page("", None)


def render(results: dict, replay: dict) -> str:
    """The viewer page of a series: ``results`` is its `results.summarize` document, ``replay``
    its `replay.replay_document`. Returns the HTML text (write it as UTF-8).

    Raises TypeError/ValueError naming the problem when a document is not of the expected schema
    or the two are of different series.
    """
    _check(results, "results", _results.SCHEMA)
    _check(replay, "replay", _replay.SCHEMA)
    for key in ("variant", "seed"):
        if results.get(key) != replay.get(key):
            raise ValueError(f"results and replay are of different series: {key} "
                             f"{results.get(key)!r} vs {replay.get(key)!r}")
    if not isinstance(replay.get("tournaments"), list):
        raise ValueError("replay['tournaments'] must be a list, got "
                         f"{type(replay.get('tournaments')).__name__}")
    title = f"holdemjax series · {replay.get('variant')} · seed {replay.get('seed')}"
    try:  # the template embeds the data with embed_json (its filter), the one escaping rule
        return _page(title, {"results": results, "replay": replay})
    except ValueError:  # JSON has no NaN or infinity; say where the bad number is
        bad = _non_finite(results, "results") or _non_finite(replay, "replay")
        if bad is None:
            raise
        raise ValueError(f"{bad[0]} is {bad[1]!r}: the viewer embeds JSON, which has no NaN "
                         "or infinity") from None
