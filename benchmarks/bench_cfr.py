"""CFR+ wall time, ours against OpenSpiel's, on the same iterations in one process; and a
log-log convergence plot of our three algorithms.

    python benchmarks/bench_cfr.py                       # the table in docs/cfr.md + the plot
    python benchmarks/bench_cfr.py --env kuhn_poker --iterations 1000 --no-plot
    python benchmarks/bench_cfr.py --peer python         # OpenSpiel's Python CFRPlusSolver

The peer is OpenSpiel's C++ `pyspiel.CFRPlusSolver` by default (the faster of its two: its Python
`CFRPlusSolver` is several times slower, see `--peer python`); both run alternating updates,
regret matching+ and linear averaging, like ours. Our one-time costs (building the tree by
stepping the env, compiling the iteration and the exploitability) are reported apart from the
wall times. Each timing is the median of `--repeats` windows, ours and the peer's alternating
(the peer's long runs repeat only while they are cheap). Writes
``benchmarks/results/cfr.json`` (``--results`` elsewhere); docs/benchmarks.md shows it.
Needs `open-spiel` and `matplotlib` (pip install open-spiel matplotlib).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import time

import jax
import numpy as np

from holdemjax import bench
from holdemjax.training import cfr

ROOT = pathlib.Path(__file__).resolve().parents[1]
OPENSPIEL_GAME = {"kuhn_poker": "kuhn_poker", "leduc_holdem": "leduc_poker"}
DEFAULT_ITERATIONS = {"kuhn_poker": (100, 1000, 10000), "leduc_holdem": (100, 1000)}
GOAL = 10.0  # x OpenSpiel's iterations/s


class Peer:
    """One OpenSpiel CFR+ run: `run(n)` more iterations, `exploitability()` of its average."""

    def __init__(self, env_id: str, kind: str):
        import pyspiel

        self.game = pyspiel.load_game(OPENSPIEL_GAME[env_id])
        if kind == "cpp":
            self.solver = pyspiel.CFRPlusSolver(self.game)
            self._expl = lambda: pyspiel.exploitability(self.game, self.solver.average_policy())
        else:
            from open_spiel.python.algorithms import cfr as os_cfr
            from open_spiel.python.algorithms import exploitability as os_expl

            self.solver = os_cfr.CFRPlusSolver(self.game)
            self._expl = lambda: os_expl.exploitability(self.game, self.solver.average_policy())

    def run(self, n: int) -> float:
        start = time.perf_counter()
        for _ in range(n):
            self.solver.evaluate_and_update_policy()
        return time.perf_counter() - start

    def exploitability(self) -> float:
        return float(self._expl())


def timing_rows(env_id: str, counts, repeats: int, peer: str) -> tuple[list[dict], dict]:
    """Median-of-`repeats` wall times for each iteration count (every window kept), and our
    one-time costs."""
    start = time.perf_counter()
    cfr.game_tree(env_id)
    once = {"tree": time.perf_counter() - start,
            "compile": cfr.Solver(env_id, "cfr+").compile_seconds}
    rows = []
    for n in counts:
        ours, theirs, e_ours, e_theirs = [], [], None, None
        peer_budget = time.perf_counter() + 30.0  # the peer repeats only while cheap
        for r in range(repeats):
            solver = cfr.Solver(env_id, "cfr+")
            ours.append(solver.run(n))
            e_ours = solver.exploitability()
            if r == 0 or time.perf_counter() + theirs[-1] < peer_budget:
                p = Peer(env_id, peer)
                theirs.append(p.run(n))
                e_theirs = p.exploitability() if e_theirs is None else e_theirs
        rows.append(dict(n=n, ours=statistics.median(ours), theirs=statistics.median(theirs),
                         e_ours=e_ours, e_theirs=e_theirs, ours_windows=ours,
                         theirs_windows=theirs))
        print(f"  {env_id} {n:>6}: ours {rows[-1]['ours']:.4f} s, OpenSpiel "
              f"{rows[-1]['theirs']:.4f} s", flush=True)
    return rows, once


def curves(env_id: str, iterations: int, peer_max: int, peer: str) -> dict[str, tuple]:
    """(iterations, exploitability) at log-spaced checkpoints for each of our algorithms,
    and OpenSpiel's CFR+ up to `peer_max` iterations."""
    points = np.unique(np.geomspace(1, iterations, 40).astype(int))
    out = {}
    for algorithm in cfr.ALGORITHMS:
        solver, ys = cfr.Solver(env_id, algorithm), []
        for n in points:
            solver.run(int(n) - solver.iteration)
            ys.append(solver.exploitability())
        out[f"ours {algorithm}"] = (points, np.array(ys))
    if peer_max:
        p, xs, ys = Peer(env_id, peer), points[points <= peer_max], []
        done = 0
        for n in xs:
            p.run(int(n) - done)
            done = int(n)
            ys.append(p.exploitability())
        out["OpenSpiel cfr+"] = (xs, np.array(ys))
    return out


def plot(all_curves: dict[str, dict], path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(all_curves), figsize=(5.5 * len(all_curves), 4.2),
                             squeeze=False)
    for ax, (env_id, lines) in zip(axes[0], all_curves.items()):
        for label, (x, y) in lines.items():
            style = dict(ls="--", color="gray", lw=1.5) if label.startswith("OpenSpiel") else {}
            ax.loglog(x, np.maximum(y, 1e-9), label=label, **style)
        ax.set(title=env_id, xlabel="iteration", ylabel="exploitability (chips, NashConv/2)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", nargs="+", default=list(cfr.ENV_IDS), choices=cfr.ENV_IDS)
    ap.add_argument("--iterations", nargs="+", type=int,
                    help="iteration counts to time (default: per env, see DEFAULT_ITERATIONS)")
    ap.add_argument("--repeats", type=int, default=5, help="timing windows per count")
    ap.add_argument("--peer", choices=("cpp", "python"), default="cpp",
                    help="OpenSpiel's C++ (pyspiel) or Python CFRPlusSolver")
    ap.add_argument("--plot-iterations", type=int, default=10000)
    ap.add_argument("--plot-peer-iterations", type=int, default=1000,
                    help="OpenSpiel's CFR+ curve up to this many iterations (0: none)")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "docs" / "cfr_convergence.png")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--results", help="folder for cfr.json (default benchmarks/results)")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()

    import pyspiel  # noqa: F401  (fail early when the peer is missing)

    print(f"machine: {platform.machine()} {os.cpu_count()} cores, {jax.devices()[0]}, "
          f"jax {jax.__version__}, load average {os.getloadavg()[0]:.1f}; "
          f"peer: OpenSpiel {args.peer} CFRPlusSolver")
    table, onces = [], {}
    for env_id in args.env:
        rows, onces[env_id] = timing_rows(env_id, args.iterations or DEFAULT_ITERATIONS[env_id],
                                          args.repeats, args.peer)
        table += [(env_id, r) for r in rows]
    print("\n| env | iterations | ours s | OpenSpiel s | ratio | ours expl | OpenSpiel expl |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for env_id, r in table:
        print(f"| {env_id} | {r['n']:,} | {r['ours']:.4f} | {r['theirs']:.3f} | "
              f"**{r['theirs'] / r['ours']:.0f}×** | {r['e_ours']:.3g} | {r['e_theirs']:.3g} |")
    print("\none-time costs (ours, not in the wall times):")
    for env_id, once in onces.items():
        print(f"  {env_id}: tree built from the env {once['tree']:.2f} s, "
              f"compile (iteration + exploitability) {once['compile']:.2f} s")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    cells, comparisons = [], []
    for env_id, r in table:
        mine = bench.Cell("holdemjax CFR+", "iterations/s",
                          [{"count": r["n"], "seconds": t} for t in r["ours_windows"]],
                          onces[env_id]["compile"],
                          {"env": env_id, "iterations": r["n"], "exploitability": r["e_ours"]})
        theirs = bench.Cell(f"OpenSpiel {args.peer} CFRPlusSolver", "iterations/s",
                            [{"count": r["n"], "seconds": t} for t in r["theirs_windows"]],
                            None, {"env": env_id, "iterations": r["n"],
                                   "exploitability": r["e_theirs"]})
        cells += [mine, theirs]
        comparisons.append(bench.compare(f"{env_id} {r['n']:,} iterations", mine, theirs,
                                         GOAL))
    path = bench.write_results(
        "cfr", title="CFR+ vs OpenSpiel's CFRPlusSolver, the same iterations", cells=cells,
        comparisons=comparisons, out_dir=args.results, load_before=load_before,
        params={"repeats": args.repeats, "peer": args.peer,
                "one_time_s": {e: o for e, o in onces.items()}},
        notes=["Our one-time costs (building the tree by stepping the env, compiling the "
               "iteration and the exploitability) are in params.one_time_s, not in the rates."])
    print(f"wrote {path}")
    if not args.no_plot:
        plot({env_id: curves(env_id, args.plot_iterations, args.plot_peer_iterations, args.peer)
              for env_id in args.env}, args.out)


if __name__ == "__main__":
    main()
