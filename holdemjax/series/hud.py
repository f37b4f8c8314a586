"""The HUD: how each seat played, counted from the hand records a host keeps (one room for the
statistics of the series results, the viewer, the league leaderboard and the duplicate service's
style table).

A hand is read as `Hand`: its decisions ``(street, seat, code)`` in order (the history codes of
PROTOCOL §5: `protocol.FOLD`, `CHECK`, `CALL`, `RAISE` = bet or raise), the seats dealt in,
whether the board reached the flop, whether the hand ended in a showdown, and each seat's net
chips. `count` gives one seat's counts in one hand, `add` sums them, `figures` turns counts into
percentages. Actions the table made for a seat (a timeout, away, a fault) count like any other:
the HUD describes what happened at the table. Only hands a seat was dealt into count for it.

Definitions (per seat; a percentage is ``None`` where the seat had no chance):

* **VPIP**: % of hands where the seat put chips in pre-flop by choice: a call or a raise (posting
  a blind and the big blind's free check do not count).
* **PFR**: % of hands with a pre-flop raise by the seat.
* **3-bet**: % of the chances taken. A chance is the seat's first pre-flop decision facing
  exactly one raise (the open); taken when it re-raises.
* **c-bet** (continuation bet): % of the chances taken. The pre-flop aggressor (the seat of the
  last pre-flop raise) has a chance at its first flop decision when nobody bet the flop before
  it; taken when it bets there.
* **fold to c-bet**: % of the chances folded. A chance is a seat's first flop decision after a
  c-bet, while the c-bet is the only bet on the flop (nobody raised it yet).
* **WTSD** (went to showdown): % of the hands where the seat saw the flop (did not fold pre-flop
  and the board reached the flop; an all-in run-out counts) that it took to a showdown.
* **W$SD** (won at showdown): % of the seat's showdowns in which it won chips (its net for the
  hand is above zero).
* **AF** (aggression factor): post-flop bets and raises / post-flop calls (``None`` without
  calls).

Pure Python over the records: no JAX, no engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from holdemjax.series import protocol as P

__all__ = ["COUNTS", "FIGURES", "COLUMNS", "Hand", "count", "add", "figures", "series_hand",
           "series_hud"]

PREFLOP, FLOP = 0, 1  # the protocol's streets

#: The counts behind the figures, in the order every HUD document lists them.
COUNTS = ("hands", "vpip_hands", "pfr_hands", "three_bet_chances", "three_bets",
          "cbet_chances", "cbets", "fold_to_cbet_chances", "folds_to_cbet", "saw_flop",
          "showdowns", "won_at_showdown", "postflop_bets", "postflop_calls")
#: The figures: key -> (numerator, denominator) of `COUNTS`; percentages, except ``af``.
FIGURES = {"vpip": ("vpip_hands", "hands"), "pfr": ("pfr_hands", "hands"),
           "three_bet": ("three_bets", "three_bet_chances"), "cbet": ("cbets", "cbet_chances"),
           "fold_to_cbet": ("folds_to_cbet", "fold_to_cbet_chances"),
           "wtsd": ("showdowns", "saw_flop"), "wsd": ("won_at_showdown", "showdowns"),
           "af": ("postflop_bets", "postflop_calls")}
#: The HUD table's columns for pages: (figure, header, the count of chances shown beside it).
COLUMNS = (("vpip", "VPIP", None), ("pfr", "PFR", None), ("three_bet", "3-bet",
           "three_bet_chances"), ("cbet", "c-bet", "cbet_chances"),
           ("fold_to_cbet", "fold to c-bet", "fold_to_cbet_chances"),
           ("wtsd", "WTSD", "saw_flop"), ("wsd", "W$SD", "showdowns"), ("af", "AF", None))


@dataclasses.dataclass(frozen=True)
class Hand:
    """One finished hand as the HUD reads it."""

    actions: tuple  # ((street, seat, code), ...) every decision in order
    dealt: tuple  # by seat: dealt into the hand
    flop: bool  # the board reached the flop (3 or more cards shown)
    showdown: bool  # the hand ended in a showdown
    net: tuple  # by seat: chips after the hand - chips before

    @classmethod
    def of(cls, actions: Iterable[Sequence], net: Sequence[int], *, flop: bool, showdown: bool,
           dealt: Sequence[bool] | None = None) -> Hand:
        """From any record: ``actions`` whose first three items are street, seat, code."""
        net = tuple(int(x) for x in net)
        dealt = (True,) * len(net) if dealt is None else tuple(bool(x) for x in dealt)
        return cls(tuple((int(a[0]), int(a[1]), int(a[2])) for a in actions), dealt,
                   bool(flop), bool(showdown), net)


def _cbet_at(flop: list, aggressor: int | None) -> tuple[bool, int | None]:
    """(the aggressor had a c-bet chance, index of its c-bet in ``flop`` or None)."""
    for i, (_, who, code) in enumerate(flop):
        if who == aggressor:  # its first flop decision, nobody bet before it
            return True, (i if code == P.RAISE else None)
        if code == P.RAISE:  # somebody bet into the aggressor: no c-bet spot this hand
            return False, None
    return False, None  # no pre-flop raise, or the aggressor never acted on the flop


def count(hand: Hand, seat: int) -> dict[str, int]:
    """The counts (`COUNTS`) of ``seat`` in one hand."""
    c = dict.fromkeys(COUNTS, 0)
    if not hand.dealt[seat]:
        return c
    c["hands"] = 1
    pre = [a for a in hand.actions if a[0] == PREFLOP]
    mine = [code for _, who, code in pre if who == seat]
    c["vpip_hands"] = int(any(code in (P.CALL, P.RAISE) for code in mine))
    c["pfr_hands"] = int(P.RAISE in mine)
    raises = 0
    for _, who, code in pre:
        if who == seat and raises == 1:  # the first decision facing exactly one raise
            c["three_bet_chances"], c["three_bets"] = 1, int(code == P.RAISE)
            break
        raises += code == P.RAISE
    raisers = [who for _, who, code in pre if code == P.RAISE]
    flop = [a for a in hand.actions if a[0] == FLOP]
    chance, at = _cbet_at(flop, raisers[-1] if raisers else None)
    if chance and raisers[-1] == seat:
        c["cbet_chances"], c["cbets"] = 1, int(at is not None)
    if at is not None:
        faced = set()
        for _, who, code in flop[at + 1:]:
            if who not in faced:  # a seat's first decision after the c-bet
                faced.add(who)
                if who == seat:
                    c["fold_to_cbet_chances"], c["folds_to_cbet"] = 1, int(code == P.FOLD)
            if code == P.RAISE:  # raised: who acts next faces a raise, not the c-bet
                break
    folded = any(who == seat and code == P.FOLD for _, who, code in hand.actions)
    folded_pre = any(who == seat and code == P.FOLD for _, who, code in pre)
    c["saw_flop"] = int(hand.flop and not folded_pre)
    c["showdowns"] = int(hand.showdown and not folded)
    c["won_at_showdown"] = int(c["showdowns"] == 1 and hand.net[seat] > 0)
    post = [code for street, who, code in hand.actions if street >= FLOP and who == seat]
    c["postflop_bets"] = post.count(P.RAISE)
    c["postflop_calls"] = post.count(P.CALL)
    return c


def add(total: dict[str, int], counts: Mapping[str, int]) -> dict[str, int]:
    """``total`` plus ``counts`` (either may be empty), key by key over `COUNTS`."""
    return {k: int(total.get(k, 0)) + int(counts.get(k, 0)) for k in COUNTS}


def figures(counts: Mapping[str, int]) -> dict:
    """The counts and the figures of `FIGURES`: percentages 0..100 (``af`` a ratio), ``None``
    where the denominator is zero."""
    out = {k: int(counts.get(k, 0)) for k in COUNTS}
    for key, (num, den) in FIGURES.items():
        scale = 1.0 if key == "af" else 100.0
        out[key] = scale * out[num] / out[den] if out[den] else None
    return out


# -------------------------------------------------------------------------- the series' hands
def series_hand(hand: dict) -> Hand | None:
    """A hand of a series replay (docs/series.md, ``tournaments[].hands[]``), or None when it
    was not finished (a tournament ended by an interruption inside the hand)."""
    if "stacks_after" not in hand:
        return None
    kinds = {e["type"] for e in hand["events"]}
    net = [after - before for before, after in zip(hand["stacks"], hand["stacks_after"])]
    return Hand.of(((a["street"], a["seat"], a["code"]) for a in hand["actions"]), net,
                   flop="board" in kinds, showdown="showdown" in kinds,
                   dealt=[h is not None for h in hand["hole"]])


def series_hud(tournaments: Iterable[dict], slots: int) -> list[dict]:
    """Per slot, its `figures` over every finished hand of the replays ``tournaments`` (each
    with ``player_at_seat``: the slot at each seat)."""
    totals: list[dict] = [{} for _ in range(slots)]
    for t in tournaments:
        at = t["player_at_seat"]
        for record in t["hands"]:
            hand = series_hand(record)
            if hand is None:
                continue
            for seat, slot in enumerate(at):
                if hand.dealt[seat]:
                    totals[slot] = add(totals[slot], count(hand, seat))
    return [figures(c) for c in totals]
