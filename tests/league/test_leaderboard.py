"""The leaderboard (holdemjax/league/leaderboard.py, page.py) from made-up series summaries:
means and the series host's standard errors, places, faults, the rating's order and its
account of opponents, the ranking, canonical bytes whatever order the series arrive in, the
HUD summed over a bot's series, and the page (escaped names, links to each series' viewer, the
HUD table)."""

from __future__ import annotations

import json

import pytest

from holdemjax.league import leaderboard, page
from holdemjax.series.results import standard_error

SPEC = {"format": "sng-6", "seats": 3, "seed": 0, "games": 2, "tournaments": 2}


def _series(index, stage, bots, scores, places=None, faults=None):
    """One summary; ``scores[g][slot]``."""
    places = places or [[sorted(g, reverse=True).index(x) + 1 for x in g] for g in scores]
    return {"index": index, "stage": stage, "seed": 100 + index, "variant": "series-10",
            "tournaments_played": len(scores), "stopped_early": False,
            "slots": [{"bot": b, "scores": [g[i] for g in scores],
                       "places": [p[i] for p in places],
                       "faults": (faults or {}).get(b, []), "timeouts": 0, "chips_won": 0}
                      for i, b in enumerate(bots)]}


SERIES = [
    _series(0, "qualifying", ["a", "b", "c"], [[0.5, 0.3, 0.2], [0.5, 0.2, 0.3]]),
    _series(1, "qualifying", ["d", "a", "b"], [[0.2, 0.5, 0.3], [0.3, 0.5, 0.2]],
            faults={"d": [{"faulted_at": 1, "cause": "trap", "detail": "UNREACHABLE"}]}),
    _series(2, "qualifying", ["c", "d", "b"], [[0.3, 0.2, 0.5], [0.2, 0.3, 0.5]]),
]


def _rows(doc, stage=0):
    return {r["bot"]: r for r in doc["stages"][stage]["rows"]}


def test_means_errors_places_and_faults():
    doc = leaderboard.build(SPEC, [], SERIES, {"qualifying": 3})
    rows = _rows(doc)
    b = [0.3, 0.2, 0.3, 0.2, 0.5, 0.5]  # b's games in series order
    assert rows["b"]["games"] == 6 and rows["b"]["series"] == 3
    assert rows["b"]["mean"] == pytest.approx(sum(b) / 6, abs=1e-6)
    assert rows["b"]["stderr"] == round(standard_error(b), 6)
    assert rows["a"]["places"] == {"1": 4, "2": 0, "3": 0}
    assert rows["d"]["faults"] == [{"series": 1, "faulted_at": 1, "cause": "trap",
                                    "detail": "UNREACHABLE"}]
    assert [r["rank"] for r in doc["stages"][0]["rows"]] == [1, 2, 3, 4]
    assert doc["stages"][0]["rows"][0]["bot"] == "a"  # mean 0.5
    assert doc["stages"][0]["complete"] and len(doc["stages"]) == 1


def test_fault_causes_read_as_the_protocol_names_them_with_the_detail_apart():
    """Issue 50, finding 10: causes read ``trap: UNREACHABLE`` in leaderboards and
    certification; PROTOCOL.md names the cause ``trap``, the detail is a field of its own."""
    from holdemjax.series import output

    html = page.render(leaderboard.build(SPEC, [], SERIES, {"qualifying": 3}))
    assert "series 1 t1: trap (UNREACHABLE)" in html
    slot = {"policy": "d.wasm", "faults": [{"faulted_at": 0, "cause": "trap",
                                            "detail": "UNREACHABLE"}], "faulted_at": 0,
            "timeouts": 0, "replies": {"ok": 3}}
    passed, verdict = output.certify_verdict({"slots": [slot], "tournaments_played": 3,
                                              "tournaments_planned": 3, "stopped_early": False})
    assert not passed and "fault in game 0: trap (UNREACHABLE)" in verdict, verdict


def test_rating_winner_first_and_it_counts_whom_a_bot_beat():
    rows = _rows(leaderboard.build(SPEC, [], SERIES, {"qualifying": 3}))
    ordinal = {bot: r["rating"]["ordinal"] for bot, r in rows.items()}
    assert ordinal["a"] == max(ordinal.values())
    for r in rows.values():
        assert r["rating"]["ordinal"] == pytest.approx(r["rating"]["mu"] - 3 * r["rating"]["sigma"],
                                                       abs=2e-4)
    # x and y both win every game against the same number of opponents; x beat a strong bot
    # (s, who beats everyone else), y beat a weak one (w, who loses to everyone): x rates higher
    strong = [_series(i, "qualifying", ["s", f"o{i}", f"p{i}"], [[0.5, 0.3, 0.2]] * 2)
              for i in range(4)]
    weak = [_series(4 + i, "qualifying", ["w", f"q{i}", f"r{i}"], [[0.2, 0.3, 0.5]] * 2)
            for i in range(4)]
    duel = [_series(8, "qualifying", ["x", "s", "z1"], [[0.5, 0.3, 0.2]] * 2),
            _series(9, "qualifying", ["y", "w", "z2"], [[0.5, 0.2, 0.3]] * 2)]
    rows = _rows(leaderboard.build(SPEC, [], strong + weak + duel, {"qualifying": 10}))
    assert rows["x"]["mean"] == rows["y"]["mean"]
    assert rows["x"]["rating"]["mu"] > rows["y"]["rating"]["mu"]


def test_same_bytes_whatever_order_the_series_arrive_in():
    a = leaderboard.encode(leaderboard.build(SPEC, [], SERIES, {"qualifying": 3}))
    b = leaderboard.encode(leaderboard.build(SPEC, [], SERIES[::-1], {"qualifying": 3}))
    assert a == b
    assert json.loads(a)["schema"] == leaderboard.SCHEMA
    assert a.endswith(b"\n") and b": " in a  # indented, canonical


def test_final_stage_and_ratings_carried_over():
    final = [_series(3, "final", ["a", "b", "c"], [[0.2, 0.3, 0.5], [0.2, 0.5, 0.3]])]
    doc = leaderboard.build(SPEC, [], SERIES + final, {"qualifying": 3, "final": 2},
                            ["a", "b", "c"])
    assert [s["stage"] for s in doc["stages"]] == ["qualifying", "final"]
    fin = doc["stages"][1]
    assert fin["lineup"] == ["a", "b", "c"] and not fin["complete"]
    assert fin["series_played"] == 1 and fin["series_planned"] == 2
    assert _rows(doc, 1)["a"]["games"] == 2 and _rows(doc, 1)["a"]["mean"] == 0.2
    # the final's ratings continue from the qualifying ones: a (top there) keeps more than a
    # fresh bot that lost both games would
    fresh = leaderboard.build(SPEC, [], final, {"final": 2}, ["a", "b", "c"])
    assert _rows(doc, 1)["a"]["rating"]["mu"] > _rows(fresh, 1)["a"]["rating"]["mu"]


def test_page_escapes_names_and_links_every_viewer():
    evil = "<script>alert(1)</script>"
    series = [_series(0, "qualifying", [evil, "b", "c"], [[0.5, 0.3, 0.2]])]
    cert = [{"bot": "bad&<i>", "sha256": "0", "passed": False, "problem": "FAILED: <b>x</b>"}]
    html = page.render(leaderboard.build(SPEC, cert, series, {"qualifying": 1}))
    assert "<script>" not in html and "&lt;script&gt;" in html
    # the HUD table escapes the names too
    hud_html = page.render(leaderboard.build(SPEC, cert, [_with_hud(
        _series(0, "qualifying", [evil, "b", "c"], [[0.5, 0.3, 0.2]]),
        {evil: {"hands": 1}, "b": {"hands": 1}, "c": {"hands": 1}})], {"qualifying": 1}))
    assert "<script>" not in hud_html and 'id="hud-qualifying"' in hud_html
    assert '<td class="l">&lt;script&gt;alert(1)&lt;/script&gt;</td>' in hud_html
    assert "bad&amp;&lt;i&gt;" in html and "FAILED: &lt;b&gt;x&lt;/b&gt;" in html
    assert 'href="series/0000/viewer.html"' in html


def _with_hud(summary, huds):
    """``summary`` with HUD counts for its slots (``huds[bot]``: a dict of some of
    `holdemjax.series.hud.COUNTS`, the rest 0)."""
    from holdemjax.series import hud

    for slot in summary["slots"]:
        slot["hud"] = {k: huds[slot["bot"]].get(k, 0) for k in hud.COUNTS}
    return summary


def test_hud_summed_over_a_bots_series():
    """A bot's HUD is its counts summed over the stage's series, then the figures: a has 10
    hands with 3 voluntary in series 0 and 20 with 9 in series 1 (VPIP 12 / 30 = 40%), one
    3-bet in 4 chances (25%), 6 post-flop bets against 4 calls (AF 1.5) and no c-bet chance
    (null); e played only in a summary written before the HUD: its row's hud is null."""
    s0 = _with_hud(_series(0, "qualifying", ["a", "b", "c"], [[0.5, 0.3, 0.2]]),
                   {"a": {"hands": 10, "vpip_hands": 3, "three_bet_chances": 1,
                          "postflop_bets": 2, "postflop_calls": 4},
                    "b": {"hands": 10}, "c": {"hands": 10}})
    s1 = _with_hud(_series(1, "qualifying", ["d", "a", "b"], [[0.2, 0.5, 0.3]]),
                   {"a": {"hands": 20, "vpip_hands": 9, "three_bet_chances": 3,
                          "three_bets": 1, "postflop_bets": 4},
                    "b": {"hands": 20, "showdowns": 2, "saw_flop": 5, "won_at_showdown": 1},
                    "d": {"hands": 20}})
    s2 = _series(2, "qualifying", ["c", "d", "e"], [[0.3, 0.2, 0.5]])  # no hud
    doc = leaderboard.build(SPEC, [], [s0, s1, s2], {"qualifying": 3})
    rows = _rows(doc)
    a = rows["a"]["hud"]
    assert (a["hands"], a["vpip_hands"], a["vpip"]) == (30, 12, 40.0)
    assert (a["three_bet_chances"], a["three_bets"], a["three_bet"]) == (4, 1, 25.0)
    assert (a["postflop_bets"], a["postflop_calls"], a["af"]) == (6, 4, 1.5)
    assert a["cbet"] is None and a["pfr"] == 0.0
    b = rows["b"]["hud"]
    assert (b["hands"], b["wtsd"], b["wsd"]) == (30, 40.0, 50.0)  # 2 of 5 flops, 1 of 2
    assert rows["e"]["hud"] is None and rows["c"]["hud"]["hands"] == 10
    html = page.render(doc)
    table = html[html.index('<table id="hud-qualifying"'):]
    table = table[:table.index("</table>")]
    # rows in rank order (e, with no HUD, has none); a's VPIP and 3-bet with its chances
    ranked = [r["bot"] for r in doc["stages"][0]["rows"] if r["bot"] != "e"]
    assert [table.index(f'<td class="l">{bot}</td>') for bot in ranked] == \
        sorted(table.index(f'<td class="l">{bot}</td>') for bot in ranked)
    a_row = table[table.index('<td class="l">a</td>'):]
    a_row = a_row[:a_row.index("</tr>")]
    assert '"vpip">40%<' in a_row and '"three_bet">25% <small>(4)</small><' in a_row
    assert '"cbet">– <small>(0)</small><' in a_row and '"af">1.50<' in a_row
    assert '<td class="l">e</td>' not in table


def _with_luck(summary, luck):
    """``summary`` with each slot's luck per game (``luck[g][slot]``), as `play.summary` reads
    it from a series run with luck."""
    for i, slot in enumerate(summary["slots"]):
        slot["luck"] = [g[i] for g in luck]
    return summary


def test_luck_out_beside_the_score():
    """A league run with luck: each row's corrected mean is over every game of the bot of its
    score less its luck, with the series host's SE of those; a bot with a series without luck
    has none, and the page shows the column only when every row has it."""
    s0 = _with_luck(_series(0, "qualifying", ["a", "b", "c"], [[0.5, 0.3, 0.2], [0.5, 0.2, 0.3]]),
                    [[0.2, -0.1, -0.1], [0.1, 0.0, -0.1]])
    s1 = _with_luck(_series(1, "qualifying", ["d", "a", "b"], [[0.2, 0.5, 0.3], [0.3, 0.5, 0.2]]),
                    [[0.0, 0.3, -0.3], [0.05, 0.05, -0.1]])
    doc = leaderboard.build(SPEC, [], [s0, s1], {"qualifying": 2})
    rows = _rows(doc)
    a = [0.5 - 0.2, 0.5 - 0.1, 0.5 - 0.3, 0.5 - 0.05]
    assert rows["a"]["luck"] == {"mean": round(sum(a) / 4, 6),
                                 "stderr": round(standard_error(a), 6),
                                 "luck": round((0.2 + 0.1 + 0.3 + 0.05) / 4, 6)}
    assert rows["a"]["mean"] - rows["a"]["luck"]["mean"] == pytest.approx(
        rows["a"]["luck"]["luck"], abs=2e-6)
    html = page.render(doc)
    assert "<th>luck out</th>" in html
    a_row = html[html.index("<td class=l>a</td>"):]
    a_row = a_row[:a_row.index("</tr>")]
    assert f"<td>{sum(a) / 4:.4f}</td><td>{standard_error(a):.4f}</td>" in a_row
    # c's only series ran without luck: no corrected score for it, no column on the page
    s2 = _series(2, "qualifying", ["c", "d", "e"], [[0.3, 0.2, 0.5]])
    doc = leaderboard.build(SPEC, [], [s0, s1, s2], {"qualifying": 3})
    rows = _rows(doc)
    assert "luck" in rows["a"] and "luck" not in rows["c"] and "luck" not in rows["e"]
    assert "luck out" not in page.render(doc)


def test_summary_reads_each_slots_luck_from_the_replay():
    """`play.summary` sums a slot's luck over the kinds of event, at its seat in each game."""
    from holdemjax.league import play
    from holdemjax.series import hud

    job = {"index": 0, "stage": "qualifying", "seed": 1, "variant": "series-10",
           "bots": [{"name": "x"}, {"name": "y"}]}
    results = {"tournaments_played": 2, "stopped_early": False, "slots": [
        {"slot": i, "faults": [], "timeouts": 0, "chips_won": 0, "luck": {},
         "hud": dict.fromkeys(hud.COUNTS, 0)}
        for i in range(2)]}
    replay = {"tournaments": [
        {"player_at_seat": [1, 0], "scores": [0.6, 0.4], "places": [1, 2],
         "luck": [[0.1, 0.0, 0.0, 0.05], [-0.1, 0.0, 0.0, -0.05]]},
        {"player_at_seat": [0, 1], "scores": [0.3, 0.7], "places": [2, 1],
         "luck": [[0.0, -0.2, 0.0, 0.0], [0.0, 0.2, 0.0, 0.0]]}]}
    slots = play.summary(job, results, replay)["slots"]
    assert [s["luck"] for s in slots] == [[-0.15, -0.2], [0.15, 0.2]]
    assert [s["scores"] for s in slots] == [[0.4, 0.3], [0.6, 0.7]]
    for t in replay["tournaments"]:
        del t["luck"]
    assert all("luck" not in s for s in play.summary(job, results, replay)["slots"])
