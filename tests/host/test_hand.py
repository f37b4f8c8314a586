"""The one host hand driver (holdemjax/host/hand.py): the board events, the street map, a lone
hand driven through the engine with the engine's counters. The series, duplicate matches and
seat rotation all go through it (tests/series/test_golden_series.py and
tests/duplicate/test_golden_lines.py replay recorded lines through each)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from holdemjax.host.hand import STREET_OF_BOARD, HandLog, lone_hand
from holdemjax.poker import table as poker_table
from holdemjax.series import protocol
from holdemjax.series.protocol import FAULTS


def test_board_events_show_each_street_once_with_its_cards():
    assert STREET_OF_BOARD == {3: poker_table.FLOP, 4: poker_table.TURN, 5: poker_table.RIVER}
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
    reading every source file of the library; the hand driver imports nothing of the wasm host
    (issue 35: no wasmtime in code that needs only the protocol)."""
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
    assert protocol.FAULTS is FAULTS
    hand_imports = {node.module for node in ast.walk(ast.parse(
        (root / "holdemjax" / "host" / "hand.py").read_text()))
        if isinstance(node, ast.ImportFrom)}
    assert not any(m.startswith("holdemjax.series") for m in hand_imports), hand_imports


def test_a_lone_hand_is_driven_through_the_engine_with_the_engines_counters():
    """Issue 35: the one driver (`hand.HostHand`) on a lone hand: each decision goes through
    `tournament.act`, whose per-hand counters the view reads (none are kept on the host)."""
    h = lone_hand(7, np.arange(52), [2000, 2000, 2000], button=0, blinds=(10, 20, 0))
    assert (int(h.table.sb), int(h.table.bb), h.to_act, h.index) == (1, 2, 0, 7)
    event = h.apply(poker_table.RAISE, 60)
    assert (event["code"], event["to"], event["added"]) == (protocol.RAISE, 60, 60)
    assert h.decisions.tolist() == [1, 0, 0] and h.state.street_raises[0].tolist() == [1, 0, 0]
    view = h.view()
    assert (view["seat"], view["decision"], view["hand"], view["history"]) == \
        (1, 0, 7, [[0, 0, protocol.RAISE, 60]])
    h.apply(poker_table.CHECK_CALL)  # the small blind calls 50 more
    h.apply(poker_table.FOLD)
    assert h.history[1:] == [[0, 1, protocol.CALL, 60], [0, 2, protocol.FOLD, 20]]
    assert h.decisions.tolist() == [1, 1, 1] and not h.over
    while not h.over:
        h.apply(poker_table.CHECK_CALL)
    assert sum(np.asarray(h.table.stacks).tolist()) == 6000
    assert h.end()[-1]["type"] == "result"
    with pytest.raises(ValueError, match="hand 7 is over"):
        h.apply(poker_table.FOLD)
    with pytest.raises(ValueError, match="permutation"):
        lone_hand(0, np.zeros(52), [2000, 2000], button=0)
