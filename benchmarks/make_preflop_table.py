"""Regenerate `holdemjax/bots/data/preflop_v1.json`: pre-flop equity of the 169 hand classes.

    python benchmarks/make_preflop_table.py            # writes the data file (a few minutes)
    python benchmarks/make_preflop_table.py --check    # recomputes and compares, writes nothing

Method: Monte Carlo with a fixed seed, using our own evaluator (`holdemjax.poker.evaluator`).
Each class is played with canonical suits (pair: c + d; suited: both clubs; offsuit: high club,
low diamond; equity does not depend on which suits). Class ``c`` draws its samples from
``fold_in(fold_in(key(SEED), c), chunk)`` for chunk 0..CHUNKS-1, each chunk ``CHUNK`` samples. A
sample is a uniform draw of 15 of the 50 unseen cards (`jax.random.permutation` of the 50, first
15): opponent j in 1..5 holds cards 2j-2 and 2j-1, the board is cards 10..14. The equity against
k random hands (k = 1..5) uses opponents 1..k of the same sample; a win counts 60, a tie among m
best hands counts 60 / m (exact integers, 60 = lcm(1..6)), and

    equity_bp[c][k-1] = floor((10000 * total + 30 * samples) / (60 * samples))

i.e. rounded half up to integer basis points. `top_bp[c]` is the share of the 1,326 starting
hands (combos) strictly stronger than class c by heads-up equity (`equity_bp[.][0]`), plus half
of the other combos of equal equity, in basis points: `floor((20000 * stronger + 10000 * (ties))
/ (2 * 1326))` where ``ties`` counts the combos of equal equity, class c's own included. Smaller
is stronger (AA has the smallest value).

The result is bit-for-bit reproducible on the CPU (integer evaluator, threefry keys).
`tests/bots/test_bots.py` reruns a few classes through `class_equity` and compares.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker.cards import RANKS
from holdemjax.poker.evaluator import evaluate

VERSION = "preflop_v1"
SEED = 20240601
CHUNK = 8192
CHUNKS = 12  # 98,304 samples per class: standard error of an equity below 0.16 %
MAX_OPPONENTS = 5
SHARE = 60  # lcm(1..6): a tie among m best hands is worth SHARE // m
NUM_CLASSES = 169
NUM_COMBOS = 1326
ROOT = pathlib.Path(__file__).resolve().parents[1]
PATH = ROOT / "holdemjax" / "bots" / "data" / "preflop_v1.json"


def class_index(hi: int, lo: int, suited: bool) -> int:
    """Class of two ranks (0..12, hi >= lo): pair 13r + r, suited 13hi + lo, offsuit 13lo + hi."""
    return 13 * hi + lo if (suited or hi == lo) else 13 * lo + hi


def class_name(c: int) -> str:
    a, b = divmod(c, 13)
    if a == b:
        return RANKS[a] * 2
    return RANKS[max(a, b)] + RANKS[min(a, b)] + ("s" if a > b else "o")


def class_cards(c: int) -> tuple[int, int]:
    a, b = divmod(c, 13)
    if a == b:
        return 4 * a, 4 * a + 1  # pair: clubs + diamonds
    if a > b:
        return 4 * a, 4 * b  # suited: both clubs
    return 4 * b, 4 * a + 1  # offsuit: high club, low diamond


def combos(c: int) -> int:
    a, b = divmod(c, 13)
    return 6 if a == b else (4 if a > b else 12)


@jax.jit
def _chunk_totals(key: jax.Array, hole: jax.Array) -> jax.Array:
    """``# [MAX_OPPONENTS] int32``: sum over CHUNK samples of the hero's share vs 1..5 opponents."""
    cards = jnp.arange(52)
    rest = jnp.sort(jnp.where((cards[:, None] == hole[None, :]).any(1), 99, cards))[:50]
    keys = jax.random.split(key, CHUNK)
    picks = jax.vmap(lambda k: jax.random.permutation(k, rest)[:15])(keys)  # [S, 15]
    board = picks[:, 10:15]
    opp = picks[:, :10].reshape(CHUNK, MAX_OPPONENTS, 2)
    hero = evaluate(jnp.concatenate([jnp.broadcast_to(hole, (CHUNK, 2)), board], axis=1))  # [S]
    vill = evaluate(jnp.concatenate([opp, jnp.broadcast_to(board[:, None], (CHUNK, 5, 5))], 2))
    best_opp = jax.lax.cummax(vill, axis=1)  # [S, 5]: best of opponents 1..k
    ties = jnp.cumsum((vill == hero[:, None]).astype(jnp.int32), axis=1)  # opponents tying hero
    share = jnp.where(hero[:, None] >= best_opp, SHARE // (1 + ties), 0)
    return share.sum(0).astype(jnp.int32)


def class_equity(c: int, chunks: int = CHUNKS) -> list[int]:
    """Equity of class ``c`` vs 1..5 random hands, integer basis points (see the module doc)."""
    key = jax.random.fold_in(jax.random.key(SEED), c)
    hole = jnp.asarray(class_cards(c), jnp.int32)
    total = np.zeros(MAX_OPPONENTS, np.int64)
    for chunk in range(chunks):
        total += np.asarray(_chunk_totals(jax.random.fold_in(key, chunk), hole), np.int64)
    samples = chunks * CHUNK
    return [int((10000 * int(t) + SHARE // 2 * samples) // (SHARE * samples)) for t in total]


def top_bp(heads_up: list[int]) -> list[int]:
    """Per class: share of combos stronger (ties half) by heads-up equity, basis points."""
    out = []
    for c in range(NUM_CLASSES):
        stronger = sum(combos(d) for d in range(NUM_CLASSES) if heads_up[d] > heads_up[c])
        ties = sum(combos(d) for d in range(NUM_CLASSES) if heads_up[d] == heads_up[c])
        out.append((20000 * stronger + 10000 * ties) // (2 * NUM_COMBOS))
    return out


def build(chunks: int = CHUNKS, progress: bool = True) -> dict:
    equity = []
    start = time.time()
    for c in range(NUM_CLASSES):
        equity.append(class_equity(c, chunks))
        if progress and c % 13 == 12:
            print(f"  {c + 1}/169 classes, {time.time() - start:.0f} s", file=sys.stderr)
    return {
        "version": VERSION,
        "method": "monte-carlo",
        "seed": SEED,
        "samples_per_class": chunks * CHUNK,
        "index": "pair 13*r+r, suited 13*hi+lo, offsuit 13*lo+hi (rank 0..12 = 2..A)",
        "names": [class_name(c) for c in range(NUM_CLASSES)],
        "equity_bp": equity,  # [169][5]: equity vs 1..5 random hands, basis points
        "top_bp": top_bp([e[0] for e in equity]),  # [169]: heads-up strength percentile
    }


def dumps(table: dict) -> str:
    """The file's exact text (one class per line, so diffs stay readable)."""
    lines = ["{"]
    for name in ("version", "method", "seed", "samples_per_class", "index"):
        lines.append(f"  {json.dumps(name)}: {json.dumps(table[name])},")
    lines.append(f'  "names": {json.dumps(table["names"])},')
    rows = ",\n".join(f"    {json.dumps(e)}" for e in table["equity_bp"])
    lines.append(f'  "equity_bp": [\n{rows}\n  ],')
    lines.append(f'  "top_bp": {json.dumps(table["top_bp"])}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    parser.add_argument("--out", type=pathlib.Path, default=PATH)
    args = parser.parse_args(argv)
    text = dumps(build())
    digest = hashlib.sha256(text.encode()).hexdigest()
    if args.check:
        same = args.out.read_text() == text
        print(f"{'identical' if same else 'DIFFERENT'}: sha256 {digest}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}: sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
