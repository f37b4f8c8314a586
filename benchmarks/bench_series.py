"""Wall time of a series of six bundled baselines, with the engine / wasm / host split, and the
standard errors of series-1000 against theory (0.114 / sqrt(n)).

    python benchmarks/bench_series.py                       # series-100, one process
    python benchmarks/bench_series.py --variant series-1000 --workers 2

Prints a markdown table. The first run in a process includes the engine's compile (reported).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

import numpy as np


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="series-100")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)

    from holdemjax.poker.structure import SNG_PAYOUTS
    from holdemjax.series import results as R
    from holdemjax.series import runner
    from holdemjax.series.policies import bundled
    from holdemjax.series.wasm import load_policy, wasmtime_version

    t0 = time.perf_counter()
    policies = [load_policy(bundled("baseline")) for _ in range(6)]
    series = runner.run_series(policies, variant=args.variant, seed=args.seed, max_wall=None,
                               workers=args.workers)
    wall = time.perf_counter() - t0
    doc = R.summarize(series)
    decisions = sum(len(h["actions"]) for t in series.tournaments for h in t["hands"])
    hands = sum(len(t["hands"]) for t in series.tournaments)
    n = doc["tournaments_played"]
    theory = float(np.std(SNG_PAYOUTS)) / math.sqrt(n)
    tm = doc["timing"]
    print(f"wasmtime {wasmtime_version()} | {platform.platform()} | {os.cpu_count()} CPUs | "
          f"workers {args.workers}\n")
    print("| measure | value |\n|---|---:|")
    print(f"| {args.variant}: tournaments / hands / decisions | {n:,} / {hands:,} / "
          f"{decisions:,} |")
    print(f"| wall time (compile included) | {wall:.1f} s |")
    print(f"| engine / wasm / host (summed over blocks) | {tm['engine_s']:.1f} / "
          f"{tm['policy_s']:.1f} / {tm['host_s']:.1f} s |")
    print(f"| standard error per slot (theory {theory:.4f}) | "
          + ", ".join(f"{s['stderr']:.4f}" for s in doc["slots"]) + " |")
    print("| scores | " + ", ".join(f"{s['score']:.4f}" for s in doc["slots"]) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
