"""Replay documents and PHH export. PokerKit (the oracle, when installed) replays every exported
PHH hand (antes, dead small blinds, heads-up, short big blinds included) to the same final stacks
as our engine."""

from __future__ import annotations

import io
import json
import random

import pytest

from holdemjax.series import replay, results, runner
from tests.series.test_runner import Scripted


def _wild(msg):
    """Random legal actions (seeded by the message's coordinates), raises and all-ins often."""
    if msg["type"] != "act" or msg["away"]:
        return "no_reply", None, 0
    rng = random.Random(f"{msg['tournament']}/{msg['hand']}/{msg['seat']}/{len(msg['history'])}")
    lg = msg["legal"]
    options = [{"action": "check" if lg["check"] else "call"}] * 3
    if not lg["check"]:
        options.append({"action": "fold"})
    if lg["raise"]:
        lo, hi = lg["raise"]
        options += [{"action": "raise", "amount": lo}, {"action": "raise", "amount": hi},
                    {"action": "raise", "amount": rng.randint(lo, hi)}]
    return "ok", rng.choice(options), 1000


def _tight(msg):
    """Folds most hands (so tournaments reach the ante levels), sometimes calls or shoves."""
    if msg["type"] != "act" or msg["away"]:
        return "no_reply", None, 0
    rng = random.Random(f"{msg['tournament']}/{msg['hand']}/{msg['seat']}/{len(msg['history'])}")
    lg = msg["legal"]
    if lg["check"]:
        return "ok", {"action": "check"}, 10
    if rng.random() < 0.75:
        return "ok", {"action": "fold"}, 10
    if lg["raise"] and rng.random() < 0.3:
        return "ok", {"action": "raise", "amount": lg["raise"][1]}, 10
    return "ok", {"action": "call"}, 10


@pytest.fixture(scope="module")
def series():
    pols = [Scripted(f"p{i}.wasm", _wild if i < 2 else _tight) for i in range(6)]
    return runner.run_series(pols, variant="series-10", seed=9, tournaments=4)


def test_replay_document_is_canonical_and_complete(series):
    doc = replay.replay_document(series, results.summarize(series))
    data = replay.encode_replay(doc)
    assert json.loads(data) == doc
    assert replay.encode_replay(json.loads(data)) == data  # canonical: re-encoding is identity
    for t in doc["tournaments"]:
        for h in t["hands"]:
            dealt = [s for s, c in enumerate(h["hole"]) if c is not None]
            assert len(dealt) >= 2 and all(len(h["hole"][s]) == 2 for s in dealt)
            assert len(h["board"]) == 5
            assert all({"seat", "code", "to", "added", "used_ns", "auto"} <= a.keys()
                       for a in h["actions"])
            # chips are conserved through each hand (SPEC §2: exact chips)
            assert sum(h["stacks_after"]) == sum(h["stacks"])


def test_load_refuses_other_files(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"schema": "something/1"}')
    with pytest.raises(ValueError, match="not a holdemjax replay"):
        replay.load(path)


def test_phh_export_replays_in_pokerkit(series):
    pokerkit = pytest.importorskip("pokerkit")
    doc = replay.replay_document(series, results.summarize(series))
    compared = antes = 0
    for t, tour in enumerate(doc["tournaments"]):
        text = replay.to_phh(doc, t)
        histories = list(pokerkit.HandHistory.load_all(io.BytesIO(text.encode())))
        assert len(histories) == len(tour["hands"])
        for hh, h in zip(histories, tour["hands"]):
            dealt = [s for s, c in enumerate(h["hole"]) if c is not None]
            antes += h["blinds"][2] > 0
            *_, state = hh  # the state after the last action
            got = {seat - 1: stack for seat, stack in zip(hh.seats, state.stacks)}
            assert got == {s: h["stacks_after"][s] for s in dealt}, (t, h["hand"])
            compared += 1
    assert compared >= 100 and antes >= 20
