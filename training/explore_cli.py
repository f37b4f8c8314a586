"""`holdemjax explore POLICY`: the pre-flop explorer's page for a policy (docs/explore.md).
Its parser imports nothing heavy: the policy, JAX and the page load when the command runs."""

from __future__ import annotations

from holdemjax.validate import cli_error

__all__ = ["add_parser"]


def _command(args) -> int:
    """``holdemjax explore POLICY``: the policy and the stage checked, then the page served."""
    from holdemjax.training import explore_policy
    from holdemjax.training.explore import ExploreError, Explorer, Stage
    from holdemjax.training.explore_page import serve

    try:
        policy = explore_policy.load(args.policy, num_keys=args.keys)
        stage = Stage(args.stack, args.level, args.players).check(policy.env)
    except ExploreError as err:
        return cli_error("explore", str(err))
    if not 0 <= args.port <= 65535:
        return cli_error("explore", f"--port must be in 0..65535 ({args.port})")
    drill = None
    if args.drill:
        from holdemjax.training.drills import Drill

        print(f"holdemjax explore: playing {2 * args.rollouts} tournaments of {policy.name} "
              f"against {args.panel} for the drill (compiling first: about a minute)")
        try:
            drill = Drill(policy, args.panel, samples=args.rollouts, seed=args.seed)
        except ExploreError as err:
            return cli_error("explore", str(err))
    return serve(Explorer(policy), stage, host=args.host, port=args.port, drill=drill)


def add_parser(sub) -> None:
    """``holdemjax explore`` on the command's sub-parsers."""
    p = sub.add_parser("explore", help="a local page of a policy's pre-flop strategy: the "
                       "169-hand grid at any position after up to eight actions, at a chosen "
                       "stack and stage, and the earlier actors' ranges (docs/explore.md)")
    p.add_argument("policy", help="a checkpoint (.msgpack) or a policy name: "
                   "baseline, random, passive, allin, the tiers, learned, pushfold, example")
    p.add_argument("--port", type=int, default=8052, help="the page's port (default 8052)")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    p.add_argument("--stack", type=int, default=50, help="every stack, in big blinds (50)")
    p.add_argument("--level", type=int, default=1, help="the blind level, 1-based (1: 10/20)")
    p.add_argument("--players", type=int, default=6, help="players left, 2..6 (6)")
    p.add_argument("--keys", type=int, default=32, help="draws per combo of a policy that "
                   "returns an action (sampled)")
    p.add_argument("--drill", action="store_true", help="also serve drills at /drill: spots "
                   "from the policy's tournaments against --panel, graded by the policy")
    p.add_argument("--panel", default="baseline", help="the drill's opponent (five copies): "
                   "a panel name or a checkpoint (baseline)")
    p.add_argument("--rollouts", type=int, default=16, help="the drill's rollouts per action "
                   "(also half its tournaments: 16)")
    p.add_argument("--seed", type=int, default=0, help="the drill's seed (0)")
    p.set_defaults(func=_command)
