"""``leaderboard.html``: the leaderboard as one self-contained page (no script, no network).

Rendered from ``templates/leaderboard.html`` by the project's one templating scheme
(`holdemjax.series.html.environment`: Jinja2, every value autoescaped; bot names come from file
names). Each series links to its viewer (``series/NNNN/viewer.html``, next to it). Under each
stage's board, the bots' HUD (the series' shared macro ``hud.html``, rows in rank order).
"""

from __future__ import annotations

from holdemjax.series import hud
from holdemjax.series.html import environment
from holdemjax.series.results import fault_text

__all__ = ["render"]

_CSS = """body{font:14px system-ui,sans-serif;margin:24px;color:#1b1b1b;background:#fafafa}
table{border-collapse:collapse;margin:8px 0 24px}th,td{padding:4px 10px;border-bottom:1px solid
#ddd;text-align:right}th{background:#eef2f5}td.l,th.l{text-align:left}.bad{color:#b00020}
.ok{color:#1b7f3b}h1{font-size:20px}h2{font-size:17px;margin-top:28px}small{color:#666}"""


def _cells(r: dict, places: list[str], lucky: bool) -> list[tuple[object, str]]:
    """One leaderboard row: (text, css class) per column (``lucky``: the luck's columns too)."""
    faults = "-" if not r["faults"] else "; ".join(
        f"series {f['series']} t{f['faulted_at']}: {fault_text(f)}" for f in r["faults"])
    return [(r["rank"], ""), (r["bot"], "l"), (f"{r['mean']:.4f}", ""),
            (f"{r['stderr']:.4f}", ""),
            *([(f"{r['luck']['mean']:.4f}", ""), (f"{r['luck']['stderr']:.4f}", "")]
              if lucky else []),
            (r["games"], ""), (r["series"], ""),
            *[(r["places"][p], "") for p in places], (faults, "bad" if r["faults"] else ""),
            (r["timeouts"], ""), (f"{r['rating']['mu']:.2f} ± {r['rating']['sigma']:.2f}", ""),
            (f"{r['rating']['ordinal']:.2f}", "")]


def render(doc: dict) -> str:
    spec = doc["league"]
    places = [str(k) for k in range(1, spec["seats"] + 1)]
    stages = []
    for stage in doc["stages"]:  # a league run with luck: its corrected score beside the score
        lucky = bool(stage["rows"]) and all("luck" in r for r in stage["rows"])
        head = ["#", "bot", "score", "± SE", *(["luck out", "± SE"] if lucky else []), "games",
                "series", *[f"{p}." for p in places], "faults", "timeouts",
                "rating (mu ± sigma)", "ordinal"]
        stages.append({**stage, "head": head,
                       "table": [_cells(r, places, lucky) for r in stage["rows"]],
                       "hud": [(r["bot"], r["hud"]) for r in stage["rows"] if r.get("hud")]})
    what = ("mean score (sit & go payouts)" if spec["format"] == "sng-6"
            else "mean chips at the end / chips in play")
    return environment("holdemjax.league").get_template("leaderboard.html").render(
        spec=spec, what=what, css=_CSS, stages=stages, hud_columns=hud.COLUMNS,
        certification=doc["certification"],
        left_out=[c for c in doc["certification"] if not c["passed"]])
