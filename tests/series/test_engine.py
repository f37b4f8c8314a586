"""The series engine (holdemjax/series/engine.py): packed states read back exactly, small
chunks, and one compiled program per step for a whole tournament (nothing recompiles)."""

from __future__ import annotations

import jax
import numpy as np

from holdemjax.host.packing import CHUNK_WORDS
from holdemjax.poker import table, tournament
from holdemjax.series.engine import engine


def test_a_packed_state_reads_back_leaf_for_leaf():
    eng = engine("certify")
    key = jax.random.key(7)
    state = eng.seat(key)
    assert all(c.shape[0] <= CHUNK_WORDS and c.dtype == np.int32 for c in state)
    t, legal = eng.host(state)
    want = jax.device_get(jax.jit(lambda k: tournament.seat(k, eng.format))(key))
    for got, ref in zip(jax.tree.leaves((t.replace(format=None), legal)),
                        jax.tree.leaves((want.replace(format=None), table.legal(want.table)))):
        assert got.dtype == np.asarray(ref).dtype and got.shape == np.shape(ref)
        np.testing.assert_array_equal(got, ref)
    assert t.score.dtype == np.float32 and t.key.dtype == np.uint32 and t.alive.dtype == bool
    assert t.format.num_seats == eng.format.num_seats and t.format.kind == eng.format.kind
    for got, ref in zip(jax.tree.leaves(t.format), jax.tree.leaves(eng.format), strict=True):
        np.testing.assert_array_equal(got, ref)


def test_a_tournament_compiles_each_step_once():
    eng = engine("certify")
    state = eng.seat(jax.random.key(3))
    t, legal = eng.host(state)
    decisions = hands = 0
    while not bool(t.finished):
        kind = table.RAISE if decisions % 7 == 3 else table.CHECK_CALL
        state = eng.act(state, eng.scalar(kind), eng.scalar(int(legal.min_raise_to)))
        t, legal = eng.host(state)
        decisions += 1
        while bool(t.table.hand_over) and not bool(t.finished):
            state, t, legal, _ = _advance_one(eng, state)
            hands += 1
    places, scores = (np.asarray(x) for x in eng.end(state))
    assert decisions > 20 and hands >= 2
    assert places.min() == 1 and (places <= 6).all() and (places == 1).sum() == 1
    np.testing.assert_allclose(scores.sum(), 1.0, atol=1e-6)
    stopped = eng.host(eng.settle(state, eng.scalar(True)))[0]  # a finished game: unchanged
    np.testing.assert_array_equal(stopped.score, t.score)
    for step in (eng.seat, eng.act, eng.boundary, eng.settle, eng.end):  # compiled ahead
        assert isinstance(step, jax.stages.Compiled)


def _advance_one(eng, state):
    """`tournament.advance_one` as the series runs it: ``boundary``, then ``settle`` when the
    state says the ICM is due."""
    state = eng.boundary(state)
    t, legal = eng.host(state)
    due = bool(t.icm_due)
    if due:
        state = eng.settle(state, eng.scalar(False))
        t, legal = eng.host(state)
    return state, t, legal, due


def test_boundary_then_settle_is_advance_one_at_every_hand_boundary():
    """The engine's two boundary programs compose to `tournament.advance_one` exactly, leaf for
    leaf, at every hand boundary of certify tournaments (8-hand cap: the ICM settles at it,
    SPEC §2), and ``settle`` with ``stop`` is `tournament.stop`."""
    eng = engine("certify")
    advance_one = jax.jit(tournament.advance_one)
    stop = jax.jit(tournament.stop)
    settled = 0
    for seed in range(4):
        state = eng.seat(jax.random.key(seed))
        t, legal = eng.host(state)
        for i in range(400):
            if bool(t.finished):
                break
            if bool(t.table.hand_over):
                want = jax.device_get(advance_one(t.replace(format=eng.format)))
                state, t, legal, due = _advance_one(eng, state)
                settled += due
                _same(t, want)
                continue
            if i % 5 == 2:  # the stop mid-tournament settles by ICM
                _same(eng.host(eng.settle(state, eng.scalar(True)))[0],
                      jax.device_get(stop(t.replace(format=eng.format))))
            kind = table.RAISE if i % 13 == 1 else table.CHECK_CALL
            state = eng.act(state, eng.scalar(kind), eng.scalar(int(legal.min_raise_to)))
            t, legal = eng.host(state)
        assert bool(t.finished)
    assert settled


def _same(got, want):
    for a, b in zip(jax.tree.leaves(got.replace(format=None)),
                    jax.tree.leaves(want.replace(format=None))):
        np.testing.assert_array_equal(a, b)


def _digest(eng) -> str:
    import hashlib

    state = eng.seat(jax.random.key(11))
    for i in range(12):
        t, legal = eng.host(state)
        if bool(t.finished):
            break
        if bool(t.table.hand_over):
            state = _advance_one(eng, state)[0]
            continue
        kind = table.RAISE if i % 4 == 1 else table.CHECK_CALL
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
