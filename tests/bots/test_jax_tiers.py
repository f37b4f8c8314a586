"""The JAX reference tiers (holdemjax/bots/tiers.py) against the host tiers
(holdemjax/duplicate/tiers.py, the rule): the same exact action at every decision of real
tournaments, the same post-flop strength on random boards, and legal menu actions at JAX tables.
"""

from __future__ import annotations

import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.bots import tiers as bots_tiers
from holdemjax.duplicate import rotation, tiers
from holdemjax.poker.cards import card_text, parse_cards
from tests.duplicate.test_tiers import PAIRED_BOARD_OUTS

KEY = (7, 11)
LADDER = ((10, 20), (20, 40), (30, 60), (50, 100), (100, 200), (150, 300), (200, 400))


@jax.jit
def _jax_exact(decision, key):
    """``# [3, 2] int32``: (kind, amount) of each tier (one compile per seat count)."""
    return jnp.stack([jnp.stack(bots_tiers.decide_exact(bots_tiers.PARAMS[t], decision, key))
                      for t in bots_tiers.TIERS])


def _tournament(seed: int, max_hands: int):
    """A six-seat tournament (1,500 chips, blinds up every 5 hands, busted seats leave) played
    by host tiers through the engine's host hand driver; yields (view, host actions, JAX
    actions) at every decision."""
    rng = random.Random(seed)
    stacks, who = [1500] * 6, [rng.choice(tiers.TIERS) for _ in range(6)]
    key = jnp.asarray(KEY, jnp.uint32)
    for hand in range(max_hands):
        if len(stacks) < 2:
            return
        small, big = LADDER[min(hand // 5, len(LADDER) - 1)]
        h = rotation.host_hand(jax.random.key(seed), hand, seats=len(stacks), stack=stacks,
                               blinds=(small, big, 0), button=hand % len(stacks))
        while not h.over:
            view = h.view()
            host = [tuple(map(int, tiers.decide(t, view, KEY))) for t in tiers.TIERS]
            got = [tuple(map(int, a)) for a in np.asarray(_jax_exact(h.decision(), key))]
            yield view, host, got
            h.apply(*host[tiers.TIERS.index(who[view["seat"]])])
        keep = [s for s in range(len(stacks)) if h.table.stacks[s] > 0]
        stacks, who = [int(h.table.stacks[s]) for s in keep], [who[s] for s in keep]


def test_each_jax_tier_makes_the_host_tiers_decision_in_real_tournaments():
    seen, bad, kinds = 0, [], set()
    for view, host, got in _tournament(seed=3, max_hands=40):
        seen += 1
        kinds.update((view["street"], a[0]) for a in host)
        bad += [(t, h, g, view) for t, h, g in zip(tiers.TIERS, host, got) if h != g]
    assert bad == [], bad[:3]
    assert seen >= 150, seen
    # Every street saw folds, checks/calls and raises: the decisions are not one kind.
    assert kinds == {(s, k) for s in range(4) for k in range(3)}, sorted(kinds)


def test_jax_hand_strength_equals_the_hosts_on_random_boards():
    rng = np.random.default_rng(5)
    cards = np.stack([rng.permutation(52)[:7] for _ in range(600)]).astype(np.int32)
    visible = rng.choice((3, 4, 5), len(cards))
    shown = np.arange(5)[None] < visible[:, None]
    for tier in tiers.TIERS:
        p = bots_tiers.PARAMS[tier]
        fn = jax.jit(jax.vmap(functools.partial(bots_tiers.hand_strength, p=p)))
        hs, outs = (np.asarray(x) for x in fn(cards[:, :2], cards[:, 2:], shown))
        host = [tiers.hand_strength(c[:2].tolist(), c[2:2 + v].tolist(), p)
                for c, v in zip(cards, visible)]
        assert [(int(a), int(b)) for a, b in zip(hs, outs)] == host, tier
    # Paired boards and draws are among them.
    assert (outs > 0).sum() > 50


def test_unknown_tier_is_named():
    with pytest.raises(ValueError, match="'expert'"):
        bots_tiers.params_of("expert")
    assert bots_tiers.params_of("advanced") is tiers.PARAMS["advanced"]
    assert card_text(0)  # the views above name cards as the protocol does


def test_jax_straight_outs_count_a_paired_rank_once():
    """The host tier's paired-board cases (docs/tiers.md's outs: each rank once) in JAX."""
    for hole, board, outs in PAIRED_BOARD_OUTS:
        cards = np.asarray(parse_cards(hole) + parse_cards(board), np.int32)
        padded = np.concatenate([cards, np.zeros(7 - len(cards), np.int32)])
        shown = np.arange(5) < len(cards) - 2
        for tier in tiers.TIERS:
            got = bots_tiers.hand_strength(padded[:2], padded[2:], shown,
                                           p=bots_tiers.PARAMS[tier])[1]
            assert int(got) == outs, (hole, board, tier)
