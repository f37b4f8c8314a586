"""24 lines played at once through the JSON API against a local uvicorn: every participant gets
identical conditions, the 25th line is refused cleanly (503) while 24 are in play, and the
action latencies are reported (``-s`` prints p50/p95; no results file of them is committed,
so docs/duplicate.md quotes none: speed is measured, never asserted). A few hands per line
keep it cheap."""

from __future__ import annotations

import concurrent.futures
import statistics
import time

import httpx

from tests.duplicate.server import OPERATOR, running

LINES, HANDS = 24, 2


def _play(base: str, mid: str, name: str, key: str, choice: str, first=None) -> dict:
    """One client: its line to the end; the hero's cards per hand and each action's latency
    (``first``: the answer that opened the line, when the setup opened it)."""
    seen, latency = {}, []
    with httpx.Client(base_url=base, headers={"X-Line-Key": key}, timeout=120) as c:
        st = first or c.get(f"/api/matches/{mid}/lines/{name}").json()
        while True:
            for e in st["events"]:
                if e["type"] == "hand_start":
                    seen[e["hand"]] = e["hole"]
            if st["status"] != "decision":
                break
            seen[st["view"]["hand"]] = st["view"]["hole"]
            legal = st["view"]["legal"]
            act = {"decision": st["decision"], "action": "check" if legal["check"] else choice}
            t0 = time.perf_counter()
            r = c.post(f"/api/matches/{mid}/lines/{name}/act", json=act)
            latency.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.text
            st = r.json()
    return {"status": st["status"], "hole": seen, "latency": latency}


def test_24_lines_at_once_and_the_25th_refused(tmp_path):
    with running(tmp_path / "s.sqlite", max_lines=LINES) as (base, app):
        op = httpx.Client(base_url=base, headers={"X-Operator": OPERATOR}, timeout=120)
        m = op.post("/api/matches", json={"seats": 6, "hands": HANDS, "seed": 2**100 + 3}).json()
        mid = m["match"]
        names = [f"p{i:02d}" for i in range(LINES + 1)]
        keys = {n: op.post(f"/api/matches/{mid}/join", json={"token": m["share"], "name": n})
                .json()["key"] for n in names}
        first = {}
        for n in names[:LINES]:  # 24 lines in play
            r = op.get(f"/api/matches/{mid}/lines/{n}", headers={"X-Line-Key": keys[n]})
            first[n] = r.json()
            assert first[n]["status"] == "decision"
        r = op.get(f"/api/matches/{mid}/lines/{names[-1]}", headers={"X-Line-Key": keys[names[-1]]})
        assert r.status_code == 503 and f"{LINES} lines are being played" in r.json()["detail"]
        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(LINES) as pool:
            runs = list(pool.map(lambda i: _play(base, mid, names[i], keys[names[i]],
                                                 ("call", "fold")[i % 2], first[names[i]]),
                                 range(LINES)))
        wall = time.perf_counter() - start
        assert all(r["status"] == "finished" for r in runs)
        # the 25th plays now that the others are done; then nobody can join and it closes
        last = _play(base, mid, names[-1], keys[names[-1]], "call")
        st = op.post(f"/api/matches/{mid}/close-field").json()
        assert st["state"] == "closed" and st["close_reason"] == "complete"
        # identical conditions: every client was dealt the same hero cards in every hand, and
        # every stored hand holds the seed's deck and replays the bots' decisions
        for hand in range(HANDS):
            assert len({tuple(r["hole"][hand]) for r in runs + [last]}) == 1
        verified = op.get(f"/api/matches/{mid}/verify").json()
        assert verified["ok"] and verified["hands_replayed"] == (LINES + 1 + 3) * HANDS
        board = op.get(f"/api/matches/{mid}/leaderboard").json()
        assert board["divergent_hands"] >= 1  # callers and folders part
        lat = sorted(x for r in runs for x in r["latency"])
        p95 = lat[max(0, round(0.95 * len(lat)) - 1)]
        print(f"\n{LINES} lines x {HANDS} hands: {len(lat)} actions in {wall:.1f} s; action "
              f"latency p50 {1000 * statistics.median(lat):.0f} ms, p95 {1000 * p95:.0f} ms")
