"""The report of a closed match: one self-contained HTML page (``holdemjax duplicate report``).

The page holds the leaderboard (with head-to-head on divergent hands), the style table and the
review of every pair of the field: pick a pair, open a divergent hand to see the shared history
and both lines side by side, the hands that decided, the lone folds and all-ins, and the streets
where chips were won and lost. It is the Jinja2 template ``templates/report.html``, rendered
with autoescape (`holdemjax.series.html.environment`: every value is escaped; participant names
are user input); it loads nothing from outside and needs script only to switch pairs. The whole
document is also embedded as JSON (``<script type="application/json" id="duplicate-data">``,
`holdemjax.series.html.embed_json`) for programs.
"""

from __future__ import annotations

import functools

import jinja2

from holdemjax.duplicate import review, scores, style
from holdemjax.series import hud
from holdemjax.series.html import environment

__all__ = ["DATA_ELEMENT_ID", "document", "match_luck", "render"]

DATA_ELEMENT_ID = "duplicate-data"


def document(store, match_id: str, luck: bool = False) -> dict:
    """Everything the report shows, as one JSON-ready dict (raises `store.Sealed` while open);
    ``luck``: the leaderboard's rows with their chips less the luck of the cards too
    (`boardluck.hero_luck`: a JAX program, compiled at first use)."""
    m = store.require_closed(match_id)
    lines = store.lines(match_id)
    spec = m.spec
    board = scores.leaderboard(spec, lines, match_luck(store, match_id) if luck else None)
    field = board["field"]
    pairs = [(a, b) for i, a in enumerate(field) for b in field[i + 1:]]
    return {
        "match": {"id": m.id, "spec": spec.as_dict(), "commitment": m.commitment, "seed": m.seed,
                  "salt": m.salt, "created_at": m.created_at, "closed_at": m.closed_at,
                  "close_reason": m.close_reason},
        "leaderboard": board,
        "style": style.style_table(spec, lines),
        "reviews": [review.review(spec, lines, a, b) for a, b in pairs],
    }


@functools.lru_cache(maxsize=64)
def match_luck(store, match_id: str) -> dict:
    """``{line name: {hand: the hero's luck in chips}}`` of a closed match (`Sealed` while
    open; `boardluck.hero_luck`, a JAX program compiled at first use), kept for the 64 matches
    asked last: a closed match never changes, and the service answers every page from it."""
    from holdemjax.duplicate import boardluck

    m = store.require_closed(match_id)
    return boardluck.hero_luck(m.spec, m.seed, store.lines(match_id))


@functools.cache
def _templates() -> jinja2.Environment:
    """The duplicate package's environment (autoescape) with the report's helpers as globals
    (the macros of ``report_parts.html`` see globals, not the page's values)."""
    env = environment("holdemjax.duplicate").overlay()
    # a dict of its own: the overlay shares its parent's otherwise, and the pages need none
    env.globals = {**env.globals, "num": _num, "signed": _signed, "per100": _per100,
                   "streets": review.STREETS, "hud_columns": hud.COLUMNS}
    return env


def _num(x, fmt: str = "{:.2f}", none: str = "–") -> str:
    return none if x is None else fmt.format(x)


def _signed(x) -> str:
    return f"{'+' if x > 0 else ''}{x:g}"


def _per100(score: dict, bb: int) -> str:
    se = None if score["se"] is None else score["se"] * 100 / bb
    return f"{_num(score['bb_per_100'], '{:+.1f}')} ± {_num(se, '{:.1f}')}"


def render(doc: dict) -> str:
    """The report page of `document` ``doc`` (HTML text; write it as UTF-8)."""
    m, spec = doc["match"], doc["match"]["spec"]
    title = f"holdemjax duplicate · match {m['id']}"
    blinds = f"{spec['small_blind']}/{spec['big_blind']}" + (
        f" ante {spec['ante']}" if spec["ante"] else "")
    summary = (f"{spec['seats']} seats, {spec['hands']} hands, blinds {blinds}, "
               f"{spec['stack']} chips every hand, hero seat {spec['hero']}, bots "
               f"{', '.join(spec['bots'])}. Closed {m['closed_at']} ({m['close_reason']}). "
               f"Seed {m['seed']}, salt {m['salt']}, commitment {m['commitment']}.")
    return _templates().get_template("report.html").render(
        doc=doc, title=title, summary=summary, data_id=DATA_ELEMENT_ID)


def _leaderboard(board: dict) -> str:
    """The leaderboard part of the page alone (`scores.leaderboard` ``board``): its macro."""
    return str(_templates().get_template("report_parts.html").module.leaderboard(board))
