"""holdemjax.fusion.compute_once returns its input, wherever it is traced."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.fusion import compute_once


@pytest.mark.parametrize("x", [np.arange(-5, 7, dtype=np.int32).reshape(3, 4),
                               np.array([True, False, True]), np.int32(-7),
                               np.zeros((0, 3), np.int32), np.array([2**31 - 1], np.int32),
                               np.arange(6, dtype=np.uint8)])
def test_returns_its_input(x):
    for fn in (compute_once, jax.jit(compute_once)):
        out = fn(x)
        assert out.dtype == x.dtype and out.shape == np.shape(x)
        np.testing.assert_array_equal(np.asarray(out), x)


def test_under_vmap_and_scan():
    x = jnp.arange(-12, 12, dtype=jnp.int32).reshape(4, 6)
    np.testing.assert_array_equal(jax.jit(jax.vmap(compute_once))(x), x)

    def body(c, row):
        return c + compute_once(row * 2).sum(), compute_once(row - 1)

    total, rows = jax.lax.scan(body, jnp.int32(0), x)
    assert int(total) == int((x * 2).sum())
    np.testing.assert_array_equal(rows, x - 1)


def test_rejects_floats():
    with pytest.raises(TypeError):
        compute_once(jnp.zeros(3, jnp.float32))
