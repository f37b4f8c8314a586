"""A policy against the whole evaluation panel, paired with several references on the same
deals: the policy's line-ups are played once and each reference in its seat once per line-up
(`holdemjax.training.panel.run_panel`, `run_versus`); one `panel.record` per reference, the
format `python -m holdemjax.training.evaluate --out` writes.

    python benchmarks/learner_panel.py CHECKPOINT --greedy --deals 256 --seed 1 \
        --versus passive --versus training/checkpoints/sng6_pushfold.msgpack \
        --out benchmarks/results/panel_learned_greedy
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

from holdemjax.training import panel, ppo

OPPONENTS = ("baseline", "random", "passive", "allin", "beginner", "intermediate", "advanced",
             "training/checkpoints/sng6_example.msgpack")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoint")
    p.add_argument("--greedy", action="store_true")
    p.add_argument("--deals", type=int, default=256)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--versus", action="append", required=True)
    p.add_argument("--out", required=True, help="prefix: <out>_vs_<reference>.json")
    args = p.parse_args(argv)
    params, config = ppo.load_checkpoint(args.checkpoint)
    policy = ppo.policy(config, greedy=args.greedy)
    results = panel.run_panel(policy, params, OPPONENTS, deals=args.deals, seed=args.seed)
    for name, r in results:
        print(f"{name}: {r.summary()}", flush=True)
    command = "python benchmarks/learner_panel.py " + " ".join(argv or sys.argv[1:])
    for ref in args.versus:
        versus = panel.run_versus(ref, results, deals=args.deals, seed=args.seed)
        for (name, _), v in zip(results, versus, strict=True):
            print(f"  {name}: - {ref} {v.diff:+.5f} ± {v.se:.5f} (z {v.z:+.2f})", flush=True)
        record = panel.record(results, versus, policy=args.checkpoint, env_id=config.env_id,
                              deals=args.deals, seed=args.seed, greedy=args.greedy,
                              reference=ref, command=command)
        path = pathlib.Path(f"{args.out}_vs_{pathlib.Path(ref).stem}.json")
        path.write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
