"""The style table of a closed match: how each line played the hero seat on the identical deals.

Per line (participants, then the reference tiers' lines, so a bot's missing range shows):

* VPIP: % of hands where the hero put chips in pre-flop by choice (a call or a raise; the big
  blind's free check does not count);
* PFR: % of hands with a pre-flop raise by the hero;
* 3-bet: % of the chances taken: a chance is a pre-flop decision facing exactly one raise (the
  open), taken when the hero re-raises;
* WTSD (went to showdown): % of the hands where the hero saw the flop that it took to showdown;
* AF (aggression factor): post-flop bets and raises / post-flop calls (None without calls).
"""

from __future__ import annotations

from collections.abc import Mapping

from holdemjax.series import protocol as P

__all__ = ["COLUMNS", "line_style", "style_table"]

COLUMNS = ("vpip", "pfr", "three_bet", "wtsd", "af")


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def line_style(line, hero: int) -> dict:
    """The style figures of one line (percentages 0..100, with the counts behind them)."""
    n = vpip = pfr = chances = three_bets = saw_flop = showdowns = aggressive = calls = 0
    for rec in line.hands.values():
        n += 1
        pre = [a for a in rec["actions"] if a[0] == 0]
        mine = [a for a in pre if a[1] == hero]
        vpip += any(a[2] in (P.CALL, P.RAISE) for a in mine)
        pfr += any(a[2] == P.RAISE for a in mine)
        raises, chance, taken = 0, False, False
        for a in pre:
            if a[1] == hero and raises == 1 and not chance:
                chance, taken = True, a[2] == P.RAISE
            raises += a[2] == P.RAISE
        chances += chance
        three_bets += taken
        folded_on = rec["hero_folded_on"]
        flop = (folded_on is None or folded_on >= 1) and rec["revealed"] >= 3
        saw_flop += flop
        showdowns += flop and folded_on is None and rec["showdown"]
        post = [a for a in rec["actions"] if a[0] >= 1 and a[1] == hero]
        aggressive += sum(a[2] == P.RAISE for a in post)
        calls += sum(a[2] == P.CALL for a in post)
    p = line.participant
    return {"name": p.name, "kind": p.kind, "hands": n, "vpip": _pct(vpip, n),
            "pfr": _pct(pfr, n), "three_bet": _pct(three_bets, chances),
            "three_bet_chances": chances, "wtsd": _pct(showdowns, saw_flop),
            "saw_flop": saw_flop, "af": aggressive / calls if calls else None,
            "postflop_bets": aggressive, "postflop_calls": calls}


def style_table(spec, lines: Mapping) -> dict:
    """``{"columns": COLUMNS, "rows": [...]}``: participants in joining order, then references."""
    ordered = ([line for line in lines.values() if not line.reference]
               + [line for line in lines.values() if line.reference])
    return {"columns": list(COLUMNS), "rows": [line_style(line, spec.hero) for line in ordered]}
