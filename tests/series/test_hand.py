"""The host hand driver (holdemjax/series/hand.py): a policy call's outcome mapped to the
protocol's rule (PROTOCOL.md §3-§4), the board events (exact-action legality:
tests/host/test_legal.py). The series, duplicate matches and seat rotation all go through it
(tests/series/test_golden_series.py and tests/duplicate/test_golden_lines.py replay recorded
lines through each)."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest

from holdemjax.poker import table as tb
from holdemjax.series import protocol as P
from holdemjax.series.hand import (
    STREET_OF_BOARD,
    HandLog,
    apply_outcome,
)
from holdemjax.series.protocol import FAULTS
from holdemjax.series.wasm import CallResult

FACING = {"fold": True, "check": False, "call": 20, "raise": [40, 1000]}
FREE = {"fold": True, "check": True, "call": 0, "raise": None}


def _ok(reply: dict, used: int = 1_000) -> CallResult:
    return CallResult("ok", json.dumps(reply).encode(), used)


def test_an_admitted_reply_is_played_and_charged_to_the_bank():
    clock = P.Clock()
    out = apply_outcome(_ok({"action": "raise", "amount": 60, "say": "hi"}, 30 * P.MS), FACING,
                        clock)
    assert (out.kind, out.amount, out.auto, out.recorded) == (tb.RAISE, 60, None, "ok")
    assert out.reply.say == "hi" and out.fault is None
    assert clock.bank_ns == P.BANK_NS - 10 * P.MS  # used - shot clock


@pytest.mark.parametrize("result, recorded", [
    (CallResult("no_reply", None, 5), "no_reply"),
    (CallResult("bad_alloc", None, 5), "bad_alloc"),
    (CallResult("ok", b"{not json", 5), "bad_reply"),
    (CallResult("ok", b'{"action":"check"}', 5), "illegal_action"),
    (CallResult("ok", b'{"action":"raise","amount":1}', 5), "bad_amount"),
])
def test_bad_replies_take_the_default_action_and_are_recorded(result, recorded):
    out = apply_outcome(result, FACING, P.Clock())
    assert (out.kind, out.amount, out.auto, out.recorded) == (tb.FOLD, 0, "bad_reply", recorded)
    assert out.fault is None
    # a reply that was read comes back (its refused lines are counted from it); a bad reply
    # shows none of its table talk; transport failures have no reply
    assert (out.reply is not None) == (result.outcome == "ok")
    if recorded == "bad_reply":
        assert out.reply.chat == () and out.reply.emote is None


def test_two_timeouts_make_the_seat_away_and_sit_in_brings_it_back():
    clock = P.Clock()
    first = apply_outcome(CallResult("timeout", None, 5), FREE, clock)
    assert (first.kind, first.auto, first.recorded, first.went_away) == (tb.CHECK_CALL,
                                                                        "timeout", "timeout",
                                                                        False)
    second = apply_outcome(CallResult("timeout", None, 5), FREE, clock)
    assert second.went_away and clock.away
    away = apply_outcome(_ok({"sit_in": True, "chat": ["back"]}), FACING, clock)
    assert (away.kind, away.auto, away.recorded, away.sat_in) == (tb.FOLD, "away", None, True)
    assert not clock.away and away.reply.chat == ("back",)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_benches_the_policy_with_its_cause(fault):
    out = apply_outcome(CallResult(fault, None, 9, "UNREACHABLE"), FACING, P.Clock())
    assert (out.auto, out.recorded, out.fault) == ("fault", fault, f"{fault}: UNREACHABLE")
    note = apply_outcome(CallResult(fault, None, 9, ""), notify="hand_end")
    assert note.fault == fault


def test_a_notification_out_of_compute_is_a_fault_and_its_chat_is_read():
    out = apply_outcome(CallResult("timeout", None, P.NOTIFY_NS), notify="hand_end")
    assert out.fault == f"out_of_compute: hand_end used its {P.NOTIFY_NS} ns"
    chat = apply_outcome(_ok({"emote": "gg"}), notify="tournament_end")
    assert chat.fault is None and chat.reply.emote == "gg"
    assert apply_outcome(CallResult("no_reply", None, 1), notify="hand_end") == \
        type(chat)()  # nothing to do


def test_board_events_show_each_street_once_with_its_cards():
    assert STREET_OF_BOARD == {3: tb.FLOP, 4: tb.TURN, 5: tb.RIVER}
    board = np.array([0, 1, 2, 3, 51])
    table = types.SimpleNamespace(stacks=np.zeros(6), board=board, revealed=np.int32(0))
    log = HandLog(table, 0)
    assert log.board(table) == []
    table.revealed = np.int32(4)  # flop and turn at once (an all-in run-out)
    assert log.board(table) == [{"type": "board", "street": 1, "cards": ["2c", "2d", "2h"]},
                                {"type": "board", "street": 2, "cards": ["2s"]}]
    table.revealed = np.int32(5)
    assert log.board(table) == [{"type": "board", "street": 3, "cards": ["As"]}]
    assert log.board(table) == []


def test_the_street_map_and_the_fault_causes_are_written_once():
    """Issue 14: one definition each (`hand.STREET_OF_BOARD`, `protocol.FAULTS`), found by
    reading every source file of the library; the hand driver takes FAULTS from the protocol,
    not from the wasm host (issue 35: no wasmtime in code that needs only the protocol)."""
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    faults, streets = [], []
    for top in ("holdemjax", "envs", "training"):
        for path in (root / top).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Tuple) and [getattr(e, "value", None)
                                                    for e in node.elts] == list(FAULTS):
                    faults.append(path.name)
                if isinstance(node, ast.Dict) and [getattr(k, "value", None)
                                                   for k in node.keys] == [3, 4, 5]:
                    streets.append(path.name)
    assert faults == ["protocol.py"] and streets == ["hand.py"]
    assert P.FAULTS is FAULTS
    hand_imports = {node.module for node in ast.walk(ast.parse(
        (root / "holdemjax" / "series" / "hand.py").read_text()))
        if isinstance(node, ast.ImportFrom)}
    assert "holdemjax.series.wasm" not in hand_imports


def test_a_lone_hand_is_driven_through_the_engine_with_the_engines_counters():
    """Issue 35: the one driver (`hand.HostHand`) on a lone hand: each decision goes through
    `tournament.act`, whose per-hand counters the view reads (none are kept on the host)."""
    from holdemjax.series.hand import lone_hand

    h = lone_hand(7, np.arange(52), [2000, 2000, 2000], button=0, blinds=(10, 20, 0))
    assert (int(h.table.sb), int(h.table.bb), h.to_act, h.index) == (1, 2, 0, 7)
    event = h.apply(tb.RAISE, 60)
    assert (event["code"], event["to"], event["added"]) == (P.RAISE, 60, 60)
    assert h.decisions.tolist() == [1, 0, 0] and h.state.street_raises[0].tolist() == [1, 0, 0]
    view = h.view()
    assert (view["seat"], view["decision"], view["hand"], view["history"]) == \
        (1, 0, 7, [[0, 0, P.RAISE, 60]])
    h.apply(tb.CHECK_CALL)  # the small blind calls 50 more
    h.apply(tb.FOLD)
    assert h.history[1:] == [[0, 1, P.CALL, 60], [0, 2, P.FOLD, 20]]
    assert h.decisions.tolist() == [1, 1, 1] and not h.over
    while not h.over:
        h.apply(tb.CHECK_CALL)
    assert sum(np.asarray(h.table.stacks).tolist()) == 6000
    assert h.end()[-1]["type"] == "result"
    with pytest.raises(ValueError, match="hand 7 is over"):
        h.apply(tb.FOLD)
    with pytest.raises(ValueError, match="permutation"):
        lone_hand(0, np.zeros(52), [2000, 2000], button=0)


def test_wire_codes_and_words_map_to_engine_kinds_in_one_place():
    assert P.kind_of("call") == P.kind_of(P.CALL) == P.kind_of(2) == tb.CHECK_CALL
    assert P.kind_of("raise") == tb.RAISE and P.kind_of(P.FOLD) == tb.FOLD
    for bad in ("allin", 4, True, None, 1.0):
        with pytest.raises(ValueError, match="not a wire code or action word"):
            P.kind_of(bad)
    assert [P.code_of(True, False, 0), P.code_of(False, True, 40), P.code_of(False, False, 20),
            P.code_of(False, False, 0)] == [P.FOLD, P.RAISE, P.CALL, P.CHECK]
