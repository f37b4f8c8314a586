"""Recorded tournaments leaf by leaf (issue 14: "results bit for bit unchanged").

`tests/envs/golden/sng_leaves.json` holds SHA-256 chains written by the code before the
tournament rules moved into `holdemjax.poker.tournament`: every named value of the state (the
public fields, the hand's table, the tournament's seating, places, scores and counters, the format
params) at every step of ``STEPS`` auto-reset steps of a batch, with random and baseline play,
and the same of `env.stop` applied at every step (the wall-time stop's ICM). The names are the
canonical ones of `canonical` below, read through the env's public accessor, so a new state layout
maps onto the same record. A step's hash covers name, dtype, shape and bytes of each value.

Re-record (only when behaviour is meant to change): ``python tests/envs/test_sng_golden.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.bots import baseline, random_bot
from holdemjax.envs.sng import SitAndGo
from holdemjax.poker import icm, table
from holdemjax.poker.structure import FORMATS, Format, make_format, stack_formats

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden" / "sng_leaves.json"
STEPS = 300
CHECK_EVERY = 50  # a hash is kept every this many steps, to say where a difference starts

#: (env the program is built on, the formats its rows cycle through, batch)
CASES = {
    "tournaments": ("sng-6", ("sng-6", "sng-6-turbo", "certify"), 12),
    "ring-9": ("ring-9", ("ring-9",), 6),
}


def canonical(state) -> dict:
    """Every value of a tournament env state by a layout-independent name (the names of the
    state layout the fixture was recorded with)."""
    s, t = state, SitAndGo.tournament(state)
    d = {"current_player": s.current_player, "observation": s.observation,
         "rewards": s.rewards, "terminated": s.terminated, "truncated": s.truncated,
         "legal_action_mask": s.legal_action_mask, "step_count": s._step_count,
         "key": t.key, "hand": t.hand, "player_at": t.player_at, "seat_of": t.seat_of,
         "alive": t.alive, "score": t.score, "place": t.place,
         "street_chips": t.street_chips, "street_raises": t.street_raises,
         "decisions": t.decisions, "last_actor": t.last_actor, "icm_due": t.icm_due}
    renamed = {"num_decisions": "num_actions"}  # Table fields renamed since the recording
    for f in dataclasses.fields(table.Table):
        d["table." + renamed.get(f.name, f.name)] = getattr(t.table, f.name)
    for f in dataclasses.fields(Format):
        if f.metadata.get("pytree_node", True):
            d["format." + f.name] = getattr(t.format, f.name)
    # recorded before `finished` existed: it is `terminated` (no illegal action is played)
    assert t.finished.shape == s.terminated.shape
    return d


@functools.cache
def _program(case: str):
    env_id, formats, batch = CASES[case]
    env = holdemjax.make(env_id)
    fmts = [make_format(**FORMATS[f]) for f in formats]
    fmt = stack_formats(*[fmts[b % len(fmts)] for b in range(batch)])
    bot_keys = jax.random.split(jax.random.key(2), batch)
    # rows alternate random / baseline play in blocks of len(formats): every format gets both
    use_baseline = (jnp.arange(batch) // len(fmts)) % 2 == 1

    def one_step(state, action, key, f):
        return holdemjax.auto_reset(env.step, lambda k: env.init_with(k, f))(state, action, key)

    def body(state, t):
        a_random = jax.vmap(random_bot.act, in_axes=(None, 0, 0))(env, state, bot_keys)
        a_base = jax.vmap(baseline.act, in_axes=(None, 0, 0))(env, state, bot_keys)
        action = jnp.where(use_baseline, a_base, a_random)
        keys = jax.random.split(jax.random.fold_in(jax.random.key(1), t), batch)
        nxt = jax.vmap(one_step)(state, action, keys, fmt)
        return nxt, (canonical(nxt), canonical(jax.vmap(env.stop)(nxt)))

    # XLA:CPU's platform-dependent math (on by default) computes some float operations with the
    # machine's own instructions (e.g. AVX-512's): the ICM of the stops then differs in its last
    # bits between CPU types. Off, the program is IEEE math on every x86 machine, and this
    # fixture (recorded on an AMD EPYC with the default) is reproduced on an Intel Xeon too.
    @functools.partial(jax.jit, compiler_options=icm.PORTABLE_MATH)
    def run():
        first = jax.vmap(env.init_with)(jax.random.split(jax.random.key(0), batch), fmt)
        last, (steps, stops) = jax.lax.scan(body, first, jnp.arange(STEPS))
        return canonical(first), steps, stops, last

    return env, run


def _chain(views: dict, steps: int | None = None) -> list[str]:
    """SHA-256 chain over the steps of stacked views (axis 0 = step); one hex digest every
    `CHECK_EVERY` steps and at the end."""
    host = {k: np.asarray(v) for k, v in views.items()}
    h = hashlib.sha256()
    out = []
    count = len(next(iter(host.values()))) if steps is None else steps
    for t in range(count):
        for name in sorted(host):
            x = host[name] if steps == 1 else host[name][t]
            x = np.ascontiguousarray(x)
            h.update(f"{name}|{x.dtype.str}|{x.shape}|".encode())
            h.update(x.tobytes())
        if (t + 1) % CHECK_EVERY == 0 or t + 1 == count:
            out.append(h.copy().hexdigest())
    return out


def record(case: str) -> dict:
    env, run = _program(case)
    first, steps, stops, last = run()
    row0 = jax.tree.map(lambda x: x[0], last)
    return {
        "first": _chain(first, steps=1),
        "steps": _chain(steps),
        "stops": _chain(stops),
        "games_ended": int(np.asarray(steps["terminated"]).sum()),
        "svg_sha256": hashlib.sha256(env.render_svg(row0).encode()).hexdigest(),
    }


# ring-9 (~80 CPU-s) in the slow checks; the six-seat formats in CI
@pytest.mark.parametrize("case", ["tournaments", pytest.param("ring-9", marks=pytest.mark.slow)])
def test_tournaments_reproduce_leaf_by_leaf(case):
    want = json.loads(GOLDEN.read_text())[case]
    got = record(case)
    assert got["games_ended"] == want["games_ended"]
    assert got["first"] == want["first"], "the first states differ"
    for name in ("steps", "stops"):
        for i, (a, b) in enumerate(zip(got[name], want[name])):
            assert a == b, f"{name}: first difference within steps {i * CHECK_EVERY}.." \
                           f"{(i + 1) * CHECK_EVERY - 1}"
    assert got["svg_sha256"] == want["svg_sha256"]
    assert want["games_ended"] >= 10  # the fixture covers whole tournaments, ICM at the cap too


def main() -> None:
    doc = {case: record(case) for case in sorted(CASES)}
    GOLDEN.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    sys.exit(main())
