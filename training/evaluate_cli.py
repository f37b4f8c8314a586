"""The evaluation command: ``python -m holdemjax.training.evaluate POLICY --opponent NAME ...``
plays a policy against the panel's line-ups (`holdemjax.training.panel`, each by
`holdemjax.training.evaluate.evaluate`), optionally a reference in its seat on the same deals,
and prints the cross-play table (a JSON record and a plot on request; docs/training.md)."""

from __future__ import annotations

import argparse
import functools
import json
import sys

from holdemjax import luck as holdemjax_luck
from holdemjax.bots import baseline, random_bot
from holdemjax.training import panel, ppo_checkpoint
from holdemjax.training.evaluate import ENV_IDS, make_env
from holdemjax.training.panel import OPPONENTS

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m holdemjax.training.evaluate",
        description="Mean tournament score of a policy against five copies of each opponent by "
                    "seat rotation on identical deals, as a cross-play table; z is against the "
                    "fair share 1/6 (docs/training.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("policy", help="a PPO checkpoint file, or 'baseline' / 'random' (the "
                                  "reference bots, as a check)")
    p.add_argument("--opponent", action="append", default=None, metavar="NAME",
                   help="an opponent line-up (repeatable; default: baseline): "
                        f"{', '.join(OPPONENTS)}, or a checkpoint path")
    p.add_argument("--versus", default=None, metavar="NAME",
                   help="also play this reference (an opponent name, e.g. passive, or a "
                        "checkpoint) in the policy's seat on the same deals of every line-up "
                        "and report the paired difference policy - reference, its SE and z")
    p.add_argument("--deals", type=int, default=1000, help="deals (6 tournaments each)")
    p.add_argument("--env", default=None, choices=ENV_IDS,
                   help="tournament env (default: the checkpoint's, else sng-6)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deal keys")
    p.add_argument("--chunk", type=int, default=128, help="deals played per batch")
    p.add_argument("--greedy", action="store_true",
                   help="play the network's most likely action instead of sampling")
    p.add_argument("--out", "--json", dest="out", default=None, metavar="PATH",
                   help="also write the cross-play table to this JSON file")
    p.add_argument("--plot", default=None, metavar="PATH",
                   help="also plot each line-up's score ± 2 SE to this PNG")
    p.add_argument("--luck", action="store_true",
                   help="also each line-up's score with the luck of the cards taken out "
                        "(holdemjax.luck: AIVAT's chance corrections under ICM; docs/luck.md)")
    p.add_argument("--luck-value", choices=("check-down", "critic", "rollout"),
                   default="check-down", help="with --luck: the value of the corrections "
                   "(rollout: the rest of each hand played out, slower; docs/luck.md)")
    p.add_argument("--rollouts", type=int, default=holdemjax_luck.ROLLOUTS,
                   help="with --luck-value rollout: completions played out a side of each event")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _load(args):
    """(policy fn, params or None, env id, luck value or None) of the CLI's arguments."""
    if args.luck_value != "check-down" and not args.luck:
        raise ValueError(f"--luck-value {args.luck_value} needs --luck")
    if args.policy in ("baseline", "random") and args.luck_value == "critic":
        raise ValueError(f"--luck-value critic needs a checkpoint's critic, not {args.policy}")
    if args.policy in ("baseline", "random"):
        env_id = args.env or "sng-6"
        bot = baseline.act if args.policy == "baseline" else random_bot.act
        return functools.partial(bot, make_env(env_id)), None, env_id, None
    params, config = ppo_checkpoint.load_checkpoint(args.policy)
    value = ppo_checkpoint.state_value(config) if args.luck_value == "critic" else None
    fn = ppo_checkpoint.policy(config, greedy=args.greedy)
    return fn, params, args.env or config.env_id, value


def main(argv=None) -> int:
    """Command-line entry point; returns an exit status (2: bad input, 130: interrupted)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    args = _parser().parse_args(argv)
    names = args.opponent or ["baseline"]
    versus = None
    console = Console(width=None if sys.stdout.isatty() else 120)  # the table's width in logs
    results = []
    try:
        fn, params, env_id, luck_value = _load(args)
        for name in names + ([args.versus] if args.versus else []):  # checked before running
            panel.opponent(name, make_env(env_id))
        with Progress("{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, disable=args.quiet,
                      transient=True) as bar:
            tasks = {n: bar.add_task(f"vs {n}", total=args.deals) for n in names}
            for name in names:
                results += panel.run_panel(
                    fn, params, [name], deals=args.deals, env_id=env_id, seed=args.seed,
                    chunk=args.chunk, luck=args.luck, luck_value=luck_value,
                    rollouts=args.rollouts if args.luck_value == "rollout" else 0,
                    progress=lambda n, done: bar.update(tasks[n], completed=done))
            if args.versus:
                refs = {n: bar.add_task(f"{args.versus} vs {n}", total=args.deals)
                        for n in names}
                versus = panel.run_versus(
                    args.versus, results, deals=args.deals, env_id=env_id, seed=args.seed,
                    chunk=args.chunk,
                    progress=lambda n, done: bar.update(refs[n], completed=done))
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted after {len(results)} of {len(names)} line-ups", file=sys.stderr)
        if not results:
            return 130
    for i, (name, r) in enumerate(results):
        print(f"vs {name}: {r.summary()}")
        if versus:
            v = versus[i]
            print(f"  - {v.reference} on the same deals ({v.mean:.4f}): {v.diff:+.5f} ± "
                  f"{v.se:.5f} (paired SE), z = {v.z:+.2f}")
    console.print(panel.table(results, title=f"{args.policy} ({env_id}, seed {args.seed})",
                              versus=versus))
    if args.out:
        about = dict(policy=args.policy, env_id=env_id, deals=args.deals, seed=args.seed,
                     greedy=args.greedy, reference=args.versus, command=" ".join(
                         ["python -m holdemjax.training.evaluate", *(argv or sys.argv[1:])]))
        text = json.dumps(panel.record(results, versus, **about), indent=1) + "\n"
        with open(args.out, "w", encoding="utf-8") as f:  # made first: never a cut file
            f.write(text)
    if args.plot:
        panel.plot(results, args.plot)
    complete = len(results) == len(names) and (not args.versus or versus is not None)
    return 0 if complete else 130


if __name__ == "__main__":
    sys.exit(main())
