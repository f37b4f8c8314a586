"""The luck of a series' tournaments: AIVAT's chance corrections (`holdemjax.luck`) computed
from what the host recorded, after each tournament, in one batched program.

The policies are unknown wasm modules, so only the chance events are corrected (docs/luck.md):
the deal of every hand, the board cards a decision brings out, the hands the blinds alone play.
`LuckBook` records, for every decision of a tournament, the engine's state at the decision (the
packed `engine.Layout` chunks the engine returned, kept as they are: no copy, no JAX call) and
the exact action the engine was given. After the tournament `LuckBook.luck` runs
`luck.decision_luck` on every recorded decision (and `luck.dealt_luck` on the first hand's
deal) in one vmapped program per format (chunks of `CHUNK` decisions, padded; compiled once per
process, or once per machine with the engine's compile cache, `xla_cache`), under
the tournament's value (`luck.tournament_value`: ICM and places; chips over chips in play for
the ring format). Nothing a policy does reaches it but the actions the table played.

Keys: the luck of tournament ``t`` of the series ``seed`` is drawn from
``fold_in(fold_in(key(seed), LUCK_STREAM), t)`` (`luck_key`), never the tournament's deck key
(``fold_in(key(seed), t)``, `tournament.start`): the samples are independent of the cards and
the results replay byte for byte. A series cut by the wall-time stop keeps the corrections of
what was dealt (each has mean zero), the deal of the hand the stop came before included.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax import luck as holdemjax_luck
from holdemjax.poker import tournament as poker_tournament
from holdemjax.series import xla_cache
from holdemjax.series.engine import COMPILER_OPTIONS, engine
from holdemjax.sparse import sparse_cond

__all__ = ["LUCK_STREAM", "CHUNK", "OPTIONS", "luck_key", "LuckBook", "program"]

#: The fold_in datum of the series' luck keys ("LUCK" in ASCII): the tournaments' deck keys
#: are ``fold_in(key(seed), t)`` for the tournament indices t, far below it.
LUCK_STREAM = 0x4C55434B
#: Decisions per call of the luck program (the last call of a tournament is padded): a sng-6
#: tournament of baselines takes about 140 decisions; 128 ran fastest of 32, 64, 128 and 256.
CHUNK = 128
_DEAL = holdemjax_luck.EVENTS.index("deal")
#: XLA:CPU options of the luck program: the engine's portable math (the same bits on every x86
#: CPU, so that results replay anywhere), at the backend's lowest optimisation level: a fifth
#: of the compile time (certify: 3.7 s of CPU instead of about 20 s; without LLVM's expensive
#: passes 13 s) for a run about 4x slower (a sng-6 tournament of baselines: about 0.4 s
#: instead of 0.1 s on a loaded 2-core machine). docs/luck.md has the costs per series.
OPTIONS = {**COMPILER_OPTIONS, "xla_backend_optimization_level": 0}


def luck_key(seed: int, tournament: int) -> jax.Array:
    """The luck key of tournament ``tournament`` of the series ``seed`` (a typed key)."""
    root = jax.random.fold_in(jax.random.key(int(seed)), LUCK_STREAM)
    return jax.random.fold_in(root, int(tournament))


@functools.cache
def program(env_id: str):
    """The luck program of the format ``env_id``, compiled ahead of time once per process, or
    loaded from the engine's compile cache when it is on (`xla_cache`: once per machine):
    ``(chunks, kinds, amounts, first, valid, key) -> # [len(EVENTS), N] float32`` by seat, the
    summed luck of `CHUNK` recorded decisions (``chunks``: the engine's packed states at them,
    each ``# [CHUNK, width]``; ``first``: the row whose hand is the tournament's first, which
    adds its deal; ``valid``: not padding)."""
    eng = engine(env_id)
    fmt = jax.tree.map(jnp.asarray, eng.format)
    # the first deal is read at the first decision
    if not poker_tournament.first_hand_waits(eng.format):
        raise ValueError(f"{env_id}: the first hand may end from the blinds")

    def row(chunks, kind, amount, first, valid, key):
        t = eng.layout.unpack(chunks, fmt)
        t = t.replace(finished=t.finished | ~valid)  # padding: zero, and no work (sparse)
        zeros = jnp.zeros((len(holdemjax_luck.EVENTS), t.num_seats), jnp.float32)
        deal = sparse_cond(first & valid,
                           lambda z: z.at[_DEAL].add(holdemjax_luck.dealt_luck(t, key)), zeros)
        return deal + holdemjax_luck.decision_luck(t, kind, amount, key, by_event=True)

    def run(chunks, kinds, amounts, first, valid, key):
        rows = jax.vmap(row, (0, 0, 0, 0, 0, None))(chunks, kinds, amounts, first, valid, key)
        return rows.sum(axis=0)

    name = run.__name__ = run.__qualname__ = f"luck_{env_id.replace('-', '_')}"
    i32, flags = jax.ShapeDtypeStruct((CHUNK,), jnp.int32), jax.ShapeDtypeStruct((CHUNK,), bool)
    example = (tuple(jax.ShapeDtypeStruct((CHUNK, *a.shape), a.dtype)
                     for a in eng.layout.avals()),
               i32, i32, flags, flags, jax.ShapeDtypeStruct((2,), jnp.uint32))
    trees = (jax.tree.structure((example, {})), jax.tree.structure(0))
    tag = None
    if xla_cache.executables_dir() is not None:
        tag = xla_cache.key(name, OPTIONS)
        stored = xla_cache.load(name, tag, ["luck"])
        if stored is not None:
            try:
                return xla_cache.deserialize(stored["luck"], *trees, OPTIONS)
            except Exception:  # noqa: BLE001 (a foreign or damaged executable: compile again)
                pass
    hits = xla_cache.jax_cache_hits()
    compiled = jax.jit(run, compiler_options=OPTIONS).lower(*example).compile()
    if tag is not None and xla_cache.jax_cache_hits() == hits:  # (as the engine's steps)
        from jax.experimental import serialize_executable

        payload, in_tree, out_tree = serialize_executable.serialize(compiled)
        if (in_tree, out_tree) == trees:
            xla_cache.save(name, tag, {"luck": payload})
    return compiled


class LuckBook:
    """The decisions of one tournament as the host played them, and their luck."""

    def __init__(self, env_id: str):
        self.env_id = env_id
        self.rows: list = []

    def clear(self) -> None:
        """Forget the recorded decisions (a new tournament)."""
        self.rows = []

    def take(self) -> list:
        """The recorded decisions, handed over (the book is empty after)."""
        rows, self.rows = self.rows, []
        return rows

    def note(self, state, kind: int, amount: int) -> None:
        """Record one decision: the engine's packed state at it (its chunks, as returned by
        the engine's programs) and the exact action given to ``act``."""
        self.rows.append((state, int(kind), int(amount)))

    def luck(self, seed: int, tournament: int, rows: list | None = None) -> np.ndarray:
        """``# [len(EVENTS), N] float64`` by seat: the luck of the recorded tournament (or of
        ``rows``, `take`'s), by kind of chance event (`luck.EVENTS`). Zero without a decision.
        Safe in another thread than the one playing (it reads only the rows)."""
        rows = self.rows if rows is None else rows
        run = program(self.env_id)
        width = len(rows[0][0]) if rows else 0
        n = engine(self.env_id).format.num_seats
        total = np.zeros((len(holdemjax_luck.EVENTS), n), np.float64)
        if not rows:
            return total
        key = jax.random.key_data(luck_key(seed, tournament))
        for lo in range(0, len(rows), CHUNK):
            part = rows[lo:lo + CHUNK]
            pad = CHUNK - len(part)
            part = part + [part[-1]] * pad
            chunks = tuple(np.stack([np.asarray(r[0][c]) for r in part]) for c in range(width))
            kinds = np.array([r[1] for r in part], np.int32)
            amounts = np.array([r[2] for r in part], np.int32)
            first = np.zeros(CHUNK, bool)
            first[0] = lo == 0
            valid = np.arange(CHUNK) < CHUNK - pad
            total += np.asarray(run(chunks, kinds, amounts, first, valid, key), np.float64)
        return total
