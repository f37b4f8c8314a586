"""Throughput of an env under `jit(vmap(scan(step)))`, ours and pgx's side by side.

Both sides play random legal actions (`act_randomly`) with auto-reset, inside one compiled
`lax.scan` of `scan_length(batch)` moves per call, so the figures include action sampling and
resets, as pgx's own benchmarks do. Compile time is measured apart from run time. The two sides
run in alternating short windows within one process and each reports its best window, so a
load spike on this shared machine does not favour either side.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import time
from typing import Callable

import jax

from holdemjax.experimental import act_randomly, auto_reset

__all__ = ["Measurement", "measure", "bench_env", "scan_length", "DEFAULT_BATCHES"]

DEFAULT_BATCHES = (1, 64, 1024, 4096)


@dataclasses.dataclass(frozen=True)
class Measurement:
    who: str  # "holdemjax" or "pgx"
    env_id: str
    batch: int
    steps_per_s: float
    episodes_per_s: float
    compile_s: float
    run_s: float


def scan_length(batch: int) -> int:
    """Moves per compiled call: long scans at small batches, short ones at large."""
    return int(max(8, min(256, 65536 // batch)))


def _runner(init: Callable, step: Callable, batch: int, length: int):
    step = auto_reset(step, init)

    def play(state, key):
        def body(state, k):
            k_act, k_step = jax.random.split(k)
            action = act_randomly(k_act, state.legal_action_mask)
            state = jax.vmap(step)(state, action, jax.random.split(k_step, batch))
            return state, state.terminated.sum()

        state, ended = jax.lax.scan(body, state, jax.random.split(key, length))
        return state, ended.sum()

    return jax.jit(jax.vmap(init)), jax.jit(play)


class _Side:
    """One compiled runner: its state, key and counters."""

    def __init__(self, who: str, env_id: str, init, step, batch: int, key_fn):
        self.who, self.env_id, self.batch = who, env_id, batch
        self.length = scan_length(batch)
        init_b, play = _runner(init, step, batch, self.length)
        self.key = key_fn(0)
        self.state = init_b(jax.random.split(self.key, batch))
        t0 = time.perf_counter()
        self.play = play.lower(self.state, self.key).compile()
        self.compile_s = time.perf_counter() - t0
        self.calls = 0
        self.windows: list[tuple[float, float, float]] = []  # (steps, episodes, seconds)
        self._window(0.0)  # warm-up

    def _window(self, seconds: float) -> None:
        calls, episodes, t0 = 0, 0, time.perf_counter()
        while True:
            self.key = jax.random.fold_in(self.key, self.calls)
            self.state, ended = self.play(self.state, self.key)
            self.calls += 1
            calls += 1
            episodes += int(ended)  # blocks on the result
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        if seconds > 0:
            self.windows.append((calls * self.length * self.batch, episodes, elapsed))

    def result(self) -> Measurement:
        steps, episodes, secs = max(self.windows, key=lambda w: w[0] / w[2])
        return Measurement(self.who, self.env_id, self.batch, steps / secs, episodes / secs,
                           self.compile_s, sum(w[2] for w in self.windows))


def measure_sides(sides: list[_Side], seconds: float, windows: int = 5) -> list[Measurement]:
    """Alternate short timing windows between the sides (so both see the same machine load)
    and report each side's best window."""
    for _ in range(windows):
        for side in sides:
            side._window(seconds / windows)
    return [side.result() for side in sides]


def measure(who: str, env_id: str, init, step, batch: int, seconds: float,
            key_fn=jax.random.key) -> Measurement:
    """Steps/s of one env at one batch size over about `seconds` of run time."""
    return measure_sides([_Side(who, env_id, init, step, batch, key_fn)], seconds)[0]


def _pgx_env(env_id: str):
    if importlib.util.find_spec("pgx") is None:
        return None
    import pgx

    if env_id not in pgx.available_envs():
        return None
    return pgx.make(env_id)


def bench_env(env_id: str, batches=DEFAULT_BATCHES, seconds: float = 2.0, peer: bool = True,
              on_result: Callable[[Measurement], None] | None = None) -> list[Measurement]:
    """Measure holdemjax's `env_id` (and pgx's, when installed and `peer`) at each batch size."""
    from holdemjax.registry import make

    env = make(env_id)
    penv = _pgx_env(env_id) if peer else None
    results = []
    for batch in batches:
        sides = [_Side("holdemjax", env_id, env.init, env.step, batch, jax.random.key)]
        if penv is not None:
            sides.append(_Side("pgx", env_id, penv.init, penv.step, batch, jax.random.PRNGKey))
        for m in measure_sides(sides, seconds * len(sides)):
            results.append(m)
            if on_result is not None:
                on_result(m)
    return results


def ratio(results: list[Measurement], batch: int) -> float | None:
    """Our steps/s over pgx's at `batch`, when both were measured."""
    by = {(m.who, m.batch): m.steps_per_s for m in results}
    if ("pgx", batch) in by and ("holdemjax", batch) in by:
        return by[("holdemjax", batch)] / by[("pgx", batch)]
    return None
