"""What mattered in the searched push/fold policy: its parts, paired with the passive bot against
five baselines on held-out deals (docs/training.md, "A policy that wins").

    python benchmarks/push_fold_ablation.py training/checkpoints/sng6_pushfold.msgpack \
        --deals 2000 --seed 2 --out benchmarks/results/push_fold_ablation.json

Rows (each against five copies of the opponent, the same deals, the policy in each seat once):
the searched thresholds (the checkpoint's ``teacher``), the same with only the heads-up spots
(every other spot passive), with every spot but the heads-up ones, and the distilled network
itself (greedy and sampling). Each is reported as its mean score and its paired difference with
the passive bot (the per-deal difference's mean, SE and z). Seed 2: deals that neither the
search (seeds 1000 + ...) nor the panel records (seed 1) use.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import jax.numpy as jnp
import numpy as np
from rich.console import Console
from rich.table import Table

from holdemjax.training import evaluate as ev
from holdemjax.training import panel, ppo, push_fold, records


def rows(params, config, teacher: np.ndarray) -> list[tuple[str, object, object]]:
    """(name, policy(params, state, key), params) of each row."""
    heads_up = np.isin(np.arange(push_fold.NUM_PARAMS), push_fold.HEADS_UP)
    teacher = jnp.asarray(teacher, jnp.int32)
    env = ev.make_env(config.env_id)
    act = push_fold.policy(env)
    return [
        ("searched thresholds", act, teacher),
        ("heads-up spots only", act, jnp.where(heads_up, teacher, 0)),
        ("all but heads-up", act, jnp.where(heads_up, 0, teacher)),
        ("distilled network, greedy", ppo.policy(config, greedy=True), params),
        ("distilled network, sampling", ppo.policy(config), params),
    ]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--opponent", default="baseline", choices=panel.OPPONENTS)
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    teacher = np.asarray(ppo.checkpoint_info(args.checkpoint)["teacher"], np.int32)
    params, config = ppo.load_checkpoint(args.checkpoint)
    env = ev.make_env(config.env_id)
    bot = panel.opponent(args.opponent, env)
    console = Console()

    def play(fn, params):
        return ev.evaluate(fn, params, deals=args.deals,
                           seed=args.seed, env_id=config.env_id, opponent=bot)

    reference = play(panel.opponent("passive", env), None)
    console.print(f"passive: {reference.summary()}")
    out = []
    for name, fn, row_params in rows(params, config, teacher):
        r = play(fn, row_params)
        diff, se = ev.mean_se(r.per_deal - reference.per_deal)
        out.append(dict(name=name, mean=r.mean, se=r.se, diff=diff, diff_se=se,
                        z=ev.z_score(diff, se), illegal=r.illegal, unfinished=r.unfinished,
                        seconds=r.seconds))
        console.print(f"{name}: {r.mean:.4f}, {diff:+.5f} ± {se:.5f} vs passive")
    t = Table(title=f"paired with passive, five {args.opponent} bots, {args.deals:,} deals, "
                    f"seed {args.seed}")
    for col in ("policy", "mean", "- passive (paired)", "z"):
        t.add_column(col, justify="left" if col == "policy" else "right")
    for r in out:
        t.add_row(r["name"], f"{r['mean']:.4f}", f"{r['diff']:+.5f} ± {r['diff_se']:.5f}",
                  f"{r['z']:+.2f}")
    console.print(t)
    if args.out:
        record = dict(command=" ".join(["python benchmarks/push_fold_ablation.py",
                                        *(argv if argv is not None else sys.argv[1:])]),
                      checkpoint=args.checkpoint, teacher=teacher.tolist(),
                      opponent=args.opponent, deals=args.deals, seed=args.seed,
                      passive=dict(mean=reference.mean, se=reference.se), rows=out,
                      **records.run_header())
        pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
