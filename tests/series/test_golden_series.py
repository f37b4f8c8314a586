"""Recorded series replay byte for byte (issue 14: "results bit for bit unchanged").

Each fixture in ``tests/series/golden/`` is the canonical replay file and the results document
(``timing`` and ``versions`` left out: they depend on the machine and the installed packages;
policy paths cut to their file names) of one series, written by the code before the tournament
engine and the host hand driver were refactored. The test runs the same series again and compares
the bytes. The series cover the bundled wasm policies (a full `certify-series`), a `series-10` cut
by the wall-time stop after its first hand, and scripted policies whose every reply outcome
(timeouts and away, sit-in, traps, out-of-compute notifications, bad replies, illegal actions,
bad amounts, chat, say lines and emotes) is a pure function of the message they get.

The two certify series run with luck (`runner.run_series(..., luck=True)`): its blocks are checked
and taken out before the bytes are compared, so they show that computing the luck changes no play,
and their tournaments' luck is computed again another way (`test_series_luck_equals_the_jax_path`).

Re-record (only when behaviour is meant to change): ``python tests/series/test_golden_series.py``.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import pathlib
import sys

import jax
import numpy as np
import pytest

from holdemjax import luck as holdemjax_luck
from holdemjax.poker import table, tournament
from holdemjax.poker.structure import FORMATS, make_format
from holdemjax.series import luckbook, protocol, runner
from holdemjax.series import replay as replay_mod
from holdemjax.series import results as series_results
from holdemjax.series.wasm import CallResult

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"


class Chaos:
    """A scripted policy: its ``script`` names the outcome of some calls by their count
    (``act`` calls, away calls, notifications, each counted from 0); every other decision is a
    legal action (and sometimes chat, a say line, an emote) drawn from the SHA-256 of the
    message bytes. So a series replays exactly, and the slots differ."""

    sha256 = "c" * 64

    def __init__(self, name: str, script: dict):
        self.name, self.script = name, script
        self.counts = {"act": 0, "away": 0, "note": 0}

    def start(self, data: bytes):
        return CallResult("no_reply", None, 0)

    def new_tournament(self):
        pass

    def _next(self, kind: str) -> str | None:
        n = self.counts[kind]
        self.counts[kind] += 1
        return self.script.get(kind, {}).get(n)

    def call(self, data: bytes, budget_ns: int):
        msg = json.loads(data)
        u = int.from_bytes(hashlib.sha256(self.name.encode() + data).digest()[:4], "big") % 1000
        if msg["type"] != "act":
            what = self._next("note")
            if what is not None:
                return CallResult(what, None, budget_ns if what == "timeout" else 3, what)
            if u < 300:
                return CallResult("ok", json.dumps({"emote": "gg", "chat": ["nh"]}).encode(), 77)
            return CallResult("no_reply", None, 5)
        if msg["away"]:
            reply = {"sit_in": True} if self._next("away") == "sit_in" else {"chat": ["brb"]}
            return CallResult("ok", json.dumps(reply).encode(), 9)
        what = self._next("act")
        used = 1_000 + u * 997
        if what == "timeout":
            return CallResult("timeout", None, budget_ns)
        if what in ("trap", "memory", "no_reply", "bad_alloc", "bad_pointer", "reply_too_long"):
            return CallResult(what, None, used, f"scripted {what}")
        if what == "junk":
            return CallResult("ok", b"{not json", used)
        if what == "illegal":
            return CallResult("ok", b'{"action":"check"}' if not msg["legal"]["check"]
                              else b'{"action":"call"}', used)
        if what == "bad_amount":
            return CallResult("ok", b'{"action":"raise","amount":1}', used)
        lg = msg["legal"]
        v = u % 10
        if lg["raise"] is not None and v < 2:
            lo, hi = lg["raise"]
            reply: dict = {"action": "raise", "amount": lo if v == 0 else hi}
        elif v < 4 and not lg["check"]:
            reply = {"action": "fold"}
        else:
            reply = {"action": "check" if lg["check"] else "call"}
        if u % 7 == 0:
            reply["say"] = "nice \x07hand " * (u % 30)
        if u % 11 == 0:
            reply["chat"] = ["one", "two", "three"]
        if u % 13 == 0:
            reply["emote"] = "wave"
        return CallResult("ok", json.dumps(reply).encode(), 20_000 + u * 250_000)


def _every(what: str, *counts: int) -> dict:
    return {n: what for n in counts}


SCRIPTS = (
    # two timeouts in a row (away), back at the second away call; later once more
    {"act": _every("timeout", 2, 3, 9, 14, 15), "away": {1: "sit_in", 5: "sit_in"}},
    {"act": {12: "trap"}},  # benched mid-series
    {"act": {0: "junk", 1: "illegal", 2: "bad_amount", 3: "no_reply", 4: "bad_alloc",
             6: "bad_pointer", 7: "reply_too_long", 8: "illegal", 10: "bad_amount"}},
    {"note": {25: "timeout"}},  # a notification out of compute: a fault
    {"act": {18: "memory"}},
    {"note": {7: "trap"}},  # a trap inside a notification
)


def _chaos():
    return [Chaos(f"chaos{i}", p) for i, p in enumerate(SCRIPTS)]


def _wasm(names):
    from holdemjax.series.policies import bundled
    from holdemjax.series.wasm import load_policy

    return [load_policy(bundled(n)) for n in names]


#: name -> (policies factory, run_series keyword arguments)
CASES = {
    "certify-wasm": (lambda: _wasm(["baseline", "random"] * 3),
                     dict(variant="certify-series", seed=3, luck=True)),
    "series-10-cut": (lambda: _wasm(["random", "baseline", "baseline"] * 2),
                      dict(variant="series-10", seed=5, max_wall=0.0)),
    "certify-chaos": (_chaos, dict(variant="certify-series", seed=11, luck=True)),
}


@functools.cache
def _documents(name: str) -> tuple[bytes, bytes]:
    """(replay bytes, results bytes) of the case ``name``, as the fixtures store them."""
    return _run(name)[1:]


@functools.cache
def _run(name: str) -> tuple:
    """(the `Series`, replay bytes, results bytes) of the case ``name`` (run once per process)."""
    make, kwargs = CASES[name]
    policies = make()
    try:
        series = runner.run_series(policies, **{"max_wall": None, **kwargs})
    finally:
        for p in policies:
            if hasattr(p, "close"):
                p.close()
    results = series_results.summarize(series)
    results.pop("timing")
    results.pop("versions")
    for slot in results["slots"]:
        slot["policy"] = pathlib.Path(slot["policy"]).name
    doc = replay_mod.replay_document(series, {**results, "versions": None})
    doc.pop("versions")
    return series, replay_mod.encode_replay(doc), replay_mod.encode_replay(results)


def _path(name: str) -> pathlib.Path:
    return GOLDEN / f"{name}.json.gz"


def _load(name: str) -> tuple[bytes, bytes]:
    both = json.loads(gzip.decompress(_path(name).read_bytes()))
    return both["replay"].encode(), both["results"].encode()


#: Table-talk drops the recorded fixtures counted (issue 15 counts every drop, by reason).
RECORDED_DROPS = ("lines_per_hand", "emote_in_hand")


def _as_recorded(name: str, replay: bytes, results: bytes) -> tuple[bytes, bytes]:
    """The documents in the fixtures' shape. Issue 15 added, without changing play:
    ``options`` (the planned count and the clock, in both documents; ``tournaments_planned``
    now defaults to it), ``mode`` and ``blocks`` in the results, and ``chat_dropped_by``, with
    drops the fixtures did not count (a say line on a refused action, chat in a bad reply,
    unknown emotes, empty lines): the drops both count must agree. Issue 38 added each slot's
    ``hud`` (`_check_hud`) and, run with luck, the ``luck`` option and blocks (`_check_luck`).
    Each addition is checked here, then taken out."""
    _, kwargs = CASES[name]
    spec = runner.VARIANTS[kwargs["variant"]]
    want = {"tournaments": spec.tournaments, "shot_ns": spec.shot_ns, "bank_ns": spec.bank_ns,
            "block": None}
    rdoc, doc = json.loads(replay), json.loads(results)
    _check_hud(rdoc, [slot.pop("hud") for slot in doc["slots"]])
    assert rdoc["options"].pop("luck", False) == kwargs.get("luck", False)
    assert doc["options"].pop("luck", False) == kwargs.get("luck", False)
    if kwargs.get("luck"):
        _check_luck(rdoc, doc)
    assert rdoc.pop("options") == want == doc.pop("options")
    assert (doc.pop("mode"), doc.pop("blocks")) == ("one instance per slot", None)
    assert doc["tournaments_planned"] == spec.tournaments
    doc["tournaments_planned"] = None
    for slot in doc["slots"]:
        by = slot.pop("chat_dropped_by")
        assert slot["chat_dropped"] == sum(by.values())
        slot["chat_dropped"] = sum(by.get(k, 0) for k in RECORDED_DROPS)
    return replay_mod.encode_replay(rdoc), replay_mod.encode_replay(doc)


def _check_hud(replay: dict, huds: list[dict]) -> None:
    """Each slot's HUD agrees with what the replay shows of it, read another way than the HUD
    reads it (holdemjax/series/hud.py): its hands are the finished hands dealt to its seat (a
    ``hole``), its showdowns the ``showdown`` events that show its seat's cards, its won
    showdowns those after which its seat's stack grew."""
    hands, shown, won = ([0] * len(huds) for _ in range(3))
    for t in replay["tournaments"]:
        at = t["player_at_seat"]
        for h in (h for h in t["hands"] if "stacks_after" in h):
            for seat, hole in enumerate(h["hole"]):
                hands[at[seat]] += hole is not None
            for e in (e for e in h["events"] if e["type"] == "showdown"):
                for seat, *_ in e["cards"]:
                    shown[at[seat]] += 1
                    won[at[seat]] += h["stacks_after"][seat] > h["stacks"][seat]
    assert sum(shown) > 0
    assert [x["hands"] for x in huds] == hands
    assert [x["showdowns"] for x in huds] == shown
    assert [x["won_at_showdown"] for x in huds] == won
    assert all(x["saw_flop"] >= x["showdowns"] for x in huds)


def _check_luck(replay: dict, results: dict) -> None:
    """Each slot's ``luck`` block agrees with the replay's luck per tournament (by seat and kind
    of event): the corrected score is the raw score less the summed luck, its SE that of the
    corrected scores, the mean luck by event sums to the mean luck; with every chance event's
    luck summing to zero over the seats (the tournament's value shares a fixed prize pool).
    Takes the luck out of both documents."""
    tours = replay["tournaments"]
    luck = np.array([t.pop("luck") for t in tours])  # [T, seats, events]
    assert luck.shape == (len(tours), len(results["slots"]), len(holdemjax_luck.EVENTS))
    assert np.abs(luck).max() > 0.01
    np.testing.assert_allclose(luck.sum(axis=1), 0.0, atol=1e-5)
    for slot in results["slots"]:
        block = slot.pop("luck")
        seats = [t["player_at_seat"].index(slot["slot"]) for t in tours]
        mine = luck[np.arange(len(tours)), seats]  # [T, events]
        scores = np.array([t["scores"][k] for t, k in zip(tours, seats)])
        corrected = scores - mine.sum(axis=1)
        assert block["score"] == pytest.approx(corrected.mean(), abs=4e-6)
        assert block["score"] == pytest.approx(slot["score"] - block["luck"], abs=2e-6)
        assert block["stderr"] == pytest.approx(series_results.standard_error(corrected), abs=4e-6)
        # canonical JSON: sorted keys
        assert sorted(block["by_event"]) == sorted(holdemjax_luck.EVENTS)
        assert sum(block["by_event"].values()) == pytest.approx(block["luck"], abs=4e-6)


@functools.cache
def _jax_route(env_id: str):
    """(start, step, decision luck, deal luck): `tournament.start` of a deck key,
    `tournament.act` then `advance`, and
    `luck.decision_luck` / `luck.dealt_luck` on one unbatched tournament, jitted here (the
    luck program's compile options: a quarter of the compile time; only the luck is compared)."""
    fmt = make_format(**FORMATS[env_id])
    start = jax.jit(lambda key: tournament.start(key, fmt), compiler_options=luckbook.OPTIONS)
    step = jax.jit(lambda t, kind, amount: tournament.advance(tournament.act(t, kind, amount)),
                   compiler_options=luckbook.OPTIONS)
    decided = jax.jit(lambda t, kind, amount, key: holdemjax_luck.decision_luck(
                          t, kind, amount, key, by_event=True),
                      compiler_options=luckbook.OPTIONS)
    dealt = jax.jit(holdemjax_luck.dealt_luck, compiler_options=luckbook.OPTIONS)
    return start, step, decided, dealt


_KINDS = {protocol.FOLD: table.FOLD, protocol.CHECK: table.CHECK_CALL,
          protocol.CALL: table.CHECK_CALL, protocol.RAISE: table.RAISE}


def _luck_by_jax(seed: int, tour: dict, env_id: str) -> np.ndarray:
    """``# [events, seats]``: a tournament's luck computed another way than the host's
    (`holdemjax.series.luckbook`: the engine's packed states, recorded at each decision,
    batched): the tournament rebuilt from its deck key with `tournament.start` and the
    replay's actions (code and raise-to, as the replay writes them), `luck.dealt_luck` of its
    first deal and `luck.decision_luck` of each decision, one at a time."""
    start, step, decided, dealt = _jax_route(env_id)
    t = start(jax.random.fold_in(jax.random.key(seed), tour["tournament"]))
    key = luckbook.luck_key(seed, tour["tournament"])
    total = np.zeros((len(holdemjax_luck.EVENTS), t.num_seats))
    total[holdemjax_luck.EVENTS.index("deal")] += np.asarray(dealt(t, key))
    for hand in tour["hands"]:
        for a in hand["actions"]:
            assert (int(t.hand), int(t.table.to_act)) == (hand["hand"], a["seat"])
            kind = np.int32(_KINDS[a["code"]])
            amount = np.int32(a["to"] if a["code"] == protocol.RAISE else 0)
            total += np.asarray(decided(t, kind, amount, key))
            t = step(t, kind, amount)
    assert bool(t.finished) or tour["stopped_early"]
    return total


@pytest.mark.parametrize("name", ["certify-wasm", "certify-chaos"])
def test_series_luck_equals_the_jax_path(name):
    """The host's luck of every tournament (each slot's, by kind of event) equals the luck
    computed on the tournament rebuilt from its replay, decision by decision."""
    series, replay, _ = _run(name)
    _, kwargs = CASES[name]
    doc = json.loads(replay)
    for i, tour in enumerate(doc["tournaments"]):
        want = _luck_by_jax(kwargs["seed"], tour, "certify")
        for slot, rec in enumerate(series.slots):
            seat = tour["player_at_seat"].index(slot)
            np.testing.assert_allclose(rec.luck[i], want[:, seat], atol=2e-6)


def test_series_luck_reruns_byte_for_byte():
    """The luck is drawn from the series seed: the replay's options ask for it again
    (`replay.rerun_options`), and a rerun gives the same bytes, the luck included."""
    series, replay, _ = _run("certify-chaos")
    kwargs = replay_mod.rerun_options(json.loads(replay))
    assert kwargs["luck"] is True
    again = runner.run_series(_chaos(), **kwargs)
    doc = replay_mod.replay_document(again, {**series_results.summarize(again), "versions": None})
    doc.pop("versions")
    assert replay_mod.encode_replay(doc) == replay


@pytest.mark.parametrize("name", sorted(CASES))
def test_series_replays_byte_for_byte(name):
    replay, results = _as_recorded(name, *_documents(name))
    want_replay, want_results = _load(name)
    assert results == want_results
    assert replay == want_replay


def test_the_golden_series_cover_the_host_rules():
    """The fixtures are worth comparing: the chaos series has every reply outcome, faults and
    away seats; the cut series is flagged; the wasm series plays all its tournaments."""
    chaos = json.loads(_load("certify-chaos")[1])
    outcomes = {k for s in chaos["slots"] for k in s["replies"]}
    assert {"ok", "timeout", "bad_reply", "illegal_action", "bad_amount", "no_reply",
            "bad_alloc", "bad_pointer", "reply_too_long"} <= outcomes
    causes = {f["cause"] for s in chaos["slots"] for f in s["faults"]}
    assert {"trap", "memory", "out_of_compute"} <= causes  # PROTOCOL.md's names, exactly
    assert sum(s["away_hands"] for s in chaos["slots"]) > 0
    cut = json.loads(_load("series-10-cut")[0])
    assert cut["stopped_early"] and cut["tournaments"][0]["stopped_early"]
    wasm = json.loads(_load("certify-wasm")[0])
    assert wasm["tournaments_played"] == 3 and not wasm["stopped_early"]


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name in sorted(CASES):
        replay, results = _as_recorded(name, *_documents(name))  # the fixtures' shape
        blob = json.dumps({"replay": replay.decode(), "results": results.decode()})
        _path(name).write_bytes(gzip.compress(blob.encode(), mtime=0))
        print(f"{name}: replay {len(replay)} bytes sha256 {hashlib.sha256(replay).hexdigest()}")


if __name__ == "__main__":
    sys.exit(main())
