"""Seat rotation: every deal played once with the tested policy in every seat, on single hands
with stacks reset every hand, in JAX (``jit(vmap(...))`` with a ``lax.while_loop`` over the
decisions); and a small host-side hand loop (`host_hand`, `play_host_hand`, on the host hand
driver `holdemjax.host.hand.HostHand`) for host bots such as the tiers of
`holdemjax.duplicate.tiers`.

**Deals.** Deal ``d`` deals ``cards.hand_deck(key, d)`` (the permutation of ``fold_in(key, d)``)
with the button on seat ``d % seats`` and every stack at ``stack``. Bots draw at
``coordinate_key(bot_key, d, seat, street, rank)`` with one ``bot_key =
key_data(fold_in(key, BOT_KEY_DATUM))`` for every seat, whoever sits there: so six copies of
one policy play the six rotations of a deal identically, and each deal's rotation sum is exactly
zero chips (a test checks it).

**A JAX policy** is ``policy(view: SeatView, key) -> (kind, amount)``: the engine's exact action
(``table.FOLD`` / ``CHECK_CALL`` / ``RAISE`` with its raise-to), int32 scalars; ``key`` is the
bot key (``uint32[2]``, fold it by the view's coordinates, never split a stream). Anything the
engine would clamp (a raise below the minimum, a raise when raising is closed) is played as the
engine clamps it and counted in ``illegal``. `from_menu_bot` adapts the menu bots of
`holdemjax.bots` (``act(env, state, key) -> menu action``); `BASELINE` and `RANDOM` are the two
adapted reference bots. The default opponent of `evaluate` is `BASELINE`.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax import luck as holdemjax_luck
from holdemjax.bots import baseline, random_bot
from holdemjax.host import legal as host_legal
from holdemjax.host.hand import HostHand, lone_hand
from holdemjax.host.loop import play_hand
from holdemjax.poker import table as poker_table
from holdemjax.poker import tournament
from holdemjax.poker.actions import Menu
from holdemjax.poker.cards import hand_deck

__all__ = ["SeatView", "seat_view", "from_menu_bot", "BASELINE", "RANDOM", "BOT_KEY_DATUM",
           "play_rotations", "evaluate", "host_hand", "play_host_hand", "host_player"]

BOT_KEY_DATUM = 0xFFFFFFFF  # the bots' key is fold_in(key, this); deal indices stay below 2**31
LUCK_KEY_DATUM = 0xFFFFFFFE  # luck's samples of deal d: fold_in(fold_in(key, this), d)


@struct.dataclass
class SeatView:
    """What the seat to act sees (a pytree; unbatched shapes)."""

    # the hand, with other seats' hole cards and the unseen board set to -1 and the showdown
    # strengths to 0
    table: poker_table.Table
    hand: jax.Array  # [] int32 deal index: the ``hand`` coordinate of a bot draw
    seat: jax.Array  # [] int32 the seat to act (table.to_act)
    decision: jax.Array  # [] int32 decisions this seat already made in the hand (its rank)
    street_raises: jax.Array  # [4, N] int32 bets/raises per street and seat this hand
    legal: poker_table.Legal  # what the seat may do


def seat_view(table: poker_table.Table, hand, decisions, street_raises) -> SeatView:
    """The `SeatView` of ``table.to_act`` (pure JAX). ``decisions``: ``# [N] int32`` per seat."""
    seat = jnp.maximum(table.to_act, 0).astype(jnp.int32)
    n = table.num_seats
    mine = (jnp.arange(n) == seat)[:, None]
    shown = jnp.arange(5) < table.revealed
    hidden = table.replace(hole=jnp.where(mine, table.hole, -1),
                           board=jnp.where(shown, table.board, -1),
                           strength=jnp.zeros_like(table.strength))
    return SeatView(table=hidden, hand=jnp.asarray(hand, jnp.int32), seat=seat,
                    decision=jnp.asarray(decisions, jnp.int32)[seat],
                    street_raises=jnp.asarray(street_raises, jnp.int32),
                    legal=poker_table.legal(table))


def from_menu_bot(decide, menu: Menu | None = None):
    """A JAX policy from a menu bot ``decide(menu, view, mask, key) -> menu action``
    (`holdemjax.bots`: `baseline.decide`, `random_bot.decide`): the bot reads the seat's
    `tournament.Decision` and the menu's legal mask."""
    menu = menu or Menu()

    def policy(view: SeatView, key):
        mask, amounts = menu.mask_and_amounts(view.table, view.legal)
        n = view.table.num_seats
        decisions = jnp.where(jnp.arange(n) == view.seat, view.decision, 0)
        seen = tournament.decision_at(view.table, view.hand, decisions, view.street_raises,
                                      legal=view.legal)
        return menu.to_engine(decide(menu, seen, mask, key), amounts)

    policy.__name__ = policy.__qualname__ = f"menu_bot({getattr(decide, '__module__', decide)})"
    return policy


BASELINE = from_menu_bot(baseline.decide)
RANDOM = from_menu_bot(random_bot.decide)


def _policy_actions(policies, view, key):
    """``# [P]`` kinds and amounts of every policy (each is evaluated: under vmap a switch
    would run them all anyway)."""
    kinds, amounts = [], []
    for p in policies:
        kind, amount = p(view, key)
        kind, amount = jnp.asarray(kind), jnp.asarray(amount)
        if kind.shape != () or amount.shape != ():
            raise ValueError(f"policy {getattr(p, '__name__', p)!r} must return two scalars "
                             f"(kind, amount), got shapes {kind.shape} and {amount.shape}")
        kinds.append(kind.astype(jnp.int32))
        amounts.append(amount.astype(jnp.int32))
    return jnp.stack(kinds), jnp.stack(amounts)


@functools.partial(jax.jit, static_argnames=("policies", "seats", "batch", "max_decisions",
                                             "with_luck"))
def _rotations(policies, seats, batch, max_decisions, key, first_deal, tested, opponent,
               stack, small_blind, big_blind, ante, with_luck=False):
    """Chips won per (deal, rotation, seat) ``# [batch, seats, seats] int32``, unfinished
    hands ``# [batch, seats] bool``, non-exact actions per deal and policy ``# [batch, P]
    int32`` and, ``with_luck``, each seat's luck (`holdemjax.luck`, chips)
    ``# [batch, seats, seats] float32`` (zeros without)."""
    bot_key = jax.random.key_data(jax.random.fold_in(key, BOT_KEY_DATUM))
    luck_key = jax.random.fold_in(key, LUCK_KEY_DATUM)

    def one(deal, rotation):
        deck = hand_deck(key, deal)
        alive = jnp.ones(seats, bool)
        button, sb, bb, sb_posts = poker_table.first_positions(alive, deal % seats)
        start = poker_table.start_hand(jnp.full(seats, stack, jnp.int32), alive, button, sb, bb,
                                       sb_posts, small_blind, big_blind, ante, deck, can_end=False)
        table = poker_table.begin(start)  # = start_hand(...): the first decision or the hand over
        # the per-hand counters (decisions, bets/raises per street) are the engine's
        carry = (tournament.lone_hand(table, deal), jnp.zeros(len(policies), jnp.int32),
                 jnp.int32(0), holdemjax_luck.no_reveals(table) if with_luck else None)

        def body(c):
            t, illegal, steps, reveals = c
            view = seat_view(t.table, deal, t.decisions, t.street_raises)
            kinds, amounts = _policy_actions(policies, view, bot_key)
            live = ~t.table.hand_over
            lg = view.legal
            exact = host_legal.exact(kinds, amounts, lg.can_raise, lg.min_raise_to,
                                     lg.max_raise_to)
            illegal = illegal + (~exact & live)
            who = jnp.where(view.seat == rotation, tested, opponent)
            nxt = tournament.act(t, kinds[who], amounts[who])
            if with_luck:
                reveals = holdemjax_luck.note(reveals, t.table, kinds[who], amounts[who], nxt.table)
            return nxt, illegal, steps + 1, reveals

        def cond(c):
            return ~c[0].table.hand_over & (c[2] < max_decisions)

        t, illegal, _, reveals = jax.lax.while_loop(cond, body, carry)
        hand_luck = (holdemjax_luck.luck_of(start, reveals, key=jax.random.fold_in(luck_key, deal))
                     if with_luck else jnp.zeros(seats, jnp.float32))
        return t.table.stacks - stack, ~t.table.hand_over, illegal, hand_luck

    deals = first_deal + jnp.arange(batch, dtype=jnp.int32)
    per_row = jax.vmap(jax.vmap(one, in_axes=(None, 0)), in_axes=(0, None))
    net, unfinished, illegal, hand_luck = per_row(deals, jnp.arange(seats, dtype=jnp.int32))
    return net, unfinished, illegal.sum(1), hand_luck


def play_rotations(policies, tested: int, opponent: int, deals: int, key, *, seats: int = 6,
                   stack: int = 2000, blinds=(10, 20, 0), batch: int = 128,
                   max_decisions: int = 512, luck: bool = False) -> dict:
    """Play deals ``0..deals-1`` with ``policies[tested]`` in each seat in turn and
    ``policies[opponent]`` in the others (one compilation per ``policies`` tuple, seat count and
    batch; ``tested``/``opponent`` are traced, so many line-ups share it).

    Returns numpy arrays: ``net # [deals, rotation, seat] int64`` chips won (the tested policy
    sits in seat = rotation), ``unfinished # [deals, rotation] bool`` (hands cut at
    ``max_decisions``), ``illegal # [P]``: decisions at which each policy's answer would have
    been clamped by the engine (every policy is asked at every decision, whoever sits there:
    an audit); with ``luck``, ``luck # [deals, rotation, seat] float64``: each seat's luck in
    chips (`holdemjax.luck`: the deal's and the board's AIVAT corrections; ``net - luck`` is
    the corrected result, with the same mean).
    """
    policies = tuple(policies)
    for name, v in (("tested", tested), ("opponent", opponent)):
        if not isinstance(v, int) or not 0 <= v < len(policies):
            raise ValueError(f"{name} must index policies (0..{len(policies) - 1}), got {v!r}")
    if not 2 <= seats <= 9:
        raise ValueError(f"seats must be in 2..9, got {seats!r}")
    if not isinstance(deals, int) or not 1 <= deals < 2**31:
        raise ValueError(f"deals must be a positive int below 2**31, got {deals!r}")
    small, big, ante = (int(b) for b in blinds)
    if not 0 <= small <= big or big < 1 or ante < 0 or not 0 < stack < 2**31 // 10000:
        raise ValueError(f"bad stack/blinds: stack={stack!r}, blinds={blinds!r}")
    key = _as_key(key)
    nets, unfinished, lucks, illegal = [], [], [], np.zeros(len(policies), np.int64)
    for first in range(0, deals, batch):
        n, u, i, lk = _rotations(policies, seats, batch, max_decisions, key, jnp.int32(first),
                                 jnp.int32(tested), jnp.int32(opponent), jnp.int32(stack),
                                 jnp.int32(small), jnp.int32(big), jnp.int32(ante),
                                 with_luck=bool(luck))
        keep = min(batch, deals - first)
        nets.append(np.asarray(n, np.int64)[:keep])
        unfinished.append(np.asarray(u)[:keep])
        lucks.append(np.asarray(lk, np.float64)[:keep])
        illegal += np.asarray(i, np.int64)[:keep].sum(0)
    out = dict(net=np.concatenate(nets), unfinished=np.concatenate(unfinished), illegal=illegal)
    if luck:
        out["luck"] = np.concatenate(lucks)
    return out


def _as_key(key):
    if isinstance(key, int):
        return jax.random.key(key)
    if not jnp.issubdtype(jnp.asarray(key).dtype, jax.dtypes.prng_key):
        return jax.random.wrap_key_data(jnp.asarray(key, jnp.uint32))
    return key


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan


def evaluate(policy, opponent=None, deals: int = 512, key=0, *, pool=(), seats: int = 6,
             stack: int = 2000, blinds=(10, 20, 0), batch: int = 128,
             luck: bool = False) -> dict:
    """bb/100 of ``policy`` against ``opponent`` (default `BASELINE`) by seat rotation.

    Per deal, the rotation result is the mean over the ``seats`` rotations of the tested seat's
    chips; plain play is rotation 0 alone (the policy always in seat 0, the button moving) on
    the same deals. ``pool``: more policies compiled into the same program (so several
    evaluations share one compilation).

    Returns a dict: ``bb_per_100``, ``stderr`` (its standard error over deals),
    ``plain_bb_per_100``, ``plain_stderr``, ``variance_reduction`` (1 - var(rotation) /
    var(plain), per deal), ``efficiency`` (var(plain) / (seats * var(rotation)): above 1, the
    rotation beats plain play even per hand played), ``deals``, ``hands``, ``chips # [deals]``
    (exact rotation sums: ``seats`` times the mean), ``illegal`` (clamped actions of the tested
    and opponent policies) and ``unfinished`` hands. With ``luck``, also
    ``corrected_bb_per_100`` and ``corrected_stderr``: the rotation result with each hand's
    luck taken out (`holdemjax.luck`, AIVAT's chance corrections: the same mean, a smaller
    standard error), ``luck_se_ratio`` (stderr / corrected_stderr) and ``corrected_chips``.
    """
    if not isinstance(deals, int) or deals < 2:
        raise ValueError(f"evaluate needs at least 2 deals for its standard errors, got {deals!r}")
    opponent = BASELINE if opponent is None else opponent
    policies = list(pool)
    for p in (policy, opponent):
        if p not in policies:
            policies.append(p)
    t, o = policies.index(policy), policies.index(opponent)
    out = play_rotations(policies, t, o, deals, key, seats=seats, stack=stack, blinds=blinds,
                         batch=batch, luck=luck)
    big = int(blinds[1])
    rows = np.arange(seats)
    tested = out["net"][:, rows, rows]  # [deals, rotation]: the tested seat's chips
    chips = tested.sum(1)
    rot = chips / seats * 100 / big
    plain = tested[:, 0] * 100 / big
    (m, se), (pm, pse) = _mean_se(rot), _mean_se(plain)
    var_r, var_p = float(rot.var(ddof=1)), float(plain.var(ddof=1))
    extra = {}
    if luck:
        corrected = (tested - out["luck"][:, rows, rows]).sum(1)
        cm, cse = _mean_se(corrected / seats * 100 / big)
        extra = dict(corrected_bb_per_100=cm, corrected_stderr=cse,
                     luck_se_ratio=se / cse if cse > 0 else math.inf, corrected_chips=corrected)
    return dict(bb_per_100=m, stderr=se, plain_bb_per_100=pm, plain_stderr=pse,
                variance_reduction=1 - var_r / var_p if var_p > 0 else math.nan,
                efficiency=var_p / (seats * var_r) if var_r > 0 else math.inf,
                deals=deals, hands=deals * seats, chips=chips,
                illegal={"tested": int(out["illegal"][t]), "opponent": int(out["illegal"][o])},
                unfinished=int(out["unfinished"].sum()), **extra)


# ------------------------------------------------------------------ the host-side hand loop
_deck_jit = jax.jit(hand_deck)


def host_hand(key, hand: int, *, seats: int = 6, stack=2000, blinds=(10, 20, 0),
              button: int | None = None, deck=None) -> HostHand:
    """One hand to play decision by decision from the host, on the host hand driver
    (`holdemjax.host.hand.HostHand` of a lone hand): deck ``hand_deck(key, hand)`` (or
    ``deck``, 52 card ids), button ``hand % seats`` (or ``button``), every stack at ``stack``
    (an int, or one per seat), ``blinds`` = (small, big, ante)."""
    button = hand % seats if button is None else button
    stacks = np.broadcast_to(np.asarray(stack, np.int32), (seats,)).copy()
    if deck is None:
        deck = _deck_jit(_as_key(key), np.int32(hand))
    return lone_hand(hand, deck, stacks, button=button, blinds=tuple(int(b) for b in blinds))


@dataclasses.dataclass
class HandRecord:
    """A finished host hand: history, chips, showdown, who saw the flop, bad actions."""

    history: list
    net: np.ndarray  # [seats] int64
    showdown: bool
    saw_flop: np.ndarray  # [seats] bool
    went_to_showdown: np.ndarray  # [seats] bool
    faults: list  # [(seat, reason)] actions replaced by check/fold


def play_host_hand(players, key, hand: int, *, stack=2000, blinds=(10, 20, 0),
                   max_decisions: int = 512) -> HandRecord:
    """Play one hand with ``players[seat](view, decision) -> (kind, amount)`` (host callables;
    ``view`` is the protocol's ``act`` dict, ``decision`` the `tournament.Decision` it was built
    from). A player that raises, returns something that is not an exactly legal action
    (`holdemjax.host.legal.admits`), or runs past ``max_decisions`` gets check-or-fold, recorded."""
    h = host_hand(key, hand, seats=len(players), stack=stack, blinds=blinds)
    faults = []
    saw_flop = np.zeros(len(players), bool)

    def checked(player):  # the loop's player: an action that is not admitted is replaced
        def play(h):
            view = h.view()
            try:
                kind, amount = player(view, h.decision())
                ok = host_legal.admits(view["legal"], kind, amount)
            except Exception as exc:  # a host player must not stop the table
                ok, kind, amount = False, None, repr(exc)
            if not ok or len(h.history) >= max_decisions:
                faults.append((view["seat"], f"{kind!r}, {amount!r}"))
                kind, amount = host_legal.default_action(view["legal"])
            return int(kind), int(amount), None

        return play

    street = int(h.table.street)  # before each decision
    for _ in play_hand(h, {seat: checked(p) for seat, p in enumerate(players)}):
        new = h.table
        if street == poker_table.PREFLOP and (
                int(new.street) >= poker_table.FLOP and not bool(new.hand_over)
                or bool(new.showdown)):
            saw_flop = np.asarray(new.in_hand & ~new.folded)
        street = int(new.street)
    t = h.table
    live = np.asarray(t.in_hand & ~t.folded)
    net = np.asarray(t.stacks, np.int64) - np.asarray(t.start_stacks, np.int64)
    return HandRecord(history=h.history, net=net, showdown=bool(t.showdown),
                      saw_flop=saw_flop, went_to_showdown=live & bool(t.showdown),
                      faults=faults)


@functools.cache
def jitted_policy(policy):
    """``run(table, hand, decisions, street_raises, key) -> (kind, amount)``: the policy jitted
    on the seat view of a (host) table."""
    return _jitted(policy)


def _jitted(policy):
    def run(table, hand, decisions, street_raises, key):
        return policy(seat_view(table, hand, decisions, street_raises), key)

    return jax.jit(run)


def host_player(policy, bot_key):
    """A host player (for `play_host_hand`) from a JAX policy and its bot key (``uint32[2]``)."""
    run = _jitted(policy)
    key = jnp.asarray(bot_key, jnp.uint32)

    def player(view, decision: tournament.Decision):
        kind, amount = run(decision.table, decision.hand, decision.decisions,
                           decision.street_raises, key)
        return int(kind), int(amount)

    return player
