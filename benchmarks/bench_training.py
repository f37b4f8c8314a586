"""PPO training iterations per device count: `Trainer.step` with the tables sharded over 1, 2
and 4 devices, each count in its own process; writes benchmarks/results/training_sharding.json.

    python benchmarks/bench_training.py                        # 1, 2, 4 faked CPU devices
    python benchmarks/bench_training.py --devices 1 2 --iterations 3 --no-write

On a CPU the devices are faked (``XLA_FLAGS=--xla_force_host_platform_device_count=N``, set
before JAX starts in each child): they share the same cores, so these figures check the sharded
code path and its overhead, not a speed-up. On a machine with N accelerators pass ``--real``
to use them as they are. Per device count: the compile time (apart), then one window per
timed iteration (decisions = tables x rollout steps, wall seconds, the child's CPU seconds).
Ctrl-C stops the running child and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

CHILD = r"""
import json, sys, time
import jax
from holdemjax.training import ppo
args = json.loads(sys.argv[1])
config = ppo.Config.from_dict(args["config"])
t0 = time.perf_counter()
trainer = ppo.Trainer(config, devices=args["devices"])
ts = trainer.init()
compiled = trainer.step.lower(ts).compile()
print(json.dumps({"compile_s": time.perf_counter() - t0, "devices": trainer.sharding.size,
                  "platform": jax.devices()[0].platform}), flush=True)
for i in range(args["iterations"]):
    cpu, start = time.process_time(), time.perf_counter()
    ts, metrics = compiled(ts)
    decisions = int(metrics["decisions"])  # waits for the iteration
    print(json.dumps({"count": decisions, "seconds": time.perf_counter() - start,
                      "cpu_seconds": time.process_time() - cpu}), flush=True)
"""


def run_child(devices: int, config: dict, iterations: int, real: bool, on_line) -> dict:
    """One device count in a fresh process; ``on_line(doc)`` after each line it prints."""
    env = dict(os.environ)
    if not real:
        env.update(JAX_PLATFORMS="cpu",
                   XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")
    arg = json.dumps({"config": config, "devices": devices, "iterations": iterations})
    child = subprocess.Popen([sys.executable, "-c", CHILD, arg], stdout=subprocess.PIPE,
                             text=True, env=env)
    head, windows = None, []
    try:
        for line in child.stdout:
            doc = json.loads(line)
            if head is None:
                head = doc
            else:
                windows.append(doc)
            on_line(doc)
        if child.wait() != 0:
            raise RuntimeError(f"the {devices}-device child failed (exit {child.returncode})")
    finally:
        if child.poll() is None:  # interrupted: stop the child we started
            child.terminate()
            child.wait()
    return dict(head, windows=windows, load_average=list(os.getloadavg()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--num-tables", type=int, default=32)
    ap.add_argument("--rollout-steps", type=int, default=16)
    ap.add_argument("--hidden", type=int, nargs="+", default=[64, 64])
    ap.add_argument("--iterations", type=int, default=5, help="timed iterations (windows)")
    ap.add_argument("--real", action="store_true",
                    help="use the real devices (no faked CPU devices)")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from rich.console import Console
    from rich.progress import Progress

    from holdemjax import bench
    from holdemjax.training import ppo

    bad = [n for n in args.devices if n < 1 or args.num_tables % n]
    if bad:
        print(f"error: --num-tables {args.num_tables} does not split over --devices {bad}",
              file=sys.stderr)
        return 2
    config = ppo.Config(num_tables=args.num_tables, rollout_steps=args.rollout_steps,
                        hidden=tuple(args.hidden), minibatches=2, epochs=2).to_dict()
    console = Console(highlight=False)
    load_before = os.getloadavg()
    results = []
    try:
        with Progress(console=console) as progress:
            for n in args.devices:
                task = progress.add_task(f"{n} device(s): compiling", total=args.iterations)

                def on_line(doc, task=task, n=n):
                    if "compile_s" in doc:
                        progress.update(task, description=f"{n} device(s): compiled in "
                                        f"{doc['compile_s']:.0f} s")
                    else:
                        progress.advance(task)

                results.append(run_child(n, config, args.iterations, args.real, on_line))
    except KeyboardInterrupt:
        console.print("interrupted: nothing written")
        return 130

    cells = []
    console.print("| devices | decisions/s (median) | windows | compile s |\n|---:|---:|---:|---:|")
    for r in results:
        cell = bench.Cell(f"PPO Trainer.step, {r['devices']} device(s)", "decisions/s",
                          r["windows"], round(r["compile_s"], 2),
                          {"env": config["env_id"], "batch": config["num_tables"],
                           "iterations": len(r["windows"]), "devices": r["devices"],
                           "device_platform": r["platform"],
                           "load_average_after": [round(x, 2) for x in r["load_average"]]})
        cells.append(cell)
        console.print(f"| {r['devices']} | {cell.median:,.0f} | {len(r['windows'])} | "
                      f"{r['compile_s']:.1f} |")
    if args.no_write:
        return 0
    uname = platform.uname()
    faked = not args.real
    notes = [f"{config['num_tables']} tables x {config['rollout_steps']} decisions per "
             f"iteration, hidden {config['hidden']}, {config['epochs']} epochs x "
             f"{config['minibatches']} minibatches; one process per device count, the tables "
             "sharded over the devices (`holdemjax.training.sharding`).",
             "Compile time apart; a window is one timed iteration (env + learner)."]
    if faked:
        notes.append("The devices are faked CPU devices (XLA_FLAGS="
                     "--xla_force_host_platform_device_count=N) sharing the same cores: these "
                     "figures check the sharded code path and its overhead, not a speed-up.")
    path = bench.write_results(
        "training_sharding", title="PPO training iterations per device count", cells=cells,
        params=dict(config, devices=args.devices, faked_cpu_devices=faked), notes=notes,
        load_before=load_before,
        extra={"uname": f"{uname.system} {uname.release} {uname.machine}",
               "nproc": os.cpu_count()})
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
