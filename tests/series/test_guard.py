"""The machine-time guard decides per call, for that call (PROTOCOL §3, SPEC §3, issue 35):
a hostile policy's trip on one thread never touches an honest call on another; a call that
ended (by an exception too) leaves nothing armed; a trip is recorded in the replay and
`replay.verify` reproduces it; an interruption the host cannot attribute voids the series."""

from __future__ import annotations

import hashlib
import threading
import time

import pytest

wasmtime = pytest.importorskip("wasmtime")

from holdemjax.series import guard as machine_guard  # noqa: E402
from holdemjax.series import (  # noqa: E402
    output,
    protocol,  # noqa: E402
    replay,  # noqa: E402
    results,  # noqa: E402
    runner,
)
from holdemjax.series.policies import bundled  # noqa: E402
from holdemjax.series.wasm import load_policy  # noqa: E402

_ABI = """
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))"""

# honest: counts to 30,000,000 at every message (a fixed, deterministic amount of work, mostly
# inside wasm), then answers with the message itself.
HONEST = f"""(module {_ABI}
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (local $i i32)
    (loop $count
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $count (i32.lt_u (local.get $i) (i32.const 30000000))))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $p)) (i64.const 32))
            (i64.extend_i32_u (local.get $n)))))"""

# hostile: spins at every message with a length (the start message of these tests is empty).
SPIN = f"""(module {_ABI}
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (if (local.get $n) (then (loop $spin (br $spin))))
    (i64.const 0)))"""

# asker: at every message with a length, asks holdem.time_left_ns until its fuel runs out.
ASKER = f"""(module
  (import "holdem" "time_left_ns" (func $left (result i64))) {_ABI}
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (if (local.get $n) (then (loop $ask (drop (call $left)) (br $ask))))
    (i64.const 0)))"""

# Canonical act messages start with {"alive": (keys sorted): bytes 2 and 5 are 'a' and 'v'.
SPIN_AT_ACT = f"""(module {_ABI}
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (if (i32.and (i32.eq (i32.load8_u offset=2 (local.get $p)) (i32.const 97))
                 (i32.eq (i32.load8_u offset=5 (local.get $p)) (i32.const 118)))
      (then (loop $spin (br $spin))))
    (i64.const 0)))"""

MESSAGE = b'{"type":"act"}'
BUDGET = 500 * protocol.MS  # honest calls use 240,000,010 units of it


def _module(wat: str) -> bytes:
    return bytes(wasmtime.wat2wasm(wat))


def _started(wat: str, name: str):
    policy = load_policy(_module(wat), name=name, cache=False)
    policy.start(b"")
    return policy


def _strict(monkeypatch, slack_s: float = 0.2, per_call_s: float = 0.1) -> None:
    """A guard that allows ``slack_s`` once and ``per_call_s`` per call, nothing per virtual
    second: a spinning call trips it within its first ``slack_s`` + ``per_call_s`` of CPU
    time, an honest call (by default 30 ms or so) never does."""
    monkeypatch.setattr(machine_guard, "MACHINE_PER_VIRTUAL", 0.0)
    monkeypatch.setattr(machine_guard, "MACHINE_SLACK_S", slack_s)
    monkeypatch.setattr(machine_guard, "MACHINE_PER_CALL_S", per_call_s)


def _honest_calls(policy, n: int) -> list:
    return [(r.outcome, r.used_ns, r.reply) for r in (policy.call(MESSAGE, BUDGET)
                                                      for _ in range(n))]


def _honest_until(stop: threading.Event, out: list, timeout_s: float = 60.0) -> None:
    """Call an honest policy until ``stop`` (a thread's target): its results go to ``out``."""
    policy = _started(HONEST, "honest.wasm")
    t0 = time.monotonic()
    try:
        while not stop.is_set() and time.monotonic() - t0 < timeout_s and policy.fault is None:
            r = policy.call(MESSAGE, BUDGET)
            out.append((r.outcome, r.used_ns, r.reply))
    finally:
        policy.close()


def test_a_hostile_trip_on_another_thread_leaves_an_honest_call_untouched(monkeypatch):
    """A spinning policy trips the guard again and again on one thread while an honest policy
    plays on another: every honest call comes out as it does alone (no fault)."""
    _strict(monkeypatch)
    trips, stop = [], threading.Event()

    def hostile():
        while not stop.is_set() and len(trips) < 5:
            policy = _started(SPIN, "spin.wasm")
            t0 = time.thread_time()
            outcome = policy.call(b"go", 10**12).outcome
            trips.append((outcome, time.thread_time() - t0 > 0.29))
            policy.close()

    honest: list = []
    worker = threading.Thread(target=_honest_until, args=(stop, honest))
    worker.start()
    try:
        hostile()
    finally:
        stop.set()
        worker.join()
    # each hostile call is its own trip, after it spun its allowance (0.2 s + 0.1 s)
    assert trips == [(protocol.WALL_CLOCK, True)] * 5
    alone = _started(HONEST, "honest.wasm")
    assert honest and honest == _honest_calls(alone, len(honest))
    assert set(o for o, _, _ in honest) == {"ok"}


def test_a_series_beside_a_hostile_thread_is_the_series_alone(monkeypatch, tmp_path):
    """Issue 35's reproduction: a series on this thread while another thread runs spinning
    policies that trip the guard again and again (every 20 ms of CPU). No seat of the series is
    faulted, its replay is byte for byte the replay of the series alone, and `replay.verify`
    agrees. Slot 0 counts to 500,000 at every message (4 ms of virtual time, within even a
    notification's 5 ms; a millisecond or two of CPU), so that a call of the series is often
    running when a trip comes."""
    _strict(monkeypatch, slack_s=0.0, per_call_s=0.02)
    counter = tmp_path / "counter.wasm"
    counter.write_bytes(_module(HONEST.replace("30000000", "500000")))
    paths = [str(counter)] + [bundled("baseline")] * 5

    def series_replay() -> bytes:
        policies = [load_policy(p) for p in paths]
        try:
            series = runner.run_series(policies, variant="certify-series", seed=11,
                                       tournaments=20, max_wall=None)
        finally:
            for p in policies:
                p.close()
        doc = results.summarize(series, planned=20)
        assert all(s["faulted_at"] is None for s in doc["slots"])
        output.write_all(series, doc, tmp_path / "out")
        return (tmp_path / "out" / replay.REPLAY_NAME).read_bytes()

    alone = series_replay()
    trips, stop = [], threading.Event()

    def hostile():
        while not stop.is_set():
            policy = _started(SPIN, "spin.wasm")
            trips.append(policy.call(b"go", 10**12).outcome)
            policy.close()

    worker = threading.Thread(target=hostile)
    worker.start()
    try:
        while not trips and worker.is_alive():  # the first trip is on its way
            time.sleep(0.01)
        beside = series_replay()
    finally:
        stop.set()
        worker.join()
    assert trips and set(trips) == {protocol.WALL_CLOCK}
    assert beside == alone
    same, report = replay.verify(tmp_path / "out" / replay.REPLAY_NAME)
    assert same, report


def test_a_call_ended_by_an_exception_leaves_nothing_armed(monkeypatch):
    """A call that ends by a BaseException (Ctrl-C inside a host import) leaves no guard armed:
    the thread's CPU time afterwards never trips another thread's honest call, and the policy's
    next call is judged on its own."""
    _strict(monkeypatch)
    asker = _started(ASKER, "asker.wasm")
    charged, import_call = [], machine_guard.MachineGuard.import_call

    def ctrl_c_at_the_100th(guard):  # the host's share of a host import call, then Ctrl-C
        charged.append(1)
        if len(charged) == 100:
            raise KeyboardInterrupt
        return import_call(guard)

    with monkeypatch.context() as ctrl_c, pytest.raises(KeyboardInterrupt):
        ctrl_c.setattr(machine_guard.MachineGuard, "import_call", ctrl_c_at_the_100th)
        asker.call(b"go", 10**9)
    honest, stop = [], threading.Event()
    worker = threading.Thread(target=_honest_until, args=(stop, honest))
    worker.start()
    try:
        while len(honest) < 3 and worker.is_alive():  # the honest calls are under way
            time.sleep(0.001)
        t0, data = time.thread_time(), bytes(1 << 22)
        while time.thread_time() - t0 < 1.5:  # this thread's CPU time, far past the allowance
            hashlib.sha256(data).digest()  # (hashlib lets the other thread run meanwhile)
    finally:
        stop.set()
        worker.join()
    alone = _started(HONEST, "honest.wasm")
    assert honest and honest == _honest_calls(alone, len(honest))
    assert asker.call(b"", BUDGET).outcome == "no_reply"  # its own next call, not tripped


def test_a_guard_trip_is_recorded_in_the_replay_and_reproduced(monkeypatch, tmp_path):
    """The policy's own trip (machine-dependent) is recorded in the replay; `replay.verify`
    reproduces the series byte for byte on a guard that would not have tripped."""
    spin = tmp_path / "spin.wasm"
    spin.write_bytes(_module(SPIN_AT_ACT))
    paths = [str(spin)] + [bundled("baseline")] * 5
    with monkeypatch.context() as strict:
        _strict(strict, slack_s=0.3)
        policies = [load_policy(p) for p in paths]
        series = runner.run_series(policies, variant="certify-series", seed=5, tournaments=1,
                                   max_wall=None, shot_ns=2_000 * protocol.MS)
        for p in policies:
            p.close()
    doc = results.summarize(series, planned=1)
    assert doc["slots"][0]["faults"][0]["cause"] == protocol.WALL_CLOCK
    assert all(s["faulted_at"] is None for s in doc["slots"][1:])
    trips = [trip for t in series.tournaments for trip in t.get("guard_trips", ())]
    assert len(trips) == 1 and trips[0]["slot"] == 0
    assert 0 < trips[0]["used_ns"] < 2_000 * protocol.MS
    out = tmp_path / "out"
    output.write_all(series, doc, out)
    same, report = replay.verify(out / replay.REPLAY_NAME)  # the default guard: no trip of its own
    assert same, report


def test_an_interrupt_the_host_cannot_attribute_voids_the_series(monkeypatch):
    """An epoch interruption that no guard of this host asked for (here: a store left without
    the guard's per-call judge) is not charged to the policy: the series is void."""
    monkeypatch.setattr(machine_guard, "judge_calls", lambda store, guard: None)
    policy = _started(SPIN, "spin.wasm")
    with pytest.raises(protocol.SeriesVoid, match="spin.wasm"):
        policy.call(b"go", 10**12)
    assert policy.fault is None  # nothing charged to it


def test_a_void_series_is_an_error_line_and_writes_nothing(monkeypatch, tmp_path, capsys):
    """`holdemjax series`: a void series says so on stderr, exits 2 and leaves no results."""
    from holdemjax.cli import main

    monkeypatch.setattr(machine_guard, "judge_calls", lambda store, guard: None)
    spin = tmp_path / "spin.wasm"
    spin.write_bytes(_module(SPIN))  # spins on its start message: no guard judges it
    out = tmp_path / "run"
    assert main(["series", str(spin), "--variant", "certify-series", "--tournaments", "1",
                 "--no-compile-cache", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the series is void" in err and "spin.wasm" in err and "Traceback" not in err
    assert not (out / "results.json").exists() and not (out / replay.REPLAY_NAME).exists()
