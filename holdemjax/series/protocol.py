"""The player protocol's messages (PROTOCOL.md next to this file is the contract): the numbers
of the sandbox and the clock, the start message, canonical encoding, and reading a policy's
The rules half, what the table says to the seat to act and reads from its reply (wire codes,
the ``legal`` block, the ``act`` message, reply parsing), lives in `holdemjax.host.protocol`
and is re-exported here, so this module stays the protocol's one namespace.

Host side only: numpy and plain Python, no JAX computation (states are read with
``jax.device_get``). Everything here is a pure function of its arguments, so a series replays
byte for byte.
"""

from __future__ import annotations

import json

import jax
import numpy as np

from holdemjax.host.protocol import (
    ACTIONS,
    BANK_NS,
    CALL,
    CHAT_CHARS,
    CHAT_DROPS,
    CHAT_LINES_PER_HAND,
    CHECK,
    DECISION_MAX_NS,
    EMOTES,
    FOLD,
    KIND_OF,
    MS,
    RAISE,
    REPLY_MAX_BYTES,
    SHOT_NS,
    Code,
    Reply,
    act_message,
    clean_line,
    code_of,
    kind_of,
    legal_info,
    parse_reply,
)
from holdemjax.validate import require_int

__all__ = ["PROTOCOL_VERSION", "ABI_VERSION", "Clock", "OUTCOMES", "FAULTS", "TRAP", "MEMORY",
           "WALL_CLOCK", "SeriesVoid", "MACHINE_PER_VIRTUAL", "MACHINE_PER_CALL_S",
           "MACHINE_SLACK_S", "MACHINE_PER_IMPORT_S", "HOST_CALL_NS", "RUNTIME_CALL_NS",
           "MEMORY_LIMIT_BYTES", "STORE_MEMORY_BYTES", "REPLY_MAX_BYTES", "LOG_LINE_BYTES",
           "LOG_LINES_PER_TOURNAMENT", "START_LOG_CHARS", "MAX_MODULE_BYTES", "SHOT_NS",
           "BANK_NS", "DECISION_MAX_NS", "NOTIFY_NS", "START_NS", "AWAY_NS", "CHAT_CHARS",
           "CHAT_LINES_PER_HAND", "EMOTES", "ACTIONS", "Code", "FOLD", "CHECK", "CALL", "RAISE",
           "KIND_OF", "kind_of", "code_of", "encode", "slot_seed", "format_info", "start_message",
           "legal_info", "act_message", "Reply", "parse_reply", "clean_line", "CHAT_DROPS"]

PROTOCOL_VERSION = 1
ABI_VERSION = PROTOCOL_VERSION  # holdem_abi_version() must return this

# ------------------------------------------------------------------ the numbers of PROTOCOL.md
# Every number the protocol quotes lives here (the wasm host imports them), but those of the
# act message and of a reply (its size, table talk): `holdemjax.host.protocol`, re-exported.
NOTIFY_NS = 5 * MS  # hand_end / tournament_end
START_NS = 1_000 * MS  # instantiation, _initialize, holdem_start and the start message together
AWAY_NS = SHOT_NS  # an away seat's decision: the shot clock, no bank
# Host imports are not metered by wasmtime, and one costs ~10 us of real time in wasmtime-py 50,
# about what 10,000 fuel of the tightest wasm loop takes: charging that keeps a policy that only
# polls from burning more wall time per virtual ns than one that only computes.
HOST_CALL_NS = 10_000
# A few instructions that call into wasmtime's runtime (memory.grow, memory.fill, table.grow,
# table.init, elem.drop, ref.func: holdemjax.series.meter.CHARGED) take 3-100 ns of machine time
# and are charged 1 unit by wasmtime; the host charges each this much more (rewriting the module).
RUNTIME_CALL_NS = 128
MEMORY_LIMIT_BYTES = 64 * 2**20  # above this after a call (or at a trap): a "memory" fault
# The store lets memory grow one wasm page past the limit, so that an excess is seen (and
# faulted) while a policy never holds more than 64 MiB + 64 KiB; a grow past it returns -1.
STORE_MEMORY_BYTES = MEMORY_LIMIT_BYTES + 65_536
# The machine-time guard (PROTOCOL §3, the one outcome that depends on the machine). A policy may
# use at most MACHINE_PER_VIRTUAL s of CPU time per virtual second it is charged, plus
# MACHINE_PER_CALL_S per call and MACHINE_PER_IMPORT_S per host import call (the host's share),
# plus MACHINE_SLACK_S once; past it the seat is faulted ("wall_clock"), inside a call too (at
# every epoch tick the store asks its own guard, on the calling thread's CPU clock, whether that
# call is over: one policy's trip never stops another's call). With runtime calls charged
# (RUNTIME_CALL_NS), wasm code takes 0.02-0.7 ns of CPU per fuel unit, a 1-unit loop (the
# costliest) about 2 ns (2-core x86 machines); a host import call 10-40 us of host work. The
# guard's allowances are 5 times those or more: a safety net that no known policy meets
# (benchmarks/bench_runtime_calls.py measures the costs; PROTOCOL §3).
MACHINE_PER_VIRTUAL = 10.0
MACHINE_PER_CALL_S = 0.0002
MACHINE_PER_IMPORT_S = 0.0001
MACHINE_SLACK_S = 0.5
LOG_LINE_BYTES = 1_024
LOG_LINES_PER_TOURNAMENT = 256
START_LOG_CHARS = 200  # of the last start-phase log line, quoted by a failure to start (§4)
MAX_MODULE_BYTES = 16 * 2**20  # a bigger file is refused before compiling (compile time, memory)

#: Outcomes of a call that bench the policy for the rest of the series.
FAULTS = ("trap", "memory", "wall_clock")
#: the module trapped; its memory went over MEMORY_LIMIT_BYTES; it took more machine time than
#: the guard allows (MACHINE_PER_VIRTUAL)
TRAP, MEMORY, WALL_CLOCK = FAULTS


class SeriesVoid(RuntimeError):
    """The host cannot attribute what stopped a policy's call (an epoch interruption that no
    guard of this host asked for): no result of the series can stand, none is charged to the
    policy. The CLI says so on stderr and exits non-zero."""


#: What one call of a policy did (`wasm.CallResult.outcome`).
OUTCOMES = ("ok", "no_reply", "timeout", *FAULTS, "bad_alloc", "bad_pointer", "reply_too_long")


class Clock:
    """One seat's compute clock for the whole series (PROTOCOL §3), pure Python.

    The runner asks `decision_budget` before a decision, then reports it with `record_decision`;
    the clock charges the bank, counts timeouts in a row and sets ``away`` at the second one.
    `sit_in` ends ``away``; `new_tournament` refills the bank (unless the bank is for the whole
    series: ``refill=False``, as in `ring-9-series`). ``decision_max_ns=None`` means no cap.
    """

    def __init__(self, shot_ns: int = SHOT_NS, bank_ns: int = BANK_NS,
                 decision_max_ns: int | None = DECISION_MAX_NS, refill: bool = True) -> None:
        shot_ns = require_int("shot_ns", shot_ns, 0, what="a non-negative integer")
        bank_ns = require_int("bank_ns", bank_ns, 0, what="a non-negative integer")
        if shot_ns == 0:
            raise ValueError("shot_ns must be positive, got 0")
        self.shot_ns, self.full_bank_ns = shot_ns, bank_ns
        self.decision_max_ns, self.refill = decision_max_ns, refill
        self.bank_ns = bank_ns
        self.timeouts_in_a_row = 0
        self.away = False

    def decision_budget(self) -> int:
        """Budget of this seat's next decision: ``min(shot + bank, max)``, or the bare shot clock
        while away (at most `AWAY_NS`)."""
        if self.away:
            return min(self.shot_ns, AWAY_NS)
        budget = self.shot_ns + self.bank_ns
        return budget if self.decision_max_ns is None else min(budget, self.decision_max_ns)

    def charge(self, used_ns: int) -> int:
        """Take ``max(0, used - shot)`` from the bank (never below 0); return what was taken."""
        taken = min(self.bank_ns, max(0, int(used_ns) - self.shot_ns))
        self.bank_ns -= taken
        return taken

    def record_decision(self, outcome: str, used_ns: int) -> bool:
        """Settle one decision of this seat; return ``away`` afterwards.

        While away nothing is charged or counted (the reply is only read for ``sit_in``).
        Otherwise the bank is charged, a "timeout" extends the run of timeouts and any other
        outcome (a reply, good or bad) ends it; two in a row make the seat away.
        """
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; expected one of {OUTCOMES}")
        if self.away:
            return True
        self.charge(used_ns)
        self.timeouts_in_a_row = self.timeouts_in_a_row + 1 if outcome == "timeout" else 0
        if self.timeouts_in_a_row >= 2:
            self.away = True
        return self.away

    def sit_in(self) -> None:
        """The policy sent ``"sit_in": true``: active again from its next decision."""
        self.away = False
        self.timeouts_in_a_row = 0

    def new_tournament(self) -> None:
        """Refill the bank if it is per tournament (the away state and the run of timeouts
        carry over)."""
        if self.refill:
            self.bank_ns = self.full_bank_ns

    def as_message(self=None) -> dict:
        """The ``clock`` object of the ``start`` message (``Clock.as_message()``: the default)."""
        c = self if isinstance(self, Clock) else Clock()
        return {"shot_ns": c.shot_ns, "bank_ns": c.full_bank_ns,
                "decision_max_ns": c.decision_max_ns, "bank_refills": c.refill,
                "notify_ns": NOTIFY_NS, "start_ns": START_NS}


def encode(message: dict) -> bytes:
    """Canonical JSON: keys sorted, no whitespace, ASCII."""
    return json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def slot_seed(series_seed: int, slot: int) -> tuple[int, int]:
    """The slot's key words: ``key_data(fold_in(key(series_seed), 1000 + slot))`` (threefry)."""
    key = jax.random.fold_in(jax.random.key(series_seed), 1000 + slot)
    w0, w1 = np.asarray(jax.random.key_data(key), np.uint32).tolist()
    return int(w0), int(w1)


def format_info(name: str, fmt) -> dict:
    """The `format` block of the start message for a tournament format (``name`` and its
    `structure.Format`)."""
    fmt = jax.device_get(fmt)
    levels = np.stack([fmt.small_blinds, fmt.big_blinds, fmt.antes], axis=1)
    return {
        "name": name,
        "seats": int(fmt.num_seats),
        "starting_stack": int(fmt.starting_stack),
        "hands_per_level": int(fmt.hands_per_level),
        "hand_cap": int(fmt.hand_cap),
        "levels": levels.astype(int).tolist(),
        "kind": fmt.kind,
        "payouts_ppm": [int(round(float(p) * 1_000_000)) for p in np.asarray(fmt.payouts)],
    }


def start_message(fmt: dict, *, slot: int, alias: str, seed: tuple[int, int], variant: str,
                  tournaments: int, clock: Clock | None = None) -> dict:
    """The `start` message (PROTOCOL §5) for one slot (``clock``: its settings); ``fmt`` is its
    `format` block (`format_info` of a tournament format, or a duplicate match's)."""
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "slot": int(slot),
        "alias": alias,
        "variant": variant,
        "tournaments": int(tournaments),
        "format": dict(fmt),
        "clock": (clock or Clock()).as_message(),
        "limits": {"memory_bytes": MEMORY_LIMIT_BYTES, "reply_bytes": REPLY_MAX_BYTES,
                   "chat_chars": CHAT_CHARS, "chat_lines_per_hand": CHAT_LINES_PER_HAND},
        "emotes": list(EMOTES),
        "seed": [int(seed[0]), int(seed[1])],
    }
