"""The from-scratch learner: one command that learns `sng-6` from a policy with no poker
knowledge (issue 48; docs/learner.md).

It is PPO (`holdemjax.training.ppo`) with the choices that make the tournament learnable:

* a near-uniform first policy over the legal actions (a fresh network, no prior);
* a hand-level objective (``objective="hand-td"``, ``shaping="icm"``): a decision's advantage
  is its hand's change of the player's expected score under ICM plus the critic's value of
  the player's next decision, so a spot worth a few thousandths of a score is not drowned in
  the rest of the tournament's noise; the critic itself learns the whole tournament's value
  (its targets run to the tournament's end), which the ICM of the stacks misses;
* opponents of every style, drawn per tournament: mostly the baseline bot, the rest every bot
  of the evaluation panel, the shipped aggressive PPO example among them (docs/learner.md says
  what each mix measured);
* a table whose learner is out starts over at once (``stop_when_out``): its score is final.

``python -m holdemjax.training.learn --out DIR --seed S`` trains with `config(S)`, saves the
whole training state every `SAVE_EVERY` iterations and resumes from it when run again (bit for
bit), keeps a checkpoint every `KEEP_EVERY` iterations for the learning curve
(`holdemjax.training.learning_curve`), and stores the command, date and machine in every
checkpoint.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from holdemjax.training import ppo

__all__ = ["LEARNER", "SAVE_EVERY", "KEEP_EVERY", "config", "main"]

#: The learner's settings (seed 0); `config` gives another seed. Sized for a 2-core CPU:
#: 1,024 tables x 32 decisions an iteration, a small network, two PPO epochs.
LEARNER = ppo.Config(
    env_id="sng-6", num_tables=1024, rollout_steps=32, iterations=600, epochs=2,
    minibatches=4, learning_rate=5e-4, hidden=(64, 64), prior="uniform", entropy_coef=0.01,
    opp_self=0.0, opp_pool=0.0, opp_baseline=0.6, opp_panel=0.4,
    panel_bots=(*ppo.PANEL_BOTS, "example"), shaping="icm", objective="hand-td",
    stop_when_out=True)
SAVE_EVERY = 10  # iterations between saved training states (what a resumed run loses at most)
KEEP_EVERY = 50  # iterations between kept checkpoints (the learning curve's points)


def config(seed: int = 0, **changes) -> ppo.Config:
    """`LEARNER` with another ``seed`` (and any other field changed)."""
    return dataclasses.replace(LEARNER, seed=seed, **changes)


def main(argv=None) -> int:
    """Command-line entry point; returns an exit status."""
    p = argparse.ArgumentParser(
        prog="python -m holdemjax.training.learn",
        description="Learn sng-6 from scratch (PPO, hand-level ICM objective; "
                    "docs/learner.md). Run it again to resume where it stopped.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--out", required=True, help="run folder (state, checkpoints, metrics)")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--iterations", type=int, default=LEARNER.iterations,
                   help="iterations in all (a resumed run needs the same number)")
    p.add_argument("--num-tables", type=int, default=LEARNER.num_tables,
                   help="tables in parallel (a GPU takes 4,096 or more)")
    p.add_argument("--fresh", action="store_true",
                   help="start over even if the folder holds a saved state")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    try:
        cfg = config(args.seed, iterations=args.iterations, num_tables=args.num_tables)
    except ValueError as err:
        print(f"holdemjax learn: {err}", file=sys.stderr)
        return 2
    info = ppo.run_info(argv, prog="python -m holdemjax.training.learn")
    try:
        ppo.train(cfg, args.out, log_every=10, checkpoint_every=SAVE_EVERY,
                  keep_every=KEEP_EVERY, resume=not args.fresh, quiet=args.quiet,
                  run_info=info)
    except ValueError as err:  # a saved state of another config, a damaged file
        print(f"holdemjax learn: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
