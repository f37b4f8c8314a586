"""The series' tournament engine: the jitted steps of `holdemjax.poker.tournament` on a packed
state, one compiled program and one device-to-host read per decision (`Engine`).

A state is the pair ``(Tournament, Legal)`` packed into int32 words (`Layout`), cut into chunks
of at most `CHUNK_WORDS` (512 bytes): XLA:CPU runs a program whose buffers are all that small
on the calling thread, kernel after kernel, instead of handing each tiny kernel to its thread
pool (about 3x less time per step). The rules are all in `holdemjax.poker`; this module only
moves their states.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import icm
from holdemjax.poker import table as tb
from holdemjax.poker import tournament as tn
from holdemjax.poker.structure import FORMATS, Format, make_format

__all__ = ["CHUNK_WORDS", "COMPILER_OPTIONS", "INTEGER_OPTIONS", "CACHE_ENV", "Layout", "Engine",
           "engine", "compile_cache_dir", "use_compile_cache"]

#: The most int32 words in one array of a packed state (512 bytes).
CHUNK_WORDS = 128

#: XLA:CPU options of the engine's programs: less compile time, the same run time (many tiny
#: kernels). The backend's optimisation level changes float32 rounding (the ICM), so it is
#: lowered only for the integer-only programs (``seat``, ``act``: `INTEGER_OPTIONS`); the
#: kernel emitter does not (the recorded series replay, and 1,200 random ICM settlements
#: matched the default options bit for bit). Platform-dependent math is off: with it, the
#: ICM's last bits differ between an AMD EPYC and an Intel Xeon (AVX-512), and a series must
#: replay on any machine (PROTOCOL §3).
COMPILER_OPTIONS = {"xla_cpu_use_fusion_emitters": False,
                    "xla_cpu_parallel_codegen_split_count": 1, **icm.PORTABLE_MATH}
INTEGER_OPTIONS = {**COMPILER_OPTIONS, "xla_backend_optimization_level": 0}


#: The environment variable that moves the compile cache (a folder) or turns it off (``off``).
CACHE_ENV = "HOLDEMJAX_COMPILE_CACHE"


def compile_cache_dir() -> pathlib.Path | None:
    """The folder of the engine's persistent XLA compile cache: ``$HOLDEMJAX_COMPILE_CACHE``
    when set (``off``, ``0`` or empty: no cache), else ``$XDG_CACHE_HOME/holdemjax/xla``
    (``~/.cache/holdemjax/xla``)."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in ("", "0", "off", "no", "false") else \
            pathlib.Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "holdemjax" / "xla"


def use_compile_cache(folder: pathlib.Path | str | None = None) -> pathlib.Path | None:
    """Turn on JAX's persistent compilation cache for this process (and the worker processes
    it spawns: the settings go to the environment too), in ``folder`` or `compile_cache_dir`;
    returns the folder, None when the cache is off. A process that compiled already keeps
    its cache setting (JAX reads it at the first compile): call this first. A JAX cache set
    by ``JAX_COMPILATION_CACHE_DIR`` is left as it is. The executables loaded from the cache
    are the ones compiled (same options, same bits: the goldens replay from a warm cache)."""
    if folder is None:
        if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
            return pathlib.Path(os.environ["JAX_COMPILATION_CACHE_DIR"])
        folder = compile_cache_dir()
        if folder is None:
            return None
    folder = pathlib.Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # no writable cache folder: compile as without one
    settings = {"jax_compilation_cache_dir": str(folder),
                "jax_persistent_cache_min_compile_time_secs": 0.0,
                "jax_persistent_cache_min_entry_size_bytes": 0}
    for name, value in settings.items():
        jax.config.update(name, value)
        os.environ[name.upper()] = str(value)
    return folder


class Layout:
    """A ``(Tournament, Legal)`` pair as a tuple of int32 chunks (the format left out: it is
    the engine's constant). Booleans are 0/1, float32 and uint32 leaves keep their bits.
    `pack` / `unpack` run inside the jitted steps; `host` rebuilds the pair from host copies,
    as numpy views of one vector."""

    def __init__(self, example):
        leaves, self.treedef = jax.tree.flatten(self._strip(example))
        self.fields, offset = [], 0
        for leaf in leaves:
            size = int(np.prod(leaf.shape, dtype=np.int64))
            self.fields.append((np.dtype(leaf.dtype), offset, offset + size, tuple(leaf.shape)))
            offset += size
        self.width = offset
        count = -(-offset // CHUNK_WORDS)
        self.cuts = [offset * i // count for i in range(1, count)]  # near-equal chunks

    @staticmethod
    def _strip(pair):
        t, legal = pair
        return t.replace(format=None), legal

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
        views = {np.dtype(np.int32): vec, np.dtype(np.bool_): vec != 0}
        leaves = []
        for dtype, a, b, shape in self.fields:
            if dtype not in views:
                views[dtype] = vec.view(dtype)
            x = views[dtype]
            leaves.append(x[a] if not shape else x[a:b] if len(shape) == 1 else
                          x[a:b].reshape(shape))
        t, legal = jax.tree.unflatten(self.treedef, leaves)
        return t.replace(format=fmt), legal


@dataclasses.dataclass(frozen=True)
class Engine:
    """The jitted tournament steps of one format on packed states (`Layout`); each returns the
    packed state it ends at (kept on the device: the next step's input).

    * ``seat(key)``: `tournament.seat` (the host then runs its `advance` with ``boundary``);
    * ``act(state, kind, amount)``: one decision, `tournament.act` (the hand may be over);
    * ``boundary(state, stop)``: one hand boundary and the ICM if due
      (`tournament.advance_one`), or with ``stop`` true `tournament.stop`;
    * ``end(state)``: (final places by seat, scores by player id).

    ``act`` is the one call of a decision that does not end its hand. It is its own program
    because its buffers are all small (`CHUNK_WORDS`); next to the deal's and the ICM's it
    would run at the thread pool's pace.
    """

    name: str
    format: Format
    layout: Layout
    seat: object
    act: object
    boundary: object
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

    layout = Layout(jax.eval_shape(lambda k: with_legal(tn.seat(k, fmt)), jax.random.key(0)))

    def packed(rule):  # a rule on packed states: conditionals move two chunks, not 50 leaves
        return lambda state: layout.pack(with_legal(rule(layout.unpack(state, dev_fmt))))

    def seat(key):
        return layout.pack(with_legal(tn.seat(key, fmt)))

    def act(state, kind, amount):
        return packed(lambda t: tn.act(t, kind, amount))(state)

    def boundary(state, stop):
        return jax.lax.cond(stop != 0, packed(tn.stop), packed(tn.advance_one), state)

    def end(state):
        t = layout.unpack(state, dev_fmt)
        return tn.final_places(t), tn.player_scores(t)

    def jit(fn, options=COMPILER_OPTIONS):
        return jax.jit(fn, compiler_options=options)

    return Engine(env_id, fmt, layout, seat=jit(seat, INTEGER_OPTIONS),
                  act=jit(act, INTEGER_OPTIONS), boundary=jit(boundary), end=jit(end))
