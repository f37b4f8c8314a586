"""Property-based tests (hypothesis) of the poker core: ICM (holdemjax/poker/icm.py), the hand
evaluator (evaluator.py), the rules engine with random exact amounts (table.py: `act`'s
documented clamping; the one host check, holdemjax/host/legal.py, refuses exactly what it
clamps), and the protocol's reply parser against the host check.

Reproducible in CI: the profile derandomizes and keeps no example database in the tree;
``HYPOTHESIS_PROFILE=holdemjax-deep`` searches more.
"""

from __future__ import annotations

import functools
import itertools
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holdemjax.host import legal as host_legal
from holdemjax.poker import table as poker_table
from holdemjax.poker.evaluator import (
    FLUSH,
    FOUR_OF_A_KIND,
    HIGH_CARD,
    NUM_CATEGORIES,
    ONE_PAIR,
    STRAIGHT,
    THREE_OF_A_KIND,
    TWO_PAIR,
    category,
    evaluate,
)
from holdemjax.poker.icm import icm
from holdemjax.series import protocol

settings.register_profile("holdemjax-ci", derandomize=True, database=None, deadline=None,
                          max_examples=40, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("holdemjax-deep", database=None, deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "holdemjax-ci"))

SEATS = 6  # one compiled table shape for the engine properties
TOL = 2e-5


# ------------------------------------------------------------------------------------ ICM
@st.composite
def stacks_and_payouts(draw, min_players=2):
    n = draw(st.integers(min_players, 9))
    stacks = draw(st.lists(st.integers(0, 100_000), min_size=n, max_size=n))
    if sum(stacks) == 0:
        stacks[0] = 1
    pay = sorted(draw(st.lists(st.floats(0, 1, width=32), min_size=n, max_size=n)),
                 reverse=True)  # places pay non-increasing amounts
    return np.asarray(stacks, np.float32), np.asarray(pay, np.float32)


@functools.cache
def _icm():
    return jax.jit(icm)


@given(sp=stacks_and_payouts(), perm_seed=st.integers(0, 2**32 - 1))
def test_icm_sums_to_the_payouts_and_is_permutation_equivariant(sp, perm_seed):
    """Every chip goes to someone: equities sum to the payouts. Renaming the players renames
    their equities (ICM depends on stacks, not seats)."""
    stacks, pay = sp
    eq = np.asarray(_icm()(stacks, pay))
    np.testing.assert_allclose(eq.sum(), pay.sum(), atol=TOL * len(pay))
    perm = np.random.default_rng(perm_seed).permutation(len(stacks))
    np.testing.assert_allclose(np.asarray(_icm()(stacks[perm], pay)), eq[perm], atol=TOL)


@given(sp=stacks_and_payouts(), who=st.integers(0, 8), extra=st.integers(1, 100_000))
def test_icm_is_monotone_in_the_stack(sp, who, extra):
    """With places paying non-increasing amounts: a bigger stack never has less equity, more
    chips never lower a player's equity, and equity lies between the last and first payout."""
    stacks, pay = sp
    who %= len(stacks)
    eq = np.asarray(_icm()(stacks, pay))
    order = np.argsort(stacks, kind="stable")
    assert (np.diff(eq[order]) >= -TOL).all(), (stacks, eq)
    more = stacks.copy()
    more[who] += extra
    assert np.asarray(_icm()(more, pay))[who] >= eq[who] - TOL
    assert (eq >= pay.min() - TOL).all() and (eq <= pay.max() + TOL).all()


@given(n=st.integers(2, 9), chips=st.integers(1, 10_000))
def test_icm_equal_stacks_share_equally(n, chips):
    pay = np.linspace(1.0, 0.0, n).astype(np.float32)
    eq = np.asarray(_icm()(np.full(n, chips, np.float32), pay))
    np.testing.assert_allclose(eq, pay.sum() / n, atol=TOL)


# ------------------------------------------------------------------------------ evaluator
hands7 = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)


@functools.cache
def _evaluate():
    return jax.jit(evaluate)


def _lower_bound(cards) -> int:
    """The least category the cards must make, from plain counting (independent of the
    evaluator): quads, trips, two pairs, a pair by rank counts; five of a suit a flush."""
    ranks = np.bincount(np.asarray(cards) // 4, minlength=13)
    suits = np.bincount(np.asarray(cards) % 4, minlength=4)
    if ranks.max() == 4:
        return FOUR_OF_A_KIND
    if suits.max() >= 5:
        return FLUSH
    if ranks.max() == 3:
        return THREE_OF_A_KIND
    if (ranks >= 2).sum() >= 2:
        return TWO_PAIR
    if ranks.max() == 2:
        return ONE_PAIR
    return HIGH_CARD


@given(cards=hands7, perm_seed=st.integers(0, 2**32 - 1))
def test_strength_ignores_card_order_and_respects_category_bounds(cards, perm_seed):
    ev = _evaluate()
    hand = np.asarray(cards, np.int32)
    s = int(ev(hand))
    perm = np.random.default_rng(perm_seed).permutation(7)
    assert int(ev(hand[perm])) == s  # a hand is a set of cards
    cat = int(category(jnp.int32(s)))
    assert s >= 0 and 0 <= cat < NUM_CATEGORIES
    assert cat >= _lower_bound(cards)
    # the best five of seven: at least as strong as every five-card subset, equal to one
    fives = np.asarray(list(itertools.combinations(cards, 5)), np.int32)
    best = np.asarray(ev(fives))
    assert s == best.max()


@given(cards=hands7)
def test_more_cards_never_make_a_weaker_hand(cards):
    ev = _evaluate()
    hand = np.asarray(cards, np.int32)
    assert int(ev(hand)) >= int(ev(hand[:6])) >= int(ev(hand[:5]))
    if int(category(ev(hand[:5]))) >= STRAIGHT:  # a made five-card hand stays at least that
        assert int(category(ev(hand))) >= STRAIGHT


# ------------------------------------------------------------------- engine, exact amounts
@functools.cache
def _engine():
    return (jax.jit(poker_table.start_hand), jax.jit(poker_table.act),
            jax.jit(poker_table.legal), jax.jit(poker_table.total_chips),
            jax.jit(poker_table.first_positions))


@st.composite
def hands(draw):
    """A random hand at a six-seat table: who is in, stacks from 1 chip to deep, blinds, a
    big-blind ante or not, the button, a deck."""
    in_hand = draw(st.lists(st.booleans(), min_size=SEATS, max_size=SEATS))
    if sum(in_hand) < 2:
        in_hand[:2] = [True, True]
    big = draw(st.sampled_from([2, 20, 100]))
    stacks = [draw(st.integers(1, 60 * big)) if i else 0 for i in in_hand]
    ante = draw(st.sampled_from([0, big]))
    button = draw(st.integers(0, SEATS - 1))
    deck = draw(st.permutations(range(52)))
    # a move: (kind, where the amount is: 0 as drawn, 1..5 at or next to the legal bounds)
    moves = draw(st.lists(st.tuples(st.integers(-3, 5), st.integers(0, 5),
                                    st.integers(-2**31, 2**31 - 1)), min_size=1, max_size=60))
    return dict(in_hand=in_hand, stacks=stacks, big=big, ante=ante, button=button, deck=deck,
                moves=moves)


def _start(h):
    start, _, _, _, first = _engine()
    alive = jnp.asarray(h["in_hand"])
    button, sb, bb, sb_posts = first(alive, jnp.int32(h["button"]))
    return start(jnp.asarray(h["stacks"], jnp.int32), alive, button, sb, bb, sb_posts,
                 jnp.int32(h["big"] // 2), jnp.int32(h["big"]), jnp.int32(h["ante"]),
                 jnp.asarray(h["deck"], jnp.int32))


def _amount(mode, raw, lo, hi):
    """The move's raise-to: as drawn, or just below, at or just above a bound of the range."""
    return [raw, lo - 1, lo, hi, hi + 1, (lo + hi) // 2][mode]


def _refused(lg, kind, amount) -> bool:
    """The one host check (`legal.admits` on the table's `legal` block) refuses the action."""
    return not host_legal.admits(protocol.legal_info(lg), kind, amount)


@given(h=hands())
def test_random_exact_actions_keep_chips_and_follow_the_clamping_rules(h):
    """Any kind and any int32 amount, played with `act`: chips are conserved at every step
    (SPEC: exact chips), stacks never go negative, `act` plays what docs/rules.md's clamping
    table says (kind clipped to FOLD..RAISE, a closed raise is a check/call, a raise-to
    clipped to the legal range), the host check refuses exactly the inputs `act` would clamp,
    and every hand ends (cycling through the moves)."""
    _, act, legal, total, _ = _engine()
    table = _start(h)
    chips = int(total(table))
    assert chips == sum(h["stacks"])
    for i in range(400):
        if bool(table.hand_over):
            break
        kind, mode, raw = h["moves"][i % len(h["moves"])]
        lg = legal(table)
        clamped_kind = min(max(kind, poker_table.FOLD), poker_table.RAISE)
        can_raise = bool(lg.can_raise)
        lo, hi = int(lg.min_raise_to), int(lg.max_raise_to)
        amount = _amount(mode, raw, lo, hi)
        invalid = (kind not in (poker_table.FOLD, poker_table.CHECK_CALL, poker_table.RAISE)
                   or (kind == poker_table.RAISE and not (can_raise and lo <= amount <= hi)))
        assert _refused(lg, kind, amount) == invalid, (kind, amount, lo, hi, can_raise)
        out = act(table, jnp.int32(kind), jnp.int32(amount))
        if clamped_kind == poker_table.RAISE and can_raise:
            want = act(table, jnp.int32(poker_table.RAISE), jnp.int32(min(max(amount, lo), hi)))
        elif clamped_kind == poker_table.RAISE:
            want = act(table, jnp.int32(poker_table.CHECK_CALL), jnp.int32(0))
        else:
            want = act(table, jnp.int32(clamped_kind), jnp.int32(0))
        jax.tree.map(np.testing.assert_array_equal, out, want)
        table = out
        assert int(total(table)) == chips
        assert (np.asarray(table.stacks) >= 0).all()
    assert bool(table.hand_over), "the hand did not end"
    assert int(np.asarray(table.stacks).sum()) == chips
    assert not bool(legal(table).can_fold)  # nobody is to act any more


@given(h=hands(), data=st.data())
def test_replies_the_parser_admits_pass_the_host_check(h, data):
    """The series host reads a reply with `protocol.parse_reply(reply, legal_info(table))`;
    whatever it admits as "ok" is a legal engine action (`legal.admitted` does not raise), and
    a raise it admits is inside the legal range (PROTOCOL.md §4)."""
    _, act, legal, _, _ = _engine()
    table = _start(h)
    for i in range(40):
        if bool(table.hand_over):
            break
        info = protocol.legal_info(table)
        action = data.draw(st.sampled_from(protocol.ACTIONS))
        lo, hi = info["raise"] or (0, 0)
        amount = data.draw(st.one_of(st.sampled_from([lo - 1, lo, hi, hi + 1]),
                                     st.integers(-10, 10**7), st.none()))
        reply = {"action": action} if amount is None else {"action": action, "amount": amount}
        r = protocol.parse_reply(protocol.encode(reply), info)
        if r.outcome == "ok":
            # raises if it let a bad one in
            host_legal.admitted(info, r.kind, r.amount, "the parser")
            if r.kind == poker_table.RAISE:
                assert info["raise"][0] <= r.amount <= info["raise"][1]
        else:
            assert r.kind is None and r.outcome in ("illegal_action", "bad_amount")
        kind, mode, raw = h["moves"][i % len(h["moves"])]
        lg = legal(table)
        table = act(table, jnp.int32(kind),
                    jnp.int32(_amount(mode, raw, int(lg.min_raise_to), int(lg.max_raise_to))))


@pytest.mark.parametrize("amount", [True, 1.5, "20", None])
def test_the_host_check_refuses_non_integer_amounts(amount):
    h = dict(in_hand=[True] * SEATS, stacks=[1000] * SEATS, big=20, ante=0, button=0,
             deck=list(range(52)), moves=[(2, 0, 40)])
    legal = protocol.legal_info(_start(h))
    assert host_legal.admits(legal, poker_table.RAISE, 40)
    with pytest.raises(ValueError, match=re.escape(f"(2, {amount!r}), not legal")):
        host_legal.admitted(legal, poker_table.RAISE, amount, "a script")
