"""The one host legality check (holdemjax/host/legal.py): what it admits, that a bad host input
is named, and that it agrees with the JAX rules (`table.legal`, and `table.act` playing the
action as given rather than clamping it) on many states."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.host import legal as L
from holdemjax.host.hand import lone_hand
from holdemjax.poker import table as tb
from holdemjax.series import protocol as P

FACING = {"fold": True, "check": False, "call": 20, "raise": [40, 1000]}
FREE = {"fold": True, "check": True, "call": 0, "raise": None}
_act = jax.jit(tb.act)


def test_exact_actions_are_those_the_table_plays_as_given():
    assert L.default_action(FACING) == (tb.FOLD, 0)
    assert L.default_action(FREE) == (tb.CHECK_CALL, 0)
    assert L.admits(FACING, tb.FOLD, 0) and L.admits(FREE, tb.CHECK_CALL, 0)
    assert L.admits(FACING, tb.RAISE, 40) and L.admits(FACING, np.int32(tb.RAISE), 1000)
    assert not L.admits(FACING, tb.RAISE, 39) and not L.admits(FACING, tb.RAISE, 1001)
    assert not L.admits(FREE, tb.RAISE, 40)  # raising closed
    assert not L.admits(FACING, True, 0) and not L.admits(FACING, tb.RAISE, 40.0)
    assert not L.admits(FACING, 3, 0) and not L.admits(FACING, tb.RAISE, None)
    assert L.admitted(FACING, np.int32(tb.RAISE), np.int64(60), "x") == (tb.RAISE, 60)
    with pytest.raises(ValueError, match=r"bot 'x' chose \(2, 39\), not legal"):
        L.admitted(FACING, tb.RAISE, 39, "bot 'x'")


def test_a_bad_host_input_is_named():
    """A host caller (a bot, a person, a script) gets a ValueError naming the bad kind or
    amount and the legal block, where `table.act` would clamp it, on a real table's block."""
    stacks = jnp.full(6, 1000, jnp.int32)
    table = tb.start_hand(stacks, jnp.ones(6, bool), 5, 0, 1, True, 10, 20, 0,
                          jnp.arange(52, dtype=jnp.int32))
    legal = P.legal_info(table)
    assert legal == FACING
    for kind, amount in [(tb.RAISE, 40), (tb.RAISE, 1000), (tb.FOLD, 0)]:
        assert L.admitted(legal, kind, amount, "host") == (kind, amount)
    for kind, amount, match in [(3, 0, r"\(3, 0\)"), ("raise", 0, r"\('raise', 0\)"),
                                (True, 0, r"\(True, 0\)"),
                                (tb.RAISE, 39, r"\(2, 39\), not legal: .*'raise': \[40, 1000\]"),
                                (tb.RAISE, 1001, r"\(2, 1001\)"), (tb.RAISE, 40.5, r"\(2, 40.5\)")]:
        with pytest.raises(ValueError, match=r"host chose " + match):
            L.admitted(legal, kind, amount, "host")


def _played_as_given(table, kind, amount) -> bool:
    """`table.act` plays ``(kind, amount)`` unclamped: a fold or a check/call always; a raise
    when the seat's bet becomes ``amount`` and the table's bet rises to it (a closed raise is
    played as a call, an amount outside the range is clipped)."""
    if kind != tb.RAISE:
        return True
    seat, before = int(table.to_act), int(table.current_bet)
    after = _act(table, jnp.int32(kind), jnp.int32(amount))
    return int(after.bets[seat]) == amount == int(after.current_bet) > before


def _states(hands: int = 6):
    """Host tables at every decision of a few lone hands played with random exact actions."""
    rng = np.random.default_rng(53)
    for h in range(hands):
        seats = int(rng.integers(2, 7))
        stacks = rng.integers(30, 400, seats)
        hand = lone_hand(h, rng.permutation(52), stacks, button=h % seats)
        while not hand.over:
            legal = P.legal_info(hand.legal)
            yield hand.table, hand.legal, legal
            kinds = [tb.CHECK_CALL] + ([tb.FOLD] if not legal["check"] else [])
            if legal["raise"] is not None:
                kinds.append(tb.RAISE)
            kind = int(rng.choice(kinds))
            amount = int(rng.integers(*legal["raise"], endpoint=True)) if kind == tb.RAISE else 0
            hand.apply(kind, amount)


def test_the_host_check_agrees_with_the_jax_rule_on_many_states():
    """On every decision of random lone hands, for folds, calls and raises to the edges of the
    range and past them: `admits` says yes exactly when `table.act` plays the action as given,
    and the elementwise `exact` on the engine's `table.Legal` arrays says the same."""
    checked = 0
    for table, lg, legal in _states():
        lo, hi = int(lg.min_raise_to), int(lg.max_raise_to)
        for kind in (tb.FOLD, tb.CHECK_CALL, tb.RAISE):
            for amount in sorted({0, lo - 1, lo, (lo + hi) // 2, hi, hi + 1}):
                if kind != tb.RAISE and amount != 0:
                    continue
                host = L.admits(legal, kind, amount)
                assert host == _played_as_given(table, kind, amount), (legal, kind, amount)
                on_arrays = L.exact(np.int32(kind), np.int32(amount), lg.can_raise,
                                    lg.min_raise_to, lg.max_raise_to)
                assert bool(on_arrays) == host, (legal, kind, amount)
                checked += 1
    assert checked > 100
