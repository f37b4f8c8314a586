"""A wasm seat's policy call mapped to the protocol's rule (holdemjax/series/turn.py, PROTOCOL.md
§3-§4), and the wire codes' one map to the engine's kinds. The series and a duplicate wasm hero
both go through it (tests/series/test_golden_series.py replays recorded series)."""

from __future__ import annotations

import json

import pytest

from holdemjax.poker import table
from holdemjax.series import protocol
from holdemjax.series.protocol import FAULTS
from holdemjax.series.turn import apply_outcome
from holdemjax.series.wasm import CallResult

FACING = {"fold": True, "check": False, "call": 20, "raise": [40, 1000]}
FREE = {"fold": True, "check": True, "call": 0, "raise": None}


def _ok(reply: dict, used: int = 1_000) -> CallResult:
    return CallResult("ok", json.dumps(reply).encode(), used)


def test_an_admitted_reply_is_played_and_charged_to_the_bank():
    clock = protocol.Clock()
    out = apply_outcome(_ok({"action": "raise", "amount": 60, "say": "hi"}, 30 * protocol.MS),
                        FACING, clock)
    assert (out.kind, out.amount, out.auto, out.recorded) == (table.RAISE, 60, None, "ok")
    assert out.reply.say == "hi" and out.fault is None
    assert clock.bank_ns == protocol.BANK_NS - 10 * protocol.MS  # used - shot clock


@pytest.mark.parametrize("result, recorded", [
    (CallResult("no_reply", None, 5), "no_reply"),
    (CallResult("bad_alloc", None, 5), "bad_alloc"),
    (CallResult("ok", b"{not json", 5), "bad_reply"),
    (CallResult("ok", b'{"action":"check"}', 5), "illegal_action"),
    (CallResult("ok", b'{"action":"raise","amount":1}', 5), "bad_amount"),
])
def test_bad_replies_take_the_default_action_and_are_recorded(result, recorded):
    out = apply_outcome(result, FACING, protocol.Clock())
    assert (out.kind, out.amount, out.auto, out.recorded) == (table.FOLD, 0, "bad_reply", recorded)
    assert out.fault is None
    # a reply that was read comes back (its refused lines are counted from it); a bad reply
    # shows none of its table talk; transport failures have no reply
    assert (out.reply is not None) == (result.outcome == "ok")
    if recorded == "bad_reply":
        assert out.reply.chat == () and out.reply.emote is None


def test_two_timeouts_make_the_seat_away_and_sit_in_brings_it_back():
    clock = protocol.Clock()
    first = apply_outcome(CallResult("timeout", None, 5), FREE, clock)
    assert (first.kind, first.auto, first.recorded, first.went_away) == (table.CHECK_CALL,
                                                                        "timeout", "timeout",
                                                                        False)
    second = apply_outcome(CallResult("timeout", None, 5), FREE, clock)
    assert second.went_away and clock.away
    away = apply_outcome(_ok({"sit_in": True, "chat": ["back"]}), FACING, clock)
    assert (away.kind, away.auto, away.recorded, away.sat_in) == (table.FOLD, "away", None, True)
    assert not clock.away and away.reply.chat == ("back",)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_benches_the_policy_with_its_cause(fault):
    """Issue 50, finding 10: the cause read ``trap: UNREACHABLE``; PROTOCOL.md names it
    ``trap``, and the detail is a field of its own."""
    out = apply_outcome(CallResult(fault, None, 9, "UNREACHABLE"), FACING, protocol.Clock())
    assert (out.auto, out.recorded, out.fault, out.fault_detail) == ("fault", fault, fault,
                                                                    "UNREACHABLE")
    note = apply_outcome(CallResult(fault, None, 9, ""), notify="hand_end")
    assert (note.fault, note.fault_detail) == (fault, "")


def test_a_notification_out_of_compute_is_a_fault_and_its_chat_is_read():
    out = apply_outcome(CallResult("timeout", None, protocol.NOTIFY_NS), notify="hand_end")
    assert (out.fault, out.fault_detail) == ("out_of_compute",
                                             f"hand_end used its {protocol.NOTIFY_NS} ns")
    chat = apply_outcome(_ok({"emote": "gg"}), notify="tournament_end")
    assert chat.fault is None and chat.reply.emote == "gg"
    assert apply_outcome(CallResult("no_reply", None, 1), notify="hand_end") == \
        type(chat)()  # nothing to do


def test_wire_codes_and_words_map_to_engine_kinds_in_one_place():
    assert protocol.kind_of("call") == protocol.kind_of(protocol.CALL) == protocol.kind_of(2) \
        == table.CHECK_CALL
    assert protocol.kind_of("raise") == table.RAISE
    assert protocol.kind_of(protocol.FOLD) == table.FOLD
    for bad in ("allin", 4, True, None, 1.0):
        with pytest.raises(ValueError, match="not a wire code or action word"):
            protocol.kind_of(bad)
    assert [protocol.code_of(True, False, 0), protocol.code_of(False, True, 40),
            protocol.code_of(False, False, 20), protocol.code_of(False, False, 0)] \
        == [protocol.FOLD, protocol.RAISE, protocol.CALL, protocol.CHECK]


class _Hand:
    """The part of a `HostHand` a policy turn reads: its legal view (read through
    `protocol.legal_info`, patched below) and its ``act`` message."""

    legal = None

    def view(self, **fields):
        return {"type": "act", **fields}


def test_one_policy_turn_builds_the_message_calls_and_applies_the_rule(monkeypatch):
    from holdemjax.series import turn

    monkeypatch.setattr(protocol, "legal_info", lambda legal: FACING)
    calls = []

    def call(message, budget):
        calls.append((message, budget))
        return _ok({"action": "raise", "amount": 60}, 25 * protocol.MS)

    clock = protocol.Clock()
    out, used = turn.decision_turn(_Hand(), clock, call, events=["e"], tournament=3)
    assert (out.kind, out.amount, out.auto, used) == (table.RAISE, 60, None, 25 * protocol.MS)
    (message, budget), = calls
    assert budget == protocol.DECISION_MAX_NS and message["events"] == ["e"]
    assert (message["tournament"], message["away"]) == (3, False)
    assert clock.bank_ns == protocol.BANK_NS - 5 * protocol.MS
    benched, used = turn.decision_turn(_Hand(), clock, call, benched=True)
    assert (benched.kind, benched.auto, used, len(calls)) == (table.FOLD, "fault", 0, 1)
    note = turn.notify_turn(lambda m, b: CallResult("timeout", None, b),
                            {"type": "hand_end"}, clock)
    assert (note.fault, note.fault_detail) == ("out_of_compute",
                                               f"hand_end used its {protocol.NOTIFY_NS} ns")
