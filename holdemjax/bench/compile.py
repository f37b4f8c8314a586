"""Compile-time measuring (see `holdemjax.bench`): the trace-and-lower time and the XLA compile
time of an env's ``init`` and ``step``, batched (``jit(vmap(f))``) and unbatched (``jit(f)``),
with the kernel count of each compiled program; ours and pgx's called the same way.

Every program is new to the process when it is measured: JAX's in-memory caches are cleared
(`jax.clear_caches`, which also drops the inner ``jax.jit`` helpers' traces) and the functions
handed to ``jax.jit`` are fresh objects; the persistent compilation cache is off while measuring
(`no_persistent_cache`). Inputs are shapes only (`jax.eval_shape`): nothing runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import re
import statistics
import time
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

from holdemjax.bench.core import quantile

__all__ = [
    "PROGRAMS", "BATCHED", "ProgramTime", "time_program", "kernel_counts", "no_persistent_cache",
    "env_programs", "compile_times", "median_programs", "init_step_s", "pgx_peer_id",
    "make_pgx", "FORMAT_PEER", "side_record", "sweep", "summarize",
]

#: The programs measured per env, in the order they are compiled.
PROGRAMS = ("init_batched", "step_batched", "init", "step")
#: The batched pair whose sum the goals are about.
BATCHED = ("init_batched", "step_batched")
#: pgx has no hold'em table: the tournament and ring formats are compared with its Go 9x9, the
#: game of comparable program size.
FORMAT_PEER = "go_9x9"

_FUSION = re.compile(r"(?<![\w.%-])fusion\(")
_WHILE = re.compile(r" while\(")


@dataclasses.dataclass(frozen=True)
class ProgramTime:
    """One program: seconds to trace and lower, seconds for XLA to compile, and its kernels."""

    lower_s: float
    compile_s: float
    fusions: int  # ``fusion(`` instructions in the compiled HLO: the kernel count figure
    whiles: int  # `` while(`` loops in the compiled HLO

    @property
    def total_s(self) -> float:
        return self.lower_s + self.compile_s

    def to_json(self) -> dict:
        return {"lower_s": self.lower_s, "compile_s": self.compile_s, "total_s": self.total_s,
                "fusions": self.fusions, "whiles": self.whiles}


def kernel_counts(hlo_text: str) -> tuple[int, int]:
    """``(fusion instructions, while loops)`` of a compiled program's HLO text."""
    return len(_FUSION.findall(hlo_text)), len(_WHILE.findall(hlo_text))


@contextlib.contextmanager
def no_persistent_cache():
    """JAX's persistent compilation cache off inside the block (restored after)."""
    before = jax.config.jax_enable_compilation_cache
    jax.config.update("jax_enable_compilation_cache", False)
    try:
        yield
    finally:
        jax.config.update("jax_enable_compilation_cache", before)


def time_program(fn: Callable, *args) -> ProgramTime:
    """Trace, lower and compile ``jax.jit(fn)`` for `args` (arrays or shapes), timing the two
    apart; `fn` must be a new function object and the caches cleared (`compile_times`)."""
    t0 = time.perf_counter()
    lowered = jax.jit(fn).lower(*args)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    fusions, whiles = kernel_counts(compiled.as_text() or "")
    return ProgramTime(t1 - t0, t2 - t1, fusions, whiles)


def env_programs(env, batch: int, step_key: bool, key_fn: Callable = jax.random.key
                 ) -> dict[str, tuple[Callable, tuple]]:
    """The four programs of `env` as ``name -> (new function, input shapes)``: init and step,
    under ``vmap`` at `batch` and unbatched. The step's action is zeros (int32); with
    `step_key` the step takes a key too (``step(state, action, key)``)."""
    key = jax.eval_shape(lambda: key_fn(0))
    keys = jax.eval_shape(lambda: jax.random.split(key_fn(0), batch))
    state = jax.eval_shape(lambda k: env.init(k), key)
    states = jax.eval_shape(lambda k: jax.vmap(env.init)(k), keys)
    action = jax.ShapeDtypeStruct((), jnp.int32)
    actions = jax.ShapeDtypeStruct((batch,), jnp.int32)

    # Each call builds new function objects, each jitted once (`compile_times`).
    def init(k):
        return env.init(k)

    if step_key:
        def step(s, a, k):
            return env.step(s, a, k)

        step_args, step_b_args = (state, action, key), (states, actions, keys)
    else:
        def step(s, a):
            return env.step(s, a)

        step_args, step_b_args = (state, action), (states, actions)
    return {"init_batched": (jax.vmap(init), (keys,)),
            "step_batched": (jax.vmap(step), step_b_args),
            "init": (init, (key,)), "step": (step, step_args)}


def compile_times(make_env: Callable[[], object], batch: int, step_key: bool,
                  key_fn: Callable = jax.random.key,
                  on_program: Callable[[str, ProgramTime], None] | None = None,
                  names: Sequence[str] = PROGRAMS) -> dict[str, ProgramTime]:
    """Compile times of `names` (default: the four `PROGRAMS`) of a new env from `make_env`,
    each new to the process: the caches are cleared before each, the persistent cache is off."""
    out = {}
    with no_persistent_cache():
        programs = env_programs(make_env(), batch, step_key, key_fn)
        for name in names:
            jax.clear_caches()
            fn, args = programs[name]
            out[name] = time_program(fn, *args)
            if on_program is not None:
                on_program(name, out[name])
    return out


def median_programs(rounds: Sequence[dict[str, dict]]) -> dict[str, dict]:
    """Per program, the median over rounds of each figure (``ProgramTime.to_json`` dicts)."""
    names = [n for n in PROGRAMS if all(n in r for r in rounds)] if rounds else []
    return {n: {k: statistics.median(r[n][k] for r in rounds)
                for k in ("lower_s", "compile_s", "total_s", "fusions", "whiles")}
            for n in names}


def init_step_s(programs: dict[str, dict], batched: bool = True) -> float | None:
    """init + step seconds (lower + compile, medians) of one side, batched or not."""
    names = BATCHED if batched else ("init", "step")
    if not all(n in programs for n in names):
        return None
    return sum(programs[n]["total_s"] for n in names)


def pgx_peer_id(env_id: str) -> str | None:
    """The pgx game ours is compared with: the same id, or `FORMAT_PEER` for a hold'em format
    (an env whose id pgx lacks); None without pgx."""
    if importlib.util.find_spec("pgx") is None:
        return None
    import pgx

    return env_id if env_id in pgx.available_envs() else FORMAT_PEER


def make_pgx(env_id: str):
    """A new pgx env (``pgx.make``)."""
    import pgx

    return pgx.make(env_id)


# ------------------------------------------------------------------- ours against pgx
def side_record(env_id: str, side: str, batch: int, round_: int,
                on_program: Callable[[str, ProgramTime], None] | None = None,
                names: Sequence[str] = PROGRAMS) -> dict:
    """One side's programs (`names`, default the four) for one env id (``side``: "holdemjax"
    or "pgx"), as a record of the results file. Both sides are called alike: with a step key
    where our env needs one (pgx's stochastic games take ``step(state, action, key)`` too)."""
    from holdemjax.registry import REGISTRY, make

    step_key = env_id in REGISTRY and make(env_id).requires_step_key
    if side == "holdemjax":
        make_env, key_fn = (lambda: make(env_id)), jax.random.key
    else:
        make_env, key_fn = (lambda: make_pgx(env_id)), jax.random.PRNGKey
    times = compile_times(make_env, batch, step_key, key_fn, on_program, names)
    return {"round": round_, "side": side, "env": env_id, "batch": batch,
            "step_key": step_key, "programs": {n: t.to_json() for n, t in times.items()}}


def sweep(envs: Sequence[str], rounds: int, batch: int,
          on_start: Callable[[int, str, str], None] | None = None,
          on_program: Callable[[str, ProgramTime], None] | None = None):
    """Yield a record (`side_record`) per side, ours then pgx's peer per env (a peer measured
    once per round: the formats share Go 9x9), the whole sweep `rounds` times."""
    for r in range(rounds):
        done: set[str] = set()
        for env_id in envs:
            sides = [("holdemjax", env_id)]
            peer = pgx_peer_id(env_id)
            if peer is not None and peer not in done:
                sides.append(("pgx", peer))
                done.add(peer)
            for side, game in sides:
                if on_start is not None:
                    on_start(r, side, game)
                yield side_record(game, side, batch, r, on_program)


def summarize(records: Sequence[dict], envs: Sequence[str],
              goal_of: Callable[[str, str], float | None]) -> list[dict]:
    """Per env of `envs` measured on both sides: the medians per program over the rounds,
    init + step seconds (batched, unbatched), their ratio ours / pgx peer (a compile time:
    lower is better), the per-round ratios and whether ``goal_of(env, peer)`` is met (the
    ratio and the upper quartile of the per-round ratios at most the goal)."""
    out = []
    for env_id in envs:
        peer = pgx_peer_id(env_id)
        ours = [r for r in records if r["side"] == "holdemjax" and r["env"] == env_id]
        theirs = {r["round"]: r for r in records if r["side"] == "pgx" and r["env"] == peer}
        if not ours or not theirs:
            continue
        row = {"env": env_id, "peer": peer, "rounds": len(ours),
               "ours": median_programs([r["programs"] for r in ours]),
               "pgx": median_programs([r["programs"] for r in theirs.values()])}
        for suffix, batched in (("", True), ("_unbatched", False)):
            a, b = init_step_s(row["ours"], batched), init_step_s(row["pgx"], batched)
            row["ours_s" + suffix], row["pgx_s" + suffix] = a, b
            row["ratio" + suffix] = a / b if a is not None and b else None
        row["round_ratios"] = [init_step_s(r["programs"]) / init_step_s(theirs[r["round"]][
            "programs"]) for r in ours if r["round"] in theirs]
        row["q3"] = quantile(row["round_ratios"], 0.75) if row["round_ratios"] else None
        row["goal"] = goal_of(env_id, peer)
        row["met"] = None if row["goal"] is None or row["ratio"] is None else bool(
            row["ratio"] <= row["goal"] and row["q3"] <= row["goal"])
        out.append(row)
    return out
