"""The wasmtime host for one policy: load, check, start, call on a fuel budget (PROTOCOL §1-§4).

A policy is a core wasm module run by wasmtime with fuel on: one fuel unit is one virtual
nanosecond, so every budget below is a fuel amount and a series replays exactly on any machine
with the same wasmtime version (a machine-time guard fault, ``wall_clock``, excepted: PROTOCOL
§3). Nothing a policy does may crash or hang the host: every trap, every Python exception raised
while it runs, every bad pointer maps to one `CallResult` outcome.

    policy = load_policy("bot.wasm")          # compile (cached), check imports/exports, instantiate
    policy.start(start_message_bytes)         # _initialize, ABI check, holdem_start, the message
    result = policy.call(act_bytes, clock.decision_budget())
    clock.record_decision(result.outcome, result.used_ns)

Not thread-safe: one policy is driven by one thread.
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import os
import pathlib
import weakref

import wasmtime

# The numbers of PROTOCOL.md live in holdemjax.series.protocol (no wasmtime there); re-exported.
from holdemjax.series.guard import TICKER, MachineGuard
from holdemjax.series.meter import MeterError
from holdemjax.series.protocol import (
    ABI_VERSION,
    AWAY_NS,
    BANK_NS,
    DECISION_MAX_NS,
    FAULTS,
    HOST_CALL_NS,
    LOG_LINE_BYTES,
    LOG_LINES_PER_TOURNAMENT,
    MAX_MODULE_BYTES,
    MEMORY,
    MEMORY_LIMIT_BYTES,
    MS,
    NOTIFY_NS,
    OUTCOMES,
    REPLY_MAX_BYTES,
    SHOT_NS,
    START_NS,
    STORE_MEMORY_BYTES,
    TRAP,
    WALL_CLOCK,
    Clock,
    SeriesVoid,
)
from holdemjax.series.wasm_module import (
    OPTIONAL,
    STAGES,
    GuestMemory,
    PolicyLoadError,
    cache_path,
    check_exports,
    check_imports,
    close_engine,
    compile_metered,
    engine,
    fast_call,
    new_store,
    protocol_linker,
    read_cache,
    read_module,
    start_detail,
    too_big,
    trap_handlers_first,
    trap_text,
    wasmtime_message,
    wasmtime_version,
    write_cache,
)
from holdemjax.validate import require_int

__all__ = [
    "ABI_VERSION", "SHOT_NS", "BANK_NS", "DECISION_MAX_NS", "NOTIFY_NS", "START_NS", "AWAY_NS",
    "HOST_CALL_NS", "MEMORY_LIMIT_BYTES", "STORE_MEMORY_BYTES", "REPLY_MAX_BYTES",
    "LOG_LINE_BYTES", "LOG_LINES_PER_TOURNAMENT", "MAX_MODULE_BYTES", "OUTCOMES", "STAGES",
    "CallResult", "Clock", "PolicyLoadError", "SeriesVoid", "WasmPolicy", "load_policy",
    "engine", "trap_handlers_first", "wasmtime_version",
]


_TABLE_ELEMENTS = 100_000  # per table (8 bytes each); LLVM output needs one small table
_TABLES = 4

_MASK32 = 0xFFFF_FFFF
_MASK64 = 0xFFFF_FFFF_FFFF_FFFF

_LIVE: weakref.WeakSet = weakref.WeakSet()  # policies not yet closed


@dataclasses.dataclass(frozen=True)
class CallResult:
    """What one message did. ``outcome`` is one of `OUTCOMES`; ``reply`` is set only for "ok";
    ``used_ns`` is the exact fuel consumed (== the budget on "timeout"); ``detail`` explains a
    non-"ok" outcome (the trap code name, the bad range, ...)."""

    outcome: str
    reply: bytes | None
    used_ns: int
    detail: str = ""


@atexit.register
def _release_at_exit() -> None:
    """Free the stores and the engine while ctypes still works: wasmtime-py's own ``__del__``
    during interpreter teardown prints "Exception ignored" errors otherwise."""
    for policy in list(_LIVE):
        policy.close()
    TICKER.stop()
    close_engine()


# ------------------------------------------------------------------------------- the policy
def load_policy(source: str | os.PathLike | bytes, *, name: str | None = None,
                cache: bool = True) -> WasmPolicy:
    """Compile (or fetch from the cache), check and instantiate one policy; see `WasmPolicy`.

    ``source`` is a path to a ``.wasm`` file or the module's bytes; ``name`` (default: the file's
    name, or ``sha256:<12 hex>``) is used in every message. The compiled module is cached in
    ``wasm`` of holdemjax's cache folder (`cache_files.cache_root`), keyed by the wasmtime
    version, the engine settings and the SHA-256 of the bytes; ``cache=False`` neither reads nor
    writes it. Raises `PolicyLoadError` (stage "compile" or "instantiate").
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        wasm = bytes(source)
        sha256 = hashlib.sha256(wasm).hexdigest()
        name = name or f"sha256:{sha256[:12]}"
    else:
        path = pathlib.Path(source)
        name = name or path.name
        wasm, why = read_module(path)
        if wasm is None:
            raise PolicyLoadError(name, "compile", why)
        sha256 = hashlib.sha256(wasm).hexdigest()
    if len(wasm) > MAX_MODULE_BYTES:
        raise PolicyLoadError(name, "compile", too_big(len(wasm)))
    # wasmtime-py would parse anything without the header as WAT text: refuse it here.
    if wasm[:4] != b"\0asm":
        raise PolicyLoadError(name, "compile", "is not a WebAssembly binary (no \\0asm header)")
    module = read_cache(cache_path(sha256)) if cache else None
    cache_hit = module is not None
    if module is None:
        try:
            module = compile_metered(wasm)
        except wasmtime.WasmtimeError as exc:
            raise PolicyLoadError(name, "compile", wasmtime_message(exc)) from None
        except MeterError as exc:
            raise PolicyLoadError(name, "compile", str(exc)) from None
        if cache:
            write_cache(cache_path(sha256), module)
    why = check_imports(module) or check_exports(module)
    if why:
        raise PolicyLoadError(name, "instantiate", why)
    policy = WasmPolicy(module, name=name, sha256=sha256, cache_hit=cache_hit)
    if not isinstance(source, (bytes, bytearray, memoryview)):
        policy.path = os.fspath(source)  # as given: replays find the file again by it
    return policy


class WasmPolicy:
    """One instantiated policy for a whole series; made by `load_policy`.

    Attributes: ``name``, ``sha256`` (of the module bytes), ``cache_hit`` (compiled module came
    from the cache), ``fault`` (None, or a cause of `FAULTS` after such an outcome; the runner
    benches it), ``logs`` (``(tournament, text)`` pairs from ``holdem.log``; the runner may drain
    it), ``logs_dropped`` (lines over the per-tournament cap or with a bad range).
    Usable as a context manager; `close` frees the store.
    """

    def __init__(self, module: wasmtime.Module, *, name: str, sha256: str, cache_hit: bool):
        self.name, self.sha256, self.cache_hit = name, sha256, cache_hit
        self.path: str | None = None  # the file it was loaded from (None for bytes)
        self.fault: str | None = None
        self.logs: list[tuple[int, str]] = []
        self.logs_dropped = 0
        self._tournament = -1  # the start phase; new_tournament() makes it 0, 1, ...
        self._lines = 0
        self._started = False
        self._stack_pointer = None  # (Global, value saved after start)
        store = self._store = new_store()
        guard = self._guard = MachineGuard(store)  # PROTOCOL §3's machine-time guard
        _LIVE.add(self)
        store.set_limits(memory_size=STORE_MEMORY_BYTES, table_elements=_TABLE_ELEMENTS,
                         instances=1, tables=_TABLES, memories=1)
        # The imports hold the policy weakly, so a dropped policy frees its store.
        me = weakref.ref(self)

        def log(caller, ptr, length):
            policy = me()
            if policy is not None:
                policy._log(caller, ptr, length)

        def time_left_ns(caller):
            policy = me()
            return 0 if policy is None else policy._time_left(caller)

        linker = protocol_linker(log, time_left_ns)
        # A (start) section runs inside instantiate: it is charged to the start budget.
        store.set_fuel(START_NS)
        guard.arm(START_NS)
        try:
            instance = linker.instantiate(store, module)
        except Exception as exc:  # a trap, the guard's stop, wasmtime errors, a limit refused
            self.fault = "start"
            outcome, detail = self._stop_of(exc, START_NS)
            if outcome == TRAP and not isinstance(exc, wasmtime.Trap):  # the host stays up
                raise PolicyLoadError(name, "instantiate", wasmtime_message(exc)) from None
            why = ("took too long in machine time" if outcome == WALL_CLOCK
                   else f"trapped ({detail})")
            raise PolicyLoadError(name, "start", f"{why} while instantiating") from None
        finally:
            guard.disarm()
        exports = instance.exports(store)
        self._memory = GuestMemory(store, exports["memory"])
        self._alloc = fast_call(store, exports["holdem_alloc"], ("i32",), "i32")
        self._on_message = fast_call(store, exports["holdem_on_message"], ("i32", "i32"), "i64")
        self._abi_version = exports["holdem_abi_version"]
        self._hooks = {n: exports[n] for n in OPTIONAL if exports.get(n) is not None}
        sp = exports.get("__stack_pointer")
        if isinstance(sp, wasmtime.Global):
            ty = sp.type(store)
            if ty.mutable and str(ty.content) == "i32":
                self._stack_pointer = (sp, None)

    # ------------------------------------------------------------------------ public
    def start(self, message: bytes) -> CallResult:
        """Run ``_initialize``, check ``holdem_abi_version() == 1``, run ``holdem_start``, deliver
        the start message, all on one `START_NS` budget (with the instantiation's share).

        Returns the message's `CallResult` with ``used_ns`` = all start fuel. Raises
        `PolicyLoadError` (stage "start" on a trap, running out of the budget or memory above
        64 MiB; "instantiate" for a wrong ABI version).
        """
        if self._started or self.fault:
            state = f"faulted ({self.fault})" if self.fault else "already started"
            raise RuntimeError(f"policy {self.name} is {state}; start() runs once, first")
        self._started = True
        store = self._store
        try:
            if "_initialize" in self._hooks:
                self._start_step("_initialize", lambda: self._hooks["_initialize"](store))
            # Checked before holdem_start: a module speaking another protocol runs no more code.
            version = self._start_step("holdem_abi_version", lambda: self._abi_version(store))
            if version != ABI_VERSION:
                raise PolicyLoadError(self.name, "instantiate", f"holdem_abi_version() returned "
                                      f"{version}, this host speaks {ABI_VERSION}")
            if "holdem_start" in self._hooks:
                self._start_step("holdem_start", lambda: self._hooks["holdem_start"](store))
            result = self._deliver(bytes(message), store.get_fuel())
        except PolicyLoadError:
            self.fault = "start"
            raise
        if result.outcome in ("timeout", *FAULTS):
            self.fault = "start"
            why = {"timeout": f"ran out of its {START_NS // MS:,} ms start budget",
                   TRAP: "trapped", MEMORY: "went over the memory limit",
                   WALL_CLOCK: "took too long in machine time"}[result.outcome]
            detail = start_detail(result, self.logs)
            raise PolicyLoadError(self.name, "start", f"{why} on the start message{detail}")
        if self._stack_pointer:
            sp = self._stack_pointer[0]
            self._stack_pointer = (sp, sp.value(store))
        return dataclasses.replace(result, used_ns=START_NS - store.get_fuel())

    def call(self, message: bytes, budget_ns: int, *,
             guard_trip_ns: int | None = None) -> CallResult:
        """Deliver one message on a budget of ``budget_ns`` fuel (PROTOCOL §2) and return what
        happened; never raises for anything the policy does. Raises RuntimeError when called
        before `start` or after a fault (a host bug: a faulted policy is benched), `SeriesVoid`
        when an interruption that its guard did not ask for stopped it. ``guard_trip_ns``
        replays a guard trip of a replay (PROTOCOL §3): the call runs on that much fuel (what
        the tripped call had used) and ends as a ``wall_clock`` fault."""
        if not self._started or self.fault:
            state = f"faulted ({self.fault})" if self.fault else "not started"
            raise RuntimeError(f"policy {self.name} is {state}; a faulted policy is benched "
                               "and must not be called again")
        budget_ns = require_int("budget_ns", budget_ns, 0, 2**63 - 1, what="a non-negative int")
        if guard_trip_ns is not None:
            guard_trip_ns = require_int("guard_trip_ns", guard_trip_ns, 0, budget_ns,
                                        what="fuel within the budget")
        return self._deliver(bytes(message), budget_ns, guard_trip_ns)

    def new_tournament(self, index: int | None = None) -> None:
        """Start the log budget of tournament ``index`` (default: the next one; the start phase
        is tournament -1, so the first call gives 0)."""
        self._tournament = self._tournament + 1 if index is None else int(index)
        self._lines = 0

    @property
    def machine_s(self) -> float:
        """CPU seconds its calls used so far (the machine-time guard's account)."""
        return self._guard.used_s

    @property
    def memory_bytes(self) -> int:
        """Current size of the policy's linear memory (0 once benched: the store is freed)."""
        return 0 if self._store is None else self._memory.size()

    @property
    def stack_pointer(self) -> int | None:
        """Current ``__stack_pointer`` value (None when not exported as a mutable i32)."""
        return self._stack_pointer[0].value(self._store) if self._stack_pointer else None

    def close(self) -> None:
        """Free the store (memory, instance); the policy cannot be called afterwards."""
        self.fault = self.fault or "closed"
        self._free()

    def __enter__(self) -> WasmPolicy:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------------ internals
    def _start_step(self, step: str, run):
        """Run one start step; a trap or running out of the start budget fails the load."""
        self._guard.arm(self._store.get_fuel())
        try:
            value = run()
        except Exception as exc:  # a trap, the guard's stop, a host error: the host stays up
            outcome, detail = self._stop_of(exc, START_NS)
            why = {WALL_CLOCK: "took too long in machine time (the machine-time guard)",
                   "timeout": f"ran out of its {START_NS // MS:,} ms start budget"}
            why = why.get(outcome, f"trapped ({detail})")
            raise PolicyLoadError(self.name, "start", f"{why} in {step}") from None
        finally:
            self._guard.disarm()
        size = self._memory.size()
        if size > MEMORY_LIMIT_BYTES:
            raise PolicyLoadError(self.name, "start", f"memory at {size} bytes after {step}, "
                                  f"above the {MEMORY_LIMIT_BYTES}-byte (64 MiB) limit")
        return value

    def _stop_of(self, exc: Exception, fuel: int) -> tuple[str, str]:
        """(outcome, detail) of a call on ``fuel`` that raised ``exc``: stopped by its own guard,
        out of fuel, a trap, or a host error (which stops this policy only, as a trap)."""
        if self._guard.stopped(exc, self.name):  # (raises SeriesVoid: nobody's interruption)
            return WALL_CLOCK, "stopped inside the call by the machine-time guard"
        if not isinstance(exc, wasmtime.Trap):
            return TRAP, f"host error {type(exc).__name__}: {exc}"
        if exc.trap_code == wasmtime.TrapCode.OUT_OF_FUEL:
            return "timeout", f"used its whole budget of {fuel} ns"
        return TRAP, trap_text(exc)

    def _deliver(self, message: bytes, budget: int, trip_ns: int | None = None) -> CallResult:
        store = self._store
        if len(message) > 2**31 - 1:
            raise ValueError(f"message of {len(message)} bytes does not fit an i32 length")
        fuel = budget if trip_ns is None else trip_ns
        store.set_fuel(fuel)
        self._guard.arm(budget)
        trapped = None
        try:
            outcome, reply, detail = self._exchange(store, message)
        except Exception as exc:  # a trap, the guard's stop, a wasmtime error, a host bug
            reply = None
            outcome, detail = self._stop_of(exc, fuel)
            trapped = detail if outcome == TRAP else None
        finally:
            self._guard.disarm()
        used = fuel - store.get_fuel()
        over = self._guard.settle(used)
        if trip_ns is not None:
            over = "the machine-time guard's trip recorded in the replay"
        size = self._memory.size()
        if size > MEMORY_LIMIT_BYTES:
            outcome, reply = MEMORY, None
            detail = (f"memory at {size} bytes, above the {MEMORY_LIMIT_BYTES}-byte (64 MiB) limit"
                      + (f", at trap {trapped}" if trapped else ""))
        elif over and outcome not in FAULTS:
            outcome, reply, detail = WALL_CLOCK, None, over
        if outcome == "timeout" and self._stack_pointer and self._stack_pointer[1] is not None:
            sp, saved = self._stack_pointer
            sp.set_value(store, saved)  # the aborted frames' shadow stack is gone, not leaked
        if outcome in FAULTS and self._started:
            self.fault = outcome
            self._free()  # benched for good: its memory goes back at once
        return CallResult(outcome, reply, used, detail)

    def _free(self) -> None:
        """Free the store of a benched policy (memory, instance); ``fault`` stays."""
        if self._store is not None:
            self._guard.release()
            self._store.close()
        self._store = self._memory = self._alloc = self._on_message = None
        self._stack_pointer = None

    def _exchange(self, store, message: bytes) -> tuple[str, bytes | None, str]:
        """alloc, write, on_message, read (PROTOCOL §2). Traps propagate to `_deliver`."""
        n = len(message)
        ptr = self._guard.guest(self._alloc, n) & _MASK32
        size = self._memory.size()
        if ptr == 0 or ptr + n > size:
            where = "0 (refused)" if ptr == 0 else f"{ptr}, outside memory of {size} bytes"
            return "bad_alloc", None, f"holdem_alloc({n}) returned {where}"
        self._memory.write(ptr, message)  # (nothing for an empty message)
        r = self._guard.guest(self._on_message, ptr, n) & _MASK64
        if r == 0:
            return "no_reply", None, ""
        reply_ptr, reply_len = r >> 32, r & _MASK32
        if reply_len > REPLY_MAX_BYTES:
            return "reply_too_long", None, f"reply of {reply_len} bytes, at most {REPLY_MAX_BYTES}"
        size = self._memory.size()
        if reply_ptr + reply_len > size:
            return ("bad_pointer", None, f"reply [{reply_ptr}, {reply_ptr + reply_len}) is "
                    f"outside memory of {size} bytes")
        return "ok", self._memory.read(reply_ptr, reply_len), ""

    def _charge_host_call(self, caller) -> int:
        """Take `HOST_CALL_NS` fuel for an import call; return the fuel left."""
        self._guard.import_call()
        left = max(0, wasmtime.Store.get_fuel(caller) - HOST_CALL_NS)
        wasmtime.Store.set_fuel(caller, left)  # at 0 the guest's next instruction runs out
        return left

    def _time_left(self, caller) -> int:
        """holdem.time_left_ns: fuel left in this call, after this call's own charge."""
        return self._charge_host_call(caller)

    def _log(self, caller, ptr: int, length: int) -> None:
        """holdem.log: keep one line (cut at 1,024 bytes, 256 per tournament); drop a bad range."""
        self._charge_host_call(caller)
        memory = caller.get("memory")
        ptr, length = ptr & _MASK32, length & _MASK32
        if (self._lines >= LOG_LINES_PER_TOURNAMENT or not isinstance(memory, wasmtime.Memory)
                or ptr + length > memory.data_len(caller)):
            self.logs_dropped += 1
            return
        data = memory.read(caller, ptr, ptr + min(length, LOG_LINE_BYTES))
        self.logs.append((self._tournament, bytes(data).decode("utf-8", "replace")))
        self._lines += 1
