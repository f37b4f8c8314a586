"""`holdemjax play` without a browser: a sit & go played to its end through the page's JSON API
(FastAPI's TestClient), then its replay file re-run byte for byte, the person's answers
included (`holdemjax replay`); the person's clock; the command's refusals."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from holdemjax import cli
from holdemjax.play import person
from holdemjax.play.page import create_app
from holdemjax.play.sitgo import SitGo
from holdemjax.series import replay


def _choice(st: dict, n: int) -> dict:
    """Check or call the first decisions, then raise the least, then go all-in."""
    legal = st["view"]["legal"]
    if n >= 3 and legal["raise"]:
        lo, hi = legal["raise"]
        return {"decision": st["decision"], "action": "raise", "amount": hi if n >= 4 else lo}
    return {"decision": st["decision"], "action": "check" if legal["check"] else "call"}


def test_a_sit_and_go_to_its_end_and_its_replay(tmp_path):
    out = tmp_path / "out"
    game = SitGo(["baseline", "random", "baseline", "random", "baseline"], seed=5, out=out)
    with TestClient(create_app(game)) as client:
        page = client.get("/")
        assert page.status_code == 200 and '"api":"/api"' in page.text
        assert client.get("/static/play.js").status_code == 200
        assert client.get("/viewer").status_code == 404  # written at the end
        st = client.get("/api").json()
        assert st["status"] == "decision" and st["seating"]["hero"] == st["view"]["seat"]
        assert len(st["seating"]["bots"]) == 5 and st["events"][0]["type"] == "tournament_start"
        # refusals: another decision (409), an action that is not legal (422), nothing played
        stale = client.post("/api/act", json={"decision": st["decision"] + 1, "action": "fold"})
        assert stale.status_code == 409 and "not the one offered" in stale.json()["detail"]
        bad = client.post("/api/act", json={"decision": st["decision"], "action": "raise",
                                            "amount": 10**9})
        assert bad.status_code == 422 and "not legal now" in bad.json()["detail"]
        events, n = list(st["events"]), 0
        while st["status"] == "decision":
            r = client.post("/api/act", json=_choice(st, n))
            assert r.status_code == 200, r.text
            st, n = r.json(), n + 1
            events += st["events"]
        assert st["status"] == "finished", st
        assert "you finished" in st["note"] and st["link"]["href"] == "/viewer"
        assert client.get("/viewer").status_code == 200
        doc = client.get("/replay.json").json()
    kinds = {e["type"] for e in events}
    assert {"hand_start", "action", "result", "hand_over"} <= kinds
    mine = [e for e in events if e["type"] == "action" and e["seat"] == st["seating"]["hero"]]
    assert len(mine) == n and any(e["code"] == 3 for e in mine)  # your raises are logged
    answers = json.loads((out / person.RECORD_NAME).read_bytes())["answers"]
    assert len(answers) == n and doc["slots"][0]["policy"] == str(out / person.RECORD_NAME)
    same, report = replay.verify(out / "replay.json", loader=person.load_seat)
    assert same, report
    assert cli.main(["replay", str(out / "replay.json")]) == 0  # the command, byte for byte


def test_the_persons_clock_runs_out_and_the_replay_keeps_it(tmp_path):
    """A person who never acts: each decision times out (the table checks or folds), two in a
    row make the seat away (sat in again at once); the replay reproduces the timeouts."""
    game = SitGo(["baseline"] * 5, seed=2, out=tmp_path, clock_s=0.05).start()
    try:
        st = game.state()
        assert st["status"] == "decision" and 0 <= st["clock"] <= 1
        while not game.done:
            game.state(timeout=5)
    finally:
        game.close()
    assert game.error is None and game.state()["status"] == "finished"
    answers = json.loads((tmp_path / person.RECORD_NAME).read_bytes())["answers"]
    assert answers and all(a is None for a in answers)
    doc = replay.load(tmp_path / "replay.json")
    autos = {a["auto"] for h in doc["tournaments"][0]["hands"] for a in h["actions"]
             if h["hole"][doc["tournaments"][0]["player_at_seat"].index(0)] is not None}
    assert "timeout" in autos
    same, report = replay.verify(tmp_path / "replay.json", loader=person.load_seat)
    assert same, report


@pytest.mark.parametrize("argv, words", [
    (["--bots", "baseline", "random"], "one name for every bot, or 5 names"),
    (["--bots", "nosuch"], "a bundled policy (baseline, random) or a .wasm file"),
    (["--bots", "missing.wasm"], "no such file"),
    (["--clock", "0"], "--clock must be a positive number"),
    (["--seed", "-1"], "--seed must be a non-negative integer"),
    (["--port", "70000"], "--port must be in 0..65535"),
])
def test_bad_input_is_one_line_and_exit_2(argv, words, capsys, tmp_path):
    assert cli.main(["play", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("holdemjax play: ") and words in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()  # nothing left behind
