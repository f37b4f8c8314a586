"""The `holdemjax` command."""

from __future__ import annotations

import argparse
import json
import sys

from holdemjax.validate import cli_error

__all__ = ["main", "build_parser", "hero_loaders", "demo_exports"]


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
            return cli_error("bench", f"unknown env id ({env_id!r}); available: "
                             f"{', '.join(available_envs())}")
    results = []
    cells = len(args.env) * len(args.batch) * (1 if args.no_peer else 2)  # an estimate
    if args.plain_loops:
        from holdemjax import sparse

        sparse.set_gather(False)
    try:
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("measuring", total=cells)

            def done(m):
                results.append(m)
                progress.update(task, advance=1, description=f"{m.env_id} B={m.batch} {m.who}")

            for env_id in args.env:
                bench_env(env_id, args.batch, args.seconds, peer=not args.no_peer,
                          on_result=done, windows=args.windows)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: showing what was measured")
    finally:
        if args.plain_loops:
            sparse.set_gather(True)
    title = "steps/s under jit(vmap(scan(step))), random legal actions, auto-reset"
    table = Table(title=title + (" (plain lax loops)" if args.plain_loops else ""),
                  caption=f"median of {args.windows} interleaved windows per side")
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


_FORMAT_VARIANT = {"sng-6": "series-100", "certify": "certify-series", "ring-9": "ring-9-series"}


def _compile_cache(args: argparse.Namespace) -> None:
    """The engine's persistent XLA compile cache, unless ``--no-compile-cache``, and its steps
    run on the calling thread (`engine.run_inline`): before JAX starts in the process."""
    from holdemjax.series.engine import run_inline

    run_inline()
    if not getattr(args, "no_compile_cache", False):
        from holdemjax.series.xla_cache import use_compile_cache

        use_compile_cache()


def _run_and_report(args, variant: str, sources: list, *, filler: str, title: str = "",
                    what: str = "the series", slots: bool = True):
    """Load the policies (missing slots take the bundled ``filler``), check that the output
    folder can be written, run the series with a progress bar, write results, replay, viewer
    and logs (each whole or not at all), print the standings. Every error is one line on stderr
    (`cli_error`, naming ``what`` runs, and the policy's slot when ``slots``) with exit code 2.
    Returns (exit code, results document or None)."""
    import pathlib

    _compile_cache(args)

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from holdemjax.series import output, runner
    from holdemjax.series import results as series_results
    from holdemjax.series.policies import bundled
    from holdemjax.series.protocol import MS, SeriesVoid
    from holdemjax.series.wasm import PolicyLoadError, load_policy

    console = Console(width=None if sys.stdout.isatty() else 120)

    def fail(line: str) -> tuple[int, None]:
        return cli_error(args.command, line), None

    spec = runner.VARIANTS.get(variant)
    if spec is None:
        return fail(f"unknown variant ({variant!r}); known: {', '.join(runner.VARIANTS)}")
    if len(sources) > spec.seats:
        return fail(f"{variant} has {spec.seats} slots, got {len(sources)} policies")
    if args.seed < 0:
        return fail(f"--seed must be >= 0 (got {args.seed})")
    shot = None if getattr(args, "shot_ms", None) is None else round(args.shot_ms * MS)
    bank = None if getattr(args, "bank_s", None) is None else round(args.bank_s * 1000 * MS)
    try:
        spec.clock(shot, bank)
    except ValueError as exc:
        return fail(f"clock: {exc}")
    sources = list(sources) + [bundled(filler)] * (spec.seats - len(sources))
    policies = []
    for slot, src in enumerate(sources):
        where = f"slot {slot}: " if slots else ""
        if not pathlib.Path(src).is_file():
            return fail(f"{where}no such policy file ({src})")
        try:
            policies.append(load_policy(src))
        except PolicyLoadError as exc:
            return fail(f"{where}{exc}")
    count = spec.tournaments if args.tournaments is None else args.tournaments
    try:  # before the series runs: its results are never lost to an unwritable folder
        out, created = output.check_writable(args.out or f"{variant}-seed{args.seed}")
    except OSError as exc:
        return fail(f"--out: {exc.strerror}")  # it names the folder
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[hands]} hands"), TimeElapsedColumn())
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("tournaments" if spec.env_id != "ring-9" else "games",
                                     total=count, hands=0)

            def tick(info):
                done = info.get("tournaments_done", 1) if info.get("tournament_done") else 0
                progress.update(task, hands=info["hands"], advance=done)

            series = runner.run_series(policies, variant=variant, seed=args.seed,
                                       max_wall=args.max_wall, tournaments=count, progress=tick,
                                       shot_ns=shot, bank_ns=bank, workers=args.workers,
                                       luck=getattr(args, "luck", False))
    except BaseException as exc:  # a series that did not finish leaves no empty folder
        output.discard_created(out, created)
        if isinstance(exc, runner.SeriesFailed) and not slots:  # one policy: no slot to name
            return fail(f"{what} fails: {exc.detail}")  # it quotes the policy's log
        if isinstance(exc, (runner.SeriesFailed, ValueError)):
            return fail(f"{what} fails: {exc}")
        if isinstance(exc, SeriesVoid):
            return fail(f"{what} is void: {exc}")
        raise  # Ctrl-C
    doc = series_results.summarize(series, planned=count)
    try:
        path = output.write_results(doc, out)
        files = output.write_all(series, doc, out, policies)  # replay, viewer, holdem.log lines
    except OSError as exc:
        return fail(f"cannot write the outputs to {out}: {exc}")
    finally:
        for policy in policies:
            if hasattr(policy, "close"):
                policy.close()
    table = Table(title=title or f"{variant}, seed {args.seed}: {series.tournaments_played} "
                  f"{'games' if spec.env_id == 'ring-9' else 'tournaments'}"
                  f"{' (stopped early)' if series.stopped_early else ''}")
    lucky = all("luck" in s for s in doc["slots"])  # --luck: the corrected score beside
    cols = ("rank", "alias", "policy", "score", "± SE", *(("luck out", "± SE ") if lucky else ()),
            "1st", "timeouts", "faults")
    for col in cols:
        table.add_column(col, justify="right" if col not in ("alias", "policy") else "left")
    ranked = sorted(doc["slots"], key=lambda s: -s["score"])
    for rank, s in enumerate(ranked, 1):
        fault = "-" if s["faulted_at"] is None else f"t{s['faulted_at']}: {s['faults'][0]['cause']}"
        luck = (f"{s['luck']['score']:.4f}", f"{s['luck']['stderr']:.4f}") if lucky else ()
        table.add_row(str(rank), f"{s['alias']} ({s['avatar']})", pathlib.Path(s["policy"]).name,
                      f"{s['score']:.4f}", f"{s['stderr']:.4f}", *luck, str(s["places"]["1"]),
                      str(s["timeouts"]), fault)
    console.print(table)
    console.print(f"results: {path}")
    for f in files:
        console.print(f"{f.name}: {f}")
    return 0, doc


def _series(args: argparse.Namespace) -> int:
    variant = args.variant
    if args.format is not None:
        if args.format not in _FORMAT_VARIANT:
            return cli_error("series", f"unknown --format ({args.format!r}); known: "
                             f"{', '.join(_FORMAT_VARIANT)}")
        variant = variant or _FORMAT_VARIANT[args.format]
    code, _ = _run_and_report(args, variant or "series-100", args.policy, filler="baseline")
    return code


def _certify(args: argparse.Namespace) -> int:
    """The policy plays `ring-9` games against eight random-action bots; it passes when all 10
    games were played (a run cut by --max-wall is INCOMPLETE, exit 1) and it never faulted,
    never timed out and every decision was an admitted action."""
    code, doc = _run_and_report(args, "ring-9-series", [args.policy], filler="random",
                                title=f"certify {args.policy}", what="the certification",
                                slots=False)
    if doc is None:
        return code
    from holdemjax.series.output import certify_verdict

    passed, verdict = certify_verdict(doc, 0, name=args.policy)
    print(verdict)
    return 0 if passed else 1


def _replay(args: argparse.Namespace) -> int:
    from rich.console import Console

    from holdemjax.play.person import load_seat  # a replay of `holdemjax play` too
    from holdemjax.series import output
    from holdemjax.series import replay as series_replay
    from holdemjax.series.protocol import SeriesVoid

    console = Console()
    try:
        doc = series_replay.load(args.file)
    except OSError as exc:
        return cli_error("replay", f"cannot read the replay: {exc.strerror or exc} ({args.file})")
    except ValueError as exc:  # it names the file
        return cli_error("replay", str(exc))
    if args.phh is not None:
        if not 0 <= args.phh < len(doc["tournaments"]):
            return cli_error("replay", f"--phh: tournament {args.phh} is not in the replay "
                             f"(0..{len(doc['tournaments']) - 1})")
        text = series_replay.to_phh(doc, args.phh)
        if args.out:
            try:
                output.write_file(args.out, text.encode("utf-8"))
            except OSError as exc:
                return cli_error("replay", f"--out: cannot write it: {exc.strerror or exc} "
                                 f"({args.out})")
            console.print(f"PHH: {args.out}")
        else:
            sys.stdout.write(text)
        return 0
    _compile_cache(args)
    try:
        with console.status("re-running the series from its seed and policies"):
            same, report = series_replay.verify(args.file, args.policy or None,
                                                 loader=load_seat)
    except (OSError, ValueError) as exc:
        return cli_error("replay", str(exc))
    except SeriesVoid as exc:
        return cli_error("replay", f"the series is void: {exc}")
    console.print(("[green]reproduced: " if same else "[red]NOT reproduced: ") + report)
    return 0 if same else 1


def _export_wasm(args: argparse.Namespace) -> int:
    """A trained PPO checkpoint as a protocol module (docs/export.md)."""
    from holdemjax.training.export_wasm import BuildError, export_wasm

    try:
        path = export_wasm(args.checkpoint, args.out, greedy=not args.sample)
    except (OSError, ValueError, BuildError) as exc:
        return cli_error("export-wasm", str(exc))
    mode = "sampled (coordinate-addressed draws)" if args.sample else "greedy"
    print(f"{path}: {path.stat().st_size:,} bytes, {mode} policy of {args.checkpoint}")
    return 0


def _checkpoint_hero(path: str, greedy: bool = True):
    """A PPO checkpoint's JAX policy (greedy, or sampled as an ``export-wasm --sample`` module
    samples) in a duplicate hero seat (docs/export.md)."""
    from holdemjax.training.export_wasm import CheckpointHero

    return CheckpointHero(path, greedy=greedy)


def _sampled_checkpoint_hero(path: str):
    return _checkpoint_hero(path, greedy=False)


def hero_loaders():
    """The kinds of file beyond .wasm that ``holdemjax duplicate run`` and ``serve`` play: a
    PPO checkpoint (``.msgpack``), greedy or sampled (`holdemjax.duplicate.entrants`)."""
    from holdemjax.duplicate.entrants import HeroLoaders

    return HeroLoaders({".msgpack": _checkpoint_hero}, {".msgpack": _sampled_checkpoint_hero})


def demo_exports():
    """The shipped PPO checkpoints and their exporter: the bots ``holdemjax league --demo``
    builds (`holdemjax.league.demo`)."""
    from holdemjax.league.demo import Exports
    from holdemjax.training.baselines import CHECKPOINTS
    from holdemjax.training.export_wasm import BuildError, export_wasm

    def export(checkpoint, out, greedy):
        return export_wasm(checkpoint, out, greedy=greedy)

    return Exports({p.stem: p for p in sorted(CHECKPOINTS.glob("*.msgpack"))}, export,
                   errors=(OSError, ValueError, BuildError))


def _series_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="series seed (default 0)")
    p.add_argument("--out", help="output folder (default VARIANT-seedSEED)")
    p.add_argument("--max-wall", type=float, default=600.0,
                   help="wall-time limit in seconds; the series stops at a hand boundary "
                   "(default 600)")
    p.add_argument("--shot-ms", type=float, help="per-action clock in virtual ms (default: the "
                   "variant's: 20, ring-9 200)")
    p.add_argument("--bank-s", type=float, help="time bank in virtual seconds (default: the "
                   "variant's: 1 per tournament, ring-9 30 for the series)")
    p.add_argument("--workers", type=int, default=1, help="processes for a series longer than "
                   "one block of 100 tournaments (results identical to one process)")
    p.add_argument("--luck", action="store_true", help="also each slot's score with the luck of "
                   "the cards taken out, ± SE (AIVAT's chance corrections, computed after each "
                   "tournament; docs/luck.md): about 10 s to compile, then about 0.2 s per "
                   "tournament")
    p.add_argument("--tournaments", type=int, help=argparse.SUPPRESS)
    _cache_option(p)


def _cache_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-compile-cache", action="store_true", help="compile the engine afresh, "
                   "without the persistent cache (default folder ~/.cache/holdemjax/xla; "
                   "HOLDEMJAX_COMPILE_CACHE=DIR moves it, =off turns it off)")


class _Parser(argparse.ArgumentParser):
    """argparse's usage errors (a missing argument, a value that is not a number) in the
    command's voice: one line on stderr, exit status 2. Sub-parsers are of this class too."""

    def error(self, message: str):
        command = self.prog.removeprefix("holdemjax").strip()
        sys.exit(cli_error(command, f"{message} ({self.prog} --help)"))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="holdemjax", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    bench = sub.add_parser("bench", help="steps/s of envs, ours and a peer's (pgx, or OpenSpiel "
                           "for hold'em) side by side")
    bench.add_argument("env", nargs="+", help="env ids (see holdemjax.available_envs())")
    bench.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 4096])
    bench.add_argument("--seconds", type=float, default=2.0, help="run time per side and cell")
    bench.add_argument("--windows", type=int, default=5, help="interleaved timing windows")
    bench.add_argument("--no-peer", action="store_true", help="do not measure the peer")
    bench.add_argument("--json", help="also write the measurements to this JSON file")
    bench.add_argument("--plain-loops", action="store_true",
                       help="measure with holdemjax.sparse.set_gather(False): plain lax loops "
                       "that work on every row (to compare on an accelerator)")
    bench.set_defaults(func=_bench)
    series = sub.add_parser("series", help="run a series of WebAssembly policies (default: six "
                            "bundled baselines, series-100)")
    series.add_argument("policy", nargs="*", help="policy .wasm files for slots 0.. (missing "
                        "slots take the bundled baseline)")
    series.add_argument("--variant", help="series-100 (default), series-10, series-1000, "
                        "certify-series, ring-9-series")
    series.add_argument("--format", help="the table format: sng-6 (series-100), certify "
                        "(certify-series) or ring-9 (ring-9-series: up to nine policies, 10 games)")
    _series_options(series)
    series.set_defaults(func=_series)
    certify = sub.add_parser("certify", help="certify one policy: 10 ring-9 games against eight "
                             "random-action bots; passes if it never faults, times out or sends "
                             "an action that was not offered")
    certify.add_argument("policy", help="the policy .wasm file")
    _series_options(certify)
    certify.set_defaults(func=_certify)
    replay = sub.add_parser("replay", help="re-run a series from its replay file and check it "
                            "reproduces byte for byte; or export a tournament as PHH")
    replay.add_argument("file", help="replay.json written by `holdemjax series`")
    replay.add_argument("--policy", nargs="+", help="policy files in slot order (default: the "
                        "recorded paths); each must have the recorded SHA-256")
    replay.add_argument("--phh", type=int, metavar="T", help="print tournament T's hands as "
                        "PHH (PokerKit's hand-history format) instead of verifying")
    replay.add_argument("--out", help="with --phh: write to this file")
    _cache_option(replay)
    replay.set_defaults(func=_replay)
    export = sub.add_parser("export-wasm", help="export a trained PPO checkpoint as a "
                            "WebAssembly policy that plays as the JAX policy (docs/export.md)")
    export.add_argument("checkpoint", help="a holdemjax.training.ppo checkpoint (.msgpack)")
    export.add_argument("-o", "--out", default="bot.wasm", help="output module (default bot.wasm)")
    export.add_argument("--sample", action="store_true", help="sample from the policy with the "
                        "JAX policy's coordinate-addressed draws (default: greedy, the most "
                        "likely action)")
    export.set_defaults(func=_export_wasm)
    from holdemjax.duplicate.cli import add_parser as add_duplicate_parser

    add_duplicate_parser(sub, hero_loaders())
    from holdemjax.league.cli import add_parser as add_league_parser

    add_league_parser(sub, demo_exports)
    from holdemjax.training.explore_cli import add_parser as add_explore_parser

    add_explore_parser(sub)
    from holdemjax.play.cli import add_parser as add_play_parser

    add_play_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from holdemjax.series.interrupt import CTRL_C

    with CTRL_C:  # a Ctrl-C swallowed on its way (an import's gc callback) is not lost
        try:
            args = build_parser().parse_args(argv)
            CTRL_C.check()
        except KeyboardInterrupt:  # before any command ran: nothing to keep (issue 50, 9)
            cli_error("", "interrupted")
            return 130
        if getattr(args, "batch", None) is not None and any(b < 1 for b in args.batch):
            return cli_error(args.command, f"--batch sizes must be >= 1 (got {args.batch})")
        return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
