"""The Rust SDK (sdk/rust, crate holdem-legacy-sdk): its own `cargo test`, and its example policy
built for wasm32 and played through a host.

Cargo builds into a temporary target folder (CARGO_TARGET_DIR), with --locked --offline, and each
run checks that it left sdk/rust as it found it (no target/, Cargo.lock unchanged).

Toolchains: `cargo test` runs with the first cargo on PATH and with Debian's /usr/bin/cargo (paired
with /usr/bin/rustc 1.63, the oldest Rust the crate promises) when that is another one. The wasm
build needs a wasm32-unknown-unknown standard library: Debian's `libstd-rust-dev-wasm32` gives it
to /usr/bin/rustc; without one those tests skip. The example is played through
`holdemjax.series.wasm.load_policy` (the series host) and through a minimal wasmtime host written
here from PROTOCOL.md alone.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

SDK = pathlib.Path(__file__).resolve().parents[2] / "sdk" / "rust"
DEBIAN_CARGO = pathlib.Path("/usr/bin/cargo")
DEBIAN_RUSTC = pathlib.Path("/usr/bin/rustc")
WASM_TARGET = "wasm32-unknown-unknown"
CARGO_TIMEOUT_S = 900  # a cold build on two busy cores takes about a minute; this is a hang
GREETING = "gl hf from a Rust policy"  # examples/check_call.rs says it once
MS = 1_000_000  # virtual nanoseconds (fuel units) per millisecond
MASK32, MASK64 = 0xFFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF


# ------------------------------------------------------------------------------------ cargo
def _cargo_env(cargo: str, target_dir: pathlib.Path) -> dict:
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir), CARGO_TERM_COLOR="never")
    # Flags from the caller's shell would change what is built.
    for var in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS",
                "CARGO_BUILD_TARGET", "RUSTC", "RUSTDOC", "RUSTC_WRAPPER"):
        env.pop(var, None)
    if pathlib.Path(cargo).resolve() == DEBIAN_CARGO.resolve() and DEBIAN_RUSTC.exists():
        # Debian's cargo runs the first rustc on PATH, which may be rustup's (no wasm32 std).
        env["RUSTC"], env["RUSTDOC"] = str(DEBIAN_RUSTC), str(DEBIAN_RUSTC.with_name("rustdoc"))
    return env


def _run_cargo(cargo: str, args: list[str],
               target_dir: pathlib.Path) -> subprocess.CompletedProcess:
    """Run ``cargo args`` in sdk/rust; fail if it hangs or leaves anything in the source tree."""
    had_target = (SDK / "target").exists()
    lock = (SDK / "Cargo.lock").read_bytes()
    try:
        proc = subprocess.run([cargo, *args, "--locked", "--offline"], cwd=SDK,
                              env=_cargo_env(cargo, target_dir), capture_output=True, text=True,
                              timeout=CARGO_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{cargo} {' '.join(args)} ran past {CARGO_TIMEOUT_S} s")
    assert (SDK / "target").exists() == had_target, "cargo wrote sdk/rust/target"
    assert (SDK / "Cargo.lock").read_bytes() == lock, "cargo rewrote sdk/rust/Cargo.lock"
    return proc


def _path_cargo() -> str | None:
    return shutil.which("cargo")


@pytest.mark.parametrize("which", ["path", "debian"])
def test_cargo_test(which, tmp_path):
    """`cargo test` of the crate passes (with every toolchain found), and really ran its suites."""
    cargo = _path_cargo()
    if which == "path" and cargo is None:
        pytest.skip("no cargo on PATH")
    if which == "debian":
        if not (DEBIAN_CARGO.exists() and DEBIAN_RUSTC.exists()):
            pytest.skip("no Debian cargo/rustc (apt-get install rustc cargo)")
        if cargo and pathlib.Path(cargo).resolve() == DEBIAN_CARGO.resolve():
            pytest.skip("Debian's cargo is the one on PATH: already tested")
        cargo = str(DEBIAN_CARGO)
    proc = _run_cargo(cargo, ["test"], tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{cargo} test failed:\n{out[-6000:]}"
    results = re.findall(r"test result: (\w+)\. (\d+) passed; (\d+) failed", out)
    assert results and all(ok == "ok" and failed == "0" for ok, _, failed in results), out[-3000:]
    # Integration, example and doc tests: 30 when written; far fewer means suites vanished.
    assert sum(int(passed) for _, passed, _ in results) >= 25, out[-3000:]


# ---------------------------------------------------------------------------- the example
@pytest.fixture(scope="module")
def check_call_wasm(tmp_path_factory) -> bytes:
    """examples/check_call.rs built for wasm32 (release), as bytes; skips without a wasm32 std."""
    cargo = str(DEBIAN_CARGO) if DEBIAN_CARGO.exists() else _path_cargo()
    if cargo is None:
        pytest.skip("no cargo")
    target = tmp_path_factory.mktemp("cargo-wasm")
    proc = _run_cargo(cargo, ["build", "--release", "--target", WASM_TARGET,
                              "--example", "check_call"], target)
    if proc.returncode != 0 and ("E0463" in proc.stderr or "may not be installed" in proc.stderr):
        pytest.skip(f"{cargo} has no {WASM_TARGET} standard library "
                    "(Debian: apt-get install libstd-rust-dev-wasm32)")
    assert proc.returncode == 0, f"wasm build failed:\n{proc.stderr[-6000:]}"
    return (target / WASM_TARGET / "release" / "examples" / "check_call.wasm").read_bytes()


def test_example_module_shape(check_call_wasm):
    """Imports only from `holdem` with the protocol's signatures; exports what §1 asks."""
    wasmtime = pytest.importorskip("wasmtime")
    module = wasmtime.Module(wasmtime.Engine(), check_call_wasm)
    i32, i64 = wasmtime.ValType.i32(), wasmtime.ValType.i64()
    sig = {"log": ([i32, i32], []), "time_left_ns": ([], [i64])}
    assert module.imports, "the example logs, so it imports holdem.log"
    for imp in module.imports:
        assert (imp.module, imp.name in sig) == ("holdem", True), f"import {imp.module}.{imp.name}"
        assert (list(imp.type.params), list(imp.type.results)) == sig[imp.name], imp.name
    exports = {e.name: e.type for e in module.exports}
    for name, params, results in [("holdem_abi_version", [], [i32]), ("holdem_alloc", [i32], [i32]),
                                  ("holdem_on_message", [i32, i32], [i64])]:
        assert (list(exports[name].params), list(exports[name].results)) == (params, results), name
    assert exports["memory"].limits.min * 65_536 <= 64 * 2**20
    sp = exports["__stack_pointer"]  # from sdk/rust/.cargo/config.toml: the host restores it
    assert sp.mutable and sp.content == i32
    assert len(check_call_wasm) < 512 * 1024, f"{len(check_call_wasm)} bytes"


# --------------------------------------------------------------------------------- messages
def _encode(message: dict) -> bytes:
    """The host's canonical form (PROTOCOL §2)."""
    return json.dumps(message, sort_keys=True, separators=(",", ":")).encode()


START = {
    "type": "start", "protocol": 1, "slot": 2, "alias": "Lovelace", "variant": "series-100",
    "tournaments": 100,
    "format": {"name": "sng-6", "seats": 6, "starting_stack": 1000, "hands_per_level": 4,
               "hand_cap": 60,
               "levels": [[10, 20, 0], [15, 30, 0], [25, 50, 0], [40, 80, 0], [60, 120, 120]],
               "payouts_ppm": [333000, 267000, 200000, 133000, 67000, 0]},
    "clock": {"shot_ns": 20000000, "bank_ns": 1000000000, "decision_max_ns": 200000000,
              "notify_ns": 5000000, "start_ns": 1000000000},
    "limits": {"memory_bytes": 67108864, "reply_bytes": 4096, "chat_chars": 140,
               "chat_lines_per_hand": 2},
    "emotes": ["applause", "facepalm", "gg", "laugh", "sigh", "thumbs_up", "tip_hat", "wave"],
    "seed": [2718281828, 3141592653],
}

FACING = {"fold": True, "check": False, "call": 20, "raise": [80, 1000]}
FREE = {"fold": True, "check": True, "call": 0, "raise": [40, 960]}


def _act(hole, board=(), legal=FACING, away=False, events=()) -> dict:
    """The act example of PROTOCOL §5 with the given cards and legal actions."""
    return {
        "type": "act", "events": list(events), "tournament": 0, "hand": 3,
        "street": 1 if board else 0, "seat": 4, "decision": 1, "button": 2, "sb": 3, "bb": 4,
        "blinds": [10, 20, 0],
        "stacks": [980, 0, 940, 1010, 960, 1070], "bets": [0, 0, 0, 0, 20, 0],
        "contrib": [20, 0, 20, 0, 40, 20], "in_hand": [True, False, True, False, True, True],
        "folded": [False, False, False, True, False, False], "allin": [False] * 6,
        "alive": [True, False, True, True, True, True], "hole": list(hole), "board": list(board),
        "pot": 120, "history": [[0, 5, 3, 60], [0, 2, 2, 60]], "legal": legal,
        "clock": {"budget_ns": 220000000, "bank_ns": 1000000000}, "away": away,
    }


def _legal_action(reply: dict, legal: dict) -> bool:
    """PROTOCOL §4: the action is one of the four and offered by ``legal``."""
    action = reply.get("action")
    if action == "fold":
        return legal["fold"]
    if action == "check":
        return legal["check"]
    if action == "call":
        return not legal["check"] and legal["call"] > 0
    if action == "raise":
        amount, lo_hi = reply.get("amount"), legal["raise"]
        return lo_hi is not None and isinstance(amount, int) and lo_hi[0] <= amount <= lo_hi[1]
    return False


# ------------------------------------------------------------------------------------ hosts
class _SeriesHost:
    """The project's host, holdemjax.series.wasm."""

    def __init__(self, wasm: bytes):
        from holdemjax.series import wasm as series_wasm
        self.policy = series_wasm.load_policy(wasm, name="check_call.wasm", cache=False)

    def start(self, message: bytes):
        r = self.policy.start(message)
        return r.outcome, r.reply, r.used_ns

    def call(self, message: bytes, budget_ns: int):
        r = self.policy.call(message, budget_ns)
        return r.outcome, r.reply, r.used_ns

    @property
    def logs(self) -> list[str]:
        return [text for _, text in self.policy.logs]

    @property
    def stack_pointer(self) -> int | None:
        return self.policy.stack_pointer


class _MinimalHost:
    """PROTOCOL §1-§3 in a few lines of wasmtime: fuel clock, the two imports, alloc/write/
    on_message/read, and the stack pointer put back after a timeout."""

    def __init__(self, wasm: bytes):
        import wasmtime
        self.w = wasmtime
        config = wasmtime.Config()
        config.consume_fuel = True
        engine = wasmtime.Engine(config)
        self.store = store = wasmtime.Store(engine)
        self.logs: list[str] = []
        linker = wasmtime.Linker(engine)
        i32, i64 = wasmtime.ValType.i32(), wasmtime.ValType.i64()

        def log(caller, ptr, n):
            data = caller["memory"].read(caller, ptr & MASK32, (ptr & MASK32) + (n & MASK32))
            self.logs.append(bytes(data).decode("utf-8", "replace"))

        linker.define_func("holdem", "log", wasmtime.FuncType([i32, i32], []), log,
                           access_caller=True)
        linker.define_func("holdem", "time_left_ns", wasmtime.FuncType([], [i64]),
                           lambda caller: wasmtime.Store.get_fuel(caller), access_caller=True)
        store.set_fuel(1000 * MS)
        exports = linker.instantiate(store, wasmtime.Module(engine, wasm)).exports(store)
        self.memory, self.alloc = exports["memory"], exports["holdem_alloc"]
        self.on_message, self.sp = exports["holdem_on_message"], exports["__stack_pointer"]
        assert exports["holdem_abi_version"](store) == 1
        self.saved_sp = None

    def start(self, message: bytes):
        result = self.call(message, 1000 * MS)
        self.saved_sp = self.sp.value(self.store)
        return result

    def call(self, message: bytes, budget_ns: int):
        store = self.store
        store.set_fuel(budget_ns)
        try:
            ptr = self.alloc(store, len(message)) & MASK32
            assert ptr, "holdem_alloc refused"
            self.memory.write(store, message, ptr)
            r = self.on_message(store, ptr, len(message)) & MASK64
        except self.w.Trap as trap:
            if trap.trap_code != self.w.TrapCode.OUT_OF_FUEL:
                return "trap", None, budget_ns - store.get_fuel()
            if self.saved_sp is not None:
                self.sp.set_value(store, self.saved_sp)
            return "timeout", None, budget_ns
        used = budget_ns - store.get_fuel()
        if r == 0:
            return "no_reply", None, used
        ptr, n = r >> 32, r & MASK32
        assert n <= 4096
        return "ok", bytes(self.memory.read(store, ptr, ptr + n)), used

    @property
    def stack_pointer(self) -> int:
        return self.sp.value(self.store)


@pytest.fixture(params=["series", "minimal"])
def host(request, check_call_wasm):
    """The example policy loaded and started by one of the two hosts."""
    pytest.importorskip("wasmtime")
    if request.param == "series":
        try:
            from holdemjax.series.wasm import load_policy  # noqa: F401 (whether it imports)
        except ImportError:
            pytest.skip("holdemjax.series.wasm.load_policy is not there yet")
        h = _SeriesHost(check_call_wasm)
    else:
        h = _MinimalHost(check_call_wasm)
    outcome, reply, used = h.start(_encode(START))
    assert (outcome, reply) == ("no_reply", None), "the SDK sends nothing for start"
    assert used < 5 * MS, f"start took {used} ns"
    return h


def _decide(h, message: dict, budget_ns: int = 20 * MS) -> dict:
    outcome, reply, used = h.call(_encode(message), budget_ns)
    assert outcome == "ok", (outcome, message)
    # A decision of this policy is tiny next to the 20 ms shot clock.
    assert used < 2 * MS, f"{used} ns for one decision"
    return json.loads(reply)


# ------------------------------------------------------------------------------------ play
def test_example_logs_its_start(host):
    assert any("slot 2" in line and "Lovelace" in line for line in host.logs), host.logs


@pytest.mark.parametrize("hole, board, legal, expected", [
    (["Ah", "Kd"], [], FACING, "call"),             # two high cards
    (["7c", "2d"], [], FACING, "fold"),
    (["7c", "2d"], [], FREE, "check"),
    (["Qs", "Qh"], [], FREE, "check"),              # strong, but checking is free
    (["9h", "2d"], ["9c", "Kd", "3s"], FACING, "call"),   # paired on the flop
    (["9h", "2d"], ["Tc", "Kd", "3s"], FACING, "fold"),
])
def test_example_acts_legally(host, hole, board, legal, expected):
    first = _decide(host, _act(hole, board, legal))
    assert _legal_action(first, legal), first
    assert first["action"] == expected
    assert first.get("chat") == [GREETING], "one chat line at the first decision"
    again = _decide(host, _act(hole, board, legal))
    assert again == {"action": expected}, "no more chat after the first decision"


def test_example_sits_in_when_away_and_ignores_notifications(host):
    reply = _decide(host, _act(["7c", "2d"], legal=FACING, away=True))
    assert reply.get("sit_in") is True and _legal_action(reply, FACING)
    hand_end = {"type": "hand_end", "events": [{"type": "result", "winnings": [0] * 6,
                                                 "stacks": [1000] * 6}], "tournament": 0, "hand": 3}
    outcome, _, used = host.call(_encode(hand_end), 5 * MS)
    assert outcome == "no_reply" and used < 5 * MS


def test_example_answers_bad_messages_with_nothing(host):
    """An unreadable message gets no reply (the table's default) and a log line; play goes on."""
    for bad in [b"not json", b'{"type":"act"}', _encode(_act(["Ah", "Kd"]))[:-3], b""]:
        outcome, reply, _ = host.call(bad, 20 * MS)
        assert (outcome, reply) == ("no_reply", None), bad
    assert sum("unreadable message" in line for line in host.logs) == 4, host.logs
    assert _decide(host, _act(["Ah", "Kd"]))["action"] == "call"


def test_example_reads_a_long_message(host):
    """A message of 75 kB (1,000 chat events) grows the 16 KiB buffer and is read within the
    20 ms shot clock (the SDK reads about 8 bytes per virtual microsecond)."""
    events = [{"type": "chat", "seat": i % 6, "text": f"line {i} \"quoted\" \\ é", "say": False}
              for i in range(1000)]
    message = _encode(_act(["Ah", "Kd"], events=events))
    assert len(message) > 70_000
    outcome, reply, used = host.call(message, 200 * MS)
    assert outcome == "ok" and json.loads(reply)["action"] == "call", (outcome, reply)
    assert used < 20 * MS, f"{used} ns to read {len(message)} bytes"


def test_example_survives_aborted_calls(host):
    """A timeout can stop the policy anywhere in a call (PROTOCOL §3); the next call still plays.

    Budgets are spread over the whole of one decision's fuel, so the abort lands in the
    allocator, the JSON reader, the policy and the reply writer in turn.
    """
    act = _act(["9h", "2d"], ["9c", "Kd", "3s"])
    _decide(host, act)  # the greeting goes out first
    message = _encode(act)
    sp = host.stack_pointer
    outcome, reference, full = host.call(message, 20 * MS)
    assert outcome == "ok"
    steps, timeouts = 97, 0
    for k in range(1, steps):
        budget = full * k // steps
        outcome, reply, _ = host.call(message, budget)
        # The allocator's state after an abort can make the same call a little cheaper.
        assert outcome == "timeout" or (outcome, reply) == ("ok", reference), (budget, outcome)
        timeouts += outcome == "timeout"
        outcome, reply, _ = host.call(message, 20 * MS)
        assert (outcome, reply) == ("ok", reference), f"after an abort at {budget} of {full} ns"
        assert host.stack_pointer == sp, "the shadow stack leaked"
    assert timeouts >= steps - 10, f"only {timeouts} of {steps - 1} calls were cut short"
