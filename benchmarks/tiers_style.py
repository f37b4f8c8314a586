"""The style table of the reference tiers and the JAX baseline, on identical deals.

    python benchmarks/tiers_style.py                  # 1,000 deals x 4 rotations, 6-max
    python benchmarks/tiers_style.py --deals 200 --markdown

Four participants (beginner, intermediate, advanced: `holdemjax.duplicate.tiers`; baseline:
`holdemjax.bots.baseline` through `rotation.host_player`) at six seats. Deal ``d`` (deck
``hand_deck(key, d)``, button ``d % 6``, every stack 100 BB at 10/20, reset every hand) is
played four times; in rotation ``r`` seat ``s`` holds participant ``(s + r) % 4``, so every
participant plays every seat's cards of every deal exactly once, against a mixed field. The
host hand loop is `rotation.play_host_hand` (jitted engine calls, the protocol's views).

Columns, per participant over its seat-hands: VPIP, PFR, 3-bet, WTSD and AF as the HUD defines
them (`holdemjax.series.hud`, the one room for these figures; "-" where there was no chance),
bb/100 with its standard error (by deal: the four rotations share the deal's cards, so deals
are the independent unit).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import jax
import numpy as np

from holdemjax.duplicate import rotation, tiers
from holdemjax.series import hud

PARTICIPANTS = ("beginner", "intermediate", "advanced", "baseline")
SEATS = 6


def make_players(bot_key=(20260, 1130)):
    """Host players by participant name (the tiers and the baseline share one bot key)."""
    players = {t: (lambda t: lambda view, state: tiers.decide(t, view, bot_key))(t)
               for t in tiers.TIERS}
    players["baseline"] = rotation.host_player(rotation.BASELINE, np.asarray(bot_key, np.uint32))
    return players


def tally(counts: dict, record, seat: int) -> dict:
    """``counts`` plus one seat's hand (a `rotation.HandRecord`): its HUD counts
    (`holdemjax.series.hud.count`) and its replaced actions (``faults``)."""
    hand = hud.Hand.of(record.history, record.net, flop=bool(record.saw_flop.any()),
                       showdown=record.showdown)
    faults = counts.get("faults", 0) + sum(1 for s, _ in record.faults if s == seat)
    return {**hud.add(counts, hud.count(hand, seat)), "faults": faults}


def run(deals: int, seed: int = 0, stack: int = 2000, blinds=(10, 20, 0)) -> dict:
    """Play ``deals`` deals x 4 rotations; per participant: counts and per-deal chips."""
    key = jax.random.key(seed)
    players = make_players()
    counts = {p: {} for p in PARTICIPANTS}
    chips = {p: np.zeros(deals, np.int64) for p in PARTICIPANTS}
    for d in range(deals):
        for r in range(len(PARTICIPANTS)):
            who = [PARTICIPANTS[(s + r) % len(PARTICIPANTS)] for s in range(SEATS)]
            record = rotation.play_host_hand([players[w] for w in who], key, d, stack=stack,
                                             blinds=blinds)
            for s, w in enumerate(who):
                counts[w] = tally(counts[w], record, s)
                chips[w][d] += int(record.net[s])
    return {"counts": counts, "chips": chips, "deals": deals, "big_blind": blinds[1]}


def table_rows(result: dict) -> list[dict]:
    """One row per participant: the style figures (percent) and bb/100 with its SE."""
    rows = []
    for p in PARTICIPANTS:
        c, x = result["counts"][p], result["chips"][p]
        hands_per_deal = c["hands"] / result["deals"]
        per_hand = x / hands_per_deal * 100 / result["big_blind"]  # bb/100 of each deal
        f = hud.figures(c)
        rows.append(dict(
            name=p, hands=f["hands"], vpip=f["vpip"], pfr=f["pfr"], three_bet=f["three_bet"],
            wtsd=f["wtsd"], af=f["af"],
            bb_per_100=float(per_hand.mean()),
            se=float(per_hand.std(ddof=1) / math.sqrt(len(per_hand))),
            faults=c["faults"]))
    return rows


def _num(x, fmt: str = "{:.1f}") -> str:
    return "-" if x is None else fmt.format(x)


def markdown(rows: list[dict]) -> str:
    lines = ["| participant | seat-hands | VPIP % | PFR % | 3-bet % | WTSD % | AF | bb/100 |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['hands']:,} | {_num(r['vpip'])} | {_num(r['pfr'])} | "
                     f"{_num(r['three_bet'])} | {_num(r['wtsd'])} | {_num(r['af'], '{:.2f}')} | "
                     f"{r['bb_per_100']:+.1f} ± {r['se']:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true", help="print the docs table only")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    result = run(args.deals, args.seed)
    rows = table_rows(result)
    print(markdown(rows))
    if not args.markdown:
        print(f"\n{args.deals} deals x {len(PARTICIPANTS)} rotations in "
              f"{time.perf_counter() - t0:.0f} s; faults (replaced actions): "
              f"{sum(r['faults'] for r in rows)}")
    return 0 if all(r["faults"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
