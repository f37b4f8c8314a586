"""The pre-flop explorer's timing (docs/explore.md): for each policy, the first grid (its one
program compiled) and the median of repeated grid calls at depths 0, 2 and 8 (every call
computes all 9 x 1,326 states; the depth changes only which are read).

    python benchmarks/bench_explore.py [--repeats N] [--policies NAME ...]

writes benchmarks/results/explore.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from holdemjax.bench import header, results_dir
from holdemjax.training import explore_policy
from holdemjax.training.explore import Explorer, Stage

SEQUENCES = {0: [], 2: ["fold", "raise_0.75_pot"],
             8: ["fold", "raise_0.75_pot", "call", "call", "call", "raise_2_pot", "call", "call"]}


def measure(name: str, repeats: int) -> dict:
    explorer = Explorer(explore_policy.load(name))
    began = time.perf_counter()
    first = explorer.grid(Stage(), [])
    row = {"policy": name, "exact": first.exact, "samples": first.samples,
           "first_call_s": round(time.perf_counter() - began, 3)}
    for depth, actions in SEQUENCES.items():
        runs = [explorer.grid(Stage(), actions).seconds for _ in range(repeats)]
        row[f"depth_{depth}_median_ms"] = round(1000 * statistics.median(runs), 2)
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--policies", nargs="+", default=["baseline", "learned", "beginner"])
    args = p.parse_args(argv)
    load_before = os.getloadavg()
    rows = [measure(name, args.repeats) for name in args.policies]
    doc = header("explore", "the pre-flop explorer: one program per policy, a grid per call",
                 load_before=load_before)
    doc.update(states_per_call=9 * 1326, stage="50 BB, level 1, six players", rows=rows)
    path = results_dir() / "explore.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    for row in rows:
        print(row)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
