"""Issue 36, points 5-7: a fair field (one line per browser, a cap per share link, idle lines
free their place), simultaneous play (hand k for everyone at once, the clock by the table's
rule), reads that write nothing, and pages people understand (one templating scheme, errors as
pages, the share link for the operator every time, no link that leads to 403).

One app for the module with no steward thread (``tick_s=None``: the tests call ``tick``) and a
clock the tests move (``LineService.monotonic`` and ``LineService.wall``); matches are made
straight in its store (no reference lines), on `test_service.py`'s 3-seat spec, so nothing new
is compiled.
"""

from __future__ import annotations

import datetime as dt
import pathlib
import sqlite3

import pytest
from fastapi.testclient import TestClient

from holdemjax.duplicate import match
from holdemjax.duplicate.doors import key_hash
from holdemjax.duplicate.lines import SHARE_CAP
from holdemjax.duplicate.service import create_app
from holdemjax.duplicate.store import Store
from tests.duplicate.conftest import run_cli
from tests.duplicate.server import OPERATOR

OP = {"X-Operator": OPERATOR}
SPEC = match.MatchSpec(seats=3, hands=2, bots=("advanced", "beginner"))  # test_service's programs
SEED = 2**90 + 17


class Clock:
    """The service's clocks (monotonic and wall), moved by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def field(tmp_path_factory):
    path = tmp_path_factory.mktemp("field") / "field.sqlite"
    app = create_app(str(path), operator=OPERATOR, max_lines=4, idle_s=60, tick_s=None)
    with TestClient(app, raise_server_exceptions=False) as c:
        c.clock = app.state.service.monotonic = app.state.service.wall = Clock()
        c.svc = app.state.service
        yield c


def _match(client, *, cap=None, **spec) -> tuple[str, str]:
    """A new open match in the app's store (no reference lines): (id, share token)."""
    store = client.svc.store
    m = store.create_match(match.MatchSpec(**{**SPEC.as_dict(), **spec}), SEED)
    return m.id, store.add_door(m.id, "share", cap=cap, token=client.svc.share_token(m.id))


def _join(client, mid, token, name, *, browser=False):
    return client.post(f"/api/matches/{mid}/join",
                       json={"token": token, "name": name, "browser": browser})


def _key(client, mid, token, name) -> str:
    r = _join(client, mid, token, name)
    assert r.status_code == 200, r.text
    return r.json()["key"]


def _state(client, mid, name, key):
    return client.get(f"/api/matches/{mid}/lines/{name}", headers={"X-Line-Key": key}).json()


def _play_hand(client, mid, name, key) -> dict:
    """Call or check until the line's current hand is over; returns the last state."""
    st = _state(client, mid, name, key)
    hand = st["view"]["hand"]
    while st["status"] == "decision" and st["view"]["hand"] == hand:
        r = client.post(f"/api/matches/{mid}/lines/{name}/act", headers={"X-Line-Key": key},
                        json={"decision": st["decision"], "action": "call"})
        assert r.status_code == 200, r.text
        st = r.json()
    return st


# -------------------------------------------------------------- reads write nothing
def test_a_status_read_writes_nothing_and_the_steward_closes(field):
    """A status GET closed a match whose deadline had passed (a read that wrote). Now every
    read leaves the store as it was; the steward's tick closes it."""
    store = field.svc.store
    then = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    mid = store.create_match(match.MatchSpec(**{**SPEC.as_dict(), "deadline": "2020-01-02T00:00Z"}),
                             SEED, now=then).id
    key = store.join(mid, "late", "api", "http", "", then)
    row = lambda: sqlite3.connect(store.path).execute(  # noqa: E731
        "SELECT state, closed_at FROM matches WHERE id = ?", (mid,)).fetchone()
    for path in (f"/api/matches/{mid}", f"/m/{mid}", f"/api/matches/{mid}/leaderboard",
                 f"/m/{mid}/leaderboard", "/api/matches", "/", f"/api/matches/{mid}/lines/late"):
        r = field.get(path, headers={"X-Line-Key": key})
        assert row() == ("open", None), path
    assert r.json()["status"] == "closed"  # the line's own read: past the deadline, no play
    field.svc.tick()
    assert row()[0] == "closed" and store.match(mid).close_reason == "deadline"


# ----------------------------------------------------------------- a fair field
def test_a_browser_joins_a_match_once(field):
    """Finding 7: one person played hand 1 through the share link, then joined again under
    another name. A browser that joined through the page is refused a second line (API and
    page), whatever the name; a forged mark counts for nothing."""
    mid, share = _match(field)
    first = _join(field, mid, share, "scout", browser=True)
    assert first.status_code == 200 and f"dup_joined_{mid}" in field.cookies
    again = _join(field, mid, share, "another name")
    assert again.status_code == 409, again.text
    assert again.json()["detail"] == (f"this browser already joined match {mid} as 'scout': "
                                      f"one line per person (yours: /m/{mid}/play/scout)")
    page = field.get(f"/join/{mid}/{share}")
    assert page.status_code == 409 and page.headers["content-type"].startswith("text/html")
    assert f'href="/m/{mid}/play/scout"' in page.text
    field.cookies.set(f"dup_joined_{mid}", "c2NvdXQ.forged")  # not signed by the service
    assert _join(field, mid, share, "someone else").status_code == 200
    field.cookies.clear()
    assert [p["name"] for p in field.get(f"/api/matches/{mid}").json()["participants"]] == [
        "scout", "someone else"]


def test_a_share_link_admits_its_cap_and_the_operator_sees_it_every_time(field, monkeypatch):
    """Finding 7: one client filled the match through the share link. A link admits its cap
    (a refused join gives its place back); the operator reads the link again at any time."""
    mid, share = _match(field, cap=2)
    assert _join(field, mid, share, "a").status_code == 200
    assert _join(field, mid, share, "A").status_code == 409  # the name is taken: no place used
    assert _join(field, mid, share, "b").status_code == 200
    r = _join(field, mid, share, "c")
    assert r.status_code == 409 and "has admitted its 2 participants" in r.json()["detail"]
    assert field.get(f"/api/matches/{mid}/share").status_code == 403
    assert field.get(f"/api/matches/{mid}/share", headers=OP).json() == {
        "token": share, "url": f"/join/{mid}/{share}"}
    # created through the service, a link's cap is the match's participants, else SHARE_CAP
    monkeypatch.setattr(field.svc.references, "start", lambda match_id: False)  # not needed
    for participants, cap in ((3, 3), (None, SHARE_CAP)):
        spec = match.MatchSpec(**{**SPEC.as_dict(), "participants": participants})
        m, token = field.svc.create(spec, SEED, None)
        assert token == field.svc.share_token(m.id)
        assert field.svc.store.find_door(m.id, key_hash(token))[3] == cap


def test_a_match_made_before_gets_a_share_link_the_operator_can_see(tmp_path):
    """A match whose share token the store cannot give back (only its hash is kept) gets the
    service's own link when the service starts, so the status page's link is one that works."""
    with Store(tmp_path / "s.sqlite") as s:
        mid = s.create_match(SPEC, SEED).id
        s.add_door(mid, "share")  # a random token, shown once and gone
    app = create_app(str(tmp_path / "s.sqlite"), operator=OPERATOR, tick_s=None)
    with TestClient(app) as c:
        url = c.get(f"/api/matches/{mid}/share", headers=OP).json()["url"]
        token = url.rsplit("/", 1)[1]
        assert c.get(url).status_code == 200  # the join page
        assert _join(c, mid, token, "ann").status_code == 200


@pytest.mark.parametrize("body, named", [({"share_cap": 0}, "share_cap"),
                                         ({"clock": 1}, "clock"),
                                         ({"simultaneous": "yes"}, "simultaneous"),
                                         ({"share_cap": "3"}, "share_cap")])
def test_bad_new_settings_are_422_naming_them(field, body, named):
    r = field.post("/api/matches", json={"seats": 3, "hands": 1, **body}, headers=OP)
    assert r.status_code == 422 and named in r.json()["detail"], r.text


def test_idle_lines_free_their_place(field):
    """Finding 7: one client holding 21 lines filled the 24-line cap and the next person got
    503 for 15 minutes. A line untouched for ``idle_s`` leaves the cap (it keeps its hands)."""
    mid, share = _match(field)
    keys = {n: _key(field, mid, share, n) for n in ("s1", "s2", "s3", "s4", "next")}
    for n in ("s1", "s2", "s3", "s4"):
        assert _state(field, mid, n, keys[n])["status"] == "decision"
    r = field.get(f"/api/matches/{mid}/lines/next", headers={"X-Line-Key": keys["next"]})
    assert r.status_code == 503
    field.clock.now += 61
    assert _state(field, mid, "next", keys["next"])["status"] == "decision"
    for n in ("s1", "s2", "s3", "next"):  # places for the squatter again, in turn
        field.post(f"/api/matches/{mid}/lines/{n}/pause", headers={"X-Line-Key": keys[n]})
    assert _state(field, mid, "s1", keys["s1"])["status"] == "decision"  # kept its hand


# ------------------------------------------------------------- simultaneous play
def test_simultaneous_play_hand_by_hand_with_the_clock(field):
    """Point 6: nobody is dealt hand k+1 before every line finished hand k; nothing is dealt
    before the field is complete; a line whose clock ran out has the rest of its hand played by
    the table's rule (check, else fold: `host.legal.default_action`, recorded "timeout"), and
    after two such hands in a row it is away (the series' `protocol.Clock`): its next hand is
    played as soon as it opens, recorded "away"."""
    field.cookies.clear()
    mid, share = _match(field, simultaneous=True, participants=3, clock=30, hands=3)
    keys = {n: _key(field, mid, share, n) for n in ("ann", "bob")}
    st = _state(field, mid, "ann", keys["ann"])
    assert st["status"] == "waiting" and st["waiting_for"] == "field" and "view" not in st
    keys["cat"] = _key(field, mid, share, "cat")
    field.svc.tick()  # hand 1's clock starts when the service sees it open to all
    first = {n: _state(field, mid, n, keys[n]) for n in ("ann", "bob")}
    assert {n: (s["status"], s["view"]["hand"]) for n, s in first.items()} == {
        "ann": ("decision", 0), "bob": ("decision", 0)}
    assert first["ann"]["clock"] == 30
    assert field.get(f"/api/matches/{mid}").json()["round"] == {"hand": 0, "behind": 3}
    st = _play_hand(field, mid, "ann", keys["ann"])
    assert st["status"] == "waiting" and st["waiting_for"] == "hand" and st["behind"] == 2
    assert any(e["type"] == "hand_over" for e in st["events"])
    _play_hand(field, mid, "bob", keys["bob"])
    st = _state(field, mid, "ann", keys["ann"])
    assert st["status"] == "waiting" and st["behind"] == 1  # cat never came: still on hand 1
    for hand in (1, 2):
        field.clock.now += 29
        field.svc.tick()
        assert _state(field, mid, "ann", keys["ann"])["status"] == "waiting"
        field.clock.now += 2  # cat's clock ran out: the table plays the rest of cat's hand
        field.svc.tick()
        nxt = {n: _state(field, mid, n, keys[n]) for n in ("ann", "bob")}
        assert {n: (s["status"], s["view"]["hand"]) for n, s in nxt.items()} == {
            "ann": ("decision", hand), "bob": ("decision", hand)}
        if hand == 2:
            break
        for n in ("ann", "bob"):
            _play_hand(field, mid, n, keys[n])
    with pytest.raises(Exception, match="sealed"):
        field.svc.store.lines(mid)
    field.svc.tick()  # cat is away: hand 3 is played for cat at once, no clock to wait for
    assert field.get(f"/api/matches/{mid}").json()["round"] == {"hand": 2, "behind": 2}
    _play_hand(field, mid, "ann", keys["ann"])
    again = _state(field, mid, "ann", keys["ann"])  # a finished line says so (it was a 409)
    assert again["status"] == "finished" and again["hands_done"] == 3, again
    _play_hand(field, mid, "bob", keys["bob"])
    field.svc.tick()  # every line is finished: the match is closed (complete)
    m = field.svc.store.match(mid)
    assert m.state == "closed" and m.close_reason == "complete"
    cat = field.svc.store.lines(mid)["cat"].hands
    autos = [{a[5] for a in cat[h]["actions"] if a[1] == 0} for h in range(3)]
    assert autos == [{"timeout"}, {"timeout"}, {"away"}], autos
    # made in the store, the match has no reference lines yet: its results wait for them
    assert field.get(f"/api/matches/{mid}/leaderboard").status_code == 503
    field.svc.ready(mid, 120)
    assert field.get(f"/api/matches/{mid}/leaderboard").status_code == 200


def test_a_waiting_line_needs_no_place(tmp_path):
    """A simultaneous line that waits for the others is answered "waiting" even while the
    lines in play fill the cap (its page keeps asking; a 503 would stop it)."""
    app = create_app(str(tmp_path / "s.sqlite"), operator=OPERATOR, max_lines=1, tick_s=None)
    with TestClient(app) as c:
        c.svc = app.state.service
        mid, share = _match(c, simultaneous=True, participants=2)
        ann, _ = _key(c, mid, share, "ann"), _key(c, mid, share, "bob")
        assert _play_hand(c, mid, "ann", ann)["status"] == "waiting"
        other, token = _match(c)
        x = _key(c, other, token, "x")
        assert _state(c, other, "x", x)["status"] == "decision"  # x holds the one place
        st = c.get(f"/api/matches/{mid}/lines/ann", headers={"X-Line-Key": ann})
        assert st.status_code == 200 and st.json()["status"] == "waiting", st.text


def test_simultaneous_matches_from_the_cli(tmp_path):
    """``create --simultaneous --clock``; the terminal cannot play one (the service deals it)."""
    store = tmp_path / "s.sqlite"
    ran = run_cli(store, "create", "--seats", 3, "--hands", 1, "--bots", "advanced,beginner",
                  "--simultaneous", "--clock", 45, "--references", "close", "--json")
    assert ran.code == 0, ran
    import json

    mid = json.loads(ran.out)["match"]
    with Store(store) as s:
        spec = s.match(mid).spec
    assert spec.simultaneous is True and spec.clock == 45
    ran = run_cli(store, "play", mid, "--name", "ann", stdin="c\n")
    assert ran.code == 2 and "is simultaneous" in ran.err
    for bad in ({"simultaneous": "yes"}, {"clock": 1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            match.MatchSpec(**{**SPEC.as_dict(), **bad})


# ------------------------------------------------------------------------- pages
def test_your_own_actions_come_back_in_the_events(field):
    """Finding 9: your own actions never appeared in the hand log (the server left them out
    of the events the page logs)."""
    field.cookies.clear()
    mid, share = _match(field)
    key = _key(field, mid, share, "me")
    st = _state(field, mid, "me", key)
    r = field.post(f"/api/matches/{mid}/lines/me/act", headers={"X-Line-Key": key},
                   json={"decision": st["decision"], "action": "call"}).json()
    mine = [e for e in r["events"] if e["type"] == "action" and e["seat"] == 0]
    assert mine and mine[0]["code"] in (1, 2), r["events"]
    field.post(f"/api/matches/{mid}/lines/me/pause", headers={"X-Line-Key": key})


def test_pages_errors_and_links(field):
    """Finding 9: result links showed while sealed and led to 403; HTML routes answered in raw
    JSON; the sealed page told a browser user to run a CLI command. One templating scheme with
    autoescape (Jinja2) for the service's pages; the play page draws the table with the
    series viewer's code."""
    field.cookies.clear()
    mid, share = _match(field)
    _key(field, mid, share, '<b id="x">')
    page = field.get(f"/m/{mid}").text
    assert "result-link" not in page and f"/m/{mid}/leaderboard" not in page
    assert '&lt;b id=&#34;x&#34;&gt;' in page and '<b id="x">' not in page  # escaped
    assert 'id="share-link"' in page
    for path, status in ((f"/m/{mid}/leaderboard", 403), ("/m/nope", 404),
                         (f"/join/{mid}/forged", 409), (f"/m/{mid}/nothing", 404)):
        r = field.get(path)
        assert r.status_code == status and r.headers["content-type"].startswith("text/html")
        assert "<main>" in r.text and "holdemjax duplicate close" not in r.text, path
    assert 'id="sealed"' in field.get(f"/m/{mid}/leaderboard").text
    play = field.get(f"/m/{mid}/play/x").text
    assert "/static/felt.js" in play and "/static/felt.css" in play
    series = pathlib.Path(__file__).resolve().parents[2] / "holdemjax" / "series" / "static"
    assert field.get("/static/felt.js").content == (series / "felt.js").read_bytes()
    from holdemjax.series import viewer

    assert (series / "felt.js").read_text() in viewer.template()  # one copy, two pages
    field.svc.store.close_match(mid)
    closed = field.get(f"/m/{mid}").text
    assert f'href="/m/{mid}/leaderboard"' in closed and 'id="operator"' not in closed
