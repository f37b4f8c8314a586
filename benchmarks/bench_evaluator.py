"""7-card evaluations per second: holdemjax (jit, batched) against a native C evaluator, one run.

    python benchmarks/bench_evaluator.py [--seconds 14] [--windows 7] [--out DIR]

Writes ``benchmarks/results/evaluator.json`` (``--out`` elsewhere) and prints a table.

* Ours: `holdemjax.poker.evaluator.evaluate` under jit on device arrays at batch 1, 1,024 and
  65,536 (the same random hands), compile time apart.
* The peer: PHEvaluator's C entry point ``evaluate_7cards`` (the pip package ``phevaluator``
  exports it from its extension module) called from a C loop (``benchmarks/native/eval_loop.c``,
  compiled here with gcc -O3), on one thread and on every core: the peer measured natively,
  not through Python. Skipped with a note when gcc or phevaluator is missing.

All sides evaluate the same random hands, and the native results are checked to order the hands
as ours do before anything is timed. Windows are interleaved; each side's figure is the median of
its windows (`holdemjax.bench`). Goal: >= 100 M evals/s at batch 65,536.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax import bench
from holdemjax.poker.evaluator import evaluate

BATCHES = (1, 1_024, 65_536)
GOAL = 100e6  # evals/s at batch 65,536
SEED = 7
NATIVE_HANDS = 65_536
HERE = pathlib.Path(__file__).resolve().parent


def random_hands(count: int, seed: int = SEED) -> np.ndarray:
    """``# [count, 7] int32`` uniformly random 7-card hands (distinct cards within a hand)."""
    rng = np.random.default_rng(seed)
    return rng.random((count, 52)).argpartition(7, axis=1)[:, :7].astype(np.int32)


def same_order(a: np.ndarray, b: np.ndarray) -> bool:
    """True when sorting by ``a`` sorts ``b`` too, with ties in the same places."""
    order = np.argsort(a, kind="stable")
    da, db = np.diff(a[order]), np.diff(np.asarray(b, np.int64)[order])
    return bool(np.all(np.sign(da) == np.sign(db)))


class Ours(bench.Side):
    unit = "evals/s"

    def __init__(self, hands: np.ndarray, batch: int):
        super().__init__()
        self.name, self.batch = f"holdemjax B={batch:,}", batch
        self.x = jax.device_put(jnp.asarray(np.resize(hands, (batch, 7))))
        t0 = time.perf_counter()
        self.fn = evaluate.lower(self.x).compile()
        self.compile_s = time.perf_counter() - t0
        self.info = {"batch": batch}

    def _run(self, seconds: float) -> dict:
        calls, t0 = 0, time.perf_counter()
        while True:
            self.fn(self.x).block_until_ready()
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                return {"count": calls * self.batch, "seconds": elapsed}


class Native(bench.Side):
    """A C evaluator entry point timed in a C loop (`eval_loop.c`)."""

    unit = "evals/s"

    def __init__(self, lib, fn_address: int, hands: np.ndarray, threads: int, label: str):
        super().__init__()
        self.name = f"{label}, {threads} thread{'s' * (threads > 1)}"
        self.lib, self.fn, self.threads = lib, fn_address, threads
        self.hands = np.ascontiguousarray(hands, np.int32)
        self.reps = 1
        self.info = {"threads": threads, "hands": len(hands)}

    def evaluate_all(self) -> np.ndarray:
        out = np.zeros(len(self.hands), np.int32)
        self._call(1, out)
        return out

    def _call(self, reps: int, out=None) -> None:
        self.lib.eval_loop(ctypes.c_void_p(self.fn), self.hands.ctypes.data_as(ctypes.c_void_p),
                           ctypes.c_long(len(self.hands)), ctypes.c_long(reps),
                           ctypes.c_int(self.threads),
                           None if out is None else out.ctypes.data_as(ctypes.c_void_p))

    def _run(self, seconds: float) -> dict:
        count, t0 = 0, time.perf_counter()
        while True:
            self._call(self.reps)
            count += self.reps * len(self.hands)
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                return {"count": count, "seconds": elapsed}
            if elapsed < seconds / 20:  # fewer, longer C calls: the ctypes call costs ~1 us
                self.reps *= 2


def native_peer(hands: np.ndarray) -> tuple[list[Native], str | None]:
    """PHEvaluator's ``evaluate_7cards`` in a C loop, on 1 thread and on every core, or the
    reason it cannot run."""
    try:
        from phevaluator import _pheval
    except ImportError:
        return [], "phevaluator is not installed (pip install phevaluator)"
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        return [], "no C compiler (gcc) to build benchmarks/native/eval_loop.c"
    build = pathlib.Path(tempfile.mkdtemp(prefix="holdemjax-eval-loop-"))
    so = build / "eval_loop.so"
    subprocess.run([gcc, "-O3", "-march=native", "-shared", "-fPIC", "-pthread",
                    str(HERE / "native" / "eval_loop.c"), "-o", str(so)], check=True)
    lib = ctypes.CDLL(str(so))
    lib.eval_loop.restype = ctypes.c_longlong
    entry = ctypes.CDLL(_pheval.__file__).evaluate_7cards
    address = ctypes.cast(entry, ctypes.c_void_p).value
    label = "PHEvaluator C evaluate_7cards"
    cores = os.cpu_count() or 1
    sides = [Native(lib, address, hands, 1, label)]
    if cores > 1:
        sides.append(Native(lib, address, hands, cores, label))
    return sides, None


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.table import Table

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=14.0, help="run time per side")
    ap.add_argument("--windows", type=int, default=7)
    ap.add_argument("--out", help="folder for evaluator.json (default benchmarks/results)")
    args = ap.parse_args(argv)
    console = Console(width=max(Console().width, 120))
    load_before = os.getloadavg()

    hands = random_hands(max(BATCHES))
    ours = [Ours(hands, b) for b in BATCHES]
    peers, why_not = native_peer(hands[:NATIVE_HANDS])
    notes = []
    if why_not:
        notes.append(f"no native peer: {why_not}")
    if peers:  # PHEvaluator's rank: lower = better
        strength = np.asarray(evaluate(hands[:NATIVE_HANDS])).astype(np.int64)
        if not same_order(strength, -peers[0].evaluate_all().astype(np.int64)):
            console.print("[red]PHEvaluator orders the hands differently from ours")
            return 1
    sides = ours + peers
    bench.interleave(sides, args.seconds, args.windows)
    cells = [s.cell() for s in sides]
    big = cells[len(BATCHES) - 1]
    comparisons = [bench.compare(f"{big.side} vs {p.side}", big, p) for p in cells[len(ours):]]
    targets = [bench.target(f"{big.side}", big, GOAL)]
    path = bench.write_results(
        "evaluator", title="7-card hand evaluator: holdemjax vs a native C evaluator",
        cells=cells, comparisons=comparisons, targets=targets, out_dir=args.out,
        params={"seconds": args.seconds, "windows": args.windows, "batches": list(BATCHES),
                "native_hands": NATIVE_HANDS, "seed": SEED}, notes=notes,
        load_before=load_before)

    table = Table(title=f"7-card evals/s, median of {args.windows} interleaved windows")
    for col in ("evaluator", "M evals/s", "windows (M/s)", "compile s"):
        table.add_column(col, justify="left" if col == "evaluator" else "right")
    for c in cells:
        table.add_row(c.side, f"{c.median / 1e6:.1f}",
                      f"{min(c.rates) / 1e6:.1f}-{max(c.rates) / 1e6:.1f}",
                      "" if c.compile_s is None else f"{c.compile_s:.2f}")
    console.print(table)
    for comp in comparisons:
        console.print(f"{comp.key}: {comp.ratio:.2f}x (rounds {min(comp.round_ratios):.2f}-"
                      f"{max(comp.round_ratios):.2f})")
    t = targets[0]
    console.print(f"goal {GOAL / 1e6:.0f} M/s at batch 65,536: {t['value'] / 1e6:.1f} M/s "
                  f"({'met' if t['met'] else 'NOT met'}); wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
