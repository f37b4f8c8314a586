"""The series' tournament engine: the jitted steps of `holdemjax.poker.tournament` on a packed
state, one compiled program and one device-to-host read per decision (`Engine`).

A state is the pair ``(Tournament, Legal)`` packed into a few small int32 chunks
(`holdemjax.host.packing.Layout`), so that XLA:CPU runs each step on the calling thread. The
rules are all in `holdemjax.poker`; this module only moves their states.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import serialize_executable

from holdemjax.host.packing import Layout
from holdemjax.poker import icm, table, tournament
from holdemjax.poker.structure import FORMATS, Format, make_format
from holdemjax.series import xla_cache

__all__ = ["COMPILER_OPTIONS", "INTEGER_OPTIONS", "Engine", "engine", "run_inline"]

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
    only adds two context switches (docs/series.md, Speed). The same executables run, with the
    same results. It takes effect only before JAX's CPU backend starts (call it first, as
    `holdemjax series` does); returns whether it did."""
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        return False
    jax.config.update("jax_cpu_enable_async_dispatch", False)
    return True


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
    time (docs/series.md, "Why the engine's programs are small").
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
        return t, table.legal(t.table)

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
        layout = Layout(jax.eval_shape(lambda k: with_legal(tournament.seat(k, fmt)),
                                       jax.random.key(0)))

    def packed(rule):  # a rule on packed states: conditionals move two chunks, not 50 leaves
        return lambda state: layout.pack(with_legal(rule(layout.unpack(state, dev_fmt))))

    def seat(key):
        return layout.pack(with_legal(tournament.seat(key, fmt)))

    def act(state, kind, amount):
        return packed(lambda t: tournament.act(t, kind, amount))(state)

    def boundary(state):
        return packed(tournament.next_hand_if_over)(state)

    def settle(state, stop):
        return jax.lax.cond(stop != 0, packed(tournament.stop), packed(tournament.settle_if_due),
                            state)

    def end(state):
        t = layout.unpack(state, dev_fmt)
        return tournament.final_places(t), tournament.player_scores(t)

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
