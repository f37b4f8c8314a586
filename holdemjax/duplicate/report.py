"""The report of a closed match: one self-contained HTML page (``holdemjax duplicate report``).

The page holds the leaderboard (with head-to-head on divergent hands), the style table and the
review of every pair of the field: pick a pair, open a divergent hand to see the shared history
and both lines side by side, the hands that decided, the lone folds and all-ins, and the streets
where chips were won and lost. It is written in Python with every value escaped
(`html.escape`; participant names are user input), loads nothing from outside, and needs
script only to switch pairs. The whole document is also embedded as JSON
(``<script type="application/json" id="duplicate-data">``) for programs.
"""

from __future__ import annotations

import html

from holdemjax.duplicate import review as RV
from holdemjax.duplicate import scores, style
from holdemjax.series.html import embed_json

__all__ = ["DATA_ELEMENT_ID", "document", "render"]

DATA_ELEMENT_ID = "duplicate-data"


def document(store, match_id: str) -> dict:
    """Everything the report shows, as one JSON-ready dict (raises `store.Sealed` while open)."""
    m = store.require_closed(match_id)
    lines = store.lines(match_id)
    spec = m.spec
    board = scores.leaderboard(spec, lines)
    field = board["field"]
    pairs = [(a, b) for i, a in enumerate(field) for b in field[i + 1:]]
    return {
        "match": {"id": m.id, "spec": spec.as_dict(), "commitment": m.commitment, "seed": m.seed,
                  "salt": m.salt, "created_at": m.created_at, "closed_at": m.closed_at,
                  "close_reason": m.close_reason},
        "leaderboard": board,
        "style": style.style_table(spec, lines),
        "reviews": [RV.review(spec, lines, a, b) for a, b in pairs],
    }


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _num(x, fmt: str = "{:.2f}", none: str = "–") -> str:
    return none if x is None else fmt.format(x)


def _signed(x) -> str:
    return f"{'+' if x > 0 else ''}{x:g}"


def _per100(score: dict, bb: int) -> str:
    se = None if score["se"] is None else score["se"] * 100 / bb
    return f"{_num(score['bb_per_100'], '{:+.1f}')} ± {_num(se, '{:.1f}')}"


def _leaderboard(board: dict) -> str:
    bb = board["big_blind"]
    rows = []
    for rank, p in enumerate(board["participants"], 1):
        raw, rel, mp = p["raw"], p["relative"], p["divergent_matchpoints"]
        rows.append(
            f'<tr><td class="num">{rank}</td><td class="name">{_e(p["name"])}</td>'
            f'<td>{_e(p["kind"])}</td><td>{_e(p["status"])}</td><td class="num">{p["hands"]}</td>'
            f'<td class="num raw">{_e(_per100(raw, bb))}</td>'
            f'<td class="num">{_num(raw["z"])}</td>'
            f'<td class="num relative">{_e(_per100(rel, bb))}</td>'
            f'<td class="num rel-z">{_num(rel["z"])}</td>'
            f'<td class="num">{_num(raw["hands_for_2sigma"], "{:,}")} / '
            f'{_num(rel["hands_for_2sigma"], "{:,}")}</td>'
            f'<td class="num mp">{_num(mp["percent"], "{:.1f}%")}</td>'
            f'<td class="num">{_num(mp["z"])}</td></tr>')
    apart = "".join(
        f'<tr><td class="name">{_e(p["name"])}</td><td>{_e(p["kind"])}</td>'
        f'<td class="num">{p["hands"]}</td><td class="num">{_e(_per100(p["raw"], bb))}</td>'
        f'<td class="num">{_e(_per100(p["relative"], bb))}</td></tr>'
        for p in board.get("unfinished", ()))
    unfinished = ('<h3>Unfinished lines (not ranked)</h3><p class="muted">Closed before their '
                  'last hand: their hands count in the field, their totals are not ranked '
                  'against finished lines.</p><table id="unfinished"><thead><tr><th>name</th>'
                  '<th>kind</th><th class="num">hands</th><th class="num">raw bb/100 ± SE</th>'
                  '<th class="num">relative bb/100 ± SE</th></tr></thead>'
                  f'<tbody>{apart}</tbody></table>') if apart else ""
    h2h = "".join(
        f'<tr><td>{_e(h["a"])}</td><td>{_e(h["b"])}</td><td class="num">{h["divergent_hands"]}'
        f' / {h["hands_compared"]}</td><td class="num">{h["a_wins"]} – {h["b_wins"]} – '
        f'{h["ties"]}</td><td class="num">{_signed(h["chips_a_minus_b"])}</td></tr>'
        for h in board["head_to_head"])
    compared = (f' The only participant is compared with <b>{_e(board["compared_with"])}</b>.'
                if board["compared_with"] else "")
    head = board["headline"]
    if head["kind"] == "head_to_head":
        headline = (f'<p id="headline"><b>{_e(head["a"])} vs {_e(head["b"])}: '
                    f'{_num(head["percent"], "{:.1f}%")}</b> matchpoints ± '
                    f'{_num(None if head["se"] is None else 100 * head["se"], "{:.1f}")} over '
                    f'the <b>{head["divergent_hands"]}</b> divergent hands (z '
                    f'{_num(head["z"])}); {head["identical_hands"]} identical hands apart.</p>')
    else:
        headline = (f'<p id="headline"><b>{head["divergent_hands"]}</b> divergent hands '
                    f'({head["identical_hands"]} identical apart). The matchpoints column '
                    f'ranks the divergent hands: {_e(head["note"])}.</p>')
    think = "".join(f'<li>{_e(p["name"])}: {p["thinking"]["decisions"]} decisions, median '
                    f'{_num(p["thinking"]["median_ms"], "{:.0f}")} ms</li>'
                    for p in board["participants"] if p["thinking"]["decisions"])
    headline += (f'<p class="muted">Thinking time ({_e(board["thinking_note"])}):</p>'
                 f'<ul id="thinking">{think}</ul>' if think else "")
    return (headline +
        '<table id="leaderboard"><thead><tr><th class="num">#</th><th>name</th><th>kind</th>'
        '<th>line</th><th class="num">hands</th><th class="num">raw bb/100 ± SE</th>'
        '<th class="num">z</th><th class="num">relative bb/100 ± SE</th><th class="num">z</th>'
        '<th class="num">hands for 2σ raw / rel</th><th class="num">matchpoints (divergent)</th>'
        f'<th class="num">z</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f'{unfinished}<p id="divergent">Divergent hands: <b>{board["divergent_hands"]}</b> of '
        f'{board["hands_compared"]} compared ({board["hands"]} dealt).{compared}</p>'
        '<h3>Head to head</h3><p class="muted">Counts divergent hands only: on identical lines '
        'both won the same chips.</p><table id="h2h"><thead><tr><th>A</th><th>B</th>'
        '<th class="num">divergent / compared</th><th class="num">A wins – B wins – ties</th>'
        f'<th class="num">chips A − B</th></tr></thead><tbody>{h2h}</tbody></table>')


def _style(table: dict) -> str:
    rows = "".join(
        f'<tr><td class="name">{_e(r["name"])}</td><td>{_e(r["kind"])}</td>'
        f'<td class="num">{r["hands"]}</td><td class="num vpip">{_num(r["vpip"], "{:.0f}%")}</td>'
        f'<td class="num pfr">{_num(r["pfr"], "{:.0f}%")}</td>'
        f'<td class="num">{_num(r["three_bet"], "{:.0f}%")} ({r["three_bet_chances"]})</td>'
        f'<td class="num">{_num(r["wtsd"], "{:.0f}%")} ({r["saw_flop"]})</td>'
        f'<td class="num">{_num(r["af"])}</td></tr>' for r in table["rows"])
    return ('<table id="style"><thead><tr><th>line</th><th>kind</th><th class="num">hands</th>'
            '<th class="num">VPIP</th><th class="num">PFR</th><th class="num">3-bet (chances)'
            '</th><th class="num">WTSD (saw flop)</th><th class="num">AF</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>')


def _actions(actions: list, cls: str, street: int = -1) -> str:
    """An ordered list of actions; the first action of each street carries the street's name
    (``street``: the street before the list starts)."""
    items = []
    for a in actions:
        label = ""
        if a["street"] != street:
            street = a["street"]
            label = f'<span class="street">{RV.STREETS[street]}</span> '
        items.append(f"<li>{label}{_e(a['text'])}</li>")
    return f'<ol class="{cls}">{"".join(items)}</ol>'


def _divergence(r: dict, d: dict) -> str:
    board = " ".join(d["board"])
    hero = " ".join(d["hole"])
    last = d["shared"][-1]["street"] if d["shared"] else -1
    head = (f'Hand {d["hand"] + 1} · hero {_e(hero)} · parted {_e(d["street"])} · '
            f'{_e(r["a"])} {_signed(d["a_net"])} / {_e(r["b"])} {_signed(d["b_net"])}')
    return (
        f'<details class="divergence" data-hand="{d["hand"]}"><summary>{head}</summary>'
        f'<p class="muted">board {_e(board)} (button seat {d["button"]})</p>'
        # the shared history folded above the point where the lines part
        f'<details class="shared-history"><summary>Shared history ({len(d["shared"])} '
        f'actions, up to {_e(d["street"])})</summary>{_actions(d["shared"], "shared")}</details>'
        f'<div class="two"><div class="line-a"><h4>{_e(r["a"])}</h4>'
        f'{_actions(d["a_line"], "line", last)}<p class="net">{_signed(d["a_net"])} chips</p>'
        f'</div><div class="line-b"><h4>{_e(r["b"])}</h4>{_actions(d["b_line"], "line", last)}'
        f'<p class="net">{_signed(d["b_net"])} chips</p></div></div></details>')


def _review(i: int, r: dict) -> str:
    h = r["head_to_head"]
    parts = [f'<section class="review" data-pair="{i}"{"" if i == 0 else " hidden"}>',
             f'<p class="review-summary">{_e(r["a"])} vs {_e(r["b"])}: '
             f'<b>{r["divergent_hands"]}</b> divergent hands of {r["hands_compared"]} '
             f'compared; on them {_e(r["a"])} won {h["a_wins"]}, {_e(r["b"])} won '
             f'{h["b_wins"]}, {h["ties"]} tied; chips {_e(r["a"])} − {_e(r["b"])} = '
             f'{_signed(h["chips_a_minus_b"])}.</p>',
             '<h3>Where the lines part</h3><div class="divergences">',
             "".join(_divergence(r, d) for d in r["divergences"]) or "<p>identical lines</p>",
             "</div><h3>Hands that decided (furthest from the field)</h3><div class='two'>"]
    for name in (r["a"], r["b"]):
        rows = "".join(f'<tr><td class="num">{d["hand"] + 1}</td><td class="num">'
                       f'{d["relative"]:+.1f}</td><td class="num">{_signed(d["net"])}</td>'
                       f'<td>{_e(d["decided_on"])}</td></tr>' for d in r["deciding"][name])
        parts.append(f'<div><h4>{_e(name)}</h4><table class="deciding"><thead><tr><th>hand</th>'
                     '<th>vs field</th><th>chips</th><th>decided on</th></tr></thead>'
                     f'<tbody>{rows}</tbody></table></div>')
    parts.append("</div><h3>Alone in folding or going all-in</h3><ul class='alone'>")
    for kind, items in (("folded", r["only_folder"]), ("went all-in", r["only_allin"])):
        parts += [f'<li>hand {d["hand"] + 1}: only {_e(d["who"])} {kind} '
                  f'({_e(r["a"])} {_signed(d["a_net"])}, {_e(r["b"])} {_signed(d["b_net"])})</li>'
                  for d in items]
    parts.append("</ul><h3>Chips won and lost by the street the hand was decided on</h3>"
                 "<table class='streets'><thead><tr><th>line</th>")
    parts += [f"<th class='num'>{s}</th>" for s in RV.STREETS]
    parts.append("</tr></thead><tbody>")
    for name in (r["a"], r["b"]):
        cells = "".join(f'<td class="num">+{c["won"]} / −{c["lost"]} ({c["hands"]})</td>'
                        for c in r["streets"][name].values())
        parts.append(f"<tr><td>{_e(name)}</td>{cells}</tr>")
    parts.append("</tbody></table></section>")
    return "".join(parts)


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
    options = "".join(f'<option value="{i}">{_e(r["a"])} vs {_e(r["b"])}</option>'
                      for i, r in enumerate(doc["reviews"]))
    reviews = "".join(_review(i, r) for i, r in enumerate(doc["reviews"]))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>
<style>{_CSS}</style></head><body>
<header><h1>{_e(title)}</h1><p id="summary" class="muted">{_e(summary)}</p></header>
<section><h2>Leaderboard</h2>{_leaderboard(doc["leaderboard"])}</section>
<section><h2>Style on the identical deals</h2>{_style(doc["style"])}</section>
<section><h2>Review</h2><p><label>pair <select id="pair">{options}</select></label></p>
{reviews or "<p>only one line: nothing to compare</p>"}</section>
<script type="application/json" id="{DATA_ELEMENT_ID}">{embed_json(doc)}</script>
<script>
document.getElementById("pair").addEventListener("change", function (e) {{
  document.querySelectorAll("section.review").forEach(function (s) {{
    s.hidden = s.dataset.pair !== e.target.value; }});
}});
</script></body></html>
"""


_CSS = """
body { margin: 0; font: 14px/1.4 system-ui, "DejaVu Sans", sans-serif; color: #1d2733;
       background: #eef1f4; }
header, section { max-width: 1180px; margin: 0 auto; padding: 10px 20px; }
h1 { font-size: 20px; } h2 { font-size: 17px; } h3 { font-size: 15px; } h4 { margin: 6px 0; }
.muted { color: #66717d; }
table { border-collapse: collapse; background: #fff; margin: 6px 0; }
th, td { padding: 4px 9px; border-bottom: 1px solid #e3e7eb; text-align: left; }
th { background: #27313c; color: #fff; font-size: 12px; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
details.divergence { background: #fff; margin: 4px 0; padding: 4px 10px; border-radius: 6px; }
summary { cursor: pointer; }
.two { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.line-a { border-left: 4px solid #2e7d4f; padding-left: 8px; }
.line-b { border-left: 4px solid #b3261e; padding-left: 8px; }
ol.shared { color: #555; }
.street { font-size: 11px; text-transform: uppercase; color: #66717d; margin-right: 4px; }
"""
