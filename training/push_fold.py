"""A push/fold policy family for the tournament envs: the passive bot's play plus all-ins with
the hands a table of thresholds names.

A policy of the family is an ``int32`` vector of `NUM_PARAMS` thresholds, one per *spot*, in
basis points of the pre-flop strength percentile ``top`` of the baseline's shipped table
(`holdemjax.bots.baseline.load_preflop`: the share of the 1,326 starting hands that are stronger;
AA is 22, KK 67, QQ 113, AKs 331; smaller is stronger). At each decision:

* pre-flop, in spot ``s`` with ``top <= params[s]``: the menu's ALL_IN when it is legal, else
  CHECK_CALL (an all-in to call that is not a raise);
* otherwise the passive bot's move: check when checking is free, else fold. Post-flop always
  so (after a shove there is nothing left to decide).

A spot is (players dealt into the hand, first in or facing a raise, effective stack): the players
in ``PLAYERS`` = heads-up (2), three-handed (3), four or more (4-6); ``first`` when nobody has bet
or raised on the street yet (the blinds do not count; limpers may have called), ``facing``
otherwise; ``short`` when the effective stack is at most `SHORT_BB` big blinds (the baseline's
push/fold line), else ``deep``. The quantities are the baseline's own (`baseline.features`:
``dealt``, ``raises``, ``eff_bb``), read from the decision view; every one of them is visible to
the player (its own cards, the bets and stacks), so the policy is a function of what the player
sees, and a network over the observation can play it exactly (`holdemjax.training.policy_search`
distills it into one).

A threshold of 0 never shoves in its spot (AA is 22), 10,000 always does. `PASSIVE` is all
zeros: the passive bot itself. The family exists for the paired policy search
(`holdemjax.training.policy_search`); docs/training.md says what it found.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.bots import baseline
from holdemjax.poker import table as tb
from holdemjax.poker.actions import CHECK_CALL
from holdemjax.training import panel

__all__ = ["PLAYERS", "SITUATIONS", "DEPTHS", "SHORT_BB", "NUM_PARAMS", "PASSIVE", "NEVER",
           "ALWAYS", "HEADS_UP", "spot_names", "spot", "policy", "describe", "class_name"]

PLAYERS = ("heads-up", "3-handed", "4+")  # players dealt into the hand: 2, 3, 4..6
SITUATIONS = ("first", "facing")  # nobody bet yet / facing a bet or raise
DEPTHS = ("short", "deep")  # effective stack <= SHORT_BB big blinds / more
SHORT_BB = baseline.SHORT_BB
NUM_PARAMS = len(PLAYERS) * len(SITUATIONS) * len(DEPTHS)
NEVER, ALWAYS = 0, 10_000  # thresholds: no hand / every hand (``top`` is in 0..10,000 bp)
PASSIVE = np.zeros(NUM_PARAMS, np.int32)
#: The parameter indices of the heads-up spots (`spot`: the players count is the major index).
HEADS_UP = tuple(range(len(SITUATIONS) * len(DEPTHS)))


def spot_names() -> list[str]:
    """The `NUM_PARAMS` spot names in parameter order (players, then situation, then depth)."""
    return [f"{p} {s} {d}" for p in PLAYERS for s in SITUATIONS for d in DEPTHS]


def spot(f: dict) -> jax.Array:
    """``# [] int32`` parameter index of a decision from its `baseline.features` ``f``."""
    players = jnp.clip(f["dealt"] - 2, 0, len(PLAYERS) - 1)
    facing = (f["raises"] > 0).astype(jnp.int32)
    deep = (f["eff_bb"] > SHORT_BB).astype(jnp.int32)
    return ((players * len(SITUATIONS) + facing) * len(DEPTHS) + deep).astype(jnp.int32)


@functools.cache
def policy(env):
    """``act(params, state, key) -> int32`` menu action of the family on ``env`` (``params``:
    ``# [NUM_PARAMS] int32`` thresholds, traced data: one compile for every policy of the
    family). The key is not used: the family is deterministic."""
    _, top_np = baseline.load_preflop()
    top_table = np.asarray(top_np, np.int32)
    all_in = env.menu.ALL_IN

    def act(params, state, key):
        del key
        f = baseline.features(env.decision(state))
        top = jnp.asarray(top_table)[baseline.hand_class(f["hole"])]
        mask = state.legal_action_mask
        shove = (f["street"] == tb.PREFLOP) & (top <= jnp.asarray(params)[spot(f)])
        passive = panel.passive_move(mask)
        push = jnp.where(mask[all_in], all_in, CHECK_CALL)
        return jnp.where(shove, push, passive).astype(jnp.int32)

    return act


def describe(params) -> dict[str, str]:
    """``{spot name: the hands it shoves}`` in words (the strongest hand outside the range is
    named, e.g. ``"top 6.2 % (AA .. AQo)"``), for tables and docs."""
    _, top_np = baseline.load_preflop()
    order = np.argsort(top_np, kind="stable")
    out = {}
    for name, t in zip(spot_names(), np.asarray(params).tolist(), strict=True):
        inside = [c for c in order if top_np[c] <= t]
        if not inside:
            out[name] = "never"
        elif len(inside) == len(order):
            out[name] = "every hand"
        else:
            out[name] = (f"top {t / 100:g} % ({class_name(inside[0])} .. "
                         f"{class_name(inside[-1])})")
    return out


def class_name(c: int) -> str:
    """``"AA"``, ``"AKs"``, ``"72o"`` of a class id of `baseline.hand_class`."""
    ranks = "23456789TJQKA"
    a, b = divmod(int(c), 13)
    if a == b:
        return ranks[a] * 2
    hi, lo = max(a, b), min(a, b)
    return ranks[hi] + ranks[lo] + ("s" if a > b else "o")
