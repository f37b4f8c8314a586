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

Prints a table and writes ``device_check.json`` under ``--out``. Exits 1 if the two forms differ.
``--quick`` is a small run (CI runs it on the CPU). Stop with Ctrl-C: what was measured is kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax import sparse
from holdemjax.bench import measure
from holdemjax.experimental import act_randomly, auto_reset

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
    ap.add_argument("--quick", action="store_true", help="a small run (for a CPU smoke test)")
    args = ap.parse_args(argv)
    formats = FORMATS
    if args.quick:  # the formats with the most endings per step (ICM at the cap, 9 seats)
        formats, args.batch, args.seconds = ("certify", "ring-9"), [4], 0.2
        args.check_batch, args.check_steps = 16, 40
    report = {"devices": [str(d) for d in jax.devices()], "jax": jax.__version__,
              "date": time.strftime("%Y-%m-%d"), "equal": {}, "speed": []}
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
            for gather in (True, False):
                sparse.set_gather(gather)
                m = measure("holdemjax", "sng-6", env.init, env.step, batch, args.seconds)
                row = {"batch": batch, "gather": gather, "decisions_per_s": m.steps_per_s,
                       "tournaments_per_s": m.episodes_per_s, "compile_s": m.compile_s}
                report["speed"].append(row)
                print(f"sng-6 B={batch:<6d} {'gathered' if gather else 'plain':8s} "
                      f"{m.steps_per_s:>14,.0f} decisions/s {m.episodes_per_s:>10,.0f} "
                      f"tournaments/s  compile {m.compile_s:.1f} s", flush=True)
    except KeyboardInterrupt:
        print("interrupted: keeping what was measured")
    finally:
        sparse.set_gather(True)
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "device_check.json").write_text(json.dumps(report, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
