"""Tests for holdemjax/poker/cards.py: card ids, text, the per-hand deck and dealing by index."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.poker import cards
from holdemjax.poker.cards import (
    BOARD_OFFSET,
    MAX_SEATS,
    NUM_CARDS,
    RANKS,
    SUITS,
    board_cards,
    card_id,
    card_rank,
    card_suit,
    card_text,
    cards_text,
    hand_deck,
    hole_cards,
    parse_cards,
)


def test_constants_match_spec():
    # SPEC: id = 4 * rank + suit, rank 0..12 = 2..A, suit 0..3 = c, d, h, s; board at deck[18..22].
    assert NUM_CARDS == 52
    assert RANKS == "23456789TJQKA"
    assert SUITS == "cdhs"
    assert MAX_SEATS == 9
    assert BOARD_OFFSET == 18


@pytest.mark.parametrize(
    "text, expected",
    [("2c", 0), ("2d", 1), ("2h", 2), ("2s", 3), ("3c", 4), ("Tc", 32), ("Kd", 45), ("As", 51)],
)
def test_card_id_known_values(text, expected):
    # Hand-computed from id = 4 * rank + suit.
    assert card_id(text) == expected
    assert card_text(expected) == text


def test_round_trip_all_52():
    texts = [r + s for r in RANKS for s in SUITS]
    assert len(set(texts)) == 52
    for i in range(NUM_CARDS):
        assert card_id(card_text(i)) == i
    for t in texts:
        assert card_text(card_id(t)) == t
    assert parse_cards(cards_text(range(52))) == list(range(52))
    assert parse_cards(cards_text(range(52), sep=" ")) == list(range(52))


def test_rank_and_suit():
    ids = np.arange(52)
    np.testing.assert_array_equal(card_rank(ids), np.repeat(np.arange(13), 4))
    np.testing.assert_array_equal(card_suit(ids), np.tile(np.arange(4), 13))
    assert card_rank(card_id("Qh")) == RANKS.index("Q")
    assert card_suit(card_id("Qh")) == SUITS.index("h")


def test_parse_with_and_without_spaces():
    assert parse_cards("AsKd Tc") == [51, 45, 32]
    assert parse_cards("AsKdTc") == [51, 45, 32]
    assert parse_cards("  As  Kd,Tc ") == [51, 45, 32]
    assert parse_cards("") == []
    assert cards_text([51, 45, 32]) == "AsKdTc"
    assert cards_text(np.array([51, 45]), sep=" ") == "As Kd"
    assert cards_text(jnp.array([[51], [0]])) == "As2c"


@pytest.mark.parametrize("bad", ["1x", "A", "", "Asx", "Zs", "Ax", "10s"])
def test_card_id_rejects_bad_text(bad):
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        card_id(bad)


@pytest.mark.parametrize("bad", [52, -1, 100, 3.0, "As", None, True])
def test_card_text_rejects_bad_ids(bad):
    with pytest.raises(ValueError, match="bad card id"):
        card_text(bad)


def test_cards_text_rejects_bad_ids():
    with pytest.raises(ValueError, match="52"):
        cards_text([0, 52])


@pytest.mark.parametrize("bad", ["AsK", "As1x", "AsXd", "A"])
def test_parse_rejects_bad_text(bad):
    with pytest.raises(ValueError):
        parse_cards(bad)


def test_parse_names_the_bad_card():
    with pytest.raises(ValueError, match="1x"):
        parse_cards("As 1x Kd")


def test_parse_rejects_duplicates_unless_allowed():
    with pytest.raises(ValueError, match="duplicate card 'As'"):
        parse_cards("As Kd As")
    assert parse_cards("As As", allow_duplicates=True) == [51, 51]


def test_hand_deck_is_a_permutation_of_52():
    key = jax.random.key(0)
    for hand in range(20):
        deck = hand_deck(key, hand)
        assert deck.shape == (52,) and deck.dtype == jnp.int32
        np.testing.assert_array_equal(np.sort(np.asarray(deck)), np.arange(52))


def test_hand_deck_is_the_documented_function():
    # DESIGN: deck = permutation(fold_in(tournament_key, hand_index), 52).
    key = jax.random.key(7)
    expected = jax.random.permutation(jax.random.fold_in(key, 3), 52)
    np.testing.assert_array_equal(hand_deck(key, 3), expected)


def test_hand_deck_is_deterministic():
    a = hand_deck(jax.random.key(123), 5)
    b = hand_deck(jax.random.key(123), 5)
    np.testing.assert_array_equal(a, b)


def test_different_hands_and_tournaments_get_different_decks():
    key = jax.random.key(1)
    decks = {tuple(np.asarray(hand_deck(key, h)).tolist()) for h in range(50)}
    assert len(decks) == 50
    other = hand_deck(jax.random.key(2), 0)
    assert not np.array_equal(other, hand_deck(key, 0))


def test_dealing_indices():
    deck = jnp.arange(52, dtype=jnp.int32)[::-1]  # a known deck: deck[i] = 51 - i
    holes = hole_cards(deck, 6)
    assert holes.shape == (6, 2)
    for seat in range(6):
        assert holes[seat].tolist() == [51 - 2 * seat, 51 - (2 * seat + 1)]
    assert board_cards(deck).tolist() == [51 - i for i in range(18, 23)]
    # Nine seats use deck[0:18]: the board never overlaps any seat's cards.
    nine = np.asarray(hole_cards(deck, MAX_SEATS)).reshape(-1)
    assert set(nine.tolist()).isdisjoint(np.asarray(board_cards(deck)).tolist())


def test_hole_cards_rejects_bad_seat_count():
    deck = jnp.arange(52, dtype=jnp.int32)
    for bad in (0, 10):
        with pytest.raises(ValueError, match=str(bad)):
            hole_cards(deck, bad)


def test_seat_cards_do_not_depend_on_seat_count():
    # Dealing by index: seat 2 holds the same cards at a 6-max and a 9-seat table.
    deck = hand_deck(jax.random.key(4), 0)
    np.testing.assert_array_equal(hole_cards(deck, 6), hole_cards(deck, 9)[:6])


def test_jit_and_vmap():
    key = jax.random.key(11)

    @jax.jit
    def deal(k, hand):
        deck = hand_deck(k, hand)
        return hole_cards(deck, 6), board_cards(deck)

    holes, board = deal(key, 3)
    deck = hand_deck(key, 3)
    np.testing.assert_array_equal(holes, hole_cards(deck, 6))
    np.testing.assert_array_equal(board, board_cards(deck))

    hands = jnp.arange(8)
    decks = jax.jit(jax.vmap(hand_deck, in_axes=(None, 0)))(key, hands)
    assert decks.shape == (8, 52) and decks.dtype == jnp.int32
    for h in range(8):
        np.testing.assert_array_equal(decks[h], hand_deck(key, h))
    vholes, vboard = jax.vmap(deal, in_axes=(None, 0))(key, hands)
    assert vholes.shape == (8, 6, 2) and vboard.shape == (8, 5)
    np.testing.assert_array_equal(vholes[3], holes)
    # Batched decks deal the same as row by row.
    np.testing.assert_array_equal(hole_cards(decks, 6)[3], holes)
    np.testing.assert_array_equal(board_cards(decks)[3], board)

    keys = jax.random.split(key, 4)
    per_key = jax.vmap(hand_deck, in_axes=(0, None))(keys, 0)
    np.testing.assert_array_equal(per_key[2], hand_deck(keys[2], 0))


def test_public_surface():
    for name in cards.__all__:
        assert hasattr(cards, name), name


@pytest.mark.slow  # ~70 CPU-s of compiles in a subprocess: benchmarks/run_slow_checks.py runs it
def test_sort_free_dealing_equals_jax_random():
    # hand_deck, dealt_deck, and permutation_and_inverse compute jax.random's
    # permutation / split without XLA's sort; the script compares them with jax.random (typed,
    # raw and rbg keys; batched and not; forced ties of the sort keys) and exits 1 on a difference.
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "check_deal_equivalence.py"
    run = subprocess.run([sys.executable, str(script), "--hands", "300"], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all equal" in run.stdout and "BAD" not in run.stdout
    assert run.stdout.count("ok ") >= 15


def test_sort_rank_with_tied_keys_is_a_stable_sort():
    # The dealing's permutation from ranks (holdemjax/xla.py) must be jax.random's, a
    # stable sort by the 32-bit keys: tied keys keep their index order (the fallback that redoes
    # the counts one item per loop step). Keys from a tiny range tie often; rows with and
    # without ties, batched and not.
    from holdemjax import xla

    tied = jax.random.randint(jax.random.key(0), (64, 52), 0, 12).astype(jnp.uint32)
    fresh = jax.random.bits(jax.random.key(1), (64, 52), jnp.uint32)
    keys = jnp.where((jnp.arange(64) % 3 == 0)[:, None], tied, fresh)
    want = np.argsort(np.asarray(keys), axis=1, kind="stable")
    rank = jax.jit(jax.vmap(xla.sort_rank))(keys)
    got = jax.jit(jax.vmap(lambda r: xla.items_at(r, np.arange(52))))(rank)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(xla.items_at(xla.sort_rank(tied[0]), np.arange(52)), want[0])
    np.testing.assert_array_equal(jax.jit(xla.stable_rank_exact)(keys[0]),
                                  np.argsort(want[0], kind="stable"))
