"""The reference tiers of duplicate poker (``beginner``, ``intermediate``, ``advanced``) in JAX.

The host tiers (`holdemjax.duplicate.tiers`, plain Python on the protocol's ``act`` view) are
the rule; this module plays the same rules (docs/tiers.md, PF1..PF4, PO1..PO3) with the same
constants (`holdemjax.bots.tier_params.PARAMS`, one object read by both) on a
`tournament.Decision`, in int32 arithmetic, pure and jit/vmap-able, so that the tiers can sit at
JAX tables (the training evaluation panel). A test plays real tournaments and checks that every
decision here is the host tier's exact action.

What the host reads from the hand's history is rebuilt from the decision view: the street's
last raiser is the seat at the current bet that raised this street and acted longest ago (its
callers sit between it and the seat to act); the last pre-flop raiser (the flop c-bet) is the
seat at the largest pre-flop contribution whose every pre-flop decision was a raise. The
post-flop strength reuses the baseline's counting helpers (`holdemjax.bots.baseline`).

``decide_exact(params, view, key) -> (kind, amount)``: the engine action (`table.FOLD`,
``CHECK_CALL`` or ``RAISE`` with its raise-to). ``decide`` / ``act``: the nearest menu action
(`baseline.to_menu`), as the other JAX bots.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.bots import baseline
from holdemjax.bots.random_bot import coordinate_key, coordinates, draw_below
from holdemjax.bots.tier_params import GOOD, MEDIUM, MONSTER, NOTHING, PARAMS, STRONG, WEAK, Params
from holdemjax.poker import evaluator, table

__all__ = ["TIERS", "PARAMS", "params_of", "features", "hand_strength", "decide_exact",
           "decide", "act"]

TIERS = tuple(PARAMS)
_FOLD, _CALL, _RAISE = (int(i) for i in baseline.Intent)


def params_of(tier: str) -> Params:
    """The `Params` of a tier by name (a clear error for an unknown name)."""
    if tier not in PARAMS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {TIERS}")
    return PARAMS[tier]


def _i32(x):
    return jnp.asarray(x, jnp.int32)


# ----------------------------------------------------------------------------- the features
def features(view) -> dict:
    """The integer quantities the tiers decide on (`holdemjax.duplicate.tiers.features`), from
    a `tournament.Decision` view."""
    t = view.table
    n = t.num_seats
    seat = jnp.maximum(t.to_act, 0)
    seats = jnp.arange(n)
    street = jnp.clip(t.street, 0, 3)
    bb = jnp.maximum(t.big_blind, 1)
    live = t.in_hand & ~t.folded
    others = live & (seats != seat)
    reach = t.bets + t.stacks
    opp_reach = jnp.max(jnp.where(others, reach, 0))
    order = (seats - t.button - 1) % n  # post-flop acting order
    to_bb = (t.bb - seat) % n
    dist = (seats - seat) % n
    cur = jnp.max(t.bets)
    raised = view.street_raises[street] > 0
    raises = view.street_raises[street].sum()
    # The street's last raiser: at the current bet, raised, acted longest ago (cyclically).
    back = (seat - seats) % n
    cand = raised & (t.bets == cur) & ~t.folded & (seats != seat)
    raiser = jnp.argmax(jnp.where(cand, back, -1))
    since = jnp.where(raises > 0, back[raiser], n)  # seats strictly after it are its callers
    called = t.acted & ~t.folded & ((t.bets == cur) | t.allin) & (t.bets > 0)
    callers = (called & (back > 0) & (back < since)).sum()
    # The last pre-flop raiser, read on the flop: the largest pre-flop contribution, and every
    # pre-flop decision a raise (flop decisions so far are checks: one per seat that acted).
    pre = t.contrib - t.bets
    pre_raises = view.street_raises[0]
    pre_decisions = view.decisions - jnp.where(street >= 1, t.acted.astype(jnp.int32), 0)
    pre_cand = (pre_raises > 0) & (pre == jnp.max(pre)) & (pre_decisions == pre_raises)
    acting = others & ~t.allin
    return dict(
        seat=seat, street=street, bb=bb, dealt=t.in_hand.sum(), opponents=others.sum(),
        after=jnp.minimum((others & (dist > 0) & (dist <= to_bb)).sum(), 5),
        raises=raises, callers=callers,
        ip_vs_raiser=(raises > 0) & (order[seat] > order[raiser]),
        ip=~(acting & (order > order[seat])).any(),
        blind=(seat == t.bb) | (seat == t.sb), is_bb=seat == t.bb,
        is_sb=(seat == t.sb) & (t.bets[seat] < bb),
        last_raiser_preflop=pre_cand[seat] & (pre_cand.sum() == 1),
        reach=reach[seat], stack=t.stacks[seat], eff=jnp.minimum(reach[seat], opp_reach),
        pot=table.pot_total(t), to_call=view.legal.call_amount, current_bet=cur,
        hole=t.hole[seat], board=t.board,
        shown=jnp.arange(5) < jnp.asarray((0, 3, 4, 5, 5))[jnp.clip(t.street, 0, 4)],
    )


# ------------------------------------------------------------------------ post-flop strength
def hand_strength(hole, board, shown, p: Params):
    """(hs, outs) of the hole cards on the board cards marked ``shown`` (3..5 of them), as
    `holdemjax.duplicate.tiers.hand_strength`."""
    cards = jnp.concatenate([hole, board])
    seen = jnp.concatenate([jnp.ones(2, bool), shown])
    ranks, suits, mask, suit_masks = baseline._counts(cards, seen)
    b_ranks, b_suits, b_mask, b_suit_masks = baseline._counts(board, shown)
    cat_all = baseline._category(ranks, suits, mask, suit_masks)
    cat_board = baseline._category(b_ranks, b_suits, b_mask, b_suit_masks)
    made = jnp.where(cat_all > cat_board, cat_all, evaluator.HIGH_CARD)
    made = jnp.where((cat_board >= evaluator.ONE_PAIR) & (made == evaluator.TWO_PAIR),
                     evaluator.ONE_PAIR, made)
    top = 31 - jax.lax.clz(b_mask)  # the board's highest rank
    rest = b_mask & ~jnp.left_shift(1, jnp.maximum(top, 0))
    second = jnp.where(rest > 0, 31 - jax.lax.clz(rest), -1)  # its second distinct rank
    h = hole // 4
    pair = jnp.max(jnp.where(ranks[h] >= 2, h, -1))
    pocket = h[0] == h[1]
    kicker = jnp.where(h[0] == pair, h[1], h[0])
    one_pair = jnp.select(
        [pocket & (pair > top), pair == top, (second >= 0) & (pair >= second)],
        [GOOD, jnp.where(kicker >= p.kicker_rank, GOOD, MEDIUM), MEDIUM], WEAK)
    hs = jnp.select([made >= evaluator.STRAIGHT, made >= evaluator.TWO_PAIR,
                     made == evaluator.ONE_PAIR], [MONSTER, STRONG, one_pair], NOTHING)
    hole_suit = (hole % 4)[:, None] == jnp.arange(4)
    fd = (cat_all < evaluator.FLUSH) & (hole_suit.any(0) & (suits == 4)).any()
    s_outs = jnp.where(cat_all < evaluator.STRAIGHT, baseline._straight_outs(mask), 0)
    board_outs = baseline._straight_outs(b_mask)
    oesd = (s_outs >= 2) & (board_outs < 2)
    gut = (s_outs == 1) & (board_outs == 0)
    fd, oesd, gut = (x.astype(jnp.int32) for x in (fd, oesd, gut))
    outs = 9 * fd + 8 * oesd + 4 * gut - (2 * oesd + gut) * fd
    outs = outs + jnp.where((hs == NOTHING) & (jnp.min(h) > top), p.overcard_outs, 0)
    early = shown.sum() < 5
    return _i32(hs), jnp.where(early, outs, 0).astype(jnp.int32)


def _odds(equity, pot_after, to_call):
    return equity * pot_after >= 10000 * to_call


def _a(values):
    return jnp.asarray(np.asarray(values, np.int32))


# ---------------------------------------------------------------------------------- pre-flop
def _preflop(p: Params, f: dict, u, equity, top):
    """(intent, raise-to target) before the flop: rules PF1..PF4."""
    eq = equity[jnp.clip(f["opponents"], 1, 5) - 1]
    pair = f["hole"][0] // 4 == f["hole"][1] // 4
    bb, to_call, cur, reach = f["bb"], f["to_call"], f["current_bet"], f["reach"]
    pot_after = f["pot"] + to_call
    raises, after, eff_bb, callers = f["raises"], f["after"], f["eff"] // bb, f["callers"]
    hu = jnp.where(f["dealt"] == 2, p.hu_bonus, 0)
    ip = jnp.where(f["ip_vs_raiser"], 0, 1)
    fold = (_FOLD, 0)

    def pick(choices, default):  # [(condition, (intent, target))], first true wins
        conds = [c for c, _ in choices]
        intent = jnp.select(conds, [_i32(a) for _, (a, _t) in choices], default[0])
        target = jnp.select(conds, [_i32(t) for _, (_a, t) in choices], default[1])
        return intent, target

    # PF1: push/fold
    push = (_a(p.push_top)[after] + hu
            + jnp.where(eff_bb <= p.very_short_bb, p.very_short_bonus, 0))
    short_call = _odds(eq - p.short_call_penalty * raises, pot_after, to_call)
    shove = top <= push
    pf1 = pick([(raises == 0, (jnp.where(shove, _RAISE, _FOLD), jnp.where(shove, reach, 0))),
                (top <= p.jam_over_top, (_RAISE, reach)), (short_call, (_CALL, 0))], fold)
    # PF2: first in, or limpers only
    open_top = _a(p.open_top)[after] + hu
    steal = (after >= 1) & (after <= 2) & (top <= open_top + p.steal_extra) & (u < p.steal_u)
    open_to = p.open_size[0] * bb // p.open_size[1] + callers * bb
    pf2 = pick([((top <= open_top) | steal, (_RAISE, open_to)),
                ((callers == 0) & (top <= p.open_limp_top), (_CALL, 0)),
                (((callers >= 1) & (top <= p.limp_top)) | (f["is_sb"] & (top <= p.sb_complete_top)),
                 (_CALL, 0))], fold)
    # PF3: facing one raise
    cost_ok = to_call * p.call_max_share <= reach
    three_to = jnp.where(eff_bb <= p.three_bet_jam_bb, reach,
                         (_a(p.three_bet_mult)[ip] + callers) * cur)
    light = (top <= p.bluff_3bet_top) & (u < p.bluff_3bet_u) & (f["ip_vs_raiser"] | f["blind"])
    by_hand = ((top <= _a(p.call_top)[ip]) | (bool(p.call_pairs) & pair)) & cost_ok
    set_mine = (p.set_mine > 0) & pair & (to_call * p.set_mine <= f["eff"])
    penalty = jnp.where(f["is_bb"], p.bb_odds_penalty, p.call_odds_penalty)
    by_odds = _odds(eq - penalty, pot_after, to_call) & (to_call * p.odds_max_share <= reach)
    pf3 = pick([((top <= p.three_bet_top) | light, (_RAISE, three_to)),
                (by_hand | set_mine | by_odds, (_CALL, 0))], fold)
    # PF4: facing two raises or more
    four_to = jnp.where(eff_bb <= p.four_bet_jam_bb, reach, 5 * cur // 2)
    call4 = ((top <= p.call_3bet_top) & (to_call * p.call_3bet_share <= reach)) | _odds(
        eq - p.call_3bet_penalty, pot_after, to_call)
    pf4 = pick([(top <= p.four_bet_top, (_RAISE, four_to)), (call4, (_CALL, 0))], fold)

    short = (p.short_bb > 0) & (eff_bb <= p.short_bb)
    return pick([(short, pf1), (raises == 0, pf2), (raises == 1, pf3)], pf4)


# --------------------------------------------------------------------------------- post-flop
def _postflop(p: Params, f: dict, u):
    """(intent, raise-to target) on the flop, turn and river: rules PO1..PO3."""
    hs, outs = hand_strength(f["hole"], f["board"], f["shown"], p)
    street, to_call, cur, pot = f["street"], f["to_call"], f["current_bet"], f["pot"]
    pot_after = pot + to_call
    k = jnp.where(f["ip"], 0, 1)
    small = cur + p.good_bet[0] * pot // p.good_bet[1]
    value = cur + p.value_bet[0] * pot // p.value_bet[1]
    opp = f["opponents"]
    # PO2: nothing to call
    cbet = ((street == 1) & f["last_raiser_preflop"] & (opp >= 1) & (opp <= 2)
            & (u < _a(p.cbet_u)[jnp.clip(opp - 1, 0, 1)]))
    bluff = (hs == NOTHING) & (opp == 1) & (u < _a(p.bluff_u)[k])
    bet_small = (((hs == GOOD) & (u < _a(p.good_u)[k])) | ((hs == MEDIUM) & (u < _a(p.medium_u)[k]))
                 | ((outs >= 8) & (u < _a(p.semi_u)[k])) | cbet | bluff)
    free = jnp.select([(hs >= STRONG) & (u < _a(p.value_u)[k]), hs >= STRONG, bet_small],
                      [_RAISE, _CALL, _RAISE], _CALL)
    free_to = jnp.where(hs >= STRONG, value, small)
    # PO3: facing a bet
    raises = f["raises"]
    raise_to = cur + pot_after
    s = jnp.minimum(street, 3) - 1
    draw_t = jnp.where(s < 2, outs * _a(p.per_out)[jnp.clip(s, 0, 1)], 0)
    priced = to_call * 10000 <= draw_t * pot_after
    raise_now = (hs >= p.raise_hs) & (raises < p.raise_limit) & (u < p.raise_u)
    draw_raise = ((street == 1) & (outs >= 12) & (raises == 1) & priced
                  & (u < p.draw_raise_u))
    threshold = (jnp.maximum(_a(p.made_price)[hs, s], draw_t)
                 - p.raised_penalty * jnp.maximum(raises - 1, 0))
    call = to_call * 10000 <= threshold * pot_after
    facing = jnp.select([raise_now | draw_raise, call], [_RAISE, _CALL], _FOLD)
    committed = (hs >= p.commit_hs) & (f["stack"] <= pot)  # PO1
    intent = jnp.select([committed, to_call == 0], [_RAISE, free], facing)
    target = jnp.select([committed, to_call == 0], [f["reach"], free_to], raise_to)
    return _i32(intent), _i32(target)


# ----------------------------------------------------------------------------------- decide
def decide_exact(p: Params, view, key: jax.Array):
    """The tier's exact action ``(kind, amount)`` (``# [] int32`` each; amount = raise-to, else
    0) for the seat to act in ``view`` (`tournament.Decision`), always legal: a raise clamped to
    the legal range and all-in when it would leave less than a third of the chips; a fold is a
    check when checking is free. ``key``: the bot's per-game key (uint32[2])."""
    equity_np, top_np = baseline._shipped_preflop()
    f = features(view)
    u = draw_below(coordinate_key(key, *coordinates(view)), 10000)
    cls = baseline.hand_class(f["hole"])
    pre = _preflop(p, f, u, jnp.asarray(equity_np)[cls], jnp.asarray(top_np)[cls])
    post = _postflop(p, f, u)
    is_pre = f["street"] == table.PREFLOP
    intent = jnp.where(is_pre, pre[0], post[0])
    target = jnp.where(is_pre, pre[1], post[1])
    lg = view.legal
    lo, hi = lg.min_raise_to, lg.max_raise_to
    amount = jnp.clip(target, lo, hi)
    amount = jnp.where(3 * amount >= 2 * hi, hi, amount)
    raising = (intent == _RAISE) & lg.can_raise
    folding = (intent == _FOLD) & ~lg.can_check
    kind = jnp.select([raising, folding], [table.RAISE, table.FOLD], table.CHECK_CALL)
    return _i32(kind), _i32(jnp.where(raising, amount, 0))


def decide(p: Params, menu, view, mask: jax.Array, key: jax.Array) -> jax.Array:
    """The tier's menu action (``# [] int32``, always legal): `decide_exact`, then the menu's
    raise entry nearest its raise-to (`baseline.to_menu`)."""
    kind, amount = decide_exact(p, view, key)
    intent = jnp.select([kind == table.FOLD, kind == table.RAISE], [_FOLD, _RAISE], _CALL)
    _, amounts = menu.mask_and_amounts(view.table, view.legal)
    return baseline.to_menu(intent, amount, mask, amounts)


def act(p: Params, env, state, key: jax.Array) -> jax.Array:
    """The tier's menu action for ``state.current_player``: `decide` on ``env.decision(state)``."""
    return decide(p, env.menu, env.decision(state), state.legal_action_mask, key)
