"""The one validator (holdemjax/validate.py) every room's argument checks use: integers and real
numbers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from holdemjax.validate import is_int, is_real, require_int


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


@pytest.mark.parametrize("value", [0, -2, 1.5, float("inf"), Fraction(3, 4), np.float32(0.5),
                                   np.int16(3)])
def test_ints_floats_and_fractions_are_real(value):
    assert is_real(value)


@pytest.mark.parametrize("value", [True, np.bool_(False), "1.5", None, 1j, [0.5]])
def test_bools_strings_and_complex_are_not_real(value):
    assert not is_real(value)


def test_the_real_checks_of_the_rooms_refuse_a_bool():
    # komi (envs/go.py), a pot fraction (poker/actions.py), a PPO float (training/ppo_config.py)
    import holdemjax
    from holdemjax.poker.actions import Menu
    from holdemjax.training.ppo_config import Config

    with pytest.raises(ValueError, match=r"komi must be a finite number, got True"):
        holdemjax.make("go_9x9", komi=True)
    with pytest.raises(ValueError, match=r"raise sizes must be positive pot fractions, got True"):
        Menu((True,))
    with pytest.raises(ValueError, match=r"gamma must be a finite number >= 0, got True"):
        Config(gamma=True)
