"""Expectimax over 2048's chance API (`holdemjax.training.chance_search`) against the greedy and
random baselines: final scores over the same starting keys, with their significance.

    python benchmarks/bench_chance_search.py                  # the committed result
    python benchmarks/bench_chance_search.py --games 8 --json /tmp/c.json

Each policy plays ``--games`` games to their ends (game i of every policy starts from the same
key; the tiles then differ with the moves). The comparison of expectimax with each baseline is a
one-sided Mann-Whitney U test and a one-sided Welch t test on the final scores. Writes
``benchmarks/results/chance_search_2048.json``: date, machine (load average before and after),
versions, command, wall times, each policy's scores (mean, median, quartiles, the largest tiles)
and the tests.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import sys
import time

import jax
import numpy as np
from scipy import stats

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from holdemjax.bench.core import header, results_dir  # noqa: E402
from holdemjax.training import chance_search as cs  # noqa: E402

NAME = "chance_search_2048"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--depth", type=int, default=1, help="expectimax's moves of lookahead")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=pathlib.Path, default=None)
    args = p.parse_args(argv)
    load_before = os.getloadavg()
    start = time.perf_counter()
    policies = dict(cs.POLICIES)
    policies["expectimax"] = lambda s, k: cs.expectimax_action(s, k, depth=args.depth)
    results, scores = {}, {}
    for name, policy in policies.items():
        t = time.perf_counter()
        out = jax.device_get(cs.play(policy, args.games, jax.random.key(args.seed)))
        score = np.asarray(out["score"], np.float64)
        scores[name] = score
        tiles = collections.Counter(int(x) for x in out["max_tile"])
        results[name] = {
            "games": args.games, "mean": score.mean(), "std": score.std(ddof=1),
            "median": float(np.median(score)), "quartiles": np.percentile(score, [25, 75]).tolist(),
            "min": score.min(), "max": score.max(), "mean_moves": float(out["moves"].mean()),
            "max_tile_counts": {str(k): tiles[k] for k in sorted(tiles)},
            "wall_s": round(time.perf_counter() - t, 1)}
        print(name, json.dumps(results[name]))
    tests = {}
    for base in ("greedy", "random"):
        mw = stats.mannwhitneyu(scores["expectimax"], scores[base], alternative="greater")
        welch = stats.ttest_ind(scores["expectimax"], scores[base], equal_var=False,
                                alternative="greater")
        tests[f"expectimax_vs_{base}"] = {
            "mean_ratio": scores["expectimax"].mean() / scores[base].mean(),
            "mann_whitney_u": float(mw.statistic), "mann_whitney_p": float(mw.pvalue),
            "welch_t": float(welch.statistic), "welch_p": float(welch.pvalue)}
    doc = header(NAME, "Expectimax over 2048's chance outcomes against greedy and random",
                 load_before=load_before)
    doc.update({
        "params": {"games": args.games, "depth": args.depth, "seed": args.seed,
                   "empty_weight": cs.EMPTY_WEIGHT, "merge_weight": cs.MERGE_WEIGHT},
        "policies": {
            "expectimax": (f"depth {args.depth}: each legal slide's merge reward plus the "
                           "expectation over env.chance_outcomes of its afterstate "
                           "(env.step_deterministic, env.chance_step) of the next position's "
                           "value; leaf = empty cells and equal neighbours"),
            "greedy": "the legal slide with the largest merge reward, ties at random",
            "random": "a uniform legal slide"},
        "statistic": "final score = sum of the game's rewards; one-sided tests, expectimax > "
                     "baseline",
        "results": results, "tests": tests,
        "wall_s": round(time.perf_counter() - start, 1)})
    out = args.json or results_dir() / f"{NAME}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, default=float) + "\n")
    print(json.dumps(tests, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
