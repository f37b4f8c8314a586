"""The one host legality check (holdemjax/host/legal.py): what it admits, that a bad host input
is named, and that it agrees with the JAX rules (`table.legal`, and `table.act` playing the
action as given rather than clamping it) on many states."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.host import legal as host_legal
from holdemjax.host.hand import lone_hand
from holdemjax.poker import table as poker_table
from holdemjax.series import protocol

FACING = {"fold": True, "check": False, "call": 20, "raise": [40, 1000]}
FREE = {"fold": True, "check": True, "call": 0, "raise": None}
_act = jax.jit(poker_table.act)


def test_exact_actions_are_those_the_table_plays_as_given():
    assert host_legal.default_action(FACING) == (poker_table.FOLD, 0)
    assert host_legal.default_action(FREE) == (poker_table.CHECK_CALL, 0)
    assert host_legal.admits(FACING, poker_table.FOLD, 0)
    assert host_legal.admits(FREE, poker_table.CHECK_CALL, 0)
    assert host_legal.admits(FACING, poker_table.RAISE, 40)
    assert host_legal.admits(FACING, np.int32(poker_table.RAISE), 1000)
    assert not host_legal.admits(FACING, poker_table.RAISE, 39)
    assert not host_legal.admits(FACING, poker_table.RAISE, 1001)
    assert not host_legal.admits(FREE, poker_table.RAISE, 40)  # raising closed
    assert not host_legal.admits(FACING, True, 0)
    assert not host_legal.admits(FACING, poker_table.RAISE, 40.0)
    assert not host_legal.admits(FACING, 3, 0)
    assert not host_legal.admits(FACING, poker_table.RAISE, None)
    assert host_legal.admitted(FACING, np.int32(poker_table.RAISE), np.int64(60), "x") \
        == (poker_table.RAISE, 60)
    with pytest.raises(ValueError, match=r"bot 'x' chose \(2, 39\), not legal"):
        host_legal.admitted(FACING, poker_table.RAISE, 39, "bot 'x'")


def test_a_bad_host_input_is_named():
    """A host caller (a bot, a person, a script) gets a ValueError naming the bad kind or
    amount and the legal block, where `table.act` would clamp it, on a real table's block."""
    stacks = jnp.full(6, 1000, jnp.int32)
    table = poker_table.start_hand(stacks, jnp.ones(6, bool), 5, 0, 1, True, 10, 20, 0,
                                   jnp.arange(52, dtype=jnp.int32))
    legal = protocol.legal_info(table)
    assert legal == FACING
    for kind, amount in [(poker_table.RAISE, 40), (poker_table.RAISE, 1000), (poker_table.FOLD, 0)]:
        assert host_legal.admitted(legal, kind, amount, "host") == (kind, amount)
    for kind, amount, match in [(3, 0, r"\(3, 0\)"), ("raise", 0, r"\('raise', 0\)"),
                                (True, 0, r"\(True, 0\)"),
                                (poker_table.RAISE, 39,
                                 r"\(2, 39\), not legal: .*'raise': \[40, 1000\]"),
                                (poker_table.RAISE, 1001, r"\(2, 1001\)"),
                                (poker_table.RAISE, 40.5, r"\(2, 40.5\)")]:
        with pytest.raises(ValueError, match=r"host chose " + match):
            host_legal.admitted(legal, kind, amount, "host")


def _played_as_given(table, kind, amount) -> bool:
    """`table.act` plays ``(kind, amount)`` unclamped: a fold or a check/call always; a raise
    when the seat's bet becomes ``amount`` and the table's bet rises to it (a closed raise is
    played as a call, an amount outside the range is clipped)."""
    if kind != poker_table.RAISE:
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
            legal = protocol.legal_info(hand.legal)
            yield hand.table, hand.legal, legal
            kinds = [poker_table.CHECK_CALL] + ([poker_table.FOLD] if not legal["check"] else [])
            if legal["raise"] is not None:
                kinds.append(poker_table.RAISE)
            kind = int(rng.choice(kinds))
            amount = int(rng.integers(*legal["raise"], endpoint=True)) \
                if kind == poker_table.RAISE else 0
            hand.apply(kind, amount)


def test_the_host_check_agrees_with_the_jax_rule_on_many_states():
    """On every decision of random lone hands, for folds, calls and raises to the edges of the
    range and past them: `admits` says yes exactly when `table.act` plays the action as given,
    and the elementwise `exact` on the engine's `table.Legal` arrays says the same."""
    checked = 0
    for table, lg, legal in _states():
        lo, hi = int(lg.min_raise_to), int(lg.max_raise_to)
        for kind in (poker_table.FOLD, poker_table.CHECK_CALL, poker_table.RAISE):
            for amount in sorted({0, lo - 1, lo, (lo + hi) // 2, hi, hi + 1}):
                if kind != poker_table.RAISE and amount != 0:
                    continue
                host = host_legal.admits(legal, kind, amount)
                assert host == _played_as_given(table, kind, amount), (legal, kind, amount)
                on_arrays = host_legal.exact(np.int32(kind), np.int32(amount), lg.can_raise,
                                             lg.min_raise_to, lg.max_raise_to)
                assert bool(on_arrays) == host, (legal, kind, amount)
                checked += 1
    assert checked > 100
