"""The series engine (holdemjax/series/engine.py): packed states read back exactly, small
chunks, and one compiled program per step for a whole tournament (nothing recompiles)."""

from __future__ import annotations

import jax
import numpy as np

from holdemjax.poker import table as tb
from holdemjax.poker import tournament as tn
from holdemjax.series.engine import CHUNK_WORDS, engine


def test_a_packed_state_reads_back_leaf_for_leaf():
    eng = engine("certify")
    key = jax.random.key(7)
    state = eng.seat(key)
    assert all(c.shape[0] <= CHUNK_WORDS and c.dtype == np.int32 for c in state)
    t, legal = eng.host(state)
    want = jax.device_get(jax.jit(lambda k: tn.seat(k, eng.format))(key))
    for got, ref in zip(jax.tree.leaves((t.replace(format=None), legal)),
                        jax.tree.leaves((want.replace(format=None), tb.legal(want.table)))):
        assert got.dtype == np.asarray(ref).dtype and got.shape == np.shape(ref)
        np.testing.assert_array_equal(got, ref)
    assert t.score.dtype == np.float32 and t.key.dtype == np.uint32 and t.alive.dtype == bool


def test_a_tournament_compiles_each_step_once():
    eng = engine("certify")
    state = eng.seat(jax.random.key(3))
    t, legal = eng.host(state)
    decisions = hands = 0
    while not bool(t.finished):
        kind = tb.RAISE if decisions % 7 == 3 else tb.CHECK_CALL
        state = eng.act(state, eng.scalar(kind), eng.scalar(int(legal.min_raise_to)))
        t, legal = eng.host(state)
        decisions += 1
        while bool(t.table.hand_over) and not bool(t.finished):
            state = eng.boundary(state, eng.scalar(False))
            t, legal = eng.host(state)
            hands += 1
    places, scores = (np.asarray(x) for x in eng.end(state))
    assert decisions > 20 and hands >= 2
    assert places.min() == 1 and (places <= 6).all() and (places == 1).sum() == 1
    np.testing.assert_allclose(scores.sum(), 1.0, atol=1e-6)
    stopped = eng.host(eng.boundary(state, eng.scalar(True)))[0]  # a finished game: unchanged
    np.testing.assert_array_equal(stopped.score, t.score)
    for step in (eng.seat, eng.act, eng.boundary, eng.end):  # compiled ahead: cannot retrace
        assert isinstance(step, jax.stages.Compiled)


def _digest(eng) -> str:
    import hashlib

    state = eng.seat(jax.random.key(11))
    for i in range(12):
        t, legal = eng.host(state)
        if bool(t.finished):
            break
        if bool(t.table.hand_over):
            state = eng.boundary(state, eng.scalar(False))
            continue
        kind = tb.RAISE if i % 4 == 1 else tb.CHECK_CALL
        state = eng.act(state, eng.scalar(kind), eng.scalar(int(legal.min_raise_to)))
    words = np.concatenate([np.asarray(c) for c in state])
    return hashlib.sha256(words.tobytes()).hexdigest()


def test_steps_run_inline_with_the_same_results():
    """`run_inline` (JAX's CPU async dispatch off, as `holdemjax series` runs): only before
    JAX's backend starts, and the steps give the same states."""
    import subprocess
    import sys

    from holdemjax.series.engine import run_inline

    assert run_inline() is False  # this process's backend runs already
    child = ("from holdemjax.series.engine import run_inline, engine\n"
             "ok = run_inline()\nfrom tests.series.test_engine import _digest\n"
             "print(ok, _digest(engine('certify')))")
    out = subprocess.run([sys.executable, "-c", child], check=True, capture_output=True,
                         text=True).stdout.split()
    assert out == ["True", _digest(engine("certify"))]
