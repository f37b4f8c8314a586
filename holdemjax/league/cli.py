"""``holdemjax league``: a pool of modules, certified, matched, played to a leaderboard.

The command reads its options into a `run.LeagueSpec`, picks the executor (this process,
``--workers N`` processes, or ``--ray ADDRESS``), shows progress with rich (series done and the
time left) and prints the leaderboard. Every error is one line on stderr with exit status 2; a
Ctrl-C keeps every finished series and exits with status 130 (the same command continues).
"""

from __future__ import annotations

import argparse
import sys

from holdemjax.validate import cli_error

__all__ = ["add_parser"]


def _fail(what: str) -> int:
    return cli_error("league", what)


def _executor(args):
    from holdemjax.league import play

    cache = not args.no_compile_cache
    if args.ray is not None:
        return play.RayCluster(args.ray, compile_cache=cache)
    if args.workers > 1:
        return play.ProcessPool(args.workers, compile_cache=cache)
    return play.Inline(compile_cache=cache)


def _folder(args: argparse.Namespace):
    import pathlib

    return pathlib.Path(args.out or f"league-{args.format}-seed{args.seed}")


def _league(args: argparse.Namespace) -> int:
    """The command; any Ctrl-C, from the first import to the last file written, exits 130
    with its message (issue 50, finding 9)."""
    from holdemjax.series.interrupt import CTRL_C

    with CTRL_C as ctrl_c:
        try:
            return _play(args, ctrl_c)
        except KeyboardInterrupt:
            out = _folder(args)
            kept = len(list((out / "series").glob("[0-9][0-9][0-9][0-9]")))
            _fail(f"interrupted: {kept} series kept in {out}; run the same command to continue")
            return 130


def _play(args: argparse.Namespace, ctrl_c) -> int:

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from holdemjax.league import play, pool, run

    if args.workers < 1:
        return _fail(f"--workers must be >= 1, got {args.workers}")
    if args.ray is not None and args.workers > 1:
        return _fail("give --workers or --ray, not both")
    if args.ray is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            return _fail("--ray needs Ray: pip install -e '.[ray]' in a checkout, "
                         "pip install 'holdemjax[ray]' else")
    if args.final is None and args.final_games is not None:
        return _fail("--final-games needs --final K")
    if args.demo and len(args.pool) != 1:
        return _fail(f"--demo builds one pool folder, got {len(args.pool)} ({' '.join(args.pool)})")
    if args.demo and args.demo_exports is None:
        return _fail("--demo needs the checkpoints' exporter: run it as holdemjax league")
    spec = run.LeagueSpec(format=args.format, seed=args.seed, games=args.games,
                          tournaments=args.tournaments, final=args.final,
                          final_games=200 if args.final_games is None else args.final_games,
                          max_wall=args.max_wall, luck=args.luck)
    try:
        spec.check()
        if args.demo:
            from holdemjax.league.demo import build_demo_pool

            build_demo_pool(args.pool[0], args.demo_exports(), say=print)
        bots = pool.load_pool(args.pool)
    except (run.LeagueError, pool.PoolError) as exc:
        return _fail(str(exc))
    out = _folder(args)
    console = Console(width=None if sys.stdout.isatty() else 120)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    tasks: dict[str, int] = {}
    try:
        # no bar on a log: a transient one leaves a blank line there
        with Progress(*columns, console=console, transient=True,
                      disable=not console.is_terminal) as bar:
            def progress(stage, done, total):
                ctrl_c.check()  # one that was swallowed on its way
                if stage not in tasks:
                    what = "certified" if stage == "certification" else f"{stage} series"
                    tasks[stage] = bar.add_task(what, total=total)
                bar.update(tasks[stage], completed=done, total=total)

            doc = run.run_league(spec, bots, out, _executor(args), progress=progress)
    except (run.LeagueError, play.ExecutorError) as exc:
        return _fail(str(exc))
    ctrl_c.check()
    _show(console, doc, out)
    return 0


def _show(console, doc: dict, out) -> None:
    from rich.table import Table

    for stage in doc["stages"]:
        table = Table(title=f"{stage['stage']}: {stage['series_played']} series",
                      caption="score: the mean game score, ± its standard error; rating: "
                      "OpenSkill's mu - 3 sigma over every game, which counts whom a bot met")
        lucky = bool(stage["rows"]) and all("luck" in r for r in stage["rows"])  # --luck
        for col in ("#", "bot", "score", "± SE", *(("luck out", "± SE ") if lucky else ()),
                    "games", "1st", "faults", "rating"):
            table.add_column(col, justify="left" if col == "bot" else "right")
        for r in stage["rows"]:
            luck = (f"{r['luck']['mean']:.4f}", f"{r['luck']['stderr']:.4f}") if lucky else ()
            table.add_row(str(r["rank"]), r["bot"], f"{r['mean']:.4f}", f"{r['stderr']:.4f}",
                          *luck, str(r["games"]), str(r["places"]["1"]), str(len(r["faults"])),
                          f"{r['rating']['ordinal']:.2f}")
        console.print(table)
    console.print(f"leaderboard: {out / 'leaderboard.html'}", markup=False)


def add_parser(subparsers, demo_exports=None) -> argparse.ArgumentParser:
    """Add ``league`` to the ``holdemjax`` sub-parsers; ``demo_exports()``: the checkpoints
    of ``--demo`` and their exporter (`holdemjax.league.demo.Exports`)."""
    p = subparsers.add_parser("league", help="a league of WebAssembly policies: certification, "
                              "balanced random line-ups, a leaderboard (docs/league.md)")
    p.add_argument("pool", nargs="+", help="the pool: .wasm files and/or folders of them")
    p.add_argument("--demo", action="store_true", help="first build the demo pool into the "
                   "pool folder (kept modules are not built again): the bundled baseline and "
                   "random and the shipped checkpoints exported greedy and sampled, ten bots; "
                   "the exports need pip install -e '.[sdk]'")
    p.add_argument("--format", default="sng-6", help="sng-6 (default) or ring-9")
    p.add_argument("--seed", type=int, default=0, help="league seed (default 0)")
    p.add_argument("--games", type=int, default=30, help="games per bot, at least (default 30)")
    p.add_argument("--tournaments", type=int, default=10, help="games per series (default 10)")
    p.add_argument("--final", type=int, metavar="K", help="then a final of the top K (the "
                   "format's seats: 6 or 9), fixed line-up, seats shuffled every game")
    p.add_argument("--final-games", type=int, metavar="N", help="games of the final "
                   "(default 200)")
    p.add_argument("--out", help="league folder (default league-FORMAT-seedSEED); the same "
                   "command continues an interrupted league there")
    p.add_argument("--workers", type=int, default=1, help="processes on this machine")
    p.add_argument("--luck", action="store_true", help="each bot's score with the luck of the "
                   "cards taken out too, ± SE (the series run with --luck; docs/luck.md)")
    p.add_argument("--ray", metavar="ADDRESS", help="run on a Ray cluster (ADDRESS or auto; "
                   "pip install 'holdemjax[ray]')")
    p.add_argument("--max-wall", type=float, default=600.0, help="wall-time limit of one "
                   "series in seconds (default 600)")
    p.add_argument("--no-compile-cache", action="store_true", help="compile the engine afresh "
                   "in every process (see holdemjax series --help)")
    p.set_defaults(func=_league, demo_exports=demo_exports)
    return p
