"""Why `holdemjax.xla` exists, measured: its draws against ``jax.random``'s, and the two forms
of `compute_once`, in one process; writes benchmarks/results/xla_helpers.json.

    python benchmarks/bench_xla_helpers.py [--seconds 4] [--windows 7] [--quick] [--out DIR]

1. **Draws.** Each draw the envs make (a split into two keys, 52 bits, a randint, a deck's
   permutation) over a batch of keys, ``jit(scan(vmap(draw)))``: `holdemjax.xla`'s and
   ``jax.random``'s (the same values: tests/test_xla.py), compile time apart, interleaved
   windows, draws per second. Then whole env steps with `holdemjax.xla`'s draws and with every
   draw swapped for ``jax.random``'s own: what the draws cost where they are used.
2. **The compute-once form.** Whole env steps (random play with auto-reset, as
   `holdemjax.bench` measures every env) with every `compute_once` of the process in one form,
   then the other: the while loop of one trip (`once_by_loop`) and the reduction
   (`once_by_reduction`). The programs are built (caches cleared) with the form swapped in,
   then all are measured in interleaved windows. The faster form is the one `compute_once`
   uses; the verdict is in the file.

The machine should be quiet (two shared cores mislead: read ``cpu_seconds`` in the windows).
Ctrl-C writes what was measured.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import jax
import jax.numpy as jnp

from holdemjax import bench, xla
from holdemjax.bench.envs import JaxEnvSide
from holdemjax.registry import make

TITLE = "holdemjax.xla: unrolled draws vs jax.random, and the compute-once form"
LENGTH = 16  # draws per key row and compiled call


def _draws(batch: int):
    """name -> (ours, jax.random's), each a function of one raw key (uint32[2])."""
    return {
        "split": (xla.split, jax.random.split),
        "bits52": (lambda k: xla.bits(k, (52,)),
                   lambda k: jax.random.bits(k, (52,), jnp.uint32)),
        "randint": (lambda k: xla.randint(k, (), 0, 6),
                    lambda k: jax.random.randint(k, (), 0, 6)),
        "permutation52": (lambda k: xla.permutation(k, 52),
                          lambda k: jax.random.permutation(k, 52)),
    }


class ProgramSide(bench.Side):
    """One compiled program called on fixed arguments (``self.run(*self.args)``), each call
    counting ``self.per_call`` items."""

    def _run(self, seconds: float) -> dict:
        calls, t0 = 0, time.perf_counter()
        while True:
            int(self.run(*self.args))
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        return {"count": calls * self.per_call, "seconds": elapsed}


class DrawSide(ProgramSide):
    """``LENGTH`` rounds of one draw over a batch of keys in one compiled call."""

    unit = "draws/s"

    def __init__(self, name: str, draw, batch: int):
        super().__init__()
        self.name, self.batch = name, batch

        def run(keys):  # keys: [LENGTH, batch, 2] uint32
            def body(acc, row):
                out = jax.vmap(draw)(row)
                return acc ^ jax.lax.reduce(out.astype(jnp.uint32), jnp.uint32(0),
                                            jax.lax.bitwise_xor, tuple(range(out.ndim))), None
            return jax.lax.scan(body, jnp.uint32(0), keys)[0]

        self.keys = jax.random.key_data(jax.random.split(jax.random.key(1), (LENGTH, batch)))
        t0 = time.perf_counter()
        self.run = jax.jit(run).lower(self.keys).compile()
        self.compile_s = time.perf_counter() - t0
        fusions, whiles = bench.kernel_counts(self.run.as_text() or "")
        self.info = {"batch": batch, "length": LENGTH, "fusions": fusions, "whiles": whiles}
        self.args, self.per_call = (self.keys,), LENGTH * batch


class EvaluateSide(ProgramSide):
    """The hand evaluator on a batch of seven-card hands (its result leaves through
    `compute_once`, so the form decides whether XLA may vectorize its loop)."""

    unit = "evals/s"

    def __init__(self, name: str, batch: int):
        super().__init__()
        from holdemjax.poker import evaluator

        self.name, self.batch = name, batch
        deck = jax.vmap(lambda k: jax.random.permutation(k, 52)[:7])(
            jax.random.split(jax.random.key(2), batch))
        self.hands = deck.astype(jnp.int32)
        t0 = time.perf_counter()
        self.run = jax.jit(lambda h: evaluator.evaluate(h).sum()).lower(self.hands).compile()
        self.compile_s = time.perf_counter() - t0
        self.info = {"batch": batch}
        self.args, self.per_call = (self.hands,), batch


@contextlib.contextmanager
def once_form(form):
    """Every `compute_once` traced inside uses ``form`` (callers read ``xla.compute_once`` at
    trace time); compiled programs keep the form they were built with."""
    plain = xla.compute_once

    def swapped(x):
        x = jnp.asarray(x)
        if not (jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_):
            raise TypeError(f"compute_once takes integer or bool arrays, got {x.dtype}")
        return x if x.size == 0 else form(x)

    jax.clear_caches()
    xla.compute_once = swapped
    try:
        yield
    finally:
        xla.compute_once = plain
        jax.clear_caches()


FORMS = {"loop": xla.once_by_loop, "reduction": xla.once_by_reduction}


def _jax_permutation(key, size, positions=None, fold=None):
    key = key if fold is None else jax.random.fold_in(key, fold)
    perm = jax.random.permutation(key, size).astype(jnp.int32)
    return perm if positions is None else perm[jnp.asarray(positions)]


#: `holdemjax.xla`'s draws -> ``jax.random``'s (the same values: tests/test_xla.py).
JAX_RANDOM = {
    "split": jax.random.split,
    "split_at": lambda key, index: jax.random.split(key, index + 1)[index],
    "fold_in": jax.random.fold_in,
    "bits": lambda key, shape=(): jax.random.bits(key, tuple(shape), jnp.uint32),
    "uniform": lambda key, shape=(): jax.random.uniform(key, tuple(shape)),
    "bernoulli": lambda key, shape=(): jax.random.bernoulli(key, 0.5, tuple(shape)),
    "randint": lambda key, shape, lo, hi: jax.random.randint(key, tuple(shape), lo, hi),
    "permutation": _jax_permutation,
    "sort_keys": lambda key, size, fold=None: jax.random.bits(
        jax.random.split(key if fold is None else jax.random.fold_in(key, fold))[1], (size,),
        jnp.uint32),
}


@contextlib.contextmanager
def jax_random_draws():
    """Every draw traced inside is ``jax.random``'s own (the rolled hash, the sort)."""
    plain = {name: getattr(xla, name) for name in JAX_RANDOM}
    jax.clear_caches()
    for name, fn in JAX_RANDOM.items():
        setattr(xla, name, fn)
    try:
        yield
    finally:
        for name, fn in plain.items():
            setattr(xla, name, fn)
        jax.clear_caches()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per side and cell")
    parser.add_argument("--windows", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="small batches, kuhn only")
    parser.add_argument("--only", choices=("draws", "evaluate", "envs"), action="append",
                        help="measure only these parts (repeatable; default all)")
    parser.add_argument("--out", default=None, help="results folder (default: the repo's)")
    args = parser.parse_args(argv)
    from rich.console import Console

    console = Console()
    load_before = os.getloadavg()
    cells, comparisons, verdict = [], [], {}
    draw_batches = (64,) if args.quick else (64, 4096)
    eval_batches = (1024,) if args.quick else (1024, 65536)
    env_cells = ([("kuhn_poker", 64)] if args.quick else
                 [("sng-6", 64), ("sng-6", 4096), ("tic_tac_toe", 4096), ("backgammon", 1024),
                  ("kuhn_poker", 4096)])
    try:
        parts = set(args.only or ("draws", "evaluate", "envs"))
        for batch in draw_batches if "draws" in parts else ():
            for name, (ours, theirs) in _draws(batch).items():
                sides = [DrawSide(f"holdemjax.xla {name}", ours, batch),
                         DrawSide(f"jax.random {name}", theirs, batch)]
                bench.interleave(sides, args.seconds, args.windows)
                a, b = sides[0].cell(), sides[1].cell()
                comp = bench.compare(f"draw {name} B={batch}", a, b)
                cells += [a, b]
                comparisons.append(comp)
                console.print(f"{comp.key}: {comp.ratio:.2f}x jax.random (q1 {comp.q1:.2f}); "
                              f"compile {a.compile_s:.2f} s vs {b.compile_s:.2f} s",
                              highlight=False)
        for batch in eval_batches if "evaluate" in parts else ():
            sides = []
            for form_name, form in FORMS.items():
                with once_form(form):
                    sides.append(EvaluateSide(f"evaluate once_by_{form_name}", batch))
            bench.interleave(sides, args.seconds, args.windows)
            loop, red = sides[0].cell(), sides[1].cell()
            comp = bench.compare(f"evaluate B={batch}: loop / reduction", loop, red)
            cells += [loop, red]
            comparisons.append(comp)
            verdict[f"evaluate B={batch}"] = round(comp.ratio, 3)
            console.print(f"{comp.key}: {comp.ratio:.2f}x (q1 {comp.q1:.2f})", highlight=False)
        for env_id, batch in env_cells if "draws" in parts else ():
            env = make(env_id)
            sides = [JaxEnvSide(f"{env_id} holdemjax.xla draws", env_id, env.init, env.step,
                                batch)]
            with jax_random_draws():
                sides.append(JaxEnvSide(f"{env_id} jax.random draws", env_id, env.init,
                                        env.step, batch))
            bench.interleave(sides, args.seconds, args.windows)
            ours, theirs = sides[0].cell(), sides[1].cell()
            comp = bench.compare(f"{env_id} B={batch}: xla draws / jax.random", ours, theirs)
            cells += [ours, theirs]
            comparisons.append(comp)
            console.print(f"{comp.key}: {comp.ratio:.2f}x (q1 {comp.q1:.2f}); compile "
                          f"{ours.compile_s:.1f} s vs {theirs.compile_s:.1f} s; fusions "
                          f"{ours.info['fusions']} vs {theirs.info['fusions']}",
                          highlight=False)
        for env_id, batch in env_cells if "envs" in parts else ():
            env, sides = make(env_id), []
            for form_name, form in FORMS.items():
                with once_form(form):
                    sides.append(JaxEnvSide(f"{env_id} once_by_{form_name}", env_id, env.init,
                                            env.step, batch))
            bench.interleave(sides, args.seconds, args.windows)
            loop, red = sides[0].cell(), sides[1].cell()
            comp = bench.compare(f"{env_id} B={batch}: loop / reduction", loop, red)
            cells += [loop, red]
            comparisons.append(comp)
            verdict[f"{env_id} B={batch}"] = round(comp.ratio, 3)
            console.print(f"{comp.key}: {comp.ratio:.2f}x (q1 {comp.q1:.2f}); compile "
                          f"{loop.compile_s:.1f} s vs {red.compile_s:.1f} s; fusions "
                          f"{loop.info['fusions']} vs {red.info['fusions']}, whiles "
                          f"{loop.info['whiles']} vs {red.info['whiles']}", highlight=False)
    except KeyboardInterrupt:
        console.print("interrupted: writing what was measured")
    path = bench.write_results(
        "xla_helpers" if not args.quick else "xla_helpers_quick", title=TITLE, cells=cells,
        comparisons=comparisons, out_dir=args.out, load_before=load_before,
        params={"seconds": args.seconds, "windows": args.windows, "length": LENGTH,
                "draw_batches": list(draw_batches), "eval_batches": list(eval_batches),
                "env_cells": env_cells},
        notes=["draw rows: ratio = holdemjax.xla's draws/s over jax.random's, same values",
               "'xla draws / jax.random' rows: ratio = env steps/s with holdemjax.xla's draws "
               "over steps/s with every draw of the step jax.random's own",
               "env rows: ratio = steps/s with compute_once as a one-trip while loop over "
               "steps/s with it as a reduction (above 1: the loop is faster)"],
        extra={"compute_once_loop_over_reduction": verdict})
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
