"""A ``(Tournament, Legal)`` pair packed into a few int32 chunks (`Layout`): the state the
engine's programs (the series' `holdemjax.series.engine`, the lone hands of `hand`) take and
return, read by the host once per call.

Chunks hold at most `CHUNK_WORDS` words: XLA:CPU runs a program whose buffers are all that
small on the calling thread, kernel after kernel, instead of handing each tiny kernel to its
thread pool.
"""

from __future__ import annotations

import pickle

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import tournament

__all__ = ["CHUNK_WORDS", "Layout"]

#: The most int32 words in one array of a packed state (512 bytes).
CHUNK_WORDS = 128


class Layout:
    """A ``(Tournament, Legal)`` pair as a tuple of int32 chunks (the format left out: it is
    the engine's constant). Booleans are 0/1, float32 and uint32 leaves keep their bits.
    `pack` / `unpack` run inside the jitted steps; `host` rebuilds the pair from host copies,
    as numpy views of one vector."""

    def __init__(self, example=None, *, stored: bytes | None = None):
        if stored is not None:  # `dumps`' bytes (the compile cache): no tracing
            self.treedef, fields = pickle.loads(stored)
            self.fields = [(np.dtype(d), a, b, tuple(shape)) for d, a, b, shape in fields]
            offset = self.fields[-1][2]
        else:
            leaves, self.treedef = jax.tree.flatten(self._strip(example))
            self.fields, offset = [], 0
            for leaf in leaves:
                size = int(np.prod(leaf.shape, dtype=np.int64))
                self.fields.append((np.dtype(leaf.dtype), offset, offset + size,
                                    tuple(leaf.shape)))
                offset += size
        self.width = offset
        count = -(-offset // CHUNK_WORDS)
        self.cuts = [offset * i // count for i in range(1, count)]  # near-equal chunks

    @staticmethod
    def _strip(pair):
        t, legal = pair
        return t.replace(format=None), legal

    def dumps(self) -> bytes:
        """The layout as bytes for ``Layout(stored=...)``."""
        return pickle.dumps((self.treedef, [(d.str, a, b, s) for d, a, b, s in self.fields]))

    def avals(self) -> tuple:
        """The chunks' shapes and dtype (the packed state's argument types)."""
        sizes = np.diff([0, *self.cuts, self.width])
        return tuple(jax.ShapeDtypeStruct((int(n),), jnp.int32) for n in sizes)

    def pack(self, pair) -> tuple:
        """The chunks ``# [<= CHUNK_WORDS] int32`` of a pair (traced)."""
        words = []
        for leaf in jax.tree.leaves(self._strip(pair)):
            if leaf.dtype == jnp.bool_:
                leaf = leaf.astype(jnp.int32)
            elif leaf.dtype != jnp.int32:
                leaf = jax.lax.bitcast_convert_type(leaf, jnp.int32)
            words.append(leaf.reshape(-1))
        return tuple(jnp.split(jnp.concatenate(words), self.cuts))

    def unpack(self, chunks, fmt) -> tournament.Tournament:
        """The tournament of packed chunks (traced), with the format ``fmt``."""
        vec = jnp.concatenate(chunks)
        leaves = []
        for dtype, a, b, shape in self.fields:
            x = vec[a:b].reshape(shape)
            if dtype == np.bool_:
                x = x != 0
            elif dtype != np.int32:
                x = jax.lax.bitcast_convert_type(x, dtype)
            leaves.append(x)
        t, _ = jax.tree.unflatten(self.treedef, leaves)
        return t.replace(format=fmt)

    def host(self, vec: np.ndarray, fmt) -> tuple:
        """``(Tournament, Legal)`` of numpy views of a host vector (``fmt``: its format); a
        scalar leaf is a numpy scalar of its dtype."""
        treedef, fmt_at, fmt_leaves, plan = self._host_plan(fmt)
        views = [vec, vec != 0, *(vec.view(d) for d in plan[0])]
        leaves = [views[v][a] if s is None else views[v][a:b] if s == () else
                  views[v][a:b].reshape(s) for v, a, b, s in plan[1]]
        leaves[fmt_at:fmt_at] = fmt_leaves
        return jax.tree.unflatten(treedef, leaves)

    def _host_plan(self, fmt) -> tuple:
        """`host`'s work list for the format ``fmt`` (made once per format object): the
        pair's tree with the format in it, where the format's leaves go among the state's,
        the other dtypes' views, and per leaf (view, start, stop, shape: None for a scalar,
        () for a vector)."""
        cached = getattr(self, "_plan", None)
        if cached is not None and cached[0] is fmt:
            return cached[1]
        others = sorted({d for d, *_ in self.fields} - {np.dtype(np.int32), np.dtype(np.bool_)},
                        key=str)
        index = {np.dtype(np.int32): 0, np.dtype(np.bool_): 1,
                 **{d: 2 + i for i, d in enumerate(others)}}
        per_leaf = [(index[d], a, b, None if not shape else () if len(shape) == 1 else shape)
                    for d, a, b, shape in self.fields]
        # the format's leaves sit together in the flattened pair: find them with markers
        marker = object()
        t, legal = jax.tree.unflatten(self.treedef, [marker] * len(self.fields))
        fmt_leaves = jax.tree.leaves(fmt)
        full, treedef = jax.tree.flatten((t.replace(format=fmt), legal),
                                         is_leaf=lambda x: x is marker)
        fmt_at = next((i for i, x in enumerate(full) if x is not marker), len(full))
        if any(x is not y for x, y in zip(full[fmt_at:], fmt_leaves, strict=False)):
            raise RuntimeError("the format's leaves are not together in the state's tree")
        plan = (treedef, fmt_at, fmt_leaves, (others, per_leaf))
        self._plan = (fmt, plan)
        return plan
