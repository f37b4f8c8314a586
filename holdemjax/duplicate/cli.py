"""``holdemjax duplicate ...``: create a match, play it (a person, a wasm file or a registered
bot), close it, and read it once closed (leaderboard, review, style, report, verify:
`holdemjax.duplicate.cli_readers`).

`add_parser(subparsers, heroes)` adds the ``duplicate`` command to the ``holdemjax`` parser
(``heroes``: `entrants.HeroLoaders`, the kinds of file beyond .wasm); `main` runs it on its own
(``python -m holdemjax.duplicate.cli``). Results go to stdout, error lines to stderr. Exit
status: 0 done, 1 sealed or a verification failure, 2 a bad request.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import getpass
import json
import pathlib
import re
import sys

from holdemjax.duplicate import cli_readers, keyring, references
from holdemjax.duplicate.entrants import HeroLoaders
from holdemjax.validate import cli_error

__all__ = ["add_parser", "main"]

DEFAULT_STORE = "duplicate.sqlite"


@contextlib.contextmanager
def _progress_bar(what: str, *, stderr: bool = False):
    """Yields a callback ``(done, total)`` shown as a rich progress bar (on stderr with
    ``stderr``; a log that is not a terminal gets rich's plain rendering)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(stderr=stderr, highlight=False, markup=False)
    with Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TextColumn("hands"),
                  console=console) as bar:
        task = bar.add_task(what, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _console_err():
    from rich.console import Console

    return Console(stderr=True, highlight=False, markup=False)


def _console():
    from rich.console import Console

    # markup off: names are user input, and "[x]" in one must print as it is
    return Console(width=None if sys.stdout.isatty() else 120, highlight=False, markup=False)


def _deadline(text: str | None) -> str | None:
    """``+90m`` / ``+2h`` / ``+3d`` from now, or an ISO 8601 time."""
    if text is None:
        return None
    rel = re.fullmatch(r"\+(\d+)([mhd])", text.strip())
    if rel:
        from holdemjax.duplicate.spec import utcnow

        unit = {"m": "minutes", "h": "hours", "d": "days"}[rel.group(2)]
        return (utcnow() + dt.timedelta(**{unit: int(rel.group(1))})).isoformat()
    return text


def _create(args, store, con) -> int:
    from holdemjax.duplicate.spec import MatchSpec

    bots = tuple(b.strip() for b in args.bots.split(",")) if args.bots else ()  # one: for all
    spec = MatchSpec(seats=args.seats, hands=args.hands, small_blind=args.small_blind,
                     big_blind=args.big_blind, ante=args.ante, stack=args.stack, hero=args.hero,
                     bots=bots, participants=args.participants, deadline=_deadline(args.deadline),
                     simultaneous=args.simultaneous, clock=args.clock)
    m = store.create_match(spec, args.seed)
    if args.references == "create":  # the long part of a long match, with its progress shown
        with _progress_bar("reference lines", stderr=args.json) as show:
            references.play(store, m.id, progress=show)
    if args.json:
        print(json.dumps({"match": m.id, "commitment": m.commitment}))
    else:
        con.print(f"match {m.id}")
        con.print(f"commitment {m.commitment}  (SHA-256 of 'salt:seed'; both revealed at close)")
    return 0


def _status(args, store, con) -> int:
    m = store.match(args.match)
    state = store.refresh(args.match)
    m = store.match(args.match)
    s = m.spec
    con.print(f"match {m.id}: {state}" + (f" ({m.close_reason}, {m.closed_at})"
                                          if state == "closed" else ""))
    con.print(f"{s.seats} seats, {s.hands} hands, blinds {s.small_blind}/{s.big_blind}"
              f"{f' ante {s.ante}' if s.ante else ''}, {s.stack} chips every hand, hero seat "
              f"{s.hero}, bots {', '.join(s.bots)}; participants "
              f"{s.participants if s.participants is not None else 'open'}; deadline "
              f"{s.deadline or 'none'}")
    con.print(f"commitment {m.commitment}")
    if m.field_closed and state == "open":
        con.print("field closed: nobody else can join")
    for p in store.participants(args.match):
        # Sealed: another participant's line shows only that they took part.
        con.print(f"  {p.name}: " + (p.status if state == "closed" else "took part"))
    if state == "closed":
        con.print(f"seed {m.seed}, salt {m.salt}")
    return 0


def _close(args, store, con) -> int:
    m = store.match(args.match)
    if m.state == "closed":
        con.print(f"match {m.id} was already closed ({m.close_reason}, {m.closed_at})")
    m = store.close_match(args.match, "closed")
    _references(store, args.match)
    for p in store.participants(args.match):
        if p.status == "unfinished":
            done, _ = store.progress(args.match, p.name)
            con.print(f"  {p.name}: unfinished, closed after {done} of {m.spec.hands} hands")
    con.print(f"match {m.id} closed; seed {m.seed}, salt {m.salt}, commitment {m.commitment}")
    return 0


def _run(args, store, con) -> int:
    from holdemjax.duplicate import match as duplicate_match
    from holdemjax.duplicate.policy import WasmHero
    from holdemjax.series.protocol import SeriesVoid
    from holdemjax.series.wasm import PolicyLoadError

    source = args.policy
    suffix = pathlib.Path(source).suffix
    heroes: HeroLoaders = args.hero_loaders
    if args.sample and not (suffix in heroes.sampled and pathlib.Path(source).is_file()):
        raise ValueError(f"--sample plays a policy file that can be sampled (a file of kind "
                         f"{', '.join(sorted(heroes.sampled)) or '-'}); {source!r} is not one "
                         "(a .wasm module plays as it was built: holdemjax export-wasm --sample)")
    if args.sample:
        hero = heroes.sampled[suffix](source)
        name = args.name or f"{pathlib.Path(source).stem}-sample"
    elif source in duplicate_match.bot_names():
        hero, name = duplicate_match.BotHero(source), args.name or source
    elif suffix in heroes.files and pathlib.Path(source).is_file():
        hero = heroes.files[suffix](source)
        name = args.name or pathlib.Path(source).stem
    elif pathlib.Path(source).is_file():
        hero, name = WasmHero(source), args.name or pathlib.Path(source).stem
    else:
        raise ValueError(f"{source!r} is neither a .wasm file nor a registered bot "
                         f"({', '.join(duplicate_match.bot_names())}) nor a file of kind "
                         f"{', '.join(sorted(heroes.files)) or '-'}")
    try:
        status = duplicate_match.play_line(store, args.match, name, hero,
                                           key=keyring.line_key(store, args.match, name))
    except PolicyLoadError as exc:
        raise ValueError(f"{exc}: it does not join the match") from None
    except SeriesVoid as exc:  # nobody's fault: nothing charged, the line kept as played
        return cli_error("duplicate run", f"{exc}; line {name!r} is kept as played, unfinished: "
                         "run the same command again to resume it")
    fault, detail = getattr(hero, "fault", None), getattr(hero, "fault_detail", "")
    benched = f" (benched: {fault}" + (f", {detail})" if detail else ")") if fault else ""
    con.print(f"{name}: line {status}{benched}")
    return 0


def _play(args, store, con) -> int:
    from rich.console import Console

    from holdemjax.duplicate.play import play

    name = args.name or getpass.getuser()
    play(store, args.match, name, key=keyring.line_key(store, args.match, name),
         console=Console())  # card markup
    return 0


def _close_field(args, store, con) -> int:
    state = store.close_field(args.match)
    con.print(f"match {args.match}: field closed; " + (
        "every line was finished, so it closed" if state == "closed" else
        "it closes once every line that joined is finished (or at its deadline)"))
    return 0


def _serve(args, store, con) -> int:
    from holdemjax.duplicate.service import serve

    store.close()  # the service opens its own connections
    return serve(args.store, host=args.host, port=args.port, max_lines=args.max_lines,
                 hero_loaders=args.hero_loaders, idle_s=60 * args.idle_minutes)


def _references(store, match_id: str) -> None:
    """Play what is missing of a closed match's reference lines, showing progress (a match
    created with ``--references close``, closed by its deadline or by its last line)."""
    if store.match(match_id).state == "closed" and references.missing(store, match_id):
        with _progress_bar("reference lines", stderr=True) as show:
            references.play(store, match_id, progress=show)


def _dispatch(args) -> int:
    from holdemjax.duplicate.spec import MatchError
    from holdemjax.duplicate.store import Sealed, Store

    con = _console()
    try:
        with Store(args.store) as store:
            if args.duplicate_func in cli_readers.READERS:
                store.refresh(args.match)  # closing at its deadline is a call, made here
                _references(store, args.match)
            return args.duplicate_func(args, store, con)
    except Sealed as exc:
        _console_err().print(str(exc), style="yellow", soft_wrap=True)
        return 1
    except (MatchError, ValueError) as exc:
        return cli_error(f"duplicate {args.duplicate_command}", str(exc))


def add_parser(subparsers, heroes: HeroLoaders | None = None) -> argparse.ArgumentParser:
    """Add ``duplicate`` (with its sub-commands) to the ``holdemjax`` sub-parsers; ``heroes``:
    the kinds of file beyond .wasm that ``run`` and ``serve`` play (none when None)."""
    heroes = HeroLoaders() if heroes is None else heroes
    dup = subparsers.add_parser("duplicate", help="duplicate poker: every participant plays the "
                                "same deals against the same bots; sealed until the match closes")
    sub = dup.add_subparsers(dest="duplicate_command", required=True)

    def command(name, func, help_, match=True):
        p = sub.add_parser(name, help=help_)
        p.add_argument("--store", default=DEFAULT_STORE, metavar="FILE",
                       help=f"the match store (SQLite; default {DEFAULT_STORE})")
        if match:
            p.add_argument("match", help="the match id (printed by create)")
        p.set_defaults(func=_dispatch, duplicate_func=func, hero_loaders=heroes)
        return p

    p = command("create", _create, "create a match; prints its id and the seed's commitment",
                match=False)
    p.add_argument("--seats", type=int, default=6, help="2..9 (default 6)")
    p.add_argument("--hands", type=int, default=100, help="hands in the match (default 100)")
    p.add_argument("--seed", type=int, help="0..2**128-1 (default: 128 bits drawn at random)")
    p.add_argument("--small-blind", type=int, default=10)
    p.add_argument("--big-blind", type=int, default=20)
    p.add_argument("--ante", type=int, default=0, help="big-blind ante (default 0)")
    p.add_argument("--stack", type=int, default=2000, help="chips of every seat at the start of "
                   "every hand (default 2000)")
    p.add_argument("--hero", type=int, default=0, help="the participants' seat (default 0)")
    p.add_argument("--bots", help="tiers of the other seats in seat order, comma-separated, or "
                   "one tier for all (default intermediate)")
    p.add_argument("--participants", type=int, help="how many may join; the match closes when "
                   "they all finished (default: open until close-field, close or the deadline)")
    p.add_argument("--deadline", help="ISO 8601 time (UTC unless it says) or +30m / +2h / +3d")
    p.add_argument("--simultaneous", action="store_true", help="everyone plays hand k at once")
    p.add_argument("--clock", type=int, default=120, help="simultaneous: seconds per hand, then "
                   "the table checks or folds (default 120)")
    p.add_argument("--json", action="store_true", help='print {"match": ..., "commitment": ...}')
    p.add_argument("--references", choices=("create", "close"), default="create",
                   help="play the reference lines now, showing progress (default), or at close")
    command("status", _status, "the match's settings and who took part (results stay sealed)")
    p = command("play", _play, "play the hero seat in the terminal; resumes where you stopped")
    p.add_argument("--name", help="your participant name (default: your login)")
    p = command("run", _run, "a .wasm policy or a registered bot plays its whole line")
    p.add_argument("policy", help="a .wasm file, a PPO checkpoint (.msgpack: its greedy JAX "
                   "policy, or sampled with --sample), or a bot: beginner, intermediate, "
                   "advanced, random, jax-baseline, jax-random")
    p.add_argument("--sample", action="store_true", help="a checkpoint samples with the draws "
                   "of an export-wasm --sample module (default: greedy)")
    p.add_argument("--name", help="participant name (default: the file's stem or bot name)")
    command("close-field", _close_field, "take no more participants: the match closes as "
            "soon as every line that joined is finished")
    p = command("serve", _serve, "the web service: create, join, play and read matches in a "
                "browser or over its JSON API (the server alone holds the seeds)", match=False)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument("--max-lines", type=int, default=24, help="lines played at once (503 beyond)")
    p.add_argument("--idle-minutes", type=float, default=5, help="a line idle this long leaves "
                   "the lines in play (default 5)")
    command("close", _close, "close the match now: unfinished lines close as played so far; "
            "the seed is revealed")
    p = command("leaderboard", cli_readers.leaderboard, "raw, relative and matchpoint scores "
                "(closed matches)")
    p.add_argument("--json", action="store_true")
    p = command("review", cli_readers.review, "where two lines part, deciding hands, lone folds "
                "and all-ins, streets won and lost")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--json", action="store_true")
    p = command("style", cli_readers.style, "VPIP, PFR, 3-bet, WTSD and aggression of every line")
    p.add_argument("--json", action="store_true")
    p = command("report", cli_readers.report, "write the match's self-contained HTML report")
    p.add_argument("--out", help="the HTML file (default duplicate-MATCH.html)")
    p.add_argument("--luck", action="store_true", help="chips less the luck too (docs/luck.md)")
    p = command("verify", cli_readers.verify, "recompute every deck from the revealed seed and "
                "check the commitment")
    p.add_argument("--commitment", help="also check against this published commitment")
    p.add_argument("--json", action="store_true")
    return dup




def main(argv: list[str] | None = None, heroes: HeroLoaders | None = None) -> int:
    """``holdemjax duplicate`` on its own: ``main(["create", "--store", "m.sqlite", ...])``."""
    parser = argparse.ArgumentParser(prog="holdemjax")
    add_parser(parser.add_subparsers(dest="command", required=True), heroes)
    args = parser.parse_args(["duplicate", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
