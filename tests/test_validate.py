"""The one integer validator (holdemjax/validate.py) every room's argument checks use."""

from __future__ import annotations

import numpy as np
import pytest

from holdemjax.validate import is_int, require_int


@pytest.mark.parametrize("value", [0, -3, 2**40, np.int32(5), np.uint8(7), np.int64(-1)])
def test_python_and_numpy_integers_are_integers(value):
    assert is_int(value)
    assert require_int("x", value) == int(value) and type(require_int("x", value)) is int


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 1.0, 1.5, "3", None, [1]])
def test_bools_floats_and_others_are_not(value):
    assert not is_int(value)
    with pytest.raises(ValueError, match=r"^seed must be an integer, got "):
        require_int("seed", value)


def test_bounds_are_named_in_the_error():
    assert require_int("seats", 2, 2, 9) == 2 and require_int("seats", 9, 2, 9) == 9
    with pytest.raises(ValueError, match=r"^seats must be 2\.\.9, got 10$"):
        require_int("seats", 10, 2, 9)
    with pytest.raises(ValueError, match=r"^seed must be >= 0, got -1$"):
        require_int("seed", -1, 0)
    with pytest.raises(ValueError, match=r"^cap must be <= 5, got 6$"):
        require_int("cap", 6, hi=5)


def test_what_words_the_requirement():
    with pytest.raises(ValueError, match=r"^hands must be a positive count, got 0$"):
        require_int("hands", 0, 1, what="a positive count")
    with pytest.raises(ValueError, match=r"^hands must be a positive count, got 'x'$"):
        require_int("hands", "x", 1, what="a positive count")
