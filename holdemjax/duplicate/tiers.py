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

import dataclasses
import functools

from holdemjax.bots.baseline import load_preflop
from holdemjax.duplicate import draws
from holdemjax.poker import evaluator as ev
from holdemjax.poker.cards import card_id
from holdemjax.poker.table import CHECK_CALL, FOLD, RAISE

__all__ = ["TIERS", "Params", "PARAMS", "decide", "draw", "features", "hand_strength",
           "NOTHING", "WEAK", "MEDIUM", "GOOD", "STRONG", "MONSTER"]

TIERS = ("beginner", "intermediate", "advanced")

# Post-flop hand strength ``hs``: what the hole cards make with the visible board.
NOTHING, WEAK, MEDIUM, GOOD, STRONG, MONSTER = range(6)
# Intents before they become an exact action.
_FOLD, _CALL, _RAISE = 0, 1, 2
_OFF = 10000  # a pre-flop pot-odds penalty that switches the rule off


@dataclasses.dataclass(frozen=True)
class Params:
    """One tier's constants (docs/tiers.md, "Constants", explains each one). Basis points
    (bp) of 10,000; ``u`` thresholds act when the decision's draw is below them; ``(ip, oop)``
    pairs are in position / out of position; per-``after`` lists are indexed by the live seats
    still to act up to the big blind (0 = the big blind itself, 1 = small blind, 2 = button,
    3 = cutoff, 4 = hijack, 5 = earlier)."""

    # ---- pre-flop, nothing raised (PF2)
    open_top: tuple  # raise first in / isolate limpers: top <= this, by after
    hu_bonus: int  # added to open_top and push_top when two players are dealt in
    steal_extra: int  # after 1 or 2: also raise with top <= open_top + this when u < steal_u
    steal_u: int
    open_limp_top: int  # first in, not raising: limp with top <= this
    limp_top: int  # behind limpers: call with top <= this
    sb_complete_top: int  # the small blind completes an unraised pot
    open_size: tuple  # (num, den): open to num/den big blinds, plus one per limper
    # ---- facing one raise (PF3)
    three_bet_top: int  # re-raise for value
    bluff_3bet_top: int  # ... and with three_bet_top < top <= this when u < bluff_3bet_u,
    bluff_3bet_u: int  # ... in position or from the blinds
    three_bet_mult: tuple  # (ip, oop): to this many times the bet, plus one bet per caller
    three_bet_jam_bb: int  # ... all-in instead at this effective stack (BB) or less
    call_top: tuple  # (ip, oop) call with top <= this ...
    call_max_share: int  # ... when the call costs at most 1/this of the seat's chips
    call_pairs: bool  # any pocket pair calls (same cost limit)
    set_mine: int  # a pocket pair calls when to_call * this <= the effective stack (0: off)
    call_odds_penalty: int  # call if (eq - this) * (pot + call) >= 10000 * call ...
    bb_odds_penalty: int  # ... the big blind's penalty ...
    odds_max_share: int  # ... and the call costs at most 1/this of the seat's chips
    # ---- facing two raises or more (PF4)
    four_bet_top: int  # re-raise to 5/2 x (all-in at four_bet_jam_bb or less)
    four_bet_jam_bb: int
    call_3bet_top: int  # call when the call costs at most 1/call_3bet_share of the chips
    call_3bet_share: int
    call_3bet_penalty: int  # or by pot odds with this equity penalty
    # ---- short stacks: push/fold at short_bb or less (PF1; 0: the tier never switches)
    short_bb: int
    push_top: tuple  # first in: all-in with top <= this, by after
    very_short_bb: int  # at this effective stack or less push_top widens by very_short_bonus
    very_short_bonus: int
    jam_over_top: int  # facing a raise: all-in
    short_call_penalty: int  # facing a raise: call by pot odds, penalty per raise
    # ---- post-flop (PO1..PO3)
    commit_hs: int  # hs >= this and chips behind <= the pot: all-in
    value_bet: tuple  # (num, den) of the pot: hs >= STRONG bets this ...
    value_u: tuple  # ... when u < this (ip, oop); otherwise it checks (slow-play)
    good_bet: tuple  # (num, den): GOOD and MEDIUM hands, semi-bluffs, c-bets and bluffs
    good_u: tuple  # GOOD bets when u < this (ip, oop)
    medium_u: tuple  # MEDIUM bets when u < this (ip, oop)
    semi_u: tuple  # a draw of 8+ outs bets when u < this (ip, oop), flop and turn
    cbet_u: tuple  # flop, we made the last pre-flop raise: bet when u < this (1, 2 opponents)
    bluff_u: tuple  # heads-up, nothing: bet when u < this (ip, oop)
    raise_hs: int  # facing a bet: hs >= this raises to the pot ...
    raise_u: int  # ... when u < this, while the street has fewer than raise_limit bets/raises
    raise_limit: int
    draw_raise_u: int  # flop, 12+ outs, facing one bet: semi-bluff raise when u < this
    made_price: tuple  # call threshold (bp) by hs (NOTHING..MONSTER) x (flop, turn, river)
    per_out: tuple  # draw threshold (bp) per out on the (flop, turn); draws end at the river
    overcard_outs: int  # outs counted for two overcards with nothing made (flop, turn)
    raised_penalty: int  # threshold drop per bet/raise of the street beyond the first
    kicker_rank: int  # top pair is GOOD with a kicker of at least this rank (0 = 2 .. 12 = A)


PARAMS: dict[str, Params] = {
    "beginner": Params(
        open_top=(800,) * 6, hu_bonus=0, steal_extra=0, steal_u=0,
        open_limp_top=5000, limp_top=6000, sb_complete_top=8000, open_size=(3, 1),
        three_bet_top=120, bluff_3bet_top=0, bluff_3bet_u=0, three_bet_mult=(3, 3),
        three_bet_jam_bb=0, call_top=(6000, 6000), call_max_share=3, call_pairs=True,
        set_mine=0, call_odds_penalty=_OFF, bb_odds_penalty=_OFF, odds_max_share=1,
        four_bet_top=70, four_bet_jam_bb=1000, call_3bet_top=1500, call_3bet_share=2,
        call_3bet_penalty=_OFF,
        short_bb=0, push_top=(0,) * 6, very_short_bb=0, very_short_bonus=0, jam_over_top=0,
        short_call_penalty=0,
        commit_hs=STRONG, value_bet=(1, 2), value_u=(6000, 6000), good_bet=(1, 2),
        good_u=(3000, 3000), medium_u=(0, 0), semi_u=(0, 0), cbet_u=(2000, 0),
        bluff_u=(0, 0), raise_hs=MONSTER, raise_u=5000, raise_limit=2, draw_raise_u=0,
        made_price=((0, 0, 0), (4500, 4500, 4000), (4500, 4500, 4500), (5000, 5000, 5000),
                    (10000, 10000, 10000), (10000, 10000, 10000)),
        per_out=(500, 500), overcard_outs=6, raised_penalty=500, kicker_rank=12),
    "intermediate": Params(
        open_top=(1500, 4000, 4000, 2700, 2000, 1500), hu_bonus=2500, steal_extra=1500,
        steal_u=3000, open_limp_top=0, limp_top=2500, sb_complete_top=5000, open_size=(3, 1),
        three_bet_top=350, bluff_3bet_top=0, bluff_3bet_u=0, three_bet_mult=(3, 3),
        three_bet_jam_bb=25, call_top=(1300, 1300), call_max_share=1, call_pairs=False,
        set_mine=0, call_odds_penalty=1500, bb_odds_penalty=1500, odds_max_share=5,
        four_bet_top=150, four_bet_jam_bb=40, call_3bet_top=400, call_3bet_share=3,
        call_3bet_penalty=2500,
        short_bb=12, push_top=(2500, 5500, 4500, 3500, 2800, 2200), very_short_bb=6,
        very_short_bonus=1500, jam_over_top=1200, short_call_penalty=800,
        commit_hs=GOOD, value_bet=(3, 4), value_u=(10000, 10000), good_bet=(1, 2),
        good_u=(10000, 10000), medium_u=(5000, 5000), semi_u=(4000, 4000),
        cbet_u=(6000, 6000), bluff_u=(1500, 1500), raise_hs=STRONG, raise_u=10000,
        raise_limit=3, draw_raise_u=0,
        made_price=((0, 0, 0), (2600, 2200, 1800), (3500, 3200, 2800), (4500, 4500, 4500),
                    (10000, 10000, 10000), (10000, 10000, 10000)),
        per_out=(390, 215), overcard_outs=0, raised_penalty=1500, kicker_rank=8),
    "advanced": Params(
        open_top=(2000, 3600, 4200, 2600, 1800, 1400), hu_bonus=2500, steal_extra=1200,
        steal_u=3500, open_limp_top=0, limp_top=0, sb_complete_top=0, open_size=(5, 2),
        three_bet_top=500, bluff_3bet_top=1800, bluff_3bet_u=1500, three_bet_mult=(3, 4),
        three_bet_jam_bb=25, call_top=(1200, 700), call_max_share=5, call_pairs=False,
        set_mine=15, call_odds_penalty=2500, bb_odds_penalty=2000, odds_max_share=5,
        four_bet_top=110, four_bet_jam_bb=40, call_3bet_top=350, call_3bet_share=3,
        call_3bet_penalty=2000,
        short_bb=12, push_top=(2500, 6000, 5000, 3500, 2700, 2000), very_short_bb=6,
        very_short_bonus=1500, jam_over_top=1000, short_call_penalty=800,
        commit_hs=GOOD, value_bet=(2, 3), value_u=(10000, 8000), good_bet=(1, 2),
        good_u=(10000, 8000), medium_u=(5000, 0), semi_u=(6000, 4000), cbet_u=(7000, 3500),
        bluff_u=(2500, 0), raise_hs=STRONG, raise_u=10000, raise_limit=3, draw_raise_u=4000,
        made_price=((0, 0, 0), (2800, 2200, 1500), (4000, 3400, 2800), (5500, 5000, 4500),
                    (10000, 10000, 10000), (10000, 10000, 10000)),
        per_out=(300, 217), overcard_outs=3, raised_penalty=1500, kicker_rank=8),
}


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
    mask = sum(1 << r for r in range(13) if ranks[r])
    flush = 0
    for s in range(4):
        if suits[s] >= 5:
            flush = suit_masks[s]
    n4, n3, n2 = ranks.count(4), ranks.count(3), ranks.count(2)
    if flush and _straight(flush):
        return ev.STRAIGHT_FLUSH
    if n4:
        return ev.FOUR_OF_A_KIND
    if n3 >= 2 or (n3 and n2):
        return ev.FULL_HOUSE
    if flush:
        return ev.FLUSH
    if _straight(mask):
        return ev.STRAIGHT
    if n3:
        return ev.THREE_OF_A_KIND
    return ev.TWO_PAIR if n2 >= 2 else ev.ONE_PAIR if n2 else ev.HIGH_CARD


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
    made = cat_all if cat_all > cat_board else ev.HIGH_CARD
    if cat_board >= ev.ONE_PAIR and made == ev.TWO_PAIR:
        made = ev.ONE_PAIR
    b_ranks = sorted({c // 4 for c in board}, reverse=True)
    h_ranks = [c // 4 for c in hole]
    if made >= ev.STRAIGHT:
        hs = MONSTER
    elif made >= ev.TWO_PAIR:
        hs = STRONG
    elif made == ev.ONE_PAIR:
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
        fd = cat_all < ev.FLUSH and any(
            sum(1 for c in cards if c % 4 == s) == 4 for s in hole_suits)
        mask = sum(1 << (c // 4) for c in cards)
        b_mask = sum(1 << (c // 4) for c in board)
        s_outs = _straight_outs(mask) if cat_all < ev.STRAIGHT else 0
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
    (a call when raising is closed); a fold is a check when checking is free."""
    r = legal["raise"]
    if intent == _RAISE and r is not None:
        lo, hi = int(r[0]), int(r[1])
        amount = min(max(int(target), lo), hi)
        return RAISE, hi if 3 * amount >= 2 * hi else amount
    if intent == _FOLD and not legal["check"]:
        return FOLD, 0
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
