"""Issue 50, finding 7: a simultaneous match's clocks and away marks survive a restart.

The open hand's clock restarted at full after every restart and who was away was forgotten, so
restarting the service held the field. Here the service is started again and again on one store
(in process, no steward thread: the test calls ``tick``), with the wall clock the hand clocks
read (``LineService.wall``) moved by hand: the open hand's clock goes on where it stood, a clock
that ran out while the service was down acts at the first tick, and an away line stays away.
"""

from __future__ import annotations

import contextlib
import sqlite3

from fastapi.testclient import TestClient

from holdemjax.duplicate import match
from holdemjax.duplicate.service import create_app
from tests.duplicate.server import OPERATOR

# test_service's 3-seat spec and programs: nothing new is compiled
SPEC = match.MatchSpec(seats=3, hands=3, bots=("advanced", "beginner"), simultaneous=True,
                       participants=2, clock=30)
SEED = 2**90 + 17


class Time:
    """The service's clocks (monotonic and wall), moved by hand, kept across restarts."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@contextlib.contextmanager
def _service(path, time: Time):
    """One life of the service on the store ``path``: started, then shut down."""
    app = create_app(str(path), operator=OPERATOR, tick_s=None)
    with TestClient(app, raise_server_exceptions=False) as client:
        client.svc = app.state.service
        client.svc.monotonic = client.svc.wall = time
        yield client


def _state(client, mid, name, key) -> dict:
    r = client.get(f"/api/matches/{mid}/lines/{name}", headers={"X-Line-Key": key})
    assert r.status_code == 200, r.text
    return r.json()


def _play_hand(client, mid, name, key) -> None:
    """Call or check until the line's current hand is over."""
    st = _state(client, mid, name, key)
    hand = st["view"]["hand"]
    while st["status"] == "decision" and st["view"]["hand"] == hand:
        r = client.post(f"/api/matches/{mid}/lines/{name}/act", headers={"X-Line-Key": key},
                        json={"decision": st["decision"], "action": "call"})
        assert r.status_code == 200, r.text
        st = r.json()


def _autos(path, mid: str, name: str) -> list[set]:
    """The ``auto`` marks of the line's hero actions, hand by hand (read from the file)."""
    rows = sqlite3.connect(path).execute(
        "SELECT hand, auto FROM actions WHERE match_id = ? AND name = ? AND seat = 0 "
        "ORDER BY hand, idx", (mid, name)).fetchall()
    return [{auto for h, auto in rows if h == hand} for hand in sorted({h for h, _ in rows})]


def test_clocks_and_away_marks_survive_restarts(tmp_path):
    path, time = tmp_path / "club.sqlite", Time()
    with _service(path, time) as first:
        mid = first.svc.store.create_match(SPEC, SEED).id
        share = first.svc.store.add_door(mid, "share", token=first.svc.share_token(mid))
        keys = {}
        for name in ("ann", "bob"):  # bob never plays: the clock plays his hands
            r = first.post(f"/api/matches/{mid}/join", json={"token": share, "name": name})
            keys[name] = r.json()["key"]
        first.svc.tick()  # hand 1 opens to all at t = 1000: its clock starts
        time.now += 20
        assert _state(first, mid, "ann", keys["ann"])["clock"] == 10

    with _service(path, time) as second:  # the time already used counts
        assert _state(second, mid, "ann", keys["ann"])["clock"] == 10
        _play_hand(second, mid, "ann", keys["ann"])
        time.now += 9
        second.svc.tick()
        assert second.get(f"/api/matches/{mid}").json()["round"] == {"hand": 0, "behind": 1}

    time.now += 5  # hand 1's clock ran out while no service was running
    with _service(path, time) as third:
        third.svc.tick()  # at once: bob's hand is played (his first timeout in a row)
        assert third.get(f"/api/matches/{mid}").json()["round"] == {"hand": 1, "behind": 2}
        assert _state(third, mid, "ann", keys["ann"])["clock"] == 30  # hand 2 opened now
        _play_hand(third, mid, "ann", keys["ann"])

    time.now += 31
    with _service(path, time) as fourth:
        fourth.svc.tick()  # bob's second timeout in a row, counted across the restart: away
        assert fourth.get(f"/api/matches/{mid}").json()["round"] == {"hand": 2, "behind": 2}

    with _service(path, time) as fifth:  # no time passes: only the away mark plays bob's hand
        fifth.svc.tick()
        assert fifth.get(f"/api/matches/{mid}").json()["round"] == {"hand": 2, "behind": 1}
    assert _autos(path, mid, "bob") == [{"timeout"}, {"timeout"}, {"away"}]
