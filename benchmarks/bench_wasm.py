"""The wasmtime host's costs: module load (cold compile, cache hit) and one decision's round trip.

    python benchmarks/bench_wasm.py [--seconds 2] [--module PATH ...] [--strict]

Round trip = what the series pays per decision on the host: encode a representative ~1 KB `act`
message (canonical ``json.dumps``), `WasmPolicy.call` (set fuel, alloc, write, on_message, read
the reply, memory check) and ``json.loads`` of the reply. The policy is a WAT echo-style bot that
scans every byte of the message and answers a fixed action. Also measured: a bare exported no-op
called from Python, one host import call (`holdem.time_left_ns`, what `HOST_CALL_NS` charges
for) and the wall time of one virtual millisecond of the tightest loop (the worst case of a
timeout). Each number is the best of several windows (the closest to the machine's capacity on a
shared machine). ``--strict`` exits 1 when the round trip is over GOAL_US.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time

import wasmtime

from holdemjax.series import wasm as W

GOAL_US = 100.0  # host round trip per decision

# Scans the message (sums its bytes, as a parser touches every byte), then replies a fixed action.
# "s": spin forever (fuel rate); "t": poll holdem.time_left_ns forever (host import cost).
BOT_WAT = r"""
(module
  (import "holdem" "time_left_ns" (func $left (result i64)))
  (memory (export "memory") 2)
  (data (i32.const 8) "{\"action\":\"call\",\"say\":\"gl\"}")
  (global $sum (mut i32) (i32.const 0))
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 4096))
  (func (export "noop"))
  (func (export "holdem_on_message") (param $ptr i32) (param $len i32) (result i64)
    (local $end i32)
    (if (i32.eq (i32.load8_u (local.get $ptr)) (i32.const 115)) (then (loop $s (br $s))))
    (if (i32.eq (i32.load8_u (local.get $ptr)) (i32.const 116))
      (then (loop $t (drop (call $left)) (br $t))))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (block $done
      (loop $scan
        (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))
        (global.set $sum (i32.add (global.get $sum) (i32.load8_u (local.get $ptr))))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
        (br $scan)))
    (i64.or (i64.shl (i64.const 8) (i64.const 32)) (i64.const 28))))
"""


def big_wat(functions: int = 400) -> str:
    """A synthetic module about the size of a small C policy (~25 KB) for the compile time."""
    body = "".join(
        f"(func $f{i} (param i32) (result i32) (local i32) (block $b (loop $l "
        f"(br_if $b (i32.ge_u (local.get 1) (local.get 0))) "
        f"(local.set 1 (i32.add (local.get 1) (i32.mul (local.get 1) (i32.const {i + 3})))) "
        f"(br $l))) (i32.xor (local.get 1) (call $f{max(i - 1, 0)} (i32.const 0))))\n"
        for i in range(functions))
    return BOT_WAT.rstrip()[:-1] + body + ")"


def act_message() -> dict:
    """A representative mid-hand `act` message (PROTOCOL §5), about 1 KB canonical."""
    return {
        "type": "act", "tournament": 3, "hand": 17, "street": 1, "seat": 4, "decision": 1,
        "button": 2, "sb": 3, "bb": 4, "blinds": [25, 50, 0],
        "stacks": [980, 0, 940, 1010, 960, 1070], "bets": [0, 0, 0, 0, 100, 0],
        "contrib": [50, 0, 50, 0, 150, 50], "pot": 300,
        "in_hand": [True, False, True, False, True, True],
        "folded": [False, False, False, True, False, False],
        "allin": [False] * 6, "alive": [True, False, True, True, True, True],
        "hole": ["Ah", "Kd"], "board": ["2c", "7d", "Ks"],
        "history": [[0, 5, 3, 100], [0, 2, 2, 100], [0, 3, 0, 100], [0, 4, 2, 100],
                    [1, 5, 1, 0], [1, 2, 3, 100]],
        "legal": {"fold": True, "check": False, "call": 100, "raise": [200, 960]},
        "clock": {"budget_ns": 200_000_000, "bank_ns": 940_000_000}, "away": False,
        "events": [
            {"type": "action", "street": 1, "seat": 5, "code": 1, "to": 0, "added": 0,
             "auto": None},
            {"type": "chat", "seat": 5, "text": "nice flop", "say": True},
            {"type": "action", "street": 1, "seat": 2, "code": 3, "to": 100, "added": 100,
             "auto": None},
            {"type": "board", "street": 1, "cards": ["2c", "7d", "Ks"]},
            {"type": "emote", "seat": 1, "emote": "gg"},
        ],
    }


def encode(message: dict) -> bytes:
    return json.dumps(message, sort_keys=True, separators=(",", ":")).encode()


def best_per_call(fn, min_seconds: float, windows: int = 5) -> float:
    """Seconds per ``fn()`` call in the fastest of ``windows`` windows."""
    best = float("inf")
    for _ in range(windows):
        calls, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < min_seconds / windows or calls < 3:
            fn()
            calls += 1
        best = min(best, elapsed / calls)
    return best


def load_times(wasm: bytes, repeats: int) -> tuple[float, float]:
    """(cold compile, cache hit) seconds for a full `load_policy`, best of ``repeats``."""
    saved = os.environ.get("HOLDEMJAX_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["HOLDEMJAX_CACHE"] = cache
        try:
            cold = min(_timed(lambda: W.load_policy(wasm, cache=False)) for _ in range(repeats))
            W.load_policy(wasm)  # fill the cache
            hit = min(_timed(lambda: W.load_policy(wasm)) for _ in range(repeats))
        finally:
            if saved is None:
                del os.environ["HOLDEMJAX_CACHE"]
            else:
                os.environ["HOLDEMJAX_CACHE"] = saved
    return cold, hit


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="minimum timing per row")
    parser.add_argument("--module", action="append", default=[],
                        help="also time loading this .wasm (repeatable)")
    parser.add_argument("--strict", action="store_true", help=f"exit 1 over {GOAL_US:.0f} us")
    args = parser.parse_args(argv)

    bot = bytes(wasmtime.wat2wasm(BOT_WAT))
    modules = {"echo-style bot (WAT)": bot, "synthetic 400 functions": bytes(
        wasmtime.wat2wasm(big_wat()))}
    for path in args.module:
        with open(path, "rb") as f:
            modules[os.path.basename(path)] = f.read()
    rows = []
    for name, wasm in modules.items():
        cold, hit = load_times(wasm, repeats=5)
        rows.append((f"load {name} ({len(wasm):,} B), cold compile", cold * 1e6, "us"))
        rows.append((f"load {name}, cache hit", hit * 1e6, "us"))

    policy = W.load_policy(bot, cache=False)
    policy.start(b"{}")
    message = act_message()
    size = len(encode(message))
    budget = W.DECISION_MAX_NS
    check = policy.call(encode(message), budget)
    assert check.outcome == "ok" and json.loads(check.reply)["action"] == "call", check
    fuel = check.used_ns

    def round_trip():
        result = policy.call(encode(message), budget)
        return json.loads(result.reply)

    payload = encode(message)
    store, noop = bare_noop(bot)
    rt = best_per_call(round_trip, args.seconds)
    rows.append((f"decision round trip ({size:,} B act message, {fuel:,} fuel in the guest)",
                 rt * 1e6, "us"))
    rows.append(("  of which policy.call alone",
                 best_per_call(lambda: policy.call(payload, budget), args.seconds) * 1e6, "us"))
    rows.append(("  of which json.dumps + json.loads",
                 best_per_call(lambda: json.loads(encode(message)), args.seconds) * 1e6, "us"))
    rows.append(("exported no-op called from Python",
                 best_per_call(lambda: noop(store), args.seconds) * 1e6, "us"))

    # The tight-loop fuel rate and the host import cost, from timeouts on a fixed budget.
    spin_budget = 20 * W.MS
    spin = min(_timed(lambda: policy.call(b"s", spin_budget)) for _ in range(5))
    rows.append(("1 virtual ms of the tightest loop (br), wall", spin / 20 * 1e3, "ms"))
    poll = min(_timed(lambda: policy.call(b"t", spin_budget)) for _ in range(5))
    calls = spin_budget // W.HOST_CALL_NS
    rows.append((f"one holdem.time_left_ns call (charged {W.HOST_CALL_NS:,} fuel), wall",
                 poll / calls * 1e6, "us"))

    print(f"wasmtime {W.wasmtime_version()} | Python {platform.python_version()} | "
          f"{platform.platform()} | {platform.processor() or platform.machine()} | "
          f"{os.cpu_count()} CPUs\n")
    print("| measure | value |\n|---|---:|")
    for label, value, unit in rows:
        print(f"| {label} | {value:,.1f} {unit} |")
    verdict = "ok" if rt * 1e6 <= GOAL_US else "OVER GOAL"
    print(f"\nround trip {rt * 1e6:.1f} us per decision vs goal {GOAL_US:.0f} us: {verdict}")
    policy.close()
    store.close()
    return 1 if args.strict and rt * 1e6 > GOAL_US else 0


def bare_noop(wasm: bytes):
    """(store, func): the bot's exported no-op in a plain store, for the bare-call baseline."""
    store = wasmtime.Store(W.engine())
    store.set_fuel(2**62)
    store.set_epoch_deadline(2**62)  # the engine has epoch interruption on (the machine-time guard)
    linker = wasmtime.Linker(W.engine())
    linker.define_func("holdem", "time_left_ns", wasmtime.FuncType([], [wasmtime.ValType.i64()]),
                       lambda: 0)
    instance = linker.instantiate(store, wasmtime.Module(W.engine(), wasm))
    return store, instance.exports(store)["noop"]


if __name__ == "__main__":
    sys.exit(main())
