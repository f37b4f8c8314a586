"""Check that the sort-free dealing of `holdemjax.poker.cards` deals exactly what `jax.random` does.

`hand_deck`, `dealt_deck`, `permutation_and_inverse` and `xla.split` (raw keys) compute
`jax.random.permutation` / `split` without XLA's sort and with the threefry hash unrolled (much
faster on the CPU under `vmap`); the cards dealt must not change. This script compares them with
`jax.random` over many keys and hand indices, batched and unbatched, and forces ties of the
32-bit sort keys (which real decks almost never have) through the rank computation, against a
stable sort. Run ``python benchmarks/check_deal_equivalence.py [--hands 20000]``; it exits 1 on
any difference.
"""

from __future__ import annotations

import argparse
import sys

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax import xla
from holdemjax.poker import cards


def _reference_deck(key, hand):
    return jax.random.permutation(jax.random.fold_in(key, hand), 52)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20000)
    args = ap.parse_args()
    failures = []

    def check(name, ok):
        print(f"{'ok ' if ok else 'BAD'} {name}")
        if not ok:
            failures.append(name)

    hands = jnp.arange(args.hands)
    for label, key in [("typed key", jax.random.key(11)), ("raw key", jax.random.PRNGKey(5)),
                       ("rbg key (fallback path)", jax.random.key(5, impl="rbg"))]:
        want = jax.jit(jax.vmap(lambda h: _reference_deck(key, h)))(hands)
        got = jax.jit(jax.vmap(lambda h: cards.hand_deck(key, h)))(hands)
        check(f"hand_deck == permutation(fold_in(key, h), 52), {label}", bool((got == want).all()))
        for seats in (2, 6, 9):
            dealt = np.r_[0:2 * seats, 18:23]
            got = jax.jit(jax.vmap(lambda h: cards.dealt_deck(key, h, seats)))(hands)
            other = np.setdiff1d(np.arange(52), dealt)
            same = bool((got[:, dealt] == want[:, dealt]).all())
            check(f"dealt_deck({seats} seats), {label}", same and bool((got[:, other] == -1).all()))
    key = jax.random.key(11)
    extreme = jnp.array([0, 1, 2**31 - 1, -1, 123456789])
    check("hand_deck at extreme hand indices", bool(
        (jax.vmap(lambda h: cards.hand_deck(key, h))(extreme)
         == jax.vmap(lambda h: _reference_deck(key, h))(extreme)).all()))
    check("hand_deck unbatched", bool((cards.hand_deck(key, 7) == _reference_deck(key, 7)).all()))

    datas = jax.vmap(jax.random.key_data)(jax.random.split(jax.random.key(9), args.hands))
    for size in (2, 6, 9):
        perm, inv = jax.jit(jax.vmap(lambda d: cards.permutation_and_inverse(d, size)))(datas)
        want = jax.jit(jax.vmap(lambda d: jax.random.permutation(d, size)))(datas)
        check(f"permutation_and_inverse({size})",
              bool((perm == want).all()) and bool((inv == jnp.argsort(want, axis=1)).all()))
    first, second = jax.jit(jax.vmap(xla.split))(datas).transpose(1, 0, 2)
    want = jax.jit(jax.vmap(jax.random.split))(datas)
    check("xla.split of raw key data == jax.random.split",
          bool((first == want[:, 0]).all()) and bool((second == want[:, 1]).all()))

    # Ties: keys drawn from a tiny range tie often; some rows tie and some do not.
    tied = jax.random.randint(jax.random.key(0), (4000, 52), 0, 20).astype(jnp.uint32)
    fresh = jax.random.bits(jax.random.key(1), (4000, 52), jnp.uint32)
    keys = jnp.where((jnp.arange(4000) % 7 == 0)[:, None], tied, fresh)
    _, order = jax.lax.sort_key_val(keys, jnp.broadcast_to(jnp.arange(52), keys.shape),
                                    is_stable=True)
    rank = jax.jit(jax.vmap(xla.sort_rank))(keys)
    got = jax.jit(jax.vmap(lambda r: xla.items_at(r, np.arange(52))))(rank)
    check("tied sort keys: same order as a stable sort (batched)", bool((got == order).all()))
    one = xla.items_at(xla.sort_rank(tied[0]), np.arange(52))
    check("tied sort keys: same order as a stable sort (unbatched)", bool((one == order[0]).all()))

    print("all equal" if not failures else f"{len(failures)} check(s) differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
