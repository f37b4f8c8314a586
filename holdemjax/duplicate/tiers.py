"""The reference tiers of duplicate poker: ``beginner``, ``intermediate`` and ``advanced`` bots.

``decide(tier, view, bot_key) -> (kind, amount)`` reads the protocol's ``act`` view (PROTOCOL.md
§5, `protocol.act_message`) and returns an exact engine action (`table.FOLD`, `CHECK_CALL`, or
`RAISE` with its raise-to) that is always legal for ``view["legal"]``. docs/tiers.md states
every rule (ids PF1..PF4, PO1..PO3) and every constant of `PARAMS` (a test compares them).

* Host side, plain Python, integer arithmetic only (no floats): a C port replays it exactly.
* One draw ``u`` in [0, 10000) per decision, addressed by (hand, seat, street, rank =
  ``view["decision"]``) through `holdemjax.duplicate.draws`, so no other seat's choices, and no
  other call of this function, can shift it.
* Pre-flop hand strength comes only from the versioned, checksummed table
  ``holdemjax/bots/data/preflop_v1.json`` (`baseline.load_preflop`): ``top`` = basis points of
  the 1,326 starting hands that are stronger (AA 22, 72o 9,592), ``eq[k-1]`` = equity against
  ``k`` random hands. Post-flop strength is counted from ranks and suits (no table).

The tiers share the rules and differ by their constants: ``beginner`` is loose-passive (limps and
calls wide, any pair calls a raise, rarely raises, one range for every position, calls bets by
hand rather than price), ``intermediate`` plays about as the JAX baseline does
(`holdemjax.bots.baseline`, same ranges), ``advanced`` is tighter-aggressive (raise-or-fold
opening ranges by position, light 3-bets, set-mining by implied odds, position-aware betting,
calls priced by the pot odds against an equity estimate of its hand and its outs).
"""

from __future__ import annotations

import functools

from holdemjax.bots.baseline import Intent, load_preflop
from holdemjax.bots.tier_params import (
    GOOD,
    MEDIUM,
    MONSTER,
    NOTHING,
    PARAMS,
    STRONG,
    WEAK,
    Params,
)
from holdemjax.duplicate import draws
from holdemjax.host import legal as host_legal
from holdemjax.poker import evaluator
from holdemjax.poker.cards import card_id
from holdemjax.poker.table import CHECK_CALL, RAISE

__all__ = ["TIERS", "Params", "PARAMS", "decide", "draw", "features", "hand_strength",
           "NOTHING", "WEAK", "MEDIUM", "GOOD", "STRONG", "MONSTER"]

TIERS = ("beginner", "intermediate", "advanced")

# Intents before they become an exact action: the baseline's vocabulary.
_FOLD, _CALL, _RAISE = Intent


# ----------------------------------------------------------------------------- the data file
@functools.cache
def _preflop_table() -> tuple[tuple, tuple]:
    """(equity rows, top) of the shipped table as Python ints, read and checksummed once per
    process on first use (never at import)."""
    equity, top = load_preflop()
    return tuple(tuple(int(x) for x in row) for row in equity), tuple(int(x) for x in top)


def hand_class(c1: int, c2: int) -> int:
    """Class 0..168 of two card ids (as `baseline.hand_class`)."""
    r1, r2, s1, s2 = c1 // 4, c2 // 4, c1 % 4, c2 % 4
    hi, lo = max(r1, r2), min(r1, r2)
    return 13 * hi + lo if s1 == s2 else 13 * lo + hi


# ------------------------------------------------------------------------ post-flop strength
def _straight(mask: int) -> bool:
    ext = (mask << 1) | ((mask >> 12) & 1)  # the ace also plays low
    run = ext
    for shift in range(1, 5):
        run &= ext >> shift
    return run != 0


def _category(cards) -> int:
    """Category (evaluator.HIGH_CARD..STRAIGHT_FLUSH) of the best five of 2..7 cards."""
    ranks, suits, suit_masks = [0] * 13, [0] * 4, [0] * 4
    for c in cards:
        ranks[c // 4] += 1
        suits[c % 4] += 1
        suit_masks[c % 4] |= 1 << (c // 4)
    mask = _rank_set(cards)
    flush = 0
    for s in range(4):
        if suits[s] >= 5:
            flush = suit_masks[s]
    n4, n3, n2 = ranks.count(4), ranks.count(3), ranks.count(2)
    if flush and _straight(flush):
        return evaluator.STRAIGHT_FLUSH
    if n4:
        return evaluator.FOUR_OF_A_KIND
    if n3 >= 2 or (n3 and n2):
        return evaluator.FULL_HOUSE
    if flush:
        return evaluator.FLUSH
    if _straight(mask):
        return evaluator.STRAIGHT
    if n3:
        return evaluator.THREE_OF_A_KIND
    return evaluator.TWO_PAIR if n2 >= 2 else evaluator.ONE_PAIR if n2 else evaluator.HIGH_CARD


def _rank_set(cards) -> int:
    """The set of ranks among ``cards``: bit r for each rank r present, once however many
    cards share it."""
    mask = 0
    for c in cards:
        mask |= 1 << (c // 4)
    return mask


def _straight_outs(mask: int) -> int:
    """Ranks that would complete a straight not already there."""
    if _straight(mask):
        return 0
    return sum(1 for r in range(13) if not mask >> r & 1 and _straight(mask | 1 << r))


def hand_strength(hole, board, params: Params) -> tuple[int, int]:
    """(hs, outs) of two hole card ids on 3..5 visible board card ids.

    hs: MONSTER a straight or better the board does not make alone; STRONG two pair or trips
    (two pair on a paired board counts as one pair); among one pair (a pair the hole cards
    make): GOOD an overpair or top pair with a kicker of ``params.kicker_rank`` or better,
    MEDIUM a weaker top pair or a pair at least the board's second rank, WEAK any other pair;
    NOTHING. outs (flop and turn only): flush draw 9, open-ended straight draw 8 (two or more
    completing ranks), gutshot 4, a flush draw with a straight draw 15 or 12, two overcards
    with nothing made ``params.overcard_outs``.
    """
    cards = list(hole) + list(board)
    cat_all, cat_board = _category(cards), _category(board)
    made = cat_all if cat_all > cat_board else evaluator.HIGH_CARD
    if cat_board >= evaluator.ONE_PAIR and made == evaluator.TWO_PAIR:
        made = evaluator.ONE_PAIR
    b_ranks = sorted({c // 4 for c in board}, reverse=True)
    h_ranks = [c // 4 for c in hole]
    if made >= evaluator.STRAIGHT:
        hs = MONSTER
    elif made >= evaluator.TWO_PAIR:
        hs = STRONG
    elif made == evaluator.ONE_PAIR:
        counts = [sum(1 for c in cards if c // 4 == r) for r in h_ranks]
        pair = max((r for r, k in zip(h_ranks, counts) if k >= 2), default=-1)
        pocket = h_ranks[0] == h_ranks[1]
        kicker = h_ranks[1] if h_ranks[0] == pair else h_ranks[0]
        if pocket and pair > b_ranks[0]:
            hs = GOOD
        elif pair == b_ranks[0]:
            hs = GOOD if kicker >= params.kicker_rank else MEDIUM
        elif len(b_ranks) > 1 and pair >= b_ranks[1]:
            hs = MEDIUM
        else:
            hs = WEAK
    else:
        hs = NOTHING
    outs = 0
    if len(board) < 5:
        hole_suits = {c % 4 for c in hole}
        fd = cat_all < evaluator.FLUSH and any(
            sum(1 for c in cards if c % 4 == s) == 4 for s in hole_suits)
        mask = _rank_set(cards)
        b_mask = _rank_set(board)
        s_outs = _straight_outs(mask) if cat_all < evaluator.STRAIGHT else 0
        board_outs = _straight_outs(b_mask)
        oesd = s_outs >= 2 and board_outs < 2
        gut = s_outs == 1 and board_outs == 0
        outs = 9 * fd + 8 * oesd + 4 * gut - (2 * oesd + gut) * fd
        if hs == NOTHING and min(h_ranks) > b_ranks[0]:
            outs += params.overcard_outs
    return hs, outs


# ----------------------------------------------------------------------------- the features
def _check_view(view) -> None:
    if not isinstance(view, dict):
        raise ValueError(f"view must be the protocol's act dict, got {type(view).__name__}")
    missing = [k for k in ("seat", "hand", "street", "decision", "button", "bb", "blinds",
                           "stacks", "bets", "in_hand", "folded", "allin", "hole", "board",
                           "pot", "history", "legal") if k not in view]
    if missing:
        raise ValueError(f"view lacks {missing}")


def draw(view: dict, bot_key) -> int:
    """The decision's draw ``u`` in [0, 10000), at (hand, seat, street, decision)."""
    k = draws.coordinate_key(bot_key, view["hand"], view["seat"], view["street"],
                             view["decision"])
    return draws.draw_below(k, 10000)


def features(view: dict) -> dict:
    """The integer quantities the tiers decide on (for tests, docs and debugging)."""
    _check_view(view)
    stacks, bets = view["stacks"], view["bets"]
    n, seat, street = len(stacks), view["seat"], view["street"]
    bb = max(int(view["blinds"][1]), 1)
    live = [view["in_hand"][s] and not view["folded"][s] for s in range(n)]
    others = [s for s in range(n) if s != seat and live[s]]
    reach = [bets[s] + stacks[s] for s in range(n)]
    opp_reach = max((reach[s] for s in others), default=0)
    order = [(s - view["button"] - 1) % n for s in range(n)]  # post-flop acting order
    to_bb = (view["bb"] - seat) % n
    now = [e for e in view["history"] if e[0] == street]
    raisers = [e[1] for e in now if e[2] == 3]
    last = max((i for i, e in enumerate(now) if e[2] == 3), default=-1)
    pre_raisers = [e[1] for e in view["history"] if e[0] == 0 and e[2] == 3]
    acting = [s for s in others if not view["allin"][s]]
    hole = [card_id(c) for c in view["hole"]]
    return dict(
        seat=seat, street=street, bb=bb, dealt=sum(1 for x in view["in_hand"] if x),
        opponents=len(others),
        after=min(sum(1 for s in others if 0 < (s - seat) % n <= to_bb), 5),
        raises=len(raisers),
        callers=sum(1 for e in now[last + 1:] if e[2] == 2),  # limpers when nothing raised
        ip_vs_raiser=bool(raisers) and order[seat] > order[raisers[-1]],
        ip=all(order[s] < order[seat] for s in acting),
        blind=seat in (view["bb"], view.get("sb", -1)),
        is_bb=seat == view["bb"],
        is_sb=seat == view.get("sb", -1) and bets[seat] < bb,
        last_raiser_preflop=bool(pre_raisers) and pre_raisers[-1] == seat,
        reach=reach[seat], stack=stacks[seat], eff=min(reach[seat], opp_reach),
        pot=int(view["pot"]), to_call=int(view["legal"]["call"]), current_bet=max(bets),
        hole=hole, board=[card_id(c) for c in view["board"]],
    )


def _odds(equity: int, pot_after: int, to_call: int) -> bool:
    return equity * pot_after >= 10000 * to_call


# ---------------------------------------------------------------------------------- pre-flop
def _preflop(p: Params, f: dict, u: int) -> tuple[int, int]:
    """(intent, raise-to target) before the flop: rules PF1..PF4."""
    equity, tops = _preflop_table()
    cls = hand_class(*f["hole"])
    top = tops[cls]
    eq = equity[cls][min(max(f["opponents"], 1), 5) - 1]
    pair = f["hole"][0] // 4 == f["hole"][1] // 4
    bb, to_call, cur, reach = f["bb"], f["to_call"], f["current_bet"], f["reach"]
    pot_after = f["pot"] + to_call
    raises, after, eff_bb = f["raises"], f["after"], f["eff"] // bb
    hu = p.hu_bonus if f["dealt"] == 2 else 0
    ip = 0 if f["ip_vs_raiser"] else 1  # index of the (ip, oop) pairs

    if p.short_bb and eff_bb <= p.short_bb:  # PF1: push/fold
        if raises == 0:
            push = p.push_top[after] + hu + (p.very_short_bonus if eff_bb <= p.very_short_bb
                                              else 0)
            return (_RAISE, reach) if top <= push else (_FOLD, 0)
        if top <= p.jam_over_top:
            return _RAISE, reach
        ok = _odds(eq - p.short_call_penalty * raises, pot_after, to_call)
        return (_CALL, 0) if ok else (_FOLD, 0)

    if raises == 0:  # PF2: first in, or limpers only
        open_top = p.open_top[after] + hu
        steal = 1 <= after <= 2 and top <= open_top + p.steal_extra and u < p.steal_u
        if top <= open_top or steal:
            return _RAISE, p.open_size[0] * bb // p.open_size[1] + f["callers"] * bb
        if f["callers"] == 0 and top <= p.open_limp_top:
            return _CALL, 0
        if (f["callers"] >= 1 and top <= p.limp_top) or (f["is_sb"]
                                                        and top <= p.sb_complete_top):
            return _CALL, 0
        return _FOLD, 0

    cost_ok = to_call * p.call_max_share <= reach
    if raises == 1:  # PF3: facing one raise
        three_to = (p.three_bet_mult[ip] + f["callers"]) * cur
        three_to = reach if eff_bb <= p.three_bet_jam_bb else three_to
        if top <= p.three_bet_top:
            return _RAISE, three_to
        light = top <= p.bluff_3bet_top and u < p.bluff_3bet_u
        if light and (f["ip_vs_raiser"] or f["blind"]):
            return _RAISE, three_to
        by_hand = (top <= p.call_top[ip] or (p.call_pairs and pair)) and cost_ok
        set_mine = p.set_mine > 0 and pair and to_call * p.set_mine <= f["eff"]
        penalty = p.bb_odds_penalty if f["is_bb"] else p.call_odds_penalty
        by_odds = (_odds(eq - penalty, pot_after, to_call)
                   and to_call * p.odds_max_share <= reach)
        return (_CALL, 0) if by_hand or set_mine or by_odds else (_FOLD, 0)

    # PF4: facing two raises or more
    if top <= p.four_bet_top:
        return _RAISE, reach if eff_bb <= p.four_bet_jam_bb else 5 * cur // 2
    by_hand = top <= p.call_3bet_top and to_call * p.call_3bet_share <= reach
    by_odds = _odds(eq - p.call_3bet_penalty, pot_after, to_call)
    return (_CALL, 0) if by_hand or by_odds else (_FOLD, 0)


# --------------------------------------------------------------------------------- post-flop
def _postflop(p: Params, f: dict, u: int) -> tuple[int, int]:
    """(intent, raise-to target) on the flop, turn and river: rules PO1..PO3."""
    hs, outs = hand_strength(f["hole"], f["board"], p)
    street, to_call, cur, pot = f["street"], f["to_call"], f["current_bet"], f["pot"]
    pot_after = pot + to_call
    k = 0 if f["ip"] else 1
    if hs >= p.commit_hs and f["stack"] <= pot:  # PO1: pot-committed
        return _RAISE, f["reach"]
    small = cur + p.good_bet[0] * pot // p.good_bet[1]
    if to_call == 0:  # PO2: nothing to call
        if hs >= STRONG:
            return (_RAISE, cur + p.value_bet[0] * pot // p.value_bet[1]) if u < p.value_u[k] \
                else (_CALL, 0)
        if hs == GOOD and u < p.good_u[k] or hs == MEDIUM and u < p.medium_u[k]:
            return _RAISE, small
        if outs >= 8 and u < p.semi_u[k]:
            return _RAISE, small
        cbet = (street == 1 and f["last_raiser_preflop"] and 1 <= f["opponents"] <= 2
                and u < p.cbet_u[f["opponents"] - 1])
        bluff = hs == NOTHING and f["opponents"] == 1 and u < p.bluff_u[k]
        return (_RAISE, small) if cbet or bluff else (_CALL, 0)
    # PO3: facing a bet
    raises = f["raises"]
    raise_to = cur + pot_after
    if hs >= p.raise_hs and raises < p.raise_limit and u < p.raise_u:
        return _RAISE, raise_to
    s = min(street, 3) - 1
    draw_t = outs * p.per_out[s] if s < 2 else 0
    priced = to_call * 10000 <= draw_t * pot_after  # the draw alone pays for a call
    if street == 1 and outs >= 12 and raises == 1 and priced and u < p.draw_raise_u:
        return _RAISE, raise_to
    threshold = max(p.made_price[hs][s], draw_t) - p.raised_penalty * max(raises - 1, 0)
    return (_CALL, 0) if to_call * 10000 <= threshold * pot_after else (_FOLD, 0)


# ----------------------------------------------------------------------------------- decide
def _exact(intent: int, target: int, legal: dict) -> tuple[int, int]:
    """An exact legal action for an intent: a raise is clamped to [min, max] of
    ``legal["raise"]`` and goes all-in when it would leave less than a third of the chips
    (a call when raising is closed); a fold is the table's default (`legal.default_action`:
    a check when checking is free)."""
    r = legal["raise"]
    if intent == _RAISE and r is not None:
        lo, hi = int(r[0]), int(r[1])
        amount = min(max(int(target), lo), hi)
        return RAISE, hi if 3 * amount >= 2 * hi else amount
    if intent == _FOLD:
        return host_legal.default_action(legal)
    return CHECK_CALL, 0


def decide(tier: str, view: dict, bot_key) -> tuple[int, int]:
    """The tier's action for the seat to act in ``view`` (PROTOCOL §5 ``act``): ``(kind,
    amount)`` with kind `FOLD`, `CHECK_CALL` or `RAISE` (amount = raise-to, else 0), always
    legal for ``view["legal"]``. ``bot_key``: two uint32 words (the bot's per-match key).
    Deterministic: a function of the view and the key only."""
    if tier not in PARAMS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {TIERS}")
    f = features(view)
    u = draw(view, bot_key)
    rule = _preflop if f["street"] == 0 else _postflop
    intent, target = rule(PARAMS[tier], f, u)
    return _exact(intent, target, view["legal"])
