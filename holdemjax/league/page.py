"""``leaderboard.html``: the leaderboard as one self-contained page (no script, no network).

Every name on the page comes from a file name, so every text is written through
``html.escape``. Each series links to its viewer (``series/NNNN/viewer.html``, next to it).
"""

from __future__ import annotations

import html

__all__ = ["render"]

_CSS = """body{font:14px system-ui,sans-serif;margin:24px;color:#1b1b1b;background:#fafafa}
table{border-collapse:collapse;margin:8px 0 24px}th,td{padding:4px 10px;border-bottom:1px solid
#ddd;text-align:right}th{background:#eef2f5}td.l,th.l{text-align:left}.bad{color:#b00020}
.ok{color:#1b7f3b}h1{font-size:20px}h2{font-size:17px;margin-top:28px}small{color:#666}"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def render(doc: dict) -> str:
    spec = doc["league"]
    what = "mean score (sit & go payouts)" if spec["format"] == "sng-6" else \
        "mean chips at the end / chips in play"
    out = [f"<!doctype html><html lang=en><head><meta charset=utf-8>"
           f"<title>league {_e(spec['format'])} seed {_e(spec['seed'])}</title>"
           f"<style>{_CSS}</style></head><body>",
           f"<h1>League: {_e(spec['format'])}, seed {_e(spec['seed'])}, "
           f"{_e(spec['games'])} games per bot, series of {_e(spec['tournaments'])}</h1>",
           f"<p><small>Ranked by {_e(what)} ± standard error; the rating is OpenSkill's "
           "Plackett-Luce (ordinal = mu - 3 sigma), fed every game in series order."
           "</small></p>"]
    out += [f"<p class=bad>Left out after the certification: {_e(c['bot'])}: "
            f"{_e(c['problem'])}</p>" for c in doc["certification"] if not c["passed"]]
    for stage in doc["stages"]:
        out.append(f"<h2 id=stage-{_e(stage['stage'])}>{_e(stage['stage'].capitalize())}: "
                   f"{stage['series_played']} of {stage['series_planned']} series"
                   f"{'' if stage['complete'] else ' (in progress)'}</h2>")
        if stage["lineup"]:
            out.append(f"<p>Line-up: {_e(', '.join(stage['lineup']))}</p>")
        places = [str(k) for k in range(1, spec["seats"] + 1)]
        head = ["#", "bot", "score", "± SE", "games", "series", *[f"{p}." for p in places],
                "faults", "timeouts", "rating (mu ± sigma)", "ordinal"]
        out.append(f"<table class=board data-stage={_e(stage['stage'])}><tr>" + "".join(
            f"<th{' class=l' if h == 'bot' else ''}>{_e(h)}</th>" for h in head) + "</tr>")
        for r in stage["rows"]:
            faults = "-" if not r["faults"] else "; ".join(
                f"series {f['series']} t{f['faulted_at']}: {f['cause']}" for f in r["faults"])
            cells = [r["rank"], r["bot"], f"{r['mean']:.4f}", f"{r['stderr']:.4f}", r["games"],
                     r["series"], *[r["places"][p] for p in places], faults, r["timeouts"],
                     f"{r['rating']['mu']:.2f} ± {r['rating']['sigma']:.2f}",
                     f"{r['rating']['ordinal']:.2f}"]
            marks = {1: " class=l", len(cells) - 4: " class=bad" if r["faults"] else ""}
            out.append("<tr>" + "".join(f"<td{marks.get(i, '')}>{_e(c)}</td>"
                                        for i, c in enumerate(cells)) + "</tr>")
        out.append("</table><details><summary>Series</summary><ul>")
        for s in stage["series"]:
            flag = " (stopped early)" if s["stopped_early"] else ""
            out.append(f"<li><a href=\"{_e(s['viewer'])}\">series {s['index']}</a> seed "
                       f"{s['seed']}: {_e(', '.join(s['bots']))}{flag}</li>")
        out.append("</ul></details>")
    out.append("<h2 id=certification>Certification</h2><table><tr><th class=l>bot</th>"
               "<th class=l>verdict</th></tr>")
    for c in doc["certification"]:
        verdict = "<span class=ok>passed</span>" if c["passed"] else \
            f"<span class=bad>left out: {_e(c['problem'])}</span>"
        out.append(f"<tr><td class=l>{_e(c['bot'])}</td><td class=l>{verdict}</td></tr>")
    out.append("</table></body></html>\n")
    return "\n".join(out)
