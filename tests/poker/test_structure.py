"""Formats as data (SPEC §2 blind ladder and formats)."""

import jax.numpy as jnp
import pytest

from holdemjax.poker.structure import FORMATS, LADDER, RING, blinds_at, level_at, make_format


def test_ladder_is_the_spec_ladder():
    """SPEC §2: 10/20, 15/30, 25/50, 40/80, then big-blind ante = big blind from 60/120 on."""
    assert [(s, b) for s, b, _ in LADDER[:5]] == [(10, 20), (15, 30), (25, 50), (40, 80), (60, 120)]
    assert all(a == 0 for _, _, a in LADDER[:4]) and all(a == b for _, b, a in LADDER[4:])
    assert LADDER[-1] == (4000, 8000, 8000) and len(LADDER) == 14


@pytest.mark.parametrize("name,per_level", [("sng-6", 4), ("sng-6-turbo", 6), ("certify", 1)])
def test_blinds_rise_by_hands_played(name, per_level):
    fmt = make_format(**FORMATS[name])
    for hand in range(0, 200, 3):
        level = min(hand // per_level, len(LADDER) - 1)  # the last level repeats
        got = tuple(int(x) for x in blinds_at(fmt, hand))
        assert got == LADDER[level], (hand, got)
        assert int(level_at(fmt, jnp.int32(hand))) == level


def test_formats_match_the_spec():
    want = {"sng-6": (6, 1000, 60), "sng-6-turbo": (6, 1500, 72), "certify": (6, 200, 8),
            "ring-9": (9, 1500, 50)}
    for name, (seats, chips, cap) in want.items():
        fmt = make_format(**FORMATS[name])
        assert (fmt.num_seats, int(fmt.starting_stack), int(fmt.hand_cap)) == (seats, chips, cap)
    ring = make_format(**FORMATS["ring-9"])
    assert ring.kind == RING
    assert {tuple(int(x) for x in blinds_at(ring, h)) for h in range(50)} == {(15, 30, 0)}


@pytest.mark.parametrize("kwargs,match", [
    (dict(num_seats=1), "num_seats"),
    (dict(num_seats=10), "num_seats"),
    (dict(starting_stack=0), "starting_stack"),
    (dict(hand_cap=2.5), "hand_cap"),
    (dict(payouts=(0.5, 0.4)), "payouts"),
    (dict(payouts=(0.2, 0.8)), "payouts"),
    (dict(ladder=((20, 10, 0),)), "ladder"),
    (dict(kind="cash"), "kind"),
])
def test_bad_formats_name_the_value(kwargs, match):
    base = dict(num_seats=6, starting_stack=1000, hands_per_level=4, hand_cap=60)
    with pytest.raises(ValueError, match=match):
        make_format(**{**base, **kwargs})
