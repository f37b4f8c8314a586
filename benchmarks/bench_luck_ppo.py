"""PPO with the luck taken out of its advantages (``--luck-out``, docs/luck.md; issue 38 point 5):
how much smaller the advantages' variance is than with the luck left in, on the same rollouts.

Runs the trainer of the tiers-only run of docs/training.md (passive prior, 60 % baseline tables
and 40 % tables of one reference tier, entropy 0.001, linear learning rate) with
``luck_out=True`` for ``--iterations`` iterations from its start and records, per iteration,
``adv_var`` (the advantages GAE computed from the rewards less each step's luck, the ones the
update used) and ``adv_var_luck_in`` (the same rollout's advantages with the luck left in).
Writes ``benchmarks/results/luck_ppo.json``.

    python benchmarks/bench_luck_ppo.py [--iterations 30] [--num-tables 256] [--out DIR]
                                        [--run-dir DIR]

It measures; it promises nothing about what a full run learns (that run is not here).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from holdemjax import bench
    from holdemjax.training import ppo

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--num-tables", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="folder for the results file (default benchmarks/results)")
    ap.add_argument("--run-dir", help="also keep the run there (metrics, checkpoint, plot)")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    config = ppo.Config(num_tables=args.num_tables, iterations=args.iterations, seed=args.seed,
                        prior="passive", opp_self=0.0, opp_pool=0.0, opp_baseline=0.6,
                        opp_panel=0.4, panel_bots=("beginner", "intermediate", "advanced"),
                        entropy_coef=0.001, lr_schedule="linear", luck_out=True)
    console = Console(highlight=False)
    _, records = ppo.train(config, args.run_dir, console=console, log_every=10)
    used = np.array([r["adv_var"] for r in records], np.float64)
    luck_in = np.array([r["adv_var_luck_in"] for r in records], np.float64)
    ratio = luck_in / used
    rows = [{"iteration": r["iteration"], "adv_var": r["adv_var"],
             "adv_var_luck_in": r["adv_var_luck_in"],
             "trained_decisions": r["trained_decisions"], "seconds": r["seconds"]}
            for r in records]
    doc = {**bench.header("luck_ppo", "PPO advantages with and without the luck taken out",
                          load_before=load_before),
           "kind": "luck_ppo", "config": config.to_dict(),
           "variance_ratio_mean": float(ratio.mean()),
           "variance_ratio_min": float(ratio.min()), "variance_ratio_max": float(ratio.max()),
           "sd_ratio_mean": float(np.sqrt(ratio).mean()),
           "compile_s": records[0]["compile_s"],
           "steps_per_s": records[-1]["env_steps"] / records[-1]["wall_s"], "iterations": rows,
           "notes": ["variance ratio = adv_var_luck_in / adv_var per iteration: the same "
                     "rollout's advantages with the luck left in over those with it taken out "
                     "(the ones the update used); only the rollouts' trained decisions"]}
    path = pathlib.Path(args.out or bench.results_dir()) / "luck_ppo.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(f"advantage variance {ratio.mean():.2f}x smaller on average "
                  f"({ratio.min():.2f}x .. {ratio.max():.2f}x); wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
