"""The `holdemjax` command."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main"]


def _bench(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from holdemjax.bench import bench_env, peer_of, ratio
    from holdemjax.registry import available_envs

    # Wide enough for the whole table when the output is a file or a pipe.
    console = Console(width=None if sys.stdout.isatty() else 132)
    for env_id in args.env:
        if env_id not in available_envs():
            console.print(f"[red]unknown env id {env_id!r}; available: "
                          f"{', '.join(available_envs())}")
            return 2
    results = []
    cells = len(args.env) * len(args.batch) * (1 if args.no_peer else 2)  # an estimate
    try:
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("measuring", total=cells)

            def done(m):
                results.append(m)
                progress.update(task, advance=1, description=f"{m.env_id} B={m.batch} {m.who}")

            for env_id in args.env:
                bench_env(env_id, args.batch, args.seconds, peer=not args.no_peer,
                          on_result=done)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: showing what was measured")
    table = Table(title="steps/s under jit(vmap(scan(step))), random legal actions, auto-reset")
    for col in ("env", "batch", "holdemjax steps/s", "peer", "peer steps/s", "ratio",
                "episodes/s", "compile s (ours / peer)"):
        table.add_column(col, justify="right")
    for env_id in args.env:
        for batch in args.batch:
            ours = next((m for m in results if (m.env_id, m.batch, m.who) ==
                         (env_id, batch, "holdemjax")), None)
            if ours is None:
                continue
            mine = [m for m in results if m.env_id == env_id]
            peer = peer_of(mine, batch)
            r = ratio(mine, batch)
            table.add_row(
                env_id, str(batch), f"{ours.steps_per_s:,.0f}",
                peer.who if peer else "-",
                f"{peer.steps_per_s:,.0f}" if peer else "-",
                f"{r:.2f}x" if r else "-",
                f"{ours.episodes_per_s:,.0f}",
                f"{ours.compile_s:.1f} / {peer.compile_s:.1f}" if peer else f"{ours.compile_s:.1f}",
            )
    console.print(table)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([m.__dict__ for m in results], f, indent=1)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="holdemjax", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    bench = sub.add_parser("bench", help="steps/s of envs, ours and a peer's (pgx, or OpenSpiel "
                           "for hold'em) side by side")
    bench.add_argument("env", nargs="+", help="env ids (see holdemjax.available_envs())")
    bench.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 4096])
    bench.add_argument("--seconds", type=float, default=2.0, help="run time per cell")
    bench.add_argument("--no-peer", action="store_true", help="do not measure the peer")
    bench.add_argument("--json", help="also write the measurements to this JSON file")
    bench.set_defaults(func=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "batch", None) is not None and any(b < 1 for b in args.batch):
        print(f"holdemjax: batch sizes must be >= 1, got {args.batch}", file=sys.stderr)
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
