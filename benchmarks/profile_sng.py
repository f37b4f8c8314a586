"""Where the time of one `sng-6` step goes: each phase jitted apart under `vmap` at one batch size.

Run ``python benchmarks/profile_sng.py [--batch 1024] [--env sng-6] [--repeats 20]``. The states
are taken from random play (``act_randomly`` with auto-reset, as ``holdemjax bench`` plays), so
every row is at a realistic point of a tournament; each phase then runs on that batch:

* ``bench step``: the benchmark's whole step (``auto_reset(env.step, env.init)``);
* ``env.step``, ``env.init`` (auto-reset computes a new game for every row at every step under
  ``vmap``: a ``cond`` on batched data computes both sides);
* the pieces of a step: the menu (``legal`` + ``mask_and_amounts``), the decision
  (``tournament.act``), ``tournament.advance`` (finishing hands and dealing the next ones),
  ``tournament.next_hand`` (one
  trip of that loop, forced for every row), ``_observe``;
* the pieces of a deal: ``hand_deck`` (the 52-card permutation), ``evaluate`` of every seat,
  ``start_hand``, ``pay_pots``.

Times are the best of ``--repeats`` calls (the machine is shared), in microseconds per batched
call and nanoseconds per row. Phases overlap (a step contains the others), so they do not add up.

``--trace N`` also profiles the benchmark's step with ``jax.profiler`` and prints its N costliest
XLA kernels (summed over calls and threads, with the JAX op each comes from): the way to find a
fusion that recomputes an expensive producer (see ``holdemjax.xla.compute_once``) or work
hoisted out of a ``while_loop``. Kernel times under the profiler run about 1.5-2x the untraced ones.
"""

from __future__ import annotations

import argparse
import collections
import glob
import re
import tempfile
import time

import jax
import jax.numpy as jnp

import holdemjax
from holdemjax.experimental import act_randomly, auto_reset
from holdemjax.poker import table as tb
from holdemjax.poker import tournament
from holdemjax.poker._pots import pay_pots
from holdemjax.poker.cards import dealt_deck, hand_deck
from holdemjax.poker.evaluator import evaluate


def _states(env, batch: int, warmup: int, seed: int = 0):
    """A batch of states after `warmup` random steps with auto-reset, plus an action batch."""
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(seed), batch))
    key = jax.random.key(seed + 1)
    for _ in range(warmup):
        key, k_act, k_step = jax.random.split(key, 3)
        action = act_randomly(k_act, state.legal_action_mask)
        state = step(state, action, jax.random.split(k_step, batch))
    key, k_act = jax.random.split(key)
    return state, act_randomly(k_act, state.legal_action_mask)


def _time(fn, *args, repeats: int) -> tuple[float, float]:
    """(compile seconds, best seconds per call) of ``jax.jit(fn)(*args)``."""
    t0 = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    compile_s = time.perf_counter() - t0
    jax.block_until_ready(compiled(*args))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(compiled(*args))
        best = min(best, time.perf_counter() - t0)
    return compile_s, best


def _trace(fn, args, top: int, calls: int = 20) -> None:
    """Print the `top` costliest XLA kernels of ``jax.jit(fn)(*args)`` under jax.profiler."""
    compiled = jax.jit(fn).lower(*args).compile()
    source = dict(re.findall(r'^\s+%(\S+) = .*?op_name="([^"]*)"', compiled.as_text(), re.M))
    jax.block_until_ready(compiled(*args))
    with tempfile.TemporaryDirectory() as logdir:
        with jax.profiler.trace(logdir):
            for _ in range(calls):
                jax.block_until_ready(compiled(*args))
        path = glob.glob(logdir + "/**/*.xplane.pb", recursive=True)[0]
        data = jax.profiler.ProfileData.from_file(path)
    spent = collections.defaultdict(lambda: [0, 0.0])  # kernel -> [count, ns]
    for plane in data.planes:
        for line in plane.lines:
            if not line.name.startswith("tf_XLA"):
                continue
            for ev in line.events:
                if ev.name.startswith(("ThunkExecutor", "while")):  # containers, not kernels
                    continue
                spent[ev.name][0] += 1
                spent[ev.name][1] += ev.duration_ns
    total = sum(ns for _, ns in spent.values())
    print(f"\nkernels of the bench step under the profiler: {total / calls / 1e3:.0f} us/call")
    print(f"{'us/call':>9} {'runs':>5}  kernel / JAX op")
    for name, (count, ns) in sorted(spent.items(), key=lambda kv: -kv[1][1])[:top]:
        op = re.sub(r"^jit\([^)]*\)/(vmap\(\)/)?", "", source.get(name, "?"))
        print(f"{ns / calls / 1e3:9.1f} {count / calls:5.1f}  {name[:30]:30s} {op[-90:]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="sng-6")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--warmup", type=int, default=40, help="random steps before measuring")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--only", default="", help="comma-separated phase names to run")
    ap.add_argument("--trace", type=int, default=0, metavar="N",
                    help="also print the N costliest XLA kernels of the bench step")
    args = ap.parse_args()

    env = holdemjax.make(args.env)
    b, n = args.batch, env.num_players
    state, action = _states(env, b, args.warmup)
    keys = jax.random.split(jax.random.key(7), b)
    tour = env.tournament(state)
    t = tour.table
    fmt = env.format
    decks = jax.vmap(lambda h: hand_deck(jax.random.key(3), h))(jnp.arange(b))
    seven = jnp.concatenate([t.hole, jnp.broadcast_to(t.board[:, None, :], (b, n, 5))], axis=-1)
    live = t.in_hand & ~t.folded
    alive = tour.alive
    positions = jax.vmap(tb.next_positions)(alive, t.button, t.sb, t.bb)
    v = jax.vmap

    def menu(s):
        table = env.tournament(s).table
        return env.menu.mask_and_amounts(table, tb.legal(table))

    def act(s, a):
        _, amounts = menu(s)
        kind, amount = env.menu.to_engine(a, amounts)
        return tournament.act(env.tournament(s), kind, amount)

    phases = {
        "bench step": (v(auto_reset(env.step, env.init)), (state, action, keys)),
        "env.step": (v(env.step), (state, action)),
        "env.init": (v(env.init), (keys,)),
        "menu (legal+mask)": (v(menu), (state,)),
        "tournament.act": (v(act), (state, action)),
        "tournament.advance": (v(tournament.advance), (tour,)),
        "tournament.next_hand (all rows)": (v(tournament.next_hand), (tour,)),
        "_observe": (v(lambda s: env._observe(s, s.current_player)), (state,)),
        "tb.legal": (v(tb.legal), (t,)),
        "tb.act (call)": (v(lambda x: tb.act(x, tb.CHECK_CALL)), (t,)),
        "hand_deck": (v(lambda h: hand_deck(jax.random.key(3), h)), (jnp.arange(b),)),
        "dealt_deck": (v(lambda h: dealt_deck(jax.random.key(3), h, n)), (jnp.arange(b),)),
        "places_of_busts": (v(lambda x: tournament.places_of_busts(
                                x, x.alive & (x.table.stacks == 0),
                                x.alive & (x.table.stacks > 0))),
                            (tour,)),
        "evaluate (N seats)": (v(evaluate), (seven,)),
        "start_hand": (v(lambda s, a, p, d: tb.start_hand(s, a, *p, 10, 20, 0, d)),
                       (t.stacks, alive, positions, decks)),
        "pay_pots": (v(pay_pots), (t.contrib, t.dead, live, t.strength, t.button)),
        "next_positions": (v(tb.next_positions), (alive, t.button, t.sb, t.bb)),
    }
    only = [p.strip() for p in args.only.split(",") if p.strip()]
    print(f"{args.env}, batch {b}, best of {args.repeats}; format hand cap {int(fmt.hand_cap)}")
    print(f"{'phase':<24}{'compile s':>10}{'us/call':>12}{'ns/row':>10}")
    for name, (fn, fargs) in phases.items():
        if only and name not in only:
            continue
        compile_s, best = _time(fn, *fargs, repeats=args.repeats)
        print(f"{name:<24}{compile_s:>10.2f}{best * 1e6:>12.0f}{best * 1e9 / b:>10.0f}")
    if args.trace:
        fn, fargs = phases["bench step"]
        _trace(fn, fargs, args.trace)


if __name__ == "__main__":
    main()
