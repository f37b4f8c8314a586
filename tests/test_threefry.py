"""holdemjax.threefry returns what jax.random returns, bit for bit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax import threefry

KEYS = 64

# name -> (ours, jax.random's), each a function of one key.
CASES = {
    "split": (lambda k: threefry.split(k), lambda k: jax.random.split(k)),
    "split5": (lambda k: threefry.split(k, 5), lambda k: jax.random.split(k, 5)),
    "split2x3": (lambda k: threefry.split(k, (2, 3)), lambda k: jax.random.split(k, (2, 3))),
    "split_at0": (lambda k: threefry.split_at(k, 0), lambda k: jax.random.split(k)[0]),
    "split_at1": (lambda k: threefry.split_at(k, 1), lambda k: jax.random.split(k)[1]),
    "split_at3": (lambda k: threefry.split_at(k, 3), lambda k: jax.random.split(k, 7)[3]),
    "fold_in": (lambda k: threefry.fold_in(k, 77), lambda k: jax.random.fold_in(k, 77)),
    "bits": (lambda k: threefry.bits(k, (3, 5)),
             lambda k: jax.random.bits(k, (3, 5), jnp.uint32)),
    "uniform": (lambda k: threefry.uniform(k, (7, 1)), lambda k: jax.random.uniform(k, (7, 1))),
    "uniform0": (lambda k: threefry.uniform(k), lambda k: jax.random.uniform(k)),
    "bernoulli": (lambda k: threefry.bernoulli(k, (9,)),
                  lambda k: jax.random.bernoulli(k, 0.5, (9,))),
    "randint6": (lambda k: threefry.randint(k, (), 0, 6),
                 lambda k: jax.random.randint(k, (), 0, 6)),
    "randint_wide": (lambda k: threefry.randint(k, (4,), -5, 100_000),
                     lambda k: jax.random.randint(k, (4,), -5, 100_000)),
    "randint_huge": (lambda k: threefry.randint(k, (4,), -2**31, 2**31 - 1),
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
    np.testing.assert_array_equal(_data(threefry.split(key, 3)), _data(jax.random.split(key, 3)))
    np.testing.assert_array_equal(threefry.uniform(key, (2,)), jax.random.uniform(key, (2,)))


def test_other_prng_falls_back_to_jax_random():
    key = jax.random.key(5, impl="rbg")
    np.testing.assert_array_equal(_data(threefry.split(key)), _data(jax.random.split(key)))
    np.testing.assert_array_equal(threefry.uniform(key, (3,)), jax.random.uniform(key, (3,)))


def test_randint_rejects_bounds_it_does_not_reproduce():
    with pytest.raises(ValueError):
        threefry.randint(jax.random.key(0), (), 3, 3)
