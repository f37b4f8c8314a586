"""`holdemjax play`: a sit & go in the browser, the person in one seat and five bots in the
others (docs/play.md). Its parser imports nothing heavy: the bots, JAX and the page load when
the command runs."""

from __future__ import annotations

from holdemjax.validate import cli_error

__all__ = ["add_parser"]


def _command(args) -> int:
    """The bots, seed, clock and output folder checked, then the page served."""
    import importlib.util

    if not all(importlib.util.find_spec(m) for m in ("fastapi", "uvicorn")):
        return cli_error("play", "the page needs FastAPI and uvicorn: pip install "
                         "'holdemjax[service]'")
    from holdemjax.play.page import serve
    from holdemjax.play.sitgo import SEATS, SitGo

    bots = list(args.bots)
    if len(bots) == 1:
        bots *= SEATS - 1
    if len(bots) != SEATS - 1:
        return cli_error("play", f"--bots: one name for every bot, or {SEATS - 1} names "
                         f"(got {len(bots)})")
    if not 0 <= args.port <= 65535:
        return cli_error("play", f"--port must be in 0..65535 ({args.port})")
    if args.seed < 0:
        return cli_error("play", f"--seed must be a non-negative integer ({args.seed})")
    if args.clock is not None and not args.clock > 0:
        return cli_error("play", f"--clock must be a positive number of seconds ({args.clock})")
    try:
        game = SitGo(bots, seed=args.seed, out=args.out, clock_s=args.clock)
    except ValueError as err:
        return cli_error("play", str(err))
    except OSError as err:
        return cli_error("play", f"--out: {err.strerror or err}")
    return serve(game, host=args.host, port=args.port)


def add_parser(sub) -> None:
    """``holdemjax play`` on the command's sub-parsers."""
    p = sub.add_parser("play", help="play a six-max sit & go in the browser against bots; at "
                       "the end, the tournament's replay file and viewer (docs/play.md)")
    p.add_argument("--bots", nargs="+", default=["baseline"], metavar="NAME",
                   help="the five bots: bundled policies (baseline, random) or .wasm files "
                   "(one name: five of it; default baseline)")
    p.add_argument("--seed", type=int, default=0, help="the tournament's seed: the seating "
                   "and every card (default 0)")
    p.add_argument("--clock", type=float, metavar="S", help="seconds for each of your "
                   "decisions, then the table checks or folds for you (default: no clock)")
    p.add_argument("--out", default="holdemjax-play", help="the folder of the replay file, "
                   "its viewer and your recorded decisions (default holdemjax-play)")
    p.add_argument("--port", type=int, default=8053, help="the page's port (default 8053)")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    p.set_defaults(func=_command)
