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


def _series(args: argparse.Namespace) -> int:
    import pathlib

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.progress import TimeElapsedColumn
    from rich.table import Table

    from holdemjax.series import results as R
    from holdemjax.series import runner
    from holdemjax.series.policies import bundled
    from holdemjax.series.wasm import PolicyLoadError, load_policy

    console = Console(width=None if sys.stdout.isatty() else 120)
    spec = runner.VARIANTS.get(args.variant)
    if spec is None:
        console.print(f"[red]unknown variant {args.variant!r}; known: {', '.join(runner.VARIANTS)}")
        return 2
    if len(args.policy) > spec.seats:
        console.print(f"[red]{args.variant} has {spec.seats} slots, got {len(args.policy)} policies")
        return 2
    if args.seed < 0:
        console.print(f"[red]--seed must be >= 0, got {args.seed}")
        return 2
    sources = list(args.policy) + [bundled("baseline")] * (spec.seats - len(args.policy))
    policies = []
    for slot, src in enumerate(sources):
        try:
            policies.append(load_policy(src))
        except FileNotFoundError:
            console.print(f"[red]slot {slot}: no such policy file: {src}")
            return 2
        except PolicyLoadError as exc:
            console.print(f"[red]slot {slot}: the series fails: {exc}")
            return 2
    count = spec.tournaments if args.tournaments is None else args.tournaments
    out = pathlib.Path(args.out or f"series-{args.variant}-seed{args.seed}")
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[hands]} hands"), TimeElapsedColumn())
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("tournaments", total=count, hands=0)

            def tick(info):
                progress.update(task, hands=info["hands"],
                                advance=1 if info.get("tournament_done") else 0)

            series = runner.run_series(policies, variant=args.variant, seed=args.seed,
                                       max_wall=args.max_wall, tournaments=count, progress=tick)
    except runner.SeriesFailed as exc:
        console.print(f"[red]the series fails: {exc}")
        return 2
    doc = R.summarize(series, planned=count)
    path = R.write_results(doc, out)
    from holdemjax.series import replay as replay_mod

    files = replay_mod.write_all(series, doc, out)
    for slot, policy in enumerate(policies):  # holdem.log lines: one file per slot that wrote any
        lines = getattr(policy, "logs", None)
        if lines:
            log = out / "logs" / f"slot{slot}.log"
            log.parent.mkdir(exist_ok=True)
            log.write_text("".join(f"[t{t}] {text}\n" for t, text in lines), encoding="utf-8")
            files.append(log)
        if hasattr(policy, "close"):
            policy.close()
    table = Table(title=f"{args.variant}, seed {args.seed}: {series.tournaments_played} "
                        f"tournaments{' (stopped early)' if series.stopped_early else ''}")
    for col in ("rank", "alias", "policy", "score", "± SE", "1st", "timeouts", "faults"):
        table.add_column(col, justify="right" if col not in ("alias", "policy") else "left")
    ranked = sorted(doc["slots"], key=lambda s: -s["score"])
    for rank, s in enumerate(ranked, 1):
        fault = "-" if s["faulted_at"] is None else f"t{s['faulted_at']}: {s['faults'][0]['cause']}"
        table.add_row(str(rank), f"{s['alias']} ({s['avatar']})", pathlib.Path(s["policy"]).name,
                      f"{s['score']:.4f}", f"{s['stderr']:.4f}", str(s["places"]["1"]),
                      str(s["timeouts"]), fault)
    console.print(table)
    console.print(f"results: {path}")
    for f in files:
        console.print(f"{f.name}: {f}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    import pathlib

    from rich.console import Console

    from holdemjax.series import replay as RP

    console = Console()
    try:
        doc = RP.load(args.file)
    except (OSError, ValueError) as exc:
        console.print(f"[red]{exc}")
        return 2
    if args.phh is not None:
        if not 0 <= args.phh < len(doc["tournaments"]):
            console.print(f"[red]--phh: tournament {args.phh} is not in the replay (0.."
                          f"{len(doc['tournaments']) - 1})")
            return 2
        text = RP.to_phh(doc, args.phh)
        if args.out:
            pathlib.Path(args.out).write_text(text)
            console.print(f"PHH: {args.out}")
        else:
            sys.stdout.write(text)
        return 0
    try:
        with console.status("re-running the series from its seed and policies"):
            same, report = RP.verify(args.file, args.policy or None)
    except ValueError as exc:
        console.print(f"[red]{exc}")
        return 2
    console.print(("[green]reproduced: " if same else "[red]NOT reproduced: ") + report)
    return 0 if same else 1


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
    series = sub.add_parser("series", help="run a series of WebAssembly policies (default: six "
                            "bundled baselines, series-100)")
    series.add_argument("policy", nargs="*", help="policy .wasm files for slots 0.. (missing "
                        "slots take the bundled baseline)")
    series.add_argument("--variant", default="series-100",
                        help="series-100 (default), series-10, series-1000, certify-series, "
                        "ring-9-series")
    series.add_argument("--seed", type=int, default=0, help="series seed (default 0)")
    series.add_argument("--out", help="output folder (default series-VARIANT-seedSEED)")
    series.add_argument("--max-wall", type=float, default=600.0,
                        help="wall-time limit in seconds; the series stops at a hand boundary "
                        "(default 600)")
    series.add_argument("--tournaments", type=int, help=argparse.SUPPRESS)
    series.set_defaults(func=_series)
    replay = sub.add_parser("replay", help="re-run a series from its replay file and check it "
                            "reproduces byte for byte; or export a tournament as PHH")
    replay.add_argument("file", help="replay.json written by `holdemjax series`")
    replay.add_argument("--policy", nargs="+", help="policy files in slot order (default: the "
                        "recorded paths); each must have the recorded SHA-256")
    replay.add_argument("--phh", type=int, metavar="T", help="print tournament T's hands as "
                        "PHH (PokerKit's hand-history format) instead of verifying")
    replay.add_argument("--out", help="with --phh: write to this file")
    replay.set_defaults(func=_replay)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "batch", None) is not None and any(b < 1 for b in args.batch):
        print(f"holdemjax: batch sizes must be >= 1, got {args.batch}", file=sys.stderr)
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
