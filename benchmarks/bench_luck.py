"""How much smaller AIVAT-style chance corrections (`holdemjax.luck`) make a verdict's standard
error: seat rotation (`holdemjax.duplicate.rotation`) of the baseline against random bots,
each deal's result with and without each hand's luck taken out, and plain play (the tested
policy in seat 0 only) likewise. Writes ``benchmarks/results/luck.json``.

    python benchmarks/bench_luck.py [--deals 2048] [--seed 3] [--out DIR]

The standard-error ratio is raw SE / corrected SE; the hands a verdict needs fall with its
square. The corrections' mean over the deals is reported with its own standard error (it
should be zero: the estimator is unbiased).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import sys
import time

import numpy as np


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from holdemjax import bench
    from holdemjax.duplicate import rotation

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", help="folder for the results file (default benchmarks/results)")
    args = ap.parse_args(argv)
    console = Console()
    load_before = os.getloadavg()
    policies = (rotation.BASELINE, rotation.RANDOM)
    t0 = time.perf_counter()
    with console.status(f"seat rotation with luck, {args.deals:,} deals"):
        out = rotation.play_rotations(policies, 0, 1, args.deals, args.seed, luck=True)
    seconds = time.perf_counter() - t0
    seats, big = out["net"].shape[1], 20
    rows = np.arange(seats)
    tested = out["net"][:, rows, rows].astype(np.float64)  # [deals, rotation]
    lk = out["luck"][:, rows, rows]
    per100 = 100 / big
    verdicts = []
    for name, raw, corrected in (
            ("rotation", tested.mean(1) * per100, (tested - lk).mean(1) * per100),
            ("plain", tested[:, 0] * per100, (tested[:, 0] - lk[:, 0]) * per100)):
        (m, se), (cm, cse) = _mean_se(raw), _mean_se(corrected)
        lm, lse = _mean_se(raw - corrected)
        verdicts.append({"setting": f"baseline vs random bots, {name}", "deals": args.deals,
                         "bb_per_100": m, "stderr": se, "corrected_bb_per_100": cm,
                         "corrected_stderr": cse, "se_ratio": se / cse,
                         "hands_saved": 1 - (cse / se) ** 2,
                         "luck_mean_bb_per_100": lm, "luck_mean_stderr": lse})
        console.print(f"{name}: {m:.1f} ± {se:.1f} bb/100 raw, {cm:.1f} ± {cse:.1f} corrected: "
                      f"SE {se / cse:.2f}x smaller; luck's mean {lm:.1f} ± {lse:.1f}")
    doc = {**bench.header("luck", "AIVAT-style chance corrections: standard errors with and "
                          "without", load_before=load_before),
           "kind": "luck", "params": {"deals": args.deals, "seed": args.seed, "seats": seats,
                                      "stack": 2000, "blinds": [10, 20, 0],
                                      "preflop_samples": 64},
           "seconds": seconds, "verdicts": verdicts,
           "notes": ["chance corrections only (the deal and every board card, chips as the "
                     "value); no action corrections yet; sit & go tournaments not measured "
                     "yet (issue 38)"]}
    path = pathlib.Path(args.out or bench.results_dir()) / "luck.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
