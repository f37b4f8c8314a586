"""Evaluate all C(52, 7) = 133,784,560 seven-card hands and check the known category counts.

    python benchmarks/exhaustive_eval.py [--chunk-log2 18] [--no-progress]

Hands are enumerated on the device in fixed-size chunks under one jit: every 7-subset of the deck
splits uniquely around its 4th-lowest card ``m`` into a 3-subset of ``range(m)`` and a 3-subset of
``range(m + 1, 52)``, so for each ``m`` the hands are the product of two prefixes of one
colexicographic table of 3-subsets (sum over m of C(m, 3) * C(51 - m, 3) = C(52, 7)). Each chunk
counts categories and collects its distinct strengths; the host takes their union.

Exits 0 when the nine category counts and the 4,824 distinct strengths match, 1 otherwise, and 130
when interrupted (Ctrl-C) after printing the partial counts.
"""

from __future__ import annotations

import argparse
import itertools
import math
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from holdemjax.poker.evaluator import CATEGORY_NAMES, NUM_CATEGORIES, category, evaluate

TOTAL_HANDS = math.comb(52, 7)  # 133,784,560
# Known counts over all 7-card hands by category id (see shared/notes/poker-facts.md).
EXPECTED_COUNTS = (
    23_294_460,  # high card
    58_627_800,  # one pair
    31_433_400,  # two pair
    6_461_620,  # three of a kind
    6_180_020,  # straight
    4_047_644,  # flush
    3_473_184,  # full house
    224_848,  # four of a kind
    41_584,  # straight flush
)
EXPECTED_DISTINCT = 4_824
_UNIQUE_SLOTS = 8_192  # > 4,824: room for every distinct strength a chunk can hold
_SPLIT = 3  # cards below the split card m, and above it
_NO_STRENGTH = -1  # strengths are >= 0


@dataclass
class ExhaustiveResult:
    counts: np.ndarray  # [9] int64 hands per category
    distinct: int  # distinct strengths
    hands: int  # hands evaluated
    seconds: float  # wall time, compile included
    compile_seconds: float
    complete: bool = True
    strengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

    def ok(self) -> bool:
        return (
            self.complete
            and self.hands == TOTAL_HANDS
            and tuple(int(c) for c in self.counts) == EXPECTED_COUNTS
            and self.distinct == EXPECTED_DISTINCT
        )


class _StopOnCtrlC:
    """Turn the first Ctrl-C into a flag checked between chunks, so no computation is cut midway;
    a second Ctrl-C raises KeyboardInterrupt as usual. Only in the main thread."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def _handler(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False


def _triples_table() -> np.ndarray:
    """All 3-subsets of 0..51 in colexicographic order: rows [0, C(n, 3)) are those of range(n)."""
    rows = sorted(itertools.combinations(range(52), _SPLIT), key=lambda t: t[::-1])
    return np.asarray(rows, np.int32)  # [22100, 3]


def _make_chunk_fn(chunk: int):
    @jax.jit
    def run_chunk(table, m, start, total, high_count):
        # table: [22100, 3] int32; m, start, total, high_count: int32 scalars.
        i = start + jnp.arange(chunk, dtype=jnp.int32)  # [chunk]
        valid = i < total
        i = jnp.where(valid, i, 0)
        low = table[i // high_count]  # [chunk, 3] cards below m
        high = table[i % high_count] + (m + 1)  # [chunk, 3] cards above m
        mid = jnp.broadcast_to(m, (chunk, 1))
        hands = jnp.concatenate([low, mid, high], axis=1)  # [chunk, 7]
        strength = evaluate(hands)
        cats = jnp.where(valid, category(strength), NUM_CATEGORIES)
        counts = jnp.bincount(cats, length=NUM_CATEGORIES + 1)[:NUM_CATEGORIES]
        ordered = jnp.sort(jnp.where(valid, strength, _NO_STRENGTH))
        is_new = jnp.concatenate([jnp.ones(1, bool), ordered[1:] != ordered[:-1]])
        num_distinct = jnp.sum(is_new)
        (where_new,) = jnp.nonzero(is_new, size=_UNIQUE_SLOTS, fill_value=0)
        slots = jnp.arange(_UNIQUE_SLOTS)
        uniques = jnp.where(slots < num_distinct, ordered[where_new], _NO_STRENGTH)
        return counts, uniques, num_distinct

    return run_chunk


def run_exhaustive(chunk_log2: int = 18, progress: bool = True, console: Console | None = None):
    """Evaluate every 7-card hand once; returns an ``ExhaustiveResult`` (partial on Ctrl-C)."""
    console = console or Console()
    chunk = 1 << chunk_log2
    table = jnp.asarray(_triples_table())
    run_chunk = _make_chunk_fn(chunk)
    jobs = []  # (m, start, total, high_count)
    for m in range(_SPLIT, 52 - _SPLIT):
        low_count, high_count = math.comb(m, _SPLIT), math.comb(51 - m, _SPLIT)
        total = low_count * high_count
        jobs += [(m, s, total, high_count) for s in range(0, total, chunk)]

    counts = np.zeros(NUM_CATEGORIES, np.int64)
    seen = np.zeros(0, np.int32)
    t0 = time.perf_counter()
    args = (table, *(jnp.int32(x) for x in jobs[0]))  # compiling: Ctrl-C here stops at once
    run_chunk.lower(*args).compile()
    compile_seconds = time.perf_counter() - t0
    complete = False
    columns = (
        TextColumn("[bold]C(52,7)"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("hands {task.fields[hands]:,}"),
        TimeRemainingColumn(),
    )
    stop = _StopOnCtrlC()
    try:
        with stop, Progress(*columns, console=console, disable=not progress) as bar:
            task = bar.add_task("eval", total=len(jobs), hands=0)
            for m, start, total, high_count in jobs:
                if stop.requested:
                    raise KeyboardInterrupt
                c, u, n = run_chunk(table, m, start, total, high_count)
                if int(n) > _UNIQUE_SLOTS:
                    raise RuntimeError(f"chunk at m={m} start={start} has {int(n)} distinct values")
                counts += np.asarray(c, np.int64)
                seen = np.union1d(seen, np.asarray(u))
                bar.update(task, advance=1, hands=int(counts.sum()))
        complete = True
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: partial counts below")
    seen = seen[seen != _NO_STRENGTH]
    return ExhaustiveResult(
        counts=counts,
        distinct=int(seen.size),
        hands=int(counts.sum()),
        seconds=time.perf_counter() - t0,
        compile_seconds=compile_seconds,
        complete=complete,
        strengths=seen,
    )


def report(result: ExhaustiveResult, console: Console) -> None:
    table = Table(title="All 7-card hands")
    table.add_column("category")
    table.add_column("count", justify="right")
    table.add_column("expected", justify="right")
    table.add_column("", justify="center")
    def verdict(ok: bool) -> str:
        if not result.complete:
            return "partial"
        return "ok" if ok else "[red]MISMATCH"

    for cat, name in enumerate(CATEGORY_NAMES):
        got, want = int(result.counts[cat]), EXPECTED_COUNTS[cat]
        table.add_row(name, f"{got:,}", f"{want:,}", verdict(got == want))
    table.add_row("total hands", f"{result.hands:,}", f"{TOTAL_HANDS:,}", "")
    ok_distinct = result.distinct == EXPECTED_DISTINCT
    table.add_row(
        "distinct strengths",
        f"{result.distinct:,}",
        f"{EXPECTED_DISTINCT:,}",
        verdict(ok_distinct),
    )
    console.print(table)
    rate = result.hands / max(result.seconds - result.compile_seconds, 1e-9) / 1e6
    console.print(
        f"backend {jax.default_backend()} ({jax.devices()[0].device_kind}); "
        f"compile {result.compile_seconds:.2f} s; total {result.seconds:.1f} s "
        f"({rate:.1f} M hands/s incl. enumeration and distinct-counting)"
    )
    if not result.complete:
        console.print("[yellow]INTERRUPTED: counts cover the chunks finished")
    else:
        console.print("[green]PASS" if result.ok() else "[red]FAIL")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunk-log2", type=int, default=18, help="hands per chunk = 2**N")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    console = Console()
    result = run_exhaustive(args.chunk_log2, progress=not args.no_progress, console=console)
    report(result, console)
    if not result.complete:
        return 130
    return 0 if result.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
