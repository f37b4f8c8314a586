"""The learner's design choices, measured: each checkpoint (a training run of one choice) played
greedily against five copies of an opponent by seat rotation on the same unseen deals, paired
with the passive bot in its seat; its config and training length read from the checkpoint.
Writes benchmarks/results/learner_choices.json.

    python benchmarks/learner_choices.py NAME=CHECKPOINT [NAME=CHECKPOINT ...] --deals 128
"""

from __future__ import annotations

import argparse
import json

from holdemjax.bench import core
from holdemjax.training import evaluate as ev
from holdemjax.training import panel
from holdemjax.training.learning_curve import paired_point


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", help="NAME=CHECKPOINT")
    p.add_argument("--deals", type=int, default=128)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--opponent", default="baseline")
    p.add_argument("--reference", default="passive")
    p.add_argument("--out", default=str(core.results_dir() / "learner_choices.json"))
    args = p.parse_args(argv)
    env = ev.make_env("sng-6")
    opp = panel.opponent(args.opponent, env)
    ref = ev.evaluate(panel.opponent(args.reference, env), deals=args.deals, seed=args.seed,
                      opponent=opp)
    rows = []
    for item in args.runs:
        name, path = item.split("=", 1)
        config, point = paired_point(path, opp, {args.reference: ref}, deals=args.deals,
                                     seed=args.seed)
        versus = point["versus"][args.reference]
        rows.append(dict(name=name, checkpoint=path, iteration=point["iteration"],
                         decisions=point["decisions"], config=config.to_dict(),
                         mean=point["mean"], se=point["se"], versus=versus))
        print(f"{name}: {point['mean']:.4f} ± {point['se']:.4f}; - {args.reference} "
              f"{versus['diff']:+.5f} ± {versus['se']:.5f}", flush=True)
    doc = dict(core.header("learner_choices", "The learner's design choices, paired"),
               opponent=args.opponent, reference=args.reference,
               reference_mean=ref.mean, deals=args.deals, deal_seed=args.seed, greedy=True,
               rows=rows)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
