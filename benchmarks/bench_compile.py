"""Compile time of every env's init and step beside pgx's, in one process; writes
benchmarks/results/compile.json.

    python benchmarks/bench_compile.py [--envs sng-6,go_9x9] [--rounds 3] [--batch 1024]
                                       [--out DIR] [--name NAME]
    python benchmarks/bench_compile.py --quick --out /tmp     # smoke run: two small envs

For every env of the registry (``--envs``: some) and its pgx peer (the same game, or pgx's Go 9x9
for the hold'em formats, which pgx lacks), four programs: ``jit(vmap(init))`` and
``jit(vmap(step))`` at ``--batch``, and ``jit(init)``, ``jit(step)``. Each is timed as trace and
lower, then XLA compile, apart, with the ``fusion(`` and `` while(`` count of its compiled HLO
(`holdemjax.bench.compile`); every program is new to the process (caches cleared, fresh
functions, persistent cache off) and nothing runs. Ours then pgx's per env; the whole sweep
``--rounds`` times; each figure is the median of its rounds. Goals, on init + step batched:
a format at most ``FORMAT_GOAL`` times pgx Go 9x9's, a game pgx has at most ``SIDE_GOAL`` times
pgx's own. The machine should be quiet. Ctrl-C writes what was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

from holdemjax import bench
from holdemjax.registry import REGISTRY

#: Goal: a hold'em format's init + step (batched) at most this many times pgx Go 9x9's.
FORMAT_GOAL = 2.0
#: Goal: a game pgx has, at most this many times pgx's own.
SIDE_GOAL = 1.0
QUICK_ENVS = ("kuhn_poker", "tic_tac_toe")
TITLE = "Compile time: init and step, batched and unbatched, ours and pgx's"


def goal_of(env_id: str, peer: str) -> float | None:
    """`SIDE_GOAL` against pgx's own game, `FORMAT_GOAL` against Go 9x9 for a format."""
    if peer is None:
        return None
    return SIDE_GOAL if peer == env_id else FORMAT_GOAL


def measure(envs, rounds: int, batch: int, records: list, progress=None) -> list[dict]:
    """Run the sweep, appending each side's record to `records` as it is measured (so an
    interrupted run keeps them), and return the per-env summaries of what was measured."""
    task = None
    if progress is not None:
        sides = len(envs) + len({bench.pgx_peer_id(e) for e in envs} - {None})
        task = progress.add_task("compiling", total=rounds * sides * len(bench.PROGRAMS))

    def on_start(r, side, game):
        if progress is not None:
            progress.update(task, description=f"round {r + 1}/{rounds}: {side} {game}")

    def on_program(name, t):
        if progress is not None:
            progress.advance(task)

    for record in bench.sweep(envs, rounds, batch, on_start, on_program):
        records.append(record)
    return bench.summarize(records, envs, goal_of)


def document(records: list[dict], summary: list[dict], params: dict, complete: bool,
             load_before=None) -> dict:
    """The results file's contents: the header (date, machine, versions, command), the
    parameters, every record and the summaries."""
    return {**bench.header("compile", TITLE, load_before=load_before),
            "kind": "compile",
            "statistic": "median over rounds per program; ratio = ours / pgx of init + step "
                         "(lower + compile seconds); goal met when the ratio and the upper "
                         "quartile of the per-round ratios are at most the goal",
            "params": params, "complete": complete, "envs": summary, "records": records}


def _table(summary: list[dict]):
    from rich.table import Table

    table = Table(title="init + step compile seconds (lower + compile), median of rounds")
    for col in ("env", "init B", "step B", "pgx peer", "init B", "step B", "ratio", "goal",
                "unbatched ratio", "fusions step B (ours/pgx)"):
        table.add_column(col, justify="right")
    for row in summary:
        o, p = row["ours"], row["pgx"]
        goal = "" if row["goal"] is None else (
            f"<= {row['goal']}x {'met' if row['met'] else 'NOT met'}")
        table.add_row(row["env"], f"{o['init_batched']['total_s']:.2f}",
                      f"{o['step_batched']['total_s']:.2f}", row["peer"],
                      f"{p['init_batched']['total_s']:.2f}",
                      f"{p['step_batched']['total_s']:.2f}", f"{row['ratio']:.2f}x", goal,
                      f"{row['ratio_unbatched']:.2f}x",
                      f"{o['step_batched']['fusions']:.0f}/{p['step_batched']['fusions']:.0f}")
    return table


def _env_list(values) -> list[str]:
    envs = [e for v in values for e in v.split(",") if e]
    unknown = [e for e in envs if e not in REGISTRY]
    if unknown:
        raise SystemExit(f"unknown env ids: {unknown}")
    return envs


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.progress import Progress

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", nargs="+", help="env ids, space or comma separated "
                    "(default: the whole registry)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--out", help="folder for the results file (default benchmarks/results)")
    ap.add_argument("--name", default="compile", help="results file name, without .json")
    ap.add_argument("--quick", action="store_true",
                    help=f"smoke run: one round of {', '.join(QUICK_ENVS)}")
    args = ap.parse_args(argv)
    envs = _env_list(args.envs) if args.envs else list(REGISTRY)
    if args.quick:
        envs, args.rounds = (envs if args.envs else list(QUICK_ENVS)), 1
    console = Console(width=max(Console().width, 120))
    load_before = os.getloadavg()
    records: list[dict] = []
    complete = False
    try:
        with Progress(console=console) as progress:
            summary = measure(envs, args.rounds, args.batch, records, progress)
        complete = True
    except KeyboardInterrupt:
        console.print(f"interrupted: keeping the {len(records)} sides measured")
        summary = bench.summarize(records, envs, goal_of)
    params = {"envs": envs, "rounds": args.rounds, "batch": args.batch, "quick": args.quick,
              "programs": list(bench.PROGRAMS), "format_peer": bench.FORMAT_PEER,
              "format_goal": FORMAT_GOAL, "side_goal": SIDE_GOAL}
    doc = document(records, summary, params, complete, load_before)
    doc["name"] = args.name
    out = bench.results_dir() if args.out is None else pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{args.name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(_table(summary))
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
