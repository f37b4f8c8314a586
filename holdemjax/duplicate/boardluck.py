"""The luck of a closed match's hands: AIVAT's chance corrections in chips (`holdemjax.luck`),
so that a board shows each line's chips with the luck of the cards taken out beside the raw.

A duplicate hand is a lone hand with a known start (every seat ``spec.stack`` chips, the button
and blinds of its index, the deck of the match seed: `match.Hand`), so each line's luck in a
hand is `luck.hand_luck` of its recorded actions (the engine's exact actions: the kind of each
wire code and its raise-to) under the chips value, all of a match's (line, hand) pairs in one
jitted, vmapped program. The draws of hand ``h`` come from ``fold_in(fold_in(root, LUCK_DOMAIN),
h)`` (`spec.root_key`; decks use domain 0, bots 1): the same for every line of the hand, never a
deck key, so a report is the same bytes on every run and identical lines get identical luck.
The corrections of a hand's seats sum to zero (chips only move between seats).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax import luck
from holdemjax.duplicate import draws
from holdemjax.duplicate.spec import root_key
from holdemjax.poker import table
from holdemjax.series import protocol

__all__ = ["LUCK_DOMAIN", "OPTIONS", "luck_key", "hand_lucks", "hero_luck"]

#: ``fold_in(root_key(seed), domain)``: 0 decks, 1 bot keys (`spec`), 2 the luck's samples.
LUCK_DOMAIN = 2
#: The luck program's XLA:CPU options: the backend's lowest optimisation level (a fifth of the
#: compile time; the report's few hundred hands run in a fraction of a second anyway) with the
#: portable math of the engine's programs (the same bits on every x86 CPU).
OPTIONS = {"xla_backend_optimization_level": 0,
           "xla_cpu_enable_platform_dependent_math": False}
_BATCH = 32  # (line, hand) pairs per call (about 0.5 s at 2 cores); the last call is padded


def luck_key(seed: int, hand: int) -> np.ndarray:
    """``uint32[2]``: the key data of the luck's samples of hand ``hand`` of the match ``seed``."""
    return np.asarray(draws.fold_in(draws.fold_in(root_key(seed), LUCK_DOMAIN), hand),
                      np.uint32)


@functools.cache
def _program():
    def one(dealt, kinds, amounts, key):  # dealt: the hand at its first decision
        return luck.hand_luck(luck.blinds_table(dealt), kinds, amounts, luck.chips, key)[0]

    return jax.jit(jax.vmap(one), compiler_options=OPTIONS)


def hand_lucks(spec, seed: int, hands: list) -> np.ndarray:
    """``# [len(hands), seats] float64``: each seat's luck in chips in each of ``hands``, pairs
    ``(hand index, actions)`` with the stored actions of one line's hand (``[street, seat,
    code, to, ...]``, `match.Hand.record`)."""
    from holdemjax.duplicate.match import Hand

    if not hands:
        return np.zeros((0, spec.seats))
    starts = {h: Hand(spec, seed, h).table for h in sorted({h for h, _ in hands})}
    most = max(len(a) for _, a in hands)
    width = max(32, 1 << (most - 1).bit_length())  # a power of two: few shapes, few compiles
    out = []
    for lo in range(0, len(hands), _BATCH):
        part = hands[lo:lo + _BATCH]
        part = part + [part[-1]] * (_BATCH - len(part))
        kinds = np.full((_BATCH, width), table.FOLD, np.int32)  # after the hand's end: ignored
        amounts = np.zeros((_BATCH, width), np.int32)
        for i, (_, actions) in enumerate(part):
            for j, a in enumerate(actions):
                kinds[i, j], amounts[i, j] = protocol.kind_of(int(a[2])), int(a[3])
        start = jax.tree.map(lambda *xs: jnp.asarray(np.stack(xs)), *[starts[h] for h, _ in part])
        keys = np.stack([luck_key(seed, h) for h, _ in part])
        out.append(np.asarray(_program()(start, kinds, amounts, keys), np.float64))
    return np.concatenate(out)[:len(hands)]


def hero_luck(spec, seed: int, lines) -> dict:
    """``{line name: {hand: the hero's luck in chips}}`` over every finished hand of ``lines``
    (`store.lines` of a closed match)."""
    pairs = [(name, h, rec["actions"]) for name, line in lines.items()
             for h, rec in sorted(line.hands.items())]
    lucks = hand_lucks(spec, seed, [(h, actions) for _, h, actions in pairs])
    out: dict = {name: {} for name in lines}
    for (name, h, _), row in zip(pairs, lucks):
        out[name][h] = float(row[spec.hero])
    return out
