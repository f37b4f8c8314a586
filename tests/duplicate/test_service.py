"""The duplicate web service through FastAPI's test client: create, join by share link and
invitation (one door), play over the JSON API, sealed routes, the cap on lines in play, close
and the results."""

from __future__ import annotations

import sqlite3

import pytest
from fastapi.testclient import TestClient

from holdemjax.duplicate import match
from holdemjax.duplicate.entrants import HeroLoaders
from holdemjax.duplicate.service import create_app

OP = {"X-Operator": "operator-token"}
SPEC = {"seats": 3, "hands": 2, "bots": ["advanced", "beginner"], "seed": 2**90 + 17}


@pytest.fixture
def client(tmp_path):
    app = create_app(str(tmp_path / "s.sqlite"), operator="operator-token", max_lines=2)
    with TestClient(app) as c:
        c.store_path = tmp_path / "s.sqlite"
        yield c


def _play(client, mid, name, key, choose=lambda legal: {"action": "call"}):
    """Play a whole line over the API; returns (the states seen, the last state)."""
    h = {"X-Line-Key": key}
    st = client.get(f"/api/matches/{mid}/lines/{name}", headers=h).json()
    seen = [st]
    while st["status"] == "decision":
        r = client.post(f"/api/matches/{mid}/lines/{name}/act", headers=h,
                        json={"decision": st["decision"], **choose(st["view"]["legal"])})
        assert r.status_code == 200, r.text
        st = r.json()
        seen.append(st)
    return seen, st


def _create(client, **extra):
    r = client.post("/api/matches", json={**SPEC, **extra}, headers=OP)
    assert r.status_code == 200, r.text
    return r.json()


def test_only_the_operator_creates(client):
    """403 without the token, and a wrong token is told it is wrong, not that it is missing
    (issue 51)."""
    missing = client.post("/api/matches", json=SPEC)
    assert missing.status_code == 403 and "is required" in missing.json()["detail"]
    wrong = client.post("/api/matches", json=SPEC, headers={"X-Operator": "x"})
    assert wrong.status_code == 403 and "is wrong" in wrong.json()["detail"]
    bad = client.post("/api/matches", json={**SPEC, "seats": 12}, headers=OP)
    assert bad.status_code == 422 and "seats must be 2..9, got 12" in bad.json()["detail"]


def test_a_match_played_over_the_api_then_closed(client, monkeypatch):
    m = _create(client)
    mid, share = m["match"], m["share"]
    client.app.state.service.ready(mid)  # the reference lines, played in the background
    assert client.get(f"/api/matches/{mid}").json()["references"] == [6, 6]  # 3 tiers x 2
    assert "reference lines: 6/6 hands" in client.get(f"/m/{mid}").text
    salt, seed = sqlite3.connect(client.store_path).execute(
        "SELECT salt, seed FROM matches").fetchone()
    ann = client.post(f"/api/matches/{mid}/join", json={"token": share, "name": "ann"}).json()
    assert client.post(f"/api/matches/{mid}/join",
                       json={"token": "forged", "name": "eve"}).status_code == 409
    slash = client.post(f"/api/matches/{mid}/join", json={"token": share, "name": "a/b"})
    assert slash.status_code == 422 and "'a/b'" in slash.json()["detail"]
    # a wrong key plays nobody's line
    assert client.get(f"/api/matches/{mid}/lines/ann",
                      headers={"X-Line-Key": "wrong-key-12"}).status_code == 403
    seen, last = _play(client, mid, "ann", ann["key"])
    assert last["status"] == "finished" and last["hands_done"] == 2
    first = seen[0]["view"]
    assert first["seat"] == 0 and len(first["hole"]) == 2 and "legal" in first
    assert any(e["type"] == "hand_over" for s in seen for e in s["events"])
    # sealed: every GET route (pages and API), with the match's parameters filled in
    for route in client.app.routes:
        if "GET" not in getattr(route, "methods", ()) or route.path == "/static/{name}":
            continue
        path = (route.path.replace("{match_id}", mid).replace("{name}", "ann")
                .replace("{token}", share).replace("{what}", "leaderboard"))
        r = client.get(path)
        assert seed not in r.text and salt not in r.text and "hero_net" not in r.text, path
        assert "finished" not in r.text, path  # nobody's status shows while open
    for what in ("leaderboard", "style", "review", "report", "verify"):
        r = client.get(f"/api/matches/{mid}/{what}")
        assert r.status_code == 403 and r.json()["sealed"], what
    assert client.get(f"/m/{mid}/leaderboard").status_code == 403
    # an invitation for bob; the operator enters a bot; then the field closes
    inv = client.post(f"/api/matches/{mid}/invites", json={"name": "bob"}, headers=OP).json()
    wrong = client.post(f"/api/matches/{mid}/join", json={"token": inv["token"], "name": "x"})
    assert wrong.status_code == 409 and "for 'bob'" in wrong.json()["detail"]
    bob = client.post(f"/api/matches/{mid}/join", json={"token": inv["token"], "name": "bob"})
    assert bob.status_code == 200
    r = client.post(f"/api/matches/{mid}/entrants?name=robot&bot=advanced", headers=OP)
    assert r.json() == {"name": "robot", "status": "finished"}
    st = client.post(f"/api/matches/{mid}/close-field", headers=OP).json()
    assert st["state"] == "open" and st["field_closed"]  # bob is still to play
    for token in (share, client.post(f"/api/matches/{mid}/invites", json={},
                                     headers=OP).json()["token"]):
        r = client.post(f"/api/matches/{mid}/join", json={"token": token, "name": "late"})
        assert r.status_code == 409 and "no more participants" in r.json()["detail"]
        assert client.get(f"/join/{mid}/{token}").status_code == 409
    _, last = _play(client, mid, "bob", bob.json()["key"],
                    lambda legal: {"action": "raise", "amount": legal["raise"][1]}
                    if legal["raise"] else {"action": "call"})
    st = client.get(f"/api/matches/{mid}").json()
    assert st["state"] == "closed" and st["close_reason"] == "complete"
    assert st["seed"] == int(seed) and st["salt"] == salt
    assert match.commitment(st["seed"], st["salt"]) == m["commitment"]
    board = client.get(f"/api/matches/{mid}/leaderboard").json()
    assert {p["name"] for p in board["participants"]} == {"ann", "bob", "robot"}
    assert board["headline"]["kind"] == "divergent_ranking"
    ann_row = next(p for p in board["participants"] if p["name"] == "ann")
    hero_actions = sum(1 for s in seen if s["status"] == "decision")
    assert ann_row["thinking"]["decisions"] == hero_actions  # every decision of ann's was timed
    review = client.get(f"/api/matches/{mid}/review?a=ann&b=bob").json()
    assert review["a"] == "ann" and review["divergent_hands"] >= 1  # all-in vs calls
    verified = client.get(f"/api/matches/{mid}/verify").json()
    assert verified["ok"]
    # computed once and kept (issue 50, finding 5): anyone may ask, nobody replays it again
    from holdemjax.duplicate import verify

    monkeypatch.setattr(verify, "verify", lambda *a, **k: pytest.fail("replayed again"))
    assert client.get(f"/api/matches/{mid}/verify").json() == verified
    assert "verify" in client.get(f"/m/{mid}/verify").text
    page = client.get(f"/m/{mid}/leaderboard")
    assert page.status_code == 200 and 'id="headline"' in page.text
    assert client.get(f"/m/{mid}").text.count("finished") >= 3


def test_a_bad_action_is_refused_naming_it_and_the_cap_refuses_a_third_line(client):
    m = _create(client)
    mid, share = m["match"], m["share"]
    keys = {n: client.post(f"/api/matches/{mid}/join", json={"token": share, "name": n})
            .json()["key"] for n in ("a", "b", "c")}
    views = {}
    for n in ("a", "b"):
        st = client.get(f"/api/matches/{mid}/lines/{n}", headers={"X-Line-Key": keys[n]}).json()
        assert st["status"] == "decision"
        views[n] = st["view"]
    first_view = views["a"]
    r = client.get(f"/api/matches/{mid}/lines/c", headers={"X-Line-Key": keys["c"]})
    assert r.status_code == 503 and "2 lines are being played" in r.json()["detail"]
    h = {"X-Line-Key": keys["a"]}
    r = client.post(f"/api/matches/{mid}/lines/a/act", headers=h,
                    json={"decision": 0, "action": "shove"})
    assert r.status_code == 422 and "'shove'" in r.json()["detail"]
    r = client.post(f"/api/matches/{mid}/lines/a/act", headers=h,
                    json={"decision": 0, "action": "raise", "amount": 10**6})
    assert r.status_code == 422 and "not legal" in r.json()["detail"]
    paused = client.post(f"/api/matches/{mid}/lines/a/pause", headers=h).json()
    assert paused == {"status": "paused", "hands_done": 0}
    # a pause frees a place: c plays now; a resumes where it stopped
    assert client.get(f"/api/matches/{mid}/lines/c",
                      headers={"X-Line-Key": keys["c"]}).json()["status"] == "decision"
    assert client.get(f"/api/matches/{mid}/lines/a", headers=h).status_code == 503
    client.post(f"/api/matches/{mid}/lines/c/pause", headers={"X-Line-Key": keys["c"]})
    resumed = client.get(f"/api/matches/{mid}/lines/a", headers=h).json()
    assert resumed["status"] == "decision" and resumed["hands_done"] == 0
    assert resumed["view"]["hole"] == first_view["hole"]  # the same decision, from the store
    assert resumed["view"]["history"] == first_view["history"]


def test_the_operator_uploads_a_wasm_participant(client):
    from holdemjax.series.policies import bundled

    mid = _create(client)["match"]
    wasm = open(bundled("baseline"), "rb").read()
    assert client.post(f"/api/matches/{mid}/entrants?name=up", content=wasm).status_code == 403
    r = client.post(f"/api/matches/{mid}/entrants?name=up", content=wasm, headers=OP)
    assert r.status_code == 200 and r.json() == {"name": "up", "status": "finished"}
    bad = client.post(f"/api/matches/{mid}/entrants?name=junk", content=b"not wasm", headers=OP)
    assert bad.status_code == 422 and "not a .wasm module" in bad.json()["detail"]
    st = client.get(f"/api/matches/{mid}").json()
    assert st["participants"] == [{"name": "up", "kind": "wasm", "status": "joined"}]


def test_the_operator_uploads_a_sampled_participant(tmp_path):
    """``?suffix=KIND&sample=true`` plays the upload with the kind's sampled loader (the CLI's
    ``duplicate run FILE --sample``); refused for a kind that cannot be sampled. The loaders are
    the app's argument (issue 36 finding 10: no module global the CLI fills)."""
    made = []

    def sampled(path):
        made.append(open(path, "rb").read())
        return match.BotHero("advanced")

    heroes = HeroLoaders({".fake": lambda path: match.BotHero("beginner")}, {".fake": sampled})
    app = create_app(str(tmp_path / "s.sqlite"), operator="operator-token", hero_loaders=heroes)
    with TestClient(app) as client:
        _sampled_upload(client, made)


def _sampled_upload(client, made):
    mid = _create(client)["match"]
    r = client.post(f"/api/matches/{mid}/entrants?name=s&suffix=.fake&sample=true",
                    content=b"weights", headers=OP)
    assert r.status_code == 200 and r.json() == {"name": "s", "status": "finished"}
    assert made == [b"weights"]
    bad = client.post(f"/api/matches/{mid}/entrants?name=w&sample=true", content=b"\0asm",
                      headers=OP)
    assert bad.status_code == 422 and "not a .wasm module" in bad.json()["detail"]
    assert client.get(f"/api/matches/{mid}").json()["participants"] == [
        {"name": "s", "kind": "bot", "status": "joined"}]


def test_the_operator_uploads_a_checkpoint(tmp_path):
    """A PPO checkpoint uploaded with ``?suffix=.msgpack`` plays its JAX policy (the loaders the
    ``holdemjax`` command passes; the page sends that suffix for a .msgpack file) and plays
    the line ``duplicate run MATCH X.msgpack`` plays on the same match. Issue 36 finding 10:
    an app made by `create_app` alone, with the loaders as its argument, takes a .msgpack
    upload (no parser need be built first)."""
    from holdemjax import cli as command
    from holdemjax.duplicate.store import Store

    app = create_app(str(tmp_path / "s.sqlite"), operator="operator-token",
                     hero_loaders=command.hero_loaders())
    with TestClient(app) as client:
        client.store_path = tmp_path / "s.sqlite"
        _checkpoint_upload(client, command, Store)


def _checkpoint_upload(client, command, Store):
    import pathlib

    path = (pathlib.Path(__file__).resolve().parents[2] / "training" / "checkpoints"
            / "sng6_example.msgpack")
    six = dict(seats=6, bots=["advanced", "beginner", "intermediate", "advanced", "beginner"])
    mid = _create(client, **six)["match"]
    r = client.post(f"/api/matches/{mid}/entrants?name=upload&suffix=.msgpack",
                    content=path.read_bytes(), headers=OP)
    assert r.status_code == 200 and r.json() == {"name": "upload", "status": "finished"}
    with Store(str(client.store_path)) as s:
        match.play_line(s, mid, "by-file", command.hero_loaders().files[".msgpack"](str(path)))
    assert client.post(f"/api/matches/{mid}/close", headers=OP).status_code == 200
    with Store(str(client.store_path)) as s:
        lines = s.lines(mid)
    assert lines["upload"].hands and lines["upload"].hands == lines["by-file"].hands


def test_close_answers_at_once_and_results_wait_for_the_references(client):
    """Issue 36 points 2 and 8: closing is a write that answers at once (it played the missing
    reference lines inside the request, under the global lock); a closed match's results
    answer 503 naming the progress while the background worker plays them, never a partial
    field."""
    mid = _create(client, hands=1000)["match"]
    st = client.post(f"/api/matches/{mid}/close", headers=OP).json()
    assert st["state"] == "closed" and st["preparing"], st
    r = client.get(f"/api/matches/{mid}/leaderboard")
    assert r.status_code == 503 and "reference lines are being played" in r.json()["detail"]
    assert client.get(f"/m/{mid}/leaderboard").status_code == 503
    status = client.get(f"/api/matches/{mid}").json()
    assert status["preparing"] and status["references"][1] == 3000
