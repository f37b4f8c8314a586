"""The ``holdemjax duplicate`` commands that read a closed match (leaderboard, review, style,
report, verify): each ``(args, store, con)`` -> exit status, as `holdemjax.duplicate.cli`
dispatches them (the match refreshed and its reference lines played first)."""

from __future__ import annotations

import json
import pathlib

__all__ = ["leaderboard", "review", "style", "report", "verify", "READERS"]


def leaderboard(args, store, con) -> int:
    from rich.table import Table

    from holdemjax.duplicate import scores

    m = store.require_closed(args.match)
    board = scores.leaderboard(m.spec, store.lines(args.match))
    if args.json:
        print(json.dumps(board, indent=1))
        return 0
    bb = board["big_blind"]

    def cell(score):
        se = "–" if score["se"] is None else f"{score['se'] * 100 / bb:.1f}"
        z = "–" if score["z"] is None else f"{score['z']:+.2f}"
        rate = "–" if score["bb_per_100"] is None else f"{score['bb_per_100']:+.1f}"
        return f"{rate} ± {se}", z  # no rate over no hand compared

    head = board["headline"]
    con.print(f"divergent hands: {board['divergent_hands']} of {board['hands_compared']} "
              f"compared ({board['identical_hands']} identical, reported apart)")
    if head["kind"] == "head_to_head":
        pct = "–" if head["percent"] is None else f"{head['percent']:.1f}%"
        z = "–" if head["z"] is None else f"{head['z']:+.2f}"
        se = "–" if head["se"] is None else f"{100 * head['se']:.1f}"
        con.print(f"headline: {head['a']} vs {head['b']}: {pct} ± {se} matchpoints over the "
                  f"{head['divergent_hands']} divergent hands, z {z}")
    else:
        con.print(f"headline: matchpoints over the divergent hands ({head['note']})")
    t = Table(title=f"match {m.id}: bb/100 ± SE, z against the field")
    for col in ("#", "name", "hands", "raw", "z", "relative", "z", "2σ hands raw/rel",
                "div. MP %", "z", "think ms"):
        t.add_column(col, justify="left" if col == "name" else "right")
    for rank, p in enumerate(board["participants"], 1):
        mp = p["divergent_matchpoints"]
        t.add_row(str(rank), p["name"] + (" (ref)" if p["kind"] == "reference" else ""),
                  str(p["hands"]), *cell(p["raw"]), *cell(p["relative"]),
                  f"{p['raw']['hands_for_2sigma'] or '–'} / "
                  f"{p['relative']['hands_for_2sigma'] or '–'}",
                  "–" if mp["percent"] is None else f"{mp['percent']:.1f}",
                  "–" if mp["z"] is None else f"{mp['z']:+.2f}",
                  "–" if p["thinking"]["median_ms"] is None
                  else f"{p['thinking']['median_ms']:.0f}")
    con.print(t)
    for p in board["unfinished"]:  # listed apart, never ranked among the finished lines
        con.print(f"unfinished, not ranked: {p['name']}: {p['hands']} hands, raw "
                  f"{cell(p['raw'])[0]}, relative {cell(p['relative'])[0]} bb/100")
    for h in board["head_to_head"]:
        con.print(f"  {h['a']} vs {h['b']}: {h['a_wins']}-{h['b_wins']}-{h['ties']} on "
                  f"{h['divergent_hands']} divergent hands, chips {h['chips_a_minus_b']:+d}")
    con.print(f"({board['note']}; thinking time: {board['thinking_note']})")
    return 0


def review(args, store, con) -> int:
    from holdemjax.duplicate import review as match_review

    m = store.require_closed(args.match)
    r = match_review.review(m.spec, store.lines(args.match), args.a, args.b)
    if args.json:
        print(json.dumps(r, indent=1))
        return 0
    a, b, h = r["a"], r["b"], r["head_to_head"]
    con.print(f"{a} vs {b}: {r['divergent_hands']} divergent hands of {r['hands_compared']}; "
              f"on them {h['a_wins']}-{h['b_wins']}-{h['ties']}, chips {a} - {b} = "
              f"{h['chips_a_minus_b']:+d}")
    for d in r["divergences"]:
        con.rule(f"hand {d['hand'] + 1}: hero {' '.join(d['hole'])}, board {' '.join(d['board'])}"
                 f", parted {d['street']}")
        con.print("shared: " + ("; ".join(x["text"] for x in d["shared"]) or "-"))
        con.print(f"{a}: " + "; ".join(x["text"] for x in d["a_line"]) + f"  => {d['a_net']:+d}")
        con.print(f"{b}: " + "; ".join(x["text"] for x in d["b_line"]) + f"  => {d['b_net']:+d}")
    for name in (a, b):
        top = ", ".join(f"hand {x['hand'] + 1} ({x['relative']:+.0f})"
                        for x in r["deciding"][name])
        con.print(f"deciding hands for {name} (furthest from the field): {top or '-'}")
        streets = ", ".join(f"{s} +{c['won']}/-{c['lost']}"
                            for s, c in r["streets"][name].items() if c["hands"])
        con.print(f"  won/lost by street: {streets}")
    for kind, items in (("folded", r["only_folder"]), ("went all-in", r["only_allin"])):
        for x in items:
            con.print(f"hand {x['hand'] + 1}: only {x['who']} {kind}")
    return 0


def style(args, store, con) -> int:
    from rich.table import Table

    from holdemjax.duplicate import style as match_style
    from holdemjax.series import hud

    m = store.require_closed(args.match)
    table = match_style.style_table(m.spec, store.lines(args.match))
    if args.json:
        print(json.dumps(table, indent=1))
        return 0
    t = Table(title=f"match {m.id}: style on the identical deals")
    for i, label in enumerate(["line", "hands"] + [label for _, label, _ in hud.COLUMNS]):
        t.add_column(label, justify="left" if i == 0 else "right")

    def cell(r, key):
        return "–" if r[key] is None else f"{r[key]:.2f}" if key == "af" else f"{r[key]:.0f}%"

    for r in table["rows"]:
        t.add_row(r["name"], str(r["hands"]), *(cell(r, key) for key, _, _ in hud.COLUMNS))
    con.print(t)
    return 0


def report(args, store, con) -> int:
    from holdemjax.duplicate import report as match_report

    doc = match_report.document(store, args.match, luck=args.luck)
    out = pathlib.Path(args.out or f"duplicate-{args.match}.html")
    out.write_text(match_report.render(doc), encoding="utf-8")
    con.print(f"report: {out}")
    return 0


def verify(args, store, con) -> int:
    result = store.verify(args.match, args.commitment)
    if args.json:
        print(json.dumps(result, indent=1))
    elif result["ok"]:
        con.print(f"verified: seed {result['seed']}, salt {result['salt']} -> commitment "
                  f"{result['recomputed']}; {result['hands_checked']} stored hands hold the cards "
                  f"of the decks recomputed from the seed, and {result['hands_replayed']} replay "
                  "with every reference-bot decision decided again", style="green")
    else:
        for problem in result["problems"]:
            con.print(problem, style="red")
        con.print("NOT verified", style="red")
    return 0 if result["ok"] else 1


READERS = (leaderboard, review, style, report, verify)  # results of a closed match
