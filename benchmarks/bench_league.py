"""Throughput of `holdemjax league`: a 12-bot sng-6 league of 60 series of 10 tournaments, with
``--workers 1`` and ``--workers 2``, each the command itself in a fresh process; writes
benchmarks/results/league.json.

    python benchmarks/bench_league.py                      # 60 series of 10, workers 1 and 2
    python benchmarks/bench_league.py --games 20 --no-write   # a shorter league, print only

The pool (built into a temporary folder): the bundled baseline and random modules, the C SDK
example (``sdk/build.py --out``), the four shipped checkpoints exported with ``holdemjax
export-wasm``, greedy and sampled (eight modules), a second copy of the baseline (12 bots that
pass the certification) and the fault zoo's ``trap_nth`` (fails it: listed and left out).
``--games 300 --tournaments 10`` gives each of the 12 bots 30 series: 60 series of six.

The engine's compile cache is a fresh folder warmed before the timed runs (one certification
and one series compile the ring-9 and sng-6 steps), so every timed process loads the engine as
a user's second run does. Per run: the command's wall time from the process's start to its end,
the certification's part (until ``certification.json`` was last written) and the series' part
(from then to the last ``leaderboard.json``), series/s over the series' part, the CPU time of
the command and its worker processes, the load average before and after (the machine may be
shared). The two runs' ``leaderboard.json`` must be byte-identical.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECKPOINTS = ("sng6_pushfold", "sng6_pushfold_seed1", "sng6_pushfold_seed2", "sng6_example")


def _run(args, env=None):
    done = subprocess.run([sys.executable, "-m", "holdemjax.cli", *args], capture_output=True,
                          text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"holdemjax {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


def build_pool(folder: pathlib.Path, env) -> pathlib.Path:
    import wasmtime

    from holdemjax.series.policies import bundled

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(bundled("baseline"), folder / "baseline.wasm")
    shutil.copy(bundled("baseline"), folder / "baseline_twin.wasm")
    shutil.copy(bundled("random"), folder / "random.wasm")
    with tempfile.TemporaryDirectory() as sdk:
        subprocess.run([sys.executable, str(ROOT / "sdk" / "build.py"), "--out", sdk],
                       check=True, capture_output=True)
        shutil.copy(pathlib.Path(sdk) / "simple.wasm", folder / "c_simple.wasm")
    for name in CHECKPOINTS:
        ckpt = str(ROOT / "training" / "checkpoints" / f"{name}.msgpack")
        _run(["export-wasm", ckpt, "-o", str(folder / f"{name}.wasm")], env)
        _run(["export-wasm", ckpt, "--sample", "-o", str(folder / f"{name}_sampled.wasm")], env)
    zoo = ROOT / "tests" / "series" / "zoo" / "trap_nth.wat"
    (folder / "trap_nth.wasm").write_bytes(wasmtime.wat2wasm(zoo.read_text()))
    return folder


def league_args(pool, out, games, tournaments, workers) -> list[str]:
    return ["league", str(pool), "--format", "sng-6", "--games", str(games), "--tournaments",
            str(tournaments), "--seed", "0", "--workers", str(workers), "--out", str(out)]


def run_once(pool, out, games, tournaments, workers, env) -> dict:
    load = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    _run(league_args(pool, out, games, tournaments, workers), env)
    end = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    import json

    board = json.loads((out / "leaderboard.json").read_bytes())
    series = board["stages"][0]["series_played"]
    cert_end = (out / "certification.json").stat().st_mtime
    board_end = (out / "leaderboard.json").stat().st_mtime
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"workers": workers, "wall_s": round(end - t0, 2),
            "certification_s": round(cert_end - t0, 2),
            "series_s": round(board_end - cert_end, 2), "series": series,
            "tournaments": sum(s["tournaments_played"] for s in board["stages"][0]["series"]),
            "series_per_s": round(series / (board_end - cert_end), 4),
            "cpu_s": round(cpu, 2), "bots_playing": len(board["stages"][0]["rows"]),
            "left_out": [c["bot"] for c in board["certification"] if not c["passed"]],
            "load_average_before": [round(x, 2) for x in load],
            "load_average_after": [round(x, 2) for x in os.getloadavg()]}


def load_note(runs) -> str:
    cores = os.cpu_count()
    loads = ", ".join(f"{r['load_average_before'][0]:.2f} (--workers {r['workers']})"
                      for r in runs)
    busy = ", ".join(f"{r['cpu_s'] / r['wall_s']:.2f} (--workers {r['workers']})" for r in runs)
    return (f"1-minute load average at the start of each run: {loads} on {cores} cores; the "
            f"command's CPU time over its wall time: {busy}. Every figure here is under that "
            "load, not on an idle machine")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per bot (default 300: "
                        "60 series of 10 for 12 bots)")
    parser.add_argument("--tournaments", type=int, default=10)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--pool-only", metavar="DIR", help="only build the pool into DIR")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from holdemjax import bench

    if args.pool_only:
        build_pool(pathlib.Path(args.pool_only), dict(os.environ))
        return 0
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="holdemjax-league-") as tmp:
        tmp = pathlib.Path(tmp)
        env = dict(os.environ, HOLDEMJAX_COMPILE_CACHE=str(tmp / "xla"))
        env.pop("JAX_COMPILATION_CACHE_DIR", None)
        t0 = time.time()
        pool = build_pool(tmp / "pool", env)
        built_s = time.time() - t0
        t0 = time.time()  # warm the engine's compile cache: the ring-9 and sng-6 steps
        _run(["certify", str(pool / "baseline.wasm"), "--out", str(tmp / "warm1")], env)
        _run(["series", "--variant", "series-10", "--out", str(tmp / "warm2")], env)
        warm_s = time.time() - t0
        runs = [run_once(pool, tmp / f"w{w}", args.games, args.tournaments, w, env)
                for w in (1, 2)]
        same = (tmp / "w1" / "leaderboard.json").read_bytes() == \
            (tmp / "w2" / "leaderboard.json").read_bytes()
    speedup = runs[1]["series_per_s"] / runs[0]["series_per_s"]
    for r in runs:
        print(f"--workers {r['workers']}: {r['series']} series ({r['tournaments']} tournaments, "
              f"{r['bots_playing']} bots) in {r['wall_s']:.1f} s (certification "
              f"{r['certification_s']:.1f} s, series {r['series_s']:.1f} s: "
              f"{r['series_per_s']:.3f} series/s), CPU {r['cpu_s']:.1f} s, load "
              f"{r['load_average_before'][0]:.2f} -> {r['load_average_after'][0]:.2f}")
    print(f"speed-up of --workers 2 over 1 (series/s): {speedup:.2f}x; leaderboards "
          f"{'identical' if same else 'DIFFER'}")
    if args.no_write:
        return 0 if same else 1
    import json

    doc = {**bench.header("league", "holdemjax league: 12 bots, sng-6, series of "
                          f"{args.tournaments}, --workers 1 and 2",
                          command=bench.command_line(), load_before=load_before),
           "params": {"games": args.games, "tournaments": args.tournaments,
                      "pool": "baseline, baseline_twin, random, c_simple, 4 exported "
                      "checkpoints greedy + 4 sampled, trap_nth (left out)"},
           "pool_build_s": round(built_s, 1), "compile_cache_warmup_s": round(warm_s, 1),
           "runs": runs, "speedup_workers_2_over_1": round(speedup, 3),
           "leaderboards_identical": same,
           "notes": ["wall_s: the command from its process's start to its end; series_per_s "
                     "over the series' part (certification.json's last write to "
                     "leaderboard.json's last write); cpu_s: the command and its workers",
                     "the machine is shared and has 2 cores: the load average before and "
                     "after each run says what else ran",
                     load_note(runs)]}
    path = ROOT / "benchmarks" / "results" / "league.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(path)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
