"""Issue #15's holes in the series host, each pinned by a test that failed before the fix:
table talk dropped silently, the engine version hard-coded, a module file read before its size
was checked, sit_in ignored in notification replies, replays missing the options that shaped
play. Scripted policies (tests/series/test_runner.py's kind) on the short `certify` format."""

from __future__ import annotations

import json
import pathlib

import pytest

from holdemjax.series import protocol as P
from holdemjax.series import results as R
from holdemjax.series import runner
from holdemjax.series.wasm import CallResult, PolicyLoadError, load_policy


class Scripted:
    """Replies from ``decide(message) -> (outcome, reply dict | bytes | None, used_ns)``."""

    sha256 = "0" * 64

    def __init__(self, name, decide=None):
        self.name = name
        self.decide = decide or _check_call
        self.messages = []

    def start(self, data: bytes):
        self.started = json.loads(data)
        return CallResult("no_reply", None, 0)

    def new_tournament(self):
        pass

    def call(self, data: bytes, budget_ns: int):
        msg = json.loads(data)
        msg["_budget"] = budget_ns
        self.messages.append(msg)
        outcome, reply, used = self.decide(msg)
        if isinstance(reply, dict):
            reply = json.dumps(reply).encode()
        return CallResult(outcome, reply if outcome == "ok" else None, min(used, budget_ns))


def _check_call(msg):
    if msg["type"] != "act" or msg["away"]:
        return "no_reply", None, 1_000
    lg = msg["legal"]
    return "ok", {"action": "check" if lg["check"] else "call"}, 50_000


def _series(policies, **kw):
    kw.setdefault("variant", "certify-series")
    kw.setdefault("seed", 3)
    kw.setdefault("max_wall", None)
    return runner.run_series(policies, **kw)


def _others(n=5):
    return [Scripted(f"p{i}") for i in range(n)]


# ------------------------------------------------------------------------- table talk (7)
def test_every_dropped_line_is_counted_by_reason():
    """Finding 7: a say line on a default action, chat in a bad reply, an unknown emote and a
    line empty after cleaning were dropped without being counted."""
    def talker(msg):
        if msg["type"] != "act":
            return "ok", {"emote": "dance", "chat": ["\x07\x08"]}, 10  # unknown, empty
        if msg["hand"] % 2 == 0 and not msg["legal"]["check"]:  # not offered, with a say line
            return "ok", {"action": "check", "say": "hmm"}, 10
        return "ok", b'{"action":"pass","chat":["a","b"],"say":"c"}', 10  # a bad reply

    s = _series([Scripted("talker", talker)] + _others(), tournaments=1)
    doc = R.summarize(s, planned=1)["slots"][0]
    by = doc["chat_dropped_by"]
    assert by.get("say_not_admitted", 0) > 0
    assert by.get("bad_reply", 0) >= 3 and by["bad_reply"] % 3 == 0  # two chat lines + say
    assert by.get("unknown_emote", 0) > 0 and by.get("empty", 0) > 0
    assert by["unknown_emote"] == by["empty"]  # one of each per notification
    assert doc["chat_dropped"] == sum(by.values())
    # nothing of it reached the table
    talk = [e for t in s.tournaments for h in t["hands"] for e in h["events"]
            if e["type"] in ("chat", "emote") and e["seat"] == t["player_at_seat"].index(0)]
    assert talk == []


def test_an_away_seat_still_in_the_hand_may_not_emote():
    """Finding 7: an away seat's decision reply emoted though the seat was in the hand."""
    def away_emoter(msg):
        if msg["type"] == "act" and not msg["away"]:
            return "timeout", None, msg["_budget"]  # two in a row: away
        if msg["type"] == "act":
            return "ok", {"emote": "wave"}, 10
        return "no_reply", None, 10

    s = _series([Scripted("away", away_emoter)] + _others(), tournaments=1)
    emotes = [e for t in s.tournaments for h in t["hands"] for e in h["events"]
              if e["type"] == "emote"]
    assert emotes == []
    by = R.summarize(s)["slots"][0]["chat_dropped_by"]
    assert by.get("emote_in_hand", 0) > 0


def test_tournament_end_chat_goes_to_the_last_hand_played():
    """Finding 7: with the last hands auto-played (all-in from the blinds), tournament_end chat
    was attached to the last hand that had a decision."""
    def caller(msg):
        if msg["type"] == "tournament_end":
            return "ok", {"chat": ["gg all"]}, 10
        if msg["type"] != "act" or msg["away"]:
            return "no_reply", None, 10
        return "ok", {"action": "check" if msg["legal"]["check"] else "call"}, 10

    s = _series([Scripted(f"c{i}", caller) for i in range(6)], tournaments=2, seed=1)
    assert not s.tournaments[1]["hands"][-1]["actions"], "the last hand was auto-played"
    for t in s.tournaments:
        last = t["hands"][-1]
        gg = [h["hand"] for h in t["hands"] for e in h["events"]
              if e["type"] == "chat" and e["text"] == "gg all"]
        assert gg and set(gg) == {last["hand"]}, (gg, last["hand"])


# ---------------------------------------------------------------------- engine version (9)
def test_the_engine_version_is_the_environments(monkeypatch):
    """Finding 9: results.py wrote ``engine: "v0"`` whatever the rules engine was."""
    from holdemjax.envs.sng import SitAndGo

    s = _series(_others(6), tournaments=1)
    assert R.summarize(s)["versions"]["engine"] == "certify v0"
    monkeypatch.setattr(SitAndGo, "version", property(lambda self: "v7"))
    assert R.summarize(s)["versions"]["engine"] == "certify v7"


# --------------------------------------------------------------- the module's size (8)
def test_load_policy_checks_the_size_before_reading(tmp_path, monkeypatch):
    """Finding 8: the whole file was read before the 16 MiB check."""
    big = tmp_path / "big.wasm"
    with open(big, "wb") as f:
        f.truncate(P.MAX_MODULE_BYTES + 1)  # sparse: nothing written
    read = []
    real = pathlib.Path.read_bytes
    monkeypatch.setattr(pathlib.Path, "read_bytes", lambda self: read.append(self) or real(self))
    with pytest.raises(PolicyLoadError, match=f"{P.MAX_MODULE_BYTES + 1} bytes, above"):
        load_policy(big, cache=False)
    assert read == []


# ------------------------------------------------------------- sit_in in notifications (5)
@pytest.mark.parametrize("note", ["hand_end", "tournament_end"])
def test_sit_in_in_a_notification_reply_brings_the_seat_back(note):
    """Finding 5 / PROTOCOL §4: a notification reply is read for sit_in; it was ignored."""
    state = {"timeouts": 0}

    def sleeper(msg):
        if msg["type"] == "act" and not msg["away"]:
            if state["timeouts"] < 2:  # two in a row: away
                state["timeouts"] += 1
                return "timeout", None, msg["_budget"]
            return _check_call(msg)
        if msg["type"] == note and state["timeouts"] == 2:
            state["timeouts"] = 3  # once
            return "ok", {"sit_in": True}, 10
        return "no_reply", None, 10

    p = Scripted("sleeper", sleeper)
    s = _series([p] + _others(), tournaments=2)
    msgs = p.messages
    back_at = next(i for i, m in enumerate(msgs) if m["type"] == note and state["timeouts"] == 3)
    events = [e["type"] for t in s.tournaments for h in t["hands"] for e in h["events"]]
    assert events.count("away") == 1, "the seat went away"
    later = [m for m in msgs[back_at + 1:] if m["type"] == "act"]
    assert later and not any(m["away"] for m in later)
    assert all(m["_budget"] > P.AWAY_NS for m in later)  # its bank is back in the budget
    assert events.count("back") == 1 and events.index("back") > events.index("away")
