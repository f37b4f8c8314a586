"""The constants of the reference tiers: one `Params` per tier, read by the host tiers
(`holdemjax.duplicate.tiers`) and the JAX tiers (`holdemjax.bots.tiers`).
docs/tiers.md, "Constants", explains each one (a test compares them).
"""

from __future__ import annotations

import dataclasses

__all__ = ["Params", "PARAMS", "NOTHING", "WEAK", "MEDIUM", "GOOD", "STRONG", "MONSTER", "OFF"]

# Post-flop hand strength ``hs``: what the hole cards make with the visible board.
NOTHING, WEAK, MEDIUM, GOOD, STRONG, MONSTER = range(6)
OFF = 10000  # a pre-flop pot-odds penalty that switches the rule off


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
        set_mine=0, call_odds_penalty=OFF, bb_odds_penalty=OFF, odds_max_share=1,
        four_bet_top=70, four_bet_jam_bb=1000, call_3bet_top=1500, call_3bet_share=2,
        call_3bet_penalty=OFF,
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
