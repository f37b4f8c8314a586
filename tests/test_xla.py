"""holdemjax.xla's draws return what jax.random returns, bit for bit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax import xla

KEYS = 64

# name -> (ours, jax.random's), each a function of one key.
CASES = {
    "split": (lambda k: xla.split(k), lambda k: jax.random.split(k)),
    "split5": (lambda k: xla.split(k, 5), lambda k: jax.random.split(k, 5)),
    "split2x3": (lambda k: xla.split(k, (2, 3)), lambda k: jax.random.split(k, (2, 3))),
    "split_at0": (lambda k: xla.split_at(k, 0), lambda k: jax.random.split(k)[0]),
    "split_at1": (lambda k: xla.split_at(k, 1), lambda k: jax.random.split(k)[1]),
    "split_at3": (lambda k: xla.split_at(k, 3), lambda k: jax.random.split(k, 7)[3]),
    "fold_in": (lambda k: xla.fold_in(k, 77), lambda k: jax.random.fold_in(k, 77)),
    "bits": (lambda k: xla.bits(k, (3, 5)),
             lambda k: jax.random.bits(k, (3, 5), jnp.uint32)),
    "uniform": (lambda k: xla.uniform(k, (7, 1)), lambda k: jax.random.uniform(k, (7, 1))),
    "uniform0": (lambda k: xla.uniform(k), lambda k: jax.random.uniform(k)),
    "bernoulli": (lambda k: xla.bernoulli(k, (9,)),
                  lambda k: jax.random.bernoulli(k, 0.5, (9,))),
    "randint6": (lambda k: xla.randint(k, (), 0, 6),
                 lambda k: jax.random.randint(k, (), 0, 6)),
    "randint_wide": (lambda k: xla.randint(k, (4,), -5, 100_000),
                     lambda k: jax.random.randint(k, (4,), -5, 100_000)),
    "randint_huge": (lambda k: xla.randint(k, (4,), -2**31, 2**31 - 1),
                     lambda k: jax.random.randint(k, (4,), -2**31, 2**31 - 1)),
}


def _data(k):
    return jax.random.key_data(k) if jnp.issubdtype(k.dtype, jax.dtypes.prng_key) else k


# Raw keys take the same code after unwrapping: a few cases show it (compiling jax.random's
# rolled loops is slow).
RAW = ("split", "split_at1", "uniform", "randint6")


@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_equals_jax_random_under_vmap(kind):
    keys = jax.random.split(jax.random.key(3), KEYS)
    names = list(CASES)
    if kind == "raw":
        keys, names = jax.random.key_data(keys), RAW  # uint32 keys, as jax.random.PRNGKey makes
    ours = jax.jit(jax.vmap(lambda k: {n: CASES[n][0](k) for n in names}))(keys)
    theirs = jax.jit(jax.vmap(lambda k: {n: CASES[n][1](k) for n in names}))(keys)
    for name in names:
        a, b = ours[name], theirs[name]
        typed = jnp.issubdtype(b.dtype, jax.dtypes.prng_key)
        assert typed == jnp.issubdtype(a.dtype, jax.dtypes.prng_key), name  # same kind of key
        a, b = _data(a), _data(b)
        assert (a.dtype, a.shape) == (b.dtype, b.shape), name
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=name)


def test_single_key_outside_jit():
    key = jax.random.key(11)
    np.testing.assert_array_equal(_data(xla.split(key, 3)), _data(jax.random.split(key, 3)))
    np.testing.assert_array_equal(xla.uniform(key, (2,)), jax.random.uniform(key, (2,)))


def test_other_prng_falls_back_to_jax_random():
    key = jax.random.key(5, impl="rbg")
    np.testing.assert_array_equal(_data(xla.split(key)), _data(jax.random.split(key)))
    np.testing.assert_array_equal(xla.uniform(key, (3,)), jax.random.uniform(key, (3,)))


def test_randint_rejects_bounds_it_does_not_reproduce():
    with pytest.raises(ValueError):
        xla.randint(jax.random.key(0), (), 3, 3)


# ---------------------------------------------------------------- the hash on the host
def test_the_hash_on_python_ints_is_the_hash_on_arrays():
    # holdemjax.duplicate.draws hashes on the host with Python ints: the same function, so the
    # two must agree word for word (and with jax.random, through the draws above).
    rng = np.random.default_rng(7)
    words = rng.integers(0, 2**32, size=(4, 200), dtype=np.uint64).astype(np.uint32)
    words[:, :4] = [[0, 2**32 - 1, 0, 2**32 - 1]] * 4  # the edges of the wrap
    arrays = xla.threefry2x32(*(jnp.asarray(w) for w in words))
    for i in range(words.shape[1]):
        ints = xla.threefry2x32(*(int(w) for w in words[:, i]))
        assert all(isinstance(v, int) and 0 <= v < 2**32 for v in ints)
        assert ints == (int(arrays[0][i]), int(arrays[1][i])), i


# ---------------------------------------------------------------------- compute once
ONCE = [xla.compute_once, xla.once_by_loop, xla.once_by_reduction]


@pytest.mark.parametrize("x", [np.arange(-5, 7, dtype=np.int32).reshape(3, 4),
                               np.array([True, False, True]), np.int32(-7),
                               np.array([2**31 - 1], np.int32), np.arange(6, dtype=np.uint8),
                               np.array([2**32 - 1, 0], np.uint32)])
@pytest.mark.parametrize("once", ONCE)
def test_compute_once_returns_its_input(once, x):
    for fn in (once, jax.jit(once)):
        out = fn(x)
        assert out.dtype == x.dtype and out.shape == np.shape(x)
        np.testing.assert_array_equal(np.asarray(out), x)


def test_compute_once_of_nothing_is_nothing():
    x = np.zeros((0, 3), np.int32)
    assert xla.compute_once(x).shape == (0, 3)


@pytest.mark.parametrize("once", ONCE)
def test_compute_once_under_vmap_and_scan(once):
    x = jnp.arange(-12, 12, dtype=jnp.int32).reshape(4, 6)
    np.testing.assert_array_equal(jax.jit(jax.vmap(once))(x), x)

    def body(c, row):
        return c + once(row * 2).sum(), once(row - 1)

    total, rows = jax.lax.scan(body, jnp.int32(0), x)
    assert int(total) == int((x * 2).sum())
    np.testing.assert_array_equal(rows, x - 1)


def test_compute_once_rejects_floats():
    with pytest.raises(TypeError, match="float32"):
        xla.compute_once(jnp.zeros(3, jnp.float32))
