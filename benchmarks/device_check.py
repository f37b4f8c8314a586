"""The checks to run when a session is lent an accelerator: one short script, nothing installed.

On the device machine (jax, flax, optax, chex there; no network)::

    pip install --no-deps --no-build-isolation -e . && python benchmarks/device_check.py --out $OUT

1. Same results on the device: random tournaments of every format under
   ``jit(vmap(auto_reset(step)))``, run with `holdemjax.sparse` gathering rows and with the plain
   ``lax`` forms (``set_gather(False)``); a sha256 over every leaf at every step must be equal.
2. Speed of both forms: ``sng-6`` decisions/s and tournaments/s at each ``--batch`` under
   ``jit(vmap(scan(step)))`` (`holdemjax.bench.measure`, compile apart). On an accelerator each
   pass of a gathered loop reads its condition back to the host, so which form wins there is
   what this measures.
3. Throughput of everything else that has a floor (`benchmarks/check_floors.py`): every env of
   the registry at ``--env-batch`` (and pgx's, when pgx is installed there, in interleaved
   windows), the evaluator at batch 65,536 and 1,048,576, the rules engine, and PPO training
   on ``sng-6`` (env + learner steps/s; ``--no-training`` skips it).

Prints a table and writes ``device_check.json`` (the report) and ``device_<platform>.json`` (a
results file for ``benchmarks/results/``, from which the GPU floors are filled) under ``--out``.
Exits 1 if the two forms differ. ``--quick`` is a small run (CI runs it on the CPU). Stop with
Ctrl-C: what was measured is kept.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import pathlib
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax import bench, sparse
from holdemjax.bench import measure
from holdemjax.experimental import act_randomly, auto_reset
from holdemjax.registry import REGISTRY

HERE = pathlib.Path(__file__).resolve().parent

FORMATS = ("sng-6", "sng-6-turbo", "certify", "ring-9")


def leaf_hash(env_id: str, batch: int, steps: int, seed: int = 5) -> tuple[str, int]:
    """sha256 of every leaf at every step of random play, and the number of games finished."""
    env = holdemjax.make(env_id)
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(seed), batch))
    key, digest, ended = jax.random.key(seed + 1), hashlib.sha256(), 0
    for _ in range(steps):
        key, k_act, k_step = jax.random.split(key, 3)
        state = step(state, act_randomly(k_act, state.legal_action_mask),
                     jax.random.split(k_step, batch))
        ended += int(state.terminated.sum())
        for leaf in jax.tree.leaves(state):
            if jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key):
                leaf = jax.random.key_data(leaf)
            digest.update(np.asarray(leaf).tobytes())
    return digest.hexdigest(), ended


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=".", help="folder for device_check.json")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 1024, 4096, 16384, 65536])
    ap.add_argument("--seconds", type=float, default=3.0, help="run time per speed cell")
    ap.add_argument("--check-batch", type=int, default=256)
    ap.add_argument("--check-steps", type=int, default=300)
    ap.add_argument("--env-batch", type=int, nargs="+", default=[1024, 16384])
    ap.add_argument("--envs", nargs="+", help="env ids for part 3 (default: the whole registry)")
    ap.add_argument("--no-training", action="store_true", help="skip the PPO throughput")
    ap.add_argument("--quick", action="store_true", help="a small run (for a CPU smoke test)")
    args = ap.parse_args(argv)
    formats = FORMATS
    envs = args.envs or list(REGISTRY)
    speed_forms = (True, False)
    if args.quick:  # a smoke test: the format with the most endings per step (ICM at the cap)
        formats, args.batch, args.seconds = ("certify",), [4], 0.2
        speed_forms = (True,)  # part 1 compares the two forms; part 2 only has to run
        args.check_batch, args.check_steps = 16, 40
        envs, args.env_batch, args.no_training = ["kuhn_poker"], [4], True
    report = {"devices": [str(d) for d in jax.devices()], "jax": jax.__version__,
              "date": time.strftime("%Y-%m-%d"), "equal": {}, "speed": [], "throughput": []}
    cells, comparisons = [], []
    print("devices:", ", ".join(report["devices"]), flush=True)
    failed = False
    try:
        for env_id in formats:
            hashes = {}
            for gather in (True, False):
                sparse.set_gather(gather)
                hashes[gather] = leaf_hash(env_id, args.check_batch, args.check_steps)
            same = hashes[True] == hashes[False]
            failed |= not same
            report["equal"][env_id] = {"same": same, "games": hashes[True][1]}
            print(f"{env_id:12s} gathered == plain: {same} ({hashes[True][1]} games)", flush=True)
        env = holdemjax.make("sng-6")
        for batch in args.batch:
            for gather in speed_forms:
                sparse.set_gather(gather)
                m = measure("holdemjax", "sng-6", env.init, env.step, batch, args.seconds)
                row = {"batch": batch, "gather": gather, "decisions_per_s": m.steps_per_s,
                       "tournaments_per_s": m.episodes_per_s, "compile_s": m.compile_s}
                report["speed"].append(row)
                print(f"sng-6 B={batch:<6d} {'gathered' if gather else 'plain':8s} "
                      f"{m.steps_per_s:>14,.0f} decisions/s {m.episodes_per_s:>10,.0f} "
                      f"tournaments/s  compile {m.compile_s:.1f} s", flush=True)
        sparse.set_gather(True)
        throughput(args, envs, report, cells, comparisons)
    except KeyboardInterrupt:
        print("interrupted: keeping what was measured")
    finally:
        sparse.set_gather(True)
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "device_check.json").write_text(json.dumps(report, indent=1))
        if cells:
            platform = jax.devices()[0].platform
            bench.write_results(
                f"device_{platform}", title=f"Throughput on {jax.devices()[0].device_kind}",
                cells=cells, comparisons=comparisons, out_dir=out,
                params={"env_batches": args.env_batch, "seconds": args.seconds,
                        "quick": args.quick})
    return 1 if failed else 0


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _row(report, cells, cell, what: str, **info) -> None:
    cells.append(cell)
    row = {"what": what, "side": cell.side, "unit": cell.unit, "median": cell.median,
           "compile_s": cell.compile_s, **info}
    report["throughput"].append(row)
    print(f"{what:34s} {cell.side:26s} {cell.median:>16,.0f} {cell.unit}"
          + ("" if cell.compile_s is None else f"  compile {cell.compile_s:.1f} s"), flush=True)


def throughput(args, envs, report, cells, comparisons) -> None:
    """Part 3: every env (and pgx's), the evaluator, the rules engine, PPO training."""
    windows = 3
    for env_id in envs:
        for batch in args.env_batch:
            pgx_ok = importlib.util.find_spec("pgx") is not None
            sides = bench.bench_env_cells(env_id, batch, args.seconds * 2, peer=pgx_ok,
                                          windows=windows, openspiel=False)  # host-bound
            for c in sides:
                _row(report, cells, c, f"{env_id} B={batch}", env=env_id, batch=batch)
            if len(sides) == 2:
                comparisons.append(bench.compare(f"{env_id} B={batch}", *sides))
    ev = _load("bench_evaluator")
    hands = ev.random_hands(1 << (12 if args.quick else 20))
    for batch in ([1024] if args.quick else [65_536, 1 << 20]):
        side = ev.Ours(hands, batch)
        bench.interleave([side], args.seconds, windows)
        _row(report, cells, side.cell(), "evaluate", batch=batch)
    if not args.quick:
        eng = _load("bench_engine")
        for batch in (4096, 65_536):
            side = eng.EngineSide(batch, 100)
            bench.interleave([side], args.seconds * 2, windows)
            _row(report, cells, side.cell(), "rules engine", batch=batch)
    if not args.no_training:
        from holdemjax.training.ppo import train
        from holdemjax.training.ppo_config import Config

        for tables in (1024, 8192):
            config = Config(num_tables=tables, rollout_steps=32, iterations=4)
            t0 = time.perf_counter()
            _, records = train(config, quiet=True)
            steady = [r for r in records[1:]] or records  # the first iteration warms up
            side = bench.Side()
            side.name, side.unit = f"PPO sng-6 {tables} tables", "steps/s"
            side.windows = [{"count": r["decisions"], "seconds": r["seconds"]} for r in steady]
            side.compile_s = records[0].get("compile_s") if records else None
            side.info = {"tables": tables, "rollout_steps": 32,
                         "wall_s": time.perf_counter() - t0}
            _row(report, cells, side.cell(), "training (env + learner)", tables=tables)


if __name__ == "__main__":
    sys.exit(main())
