"""Decisions/s of whole `sng-6` tournaments against OpenSpiel's six-max full game, one run.

    python benchmarks/bench_sng.py [--env sng-6] [--batch 1 64 1024 4096] [--seconds 8]
                                   [--windows 7] [--out DIR]

Ours: random legal menu actions (`holdemjax.act_randomly`) with `holdemjax.auto_reset` under
``jit(scan(vmap(step)))``: deals, eliminations, blind levels and ICM all inside `step`. The peer:
OpenSpiel's ``universal_poker`` full game at the same seats, stacks and first blinds, one hand at
a time, driven with O(1) Python per decision and the same policy shape (fold / check-call /
seven raise slots, each a uniformly drawn legal raise-to: `holdemjax.bench.play_openspiel`).
The two run in interleaved windows at each batch size; figures are medians of windows. Writes
``benchmarks/results/sng_vs_openspiel.json`` (``sng_vs_openspiel-<env>.json`` for another env).
"""

from __future__ import annotations

import argparse
import os
import sys

from holdemjax import bench

#: Goal: at least this many times OpenSpiel's decisions/s, by batch size.
GOALS = {4096: 20.0, 64: 5.0}


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="sng-6")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 4096])
    ap.add_argument("--seconds", type=float, default=8.0, help="run time per side and batch")
    ap.add_argument("--windows", type=int, default=7)
    ap.add_argument("--out", help="folder for the results file (default benchmarks/results)")
    args = ap.parse_args(argv)
    if not bench.openspiel_available():
        print("OpenSpiel is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    console = Console(width=max(Console().width, 120))
    load_before = os.getloadavg()
    cells, comparisons = [], []
    for batch in args.batch:
        ours, peer = bench.bench_env_cells(args.env, batch, args.seconds, True, args.windows)
        comp = bench.compare(f"{args.env} B={batch}", ours, peer,
                             GOALS.get(batch) if args.env == "sng-6" else None)
        cells += [ours, peer]
        comparisons.append(comp)
        console.print(f"{comp.key}: {ours.median:,.0f} decisions/s "
                      f"({ours.rate_of('episodes'):,.1f} tournaments/s), OpenSpiel "
                      f"{peer.median:,.0f}: {comp.ratio:.2f}x (q1 {comp.q1:.2f}); compile "
                      f"{ours.compile_s:.1f} s; {ours.info.get('fusions')} fusions, "
                      f"{ours.info.get('whiles')} while loops per step program", highlight=False)
    name = "sng_vs_openspiel" + ("" if args.env == "sng-6" else f"-{args.env}")
    path = bench.write_results(
        name, title=f"{args.env} tournaments vs OpenSpiel universal_poker (full game)",
        cells=cells, comparisons=comparisons, out_dir=args.out, load_before=load_before,
        params={"env": args.env, "batches": args.batch, "seconds": args.seconds,
                "windows": args.windows, "openspiel_policy":
                f"fold / check-call / {bench.RAISE_SLOTS_MENU} raise slots"},
        notes=["OpenSpiel plays single hands at the format's first blinds and full stacks; "
               "ours plays whole tournaments (rising blinds, eliminations, ICM)."])
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
