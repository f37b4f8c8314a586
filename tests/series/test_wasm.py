"""Tests of holdemjax/series/wasm.py: loading, the fault zoo (tests/series/zoo/*.wat), the clock,
the compile cache and determinism.

Every zoo module is hand-written WAT compiled here with `wasmtime.wat2wasm`; each test asserts the
exact outcome PROTOCOL.md §1-§4 prescribes. All of them run in this one process, which is the
point: nothing a policy does may take the host down. Each test gets its own empty cache folder.
"""

from __future__ import annotations

import functools
import hashlib
import pathlib
import struct

import pytest

wasmtime = pytest.importorskip("wasmtime")

from holdemjax.series import wasm, wasm_module
from holdemjax.series.wasm import (
    BANK_NS,
    DECISION_MAX_NS,
    HOST_CALL_NS,
    MS,
    NOTIFY_NS,
    OUTCOMES,
    SHOT_NS,
    Clock,
    PolicyLoadError,
    load_policy,
)

ZOO = pathlib.Path(__file__).parent / "zoo"
PAGE = 65_536


@functools.cache
def wasm_of(name: str) -> bytes:
    """The zoo module ``name`` (tests/series/zoo/<name>.wat) compiled to wasm bytes."""
    return bytes(wasmtime.wat2wasm((ZOO / f"{name}.wat").read_text()))


def load(name: str, **kwargs) -> wasm.WasmPolicy:
    return load_policy(wasm_of(name), name=f"{name}.wasm", **kwargs)


def started(name: str, message: bytes = b"") -> wasm.WasmPolicy:
    policy = load(name)
    policy.start(message)
    return policy


def i32s(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}i", *values)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch) -> pathlib.Path:
    """Each test compiles into its own empty cache (never ~/.cache)."""
    monkeypatch.setenv("HOLDEMJAX_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "wasm"


# ------------------------------------------------------------------------ failures to load
@pytest.mark.parametrize("blob, why", [
    (b"", "not a WebAssembly binary"),
    (b"(module)", "not a WebAssembly binary"),  # WAT text is not accepted as a module
    (b"garbage bytes", "not a WebAssembly binary"),
    (b"\0asm\x01\0\0\0\x01\xff\xff", "failed to parse"),  # the header, then a broken section
])
def test_garbage_fails_to_compile(blob, why):
    with pytest.raises(PolicyLoadError) as err:
        load_policy(blob, name="junk.wasm")
    assert err.value.stage == "compile" and err.value.policy == "junk.wasm"
    assert str(err.value).startswith("policy junk.wasm: ") and why in str(err.value)


def test_simd_fails_to_compile():
    with pytest.raises(PolicyLoadError) as err:
        load("simd")
    assert err.value.stage == "compile" and "SIMD support is not enabled" in str(err.value)


def test_oversized_module_is_refused_before_compiling():
    with pytest.raises(PolicyLoadError, match="above the 16777216-byte limit") as err:
        load_policy(b"\0asm\x01\0\0\0" + bytes(wasm.MAX_MODULE_BYTES), name="huge.wasm")
    assert err.value.stage == "compile"


def test_wasi_import_message_names_the_import(tmp_path):
    path = tmp_path / "bot.wasm"
    path.write_bytes(wasm_of("wasi_import"))
    with pytest.raises(PolicyLoadError) as err:
        load_policy(path)
    assert err.value.stage == "instantiate" and err.value.policy == "bot.wasm"
    assert str(err.value) == ("policy bot.wasm: imports wasi_snapshot_preview1.fd_write, only "
                              "holdem.log and holdem.time_left_ns are granted")


@pytest.mark.parametrize("name, message", [
    ("env_import", "imports env.foo, only holdem.log"),
    ("log_wrong_type", "imports holdem.log as (i64) -> (), expected (i32, i32) -> ()"),
    ("missing_export", "does not export holdem_alloc (i32) -> (i32)"),
    ("big_memory", "memory starts at 2000 pages (131072000 bytes), above the 67108864-byte"),
])
def test_bad_module_shape_fails_to_instantiate(name, message):
    with pytest.raises(PolicyLoadError) as err:
        load(name)
    assert err.value.stage == "instantiate" and message in str(err.value)


def test_load_by_path_and_missing_file(tmp_path):
    path = tmp_path / "echo.wasm"
    path.write_bytes(wasm_of("echo"))
    for source in (path, str(path)):
        policy = load_policy(source)
        assert policy.name == "echo.wasm"
        assert policy.sha256 == hashlib.sha256(wasm_of("echo")).hexdigest()
    assert load_policy(wasm_of("echo")).name == f"sha256:{policy.sha256[:12]}"
    with pytest.raises(PolicyLoadError, match="policy gone.wasm: cannot be read") as err:
        load_policy(tmp_path / "gone.wasm")
    assert err.value.stage == "compile"


# ----------------------------------------------------------------------- failures at start
def test_wrong_abi_version_fails_before_holdem_start():
    policy = load("wrong_abi")
    with pytest.raises(PolicyLoadError) as err:
        policy.start(b"{}")
    # holdem_start would trap: the refusal is about the version, so it never ran.
    assert err.value.stage == "instantiate"
    assert "holdem_abi_version() returned 2, this host speaks 1" in str(err.value)
    with pytest.raises(RuntimeError, match="faulted"):
        policy.call(b"{}", SHOT_NS)


@pytest.mark.parametrize("name, code, step", [
    ("trap_initialize", "UNREACHABLE", "_initialize"),
    ("trap_start", "INTEGER_DIVISION_BY_ZERO", "holdem_start"),
])
def test_trap_at_start_fails_the_start(name, code, step):
    with pytest.raises(PolicyLoadError) as err:
        load(name).start(b"{}")
    assert err.value.stage == "start"
    assert str(err.value) == f"policy {name}.wasm: trapped ({code}) in {step}"


def test_start_forever_runs_out_of_the_start_budget():
    with pytest.raises(PolicyLoadError) as err:
        load("start_forever").start(b"{}")
    assert err.value.stage == "start"
    assert "ran out of its 1,000 ms start budget in holdem_start" in str(err.value)


def test_trap_in_a_start_section_fails_the_load():
    with pytest.raises(PolicyLoadError) as err:
        load("start_section")
    assert err.value.stage == "start" and "(UNREACHABLE)" in str(err.value)


def test_memory_over_the_limit_at_start_fails_the_start():
    with pytest.raises(PolicyLoadError) as err:
        load("start_hog").start(b"{}")
    assert err.value.stage == "start"
    assert f"memory at {1025 * PAGE} bytes after holdem_start" in str(err.value)


def test_start_message_that_traps_fails_the_start():
    with pytest.raises(PolicyLoadError, match=r"trapped on the start message \(STACK_OVERFLOW\)"):
        load("recurse").start(b"r")


SAYS_WHY = """
(module
  (import "holdem" "log" (func $log (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "no\\07 [/] table for me")
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param i32 i32) (result i64)
    (call $log (i32.const 16) (i32.const 20))
    unreachable))
"""


def test_a_policy_that_refuses_the_start_message_is_quoted():
    """PROTOCOL §4: a policy refuses a series by logging why and trapping on the start message;
    the failure quotes its last line (control characters removed)."""
    policy = load_policy(bytes(wasmtime.wat2wasm(SAYS_WHY)), name="says_why.wasm")
    with pytest.raises(PolicyLoadError) as err:
        policy.start(b"{}")
    assert str(err.value) == ("policy says_why.wasm: trapped on the start message (UNREACHABLE)"
                              "; it logged 'no [/] table for me'")


def test_start_and_call_order_is_enforced():
    policy = load("echo")
    with pytest.raises(RuntimeError, match="not started"):
        policy.call(b"x", SHOT_NS)
    result = policy.start(b"hello")
    assert (result.outcome, result.reply) == ("ok", b"hello")
    with pytest.raises(RuntimeError, match="already started; start"):
        policy.start(b"again")
    for bad in (-1, 1.5, True, 2**64):
        with pytest.raises(ValueError, match="budget_ns"):
            policy.call(b"x", bad)
    policy.close()
    with pytest.raises(RuntimeError, match="closed"):
        policy.call(b"x", SHOT_NS)


# --------------------------------------------------------------------------- one call each
def test_echo_replies_and_counts_fuel_exactly():
    policy = started("echo")
    short, long = policy.call(b"abc", SHOT_NS), policy.call(b"x" * 4096, SHOT_NS)
    assert (short.outcome, short.reply, long.reply) == ("ok", b"abc", b"x" * 4096)
    # The same instructions whatever the length: the fuel does not depend on the bytes.
    assert short.used_ns == long.used_ns and 0 < short.used_ns < 100
    empty = policy.call(b"", SHOT_NS)  # a zero-length message at a valid pointer is delivered
    assert (empty.outcome, empty.reply) == ("ok", b"")


def test_trap_mid_series_faults_and_benches():
    policy = started("trap_nth")  # the start message is on_message call 1
    assert policy.call(b"{}", SHOT_NS).outcome == "no_reply"
    result = policy.call(b"{}", SHOT_NS)
    assert (result.outcome, result.detail, result.reply) == ("trap", "UNREACHABLE", None)
    assert policy.fault == "trap"
    with pytest.raises(RuntimeError, match=r"faulted \(trap\)"):
        policy.call(b"{}", SHOT_NS)


def test_infinite_loop_times_out_and_stack_pointer_is_restored():
    policy = started("forever", b"p")
    assert policy.stack_pointer == 60_000
    result = policy.call(b"s", DECISION_MAX_NS)
    assert result.outcome == "timeout" and result.used_ns == DECISION_MAX_NS
    assert result.reply is None and policy.fault is None
    assert policy.stack_pointer == 60_000  # it was 4096 lower when the guest was stopped
    again = policy.call(b"p", SHOT_NS)  # still callable; the guest sees its stack restored
    assert (again.outcome, again.reply) == ("ok", i32s(60_000))


def test_stack_overflow_is_a_trap():
    result = started("recurse").call(b"r", SHOT_NS)
    assert (result.outcome, result.detail) == ("trap", "STACK_OVERFLOW")


def test_slow_decision_within_the_bank_is_charged_beyond_the_shot_clock():
    clock, policy = Clock(), started("slow", struct.pack("<q", 0))
    budget = clock.decision_budget()
    assert budget == DECISION_MAX_NS
    result = policy.call(struct.pack("<q", 50 * MS), budget)
    assert result.outcome == "ok"
    # It stops at its first poll past 50 ms: one polling chunk (~5k fuel + one host charge) over.
    assert 50 * MS <= result.used_ns < 50 * MS + 20_000
    clock.record_decision(result.outcome, result.used_ns)
    assert clock.bank_ns == BANK_NS - (result.used_ns - SHOT_NS)
    assert 970 * MS - 20_000 < clock.bank_ns <= 970 * MS


def test_time_left_ns_decreases_and_matches_the_budget():
    budget = NOTIFY_NS
    result = started("slow", struct.pack("<q", 0)).call(struct.pack("<q", 1 * MS), budget)
    t0, t1 = struct.unpack("<qq", result.reply)
    # The first poll comes after a few instructions and its own host-call charge.
    assert budget - HOST_CALL_NS - 100 < t0 <= budget - HOST_CALL_NS
    assert t0 - t1 >= 1 * MS and t1 > 0
    # After the last poll only the reply's few instructions remain.
    assert 0 < result.used_ns - (budget - t1) < 100


def test_polling_past_the_budget_is_a_timeout():
    result = started("slow", struct.pack("<q", 0)).call(struct.pack("<q", 10 * MS), NOTIFY_NS)
    assert (result.outcome, result.used_ns) == ("timeout", NOTIFY_NS)


def test_memory_grown_past_64_mib_is_a_fault_and_frees_the_store():
    """Issue 15 finding 8: the store allows 64 MiB + one page (not 256 MiB), so an excess is
    seen, and a benched policy's store is freed at once."""
    policy = started("grow", i32s(0, 0))
    result = policy.call(i32s(1024, 0), SHOT_NS)  # 1 + 1024 pages: one page over
    assert result.outcome == "memory" and f"memory at {1025 * PAGE} bytes" in result.detail
    assert policy.fault == "memory"
    assert policy.memory_bytes == 0  # its store is freed at once, not at the series' end
    with pytest.raises(RuntimeError, match=r"faulted \(memory\)"):
        policy.call(i32s(0, 0), SHOT_NS)


def test_memory_grown_past_64_mib_in_many_steps_is_a_fault():
    in_one_call = started("grow_steps", i32s(0)).call(i32s(1100), SHOT_NS)
    assert in_one_call.outcome == "memory"
    policy = started("grow", i32s(0, 0))
    outcomes = [policy.call(i32s(100, 0), SHOT_NS).outcome for _ in range(11)]
    # 1 + 10 x 100 pages = 1001 pages is under 1024 (64 MiB); the 11th step (to 1101 pages,
    # past what the store allows) is refused: -1, no fault; one more page crosses.
    assert outcomes == ["ok"] * 11 and policy.memory_bytes == 1001 * PAGE
    assert policy.call(i32s(23, 0), SHOT_NS).outcome == "ok"  # exactly 64 MiB: allowed
    assert policy.call(i32s(1, 0), SHOT_NS).outcome == "memory"


def test_a_grow_past_the_stores_limit_gets_minus_one_and_a_trap_after_it_is_a_trap():
    policy = started("grow", i32s(0, 0))
    for pages in (1025, 5000):  # anything ending above 64 MiB + 64 KiB
        refused = policy.call(i32s(pages, 0), SHOT_NS)
        assert (refused.outcome, refused.reply) == ("ok", i32s(-1))
    assert policy.memory_bytes == PAGE  # nothing was granted
    trapped = policy.call(i32s(5000, 1), SHOT_NS)
    assert (trapped.outcome, trapped.detail) == ("trap", "UNREACHABLE")


def test_trap_with_memory_over_the_limit_is_a_memory_fault():
    result = started("grow", i32s(0, 0)).call(i32s(1024, 1), SHOT_NS)
    assert result.outcome == "memory" and result.detail.endswith("at trap UNREACHABLE")


@pytest.mark.parametrize("name, outcome, detail", [
    ("bad_pointer", "bad_pointer", "reply [4294901760, 4294901776) is outside memory of 65536"),
    ("long_reply", "reply_too_long", "reply of 5000 bytes, at most 4096"),
])
def test_bad_reply_ranges_are_outcomes_not_faults(name, outcome, detail):
    policy = started(name)
    for _ in range(2):
        result = policy.call(b"{}", SHOT_NS)
        assert (result.outcome, result.reply) == (outcome, None) and detail in result.detail
    assert policy.fault is None


def test_bad_alloc_skips_the_message():
    policy = load("bad_alloc")
    assert policy.start(b"").outcome == "bad_alloc"  # not a start failure
    refused = policy.call(b"short", SHOT_NS)
    assert refused.outcome == "bad_alloc"
    assert refused.detail == "holdem_alloc(5) returned 0 (refused)"
    past_end = policy.call(b"x" * 100, SHOT_NS)
    assert past_end.outcome == "bad_alloc"
    assert past_end.detail == "holdem_alloc(100) returned 65500, outside memory of 65536 bytes"
    assert policy.fault is None  # holdem_on_message (which traps) was never called


def test_malformed_json_is_returned_as_bytes():
    result = started("bad_json").call(b"{}", SHOT_NS)
    assert (result.outcome, result.reply) == ("ok", b'{"action": "fold"')


def test_nan_is_canonical():
    assert started("nan").call(b"{}", SHOT_NS).reply == struct.pack("<I", 0x7FC0_0000)


# -------------------------------------------------------------------------------- the logs
def test_log_spam_is_capped_per_tournament_and_lines_are_cut():
    policy = started("log_spam", i32s(1, 4096, 10))
    assert policy.logs == [(-1, "bad \ufffd byte")]  # start phase; invalid UTF-8 replaced
    policy.new_tournament()
    result = policy.call(i32s(257, 8192, 5000), DECISION_MAX_NS)
    assert result.outcome == "no_reply"
    kept = policy.logs[1:]
    assert len(kept) == 256 and policy.logs_dropped == 1
    assert all(line == (0, "a" * 1024) for line in kept)
    # Each import call is charged, kept or dropped.
    assert result.used_ns > 257 * HOST_CALL_NS
    policy.new_tournament()
    policy.call(i32s(1, 4096, 3), SHOT_NS)
    assert policy.logs[-1] == (1, "bad")


def test_log_with_a_bad_range_is_dropped():
    policy = started("log_spam", i32s(0, 0, 0))
    for ptr, length in ((-256, 10), (PAGE - 5, 10), (0, -1)):
        assert policy.call(i32s(1, ptr, length), SHOT_NS).outcome == "no_reply"
    assert policy.logs == [] and policy.logs_dropped == 3 and policy.fault is None


def test_host_exceptions_become_traps(monkeypatch):
    policy = started("log_spam", i32s(0, 0, 0))

    def broken(*args):
        raise ZeroDivisionError("host bug")

    monkeypatch.setattr(policy, "_log", broken)
    result = policy.call(i32s(1, 4096, 3), SHOT_NS)
    assert result.outcome == "trap"
    assert result.detail == "host error ZeroDivisionError: host bug"
    other = started("echo")

    def wasmtime_fails(*args):
        raise wasmtime.WasmtimeError("engine says no")

    monkeypatch.setattr(other, "_alloc", wasmtime_fails)
    assert other.call(b"{}", SHOT_NS).detail == "host error WasmtimeError: engine says no"


# -------------------------------------------------------------------------------- the clock
def test_clock_budget_charge_and_refill():
    clock = Clock()
    assert clock.decision_budget() == DECISION_MAX_NS  # min(20 ms + 1,000 ms, 200 ms)
    assert clock.charge(15 * MS) == 0 and clock.bank_ns == BANK_NS  # inside the shot clock
    assert clock.charge(DECISION_MAX_NS) == 180 * MS and clock.bank_ns == 820 * MS
    clock.bank_ns = 50 * MS
    assert clock.decision_budget() == 70 * MS
    assert clock.charge(70 * MS) == 50 * MS and clock.bank_ns == 0
    assert clock.charge(70 * MS) == 0 and clock.bank_ns == 0  # never below zero
    assert clock.decision_budget() == SHOT_NS
    clock.new_tournament()
    assert clock.bank_ns == BANK_NS
    assert Clock.as_message() == {"shot_ns": 20_000_000, "bank_ns": 1_000_000_000,
                                  "decision_max_ns": 200_000_000, "bank_refills": True,
                                  "notify_ns": 5_000_000,
                                  "start_ns": 1_000_000_000}


def test_clock_two_timeouts_in_a_row_make_the_seat_away():
    clock = Clock()
    assert clock.record_decision("timeout", DECISION_MAX_NS) is False
    assert clock.record_decision("no_reply", 0) is False  # a reply breaks the run
    assert clock.record_decision("timeout", DECISION_MAX_NS) is False
    assert clock.record_decision("timeout", DECISION_MAX_NS) is True
    assert clock.bank_ns == BANK_NS - 3 * 180 * MS
    assert clock.decision_budget() == SHOT_NS  # away: the shot clock, no bank
    assert clock.record_decision("timeout", SHOT_NS) is True and clock.bank_ns == 460 * MS
    clock.sit_in()
    assert (clock.away, clock.timeouts_in_a_row) == (False, 0)
    assert clock.record_decision("timeout", 200 * MS) is False
    with pytest.raises(ValueError, match="unknown outcome 'late'"):
        clock.record_decision("late", 0)


# ---------------------------------------------------------------- determinism and the cache
def _script(policy: wasm.WasmPolicy) -> list[tuple]:
    """A fixed sequence of calls; their (outcome, used_ns, reply)."""
    results = [policy.call(struct.pack("<q", spend * MS), DECISION_MAX_NS)
               for spend in (0, 1, 3, 300)]
    return [(r.outcome, r.used_ns, r.reply) for r in results]


def test_same_module_and_messages_give_the_same_fuel(own_cache):
    runs = []
    for _ in range(2):
        policy = load("slow", cache=False)
        policy.start(struct.pack("<q", 2 * MS))
        runs.append(_script(policy))
    assert runs[0] == runs[1]
    assert [r[0] for r in runs[0]] == ["ok", "ok", "ok", "timeout"]
    assert not own_cache.exists()  # cache=False neither reads nor writes


def test_cache_hit_behaves_like_a_fresh_compile(own_cache):
    first = load("slow")
    files = list(own_cache.iterdir())
    assert not first.cache_hit and len(files) == 1
    assert files[0].name.startswith(first.sha256)
    assert f"wasmtime{wasm.wasmtime_version()}" in files[0].name
    second = load("slow")
    assert second.cache_hit
    for policy in (first, second):
        policy.start(struct.pack("<q", 0))
    assert _script(first) == _script(second)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "junk_payload"])
def test_corrupt_cache_entry_is_recompiled_and_rewritten(own_cache, damage):
    load("echo")
    (path,) = own_cache.iterdir()
    good = path.read_bytes()
    header, mid = len(b"HJXCWASM1\n"), len(good) // 2
    bad = {
        "garbage": b"not a cache file",
        "truncated": good[: len(good) // 2],
        "flipped": good[:mid] + bytes([good[mid] ^ 0xFF]) + good[mid + 1:],  # ELF still parses
        # a valid checksum over bytes wasmtime cannot deserialize
        "junk_payload": good[:header] + hashlib.sha256(b"junk").digest() + b"junk",
    }[damage]
    path.write_bytes(bad)
    policy = load("echo")
    assert not policy.cache_hit
    assert path.read_bytes() != bad
    assert load("echo").cache_hit  # the rewritten entry is good
    policy.start(b"")
    assert policy.call(b"same", SHOT_NS).reply == b"same"


def test_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HOLDEMJAX_CACHE", str(blocker))
    assert [load("echo").cache_hit for _ in range(2)] == [False, False]


# ------------------------------------------------------------------------ the zoo as a whole
def test_zoo_readme_lists_every_module():
    listed = {line.split("`")[1] for line in (ZOO / "README.md").read_text().splitlines()
              if line.startswith("- `")}
    assert listed == {p.name for p in ZOO.glob("*.wat")}
    assert len(listed) >= 12


@pytest.mark.parametrize("name", sorted(p.stem for p in ZOO.glob("*.wat")))
def test_every_zoo_module_is_contained(name):
    """Load, start and call each module with assorted messages: every result is an outcome or
    a PolicyLoadError, and a fault is followed only by RuntimeError (the bench)."""
    try:
        policy = load(name)
        policy.start(b"p")
    except PolicyLoadError as err:
        assert err.stage in wasm.STAGES
        return
    for message in (b"", b"p", b"r", b"s", i32s(3, 4096, 5), i32s(2000, 1), b"z" * 5000):
        if policy.fault:
            with pytest.raises(RuntimeError):
                policy.call(message, SHOT_NS)
            continue
        result = policy.call(message, SHOT_NS)
        assert result.outcome in OUTCOMES and 0 <= result.used_ns <= SHOT_NS
        assert (result.reply is not None) == (result.outcome == "ok")


def test_fast_call_path_matches_the_public_api(monkeypatch):
    """The host calls holdem_alloc/holdem_on_message through a direct FFI path; the public
    ``Func.__call__`` must give the same outcomes, fuel and replies on the same script."""

    def run() -> list[tuple]:
        slow = started("slow", struct.pack("<q", 0))
        forever, trap = started("forever", b"p"), started("trap_nth")
        out = _script(slow)
        for policy, message in ((forever, b"s"), (forever, b"p"), (trap, b""), (trap, b"")):
            r = policy.call(message, SHOT_NS)
            out.append((r.outcome, r.used_ns, r.reply, r.detail))
        return out

    fast = run()
    monkeypatch.setattr(wasm_module, "_wffi", None)  # the fast path lives there
    assert run() == fast
    assert [row[0] for row in fast[-4:]] == ["timeout", "ok", "no_reply", "trap"]


def test_guest_memory_fast_path_reads_and_writes_what_the_public_api_does():
    """The host's data-pointer access (wasm_module.GuestMemory) and wasmtime-py's Memory API see
    the same bytes, also after the memory grows (its data may move)."""
    from holdemjax.series.wasm_module import GuestMemory, engine, new_store

    store = new_store()
    module = wasmtime.Module(engine(), wasmtime.wat2wasm('(module (memory (export "m") 1 4))'))
    memory = wasmtime.Instance(store, module, []).exports(store)["m"]
    fast, public = GuestMemory(store, memory), GuestMemory(store, memory)
    public._fast = False
    assert fast._fast, "this wasmtime-py has the internals the fast path uses"
    fast.write(100, b"hello")
    assert public.read(100, 5) == b"hello" == bytes(memory.read(store, 100, 105))
    public.write(65_530, b"abcdef")
    assert fast.read(65_530, 6) == b"abcdef"
    assert fast.size() == public.size() == 65_536
    memory.grow(store, 2)
    fast.write(150_000, b"xyz")
    assert fast.size() == public.size() == 3 * 65_536
    assert public.read(150_000, 3) == b"xyz" and fast.read(100, 5) == b"hello"
    assert fast.read(0, 0) == public.read(0, 0) == b""
