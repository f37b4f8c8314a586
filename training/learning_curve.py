"""The learning curve of learner runs (`holdemjax.training.learn`): each kept checkpoint
(``checkpoint-<iteration>.msgpack``) played greedily against five copies of an opponent by seat
rotation on deals the training never drew, paired with reference policies played in its seat
on the same deals (each reference once, whatever the number of checkpoints).

``python -m holdemjax.training.learning_curve RUN [RUN ...] --out curve.json --plot curve.png``
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

import numpy as np

from holdemjax.training import evaluate as ev
from holdemjax.training import panel, ppo, records

__all__ = ["REFERENCES", "kept_checkpoints", "paired_point", "curve", "plot", "main"]

#: The references every point is paired with: never putting a chip in, and the shipped policy.
REFERENCES = ("passive", "training/checkpoints/sng6_pushfold.msgpack")
_KEPT = re.compile(r"checkpoint-(\d+)\.msgpack$")


def kept_checkpoints(run) -> list[pathlib.Path]:
    """The kept checkpoints of a run folder, by iteration."""
    found = [(int(m.group(1)), p) for p in pathlib.Path(run).iterdir()
             if (m := _KEPT.search(p.name))]
    if not found:
        raise ValueError(f"{run}: no kept checkpoints (checkpoint-<iteration>.msgpack)")
    return [p for _, p in sorted(found)]


def paired_point(path, opponent, references: dict, *, deals: int, seed: int):
    """``(config, point)``: the checkpoint at ``path`` played greedily against five
    ``opponent``s (``act(state, key)``) on ``deals`` deals of ``seed``, its mean and SE, and
    its paired difference to each of ``references`` (name -> `EvalResult` on the same deals);
    the point carries the checkpoint's iteration, decisions and training seconds."""
    params, config = ppo.load_checkpoint(path)
    info = ppo.checkpoint_info(path)
    r = ev.evaluate(ppo.policy(config, greedy=True), params, deals=deals, seed=seed,
                    opponent=opponent)
    point = dict(iteration=info.get("iteration"), decisions=info.get("env_steps"),
                 train_s=info.get("train_s"), mean=r.mean, se=r.se, versus={})
    for name, ref in references.items():
        diff, se = ev.mean_se(r.per_deal - ref.per_deal)
        point["versus"][name] = dict(diff=diff, se=se, z=ev.z_score(diff, se))
    return config, point


def curve(runs, *, deals: int, seed: int, opponent: str = "baseline", references=REFERENCES,
          progress=None) -> dict:
    """Every kept checkpoint of every run, evaluated (greedy) against five ``opponent``s on
    ``deals`` deals of ``seed``, with its paired difference to each reference. JSON-able."""
    env = ev.make_env("sng-6")
    opp = panel.opponent(opponent, env)
    ref_results = {}
    for name in references:
        ref_results[name] = ev.evaluate(panel.opponent(name, env), deals=deals, seed=seed,
                                        opponent=opp)
        if progress:
            progress(f"reference {name}: {ref_results[name].mean:.4f}")
    out = []
    for run in runs:
        points = []
        for path in kept_checkpoints(run):
            config, point = paired_point(path, opp, ref_results, deals=deals, seed=seed)
            points.append(point)
            if progress:
                progress(f"{run} it {point['iteration']}: {point['mean']:.4f} ± "
                         f"{point['se']:.4f}")
        out.append(dict(run=str(run), seed=config.seed, points=points))
    return dict(records.run_header(), opponent=opponent, deals=deals, deal_seed=seed,
                greedy=True, references={k: dict(mean=v.mean, se=v.se)
                                         for k, v in ref_results.items()}, runs=out)


def plot(record: dict, path) -> pathlib.Path:
    """Score and paired margins against decisions, one line per run (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(record["references"])
    fig, axes = plt.subplots(1, 2 + len(names), figsize=(4.6 * (2 + len(names)), 3.8))
    for i, run in enumerate(record["runs"]):
        pts = run["points"]
        x = np.array([p["decisions"] for p in pts], float) / 1e6
        label = f"seed {run['seed']}"
        m, se = np.array([p["mean"] for p in pts]), np.array([p["se"] for p in pts])
        axes[0].errorbar(x, m, yerr=2 * se, color=f"C{i}", marker="o", ms=3, label=label)
        minutes = np.array([p["train_s"] for p in pts]) / 60
        axes[-1].errorbar(minutes, m, yerr=2 * se, color=f"C{i}", marker="o", ms=3,
                          label=label)
        for ax, name in zip(axes[1:-1], names, strict=True):
            d = np.array([p["versus"][name]["diff"] for p in pts])
            s = np.array([p["versus"][name]["se"] for p in pts])
            ax.errorbar(x, d, yerr=2 * s, color=f"C{i}", marker="o", ms=3, label=label)
    for name, ref in record["references"].items():
        for ax in (axes[0], axes[-1]):
            ax.axhline(ref["mean"], ls="--", lw=0.8, color="k")
            ax.annotate(pathlib.Path(name).stem, (0, ref["mean"]), fontsize=7)
    axes[0].set(xlabel="training decisions (millions)", ylabel="mean score (±2 SE)",
                title=f"greedy vs five {record['opponent']} bots")
    axes[-1].set(xlabel="training wall time (minutes, compile apart)",
                 ylabel="mean score (±2 SE)", title="the same, over wall time")
    for ax, name in zip(axes[1:-1], names, strict=True):
        ax.axhline(0, ls="--", lw=0.8, color="k")
        ax.set(xlabel="training decisions (millions)", ylabel="paired difference (±2 SE)",
               title=f"minus {pathlib.Path(name).stem}, same seat and deals")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = pathlib.Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    """Command-line entry point; returns an exit status."""
    import json

    p = argparse.ArgumentParser(prog="python -m holdemjax.training.learning_curve",
                                description="Learning curve of learner runs (docs/learner.md).")
    p.add_argument("runs", nargs="+", help="run folders of holdemjax.training.learn")
    p.add_argument("--deals", type=int, default=256, help="deals (6 tournaments each)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals")
    p.add_argument("--opponent", default="baseline", help="the five opponents")
    p.add_argument("--out", required=True, help="JSON record")
    p.add_argument("--plot", default=None, help="PNG of the curve")
    args = p.parse_args(argv)
    try:
        for run in args.runs:
            kept_checkpoints(run)
        record = curve(args.runs, deals=args.deals, seed=args.seed, opponent=args.opponent,
                       progress=print)
    except (ValueError, OSError) as err:
        print(f"holdemjax learning_curve: {err}", file=sys.stderr)
        return 2
    argv = sys.argv[1:] if argv is None else argv
    record["command"] = " ".join(["python -m holdemjax.training.learning_curve", *argv])
    pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    if args.plot:
        plot(record, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
