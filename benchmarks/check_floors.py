"""Check the benchmark results against the floors expected on each kind of device.

    python benchmarks/check_floors.py [--results DIR]

A floor is the least a figure of a results file (``benchmarks/results/*.json``) should reach on
a device kind (the results' ``machine.platform``: cpu, gpu, tpu), as brax keeps expected steps/s
per device: a ratio to a peer (a comparison's key), an absolute rate (a target's key) or a
side's median (its name). Floors sit below what was measured (the machines are shared and
noisy); a figure under its floor is a regression to look at, not a flaky test: this is a
script to run after the benchmarks, not a CI test. Exits 1 when a floor is missed or a figure
it names is missing.

GPU and TPU floors are empty until a session is lent an accelerator: run
``benchmarks/device_check.py`` there and fill them from its results.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

RESULTS = pathlib.Path(__file__).resolve().parent / "results"

#: device kind -> {(results file name, figure key): floor}. CPU floors: about 70 % of what the
#: project's 2-core CPU VM measured with other jobs on its cores (docs/benchmarks.md).
FLOORS: dict[str, dict[tuple[str, str], float]] = {
    "cpu": {
        ("envs_vs_pgx", "kuhn_poker B=1024"): 1.3,
        ("envs_vs_pgx", "tic_tac_toe B=1024"): 1.2,
        ("envs_vs_pgx", "hex B=1024"): 1.2,
        ("envs_vs_pgx", "connect_four B=1024"): 1.2,
        ("envs_vs_pgx", "othello B=1024"): 1.5,
        ("envs_vs_pgx", "2048 B=1024"): 1.2,
        ("envs_vs_pgx", "leduc_holdem B=1024"): 1.3,
        ("board_vs_pgx", "backgammon B=1024"): 20.0,
        ("board_vs_pgx", "gardner_chess B=1024"): 12.0,
        ("sng_vs_openspiel", "sng-6 B=64"): 0.9,
        ("sng_vs_openspiel", "sng-6 B=4096"): 6.0,
        ("engine", "holdemjax B=4,096 vs OpenSpiel universal_poker fullgame"): 6.0,
        ("evaluator", "holdemjax B=65,536"): 30e6,
    },
    "gpu": {},  # filled the first time a session is lent a GPU (benchmarks/device_check.py)
    "tpu": {},
}


def _figure(doc: dict, key: str) -> float | None:
    for comp in doc.get("comparisons", []):
        if comp["key"] == key:
            return comp["ratio"]
    for t in doc.get("targets", []):
        if t["key"] == key:
            return t["value"]
    for cell in doc.get("cells", []):
        if cell["side"] == key:
            return cell["median"]
    return None


def check(floors: dict = FLOORS, results_dir=RESULTS) -> list[dict]:
    """One row per floor whose results file was measured on that floor's device kind."""
    results_dir = pathlib.Path(results_dir)
    rows = []
    for kind, table in floors.items():
        for (name, key), floor in table.items():
            path = results_dir / f"{name}.json"
            if not path.exists():
                rows.append(dict(kind=kind, name=name, key=key, floor=floor, value=None,
                                 ok=False, why="no results file"))
                continue
            doc = json.loads(path.read_text())
            if doc["machine"].get("platform") != kind:
                continue  # measured on another kind of device
            value = _figure(doc, key)
            rows.append(dict(kind=kind, name=name, key=key, floor=floor, value=value,
                             ok=value is not None and value >= floor,
                             why="no result of that name" if value is None else ""))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(RESULTS), help="folder of results files")
    args = ap.parse_args(argv)
    rows = check(FLOORS, args.results)
    for r in rows:
        value = "-" if r["value"] is None else f"{r['value']:,.3g}"
        status = "ok" if r["ok"] else f"UNDER ({r['why']})" if r["why"] else "UNDER"
        print(f"{r['kind']:4s} {r['name']:18s} {r['key']:58s} {value:>10s} >= "
              f"{r['floor']:,.3g}: {status}")
    unfilled = [k for k, t in FLOORS.items() if not t]
    if unfilled:
        print(f"no floors yet for: {', '.join(unfilled)} (no such device measured)")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
