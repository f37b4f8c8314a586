"""Head to head: one policy against five copies of another and the reverse, both played
greedily (or both sampled), by seat rotation on the same unseen deals; each side's mean score
against the fair share 1/6. Writes one JSON record.

    python benchmarks/learner_h2h.py A.msgpack B.msgpack --greedy --deals 256 --seed 1 \
        --out benchmarks/results/learner_head_to_head.json
"""

from __future__ import annotations

import argparse
import json
import sys

from holdemjax.training import evaluate as ev
from holdemjax.training import ppo, records


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--greedy", action="store_true")
    p.add_argument("--deals", type=int, default=256)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    sides = {}
    for path in (args.a, args.b):
        params, config = ppo.load_checkpoint(path)
        fn = ppo.policy(config, greedy=args.greedy)
        sides[path] = (fn, params)
    rows = []
    for me, them in ((args.a, args.b), (args.b, args.a)):
        fn, params = sides[me]
        ofn, oparams = sides[them]
        r = ev.evaluate(fn, params, deals=args.deals, seed=args.seed,
                        opponent=lambda s, k, ofn=ofn, oparams=oparams: ofn(oparams, s, k))
        rows.append(dict(policy=me, opponent=them, mean=r.mean, se=r.se, z=r.z,
                         tournaments=r.tournaments, illegal=r.illegal,
                         unfinished=r.unfinished))
        print(f"{me} vs five {them}: {r.summary()}", flush=True)
    doc = dict(records.run_header(), command=" ".join(
        ["python benchmarks/learner_h2h.py", *(argv or sys.argv[1:])]), greedy=args.greedy,
        deals=args.deals, seed=args.seed, fair_share=1 / 6,
        z="(mean - 1/6) / SE over deals", rows=rows)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
