"""The HUD: how each seat played, counted from the hand records a host keeps (one room for the
statistics of the series results, the viewer, the league leaderboard and the duplicate service's
style table).

A hand is read as `Hand`: its decisions ``(street, seat, code)`` in order (the history codes of
PROTOCOL §5: `protocol.FOLD`, `CHECK`, `CALL`, `RAISE` = bet or raise), the seats dealt in,
whether the board reached the flop, whether the hand ended in a showdown, and each seat's net
chips. `counts` gives every seat's counts in one hand (`count` one seat's), `add` sums them,
`figures` turns counts into percentages. Actions the table made for a seat (a timeout, away, a
fault) count like any other: the HUD describes what happened at the table. Only hands a seat was
dealt into count for it.

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

from holdemjax.series import protocol

__all__ = ["COUNTS", "FIGURES", "COLUMNS", "Hand", "counts", "count", "add", "figures",
           "series_hand", "series_hud"]

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


def counts(hand: Hand) -> list[dict[str, int]]:
    """The counts (`COUNTS`) of every seat in one hand, in one pass over its decisions."""
    cs = [dict.fromkeys(COUNTS, 0) for _ in hand.dealt]
    raises = 0  # pre-flop raises so far
    aggressor = None  # the seat of the last pre-flop raise
    faced_one: set[int] = set()  # seats that had their 3-bet chance
    # the flop's c-bet spot: "open" until the aggressor's first decision or a bet before it;
    # "cbet" after a c-bet, until it is raised; then "closed"
    spot = "open"
    faced_cbet: set[int] = set()  # the c-bettor and the seats that faced its c-bet
    folded_pre: set[int] = set()
    folded: set[int] = set()
    for street, who, code in hand.actions:
        c = cs[who]
        if code == protocol.FOLD:
            folded.add(who)
        if street == PREFLOP:
            if code == protocol.FOLD:
                folded_pre.add(who)
            c["vpip_hands"] |= code in (protocol.CALL, protocol.RAISE)
            c["pfr_hands"] |= code == protocol.RAISE
            if raises == 1 and who not in faced_one:  # its first decision facing one raise
                faced_one.add(who)
                c["three_bet_chances"], c["three_bets"] = 1, int(code == protocol.RAISE)
            if code == protocol.RAISE:
                raises += 1
                aggressor = who
            continue
        if street == FLOP:
            if spot == "open" and who == aggressor:  # its first flop decision, nobody bet yet
                c["cbet_chances"], c["cbets"] = 1, int(code == protocol.RAISE)
                spot = "cbet" if code == protocol.RAISE else "closed"
                faced_cbet.add(who)
            elif spot == "cbet" and who not in faced_cbet:  # its first decision after the c-bet
                faced_cbet.add(who)
                c["fold_to_cbet_chances"], c["folds_to_cbet"] = 1, int(code == protocol.FOLD)
                if code == protocol.RAISE:  # raised: who acts next faces a raise, not the c-bet
                    spot = "closed"
            elif code == protocol.RAISE:  # a bet before the aggressor's turn, or a raise over a bet
                spot = "closed"
        c["postflop_bets"] += code == protocol.RAISE
        c["postflop_calls"] += code == protocol.CALL
    for seat, c in enumerate(cs):
        if not hand.dealt[seat]:
            cs[seat] = dict.fromkeys(COUNTS, 0)
            continue
        c["hands"] = 1
        c["vpip_hands"], c["pfr_hands"] = int(c["vpip_hands"]), int(c["pfr_hands"])
        c["saw_flop"] = int(hand.flop and seat not in folded_pre)
        c["showdowns"] = int(hand.showdown and seat not in folded)
        c["won_at_showdown"] = int(c["showdowns"] == 1 and hand.net[seat] > 0)
    return cs


def count(hand: Hand, seat: int) -> dict[str, int]:
    """The counts (`COUNTS`) of ``seat`` in one hand."""
    return counts(hand)[seat]


def add(total: Mapping[str, int], more: Mapping[str, int]) -> dict[str, int]:
    """``total`` plus ``more`` (either may be empty), key by key over `COUNTS`."""
    return {k: int(total.get(k, 0)) + int(more.get(k, 0)) for k in COUNTS}


def figures(tally: Mapping[str, int]) -> dict:
    """The counts and the figures of `FIGURES`: percentages 0..100 (``af`` a ratio), ``None``
    where the denominator is zero."""
    out = {k: int(tally.get(k, 0)) for k in COUNTS}
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
    return Hand(tuple((a["street"], a["seat"], a["code"]) for a in hand["actions"]),
                tuple(h is not None for h in hand["hole"]), "board" in kinds,
                "showdown" in kinds, tuple(net))


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
            for seat, c in enumerate(counts(hand)):
                totals[at[seat]] = add(totals[at[seat]], c)
    return [figures(c) for c in totals]
