"""How much smaller AIVAT-style chance and action corrections (`holdemjax.luck`) make a
verdict's standard error: seat rotation (`holdemjax.duplicate.rotation`) of the baseline
against random bots, each deal's result with and without each hand's luck taken out, and
plain play (the tested policy in seat 0 only) likewise; then whole ``sng-6`` sit & go
tournaments, each tournament's score with and without its luck
(`holdemjax.bots.play(..., luck=True)`: `holdemjax.luck.step_luck` beside every step, ICM of
the stacks, the bots' action corrections; without them too): six baselines (every slot's SE),
one random bot against five baselines, seat rotation of the baseline against random bots
through `training.evaluate(..., luck=True)`, and the shipped policy against every table of the
evaluation panel (`training.panel.run_panel(..., luck=True)`). Writes
``benchmarks/results/luck.json``.

    python benchmarks/bench_luck.py [--deals 2048] [--tournaments 512] [--rotation-deals 64]
                                    [--panel-deals 64] [--seed 3] [--out DIR]

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


def _sng_rows(tournaments: int, seed: int, console) -> list[dict]:
    """The sit & go verdicts: `holdemjax.bots.play` of ``tournaments`` ``sng-6`` games per
    line-up with ``luck``, each slot's mean score raw and corrected ± SE, the luck by event."""
    import jax

    import holdemjax
    from holdemjax import luck
    from holdemjax.bots import BOTS, play

    env = holdemjax.make("sng-6")
    rows = []
    ids = {name: i for i, name in enumerate(BOTS)}
    for name, lineup in (("six baselines", ["baseline"] * 6),
                         ("random vs five baselines", ["random"] + ["baseline"] * 5)):
        t0 = time.perf_counter()
        out = jax.device_get(play(env, jax.random.key(seed), tournaments,
                                  np.array([ids[b] for b in lineup]), luck=True))
        seconds = time.perf_counter() - t0
        scores = np.asarray(out["scores"], np.float64)
        lk = np.asarray(out["luck_by_event"], np.float64)
        corrected = scores - lk.sum(axis=1)
        chance = scores - lk[:, :luck.ACTION_EVENT].sum(axis=1)  # without the action terms
        slots = []
        for p, bot in enumerate(lineup):
            (m, se), (cm, cse) = _mean_se(scores[:, p]), _mean_se(corrected[:, p])
            chance_se = _mean_se(chance[:, p])[1]
            slots.append({"player": p, "bot": bot, "score": m, "stderr": se,
                          "corrected_score": cm, "corrected_stderr": cse, "se_ratio": se / cse,
                          "chance_only_stderr": chance_se, "chance_only_se_ratio": se / chance_se})
        ratios = [s["se_ratio"] for s in slots]
        events = {}
        for e, event in enumerate(luck.EVENTS):
            pairs = [_mean_se(lk[:, e, p]) for p in range(len(lineup))]
            events[event] = {"mean": [m for m, _ in pairs], "stderr": [s for _, s in pairs]}
        row = {"setting": f"sng-6, {name}", "tournaments": tournaments, "slots": slots,
               "se_ratio_mean": float(np.mean(ratios)), "se_ratio_min": float(min(ratios)),
               "chance_only_se_ratio_mean": float(np.mean([s["chance_only_se_ratio"]
                                                           for s in slots])),
               "tournaments_saved": 1 - 1 / float(np.mean(ratios)) ** 2,
               "luck_by_event": events, "seconds": seconds}
        rows.append(row)
        console.print(f"sng-6, {name}: SE ratio per slot "
                      + ", ".join(f"{r:.2f}" for r in ratios)
                      + f" (mean {row['se_ratio_mean']:.2f}x; chance corrections alone "
                      f"{row['chance_only_se_ratio_mean']:.2f}x), {seconds:.0f} s")
    return rows


def _rotation_row(deals: int, seed: int, console) -> dict:
    """The evaluation path: `training.evaluate` (seat rotation on identical deals) of the
    baseline against five random bots on ``sng-6`` with ``luck``."""
    import functools

    from holdemjax import luck
    from holdemjax.bots import baseline, random_bot
    from holdemjax.training import evaluate as ev

    env = ev.make_env("sng-6")
    t0 = time.perf_counter()
    r = ev.evaluate(functools.partial(baseline.act, env), deals=deals, seed=seed, chunk=64,
                    opponent=functools.partial(random_bot.act, env), luck=True,
                    actions=True)
    seconds = time.perf_counter() - t0
    # evaluate(luck=True) corrects the chance events (its default); the action terms of both
    # bots (actions=True, the "actions" row) are reported beside: here they add variance.
    chance = (r.scores - r.luck[..., :luck.ACTION_EVENT].sum(axis=2)).mean(axis=1)
    (cm, cse), (lm, lse) = _mean_se(chance), _mean_se(r.per_deal - chance)
    am, ase = _mean_se(r.luck[..., luck.ACTION_EVENT].mean(axis=1))
    row = {"setting": "sng-6, baseline vs five random bots, seat rotation (training.evaluate)",
           "deals": deals, "tournaments": r.tournaments, "score": r.mean, "stderr": r.se,
           "corrected_score": cm, "corrected_stderr": cse, "se_ratio": r.se / cse,
           "luck_mean": lm, "luck_mean_stderr": lse,
           "with_actions_score": r.corrected_mean, "with_actions_stderr": r.corrected_se,
           "with_actions_se_ratio": r.se / r.corrected_se,
           "action_luck_mean": am, "action_luck_mean_stderr": ase, "seconds": seconds}
    console.print(f"{row['setting']}: {r.mean:.4f} ± {r.se:.4f} raw, {cm:.4f} ± {cse:.4f} "
                  f"corrected: SE {row['se_ratio']:.2f}x smaller; with the action terms "
                  f"{r.corrected_se:.4f} ({row['with_actions_se_ratio']:.2f}x)")
    return row


SHIPPED = "training/checkpoints/sng6_example.msgpack"


def _panel_row(deals: int, seed: int, console) -> dict:
    """The shipped policy (``SHIPPED``, sampling: the trained network's own distribution)
    against the evaluation panel (`training.panel.run_panel`: five copies of each opponent,
    seat rotation on identical deals) with ``luck``: each table's score raw and corrected."""
    from holdemjax.training import panel, ppo

    params, config = ppo.load_checkpoint(pathlib.Path(__file__).resolve().parents[1] / SHIPPED)
    t0 = time.perf_counter()
    results = panel.run_panel(ppo.policy(config, greedy=False), params, panel.OPPONENTS,
                              deals=deals, seed=seed, chunk=min(64, deals), luck=True)
    tables = []
    for name, r in results:
        tables.append({"opponent": name, "score": r.mean, "stderr": r.se,
                       "corrected_score": r.corrected_mean, "corrected_stderr": r.corrected_se,
                       "se_ratio": r.se / r.corrected_se})
        console.print(f"shipped policy vs five {name}: {r.mean:.4f} ± {r.se:.4f} raw, "
                      f"{r.corrected_mean:.4f} ± {r.corrected_se:.4f} corrected "
                      f"({r.se / r.corrected_se:.2f}x)")
    ratios = [t["se_ratio"] for t in tables]
    return {"setting": f"sng-6, the shipped policy ({SHIPPED}, sampling) vs the panel, "
                       "seat rotation (training.panel)", "deals": deals,
            "tournaments": 6 * deals, "tables": tables,
            "se_ratio_mean": float(np.mean(ratios)), "se_ratio_min": float(min(ratios)),
            "seconds": time.perf_counter() - t0}


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from holdemjax import bench
    from holdemjax.duplicate import rotation

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2048)
    ap.add_argument("--tournaments", type=int, default=512,
                    help="sit & go tournaments per line-up (played in one batch)")
    ap.add_argument("--rotation-deals", type=int, default=64,
                    help="deals of the evaluate row (six rotated tournaments each)")
    ap.add_argument("--panel-deals", type=int, default=64,
                    help="deals of each panel table of the shipped policy (six tournaments each)")
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
    with console.status(f"sit & go tournaments with luck, {args.tournaments:,} per line-up"):
        t1 = time.perf_counter()
        sng = _sng_rows(args.tournaments, args.seed, console)
        sng.append(_rotation_row(args.rotation_deals, args.seed, console))
        sng.append(_panel_row(args.panel_deals, args.seed, console))
        sng_seconds = time.perf_counter() - t1
    doc = {**bench.header("luck", "AIVAT-style chance and action corrections: standard errors "
                          "with and without", load_before=load_before),
           "kind": "luck", "params": {"deals": args.deals, "seed": args.seed, "seats": seats,
                                      "stack": 2000, "blinds": [10, 20, 0],
                                      "preflop_samples": 64,
                                      "tournaments": args.tournaments, "sng_env": "sng-6",
                                      "rotation_deals": args.rotation_deals,
                                      "panel_deals": args.panel_deals},
           "seconds": seconds, "verdicts": verdicts,
           "sng_seconds": sng_seconds, "sng": sng,
           "notes": ["hold'em rows: chance corrections (the deal and every board card, chips "
                     "as the value); sit & go rows: chance corrections under the tournament's "
                     "value (places of the seats a hand busts, ICM of the others) plus the "
                     "action corrections of every bot (bots.play: both bots' exact "
                     "probabilities; check-down values, every raise worth the call), "
                     "chance_only_* without them; the seat-rotation row: evaluate's default "
                     "(chance corrections), with_actions_* with both bots' action terms; the "
                     "panel row: chance corrections (the network's action terms not computed)",
                     "sit & go seconds include compiling the batched program once (first "
                     "line-up); the machine is shared (see load_average)"]}
    path = pathlib.Path(args.out or bench.results_dir()) / "luck.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
