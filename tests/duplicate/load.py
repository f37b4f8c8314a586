"""The club's load, for the load test and benchmarks/bench_duplicate_load.py: ``lines`` lines
played at once through the JSON API of a local uvicorn while a match of ``big_hands`` hands
creates its reference lines in the background, and a reader asks for that match's status all
the while. Every action's and every read's latency is kept."""

from __future__ import annotations

import concurrent.futures
import threading
import time

import httpx

from tests.duplicate.server import OPERATOR, running

SPEC = {"seats": 3, "bots": ["advanced", "beginner"]}  # test_service's programs


def play(base: str, mid: str, name: str, key: str, choice: str, first=None,
         think=None) -> dict:
    """One client: its line to the end; the hero's cards per hand, each action's latency and
    status (``first``: the answer that opened the line, when the setup opened it; ``think()``:
    seconds to wait before each action, none when None)."""
    seen, latency, codes = {}, [], []
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
            if think is not None:
                time.sleep(think())
            t0 = time.perf_counter()
            r = c.post(f"/api/matches/{mid}/lines/{name}/act", json=act)
            latency.append(time.perf_counter() - t0)
            codes.append(r.status_code)
            if r.status_code != 200:
                break
            st = r.json()
    return {"status": st["status"], "hole": seen, "latency": latency, "codes": codes}


def _reader(base: str, mid: str, stop: threading.Event, out: list) -> None:
    with httpx.Client(base_url=base, timeout=120) as c:
        while not stop.is_set():
            t0 = time.perf_counter()
            r = c.get(f"/api/matches/{mid}")
            out.append((time.perf_counter() - t0, r.status_code, r.json().get("preparing")))
            time.sleep(0.05)


def run(path, *, lines: int = 24, hands: int = 2, big_hands: int = 1000,
        seed: int = 2**100 + 3, think=None, server=running) -> dict:
    """Play the load; returns what every client saw (see the module). ``server(path,
    max_lines=)``: a context giving ``(base_url, app)`` (``app`` None for a server in another
    process)."""
    with server(path, max_lines=lines) as (base, app):
        op = httpx.Client(base_url=base, headers={"X-Operator": OPERATOR}, timeout=120)
        big = op.post("/api/matches", json={**SPEC, "hands": big_hands, "seed": seed}).json()
        m = op.post("/api/matches", json={**SPEC, "hands": hands, "seed": seed}).json()
        mid = m["match"]
        while op.get(f"/api/matches/{mid}").json()["preparing"]:
            time.sleep(0.05)  # the small match's references: a few hands
        names = [f"p{i:02d}" for i in range(lines + 1)]
        keys = {n: op.post(f"/api/matches/{mid}/join", json={"token": m["share"], "name": n})
                .json()["key"] for n in names}
        first = {n: op.get(f"/api/matches/{mid}/lines/{n}", headers={"X-Line-Key": keys[n]})
                 .json() for n in names[:lines]}
        extra = op.get(f"/api/matches/{mid}/lines/{names[-1]}",
                       headers={"X-Line-Key": keys[names[-1]]})
        stop, reads = threading.Event(), []
        reader = threading.Thread(target=_reader, args=(base, big["match"], stop, reads))
        reader.start()
        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(lines) as pool:
            runs = list(pool.map(lambda i: play(base, mid, names[i], keys[names[i]],
                                                ("call", "fold")[i % 2], first[names[i]],
                                                think), range(lines)))
        wall = time.perf_counter() - start
        stop.set()
        reader.join()
        after = op.get(f"/api/matches/{big['match']}").json()
        last = play(base, mid, names[-1], keys[names[-1]], "call")
        closed = op.post(f"/api/matches/{mid}/close-field").json()
        op.close()
    return {"first": first, "extra": (extra.status_code, extra.json()), "runs": runs,
            "last": last, "reads": reads, "wall_s": wall, "big_after": after,
            "closed": closed, "lines": lines, "hands": hands, "big_hands": big_hands}


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]
