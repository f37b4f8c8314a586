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
3. Per env of the registry (``--envs``: some): the compile time of its batched ``init`` and
   ``step`` at ``--compile-batch`` (trace + lower and XLA compile apart, with the kernel count;
   `holdemjax.bench.compile_times`, as ``benchmarks/bench_compile.py`` measures it), the bytes of
   one game's state and the device's memory figures where the backend reports them (none on a
   CPU), and steps/s at each of ``--batches`` (and pgx's at ``--peer-batches``, when pgx is
   installed there, in interleaved windows).
4. Throughput of everything else that has a floor (`benchmarks/check_floors.py`): the evaluator
   at batch 65,536 and 1,048,576, the rules engine, and PPO training on ``sng-6`` (env + learner
   steps/s; ``--no-training`` skips it).

Prints a table and writes ``device_check.json`` (the report) and ``device_<platform>.json`` (a
results file for ``benchmarks/results/``, from which the floors of that kind of device are
filled) under ``--out``, both rewritten after every env, so a run stopped by its time limit keeps
what it measured. Exits 1 if the two forms differ. ``--quick`` is a small run (a slow test runs
it on the CPU). Stop with Ctrl-C (or SIGTERM): what was measured is kept.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import pathlib
import signal
import sys
import threading
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
#: Batch sizes of the per-env steps/s sweep.
BATCHES = (1, 8, 64, 512, 4096, 65536)


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


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=".", help="folder for device_check.json")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 1024, 4096, 16384, 65536],
                    help="sng-6 batches of part 2")
    ap.add_argument("--seconds", type=float, default=3.0, help="run time per speed cell")
    ap.add_argument("--check-batch", type=int, default=256)
    ap.add_argument("--check-steps", type=int, default=300)
    ap.add_argument("--batches", type=int, nargs="+", default=list(BATCHES),
                    help="batches of the per-env steps/s sweep (part 3)")
    ap.add_argument("--peer-batches", type=int, nargs="*", default=[4096],
                    help="batches of the sweep at which pgx's game runs too")
    ap.add_argument("--compile-batch", type=int, default=1024,
                    help="batch of the compiled init and step whose compile time is measured")
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
        envs, args.no_training = args.envs or ["kuhn_poker"], True
        args.batches = [b for b in args.batches if b <= 8] or [1, 8]
        args.peer_batches, args.compile_batch = [8], 8
    report = {"devices": [str(d) for d in jax.devices()], "jax": jax.__version__,
              "date": time.strftime("%Y-%m-%d"), "equal": {}, "speed": [], "compile": [],
              "memory": [], "throughput": []}
    cells, comparisons = [], []

    def save() -> None:
        _save(args, report, cells, comparisons)

    print("devices:", ", ".join(report["devices"]), flush=True)
    failed = False
    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread:  # a time limit's SIGTERM keeps what was measured, as Ctrl-C does
        before = signal.signal(signal.SIGTERM, _interrupt)
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
        save()
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
        save()
        per_env(args, envs, report, cells, comparisons, save)
        throughput(args, report, cells)
    except KeyboardInterrupt:
        print("interrupted: keeping what was measured")
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, before)
        sparse.set_gather(True)
        save()
    return 1 if failed else 0


def _save(args, report, cells, comparisons) -> None:
    """Write ``device_check.json`` and, with cells, ``device_<platform>.json`` under --out."""
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "device_check.json").write_text(json.dumps(report, indent=1))
    if cells:
        device = jax.devices()[0]
        bench.write_results(
            f"device_{device.platform}", title=f"Throughput on {device.device_kind}",
            cells=cells, comparisons=comparisons, out_dir=out,
            params={"batches": args.batches, "peer_batches": args.peer_batches,
                    "compile_batch": args.compile_batch, "seconds": args.seconds,
                    "quick": args.quick},
            extra={"compile": report["compile"], "memory": report["memory"]})


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


def state_bytes(env, batch: int) -> float:
    """Bytes of one game's state: the leaves of a batched state (shapes only), over the batch."""
    keys = jax.eval_shape(lambda: jax.random.split(jax.random.key(0), batch))
    states = jax.eval_shape(jax.vmap(env.init), keys)
    return sum(math.prod(x.shape) * x.dtype.itemsize for x in jax.tree.leaves(states)) / batch


def device_memory() -> dict:
    """The device's memory figures (bytes) where the backend reports them; None on a CPU. The
    peak is the process's so far."""
    stats = jax.devices()[0].memory_stats() or {}
    return {k: stats.get(k) for k in ("peak_bytes_in_use", "bytes_in_use", "bytes_limit")}


def per_env(args, envs, report, cells, comparisons, save) -> None:
    """Part 3: per env, compile time of batched init and step, state bytes, steps/s per batch."""
    windows = 3
    pgx_ok = importlib.util.find_spec("pgx") is not None
    for env_id in envs:
        times = bench.side_record(env_id, "holdemjax", args.compile_batch, 0,
                                  names=bench.BATCHED)
        report["compile"].append(times)
        print(f"{env_id:34s} compile " + ", ".join(
            f"{name} {p['lower_s']:.1f} + {p['compile_s']:.1f} s ({p['fusions']} fusions)"
            for name, p in times["programs"].items()), flush=True)
        for batch in args.batches:
            peer = pgx_ok and batch in args.peer_batches
            sides = bench.bench_env_cells(env_id, batch, args.seconds * 2, peer=peer,
                                          windows=windows, openspiel=False)  # host-bound
            for c in sides:
                _row(report, cells, c, f"{env_id} B={batch}", env=env_id, batch=batch)
            if len(sides) == 2:
                comparisons.append(bench.compare(f"{env_id} B={batch}", *sides))
        memory = {"env": env_id, "state_bytes_per_game": state_bytes(holdemjax.make(env_id),
                                                                     args.compile_batch),
                  **device_memory()}
        report["memory"].append(memory)
        print(f"{env_id:34s} {memory['state_bytes_per_game']:,.0f} bytes of state per game; "
              f"device peak {memory['peak_bytes_in_use']}", flush=True)
        save()


def throughput(args, report, cells) -> None:
    """Part 4: the evaluator, the rules engine, PPO training."""
    windows = 3
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
