"""holdemjax.sparse: the same results as lax.while_loop / lax.cond, row by row, under every
transformation, with the batched body run only on the rows that need it."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.sparse import chunk, sparse_cond, sparse_while

STEPS = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)  # a closed-over constant (numpy)


def _collatz(n):
    """Steps of the Collatz walk from n, and a checksum of the walk: a loop whose trip count
    differs from row to row."""

    def body(c):
        x, steps, acc = c
        x = jnp.where(x % 2 == 0, x // 2, 3 * x + 1)
        return x, steps + 1, acc * 31 + x + jnp.asarray(STEPS)[steps % 8]

    return body, (jnp.int32(n), jnp.int32(0), jnp.int32(0))


def _plain(n):
    body, init = _collatz(n)
    return jax.lax.while_loop(lambda c: c[0] != 1, body, init)


def _sparse(n):
    body, init = _collatz(n)
    return sparse_while(lambda c: c[0] != 1, body, init)


def _rows(fn, xs):
    return [jax.tree.map(np.asarray, jax.jit(fn)(x)) for x in xs]


@pytest.mark.parametrize("batch", [1, 3, 40, 300])
def test_sparse_while_equals_while_loop_row_by_row(batch):
    xs = jnp.arange(1, batch + 1, dtype=jnp.int32) * 7 % 97 + 1
    got = jax.jit(jax.vmap(_sparse))(xs)
    want = jax.jit(jax.vmap(_plain))(xs)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    if batch >= 40:  # trip counts really differ from row to row
        assert int(got[1].max()) > 20 and int(got[1].min()) < 5
    alone = _rows(_sparse, xs[:3])
    for i, row in enumerate(alone):  # unbatched too
        assert [int(v) for v in row] == [int(v[i]) for v in want]


def test_sparse_while_runs_the_body_only_on_waiting_rows():
    calls = []

    def body(c):
        jax.debug.callback(lambda v: calls.append(np.size(v)), c)
        return c - 1

    batch = 256
    xs = jnp.zeros(batch, jnp.int32).at[:3].set(jnp.array([5, 2, 1]))
    out = jax.jit(jax.vmap(lambda x: sparse_while(lambda c: c > 0, body, x)))(xs)
    jax.block_until_ready(out)
    np.testing.assert_array_equal(out, np.zeros(batch))
    # 5 passes of one chunk each; lax.while_loop under vmap would run 5 * 256 bodies.
    assert sum(calls) == 5 * chunk(batch) < batch


def test_sparse_forms_inside_a_batched_cond_and_with_batched_closures():
    # vmap turns this lax.cond into a select and broadcasts everything the branch closes over
    # (STEPS included): the forms must take those values per row.
    def f(flag, n, limit):
        body, init = _collatz(n)
        loop = jax.lax.cond(flag, lambda: sparse_while(lambda c: (c[0] != 1) & (c[1] < limit),
                                                         body, init), lambda: init)
        bumped = sparse_cond(loop[1] % 2 == 1, lambda c: (c[0], c[1] + limit, c[2]), loop)
        return bumped

    def g(flag, n, limit):  # the same with lax forms
        body, init = _collatz(n)
        loop = jax.lax.cond(flag, lambda: jax.lax.while_loop(
            lambda c: (c[0] != 1) & (c[1] < limit), body, init), lambda: init)
        return jax.lax.cond(loop[1] % 2 == 1, lambda c: (c[0], c[1] + limit, c[2]),
                            lambda c: c, loop)

    flags = jnp.arange(50) % 3 != 0
    ns = jnp.arange(50, dtype=jnp.int32) + 2
    limits = jnp.arange(50, dtype=jnp.int32) % 17 + 3
    got = jax.jit(jax.vmap(f))(flags, ns, limits)
    want = jax.jit(jax.vmap(g))(flags, ns, limits)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert len(set(np.asarray(got[1]).tolist())) > 5


def test_nested_vmap_and_scan():
    xs = (jnp.arange(24, dtype=jnp.int32).reshape(4, 6) * 5) % 41 + 1
    got = jax.jit(jax.vmap(jax.vmap(_sparse)))(xs)
    want = jax.vmap(jax.vmap(_plain))(xs)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)

    def scanned(x):  # vmap of a scan whose body holds the loop
        def body(c, _):
            out = _sparse(c)
            return out[1] + c + 1, out[2]
        return jax.lax.scan(body, x, None, length=4)

    def scanned_plain(x):
        def body(c, _):
            out = _plain(c)
            return out[1] + c + 1, out[2]
        return jax.lax.scan(body, x, None, length=4)

    flat = xs.reshape(-1)
    for a, b in zip(jax.jit(jax.vmap(scanned))(flat), jax.jit(jax.vmap(scanned_plain))(flat)):
        np.testing.assert_array_equal(a, b)


def test_sparse_cond_takes_the_branch_only_where_the_predicate_holds():
    calls = []

    def double(c):
        jax.debug.callback(lambda v: calls.append(np.size(v)), c[0])
        return c[0] * 2, c[1] + 0.5

    batch = 200
    xs = (jnp.arange(batch, dtype=jnp.int32), jnp.zeros(batch, jnp.float32))
    pred = xs[0] % 50 == 7
    out = jax.jit(jax.vmap(lambda p, x: sparse_cond(p, double, x)))(pred, xs)
    jax.block_until_ready(out)
    np.testing.assert_array_equal(out[0], np.where(pred, xs[0] * 2, xs[0]))
    np.testing.assert_array_equal(out[1], np.where(pred, 0.5, 0.0))
    assert sum(calls) == chunk(batch)  # 4 rows need it: one pass of one chunk
    # Unbatched, and with an unbatched predicate under vmap.
    assert int(sparse_cond(True, double, (jnp.int32(3), jnp.float32(0)))[0]) == 6
    assert int(sparse_cond(False, double, (jnp.int32(3), jnp.float32(0)))[0]) == 3
    same = jax.vmap(lambda x: sparse_cond(True, double, x))(xs)
    np.testing.assert_array_equal(same[0], xs[0] * 2)


def test_chunk_sizes():
    assert chunk(1) == 1 and chunk(5) == 5 and chunk(64) == 8 and chunk(4096) == 256


def test_set_gather_false_gives_the_plain_forms_with_the_same_results():
    import holdemjax.sparse as sparse

    xs = jnp.arange(1, 101, dtype=jnp.int32) * 13 % 89 + 1
    gathered = jax.jit(jax.vmap(_sparse))(xs)
    sparse.set_gather(False)
    try:
        calls = []

        def body(c):
            jax.debug.callback(lambda v: calls.append(np.size(v)), c)
            return c - 1

        plain = jax.jit(jax.vmap(_sparse))(xs)
        out = jax.jit(jax.vmap(lambda x: sparse_while(lambda c: c > 0, body, x)))(
            jnp.zeros(64, jnp.int32).at[0].set(3))
        jax.block_until_ready(out)
        assert sum(calls) == 3 * 64  # the plain loop runs the body on every row
    finally:
        sparse.set_gather(True)
    for a, b in zip(gathered, plain):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="'yes'"):
        sparse.set_gather("yes")


def test_a_body_that_changes_shape_or_dtype_is_refused_with_the_place_named():
    x = (jnp.int32(3), jnp.zeros(2, jnp.float32))
    with pytest.raises(TypeError, match=r"\[1\].*float16\[2\].*float32\[2\]"):
        sparse_cond(True, lambda c: (c[0], c[1].astype(jnp.float16)), x)
    with pytest.raises(TypeError, match="structure"):
        sparse_while(lambda c: c[0] > 0, lambda c: (c[0] - 1,), x)
    with pytest.raises(TypeError, match=r"\[0\].*int32\[1\]"):
        jax.vmap(lambda y: sparse_cond(True, lambda c: (c[0][None], c[1]), y))(
            (jnp.arange(3, dtype=jnp.int32), jnp.zeros((3, 2), jnp.float32)))


@pytest.mark.slow  # ~180 CPU-s (four programs compiled): benchmarks/run_slow_checks.py runs it
def test_device_check_script_runs_and_the_forms_agree_on_the_envs(tmp_path):
    # benchmarks/device_check.py is what a session lent an accelerator runs; on the CPU its quick
    # mode checks that gathered and plain loops give the same tournaments, leaf by leaf.
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "device_check.py"
    spec = importlib.util.spec_from_file_location("device_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--quick", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "device_check.json").read_text())
    assert set(report["equal"]) == {"certify"}
    assert all(v["same"] and v["games"] > 0 for v in report["equal"].values())
    assert {(r["batch"], r["gather"]) for r in report["speed"]} == {(4, True)}
    assert all(r["decisions_per_s"] > 0 for r in report["speed"])
