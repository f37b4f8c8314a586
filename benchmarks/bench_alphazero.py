"""AlphaZero on Connect Four (`holdemjax.training.alphazero`): train on this CPU for a wall-time
budget, then play the trained agent against the fixed plain-MCTS opponent with both colours.

    python benchmarks/bench_alphazero.py                      # the committed result
    python benchmarks/bench_alphazero.py --max-minutes 2 --eval-games 40 --json /tmp/az.json

Training stops at ``--iterations`` or when ``--max-minutes`` of training have passed, whichever
comes first (the iterations done are recorded: ``--iterations N --max-minutes 0`` replays the same
run, bit for bit on the same machine). The evaluation plays ``--eval-games`` games against
`mcts_opponent` with ``--opponent-simulations`` (half with the agent moving first), the same
against a stronger opponent (``--strong-simulations``), and the untrained network behind the same
search as a control. Writes ``benchmarks/results/alphazero_connect_four.json``: date, machine
(load average before and after), versions, command, wall times, win/draw/loss counts, the score
with its 95% Wilson interval and the one-sided sign-test p-value.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import os
import pathlib
import sys
import time

import flax.serialization
import jax

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from holdemjax.bench.core import header, results_dir  # noqa: E402
from holdemjax.training import alphazero as az  # noqa: E402

NAME = "alphazero_connect_four"


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, round(time.perf_counter() - start, 1)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--max-minutes", type=float, default=20.0, help="0: no time limit")
    p.add_argument("--eval-games", type=int, default=400)
    p.add_argument("--opponent-simulations", type=int, default=64)
    p.add_argument("--strong-simulations", type=int, default=256)
    p.add_argument("--strong-games", type=int, default=200)
    p.add_argument("--control-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=pathlib.Path, default=None)
    p.add_argument("--save", type=pathlib.Path, default=None,
                   help="write the trained parameters there (flax msgpack)")
    args = p.parse_args(argv)
    cfg = az.Config(seed=args.seed)
    load_before = os.getloadavg()
    start = time.perf_counter()
    (params, history), train_s = _timed(
        az.train, cfg, args.iterations, max_seconds=args.max_minutes * 60 or None)
    if args.save:
        args.save.write_bytes(flax.serialization.to_bytes(params))
    untrained = az.Trainer(cfg).init(jax.random.split(jax.random.key(cfg.seed))[0]).params
    evals = {}
    for name, net, games, sims in (
            ("vs_mcts", params, args.eval_games, args.opponent_simulations),
            ("vs_strong_mcts", params, args.strong_games, args.strong_simulations),
            ("untrained_vs_mcts", untrained, args.control_games, args.opponent_simulations)):
        if games:
            result, secs = _timed(az.evaluate, net, cfg, games=games,
                                  opponent_simulations=sims, seed=args.seed + 1)
            evals[name] = {"opponent_simulations": sims, **result, "wall_s": secs}
            print(name, json.dumps(evals[name]))
    doc = header(NAME, "AlphaZero (mctx Gumbel MuZero) on connect_four against plain MCTS",
                 load_before=load_before)
    doc["versions"]["mctx"] = importlib.metadata.version("mctx")
    doc.update({
        "config": dataclasses.asdict(cfg),
        "iterations_done": len(history),
        "games_trained": int(sum(h["games"] for h in history)),
        "wall_s": {"train": train_s, "total": round(time.perf_counter() - start, 1)},
        "opponent": ("plain MCTS (UCT) built on mctx.search: UCB1 selection (each legal "
                     f"column tried once, then exploration constant {az.UCT_C:.4f} on values "
                     "in [0, 1]), one node expanded per simulation and valued by one uniformly "
                     "random rollout to the game's end, the most-visited column played"),
        "agent": (f"the trained network behind mctx.gumbel_muzero_policy, {cfg.simulations} "
                  "simulations, no Gumbel noise (gumbel_scale=0)"),
        "significance": ("score = (wins + draws/2) / games with its 95% Wilson interval; "
                         "p_value_sign_test: one-sided exact binomial of wins among decided "
                         "games against 1/2"),
        "evaluations": evals,
        "history": history[::max(1, len(history) // 50)] + history[-1:],
    })
    out = args.json or results_dir() / f"{NAME}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
