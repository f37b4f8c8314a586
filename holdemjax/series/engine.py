"""The series' tournament engine: the jitted steps of `holdemjax.poker.tournament` on a packed
state, one compiled program and one device-to-host read per decision (`Engine`).

A state is the pair ``(Tournament, Legal)`` packed into int32 words (`Layout`), cut into chunks
of at most `CHUNK_WORDS` (512 bytes): XLA:CPU runs a program whose buffers are all that small
on the calling thread, kernel after kernel, instead of handing each tiny kernel to its thread
pool (about 3x less time per step). The rules are all in `holdemjax.poker`; this module only
moves their states.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import pickle

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import serialize_executable

from holdemjax.poker import icm
from holdemjax.poker import table as tb
from holdemjax.poker import tournament as tn
from holdemjax.poker.structure import FORMATS, Format, make_format
from holdemjax.series import xla_cache

__all__ = ["CHUNK_WORDS", "COMPILER_OPTIONS", "INTEGER_OPTIONS", "Layout", "Engine",
           "engine", "run_inline"]

#: The most int32 words in one array of a packed state (512 bytes).
CHUNK_WORDS = 128

#: XLA:CPU options of the engine's programs: less compile time, the same run time (many tiny
#: kernels). The backend's optimisation level changes float32 rounding (the ICM's products and
#: sums), so it is lowered only for the programs without it (`INTEGER_OPTIONS`: ``seat``,
#: ``act`` and ``boundary``, whose only float math is a bust's payout share: sums, one
#: subtraction and one division, no product to fuse, rounded the same at every level; the
#: engine tests compare it with `tournament.advance_one`); the kernel emitter does not (the
#: recorded series replay, and 1,200 random ICM settlements matched the default options bit
#: for bit). Platform-dependent math is off: with it, the ICM's last bits differ between an
#: AMD EPYC and an Intel Xeon (AVX-512), and a series must replay on any machine (PROTOCOL §3).
COMPILER_OPTIONS = {"xla_cpu_use_fusion_emitters": False,
                    "xla_cpu_parallel_codegen_split_count": 1, **icm.PORTABLE_MATH}
INTEGER_OPTIONS = {**COMPILER_OPTIONS, "xla_backend_optimization_level": 0}


def run_inline() -> bool:
    """Run the engine's programs on the calling thread: JAX's CPU async dispatch off for the
    process. The host reads every step's result at once, so handing each call to JAX's thread
    only adds two context switches (about 12% of the engine's time in a series on a loaded
    2-core machine). The same executables run, with the same results. It takes effect only
    before JAX's CPU backend starts (call it first, as `holdemjax series` does); returns
    whether it did."""
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        return False
    jax.config.update("jax_cpu_enable_async_dispatch", False)
    return True


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

    def unpack(self, chunks, fmt) -> tn.Tournament:
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


@dataclasses.dataclass(frozen=True)
class Engine:
    """The jitted tournament steps of one format on packed states (`Layout`); each returns the
    packed state it ends at (kept on the device: the next step's input).

    * ``seat(key)``: `tournament.seat` (the host then runs its `advance` with ``boundary``);
    * ``act(state, kind, amount)``: one decision, `tournament.act` (the hand may be over);
    * ``boundary(state)``: one hand boundary, `tournament.next_hand_if_over`;
    * ``settle(state, stop)``: the ICM settlement if it is due, `tournament.settle_if_due`
      (`advance_one` is ``boundary`` then ``settle``: the host runs ``settle`` when the state
      says ``icm_due``), or with ``stop`` true `tournament.stop`;
    * ``end(state)``: (final places by seat, scores by player id).

    Each program keeps its buffers small (`CHUNK_WORDS`) but ``settle`` (the ICM's subset
    tables): XLA:CPU then runs it on the calling thread, where a program with one larger
    buffer, even in a branch it rarely takes, runs on the thread pool at several times the
    time (measured in a series here: a hand boundary with the ICM and the deal's 52 x 52 tie
    fallback in it ~300 us, without them ~60 us; docs/series.md).
    """

    name: str
    format: Format
    layout: Layout
    seat: object
    act: object
    boundary: object
    settle: object
    end: object

    def host(self, state) -> tuple:
        """``(Tournament, Legal)``: host views of a packed state, each chunk read from the
        device once."""
        vec = np.concatenate([np.asarray(c) for c in state])
        return self.layout.host(vec, self._host_format)

    @functools.cached_property
    def _host_format(self):
        return jax.tree.map(np.asarray, self.format)

    @functools.cached_property
    def _scalars(self) -> dict:
        return {}

    def scalar(self, value) -> jax.Array:
        """``value`` (an int or a bool) as an int32 device scalar, made once (an argument
        already on the device costs the step no host-to-device copy)."""
        value = int(value)
        x = self._scalars.get(value)
        if x is None:
            x = self._scalars[value] = jax.device_put(np.int32(value))
        return x


@functools.cache
def engine(env_id: str) -> Engine:
    """The `Engine` of the format ``env_id`` (compiled once per process, at first use)."""
    fmt = make_format(**FORMATS[env_id])
    dev_fmt = jax.tree.map(jnp.asarray, fmt)

    def with_legal(t):
        return t, tb.legal(t.table)

    options = {"seat": INTEGER_OPTIONS, "act": INTEGER_OPTIONS, "boundary": INTEGER_OPTIONS,
               "settle": COMPILER_OPTIONS, "end": COMPILER_OPTIONS}
    tag = stored = layout = None
    if xla_cache.executables_dir() is not None:
        tag = xla_cache.key(env_id, options)
        stored = xla_cache.load(env_id, tag, [*options, "layout"])
    if stored is not None:
        try:
            layout = Layout(stored=stored["layout"])
        except Exception:  # noqa: BLE001 (a foreign layout: trace it, compile again)
            stored = None
    if layout is None:
        layout = Layout(jax.eval_shape(lambda k: with_legal(tn.seat(k, fmt)),
                                       jax.random.key(0)))

    def packed(rule):  # a rule on packed states: conditionals move two chunks, not 50 leaves
        return lambda state: layout.pack(with_legal(rule(layout.unpack(state, dev_fmt))))

    def seat(key):
        return layout.pack(with_legal(tn.seat(key, fmt)))

    def act(state, kind, amount):
        return packed(lambda t: tn.act(t, kind, amount))(state)

    def boundary(state):
        return packed(tn.next_hand_if_over)(state)

    def settle(state, stop):
        return jax.lax.cond(stop != 0, packed(tn.stop), packed(tn.settle_if_due), state)

    def end(state):
        t = layout.unpack(state, dev_fmt)
        return tn.final_places(t), tn.player_scores(t)

    examples = {"seat": (jax.random.key(0),), "act": (layout.avals(), _I32, _I32),
                "boundary": (layout.avals(),), "settle": (layout.avals(), _I32),
                "end": (layout.avals(),)}
    steps = {name: (fn, options[name], examples[name])
             for name, fn in (("seat", seat), ("act", act), ("boundary", boundary),
                              ("settle", settle), ("end", end))}
    return Engine(env_id, fmt, layout, **_compiled(env_id, steps, tag, stored, layout))


_I32 = jax.ShapeDtypeStruct((), jnp.int32)
_COMPILE_ORDER = ("settle", "boundary", "seat", "act", "end")  # the longest compiles first


def _compiled(env_id: str, steps: dict, tag, stored, layout: Layout) -> dict:
    """Each step compiled ahead of time for its fixed argument types (a call with others is an
    error, never a recompile), or its executable loaded from the compile cache
    (`xla_cache`: ``stored`` under the key ``tag``; no tracing, lowering or compiling)."""
    chunks = len(layout.cuts) + 1
    if stored is not None:  # (only ever loaded under a key)
        try:
            return {name: xla_cache.deserialize(stored[name], *_trees(name, example, chunks),
                                                options)
                    for name, (_, options, example) in steps.items()}
        except Exception:  # noqa: BLE001 (a foreign or damaged executable: compile again)
            pass
    hits = xla_cache.jax_cache_hits()
    # XLA compiles outside the GIL: each program compiles while the next ones are traced and
    # lowered (Python, on this thread), the longest compiles first
    with concurrent.futures.ThreadPoolExecutor(len(steps)) as pool:
        futures = {}
        for name in sorted(steps, key=_COMPILE_ORDER.index):
            fn, options, example = steps[name]
            # one module name per format and step: XLA:CPU finds a loaded executable's kernels
            # by it (two formats' ``jit_act`` in one process would share a name)
            fn.__name__ = fn.__qualname__ = f"{name}_{env_id.replace('-', '_')}"
            futures[name] = pool.submit(
                jax.jit(fn, compiler_options=options).lower(*example).compile)
        out = {name: futures[name].result() for name in steps}
    if xla_cache.jax_cache_hits() != hits:
        tag = None  # one was loaded by JAX's own cache: it does not serialize whole
    payloads = {"layout": layout.dumps()}
    for name, (_, _, example) in steps.items():
        if tag is not None:
            payloads[name], in_tree, out_tree = serialize_executable.serialize(out[name])
            if (in_tree, out_tree) != _trees(name, example, chunks):
                tag = None  # trees this module cannot rebuild: do not store
    if tag is not None:
        xla_cache.save(env_id, tag, payloads)
    return out


def _trees(name: str, example, chunks: int) -> tuple:
    """The (in, out) pytree structures of the compiled step ``name`` (``example``: its
    arguments): ``end`` returns two arrays, the others a packed state of ``chunks`` arrays."""
    out = (0, 0) if name == "end" else (0,) * chunks
    return jax.tree.structure((tuple(example), {})), jax.tree.structure(out)
