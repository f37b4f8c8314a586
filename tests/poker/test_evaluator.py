"""Tests for holdemjax/poker/evaluator.py: 5/6/7-card strength, categories, ties.

Oracles: phevaluator (an independent C evaluator; its rank is LOWER = better), the published
5-card category counts and the 7-card counts of shared/notes/poker-facts.md (every one of the
133,784,560 seven-card hands is evaluated here, in one compiled loop; the benchmark
benchmarks/exhaustive_eval.py times the same enumeration).
"""

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from phevaluator import Card, _pheval

from holdemjax.poker import evaluator
from holdemjax.poker.cards import card_text, parse_cards
from holdemjax.poker.evaluator import (
    CATEGORY_NAMES,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    NUM_CATEGORIES,
    ONE_PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    category,
    evaluate,
)

evaluate_jit = jax.jit(evaluate)
SEED = 20240611
NUM_PAIRS = 100_000
# Our id -> phevaluator's id, through the card text (phevaluator parses "As" itself).
TO_PHEVAL = np.array([Card(card_text(i)).id_ for i in range(52)])
# phevaluator rank bands (1 = best) per category, from its documentation / poker-facts.md §2.
PHEVAL_BANDS = [  # (category, lowest rank, highest rank)
    (STRAIGHT_FLUSH, 1, 10),
    (FOUR_OF_A_KIND, 11, 166),
    (FULL_HOUSE, 167, 322),
    (FLUSH, 323, 1599),
    (STRAIGHT, 1600, 1609),
    (THREE_OF_A_KIND, 1610, 2467),
    (TWO_PAIR, 2468, 3325),
    (ONE_PAIR, 3326, 6185),
    (HIGH_CARD, 6186, 7462),
]


def random_hands(rng, count, size=7):
    """``count`` hands of ``size`` distinct cards each, uniformly: # [count, size] int32."""
    return rng.random((count, 52)).argpartition(size, axis=1)[:, :size].astype(np.int32)


def pheval_rank(hands):
    mapped = TO_PHEVAL[hands].tolist()
    fn = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards, 7: _pheval.evaluate_7cards}
    f = fn[hands.shape[1]]
    return np.array([f(*h) for h in mapped])


def strength(text):
    return int(evaluate_jit(jnp.array(parse_cards(text))))


def test_category_names_and_ids():
    assert NUM_CATEGORIES == len(CATEGORY_NAMES) == 9
    assert CATEGORY_NAMES[HIGH_CARD] == "high card"
    assert CATEGORY_NAMES[STRAIGHT_FLUSH] == "straight flush"
    ids = [HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE]
    assert ids + [FOUR_OF_A_KIND, STRAIGHT_FLUSH] == list(range(9))
    for name in evaluator.__all__:
        assert hasattr(evaluator, name), name


@pytest.mark.parametrize("size", [5, 6, 7])
def test_random_pairs_agree_with_phevaluator(size):
    # >= 100,000 random pairs: who wins (>, <, =) matches phevaluator on every pair.
    rng = np.random.default_rng(SEED + size)
    hands = random_hands(rng, 2 * NUM_PAIRS, size)
    ours = np.asarray(evaluate_jit(hands)).astype(np.int64)
    theirs = pheval_rank(hands)
    a, b = ours[:NUM_PAIRS], ours[NUM_PAIRS:]
    ta, tb = theirs[:NUM_PAIRS], theirs[NUM_PAIRS:]
    disagree = np.sign(a - b) != np.sign(tb - ta)  # phevaluator: lower is better
    assert not disagree.any(), [
        (card_text_row(hands[i]), card_text_row(hands[NUM_PAIRS + i]))
        for i in np.flatnonzero(disagree)[:5]
    ]
    assert (a == b).sum() > 0  # the sample does contain ties to check
    # Whole-sample order: sorted by our strength, phevaluator's rank never goes the wrong way,
    # and changes exactly where ours does (equal iff equal).
    order = np.argsort(ours, kind="stable")
    step_ours, step_theirs = np.diff(ours[order]), np.diff(theirs[order])
    assert np.all((step_ours > 0) == (step_theirs < 0))
    assert np.all((step_ours == 0) == (step_theirs == 0))
    # Categories agree with phevaluator's rank bands.
    cats = np.asarray(category(ours.astype(np.int32)))
    for cat, lo, hi in PHEVAL_BANDS:
        np.testing.assert_array_equal(cats == cat, (theirs >= lo) & (theirs <= hi))


def card_text_row(row):
    return " ".join(card_text(int(c)) for c in row)


def all_five_card_hands():
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), 5))
    return np.fromiter(flat, np.int8, count=5 * math.comb(52, 5)).reshape(-1, 5)


@pytest.fixture(scope="module")
def five_card_strengths():
    return np.asarray(evaluate_jit(all_five_card_hands()))


@pytest.fixture(scope="module")
def five_card_classes(five_card_strengths):
    return np.unique(five_card_strengths)


def test_all_five_card_hands(five_card_strengths):
    # Published counts over all 2,598,960 five-card hands, and 7,462 distinct hand classes.
    expected = {
        STRAIGHT_FLUSH: 40,
        FOUR_OF_A_KIND: 624,
        FULL_HOUSE: 3_744,
        FLUSH: 5_108,
        STRAIGHT: 10_200,
        THREE_OF_A_KIND: 54_912,
        TWO_PAIR: 123_552,
        ONE_PAIR: 1_098_240,
        HIGH_CARD: 1_302_540,
    }
    strengths = five_card_strengths
    counts = np.bincount(np.asarray(category(strengths)), minlength=9)
    assert {c: int(counts[c]) for c in expected} == expected
    assert np.unique(strengths).size == 7_462


@pytest.mark.parametrize("size", [6, 7])
def test_strength_is_best_five(size):
    # Canonical strength: an n-card hand is worth exactly its best 5-card subset.
    rng = np.random.default_rng(SEED)
    hands = random_hands(rng, 4_000, size)
    subsets = np.array(list(itertools.combinations(range(size), 5)))
    fives = hands[:, subsets]  # [4000, C(size, 5), 5]
    best = np.asarray(evaluate_jit(fives)).max(axis=1)
    np.testing.assert_array_equal(np.asarray(evaluate_jit(hands)), best)


# (better, worse): each pair is hand-made; the comment says which rule it pins.
ORDERED_PAIRS = [
    ("6c5d4h3s2c Kd Qh", "5c4d3h2sAc Kd Qh"),  # 6-high straight beats the wheel
    ("5c4d3h2sAc Kd 9h", "AcKdQhJs9c 8d 7h"),  # the wheel is a straight, beats ace high
    ("5h4h3h2hAh Kd Kc", "AcAdAsAh Kd Qh Jc"),  # steel wheel (straight flush) beats quads
    ("6h5h4h3h2h Ah Ad", "5h4h3h2hAh Kd Kc"),  # 6-high straight flush beats the steel wheel
    ("AhKhQhJhTh 9c 8c", "KhQhJhTh9h 8c 7c"),  # royal flush beats king-high straight flush
    ("2h4h6h8hTh Jc Qc", "AcKdQhJsTc 2d 3d"),  # a flush beats a straight
    ("KcKdKh 2c2d 2h 3s", "QcQdQh AcAd 4h 5s"),  # two trips: full house, kings over deuces wins
    ("KsKdKh QcQd 9h 8s", "KcKdKh 2c2d 2h 3s"),  # kings full of queens beat kings full of deuces
    ("AcAdAh 2c2d 7h 8s", "KcKdKh AsAd 7h 8s"),  # trips rank decides a full house first
    ("QcQd 9c9d 4c4d Ah", "QcQd 9c9d 4c4d Kh"),  # three pairs: best two pairs plus best kicker
    ("QcQd 9c9d 4c4d 2h", "QcQd 9c9d 3c3d 2h"),  # three pairs: the third pair's rank is the kicker
    ("7c7d7h7s Ac 2d 3h", "7c7d7h7s Kc Qd Jh"),  # quads on board: the better kicker wins
    ("AcAd Kc Qd Jh 9s 8c", "AcAd Kc Qd Th 9s 8c"),  # one pair: third kicker decides
    ("AcKd Qh Jc 9s 7d 2h", "AcKd Qh Jc 8s 7d 6h"),  # high card: fifth card decides
    ("TcTdTh As 9c 2d 3h", "TcTdTh Ks Qc Jd 3h"),  # trips: first kicker decides
]


@pytest.mark.parametrize("better, worse", ORDERED_PAIRS)
def test_hand_made_order(better, worse):
    assert strength(better) > strength(worse)
    # The same order from phevaluator (lower is better).
    ph = [_pheval.evaluate_7cards(*TO_PHEVAL[parse_cards(t)].tolist()) for t in (better, worse)]
    assert ph[0] < ph[1]


@pytest.mark.parametrize(
    "text, cat",
    [
        ("5c4d3h2sAc Kd Qh", STRAIGHT),  # wheel
        ("5h4h3h2hAh Kd Kc", STRAIGHT_FLUSH),  # steel wheel
        ("AhKhQhJhTh 9c 8c", STRAIGHT_FLUSH),  # royal
        ("KcKdKh 2c2d 2h 3s", FULL_HOUSE),  # two trips
        ("QcQd 9c9d 4c4d Ah", TWO_PAIR),  # three pairs
        ("7c7d7h7s AcAdAh", FOUR_OF_A_KIND),  # quads plus trips
        ("2h4h6h8hTh Jh Qc", FLUSH),  # six of a suit
        ("AcKdQhJs9c 8d 2h", HIGH_CARD),
        ("AcAd Kc Qd Jh 9s 8c", ONE_PAIR),
        ("TcTdTh As 9c 2d 3h", THREE_OF_A_KIND),
        ("9c8d7h6s5c 4d 3h", STRAIGHT),  # seven in a row: nine-high straight
        ("QsJsTs9s8s 7d 6h", STRAIGHT_FLUSH),
        ("AcKdQhJsTc", STRAIGHT),  # five cards
        ("AcAd AhKd Kc 2s", FULL_HOUSE),  # six cards
    ],
)
def test_hand_made_categories(text, cat):
    assert int(category(strength(text))) == cat, CATEGORY_NAMES[cat]


@pytest.mark.parametrize(
    "a, b",
    [
        ("AcKd Qh Jc 9s 7d 2h", "AsKh Qd Js 9c 7h 2d"),  # same ranks, other suits
        ("AhKhQhJhTh 2c 3c", "AsKsQsJsTs 2d 4d"),  # royal flushes tie, low cards don't play
        ("QcQd 9c9d 4c4d Ah", "QhQs 9h9s 5c5d Ad"),  # three pairs: third pair does not play
        ("7c7d7h7s Ac 2d 3h", "7c7d7h7s Ad Kc Kh"),  # quads, same kicker
        ("2h4h6h8hTh Jh 3c", "2s4s6s8sTs Js 3d"),  # same flush in another suit
    ],
)
def test_equal_hands_tie(a, b):
    assert strength(a) == strength(b)


def test_batch_shapes_jit_and_vmap():
    rng = np.random.default_rng(SEED)
    hands = jnp.asarray(random_hands(rng, 24).reshape(2, 3, 4, 7))
    batched = evaluate(hands)
    assert batched.shape == (2, 3, 4) and batched.dtype == jnp.int32
    np.testing.assert_array_equal(evaluate_jit(hands), batched)
    np.testing.assert_array_equal(jax.vmap(jax.vmap(evaluate))(hands), batched)
    flat = jax.jit(jax.vmap(evaluate))(hands.reshape(24, 7))
    np.testing.assert_array_equal(flat, batched.reshape(-1))
    one = hands[1, 2, 3]
    assert evaluate(one).shape == ()
    assert int(evaluate(one)) == int(batched[1, 2, 3])
    # Other integer dtypes are accepted.
    np.testing.assert_array_equal(evaluate(hands.astype(jnp.int8)), batched)
    assert category(batched).dtype == jnp.int32


def test_rejects_bad_hand_size():
    for size in (4, 8):
        with pytest.raises(ValueError, match=str(size)):
            evaluate(jnp.zeros((3, size), jnp.int32))


# Known counts over all C(52, 7) = 133,784,560 seven-card hands by category id, enumerated with
# two independent programs (shared/notes/poker-facts.md §2); 4,824 distinct best-five values.
SEVEN_CARD_COUNTS = (23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644,
                     3_473_184, 224_848, 41_584)
SEVEN_CARD_DISTINCT = 4_824
_CHUNK = 1 << 18  # hands per pass of the loop


def _seven_card_jobs():
    """Every 7-subset of the deck splits around its 4th-lowest card ``m`` into a 3-subset of
    range(m) and one of range(m + 1, 52): for each m, the hands are the product of two prefixes
    of one colexicographic table of 3-subsets. Returns the table and the passes (m, first index,
    hands of this m, 3-subsets above m) of ``_CHUNK`` hands each."""
    triples = np.asarray(sorted(itertools.combinations(range(52), 3), key=lambda t: t[::-1]),
                         np.int32)
    jobs = []
    for m in range(3, 49):
        low, high = math.comb(m, 3), math.comb(51 - m, 3)
        jobs += [(m, start, low * high, high) for start in range(0, low * high, _CHUNK)]
    assert sum(math.comb(m, 3) * math.comb(51 - m, 3) for m in range(3, 49)) == math.comb(52, 7)
    return jnp.asarray(triples), jnp.asarray(jobs, jnp.int32)


@jax.jit
def _all_seven_card_hands(triples, jobs, classes):
    """One compiled loop over every 7-card hand: hands per category, which five-card classes
    (``classes``: the sorted distinct five-card strengths) occur, and how many strengths are
    not a five-card class at all (the strength must be that of the best five)."""

    def one_pass(j, carry):
        counts, present, strays = carry
        m, start, total, high = jobs[j, 0], jobs[j, 1], jobs[j, 2], jobs[j, 3]
        i = start + jnp.arange(_CHUNK, dtype=jnp.int32)
        valid = i < total
        i = jnp.where(valid, i, 0)
        hands = jnp.concatenate([triples[i // high], jnp.broadcast_to(m, (_CHUNK, 1)),
                                 triples[i % high] + m + 1], axis=1)
        strength = evaluate(hands)
        cats = jnp.where(valid, category(strength), NUM_CATEGORIES)
        counts = counts + jnp.bincount(cats, length=NUM_CATEGORIES + 1)[:NUM_CATEGORIES]
        idx = jnp.clip(jnp.searchsorted(classes, strength), 0, classes.shape[0] - 1)
        strays = strays + (valid & (classes[idx] != strength)).sum(dtype=jnp.int32)
        present = present.at[idx].max(valid.astype(jnp.int32))
        return counts, present, strays

    init = (jnp.zeros(NUM_CATEGORIES, jnp.int32), jnp.zeros(classes.shape, jnp.int32),
            jnp.int32(0))
    return jax.lax.fori_loop(0, jobs.shape[0], one_pass, init)


def test_exhaustive_seven_card_hands(five_card_classes):
    """All C(52, 7) hands, each once: the nine category counts and 4,824 distinct strengths,
    each one of the 7,462 five-card classes (canonical: a hand is worth its best five)."""
    triples, jobs = _seven_card_jobs()
    counts, present, strays = _all_seven_card_hands(triples, jobs,
                                                    jnp.asarray(five_card_classes))
    assert tuple(int(c) for c in counts) == SEVEN_CARD_COUNTS
    assert int(strays) == 0
    assert int(np.asarray(present).sum()) == SEVEN_CARD_DISTINCT
