"""Value functions for the luck (`holdemjax.luck`, docs/luck.md): how much of a sit & go
verdict's standard error AIVAT's chance terms take out under the check-down value, the shipped
network's critic, and rollouts of the rest of the hand by the known bots.

On ``sng-6``, the same games for every value:

* six baselines, and one random bot against five baselines (`bots.play(..., luck=True)`):
  the check-down corrections, and rollouts (``rollouts=N``, `holdemjax.luck.rollout`: every
  deal and board card, the rest of the hand played out by the line-up's bots with keys of the
  luck's own, N paired completions a side);
* the shipped policy (``training/checkpoints/sng6_example.msgpack``, sampling) against five
  baselines, seat rotation (`training.evaluate(..., luck=True)`): the check-down corrections,
  the chance terms under the network's critic (``luck_value=ppo.state_value(config)``,
  `holdemjax.luck.chance_term` through the env's chance split: each step's first board card)
  and rollouts by the policy and the baselines.

Writes ``benchmarks/results/luck_learned.json``.

    python benchmarks/bench_luck_learned.py [--deals 128] [--tournaments 256]
                                            [--rollouts 8 32] [--seed 3] [--out DIR]
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

SHIPPED = "training/checkpoints/sng6_example.msgpack"


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def _shipped_row(deals: int, rollouts: int, seed: int, console) -> dict:
    from holdemjax.training import evaluate as ev
    from holdemjax.training import ppo

    params, config = ppo.load_checkpoint(pathlib.Path(__file__).resolve().parents[1] / SHIPPED)
    act = ppo.policy(config)
    row = {"setting": f"sng-6, the shipped policy ({SHIPPED}, sampling) vs five baselines, "
                      "seat rotation (training.evaluate)", "deals": deals,
           "tournaments": 6 * deals, "values": {}}
    for name, value, count in (("check-down", None, 0), ("critic", ppo.state_value(config), 0),
                               (f"rollouts {rollouts}", None, rollouts)):
        t0 = time.perf_counter()
        r = ev.evaluate(act, params, deals=deals, seed=seed, chunk=min(64, deals), luck=True,
                        luck_value=value, rollouts=count)
        total = r.luck.sum(axis=2).mean(axis=1)
        lm, lse = _mean_se(total)
        row.update(score=r.mean, stderr=r.se)
        row["values"][name] = {"corrected_score": r.corrected_mean,
                               "corrected_stderr": r.corrected_se,
                               "se_ratio": r.se / r.corrected_se, "luck_mean": lm,
                               "luck_mean_stderr": lse, "seconds": time.perf_counter() - t0}
        console.print(f"shipped policy vs baselines, {name}: {r.mean:.4f} ± {r.se:.4f} raw, "
                      f"{r.corrected_mean:.4f} ± {r.corrected_se:.4f} corrected "
                      f"({r.se / r.corrected_se:.2f}x)")
    return row


def _lineup_rows(tournaments: int, rollouts: tuple, seed: int, console) -> list[dict]:
    """`bots.play` of the same ``tournaments`` sit & gos per line-up with the check-down
    corrections (its action terms too) and with rollouts (each count in ``rollouts``)."""
    import jax

    import holdemjax
    from holdemjax.bots import BOTS, play

    env = holdemjax.make("sng-6")
    ids = {name: i for i, name in enumerate(BOTS)}
    rows = []
    for name, lineup in (("six baselines", ["baseline"] * 6),
                         ("random vs five baselines", ["random"] + ["baseline"] * 5)):
        row = {"setting": f"sng-6, {name} (bots.play)", "tournaments": tournaments,
               "values": {}}
        for count in (0, *rollouts):
            t0 = time.perf_counter()
            out = jax.device_get(play(env, jax.random.key(seed), tournaments,
                                      np.array([ids[b] for b in lineup]), luck=True,
                                      rollouts=count))
            scores = np.asarray(out["scores"], np.float64)
            lk = np.asarray(out["luck_by_event"], np.float64)
            raw = scores.std(axis=0, ddof=1) / math.sqrt(tournaments)
            cor = (scores - lk.sum(axis=1)).std(axis=0, ddof=1) / math.sqrt(tournaments)
            total = lk.sum(axis=1)
            z = total.mean(axis=0) / (total.std(axis=0, ddof=1) / math.sqrt(tournaments))
            ratio = raw / cor
            value = "check-down" if count == 0 else f"rollouts {count}"
            row["values"][value] = {
                "stderr": raw.tolist(), "corrected_stderr": cor.tolist(),
                "se_ratio_per_slot": ratio.tolist(), "se_ratio_mean": float(ratio.mean()),
                "luck_mean_z": z.tolist(), "seconds": time.perf_counter() - t0}
            console.print(f"{name}, {value}: SE ratio per slot "
                          + ", ".join(f"{r:.2f}" for r in ratio)
                          + f" (mean {ratio.mean():.2f}x), {time.perf_counter() - t0:.0f} s")
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from holdemjax import bench

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=128, help="deals of the critic row (x6 games)")
    ap.add_argument("--tournaments", type=int, default=256,
                    help="sit & gos of each bots.play line-up")
    ap.add_argument("--rollouts", type=int, nargs="+", default=[8, 32],
                    help="completions a side of the rollout runs (the last also in the "
                         "shipped policy's row)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", help="folder for the results file (default benchmarks/results)")
    args = ap.parse_args(argv)
    console = Console(highlight=False)
    load_before = os.getloadavg()
    with console.status("bots.play line-ups"):
        lineups = _lineup_rows(args.tournaments, tuple(args.rollouts), args.seed, console)
    with console.status("the shipped policy: check-down, critic, rollouts"):
        shipped = _shipped_row(args.deals, args.rollouts[-1], args.seed, console)
    doc = {**bench.header("luck_learned", "the luck's value functions: check-down, the "
                          "critic, rollouts", load_before=load_before),
           "kind": "luck_learned", "params": vars(args) | {"env": "sng-6"},
           "rows": [*lineups, shipped],
           "notes": ["se_ratio = raw SE / corrected SE on the same games; luck_mean_z: each "
                     "slot's mean luck over its standard error (unbiased: within a few)",
                     "check-down: the deal and every board card under the check-down value "
                     "(bots.play: and the bots' action terms); critic: the chance term of each "
                     "step's first board card (the env's chance event) under the network's "
                     "critic, no deal term; rollouts N: every deal and board card under the "
                     "rest of the hand played out by the line-up, N paired completions a "
                     "side, no action terms",
                     "seconds include each program's compile; the machine has 2 cores"]}
    path = pathlib.Path(args.out or bench.results_dir()) / "luck_learned.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
