"""The wasmtime side of the series host (private to `holdemjax.series.wasm`, which loads and
calls policies): the one deterministic engine, the cache of compiled modules, the checks of a
module's imports and exports, and the fast call path. The machine-time guard that judges each
call is `holdemjax.series.guard`.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib.metadata
import os
import pathlib
import re
import signal
import threading

import wasmtime

from holdemjax.series import cache_files
from holdemjax.series.guard import FAR_DEADLINE
from holdemjax.series.meter import METER_VERSION, MeterError, meter
from holdemjax.series.protocol import (
    MAX_MODULE_BYTES,
    MEMORY_LIMIT_BYTES,
    START_LOG_CHARS,
)

try:  # the fast call path below uses wasmtime-py internals; without them, the public API
    from wasmtime import _ffi as _wffi
    from wasmtime._func import enter_wasm as _enter_wasm
except ImportError:  # pragma: no cover - another wasmtime-py layout
    _wffi = _enter_wasm = None

MAX_WASM_STACK = 512 * 1024  # wasmtime's default, pinned: it decides where STACK_OVERFLOW hits
CACHE_MAGIC = b"HJXCWASM1\n"  # cache file = magic + sha256(payload) + payload


# ------------------------------------------------------------------------------- the engine
# Proposals off beyond the protocol's set. reference-types and multi-value stay on: LLVM (zig cc,
# clang, rustc) emits them by default, and wasmtime aborts the process on some combinations
# without reference types. Nothing left on is nondeterministic.
FEATURES_OFF = ("wasm_threads", "shared_memory", "wasm_simd", "wasm_relaxed_simd",
                 "wasm_memory64", "wasm_multi_memory", "wasm_custom_page_sizes", "wasm_gc",
                 "wasm_function_references", "wasm_exceptions", "wasm_stack_switching",
                 "wasm_tail_call", "wasm_wide_arithmetic", "wasm_component_model")


def config_settings() -> dict:
    # epoch_interruption: the ticks of the machine-time guard (epoch checks cost no fuel)
    settings = {"consume_fuel": True, "cranelift_nan_canonicalization": True,
                "max_wasm_stack": MAX_WASM_STACK, "epoch_interruption": True}
    settings.update({name: False for name in FEATURES_OFF if hasattr(wasmtime.Config, name)})
    return settings


_ENGINE: list = []  # the one engine, made at first use
_ENGINE_LOCK = threading.Lock()  # (threads loading their first policies at once share it)


def engine() -> wasmtime.Engine:
    """The process's one deterministic engine (fuel on, NaNs canonical, no threads/SIMD)."""
    if not _ENGINE:
        with _ENGINE_LOCK:
            if not _ENGINE:
                config = wasmtime.Config()
                for name, value in config_settings().items():
                    setattr(config, name, value)
                _ENGINE.append(wasmtime.Engine(config))
                if not _TRAP_HANDLERS:  # (a later engine installs nothing: keep the first's)
                    _TRAP_HANDLERS.extend(_handlers() or ())
    return _ENGINE[0]


# wasmtime turns a guest's fault (unreachable, an access out of bounds, a division by zero, a
# stack overflow) into a `wasmtime.Trap` through the signal handlers the process's first engine
# installs; a signal that is not the guest's they pass on to the handler that was there before.
# A library that later puts its own handler in front of them and re-raises the signal from it
# turns every later trap into the death of the process (the re-raised signal no longer comes
# from the guest's code, so wasmtime passes it on): `ray.init` does (absl's failure signal
# handler of a Ray driver; seen in CI: a test worker that had run the Ray league died at its next
# trap test), and so does `faulthandler.enable()`. `trap_handlers_first` puts wasmtime's back.
_TRAP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGSEGV", "SIGILL", "SIGFPE", "SIGBUS")
                      if hasattr(signal, name))
_SIGACTION_BYTES = 512  # more than any libc's struct sigaction (152 bytes on glibc x86-64)
_TRAP_HANDLERS: list = []  # the handlers right after the process's first engine (wasmtime's)


@functools.cache
def _sigaction():
    try:
        return ctypes.CDLL(None, use_errno=True).sigaction
    except (AttributeError, OSError, TypeError):  # pragma: no cover - no POSIX signals here
        return None


def _handlers() -> list | None:
    sigaction = _sigaction()
    if sigaction is None:  # pragma: no cover
        return None
    found = []
    for number in _TRAP_SIGNALS:
        action = ctypes.create_string_buffer(_SIGACTION_BYTES)
        if sigaction(number, None, action) != 0:  # pragma: no cover
            return None
        found.append(action)
    return found


def _handler(action) -> int | None:  # the handler's address (the struct's first field)
    return ctypes.c_void_p.from_buffer(action).value


def trap_handlers_first() -> bool:
    """Put wasmtime's trap handlers back where another library replaced them since the first
    engine (that library's handler then no longer sees this process's faults); True if one
    had been replaced. Cheap: every new store calls it, and whatever starts Ray."""
    engine()
    now = _handlers()
    if not _TRAP_HANDLERS or now is None:  # pragma: no cover - no POSIX signals here
        return False
    moved = False
    for number, kept, current in zip(_TRAP_SIGNALS, _TRAP_HANDLERS, now):
        if _handler(kept) != _handler(current):
            _sigaction()(number, kept, None)
            moved = True
    return moved


def close_engine() -> None:
    """Free the engine (at exit, after every store); a later `engine()` makes a new one."""
    with _ENGINE_LOCK:
        if _ENGINE:
            _ENGINE.pop().close()


class GuestMemory:
    """A policy's exported memory, read and written through its data pointer (one FFI call and
    one memmove per access: wasmtime-py's ``Memory.write``/``read`` build ctypes array types on
    every call; docs/series.md, Speed). The caller checks the bounds (`size`). Falls back to
    the public API if the internals of this wasmtime-py version differ."""

    def __init__(self, store: wasmtime.Store, memory: wasmtime.Memory):
        self._store, self._memory = store, memory
        self._fast = _wffi is not None and hasattr(memory, "_memory")
        if self._fast:
            self._ref = ctypes.byref(memory._memory)

    def size(self) -> int:
        if self._fast:
            return _wffi.wasmtime_memory_data_size(self._store._context(), self._ref)
        return self._memory.data_len(self._store)

    def _base(self) -> int:
        return ctypes.addressof(_wffi.wasmtime_memory_data(self._store._context(),
                                                           self._ref).contents)

    def write(self, ptr: int, data: bytes) -> None:
        if not data:
            return
        if self._fast:
            ctypes.memmove(self._base() + ptr, data, len(data))
        else:
            self._memory.write(self._store, data, ptr)

    def read(self, ptr: int, n: int) -> bytes:
        if n <= 0:
            return b""
        if self._fast:
            return ctypes.string_at(self._base() + ptr, n)
        return bytes(self._memory.read(self._store, ptr, ptr + n))


def new_store() -> wasmtime.Store:
    """A store of the one engine (epoch interruption on: its `guard.MachineGuard` arms it
    before a call; until then its deadline is far away)."""
    trap_handlers_first()
    store = wasmtime.Store(engine())
    store.set_epoch_deadline(FAR_DEADLINE)
    return store


def fast_call(store: wasmtime.Store, func: wasmtime.Func, params: tuple[str, ...],
               result: str):
    """A caller of ``func`` (i32/i64 params, one i32/i64 result) with the same FFI call and trap
    handling as ``Func.__call__`` but without its per-call type introspection and value boxing,
    which were 3/4 of a decision's host time. Falls back to the public call if the internals
    of this wasmtime-py version differ."""
    if _wffi is None or _enter_wasm is None or not hasattr(func, "_func"):
        return lambda *values: func(store, *values)
    kind = {"i32": _wffi.WASMTIME_I32.value, "i64": _wffi.WASMTIME_I64.value}
    args = (_wffi.wasmtime_val_t * max(1, len(params)))()
    for slot, ty in zip(args, params):
        slot.kind = kind[ty]
    out = (_wffi.wasmtime_val_t * 1)()
    ref, n, call = ctypes.byref(func._func), len(params), _wffi.wasmtime_func_call

    def fast(*values: int) -> int:
        for slot, ty, value in zip(args, params, values):
            setattr(slot.of, ty, value)  # ctypes wraps to the signed width, as wasm does
        with _enter_wasm(store) as trap:  # raises the Trap, or a host import's exception
            error = call(store._context(), ref, args, n, out, 1, trap)
            if error:
                raise wasmtime.WasmtimeError._from_ptr(error)
        return getattr(out[0].of, result)

    return fast


def compile_metered(wasm: bytes) -> wasmtime.Module:
    """Compile the module as `meter` rewrites it (PROTOCOL §3: runtime calls charged more).
    Where it cannot be metered or the metered module does not compile, raises wasmtime's error
    about the module as given; a module that compiles as given but cannot be metered raises
    `MeterError` (nothing runs unmetered)."""
    try:
        metered, _ = meter(wasm)
    except MeterError as exc:
        metered, why = None, str(exc)
    if metered is not None:
        try:
            return wasmtime.Module(engine(), metered)
        except wasmtime.WasmtimeError:
            why = "the metered module does not compile"
    wasmtime.Module(engine(), wasm)  # raises compile's own message (validate words it apart)
    raise MeterError(f"valid, but the host cannot charge its runtime calls (PROTOCOL §3): {why}")


@functools.cache
def wasmtime_version() -> str:
    """The installed wasmtime-py version: it fixes the fuel accounting (record it in results)."""
    return importlib.metadata.version("wasmtime")


def cache_path(sha256: str) -> pathlib.Path:
    """Where the compiled module of the wasm file with digest ``sha256`` is cached: ``wasm`` in
    holdemjax's cache folder (`cache_files.cache_root`), named by the digest, the wasmtime
    version and the engine's settings (a change of either misses the cache)."""
    settings = ",".join(f"{k}={v}" for k, v in sorted(config_settings().items()))
    settings += f",meter={METER_VERSION}"  # the rewriting of holdemjax.series.meter
    tag = hashlib.sha256(settings.encode()).hexdigest()[:12]
    return cache_files.cache_root() / "wasm" / f"{sha256}-wasmtime{wasmtime_version()}-{tag}.cwasm"


def read_cache(path: pathlib.Path) -> wasmtime.Module | None:
    """The cached module, or None when missing, unreadable, corrupt or from another engine."""
    payload = cache_files.read(path, CACHE_MAGIC)  # wasmtime trusts what it deserializes
    if payload is None:
        return None
    try:
        return wasmtime.Module.deserialize(engine(), payload)
    except wasmtime.WasmtimeError:
        return None


def write_cache(path: pathlib.Path, module: wasmtime.Module) -> None:
    """Cache a compiled module (`cache_files.write`: atomic; skipped when it cannot be)."""
    try:
        payload = bytes(module.serialize())
    except wasmtime.WasmtimeError:
        return
    cache_files.write(path, CACHE_MAGIC, payload)


def wasmtime_message(exc: Exception) -> str:
    """wasmtime's multi-line error ("x\\n\\nCaused by:\\n    y") as one line "x: y"."""
    lines = [re.sub(r"^\d+: ", "", line.strip()) for line in str(exc).splitlines()]
    return ": ".join(line for line in lines if line and line != "Caused by:")


STAGES = ("compile", "instantiate", "start")


class PolicyLoadError(Exception):
    """A policy failed to ``compile``, ``instantiate`` or ``start``: the series fails (exit 2).

    ``str(error)`` is meant for the bot's author: ``policy bot.wasm: imports
    wasi_snapshot_preview1.fd_write, only holdem.log and holdem.time_left_ns are granted``.
    """

    def __init__(self, policy: str, stage: str, cause: str):
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, got {stage!r}")
        super().__init__(f"policy {policy}: {cause}")
        self.policy, self.stage, self.cause = policy, stage, cause


# ------------------------------------------------------------------------- the module checks
def _sig(ty: wasmtime.FuncType) -> str:
    return f"({', '.join(map(str, ty.params))}) -> ({', '.join(map(str, ty.results))})"


def _kind(ty) -> str:
    return {wasmtime.FuncType: "a function", wasmtime.MemoryType: "a memory",
            wasmtime.GlobalType: "a global", wasmtime.TableType: "a table"}.get(type(ty), "other")


GRANTED = {("holdem", "log"): "(i32, i32) -> ()", ("holdem", "time_left_ns"): "() -> (i64)"}
REQUIRED = {"holdem_abi_version": "() -> (i32)", "holdem_alloc": "(i32) -> (i32)",
             "holdem_on_message": "(i32, i32) -> (i64)"}
OPTIONAL = {"_initialize": "() -> ()", "holdem_start": "() -> ()"}


def protocol_linker(log, time_left_ns) -> wasmtime.Linker:
    """A linker of the one engine that grants the protocol's imports (`GRANTED`) and nothing
    else: ``holdem.log`` calls ``log(caller, ptr, length)``, ``holdem.time_left_ns`` calls
    ``time_left_ns(caller)``."""
    linker = wasmtime.Linker(engine())
    i32, i64 = wasmtime.ValType.i32(), wasmtime.ValType.i64()
    linker.define_func("holdem", "log", wasmtime.FuncType([i32, i32], []), log,
                       access_caller=True)
    linker.define_func("holdem", "time_left_ns", wasmtime.FuncType([], [i64]), time_left_ns,
                       access_caller=True)
    return linker


def check_imports(module: wasmtime.Module) -> str | None:
    """Why the imports are refused, or None."""
    refused = []
    for imp in module.imports:
        want = GRANTED.get((imp.module, imp.name))
        if want is None:
            refused.append(f"{imp.module}.{imp.name}")
        elif not isinstance(imp.type, wasmtime.FuncType) or _sig(imp.type) != want:
            got = _sig(imp.type) if isinstance(imp.type, wasmtime.FuncType) else _kind(imp.type)
            return f"imports {imp.module}.{imp.name} as {got}, expected {want}"
    if refused:
        more = f" and {len(refused) - 4} more" if len(refused) > 4 else ""
        shown = ", ".join(refused[:4]) + more
        return f"imports {shown}, only holdem.log and holdem.time_left_ns are granted"
    return None


def check_exports(module: wasmtime.Module) -> str | None:
    """Why the exports are refused, or None (memory, the three functions, the optional two)."""
    exports = {e.name: e.type for e in module.exports}
    memory = exports.get("memory")
    if not isinstance(memory, wasmtime.MemoryType):
        return ("does not export its memory as \"memory\"" if memory is None
                else f"exports \"memory\" as {_kind(memory)}, expected a memory")
    initial = memory.limits.min * 65_536
    if initial > MEMORY_LIMIT_BYTES:
        return (f"memory starts at {memory.limits.min} pages ({initial} bytes), above the "
                f"{MEMORY_LIMIT_BYTES}-byte (64 MiB) limit")
    for name, want in {**REQUIRED, **OPTIONAL}.items():
        ty = exports.get(name)
        if ty is None:
            if name in REQUIRED:
                return f"does not export {name} {want}"
        elif not isinstance(ty, wasmtime.FuncType) or _sig(ty) != want:
            got = _sig(ty) if isinstance(ty, wasmtime.FuncType) else _kind(ty)
            return f"exports {name} as {got}, expected {want}"
    return None


def too_big(size: int) -> str:
    return f"is {size} bytes, above the {MAX_MODULE_BYTES}-byte limit for a module"


def read_module(path: pathlib.Path) -> tuple[bytes | None, str]:
    """(the file's bytes, "") or (None, why not): the size is checked first, so a huge file is
    refused without being read."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_MODULE_BYTES:
                return None, too_big(size)
            return f.read(MAX_MODULE_BYTES + 1), ""  # at most one byte more, if it grew
    except OSError as exc:
        return None, f"cannot be read ({exc})"


def trap_text(trap: wasmtime.Trap) -> str:
    """The trap code's name (UNREACHABLE, STACK_OVERFLOW, ...) or wasmtime's first line."""
    code = trap.trap_code
    return code.name if code is not None else (trap.message.splitlines() or ["trap"])[0]


def start_detail(result, logs) -> str:
    """What a failure on the start message adds to its cause: `` (DETAIL)`` of the outcome (not
    for a timeout), then ``; it logged 'TEXT'``: the last line the policy logged (``holdem.log``)
    in its start phase, control characters removed, cut at `START_LOG_CHARS` (PROTOCOL §4: how a
    policy says why it refuses a series)."""
    detail = "" if result.outcome == "timeout" else f" ({result.detail})"
    lines = [text for tournament, text in logs if tournament < 0]
    if lines:
        text = "".join(c for c in lines[-1] if c.isprintable())[:START_LOG_CHARS]
        detail += f"; it logged {text!r}"
    return detail
