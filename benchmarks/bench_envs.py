"""Steps/s of holdemjax's side games and pgx's, in interleaved windows of one process.

    python benchmarks/bench_envs.py [--envs kuhn_poker hex ...] [--batch 1024 4096]
                                    [--seconds 6] [--windows 7] [--out DIR] [--name NAME]
                                    [--no-write]

Every env id that both holdemjax's registry and pgx know is measured (so side games added to
both registries are included without editing this file). Both sides play random legal actions
(`holdemjax.act_randomly`) through the same reset wrapper (`holdemjax.auto_reset`) inside one
compiled ``lax.scan`` (`holdemjax.bench.JaxEnvSide`); each figure is the median of its windows.
Writes ``benchmarks/results/envs_vs_pgx.json`` (``--name``: another file name, e.g. ``go_vs_pgx``
for a run of some envs only; ``--no-write``: print only).

``--envpool``: envpool's C++ ports of the same games (`holdemjax.bench.EnvpoolSide`: its own
synchronous batch on every core, the same random policy) measured in the same interleaved
windows as a third side; the goal against it is to be at least as fast (``ENVPOOL_GOAL``).
``python benchmarks/bench_envs.py --envpool --batch 1024 --name envs_vs_envpool``.
"""

from __future__ import annotations

import argparse
import os
import sys

from holdemjax import bench
from holdemjax.registry import REGISTRY

#: Goal: at least this many times pgx's steps/s, at these batch sizes.
GOALS = {env: 1.5 for env in ("kuhn_poker", "tic_tac_toe", "hex", "connect_four", "othello",
                              "2048", "leduc_holdem")}
GOALS.update({"go_9x9": 3.0, "go_19x19": 3.0,  # issue 18
              "backgammon": 3.0, "gardner_chess": 3.0})  # issue 19
GOAL_BATCHES = (1024,)
#: Goal: at least envpool's steps/s (its C++ ports of the pgx games) on this CPU.
ENVPOOL_GOAL = 1.0


def shared_envs() -> list[str]:
    """Env ids in both registries, in holdemjax's order."""
    import pgx

    theirs = set(pgx.available_envs())
    return [e for e in REGISTRY if e in theirs]


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.table import Table

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", nargs="+", help="default: every env id pgx also has")
    ap.add_argument("--batch", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--seconds", type=float, default=6.0, help="run time per side and cell")
    ap.add_argument("--windows", type=int, default=7)
    ap.add_argument("--out", help="folder for the results file (default benchmarks/results)")
    ap.add_argument("--name", default="envs_vs_pgx", help="results file name, without .json")
    ap.add_argument("--no-write", action="store_true", help="print only; write no results file")
    ap.add_argument("--envpool", action="store_true",
                    help="also measure envpool's C++ port of each game (a third side)")
    args = ap.parse_args(argv)
    console = Console(width=max(Console().width, 120))
    load_before = os.getloadavg()
    envs = args.envs or shared_envs()
    cells, comparisons = [], []
    for env_id in envs:
        for batch in args.batch:
            ours, peer, *pool = bench.bench_env_cells(env_id, batch, args.seconds, True,
                                                      args.windows, envpool=args.envpool)
            # (a run with envpool judges the goal against envpool; the pgx goals are judged by
            # the run without it, envs_vs_pgx.json, so no goal is counted twice)
            goal = GOALS.get(env_id) if batch in GOAL_BATCHES and not args.envpool else None
            comp = bench.compare(f"{env_id} B={batch}", ours, peer, goal)
            cells += [ours, peer, *pool]
            comparisons.append(comp)
            console.print(f"{comp.key}: {ours.median:,.0f} / {peer.median:,.0f} steps/s = "
                          f"{comp.ratio:.2f}x (q1 {comp.q1:.2f})", highlight=False)
            for other in pool:
                vs = bench.compare(f"{env_id} B={batch} vs envpool", ours, other,
                                   ENVPOOL_GOAL if batch in GOAL_BATCHES else None)
                comparisons.append(vs)
                console.print(f"{vs.key}: {ours.median:,.0f} / {other.median:,.0f} steps/s = "
                              f"{vs.ratio:.2f}x (q1 {vs.q1:.2f})", highlight=False)
    path = None if args.no_write else bench.write_results(
        args.name, title="Side games vs pgx: steps/s under jit(vmap(scan(step)))",
        cells=cells, comparisons=comparisons, out_dir=args.out, load_before=load_before,
        params={"envs": envs, "batches": args.batch, "seconds": args.seconds,
                "windows": args.windows, "policy": "act_randomly", "reset": "auto_reset",
                "envpool": args.envpool})
    table = Table(title="steps/s, median of interleaved windows")
    for col in ("env", "batch", "holdemjax", "peer", "ratio", "rounds", "goal"):
        table.add_column(col, justify="right")
    for comp in comparisons:
        rr = comp.round_ratios
        table.add_row(comp.key.split(" B=")[0] + (" (envpool)" if "envpool" in comp.key else ""),
                      str(comp.ours.info["batch"]),
                      f"{comp.ours.median:,.0f}", f"{comp.peer.median:,.0f}",
                      f"{comp.ratio:.2f}x", f"{min(rr):.2f}-{max(rr):.2f}",
                      "" if comp.goal is None else
                      f">= {comp.goal}x {'met' if comp.met else 'NOT met'}")
    console.print(table)
    console.print(f"wrote {path}" if path else "no results file written (--no-write)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
