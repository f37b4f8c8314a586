"""The discrete action menu (holdemjax/poker/actions.py docstring rules)."""

import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.poker import table
from holdemjax.poker.actions import CHECK_CALL, FOLD, MIN_RAISE, Menu

MENU = Menu()


def _table(stacks, button=5, sb=0, bb=1, blinds=(10, 20), ante=0):
    n = len(stacks)
    deck = jnp.arange(52, dtype=jnp.int32)
    return table.start_hand(jnp.asarray(stacks, jnp.int32), jnp.ones(n, bool), button, sb, bb,
                            True, blinds[0], blinds[1], ante, deck)


def _menu(t):
    mask, amounts = MENU.mask_and_amounts(t, table.legal(t))
    return np.asarray(mask), np.asarray(amounts)


def test_opening_pre_flop_sizes():
    """UTG facing the big blind: pot 30, call 20 -> pot after call 50; x-pot raise-to =
    20 + floor(x * 50). Min raise-to 40 (a raise of one big blind)."""
    mask, amounts = _menu(_table([1000] * 6))
    assert MENU.names()[:3] == ["FOLD", "CHECK_CALL", "MIN_RAISE"]
    assert amounts[MIN_RAISE] == 40
    assert amounts[3:8].tolist() == [45, 57, 70, 95, 120]
    assert amounts[MENU.ALL_IN] == 1000
    assert mask.all()  # facing a bet: fold allowed; every size distinct and legal


def test_fold_masked_when_checking_is_free():
    """The big blind, limped to: checking is free, so FOLD is masked."""
    t = _table([1000] * 6)
    for _ in range(5):  # everyone calls, the small blind completes
        t = table.act(t, table.CHECK_CALL)
    assert int(t.to_act) == 1
    mask, _ = _menu(t)
    assert not mask[FOLD] and mask[CHECK_CALL]


def test_sizes_at_or_past_all_in_are_masked():
    """UTG with 100 chips: pot-fraction targets 45, 57, 70, 95 stay below all-in; 2-pot (120)
    is past the stack and masked; ALL_IN (100) is offered."""
    t = _table([1000, 1000, 1000, 100, 1000, 1000], button=0, sb=1, bb=2)
    mask, amounts = _menu(t)
    assert amounts[MENU.ALL_IN] == 100
    assert mask[3:8].tolist() == [True, True, True, True, False]
    assert mask[MENU.ALL_IN]


def test_all_in_equal_to_min_raise_is_offered_once():
    """UTG with 40 chips: min raise-to 40 = all-in: offered as ALL_IN only."""
    t = _table([1000, 1000, 1000, 40, 1000, 1000], button=0, sb=1, bb=2)
    mask, amounts = _menu(t)
    assert amounts[MIN_RAISE] == 40 and not mask[MIN_RAISE]
    assert mask[MENU.ALL_IN] and amounts[MENU.ALL_IN] == 40 and not mask[3:8].any()


def test_stack_that_can_only_call():
    """UTG with 15 chips cannot even call the full blind: CHECK_CALL (all-in) and FOLD only."""
    t = _table([1000, 1000, 1000, 15, 1000, 1000], button=0, sb=1, bb=2)
    mask, _ = _menu(t)
    assert mask.tolist() == [True, True] + [False] * (MENU.num_actions - 2)


def test_duplicate_sizes_are_masked():
    menu = Menu((0.5, 0.51))  # floor(0.5 * 50) == floor(0.51 * 50) == 25
    t = _table([1000] * 6)
    mask, amounts = menu.mask_and_amounts(t, table.legal(t))
    assert int(amounts[3]) == int(amounts[4]) == 45
    assert bool(mask[3]) and not bool(mask[4])


def test_to_engine_maps_ids():
    _, amounts = _menu(_table([1000] * 6))
    for action, kind in [(FOLD, table.FOLD), (CHECK_CALL, table.CHECK_CALL),
                         (MIN_RAISE, table.RAISE), (MENU.ALL_IN, table.RAISE)]:
        k, a = MENU.to_engine(action, jnp.asarray(amounts))
        assert int(k) == kind and int(a) == amounts[action]


@pytest.mark.parametrize("sizes", [(0,), (-1.0,), ("half",), (True,), (0.5, 0.5)])
def test_bad_sizes(sizes):
    with pytest.raises(ValueError):
        Menu(sizes)


@pytest.mark.parametrize("sizes", ["big", 0.5, None])
def test_sizes_that_are_not_a_sequence_are_named_whole(sizes):
    """make("sng-6", raise_sizes="big") names "big", not its first letter."""
    import holdemjax

    with pytest.raises(ValueError, match=f"raise sizes must be a sequence of positive pot "
                       f"fractions, got {sizes!r}"):
        holdemjax.make("sng-6", raise_sizes=sizes)
