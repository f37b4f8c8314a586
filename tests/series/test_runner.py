"""The series runner's rules (PROTOCOL.md §3-§5, SPEC §3) with scripted policies: the clock,
away and sit-in, faults, bad replies, table talk, scores, determinism and the wall-time stop.
Real wasm modules go through the same runner in test_series_wasm.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from holdemjax.series import protocol, results, runner
from holdemjax.series.wasm import CallResult


class Scripted:
    """A policy whose replies come from ``decide(message) -> (outcome, reply dict | bytes |
    None, used_ns)``; records every message it gets."""

    sha256 = "0" * 64

    def __init__(self, name, decide=None):
        self.name = name
        self.decide = decide or _check_call
        self.messages = []
        self.started = None

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
    return runner.run_series(policies, **kw)


def _acts(p):
    return [m for m in p.messages if m["type"] == "act"]


def test_scores_sum_to_one_and_results_document():
    """SPEC §3: a slot's series score is its mean tournament score; the six sum to 1."""
    pols = [Scripted(f"p{i}") for i in range(6)]
    s = _series(pols)
    doc = results.summarize(s, planned=3)
    assert doc["tournaments_played"] == 3 and not doc["stopped_early"]
    assert abs(sum(slot["score"] for slot in doc["slots"]) - 1.0) < 1e-5
    for t in range(3):
        assert abs(sum(r.scores[t] for r in s.slots) - 1.0) < 1e-5
    for slot in doc["slots"]:
        assert {"alias", "score", "stderr", "faults"} <= slot.keys()
        assert sum(slot["places"].values()) == 3
        assert slot["stderr"] == pytest.approx(np.std(s.slots[slot["slot"]].scores, ddof=1)
                                               / np.sqrt(3), abs=1e-6)
    # aliases are distinct, from the fixed list, and kept for the series
    aliases = [slot["alias"] for slot in doc["slots"]]
    assert len(set(aliases)) == 6 and set(aliases) <= set(runner.ALIASES)
    # every slot got the start message with its own seed words
    seeds = {tuple(p.started["seed"]) for p in pols}
    assert len(seeds) == 6 and pols[2].started["seed"] == list(protocol.slot_seed(3, 2))


def test_same_seed_same_series_and_seating_shuffled():
    a = _series([Scripted(f"p{i}") for i in range(6)])
    b = _series([Scripted(f"p{i}") for i in range(6)])
    assert a.tournaments == b.tournaments
    assert [r.scores for r in a.slots] == [r.scores for r in b.slots]
    seatings = {tuple(t["player_at_seat"]) for t in a.tournaments}
    assert len(seatings) > 1, "seating is shuffled every tournament"
    c = _series([Scripted(f"p{i}") for i in range(6)], seed=4)
    assert c.tournaments != a.tournaments


def test_budget_and_bank():
    """PROTOCOL §3: budget = min(20 ms + bank, 200 ms); the bank pays max(0, used - 20 ms)."""
    def slow(msg):
        if msg["type"] != "act":
            return "no_reply", None, 0
        lg = msg["legal"]
        return "ok", {"action": "check" if lg["check"] else "call"}, 70_000_000

    p = Scripted("slow", slow)
    _series([p] + [Scripted(f"p{i}") for i in range(5)], tournaments=1)
    acts = _acts(p)
    assert len(acts) >= 3
    bank = protocol.BANK_NS
    for m in acts:
        assert m["clock"]["bank_ns"] == bank
        assert m["_budget"] == m["clock"]["budget_ns"] == min(protocol.SHOT_NS + bank,
                                                                protocol.DECISION_MAX_NS)
        bank = max(0, bank - (min(70_000_000, m["_budget"]) - protocol.SHOT_NS))


def test_two_timeouts_make_the_seat_away_until_sit_in():
    """PROTOCOL §3-§4: a timeout checks or folds; two in a row: away (auto check/fold, still
    told the events, 20 ms budget) until a reply carries sit_in."""
    state = {"n": 0}

    def flaky(msg):
        if msg["type"] != "act":
            return "no_reply", None, 0
        state["n"] += 1
        if msg["away"]:
            # the second away decision asks to come back
            return "ok", {"sit_in": True} if state["n"] >= 4 else {}, 1000
        if state["n"] <= 2:
            return "timeout", None, msg["_budget"]
        lg = msg["legal"]
        return "ok", {"action": "check" if lg["check"] else "call"}, 1000

    p = Scripted("flaky", flaky)
    s = _series([p] + [Scripted(f"p{i}") for i in range(5)], tournaments=2)
    acts = _acts(p)
    assert [m["away"] for m in acts[:5]] == [False, False, True, True, False]
    assert acts[2]["_budget"] == protocol.AWAY_NS
    assert s.slots[0].timeouts == 2
    events = [e for t in s.tournaments for h in t["hands"] for e in h["events"]]
    seat_types = [e["type"] for e in events if e["type"] in ("away", "back")]
    assert seat_types[:2] == ["away", "back"]
    autos = [a["auto"] for t in s.tournaments for h in t["hands"] for a in h["actions"]
             if a["auto"]]
    assert autos[:4] == ["timeout", "timeout", "away", "away"]
    # a timed-out decision is a check when free, else a fold
    for t in s.tournaments:
        for h in t["hands"]:
            for a in h["actions"]:
                if a["auto"] in ("timeout", "away"):
                    assert a["code"] in (protocol.FOLD, protocol.CHECK)


def test_a_seat_that_never_sits_in_stays_away():
    def gone(msg):
        if msg["type"] != "act":
            return "no_reply", None, 0
        if msg["away"]:
            return "ok", {"chat": ["still here"]}, 10
        return "timeout", None, msg["_budget"]

    p = Scripted("gone", gone)
    s = _series([p] + [Scripted(f"p{i}") for i in range(5)])
    acts = _acts(p)
    assert all(m["away"] for m in acts[2:]) and len(acts) > 4
    assert s.slots[0].timeouts == 2
    assert s.slots[0].away_hands >= 1
    assert s.slots[0].faulted_at is None


def test_a_trap_benches_the_seat_for_the_rest_of_the_series():
    """PROTOCOL §4: a trap mid-series: check/fold for the rest, never called again,
    faulted_at = the tournament."""
    calls = {"n": 0}

    def trapper(msg):
        if msg["type"] == "act":
            calls["n"] += 1
            if msg["tournament"] == 1:
                return "trap", None, 123
        return _check_call(msg)

    p = Scripted("trapper", trapper)
    s = _series([p] + [Scripted(f"p{i}") for i in range(5)])
    assert s.tournaments_played == 3
    assert s.slots[0].faulted_at == 1 and s.slots[0].fault == "trap"
    assert all(m["tournament"] <= 1 for m in p.messages), "a benched seat is never called"
    doc = results.summarize(s)
    # the cause as PROTOCOL.md names it, the detail apart (issue 50, finding 10)
    assert doc["slots"][0]["faults"] == [{"faulted_at": 1, "cause": "trap", "detail": ""}]
    later = [a for a in s.tournaments[2]["hands"][0]["actions"]
             if s.tournaments[2]["player_at_seat"][a["seat"]] == 0]
    assert all(a["auto"] == "fault" for a in later)


def test_notification_out_of_compute_is_a_fault():
    def heavy(msg):
        if msg["type"] == "hand_end":
            return "timeout", None, protocol.NOTIFY_NS
        return _check_call(msg)

    p = Scripted("heavy", heavy)
    s = _series([p] + [Scripted(f"p{i}") for i in range(5)], tournaments=1)
    assert s.slots[0].fault.startswith("out_of_compute")
    assert [m["_budget"] for m in p.messages if m["type"] == "hand_end"] == [protocol.NOTIFY_NS]


@pytest.mark.parametrize("reply, outcome", [
    (b"{not json", "bad_reply"),
    (b"[1, 2]", "bad_reply"),
    ({"action": "shove"}, "bad_reply"),
    ({"action": "raise", "amount": "lots"}, "bad_reply"),
    ({"action": "raise", "amount": 10**9}, "bad_amount"),
    ({"action": "raise"}, "bad_amount"),
    ({"action": "call", "amount": 0}, None),  # legal when facing a bet (pre-flop, not the BB)
])
def test_bad_replies_take_the_default_action_and_are_recorded(reply, outcome):
    """PROTOCOL §4 'Bad replies': one deterministic outcome each, never a fault."""
    def bad(msg):
        if msg["type"] != "act":
            return "no_reply", None, 0
        return "ok", reply, 100

    p = Scripted("bad", bad)
    s = _series([p] + [Scripted(f"p{i}") for i in range(5)], tournaments=1)
    rec = s.slots[0]
    assert rec.faulted_at is None and rec.timeouts == 0
    if outcome is not None:
        assert rec.outcomes.get(outcome, 0) == len(_acts(p))
        mine = [a for h in s.tournaments[0]["hands"] for a in h["actions"]
                if s.tournaments[0]["player_at_seat"][a["seat"]] == 0]
        assert mine and all(a["auto"] == "bad_reply"
                            and a["code"] in (protocol.FOLD, protocol.CHECK) for a in mine)


def test_illegal_actions_are_recorded():
    def checker(msg):  # always "check", also facing a bet
        return ("ok", {"action": "check"}, 100) if msg["type"] == "act" else ("no_reply", None, 0)

    p = Scripted("checker", checker)
    s = _series([p] + [Scripted(f"p{i}") for i in range(5)], tournaments=1)
    faced = [m for m in _acts(p) if not m["legal"]["check"]]
    assert faced and s.slots[0].outcomes["illegal_action"] == len(faced)


def test_table_talk_limits():
    """PROTOCOL §4: two standalone lines per seat per hand, a say line with each admitted
    action, lines cut to 140 characters, control characters removed, emotes only from a seat
    that folded."""
    def chatty(msg):
        if msg["type"] != "act":
            return "ok", {"emote": "gg"}, 10
        lg = msg["legal"]
        return "ok", {"action": "check" if lg["check"] else "call", "say": "x" * 300,
                      "chat": ["one\x07", "two", "three"], "emote": "wave"}, 10

    p = Scripted("chatty", chatty)
    s = _series([p] + [Scripted(f"p{i}") for i in range(5)], tournaments=1)
    seat_of = {t["tournament"]: t["player_at_seat"].index(0) for t in s.tournaments}
    for t in s.tournaments:
        for h in t["hands"]:
            mine = [e for e in h["events"] if e["type"] == "chat" and e["seat"] == seat_of[0]]
            standalone = [e for e in mine if not e["say"]]
            says = [e for e in mine if e["say"]]
            my_actions = [a for a in h["actions"] if a["seat"] == seat_of[0]]
            assert len(standalone) <= 2 and len(says) == len(my_actions)
            assert all(len(e["text"]) == 140 for e in says)
            assert [e["text"] for e in standalone] == ["one", "two"][: len(standalone)]
            emotes = [e for e in h["events"] if e["type"] == "emote" and e["seat"] == seat_of[0]]
            assert all(e["emote"] == "gg" for e in emotes), "wave came with a live action"
    assert s.slots[0].chat_dropped.get("lines_per_hand", 0) > 0


def test_wall_time_stop_settles_by_icm_at_a_hand_boundary():
    """SPEC §3: at the wall-time limit the series stops at a hand boundary; the cut tournament
    settles by ICM and is flagged."""
    s = _series([Scripted(f"p{i}") for i in range(6)], variant="series-10", max_wall=0.0)
    assert s.stopped_early and s.tournaments_played == 1
    t = s.tournaments[0]
    assert t["stopped_early"] and len(t["hands"]) == 1
    assert abs(sum(r.scores[0] for r in s.slots) - 1.0) < 1e-5
    # chips at the stop (the first hand's end) rank the places
    stacks = t["hands"][0]["stacks_after"]
    order = sorted(range(6), key=lambda seat: -stacks[seat])
    assert t["places"][order[0]] == 1


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown variant 'series-7'"):
        runner.run_series([Scripted("a")] * 6, variant="series-7")
    with pytest.raises(ValueError, match="needs 6 policies, got 2"):
        runner.run_series([Scripted("a")] * 2, variant="series-10")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        runner.run_series([Scripted("a")] * 6, seed=-1)


def test_the_shared_event_text_is_the_canonical_encoding(monkeypatch):
    """`event_text.EventText` splices each public event's JSON, made once, into every seat's
    message: the bytes must be `protocol.encode`'s exactly (PROTOCOL §2: canonical JSON), with
    table talk that looks like the splice point, non-ASCII text and events shared by many
    messages."""
    from holdemjax.series import event_text

    events = [{"type": "chat", "seat": 1, "text": '"events":"\\u0000" é', "say": False},
              {"type": "board", "street": 1, "cards": ["2c", "5c", "3d"]}]
    text = event_text.EventText()
    for message in ({"type": "act", "alive": [True], "clock": {"bank_ns": 1}, "events": events,
                     "hole": ["As"], "tournament": 0},
                    {"type": "hand_end", "events": events[::-1], "hand": 3, "tournament": 0},
                    {"type": "hand_end", "events": [], "hand": 4, "tournament": 0}):
        assert text.encode(message) == protocol.encode(message)
    # every message of a certify series, chat and faults included
    seen = []

    def checked(self, message):
        out = original(self, message)
        assert out == protocol.encode(message), message
        seen.append(message["type"])
        return out

    original = event_text.EventText.encode
    monkeypatch.setattr(event_text.EventText, "encode", checked)

    def chatty(msg):
        if msg["type"] != "act":
            return "ok", {"chat": ["gg é"], "emote": "smile"}, 1_000
        return "ok", {"action": "call", "say": "call \u00e9", "chat": ["nh"]}, 50_000

    _series([Scripted(f"p{i}", chatty if i % 2 else None) for i in range(6)])
    assert {"act", "hand_end", "tournament_end"} <= set(seen) and len(seen) > 100
