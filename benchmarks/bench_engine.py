"""Random-play speed of the rules engine (holdemjax/poker/table.py) against PokerKit and OpenSpiel.

All three play six-max no-limit hold'em, stacks 1,500, blinds 10/20, no ante, with the same
random policy: pick uniformly among the legal kinds -- fold (only when facing a bet: neither
PokerKit's tournament mode nor OpenSpiel offers it otherwise), check/call, bet/raise -- and a
raise size uniform over the legal raise-to range. Every hand is a fresh deal at full stacks.

* holdemjax: ``jit(vmap(act))`` inside a ``lax.scan`` over decisions, batches of 1,024 and 4,096
  tables; a table whose hand ended starts a new hand (new deck, blinds) in the same step (a pool
  of ``batch / 10`` fresh deals per step, about the rate at which hands end; a table that finds
  the pool empty waits one step). Compile time is measured apart from run time.
* PokerKit 0.7.7: ``NoLimitTexasHoldem`` with every automation on, one hand at a time.
* OpenSpiel ``universal_poker`` 6-max ``fullgame`` (one action per raise-to amount), chance
  nodes sampled uniformly, one hand at a time (``pip install open-spiel``; skipped if missing).

The engines are measured in interleaved rounds (OpenSpiel, PokerKit, then each batch size, a slice
each, ``--rounds`` times), so that a change in machine load between phases does not skew the
ratios. Run ``python benchmarks/bench_engine.py`` (``--quick`` for a short run); it prints a rich
table with the ratios to OpenSpiel and PokerKit.
"""

from __future__ import annotations

import argparse
import random
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.bench import openspiel_game_string, openspiel_random_play
from holdemjax.poker import table as T

SEATS = 6
STACK = 1500
SMALL_BLIND, BIG_BLIND = 10, 20

# ----------------------------------------------------------------------------------------------
# holdemjax
# ----------------------------------------------------------------------------------------------


def _new_hands(key: jax.Array, batch: int) -> T.Table:
    """Fresh six-max hands at full stacks, button on a random seat, new decks."""
    k_deck, k_button = jax.random.split(key)
    decks = jax.vmap(lambda k: jax.random.permutation(k, 52).astype(jnp.int32))(
        jax.random.split(k_deck, batch))
    alive = jnp.ones((batch, SEATS), bool)
    button, sb, bb, posts = jax.vmap(T.first_positions)(
        alive, jax.random.randint(k_button, (batch,), 0, SEATS))
    full = lambda v: jnp.full((batch,), v, jnp.int32)  # noqa: E731
    return jax.vmap(T.start_hand)(jnp.full((batch, SEATS), STACK, jnp.int32), alive, button, sb,
                                  bb, posts, full(SMALL_BLIND), full(BIG_BLIND), full(0), decks)


def _policy(key: jax.Array, lg: T.Legal):
    """Uniform over the legal kinds (fold only when facing a bet), raise-to uniform in range."""
    k_kind, k_amount = jax.random.split(key)
    can_fold = ~lg.can_check
    allowed = jnp.stack([can_fold, jnp.ones_like(can_fold), lg.can_raise], axis=-1)
    logits = jnp.where(allowed, 0.0, -jnp.inf)
    kind = jax.random.categorical(k_kind, logits, axis=-1).astype(jnp.int32)
    span = jnp.maximum(lg.max_raise_to - lg.min_raise_to + 1, 1)
    amount = lg.min_raise_to + jax.random.randint(k_amount, kind.shape, 0, 2**30) % span
    return kind, amount.astype(jnp.int32)


def make_engine_run(batch: int, steps: int, refill: int):
    """A jitted function (tables, key) -> (tables, key, hands finished, decisions) playing
    ``steps`` decisions on every table.

    Each step deals ``refill`` fresh hands and hands them to the tables whose hand just ended
    (in batch order); a table left over waits one step (it counts no decision). Dealing only
    ``refill`` hands per step instead of ``batch`` keeps the deck shuffles (a sort each, slow on
    CPU) near the rate at which hands actually end.
    """

    def step(carry, _):
        tables, key, hands, decisions = carry
        key, k_act, k_new = jax.random.split(key, 3)
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


class EngineBench:
    """One batch size: compiled once (timed apart), then run in slices interleaved with the peers."""

    def __init__(self, batch: int, steps: int, refill_frac: float = 0.1):
        self.batch = batch
        key = jax.random.key(0)
        self.tables = jax.jit(_new_hands, static_argnums=1)(key, batch)
        self.key = key
        run = make_engine_run(batch, steps, max(1, int(batch * refill_frac)))
        t0 = time.perf_counter()
        self.run = run.lower(self.tables, key).compile()
        self.compile_s = time.perf_counter() - t0
        self.tables, self.key, _, _ = self.run(self.tables, self.key)  # warm-up
        jax.block_until_ready(self.tables)
        self.hands = self.decisions = 0
        self.seconds = 0.0

    def slice(self, calls: int) -> None:
        t0 = time.perf_counter()
        for _ in range(calls):
            self.tables, self.key, h, d = self.run(self.tables, self.key)
            self.hands += int(h)
            self.decisions += int(d)
        self.seconds += time.perf_counter() - t0

    def row(self) -> dict:
        return dict(name=f"holdemjax jit(vmap) batch {self.batch}", hands=self.hands,
                    decisions=self.decisions, seconds=self.seconds, compile_s=self.compile_s)


# ----------------------------------------------------------------------------------------------
# PokerKit
# ----------------------------------------------------------------------------------------------


def bench_pokerkit(seconds: float, rng: random.Random) -> dict:
    from pokerkit import Automation as A, Mode, NoLimitTexasHoldem

    autos = tuple(A)  # every automation
    warnings.filterwarnings("ignore")
    hands = decisions = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = NoLimitTexasHoldem.create_state(autos, False, 0, (SMALL_BLIND, BIG_BLIND),
                                                BIG_BLIND, (STACK,) * SEATS, SEATS,
                                                mode=Mode.TOURNAMENT)
        while state.status:
            kinds = [1]
            if state.checking_or_calling_amount:
                kinds.append(0)
            if state.can_complete_bet_or_raise_to():
                kinds.append(2)
            kind = rng.choice(kinds)
            if kind == 0:
                state.fold()
            elif kind == 1:
                state.check_or_call()
            else:
                lo = state.min_completion_betting_or_raising_to_amount
                hi = state.max_completion_betting_or_raising_to_amount
                state.complete_bet_or_raise_to(rng.randint(lo, hi))
            decisions += 1
        hands += 1
    return dict(name="PokerKit 0.7.7", hands=hands, decisions=decisions,
                seconds=time.perf_counter() - t0, compile_s=None)


# ----------------------------------------------------------------------------------------------
# OpenSpiel
# ----------------------------------------------------------------------------------------------

OPENSPIEL_GAME = openspiel_game_string(SEATS, STACK, (SMALL_BLIND, BIG_BLIND))


def bench_openspiel(seconds: float, rng: random.Random) -> dict | None:
    out = openspiel_random_play(seconds, OPENSPIEL_GAME, seed=rng.randrange(2**31))
    if out is None:
        return None
    return dict(name="OpenSpiel universal_poker fullgame", compile_s=None, **out)


# ----------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    from rich.console import Console
    from rich.table import Table as RichTable

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs")
    parser.add_argument("--batches", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--steps", type=int, default=100, help="decisions per scan call")
    parser.add_argument("--repeats", type=int, default=12, help="timed scan calls per batch")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved measuring rounds")
    parser.add_argument("--peer-seconds", type=float, default=20.0)
    parser.add_argument("--refill", type=float, default=0.1,
                        help="fresh deals per step, as a fraction of the batch")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.peer_seconds, args.rounds = 4, 6.0, 2
    console = Console(width=150)
    console.print(f"JAX {jax.__version__} on {jax.devices()[0].platform}: {jax.devices()[0]}")

    engines = [EngineBench(batch, args.steps, args.refill) for batch in args.batches]
    # Interleave the engines in rounds so that a change of machine load hits them all alike.
    rng = random.Random(0)
    totals: dict[str, dict] = {}
    for _ in range(args.rounds):
        slices = [bench_openspiel(args.peer_seconds / args.rounds, rng),
                  bench_pokerkit(args.peer_seconds / args.rounds, rng)]
        for eng in engines:
            eng.slice(max(1, args.repeats // args.rounds))
        for r in slices:
            if r is None:
                continue
            acc = totals.setdefault(r["name"], dict(r, hands=0, decisions=0, seconds=0.0))
            for k in ("hands", "decisions", "seconds"):
                acc[k] += r[k]
    spiel = totals.get("OpenSpiel universal_poker fullgame")
    kit = totals["PokerKit 0.7.7"]
    if spiel is None:
        console.print("OpenSpiel not installed (pip install open-spiel): no OpenSpiel column")
    rows = list(totals.values()) + [eng.row() for eng in engines]

    out = RichTable(title="6-max NLHE random play: hands/s and decisions/s")
    for col in ("engine", "hands", "decisions/hand", "hands/s", "decisions/s", "compile s",
                "× OpenSpiel", "× PokerKit"):
        out.add_column(col, justify="right" if col != "engine" else "left")
    kit_rate = kit["hands"] / kit["seconds"]
    spiel_rate = spiel["hands"] / spiel["seconds"] if spiel else None
    for r in rows:
        rate = r["hands"] / r["seconds"]
        out.add_row(
            r["name"], f"{r['hands']:,}", f"{r['decisions'] / max(r['hands'], 1):.1f}",
            f"{rate:,.0f}", f"{r['decisions'] / r['seconds']:,.0f}",
            "" if r["compile_s"] is None else f"{r['compile_s']:.1f}",
            "" if spiel_rate is None else f"{rate / spiel_rate:,.1f}", f"{rate / kit_rate:,.1f}")
    console.print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
