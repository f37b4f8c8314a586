"""The machine-time guard (PROTOCOL §3): each policy's account of CPU time against its
allowance, and the judge that stops a call over it, deciding per call, for that call.

Every `EPOCH_TICK_S` the engine's epoch ticks (`TICKER`); each store inside a guarded call then
asks its own `MachineGuard`, on the thread running the call (wasmtime's per-store epoch deadline
callback, `judge_calls`), whether this call is over its limit on that thread's clock
(`guard_clock`). One policy's trip never stops another's call; a call stopped by an epoch
interruption that no guard asked for is nobody's (`MachineGuard.stopped` raises
`protocol.SeriesVoid`). Private to `holdemjax.series.wasm`.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
import warnings
import weakref

import wasmtime

# The judge needs wasmtime's C API (wasmtime_store_epoch_deadline_callback), which wasmtime-py
# binds in its _ffi module but does not wrap.
from wasmtime import _ffi as _capi

from holdemjax.series.protocol import (
    MACHINE_PER_CALL_S,
    MACHINE_PER_IMPORT_S,
    MACHINE_PER_VIRTUAL,
    MACHINE_SLACK_S,
    SeriesVoid,
)

__all__ = ["EPOCH_TICK_S", "FAR_DEADLINE", "GUARD_CLOCK", "TICKER", "DEFERRED", "EpochTicker",
           "DeferredSigint", "MachineGuard", "guard_clock", "judge_calls"]

#: The ticker's period: a call over its machine-time allowance is stopped within this.
EPOCH_TICK_S = 0.005
FAR_DEADLINE = 2**62  # epoch ticks: a store not in a guarded call is never asked

# The guard's clock, read on the calling thread by the guard at every tick and around guest
# code (`MachineGuard.guest`): that thread's CPU time, so load on the machine does not count.
# Where the platform has no per-thread CPU clock, both read wall time instead, and the guard
# then counts the machine's load too: GUARD_CLOCK and a warning at import say so.
try:
    time.thread_time()
    guard_clock, GUARD_CLOCK = time.thread_time, "thread CPU time"
except (AttributeError, OSError):  # pragma: no cover - a platform without thread CPU clocks
    guard_clock = time.perf_counter
    GUARD_CLOCK = "wall time (this platform has no per-thread CPU clock)"
    warnings.warn("holdemjax: no per-thread CPU clock here: the machine-time guard measures "
                  "wall time, so load on the machine counts against a policy", RuntimeWarning,
                  stacklevel=1)


class EpochTicker:
    """Advances the engine's epoch every `EPOCH_TICK_S` once a guarded call has run. A tick
    interrupts nobody: each store in a guarded call asks its own `MachineGuard` (`judge_calls`),
    on the thread running that call, whether that call is over its allowance, and goes on when
    it is not. Stores outside a guarded call have their deadline at `FAR_DEADLINE`."""

    def __init__(self):
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    def ensure_running(self, engine: wasmtime.Engine) -> None:
        """Tick ``engine`` (the process's one engine) from now on."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, args=(engine,), daemon=True,
                                                name="holdemjax-epoch-ticker")
                self._thread.start()

    def stop(self) -> None:
        """Stop the thread (before the engine is closed at exit)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    def _run(self, engine: wasmtime.Engine) -> None:
        while not self._stop.wait(EPOCH_TICK_S):
            engine.increment_epoch()


TICKER = EpochTicker()


class DeferredSigint:
    """Ctrl-C never lands inside a wasm callback (issue 50, finding 9). While a guarded call
    runs on the main thread (`MachineGuard.arm` to `disarm`), SIGINT only sets a flag: the
    judge and the host imports are Python code called from compiled code, and a
    KeyboardInterrupt raised at their first bytecode (before any ``try:``) escaped through
    ctypes and killed the process with SIGSEGV. `leave` puts the process's own handler back and
    sends SIGINT again, so it is handled in the host's own code, between two calls, exactly as
    a Ctrl-C there (KeyboardInterrupt: the series and the league exit 130 with their message).
    Other threads are never interrupted by a signal: nothing to defer there. A guarded call is
    bounded by its machine-time allowance, so the wait is too."""

    def __init__(self):
        self._depth, self._pending, self._previous = 0, False, None

    def _defer(self, signum, frame) -> None:
        self._pending = True

    def enter(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        if self._depth == 0:
            previous = signal.getsignal(signal.SIGINT)
            if previous is None:  # a handler not installed from Python: leave it alone
                return
            self._previous, self._pending = previous, False
            signal.signal(signal.SIGINT, self._defer)
        self._depth += 1

    def leave(self) -> None:
        if threading.current_thread() is not threading.main_thread() or self._depth == 0:
            return
        self._depth -= 1
        if self._depth:
            return
        signal.signal(signal.SIGINT, self._previous)
        self._previous = None
        if self._pending:
            self._pending = False
            signal.raise_signal(signal.SIGINT)  # handled by the handler just put back


DEFERRED = DeferredSigint()


class MachineGuard:
    """One policy's account with the machine-time guard (PROTOCOL §3): guard-clock seconds its
    calls used (``used_s``) against what it is allowed so far (``allowed_s``: the slack, plus
    per call its share and `MACHINE_PER_VIRTUAL` times the fuel it used, plus per host import
    call), and the judge of its store's running call.

    Each call is judged on its own: `arm` sets the limit of this call on the calling thread's
    clock, the store asks `over` at every tick of `TICKER` (wasmtime's epoch deadline callback,
    `judge_calls`) and stops the call (``tripped``) only when this call is over this limit;
    `disarm` (in a ``finally``) leaves nothing armed. A store whose guard never tripped is never
    stopped by it: an epoch interruption it did not ask for is not this policy's (`stopped`
    voids the series)."""

    def __init__(self, store: wasmtime.Store):
        self.used_s, self.allowed_s = 0.0, MACHINE_SLACK_S
        self.imports = 0  # host import calls in the current call
        self.call_s = 0.0  # guard-clock seconds of guest code in the current call (`guest`)
        self.tripped = False  # the current call was stopped by this guard
        self.raised: BaseException | None = None  # what the judge raised (Ctrl-C), re-raised
        self._limit: float | None = None  # the guard clock's limit of the running call
        self._store = store
        self._judge = judge_calls(store, self)  # kept alive as long as the store

    def arm(self, budget: int) -> None:
        """Before a call on ``budget`` fuel, on the thread that runs it: the call may use what
        is left of the allowance, its share and its budget's."""
        self.imports, self.call_s, self.tripped, self.raised = 0, 0.0, False, None
        allowance = (self.allowed_s - self.used_s + MACHINE_PER_CALL_S
                     + MACHINE_PER_VIRTUAL * budget * 1e-9)
        self._limit = guard_clock() + max(0.0, allowance)
        self._store.set_epoch_deadline(1)
        TICKER.ensure_running(self._store.engine)
        # Last: nothing after it may raise, or no `disarm` would leave it and every later
        # Ctrl-C of the process would only be deferred, never raised.
        DEFERRED.enter()  # from here a Ctrl-C waits for `disarm`

    def disarm(self) -> None:
        """After the call, however it ended: a Ctrl-C that came during it is raised now."""
        self._limit = None
        if self._store is not None:
            self._store.set_epoch_deadline(FAR_DEADLINE)
        DEFERRED.leave()

    def release(self) -> None:
        """The store is about to be closed: forget it."""
        self._limit = self._store = None

    def stopped(self, exc: Exception, policy: str) -> bool:
        """Whether this guard stopped the call of ``policy`` that raised ``exc``. Re-raises what
        reached the judge (Ctrl-C); raises `SeriesVoid` for an epoch interruption that no guard
        asked for (a guard stops its call through its judge, never by that trap)."""
        if self.raised is not None:
            raise self.raised
        if self.tripped:
            return True
        if isinstance(exc, wasmtime.Trap) and exc.trap_code == wasmtime.TrapCode.INTERRUPT:
            raise SeriesVoid(f"policy {policy}: its call was stopped by an epoch interruption "
                             "that no machine-time guard of this host asked for; the host "
                             "cannot attribute it, so the series is void") from None
        return False

    def over(self) -> bool:
        """Asked at a tick, on the thread running the call: stop it now (``tripped``)?"""
        limit = self._limit
        if limit is not None and guard_clock() > limit:
            self.tripped = True
        return self.tripped

    def guest(self, call, *args):
        """Call guest code, adding its guard-clock time (with the host imports it calls) to the
        current call's: the host's own work (writing the message, reading the reply) is not
        charged."""
        t0 = guard_clock()
        try:
            return call(*args)
        finally:
            self.call_s += guard_clock() - t0

    def import_call(self) -> None:
        self.imports += 1
        if self._limit is not None:
            self._limit += MACHINE_PER_IMPORT_S

    def settle(self, used_ns: int) -> str:
        """After a call (disarmed): charge its guest time; why the policy is over the guard,
        or ""."""
        self.used_s += self.call_s
        self.allowed_s += (MACHINE_PER_CALL_S + MACHINE_PER_VIRTUAL * used_ns * 1e-9
                           + MACHINE_PER_IMPORT_S * self.imports)
        if self.used_s <= self.allowed_s:
            return ""
        return (f"{self.used_s:.3f} s of machine time, more than the {self.allowed_s:.3f} s "
                "allowed for the virtual time it was charged")


# wasmtime's C API (wasmtime_store_epoch_deadline_callback): called on the thread running the
# store's code when the epoch reaches its deadline; returns NULL and sets the next deadline to
# go on, or returns an error (which ends the call) to stop.
_JUDGE_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_size_t, ctypes.POINTER(_capi.wasmtime_context_t), ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(_capi.wasmtime_update_deadline_kind_t))
_NO_FINALIZER = ctypes.cast(0, ctypes.CFUNCTYPE(None, ctypes.c_void_p))
_CONTINUE = 0  # WASMTIME_UPDATE_DEADLINE_CONTINUE
GUARD_STOP = b"holdemjax machine-time guard: the call is over its allowance"


def judge_calls(store: wasmtime.Store, guard: MachineGuard):
    """Make ``store`` ask ``guard`` at every epoch tick whether its running call is over its
    allowance (`MachineGuard.over`); the returned callback must live as long as the store.

    Why a judge per store and not one engine per thread (each with its own ticker): both keep
    one call's trip from reaching another, but an engine per thread needs every module compiled
    (or deserialized) once per engine, and a store may run only on the thread of its engine
    (the duplicate service loads a policy on one thread and plays it on another). The judge
    costs nothing measurable (docs/series.md, Speed)."""
    me = weakref.ref(guard)

    def judge(context, data, delta, kind) -> int:
        mine = None
        try:
            delta[0], kind[0] = 1, _CONTINUE  # the next tick
            mine = me()
            if mine is None or not mine.over():
                return 0
        except BaseException as exc:  # noqa: BLE001 - Ctrl-C can arrive here
            if mine is None:
                return 0
            mine.raised = exc  # (ctypes would drop it): stop the call, `stopped` re-raises it
        return ctypes.cast(_capi.wasmtime_error_new(GUARD_STOP), ctypes.c_void_p).value

    callback = _JUDGE_TYPE(judge)
    _capi.wasmtime_store_epoch_deadline_callback(store.ptr(), callback, None, _NO_FINALIZER)
    return callback
