"""Kuhn poker: conformance, the rules, the deal, and step-by-step parity with pgx."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs.kuhn_poker import BET, JACK, KING, OBS_CARD, OBS_MY_CHIPS, PASS, QUEEN

ENV = holdemjax.make("kuhn_poker")
SEQUENCES = [(PASS, PASS), (PASS, BET, PASS), (PASS, BET, BET), (BET, PASS), (BET, BET)]


def _deal(cards, first):
    s = ENV.init(jax.random.key(0))
    s = s.replace(_cards=jnp.asarray(cards, jnp.int32), current_player=jnp.int32(first))
    return s.replace(observation=ENV.observe(s))


def _play(cards, first, seq):
    s = _deal(cards, first)
    for a in seq:
        s = ENV.step(s, a)
    return s


def test_api():
    holdemjax.api_test(ENV, num_games=16, max_steps=6)


def test_encodings():
    assert ENV.num_actions == 2 and ENV.observation_shape == (7,) and ENV.num_players == 2
    s = _deal((KING, JACK), 0)
    obs = np.asarray(s.observation)
    assert obs[OBS_CARD].tolist() == [False, False, True]
    assert obs[OBS_MY_CHIPS].tolist() == [True, False]  # no chips beyond the ante yet


@pytest.mark.parametrize("first", [0, 1])
def test_showdown_after_two_passes_pays_one(first):
    """Rule: pass-pass goes to showdown for the antes (±1)."""
    s = _play((KING, QUEEN), first, (PASS, PASS))
    assert bool(s.terminated) and s.rewards.tolist() == [1.0, -1.0]


@pytest.mark.parametrize("seq", [(BET, PASS), (PASS, BET, PASS)])
def test_fold_to_a_bet_pays_the_bettor_one(seq):
    """Rule: a pass facing a bet folds; the bettor wins 1 whatever the cards."""
    s = _play((JACK, KING), 0, seq)
    bettor = 0 if seq[0] == BET else 1
    want = [1.0, -1.0] if bettor == 0 else [-1.0, 1.0]
    assert bool(s.terminated) and s.rewards.tolist() == want


@pytest.mark.parametrize("seq", [(BET, BET), (PASS, BET, BET)])
def test_called_bet_goes_to_showdown_for_two(seq):
    """Rule: a called bet goes to showdown for 2."""
    s = _play((QUEEN, JACK), 1, seq)
    assert bool(s.terminated) and s.rewards.tolist() == [2.0, -2.0]


def test_deal_is_uniform():
    """All 6 ordered deals and both first players are equally likely (12,000 draws)."""
    s = jax.jit(jax.vmap(ENV.init))(jax.random.split(jax.random.key(7), 12000))
    cards = np.asarray(s._cards)
    assert (cards[:, 0] != cards[:, 1]).all()
    counts = np.bincount(cards[:, 0] * 3 + cards[:, 1], minlength=9)[[1, 2, 3, 5, 6, 7]]
    # 2000 expected per deal; sd ~ 41, so ±200 is a ~5 sigma band.
    assert np.abs(counts - 2000).max() < 200, counts
    assert abs(np.asarray(s.current_player).mean() - 0.5) < 0.03


def test_parity_with_pgx_every_deal_and_line():
    """Every deal × first player × betting line against pgx, field by field."""
    pgx = pytest.importorskip("pgx")
    from tests.envs.parity import assert_same

    penv = pgx.make("kuhn_poker")
    ours_step, their_step = jax.jit(ENV.step), jax.jit(penv.step)  # eager dispatch is slow
    deals = [d for d in itertools.permutations(range(3), 2)]
    n = 0
    for cards, first, seq in itertools.product(deals, (0, 1), SEQUENCES):
        ours = _deal(cards, first)
        theirs = penv.init(jax.random.PRNGKey(0))
        theirs = theirs.replace(_cards=jnp.asarray(cards, jnp.int32),
                                current_player=jnp.int32(first))
        theirs = theirs.replace(observation=penv.observe(theirs))
        batch = lambda s: jax.tree.map(lambda x: x[None], s)
        assert_same(batch(ours), batch(theirs), 0)
        for t, a in enumerate(seq + (BET,)):  # one more step after the end: still identical
            ours, theirs = ours_step(ours, jnp.int32(a)), their_step(theirs, jnp.int32(a))
            assert_same(batch(ours), batch(theirs), t + 1)
        n += 1
    assert n == 60


# ------------------------------------------------------- information sets (issue 39 point 2)
def _starts(env):
    """A state at the first decision for each deal and first player (12 starts)."""
    base = env.init(jax.random.key(0))
    return [base.replace(_cards=jnp.asarray(d, jnp.int32), current_player=jnp.int32(f),
                         _first=jnp.int32(f))
            for d in itertools.permutations((JACK, QUEEN, KING), 2) for f in (0, 1)]


def _card(state):
    return int(state._cards[int(state.current_player)])


def test_pgx_observation_gives_two_information_sets_one_observation():
    """pgx's encoding (the default, kept identical): the first player at the start and the
    second after a pass see the same thing; what observe_history fixes."""
    from tests.envs.infosets import decisions, shared

    seen = decisions(ENV, _starts(ENV), _card)
    assert all(len(obs) == 1 for obs in seen.values())  # a function of the information set
    assert len(seen) == 12  # 3 cards x ("", "p", "b", "pb")
    assert len(shared(seen)) == 6  # ("", "p") and ("b", "pb") per card


def test_observe_history_tells_every_information_set_apart():
    from tests.envs.infosets import decisions, shared

    env = holdemjax.make("kuhn_poker", observe_history=True)
    assert env.observation_shape == (12,)
    seen = decisions(env, _starts(env), _card)
    assert len(seen) == 12 and all(len(obs) == 1 for obs in seen.values())
    assert shared(seen) == {}
    # the first seven entries stay pgx's
    for start in _starts(env):
        s = env.step(start, BET)
        assert (np.asarray(env.observe(s))[:7] == np.asarray(ENV.observe(s))).all()


def test_observe_history_api():
    env = holdemjax.make("kuhn_poker", observe_history=True)
    holdemjax.api_test(env, num_games=8, max_steps=6)
    with pytest.raises(ValueError, match="observe_history must be True or False, got 'yes'"):
        holdemjax.make("kuhn_poker", observe_history="yes")
