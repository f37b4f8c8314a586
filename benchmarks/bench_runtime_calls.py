"""Machine time per virtual nanosecond of wasm code: the figures behind PROTOCOL §3's fuel charge
of runtime calls and its machine-time guard; writes benchmarks/results/runtime_calls.json.

    python benchmarks/bench_runtime_calls.py [--seconds 0.3] [--windows 5] [--no-write]

For each instruction kind, a function loops over it (with its operands) until its fuel runs out,
once as wasmtime charges it ("as given": the module compiled unmetered) and once as the host
charges it (holdemjax.series.meter: runtime calls cost RUNTIME_CALL_NS units more). A window runs
the loop on a budget of fuel sized to take about ``--seconds``, and records the calling thread's
CPU seconds; the figure is CPU nanoseconds per fuel unit (lower is cheaper), median of windows,
the two sides interleaved. ``plain`` (a one-unit loop: the costliest honest code per unit) is the
reference the guard's allowance (MACHINE_PER_VIRTUAL s per virtual s) is set against.
Ctrl-C stops between windows and writes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import wasmtime

from holdemjax import bench
from holdemjax.series.meter import meter
from holdemjax.series.protocol import MACHINE_PER_VIRTUAL, RUNTIME_CALL_NS
from holdemjax.series.wasm_module import engine, new_store

LOOPS = {
    "plain": "",
    "i32.add": "(drop (i32.add (i32.const 1) (i32.const 2)))",
    "memory.grow": "(drop (memory.grow (i32.const 0)))",
    "memory.fill": "(memory.fill (i32.const 0) (i32.const 0) (i32.const 0))",
    "memory.copy": "(memory.copy (i32.const 0) (i32.const 0) (i32.const 0))",
    "table.grow": "(drop (table.grow $t (ref.null func) (i32.const 0)))",
    "table.init": "(table.init $t $e (i32.const 0) (i32.const 0) (i32.const 0))",
    "table.set": "(table.set $t (i32.const 0) (ref.null func))",
    "table.get": "(drop (table.get $t (i32.const 0)))",
    "elem.drop": "(elem.drop $e)",
    "ref.func": "(drop (ref.func $f))",
    "call": "(call $f)",
    "call_indirect": "(call_indirect $t (type $v) (i32.const 0))",
}


def module_text() -> str:
    funcs = "\n".join(f'(func (export "{k}") (loop $l {v} (br $l)))' for k, v in LOOPS.items())
    return f"""(module (memory 1) (type $v (func)) (table $t 4 funcref) (func $f)
      (data $d "abc") (elem $e func $f) (elem declare func $f)
      (elem (table $t) (i32.const 0) func $f)
      {funcs})"""


class Loop(bench.Side):
    unit = "fuel units per CPU second"

    def __init__(self, module: wasmtime.Module, kind: str, side: str, window_s: float):
        super().__init__()
        self.name, self.module, self.kind = f"{kind} ({side})", module, kind
        self.fuel, self.window_s = 1_000_000, window_s

    def _run(self, seconds: float) -> dict:
        store = new_store()
        store.set_fuel(self.fuel)
        run = wasmtime.Instance(store, self.module, []).exports(store)[self.kind]
        t0 = time.thread_time()
        try:
            run(store)
        except wasmtime.Trap:  # out of fuel: the end of the window
            pass
        cpu = time.thread_time() - t0
        used = self.fuel - store.get_fuel()
        # the next window's fuel, for about window_s of CPU (the warm-up run sizes the first)
        self.fuel = max(10_000, int(used * self.window_s / max(cpu, 1e-6)))
        return {"count": used, "seconds": cpu}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    wasm = bytes(wasmtime.wat2wasm(module_text()))
    as_given = wasmtime.Module(engine(), wasm)
    metered = wasmtime.Module(engine(), meter(wasm)[0])
    sides = []
    for kind in LOOPS:
        sides += [Loop(as_given, kind, "as given", args.seconds),
                  Loop(metered, kind, "metered", args.seconds)]
    try:
        bench.interleave(sides, args.seconds * args.windows, windows=args.windows)
    except KeyboardInterrupt:
        print("interrupted: nothing written", file=sys.stderr)
        return 130
    cells = [s.cell() for s in sides]
    rows = {c.side: 1e9 / c.median for c in cells}
    worst = max(v for k, v in rows.items() if k.endswith("(metered)"))
    for side, ns in rows.items():
        print(f"{side:28s} {ns:8.2f} ns/unit")
    print(f"costliest metered code: {worst:.2f} ns/unit; the guard allows "
          f"{MACHINE_PER_VIRTUAL:g} ({MACHINE_PER_VIRTUAL / worst:.1f}x)")
    if not args.no_write:
        path = bench.write_results(
            "runtime_calls", title="Machine time per fuel unit: runtime calls, as given and "
            "metered", cells=cells, load_before=load,
            params={"seconds": args.seconds, "windows": args.windows,
                    "runtime_call_ns": RUNTIME_CALL_NS, "machine_per_virtual": MACHINE_PER_VIRTUAL},
            notes=["A cell's rate is fuel units per CPU second of the calling thread (its "
                   "median's inverse is the ns per unit printed in ns_per_unit).",
                   f"The costliest metered loop takes {worst:.2f} ns per unit; the machine-time "
                   f"guard allows {MACHINE_PER_VIRTUAL:g} ns per unit (PROTOCOL §3)."],
            extra={"ns_per_unit": {k: round(v, 3) for k, v in rows.items()}})
        print(f"wrote {path}")
    del sides, as_given, metered  # free the stores and modules before the interpreter exits
    return 0


if __name__ == "__main__":
    sys.exit(main())
