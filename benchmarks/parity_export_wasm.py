"""Parity of the exported shipped checkpoint with its JAX policy on >= 20,000 decisions.

    python benchmarks/parity_export_wasm.py [--decisions 20000] [--out PATH]

Exports training/checkpoints/sng6_example.msgpack greedy and sampled
(`holdemjax.training.export_wasm`), plays sng-6 tournaments in JAX with the policy (sampled) in
a share of the seats and the baseline and random bots in the others, and asks both modules at
every other decision (`holdemjax.training.export_parity.run_parity`). Writes the counts
(mismatches per mode, observation and feature checks, largest logit difference, fuel per
decision, module sizes) to benchmarks/results/export_wasm_parity.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECKPOINT = ROOT / "training" / "checkpoints" / "sng6_example.msgpack"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--decisions", type=int, default=20_000)
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=pathlib.Path,
                   default=ROOT / "benchmarks" / "results" / "export_wasm_parity.json")
    args = p.parse_args(argv)

    import jax

    from holdemjax.series.wasm import wasmtime_version
    from holdemjax.training import export_parity, export_wasm

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        greedy = export_wasm.export_wasm(CHECKPOINT, pathlib.Path(tmp) / "greedy.wasm")
        sampled = export_wasm.export_wasm(CHECKPOINT, pathlib.Path(tmp) / "sampled.wasm",
                                          greedy=False)
        sizes = {"greedy": greedy.stat().st_size, "sampled": sampled.stat().st_size}
        res = export_parity.run_parity(CHECKPOINT, greedy, sampled, games=args.games,
                                       seed=args.seed, limit=args.decisions, every=2,
                                       with_baseline=True)
    doc = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": "python benchmarks/parity_export_wasm.py " + " ".join(argv or sys.argv[1:]),
        "checkpoint": str(CHECKPOINT.relative_to(ROOT)),
        "env": "sng-6",
        "module_bytes": sizes,
        "module_limit_bytes": export_wasm.module_size_limit(),
        **res.to_dict(),
        "seconds": round(time.perf_counter() - start, 1),
        "jax": jax.__version__,
        "wasmtime": wasmtime_version(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({k: v for k, v in doc.items() if k not in ("first_failures", "coverage")},
                     indent=1))
    ok = (res.decisions == args.decisions and res.greedy_mismatches == 0
          and res.sampled_mismatches == 0 and res.obs_mismatches == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
