"""holdemjax.luck.rollout: AIVAT's chance terms (Burch et al., AAAI 2018) under the value
that sees play: every deal and board card, the rest of the hand played out by the known
policies (paired completions).

What could be wrong and is checked: the cards the completions draw from and how an end is
valued (a run-out's term against the hand-computed check-down correction, in expectation),
that the terms only move value between players, the rows they land in, and the estimator's mean
over played games of unequal players (seat rotation, the players' own rollouts)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax import luck
from holdemjax.poker import table
from holdemjax.poker.actions import CHECK_CALL
from tests.test_luck import _to_board_card, _tournament

_ENV = holdemjax.make("sng-6")


def _turn_all_in_call():
    """The same two players (AA, KK, 1,000 chips each) checked to the turn (the board
    2c7d9hJc, the river Kd: KK wins), AA all-in on the turn, KK to call."""
    t = _to_board_card(_tournament([1000, 1000, 0, 0, 0, 0], {0: "AsAh", 1: "KsKh"},
                                   "2c7d9hJcKd"), 4)
    t = t.replace(table=table.act(table.act(t.table, table.CHECK_CALL, 0), table.RAISE, 1000))
    return _ENV.advance(_ENV.with_tournament(_ENV.init(jax.random.key(0)), t))


def _caller(state, key):
    """Checks or calls: the completions of this test's spot never reach a decision, so the
    smallest policy serves (its program is compiled all the same)."""
    return jnp.int32(CHECK_CALL)


def test_a_rollout_of_a_run_out_is_the_check_down_in_expectation():
    """KK calls the all-in: the river is run out and the game ends (no decision is left, so
    every rollout is the showdown). The rollout term of the river under the tournament's value
    is KK's 1st place (0.333) less its mean over the 36 rivers that could come (34 of them AA's:
    2nd, 0.267): ``0.066 * 34/36``, AA the opposite: the mean over 256 keys of 4 completions a
    side is that within 4 standard errors, and equals the check-down's reveal correction; the
    terms move value between the two only (they sum to zero)."""
    state = _turn_all_in_call()
    call = jnp.int32(CHECK_CALL)
    nxt = _ENV.step(state, call)
    assert bool(nxt.terminated)
    terms = np.asarray(jax.jit(jax.vmap(lambda k: luck.rollout_step_luck(
        _ENV, _caller, state, call, nxt, k, samples=4)))(
        jax.random.split(jax.random.key(2), 256)))  # [keys, 5, N]
    assert not np.delete(terms, 3, axis=1).any()  # the turn's row only: no deal, no other card
    turn = terms[:, 3]
    step = 0.066 * 34 / 36
    se = turn.std(axis=0, ddof=1) / np.sqrt(len(turn))
    want = np.array([-step, step, 0, 0, 0, 0])
    assert (np.abs(turn.mean(axis=0) - want) <= 4 * se + 1e-6).all(), (turn.mean(0), se)
    assert se[:2].min() > 0
    t = _ENV.tournament(state)
    check_down = luck.reveal_correction(table.decided(t.table, table.CHECK_CALL, 0), 4, 5,
                                        luck.tournament_value(t), jax.random.key(0))
    np.testing.assert_allclose(np.asarray(check_down), want, atol=2e-6)
    np.testing.assert_allclose(turn.sum(axis=1), 0.0, atol=1e-6)


def test_rollout_luck_keeps_the_mean_of_unequal_players():
    """Seat rotation (`training.evaluate(..., luck=True, rollouts=8)`) of test_luck's unequal
    players (uniform over the legal actions against five that check, call and sometimes fold;
    the rollouts are theirs) over 16 certify deals: each kind of chance event happened, the
    action row is empty, the luck of every deal's rotation has mean zero within 3.5 standard
    errors, and the corrected scores are the raw less the luck."""
    from holdemjax.training.evaluate import evaluate
    from tests.test_luck import _calm, _uniform

    r = evaluate(_uniform, deals=16, env_id="certify", chunk=16, seed=11, opponent=_calm,
                 luck=True, rollouts=8)
    assert r.unfinished == 0 and r.luck.shape == (16, 6, len(luck.EVENTS))
    assert not r.luck[..., luck.ACTION_EVENT].any()
    for e in range(luck.ACTION_EVENT):
        assert np.abs(r.luck[..., e]).max() > 0, luck.EVENTS[e]
    total = r.luck.sum(axis=2).mean(axis=1)
    np.testing.assert_allclose(r.per_deal - r.corrected_per_deal, total, atol=1e-6)
    se = total.std(ddof=1) / np.sqrt(len(total))
    assert abs(total.mean()) < 3.5 * se, (total.mean(), se)
    print(f"uniform vs calm, certify, rollouts: SE {r.se:.4f} -> {r.corrected_se:.4f}")


def test_bots_play_rollouts_move_value_between_players_only():
    """`bots.play(..., luck=True, rollouts=2)` (one random bot, five baselines, 8 certify
    games): every event's luck sums to zero over the players (each end is valued with every
    place and every open payout: nothing made or lost), the deal's row is not empty, and
    ``rollouts`` without ``luck`` is refused by name."""
    from holdemjax.bots import play

    env = holdemjax.make("certify")
    ids = jnp.asarray([0, 1, 1, 1, 1, 1])
    out = play(env, jax.random.key(4), 8, ids, luck=True, rollouts=2)
    lk = np.asarray(out["luck_by_event"])
    np.testing.assert_allclose(lk.sum(axis=2), 0.0, atol=2e-6)
    assert np.abs(lk[:, luck.DEAL_EVENT]).max() > 0
    try:
        play(env, jax.random.key(4), 8, ids, rollouts=2)
    except ValueError as err:
        assert "rollouts" in str(err)
    else:
        raise AssertionError("rollouts without luck accepted")
