"""Random-play speed of the rules engine (holdemjax/poker/table.py) against OpenSpiel and PokerKit.

    python benchmarks/bench_engine.py [--seconds 8] [--windows 7] [--batches 1024 4096] [--out DIR]

All three play six-max no-limit hold'em, stacks 1,500, blinds 10/20, no ante, with the same
random policy: uniform among the legal kinds -- fold (only when facing a bet: neither PokerKit's
tournament mode nor OpenSpiel offers it otherwise), check/call, bet/raise -- and a raise-to
uniform over the legal range. Every hand is a fresh deal at full stacks.

* holdemjax: ``jit(vmap(act))`` inside a ``lax.scan`` over decisions, batches of 1,024 and 4,096
  tables; a table whose hand ended starts a new hand (new deck, blinds) in the same step (a pool
  of ``batch / 10`` fresh deals per step, about the rate at which hands end; a table that finds
  the pool empty waits one step and counts no decision). Compile time is measured apart.
* OpenSpiel ``universal_poker`` 6-max ``fullgame`` (one action per raise-to amount), one hand at
  a time, driven with O(1) Python per decision (`holdemjax.bench.play_openspiel`, one raise slot).
* PokerKit 0.7.7: ``NoLimitTexasHoldem`` with every automation on, one hand at a time.

The engines run in interleaved windows (`holdemjax.bench.interleave`); each figure is the median
of its windows. Writes ``benchmarks/results/engine.json``. Goal: >= 20x OpenSpiel's
decisions/s.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import warnings

import jax
import jax.numpy as jnp

from holdemjax import bench, xla
from holdemjax.poker import table as T
from holdemjax.poker.cards import hand_deck

SEATS = 6
STACK = 1500
SMALL_BLIND, BIG_BLIND = 10, 20
GOAL = 20.0  # x OpenSpiel's decisions/s, at every batch size

# ----------------------------------------------------------------------------------------------
# holdemjax
# ----------------------------------------------------------------------------------------------


def _new_hands(key: jax.Array, batch: int) -> T.Table:
    """Fresh six-max hands at full stacks, button on a random seat, new decks."""
    k_deck, k_button = xla.split_at(key, 0), xla.split_at(key, 1)
    decks = jax.vmap(hand_deck, (None, 0))(k_deck, jnp.arange(batch))
    alive = jnp.ones((batch, SEATS), bool)
    button = (xla.bits(k_button, (batch,)) % SEATS).astype(jnp.int32)
    button, sb, bb, posts = jax.vmap(T.first_positions)(alive, button)
    full = lambda v: jnp.full((batch,), v, jnp.int32)
    return jax.vmap(T.start_hand)(jnp.full((batch, SEATS), STACK, jnp.int32), alive, button, sb,
                                  bb, posts, full(SMALL_BLIND), full(BIG_BLIND), full(0), decks)


def _policy(key: jax.Array, lg: T.Legal):
    """Uniform over the legal kinds (fold only when facing a bet), raise-to uniform in range."""
    draws = xla.bits(key, (2,) + lg.can_check.shape)
    can_fold = ~lg.can_check
    kinds = jnp.stack([can_fold, jnp.ones_like(can_fold), lg.can_raise], axis=-1)
    count = kinds.sum(-1, dtype=jnp.int32)
    pick = (draws[0] % count.astype(jnp.uint32)).astype(jnp.int32)  # the pick-th legal kind
    kind = jnp.argmax(jnp.cumsum(kinds, axis=-1, dtype=jnp.int32) > pick[..., None], axis=-1)
    span = jnp.maximum(lg.max_raise_to - lg.min_raise_to + 1, 1).astype(jnp.uint32)
    amount = lg.min_raise_to + (draws[1] % span).astype(jnp.int32)
    return kind.astype(jnp.int32), amount


def make_engine_run(batch: int, steps: int, refill: int):
    """A jitted function (tables, key) -> (tables, key, hands finished, decisions) playing
    ``steps`` decisions on every table.

    Each step deals ``refill`` fresh hands and hands them to the tables whose hand just ended
    (in batch order); a table left over waits one step (it counts no decision).
    """

    def step(carry, _):
        tables, key, hands, decisions = carry
        key, k_act, k_new = (xla.split_at(key, i) for i in range(3))
        kind, amount = _policy(k_act, jax.vmap(T.legal)(tables))
        deciding = ~tables.hand_over
        tables = jax.vmap(T.act)(tables, kind, amount)
        done = tables.hand_over
        fresh = _new_hands(k_new, refill)
        rank = jnp.cumsum(done) - 1
        take = done & (rank < refill)
        slot = jnp.clip(rank, 0, refill - 1)
        tables = jax.tree.map(
            lambda new, old: jnp.where(take.reshape(take.shape + (1,) * (old.ndim - 1)),
                                       new[slot], old),
            fresh, tables)
        hands = hands + (deciding & done).sum()
        return (tables, key, hands, decisions + deciding.sum()), None

    @jax.jit
    def run(tables, key):
        zero = jnp.int32(0)
        (tables, key, hands, decisions), _ = jax.lax.scan(
            step, (tables, key, zero, zero), None, length=steps)
        return tables, key, hands, decisions

    return run


class EngineSide(bench.Side):
    """One batch size of our engine, compiled once (timed apart)."""

    unit = "decisions/s"

    def __init__(self, batch: int, steps: int, refill_frac: float = 0.1):
        super().__init__()
        self.name, self.batch = f"holdemjax B={batch:,}", batch
        key = jax.random.key(0)
        self.tables = jax.jit(_new_hands, static_argnums=1)(key, batch)
        self.key = key
        run = make_engine_run(batch, steps, max(1, int(batch * refill_frac)))
        t0 = time.perf_counter()
        self.run = run.lower(self.tables, key).compile()
        self.compile_s = time.perf_counter() - t0
        self.info = {"batch": batch, "steps_per_call": steps, "refill": refill_frac}

    def _run(self, seconds: float) -> dict:
        hands = decisions = 0
        t0 = time.perf_counter()
        while True:
            self.tables, self.key, h, d = self.run(self.tables, self.key)
            hands += int(h)
            decisions += int(d)
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                return {"count": decisions, "hands": hands, "seconds": elapsed}


# ----------------------------------------------------------------------------------------------
# PokerKit
# ----------------------------------------------------------------------------------------------


class PokerKitSide(bench.Side):
    """PokerKit's ``NoLimitTexasHoldem``, every automation on, one hand at a time."""

    unit = "decisions/s"

    def __init__(self, seed: int = 0):
        super().__init__()
        import pokerkit
        from pokerkit import Automation, Mode, NoLimitTexasHoldem

        warnings.filterwarnings("ignore", module="pokerkit")
        self.name = f"PokerKit {getattr(pokerkit, '__version__', '')}".strip()
        autos = tuple(Automation)
        self.new = lambda: NoLimitTexasHoldem.create_state(
            autos, False, 0, (SMALL_BLIND, BIG_BLIND), BIG_BLIND, (STACK,) * SEATS, SEATS,
            mode=Mode.TOURNAMENT)
        self.state = self.new()
        self.rng = random.Random(seed)

    def _run(self, seconds: float) -> dict:
        rng, state = self.rng, self.state
        hands = decisions = 0
        t0 = time.perf_counter()
        while True:
            for _ in range(64):
                if not state.status:
                    state = self.new()
                    hands += 1
                    continue
                kinds = [1]
                if state.checking_or_calling_amount:
                    kinds.append(0)
                if state.can_complete_bet_or_raise_to():
                    kinds.append(2)
                kind = kinds[int(rng.random() * len(kinds))]
                if kind == 0:
                    state.fold()
                elif kind == 1:
                    state.check_or_call()
                else:
                    lo = state.min_completion_betting_or_raising_to_amount
                    hi = state.max_completion_betting_or_raising_to_amount
                    state.complete_bet_or_raise_to(lo + int(rng.random() * (hi - lo + 1)))
                decisions += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                self.state = state
                return {"count": decisions, "hands": hands, "seconds": elapsed}


# ----------------------------------------------------------------------------------------------


OPENSPIEL_GAME = bench.openspiel_game_string(SEATS, STACK, (SMALL_BLIND, BIG_BLIND))


def main(argv=None) -> int:
    from rich.console import Console
    from rich.table import Table as RichTable

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--steps", type=int, default=100, help="decisions per scan call")
    parser.add_argument("--seconds", type=float, default=8.0, help="run time per engine")
    parser.add_argument("--windows", type=int, default=7)
    parser.add_argument("--refill", type=float, default=0.1,
                        help="fresh deals per step, as a fraction of the batch")
    parser.add_argument("--no-pokerkit", action="store_true")
    parser.add_argument("--out", help="folder for engine.json (default benchmarks/results)")
    args = parser.parse_args(argv)
    console = Console(width=150)
    load_before = os.getloadavg()
    peers: list[bench.Side] = []
    notes = []
    if bench.openspiel_available():
        spiel = bench.OpenSpielSide(OPENSPIEL_GAME, bench.RAISE_SLOTS_KINDS, seed=1)
        spiel.name = "OpenSpiel universal_poker fullgame"
        peers.append(spiel)
    else:
        notes.append("OpenSpiel not installed: no OpenSpiel figure (pip install -e '.[bench]')")
    if not args.no_pokerkit:
        peers.append(PokerKitSide())
    engines = [EngineSide(batch, args.steps, args.refill) for batch in args.batches]
    sides = peers + engines
    bench.interleave(sides, args.seconds, args.windows)
    cells = [s.cell() for s in sides]
    spiel_cell = cells[0] if bench.openspiel_available() else None
    comparisons = []
    for eng in cells[len(peers):]:
        for peer in cells[:len(peers)]:
            goal = GOAL if spiel_cell is not None and peer is spiel_cell else None
            comparisons.append(bench.compare(f"{eng.side} vs {peer.side}", eng, peer, goal))
    path = bench.write_results(
        "engine", title="Rules engine: random six-max hands vs OpenSpiel and PokerKit",
        cells=cells, comparisons=comparisons, out_dir=args.out, load_before=load_before,
        params={"seats": SEATS, "stack": STACK, "blinds": [SMALL_BLIND, BIG_BLIND],
                "seconds": args.seconds, "windows": args.windows, "batches": args.batches,
                "steps": args.steps, "refill": args.refill,
                "policy": "uniform legal kind (fold facing a bet, check/call, raise), "
                          "uniform raise-to"}, notes=notes)

    out = RichTable(title="6-max NLHE random play, median of interleaved windows")
    for col in ("engine", "decisions/s", "hands/s", "decisions/hand", "compile s"):
        out.add_column(col, justify="right" if col != "engine" else "left")
    for c in cells:
        hands = sum(w["hands"] for w in c.windows)
        out.add_row(c.side, f"{c.median:,.0f}", f"{c.rate_of('hands'):,.0f}",
                    f"{sum(w['count'] for w in c.windows) / max(hands, 1):.1f}",
                    "" if c.compile_s is None else f"{c.compile_s:.1f}")
    console.print(out)
    for comp in comparisons:
        console.print(f"{comp.key}: {comp.ratio:.1f}x (q1 {comp.q1:.1f})"
                      + ("" if comp.goal is None else
                         f", goal {comp.goal:g}x {'met' if comp.met else 'NOT met'}"))
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
