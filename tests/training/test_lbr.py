"""The LBR-style local best response (`holdemjax.training.lbr`): the hypothetical deals it plays
out (`with_cards`, `table.with_cards`), its range of the opponent's hole cards (Bayes' rule on
the opponent's action probabilities), and what it wins in heads-up hands
(`holdemjax.training.heads_up`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.poker import evaluator
from holdemjax.poker import table as tb
from holdemjax.poker.actions import CHECK_CALL, MIN_RAISE
from holdemjax.training import heads_up as hu
from holdemjax.training import lbr

ENV = hu.make_env()
CALL = hu.opponent("call")
PASSIVE = hu.opponent("passive")
NUM = 16
SMALL = lbr.LBRConfig(particles=64, samples=4)
LBR = lbr.lbr_agent(ENV, PASSIVE, SMALL)
#: Never bets: checks or calls (the responder LBR is compared with).
CALLER = hu.Agent(lambda p, s, seat, k: jnp.zeros((), jnp.int32),
                  lambda p, c, s, k: (jnp.int32(CHECK_CALL), c),
                  lambda p, c, s, a: c)


@pytest.fixture(scope="module")
def starts():
    return hu.heads_up_starts(CALL.act, NUM, seed=5, batch=NUM)


def _row(starts, i):
    return jax.tree.map(lambda x: x[i], starts)


def _first_raising_start(starts):
    """A start whose first actor may make the minimum raise (not only all-in)."""
    mask = np.asarray(starts.legal_action_mask)
    return _row(starts, int(np.flatnonzero(mask[:, MIN_RAISE])[0]))


def test_every_pair_of_distinct_cards_once():
    pairs = lbr.combos()
    assert pairs.shape == (1326, 2) and (pairs[:, 0] < pairs[:, 1]).all()
    assert len({tuple(p) for p in pairs.tolist()}) == 1326 and pairs.max() == 51


def test_a_hypothetical_deal_recomputes_strengths_and_the_view(starts):
    """`table.with_cards` gives the strengths the deal would have (the evaluator on hole + the
    five board cards, as `table.start_hand` computes them); the state's own cards give the
    state back exactly; another pair for the seat to act changes its observation, and putting
    its own pair back restores it bit for bit (the view is rebuilt, nothing else moves)."""
    state = _row(starts, 0)
    table = ENV.tournament(state).table
    same = tb.with_cards(table, table.hole, table.board)
    for a, b in zip(jax.tree.leaves(same), jax.tree.leaves(table)):
        np.testing.assert_array_equal(a, b)
    me = int(table.to_act)
    used = set(np.asarray(table.hole).ravel().tolist()) | set(np.asarray(table.board).tolist())
    other = np.array(sorted(set(range(52)) - used)[:2], np.int32)
    hyp = lbr.with_cards(ENV, state, me, other, table.board)
    hyp_table = ENV.tournament(hyp).table
    np.testing.assert_array_equal(hyp_table.hole[me], other)
    seven = np.concatenate([np.asarray(hyp_table.hole), np.tile(np.asarray(table.board), (6, 1))],
                           axis=1)
    np.testing.assert_array_equal(hyp_table.strength, evaluator.evaluate(jnp.asarray(seven)))
    assert not np.array_equal(hyp.observation, state.observation)
    back = lbr.with_cards(ENV, hyp, me, table.hole[me], table.board)
    for a, b in zip(jax.tree.leaves(back), jax.tree.leaves(state)):
        np.testing.assert_array_equal(a, b)


def _aces_raise():
    """An opponent that makes the minimum raise with an ace in its hand, else checks or calls
    (0.9 on that action, 0.1 spread over the legal ones), read from the hole cards of the seat
    to act: LBR must put each hypothetical pair there for the probability to follow it."""

    def probs(state):
        t = ENV.tournament(state).table
        ace = (t.hole[t.to_act] >= 48).any()  # card id = 4 x rank + suit, rank 12 = A
        mask = state.legal_action_mask
        chosen = jax.nn.one_hot(jnp.where(ace, MIN_RAISE, CHECK_CALL), ENV.num_actions)
        return 0.9 * chosen + 0.1 * mask / mask.sum()

    return hu.Opponent("aces-raise", lambda s, k: jnp.argmax(probs(s)).astype(jnp.int32), probs)


def test_the_range_follows_the_opponents_action_by_bayes_rule(starts):
    """The exact range (all 1,326 pairs): pairs holding one of LBR's cards are ruled out at
    the start; after the opponent raises, a pair's weight is multiplied by the probability it
    would have raised with it: pairs with an ace gain log(0.9 + 0.1/n) - log(0.1/n) over the
    others."""
    state = _first_raising_start(starts)
    table = ENV.tournament(state).table
    opp_seat = int(table.to_act)
    a, b = np.asarray(hu.live_seats(ENV, state)).tolist()
    seat = a if b == opp_seat else b
    agent = lbr.lbr_agent(ENV, _aces_raise(), lbr.LBRConfig(particles=lbr.NUM_COMBOS))
    rng = agent.init(None, state, seat, jax.random.key(0))
    pairs = np.asarray(rng.pairs)
    mine = np.isin(pairs, np.asarray(table.hole[seat])).any(1)
    assert mine.sum() == 101  # 2 x 50 pairs with one of its cards, + its own pair
    assert np.isneginf(np.asarray(rng.log_w)[mine]).all()
    assert (np.asarray(rng.log_w)[~mine] == 0).all()
    after = np.asarray(jax.jit(agent.observe)(None, rng, state, jnp.int32(MIN_RAISE)).log_w)
    assert np.isneginf(after[mine]).all()
    ace = (pairs >= 48).any(1) & ~mine
    n = int(state.legal_action_mask.sum())
    np.testing.assert_allclose(after[ace], np.log(0.9 + 0.1 / n), rtol=1e-6)
    np.testing.assert_allclose(after[~ace & ~mine], np.log(0.1 / n), rtol=1e-6)


@pytest.fixture(scope="module")
def lbr_vs_passive(starts):
    return hu.measure(LBR, PASSIVE, starts, chunk=NUM, seed=3, per_start=True)


def test_lbr_wins_the_blinds_from_a_player_who_folds_to_every_bet(starts, lbr_vs_passive):
    """Against check/fold, a bet wins the pot at once; LBR's rollouts see it and bet, where a
    player who never bets only splits showdowns: paired on the same starts, LBR is ahead by
    more than 3 SE."""
    got = lbr_vs_passive
    ref = hu.measure(CALLER, PASSIVE, starts, chunk=NUM, per_start=True)
    assert got["unfinished"] == 0 and got["chips_sum"] == 0
    diff = (got["per_start"] - ref["per_start"]).mean(1)
    assert diff.mean() > 3 * diff.std(ddof=1) / np.sqrt(diff.size)
    assert got["bb_per_100"] > ref["bb_per_100"]


def test_same_seed_same_lbr_figures(starts, lbr_vs_passive):
    """The same program (compiled once, `heads_up._measure_program`) run again from the same
    seed: the same hands, bit for bit."""
    again = hu.measure(LBR, PASSIVE, starts, chunk=NUM, seed=3, per_start=True)
    np.testing.assert_array_equal(again.pop("per_start"), lbr_vs_passive["per_start"])
    assert again == {k: v for k, v in lbr_vs_passive.items() if k != "per_start"}


def test_bad_sizes_are_refused_by_name():
    with pytest.raises(ValueError, match="particles"):
        lbr.LBRConfig(particles=1327)
    with pytest.raises(ValueError, match="samples"):
        lbr.LBRConfig(samples=0)
