"""Issue 36, "the duplicate service a club can run": every bad input a clear 4xx, no side
channels, normalised names, exactly-once actions, and a leaderboard that ranks finished lines.

One app for the module (`club`), with matches made straight in its store (no reference lines
are played, so nothing here compiles but the one 3-seat line of `test_service.py`'s spec); the
body caps are also tried on a real uvicorn (`tests.duplicate.server.running`), where a body that
is never sent shows whether the server waits to read it.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import stat

import pytest
from fastapi.testclient import TestClient

from holdemjax.duplicate import match, names, report, scores
from holdemjax.duplicate.service import JSON_CAP, UPLOAD_CAP, create_app
from holdemjax.duplicate.store import Store
from tests.duplicate.lines import SPEC as LINES_SPEC
from tests.duplicate.lines import from_nets
from tests.duplicate.server import OPERATOR, running

OP = {"X-Operator": OPERATOR}
SPEC = match.MatchSpec(seats=3, hands=2, bots=("advanced", "beginner"))  # test_service's programs
SEED = 2**90 + 17


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = tmp_path_factory.mktemp("club") / "club.sqlite"
    from holdemjax import cli as command

    # the loaders the `holdemjax` command passes (.msgpack checkpoints)
    app = create_app(str(path), operator=OPERATOR, max_lines=1,
                     hero_loaders=command.hero_loaders())
    # a failure must come back as the client sees it (a 500 too), not as a raised exception
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def _match(client, **spec) -> tuple[str, str]:
    """A new open match in the app's store (no reference lines): (id, share token)."""
    store = client.app.state.service.store
    m = store.create_match(match.MatchSpec(**{**SPEC.as_dict(), **spec}), SEED)
    return m.id, store.add_door(m.id, "share")


def _join(client, mid, share, name):
    return client.post(f"/api/matches/{mid}/join", json={"token": share, "name": name})


def _key(client, mid, share, name) -> str:
    r = _join(client, mid, share, name)
    assert r.status_code == 200, r.text
    return r.json()["key"]


# ----------------------------------------------------------- A: every bad input a clear 4xx
@pytest.mark.parametrize("body, why", [
    (b"\0asm" + bytes(range(256)) * 4, "compile"),  # 1 KB of garbage behind the magic
    ("start_forever", "start"),  # a module that loops in its start call
])
def test_an_upload_that_fails_to_load_is_a_422_with_its_cause(club, body, why):
    """Finding 3: `PolicyLoadError` escaped as a 500 traceback; now 422 with its cause."""
    import pathlib

    import wasmtime

    if isinstance(body, str):
        zoo = pathlib.Path(__file__).resolve().parents[1] / "series" / "zoo"
        body = bytes(wasmtime.wat2wasm((zoo / f"{body}.wat").read_text()))
    mid, _ = _match(club)
    r = club.post(f"/api/matches/{mid}/entrants?name=up", content=body, headers=OP)
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith(f"the uploaded policy did not load ({why}): ")
    assert club.get(f"/api/matches/{mid}").json()["participants"] == []  # it never joined


def test_a_checkpoint_upload_that_fails_to_load_is_a_422(club):
    """Finding 3 (a .msgpack upload): the loader's failure is a 422 naming the file's kind
    and its reason, without the server's temporary path (it named it before)."""
    mid, _ = _match(club)
    r = club.post(f"/api/matches/{mid}/entrants?name=ck&suffix=.msgpack",
                  content=b"\x93garbage" * 100, headers=OP)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert detail.startswith("the uploaded .msgpack file did not load: ValueError: "), detail
    assert "not a readable checkpoint" in detail and "/tmp" not in detail


def test_bodies_over_the_cap_are_413_from_the_test_client(club):
    """Finding 4: a body over the cap (64 KiB of JSON, 16 MiB of upload) is refused with 413,
    with or without credentials."""
    mid, share = _match(club)
    big = b'{"token": "' + b"x" * JSON_CAP + b'", "name": "a"}'
    for path in (f"/api/matches/{mid}/join", f"/api/matches/{mid}/lines/a/act",
                 "/api/matches"):
        r = club.post(path, content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413, (path, r.text)
        assert r.json()["detail"] == (f"a request body of {len(big)} bytes is over the "
                                      f"{JSON_CAP}-byte limit of this route")
    r = club.post(f"/api/matches/{mid}/entrants?name=big", content=b"\0asm" + b"\0" * UPLOAD_CAP,
                  headers=OP)
    assert r.status_code == 413 and f"{UPLOAD_CAP}-byte" in r.json()["detail"]
    assert _join(club, mid, share, "fits").status_code == 200  # a body under the cap passes


def _raw(base: str, head: str, chunks=()) -> tuple[str, int]:
    """Send ``head`` (request line and headers) then ``chunks`` to the server behind ``base``
    until it answers; returns (its status line, the body bytes sent before the answer)."""
    host, port = base.removeprefix("http://").split(":")
    sent = 0
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(head.encode())
        try:
            for chunk in chunks:
                s.settimeout(0.0)
                try:
                    if s.recv(1, socket.MSG_PEEK):
                        break  # answered already
                except BlockingIOError:
                    pass
                s.settimeout(10)
                s.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the server closed the connection: its answer is waiting
        s.settimeout(10)
        answer = s.recv(4096).decode("latin-1")
    return answer.split("\r\n", 1)[0], sent


def test_bodies_over_the_cap_are_refused_before_they_are_read(tmp_path):
    """Finding 4: a 200 MB POST to /join (or /entrants) with no credentials was read and
    parsed. Now the Content-Length alone refuses it (nothing of the body is sent here), and a
    chunked body is cut off once the bytes read pass the cap."""
    with Store(tmp_path / "s.sqlite") as s:
        mid = s.create_match(SPEC, SEED).id
    with running(tmp_path / "s.sqlite") as (base, _):
        for path in (f"/api/matches/{mid}/join", f"/api/matches/{mid}/lines/a/act",
                     f"/api/matches/{mid}/entrants?name=x"):
            status, _ = _raw(base, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: "
                             f"application/json\r\nContent-Length: {200 * 2**20}\r\n\r\n")
            assert status.startswith("HTTP/1.1 413 "), (path, status)
        piece = b"x" * 2**14
        chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        status, sent = _raw(base, f"POST /api/matches/{mid}/join HTTP/1.1\r\nHost: x\r\n"
                            "Content-Type: application/json\r\nTransfer-Encoding: chunked"
                            "\r\n\r\n", [chunk] * (200 * 2**20 // len(piece)))
        assert status.startswith("HTTP/1.1 413 "), status
        assert sent < 64 * JSON_CAP  # cut off near the cap, far from the 200 MB


@pytest.mark.parametrize("name", [".", "..", "a" * 65, "", "   ", "a/b", "..\\x", "tab\there",
                                  "zero\u200bwidth", 7, "\u3164", "\u2800", "\u0301\u0301"])
def test_malformed_names_are_422_naming_them(club, name):
    """Finding 6: "." and ".." were accepted, and a bad length answered 409 (docs: 422); issue
    50: blank names (a Hangul filler, a braille blank, combining marks only) were accepted."""
    mid, share = _match(club)
    r = _join(club, mid, share, name)
    assert r.status_code == 422, (name, r.text)
    shown = repr(name) if isinstance(name, str) else f"(got {name!r})"
    assert shown in r.json()["detail"], r.text
    assert club.get(f"/api/matches/{mid}").json()["participants"] == []


def test_names_are_normalised_and_look_alikes_are_one_name(club):
    """Finding 6: " alice" and "аlice" (Cyrillic а) were accepted beside "alice"."""
    mid, share = _match(club)
    assert _join(club, mid, share, "alice").status_code == 200
    for twin in (" alice", "alice ", "ALICE", "\u0430lice", "ａｌｉｃｅ", "Αlice", "al\u0130ce",
                 "al\u0131ce", "alice\u3164"):  # issue 50: dotted/dotless i, a filler
        r = _join(club, mid, share, twin)
        assert r.status_code == 409 and "already took part" in r.json()["detail"], (twin, r.text)
    r = _join(club, mid, share, "  ｂｏｂ ")  # NFKC and trimmed: the name as kept is returned
    assert r.status_code == 200 and r.json()["name"] == "bob"
    assert r.json()["play_url"] == f"/m/{mid}/play/bob"
    assert [p["name"] for p in club.get(f"/api/matches/{mid}").json()["participants"]] == [
        "alice", "bob"]


def test_operator_entrants_and_invitations_obey_the_name_rules(club):
    """Finding 6: operator-entered bots skipped the name check ("../etc")."""
    mid, _ = _match(club)
    for name in ("../etc", "..", " padded"):
        r = club.post(f"/api/matches/{mid}/entrants?name={name}&bot=advanced", headers=OP)
        assert r.status_code == 422 and repr(name) in r.json()["detail"], (name, r.text)
    r = club.post(f"/api/matches/{mid}/invites", json={"name": "a/b"}, headers=OP)
    assert r.status_code == 422 and "'a/b'" in r.json()["detail"]
    assert club.get(f"/api/matches/{mid}").json()["participants"] == []


def test_the_store_refuses_a_name_not_in_its_normal_form(tmp_path):
    """Finding 6, below the service: every joiner (CLI, bots, references) goes through it."""
    with Store(tmp_path / "s.sqlite") as s:
        mid = s.create_match(SPEC, SEED).id
        s.join(mid, "carol", "api", "http", "", match.utcnow())
        with pytest.raises(names.BadName, match="' dave' is not in its normal form: write 'dave'"):
            s.join(mid, " dave", "api", "http", "", match.utcnow())
        with pytest.raises(match.MatchError, match="'CAROL' already took part.*as 'carol'"):
            s.check_can_join(mid, "CAROL")


def test_the_name_rules():
    assert names.normal("  Ｅｖｅ ") == "Eve"
    assert names.fold("Eve") == names.fold("EVE") == names.fold("\u0415ve")  # Cyrillic Е
    assert names.fold("a  b") == names.fold("a b")
    assert names.fold("alice") != names.fold("alicia")
    assert names.normal("ref:advanced") == "ref:advanced"
    with pytest.raises(names.BadName, match="1..64 characters"):
        names.normal("x" * 65)


def test_bad_bodies_are_422_naming_the_field(club):
    """Bodies are models: a wrong type or an unknown field is a 422 naming it, never a 500."""
    mid, share = _match(club)
    r = club.post(f"/api/matches/{mid}/join", json={"token": share, "name": "x", "admin": 1})
    assert r.status_code == 422 and "admin" in r.json()["detail"]
    r = club.post(f"/api/matches/{mid}/join", json=["not", "an", "object"])
    assert r.status_code == 422 and r.json()["detail"].startswith("bad request: ")
    r = club.post("/api/matches", json={"seats": "6"}, headers=OP)
    assert r.status_code == 422 and "seats" in r.json()["detail"] and "'6'" in r.json()["detail"]
    r = club.post(f"/api/matches/{mid}/join", content=b"{not json",
                  headers={"Content-Type": "application/json"})
    assert r.status_code == 422


def test_a_deadline_in_the_past_is_refused(club):
    """Finding 8: a match whose deadline has passed is refused at creation (422)."""
    r = club.post("/api/matches", json={"seats": 3, "hands": 2,
                                        "deadline": "2020-01-01T00:00Z"}, headers=OP)
    assert r.status_code == 422 and "deadline 2020-01-01T00:00:00+00:00 is not in the future" \
        in r.json()["detail"]


# ------------------------------------------------------------------- B: no side channels
def test_one_answer_for_every_failed_line_key_check(club):
    """Finding 5: without a key, a line being played answered "wrong key for 'p1'" and a
    paused or unopened one "no line 'p1' with that key": anyone could poll who is playing.
    Now one status and one text for every state, the unknown name included; and the cap of
    lines in play (1 here) answers only after the key is checked."""
    mid, share = _match(club)
    keys = {n: _key(club, mid, share, n) for n in ("live", "paused", "unopened")}
    h = {"X-Line-Key": keys["paused"]}
    assert club.get(f"/api/matches/{mid}/lines/paused", headers=h).json()["status"] == "decision"
    assert club.post(f"/api/matches/{mid}/lines/paused/pause", headers=h).status_code == 200
    # "live" holds the one place in play
    st = club.get(f"/api/matches/{mid}/lines/live", headers={"X-Line-Key": keys["live"]}).json()
    answers = set()
    for n in ("live", "paused", "unopened", "nobody"):
        for key in (None, "wrong-key-123", keys["unopened" if n != "unopened" else "live"]):
            h = {} if key is None else {"X-Line-Key": key}
            for r in (club.get(f"/api/matches/{mid}/lines/{n}", headers=h),
                      club.post(f"/api/matches/{mid}/lines/{n}/act", headers=h,
                                json={"decision": 0, "action": "call"}),
                      club.post(f"/api/matches/{mid}/lines/{n}/pause", headers=h)):
                answers.add((r.status_code, r.text))
    assert len(answers) == 1, answers
    status, text = answers.pop()
    assert status == 403 and "live" not in text and "paused" not in text
    # the right key still plays its line
    r = club.post(f"/api/matches/{mid}/lines/live/pause", headers={"X-Line-Key": keys["live"]})
    assert r.status_code == 200 and st["status"] == "decision"


def test_an_unknown_match_names_no_path_and_no_other_match(club):
    """Finding 5: a 404 for an unknown match printed the store's file path and the open
    matches' ids."""
    mid, _ = _match(club)
    path = club.app.state.service.store.path
    for r in (club.get("/api/matches/nope"), club.get("/m/nope"),
              club.post("/api/matches/nope/invites", json={}, headers=OP),
              club.post("/api/matches/nope/close-field", headers=OP)):
        assert r.status_code == 404, r.text
        if r.url.path.startswith("/api/"):
            assert r.json()["detail"] == "no match 'nope'"
        else:  # a page answers with a page (issue 36 point 7)
            assert "no match &#39;nope&#39;" in r.text and "<h2" in r.text
        assert path not in r.text and os.path.basename(path) not in r.text and mid not in r.text


def test_the_store_file_and_its_companions_are_private(tmp_path):
    """Finding 8: club.sqlite and its WAL were created 0644 with the open matches' seeds."""
    old = os.umask(0o022)
    try:
        with Store(tmp_path / "club.sqlite") as s:
            s.create_match(SPEC, SEED)
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    finally:
        os.umask(old)
    assert modes == {"club.sqlite": 0o600, "club.sqlite-wal": 0o600, "club.sqlite-shm": 0o600}
    ignored = (os.path.dirname(os.path.dirname(os.path.dirname(__file__))) + "/.gitignore")
    assert "*.sqlite*" in open(ignored).read().split()


# ------------------------------------------------------------------ C: exactly-once actions
def test_an_action_names_its_decision_and_a_repeat_plays_nothing(club):
    """Finding 1: /act named no decision, so a retried request or a double click played the
    next decision too ("call 60" twice also called the flop unseen). Now every decision has
    an id; a repeat of the decision just played gets the first answer again and plays
    nothing; an older or a future id is a 409; an action without one a 422."""
    mid, share = _match(club)
    h = {"X-Line-Key": _key(club, mid, share, "ann")}
    url = f"/api/matches/{mid}/lines/ann"
    st = club.get(url, headers=h).json()
    assert st.get("status") == "decision" and st["decision"] == 0, st
    r = club.post(url + "/act", headers=h, json={"action": "call"})
    assert r.status_code == 422 and "decision" in r.json()["detail"]
    first = club.post(url + "/act", headers=h, json={"decision": 0, "action": "call"})
    assert first.status_code == 200 and first.json()["status"] == "decision"
    assert first.json()["decision"] == 1
    again = club.post(url + "/act", headers=h, json={"decision": 0, "action": "call"})
    assert again.status_code == 200 and again.json() == first.json()
    now = club.get(url, headers=h).json()
    assert now["decision"] == 1 and now["view"]["history"] == first.json()["view"]["history"]
    for stale in (-1, 3):
        r = club.post(url + "/act", headers=h, json={"decision": stale, "action": "call"})
        assert r.status_code == 409 and f"decision {stale} " in r.json()["detail"], r.text
        assert "offered now is 1" in r.json()["detail"]
    second = club.post(url + "/act", headers=h, json={"decision": 1, "action": "call"})
    assert second.status_code == 200
    r = club.post(url + "/act", headers=h, json={"decision": 0, "action": "call"})
    assert r.status_code == 409 and "decision 0 was played" in r.json()["detail"]
    # a paused line resumes counting from the store
    club.post(url + "/pause", headers=h)
    assert club.get(url, headers=h).json().get("decision") == second.json().get("decision")
    club.post(url + "/pause", headers=h)


def test_a_repeat_with_another_action_is_a_409_naming_the_action_played(club):
    """Issue 50, finding 6: conflicting actions sent at once with one decision id were all
    answered 200 with the answer of the one played (the client that sent fold believed it
    folded). Only a repeat of the very action gets that answer; any other is a 409 naming
    the action that was played."""
    from concurrent.futures import ThreadPoolExecutor

    mid, share = _match(club)
    h = {"X-Line-Key": _key(club, mid, share, "bo")}
    url = f"/api/matches/{mid}/lines/bo"
    legal = club.get(url, headers=h).json()["view"]["legal"]
    assert legal["fold"] and not legal["check"], legal  # fold, call and raise all legal
    sent = [{"decision": 0, "action": a, **({"amount": legal["raise"][0]} if a == "raise"
                                            else {})} for a in ("fold", "call", "raise") * 7]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda b: club.post(url + "/act", headers=h, json=b), sent))
    ok = {b["action"] for b, r in zip(sent, answers) if r.status_code == 200}
    assert len(ok) == 1, [(b, r.status_code) for b, r in zip(sent, answers)]
    (played,) = ok
    for body, r in zip(sent, answers):
        if body["action"] != played:
            assert r.status_code == 409, r.text
            assert f"decision 0 was played as '{played}'" in r.json()["detail"], r.text
            assert repr(body["action"]) in r.json()["detail"], r.text
    assert club.get(url, headers=h).json().get("decision") in (1, None)  # one action played
    club.post(url + "/pause", headers=h)  # (the club plays one line at a time)


def test_an_amount_a_move_does_not_take_and_a_body_a_bot_does_not_read_are_422(club):
    """Issue 50, finding 7: ``call`` with ``amount: 999`` and a junk body on ``?bot=random``
    were accepted (200), the extra silently ignored."""
    mid, share = _match(club)
    h = {"X-Line-Key": _key(club, mid, share, "cy")}
    url = f"/api/matches/{mid}/lines/cy"
    assert club.get(url, headers=h).json()["decision"] == 0
    for action in ("call", "fold", "check"):
        r = club.post(url + "/act", headers=h, json={"decision": 0, "action": action,
                                                      "amount": 999})
        assert r.status_code == 422 and f"{action} takes no amount, got 999" in \
            r.json()["detail"], r.text
    assert club.get(url, headers=h).json()["decision"] == 0  # nothing played
    club.post(url + "/pause", headers=h)
    r = club.post(f"/api/matches/{mid}/entrants?name=rb&bot=random", content=b"junk",
                  headers=OP)
    assert r.status_code == 422 and "a bot entrant takes no body (got 4 bytes)" in \
        r.json()["detail"], r.text
    assert [p["name"] for p in club.get(f"/api/matches/{mid}").json()["participants"]] == ["cy"]


# ---------------------------------------------------------- D: finished lines are ranked
def test_the_leaderboard_ranks_finished_lines_and_lists_unfinished_apart():
    """Finding 8: the leaderboard ranked a finished 30-hand line below 36 lines that played
    no hand. Unfinished lines are listed apart (JSON and page), never ranked."""
    lines = {"done": from_nets("done", [-40, -20, -60, -10]),
             "also": from_nets("also", [-50, -20, -60, -30])}
    for name, nets in [(f"idle{i}", []) for i in range(5)] + [("half", [0, 0])]:
        lines[name] = from_nets(name, nets)
        lines[name].participant = dataclasses.replace(lines[name].participant,
                                                      status="unfinished")
    board = scores.leaderboard(LINES_SPEC, lines)
    assert [p["name"] for p in board["participants"]] == ["done", "also"]
    assert [p["name"] for p in board["unfinished"]] == ["half"] + [f"idle{i}" for i in range(5)]
    assert board["headline"]["ranking"] == ["done", "also"]
    page = report._leaderboard(board)
    ranked = page.split('id="leaderboard"')[1].split("</table>")[0]
    apart = page.split('id="unfinished"')[1].split("</table>")[0]
    assert "idle0" not in ranked and "half" not in ranked and "done" in ranked
    assert "idle0" in apart and "half" in apart


def test_bots_may_be_one_tier_for_all_as_the_docs_say(club):
    """Issue 50, finding 7: docs/duplicate.md says ``bots`` may be one tier for all; the API
    answered 422 for it. A tier alone, or a list of one, seats that tier everywhere."""
    for bots in ("advanced", ["beginner"]):
        r = club.post("/api/matches", headers=OP,
                      json={"seats": 3, "hands": 1, "bots": bots, "seed": SEED})
        assert r.status_code == 200, r.text
        tier = bots if isinstance(bots, str) else bots[0]
        assert club.get(f"/api/matches/{r.json()['match']}").json()["spec"]["bots"] == \
            [tier, tier]
    r = club.post("/api/matches", headers=OP, json={"seats": 3, "bots": "nobody"})
    assert r.status_code == 422 and "unknown tier 'nobody'" in r.json()["detail"]


def test_a_body_that_is_not_json_is_one_clear_sentence(club):
    """Issue 50, finding 7: malformed JSON read ``9: JSON decode error (got {})`` and deeply
    nested JSON ``There was an error parsing the body`` (400); both are a 422 that says what is
    wrong with the body."""
    mid, _ = _match(club)
    json_type = {"Content-Type": "application/json"}
    r = club.post(f"/api/matches/{mid}/join", content=b'{"token": 1,, }', headers=json_type)
    assert r.status_code == 422 and r.json()["detail"] == (
        "bad request: the body is not JSON: expecting property name enclosed in double quotes "
        "at character 13"), r.text
    r = club.post(f"/api/matches/{mid}/join", content=b"[" * 50_000, headers=json_type)
    assert r.status_code == 422 and r.json()["detail"] == (
        "bad request: the body's JSON is nested too deeply to read"), r.text
    r = club.post(f"/api/matches/{mid}/join", content=b'{"name": "\xff"}', headers=json_type)
    assert r.status_code == 422 and r.json()["detail"] == (
        "bad request: the body is not UTF-8 text"), r.text
