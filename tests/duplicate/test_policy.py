"""A wasm policy in the hero seat: the series host's clock and reply rules, and nothing it does
stops the line (hostile modules from tests/series/zoo, compiled here with wat2wasm)."""

from __future__ import annotations

import json
import pathlib

import pytest
import wasmtime

from holdemjax.duplicate import match
from holdemjax.duplicate.policy import WasmHero
from holdemjax.duplicate.store import Store
from holdemjax.series.wasm import CallResult, PolicyLoadError
from tests.duplicate.conftest import run_cli

ZOO = pathlib.Path(__file__).resolve().parents[1] / "series" / "zoo"

BAD_AMOUNT = """
(module
  (memory (export "memory") 1)
  (data (i32.const 2048) "{\\"action\\":\\"raise\\",\\"amount\\":1}")
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 4096))
  (func (export "holdem_on_message") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 29))))
"""

# Loops forever on every act message ({"alive":... : byte 5 is 'v'); answers nothing to the
# others ({"alias":... start, {"events":... hand_end).
SPIN = """
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $ptr i32) (param i32) (result i64)
    (if (i32.ne (i32.load8_u offset=5 (local.get $ptr)) (i32.const 118))
      (then (return (i64.const 0))))
    (loop $spin (br $spin))
    (i64.const 0)))
"""


def _wasm(tmp_path, name: str, text: str | None = None) -> str:
    path = tmp_path / f"{name}.wasm"
    path.write_bytes(bytes(wasmtime.wat2wasm(text or (ZOO / f"{name}.wat").read_text())))
    return str(path)


def _hero_autos(store, match_id, name):
    store.close_match(match_id)  # lines are sealed until the match closes
    line = store.lines(match_id)[name]
    return [[a[5] for a in line.hands[h]["actions"] if a[1] == 0] for h in sorted(line.hands)]


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        yield s


def test_timeouts_then_away(tmp_path, store):
    m = store.create_match(match.MatchSpec(seats=6, hands=4), seed=2)
    hero = WasmHero(_wasm(tmp_path, "spin", SPIN))
    assert match.play_line(store, m.id, "spin", hero) == "finished"
    autos = [a for hand in _hero_autos(store, m.id, "spin") for a in hand]
    # two timeouts in a row make the seat away; it never sends sit_in, so it stays away
    assert len(autos) >= 3 and autos[:2] == ["timeout", "timeout"] and set(autos[2:]) == {"away"}
    assert hero.counts == {"timeout": 2} and hero.fault is None
    assert len(store.lines(m.id)["spin"].hands) == 4


def test_a_trap_benches_the_policy(tmp_path, store):
    m = store.create_match(match.MatchSpec(seats=6, hands=3), seed=2)
    hero = WasmHero(_wasm(tmp_path, "trap_nth"))  # start, one act, then unreachable
    assert match.play_line(store, m.id, "trap", hero) == "finished"
    autos = [a for hand in _hero_autos(store, m.id, "trap") for a in hand]
    assert autos[0] == "bad_reply" and set(autos[1:]) <= {"fault"}
    assert hero.fault == "trap" and hero.fault_detail  # the cause as PROTOCOL.md names it
    assert len(store.lines(m.id)["trap"].hands) == 3


def test_bad_replies_get_the_default_action(tmp_path, store):
    m = store.create_match(match.MatchSpec(seats=6, hands=2), seed=2)
    hero = WasmHero(_wasm(tmp_path, "bad_amount", BAD_AMOUNT))
    match.play_line(store, m.id, "bad", hero)
    store.close_match(m.id)
    line = store.lines(m.id)["bad"]
    mine = [a for h in line.hands.values() for a in h["actions"] if a[1] == 0]
    assert mine and all(a[5] == "bad_reply" and a[2] in (0, 1) for a in mine)  # fold or check
    assert hero.counts == {"bad_amount": len(mine)}


def test_a_policy_that_fails_to_load_never_joins(tmp_path, store):
    m = store.create_match(match.MatchSpec(seats=6, hands=2), seed=2)
    path = _wasm(tmp_path, "wasi_import")
    with pytest.raises(PolicyLoadError, match="wasi_snapshot_preview1"):
        match.play_line(store, m.id, "wasi", WasmHero(path))
    assert store.participants(m.id) == []
    code, text = run_cli(store.path, "run", m.id, path)
    assert code == 2 and "does not join" in text
    code, text = run_cli(store.path, "run", m.id, "no-such-bot")
    assert code == 2 and "neither a .wasm file nor a registered bot" in text


class _SitsInAtHandEnd:
    """A policy (the `wasm.WasmPolicy` interface) that times out at its first two decisions,
    answers away decisions with no ``sit_in``, and sends ``sit_in`` in its first ``hand_end``
    reply after an away decision; otherwise it checks or calls."""

    name, sha256, path = "sits-in", "", None

    def __init__(self):
        self.timeouts, self.away_seen, self.sat_in = 0, False, False

    def start(self, data):
        return CallResult("no_reply", None, 0)

    def new_tournament(self, index=None):
        pass

    def close(self):
        pass

    def call(self, data, budget_ns):
        msg = json.loads(data)
        if msg["type"] == "hand_end" and self.away_seen and not self.sat_in:
            self.sat_in = True
            return CallResult("ok", b'{"sit_in":true}', 10)
        if msg["type"] != "act":
            return CallResult("no_reply", None, 10)
        if msg["away"]:
            self.away_seen = True
            return CallResult("ok", b"{}", 10)
        if self.timeouts < 2:
            self.timeouts += 1
            return CallResult("timeout", None, budget_ns)
        reply = {"action": "check" if msg["legal"]["check"] else "call"}
        return CallResult("ok", json.dumps(reply).encode(), 1_000)


def test_sit_in_in_a_hand_end_reply_brings_the_seat_back(tmp_path, store, monkeypatch):
    """PROTOCOL §4: a notification reply is read for sit_in, in a match as in a series (the
    series path: tests/series/test_series_holes.py); the match's host ignored it."""
    policy = _SitsInAtHandEnd()
    monkeypatch.setattr("holdemjax.series.wasm.load_policy", lambda path: policy)
    m = store.create_match(match.MatchSpec(seats=6, hands=6), seed=2)
    hero = WasmHero(str(tmp_path / "scripted.wasm"))
    assert match.play_line(store, m.id, "sits-in", hero) == "finished"
    assert policy.away_seen and policy.sat_in
    hands = _hero_autos(store, m.id, "sits-in")
    assert [a for hand in hands for a in hand][:2] == ["timeout", "timeout"]
    # away after the two timeouts; its reply to the hand_end of the first hand it spent away
    # brings it back from the next hand on
    away = next(i for i, hand in enumerate(hands) if "away" in hand)
    later = [a for hand in hands[away + 1:] for a in hand]
    assert set(hands[away]) == {"away"} and later and set(later) == {None}, hands
    assert hero.counts == {"timeout": 2, "ok": len(later)}
