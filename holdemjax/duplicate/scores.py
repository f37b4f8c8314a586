"""The leaderboard of a closed match: raw chips, relative chips and matchpoints, each with its
standard error, z against the field and the hands a 2σ verdict needs (docs/duplicate.md).

Notation: ``x[p, h]`` = chips the hero won in hand ``h`` of participant ``p``'s line (final
stack minus starting stack). The field of hand ``h`` is every participant whose line finished
``h``; a match with one participant is compared with the reference line ``ref:intermediate``
(the intermediate tier playing the hero seat on the same deals). A hand is *compared* when its
field has two or more lines, and *divergent* when those lines are not all identical (the same
actions give the same result: the deal and the bots are fixed).

* raw: ``sum_h x[p, h]``, its standard error ``sd(x[p]) / sqrt(n)`` (the win rate's own error),
  and a z against the field as if the cards had not been shared: the gap ``g = mean_h (x[p, h]
  - o[p, h])`` (``o`` = mean of the other field lines on the hand) over the unpaired error
  ``sqrt((var(x[p]) + var(o[p])) / n)``;
* relative: ``r[p, h] = x[p, h] - mean_q x[q, h]`` (the field mean includes ``p``), with the
  paired error ``sd(r[p]) / sqrt(n)``: the same gap with the luck of the cards removed;
* matchpoints: per hand one point for each other line beaten, a half per tie; the error and z
  use ``c[p, h] = points - (field size - 1) / 2`` (0 = as good as the field);
* corrected (when the luck is given, `boardluck.hero_luck`): ``x[p, h] - luck[p, h]``, the raw
  chips with the luck of the cards taken out (AIVAT's chance corrections: the same expectation),
  their total and standard error ``sd / sqrt(n)``.

For a gap ``g`` with per-hand variance ``v`` over ``n`` compared hands (``var`` with ``n - 1``):
``se = sqrt(v / n)``, ``z = g / se``, ``hands_for_2sigma = ceil(4 v / g^2)`` (the hands at which
this gap would be two standard errors). Undefined figures (fewer than two hands, no spread, no
gap) are None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["REFERENCE", "field_of", "line_key", "verdict", "estimate", "head_to_head", "thinking",
           "divergent_hands", "per_hand", "relative_by_hand", "leaderboard"]

REFERENCE = "ref:intermediate"
H2H_NOTE = "head-to-head counts divergent hands only (identical lines tie by construction)"
DIVERGENT_CAVEAT = ("matchpoints over the field's divergent hands (at least two lines differ); "
                    "on such a hand a line identical to yours still ties with you, so this "
                    "ranking compares lines within this field only, not across matches")
THINK_NOTE = ("only the session in which each action was taken counts; time before a pause "
              "does not")


def field_of(lines: Mapping) -> tuple[list, str | None]:
    """(the lines that form the field, the reference name when one stands in for a field)."""
    people = [line for line in lines.values() if not line.reference]
    if len(people) == 1 and REFERENCE in lines:
        return people + [lines[REFERENCE]], REFERENCE
    return people, None


def line_key(record: dict) -> tuple:
    """What makes two lines of one hand the same: the sequence of (street, seat, code, to)."""
    return tuple(tuple(a[:4]) for a in record["actions"])


def _var(values: list) -> float | None:
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    return sum((v - mean) ** 2 for v in values) / (n - 1)


def _finite(x):
    return None if x is None or not math.isfinite(x) else x


def verdict(gap: float | None, var: float | None, n: int) -> dict:
    """``se``, ``z`` and ``hands_for_2sigma`` of a mean gap with per-hand variance ``var``."""
    se = math.sqrt(var / n) if var is not None and n else None
    z = gap / se if se and gap is not None else None
    need = max(2, math.ceil(4 * var / (gap * gap))) if var and gap else None
    return {"se": _finite(se), "z": _finite(z), "hands_for_2sigma": need}


def estimate(values: list) -> dict:
    """`verdict` of the mean of ``values`` against 0, with their own variance."""
    n = len(values)
    return verdict(sum(values) / n if n else None, _var(values), n)


def _chips(total: float, n: int, big_blind: int) -> dict:
    return {"chips": total, "bb": total / big_blind, "per_hand": total / n if n else None,
            "bb_per_100": 100 * total / big_blind / n if n else None}


def head_to_head(a, b) -> dict:
    """Two lines over the hands both finished: divergent hands, wins / losses / ties on them and
    the chips between them (identical hands contribute nothing)."""
    common = sorted(set(a.hands) & set(b.hands))
    div = [h for h in common if line_key(a.hands[h]) != line_key(b.hands[h])]
    xa = {h: a.hands[h]["hero_net"] for h in div}
    xb = {h: b.hands[h]["hero_net"] for h in div}
    wins, losses = sum(xa[h] > xb[h] for h in div), sum(xa[h] < xb[h] for h in div)
    centred = [0.5 if xa[h] > xb[h] else -0.5 if xa[h] < xb[h] else 0.0 for h in div]
    points = wins + 0.5 * (len(div) - wins - losses)
    mp = {"points": points, "max": len(div),
          "percent": 100 * points / len(div) if div else None, **estimate(centred)}
    return {"a": a.name, "b": b.name, "hands_compared": len(common), "divergent_hands": len(div),
            "identical_hands": len(common) - len(div), "a_wins": wins, "b_wins": losses,
            "ties": len(div) - wins - losses, "matchpoints": mp,
            "chips_a_minus_b": sum(xa[h] - xb[h] for h in div), "note": H2H_NOTE}


def thinking(line) -> dict:
    """The hero's thinking time per decision of ``line`` (ms; `THINK_NOTE`)."""
    ms = sorted(x for x in getattr(line, "think_ms", ()) if x is not None)
    n = len(ms)
    return {"decisions": n, "mean_ms": sum(ms) / n if n else None,
            "median_ms": (ms[(n - 1) // 2] + ms[n // 2]) / 2 if n else None,
            "max_ms": ms[-1] if n else None}


def divergent_hands(field: list) -> list[int]:
    """Hands finished by two or more field lines whose lines are not all identical."""
    hands: dict[int, set] = {}
    count: dict[int, int] = {}
    for line in field:
        for h, rec in line.hands.items():
            hands.setdefault(h, set()).add(line_key(rec))
            count[h] = count.get(h, 0) + 1
    return sorted(h for h, keys in hands.items() if count[h] >= 2 and len(keys) > 1)


def per_hand(field: list) -> dict[int, dict[str, float]]:
    """``{hand: {name: x}}`` over the compared hands (two or more field lines)."""
    table: dict[int, dict[str, float]] = {}
    for line in field:
        for h, rec in line.hands.items():
            table.setdefault(h, {})[line.name] = rec["hero_net"]
    return {h: row for h, row in sorted(table.items()) if len(row) >= 2}


def relative_by_hand(field: list) -> dict[int, dict[str, float]]:
    """``{hand: {name: x - field mean}}`` over the compared hands."""
    return {h: {p: x - sum(row.values()) / len(row) for p, x in row.items()}
            for h, row in per_hand(field).items()}


def leaderboard(spec, lines: Mapping, luck: Mapping | None = None) -> dict:
    """The leaderboard document (``holdemjax duplicate leaderboard --json``): ``participants``
    (the ranking: finished lines, best relative score first; the reference line too when it is
    the comparison), each with ``name``, ``kind``, ``status``, ``hands``, ``raw``,
    ``relative`` and ``matchpoints``; ``unfinished``: the rows of lines closed before their
    end, not ranked (most hands first; their hands still count in the field of each hand);
    ``divergent_hands``; ``hands_compared``; ``head_to_head`` for every pair; ``compared_with``.
    ``luck`` (``{line name: {hand: the hero's luck in chips}}``, `boardluck.hero_luck`) gives
    each row ``corrected`` too: its raw chips less its luck, with their standard error.
    """
    field, compared_with = field_of(lines)
    table = per_hand(field)
    rel = relative_by_hand(field)
    divergent = set(divergent_hands(field))
    bb = spec.big_blind
    rows = []
    for line in field:
        mine = [h for h in table if line.name in table[h]]
        x = [table[h][line.name] for h in mine]
        r = [rel[h][line.name] for h in mine]
        points, most, centred = 0.0, 0, []
        for h in mine:
            me = table[h][line.name]
            others = [v for q, v in table[h].items() if q != line.name]
            mp = sum(me > v for v in others) + 0.5 * sum(me == v for v in others)
            points += mp
            most += len(others)
            centred.append(mp - len(others) / 2)
        total = sum(rec["hero_net"] for rec in line.hands.values())
        others = [(sum(table[h].values()) - table[h][line.name]) / (len(table[h]) - 1)
                  for h in mine]
        gap = sum(a - o for a, o in zip(x, others)) / len(mine) if mine else None
        var_x, var_o = _var(x), _var(others)
        unpaired = verdict(gap, None if var_x is None else var_x + var_o, len(mine))
        raw = {**_chips(total, len(line.hands), bb), "se": estimate(x)["se"], "gap": gap,
               "se_gap": unpaired["se"], "z": unpaired["z"],
               "hands_for_2sigma": unpaired["hands_for_2sigma"]}
        relative = {**_chips(sum(r), len(mine), bb), **estimate(r)}
        matchpoints = {"points": points, "max": most,
                       "percent": 100 * points / most if most else None,
                       "per_hand": sum(centred) / len(mine) if mine else None,
                       **estimate(centred)}
        div = [(h, c) for h, c in zip(mine, centred) if h in divergent]
        div_points = sum(c + (len(table[h]) - 1) / 2 for h, c in div)
        div_most = sum(len(table[h]) - 1 for h, _ in div)
        divergent_mp = {"points": div_points, "max": div_most, "hands": len(div),
                        "percent": 100 * div_points / div_most if div_most else None,
                        **estimate([c for _, c in div])}
        p = line.participant
        if luck is not None:
            lk = luck[line.name]
            xc = [rec["hero_net"] - lk[h] for h, rec in line.hands.items()]
            extra = {"corrected": {**_chips(sum(xc), len(xc), bb), **estimate(xc)}}
        else:
            extra = {}
        rows.append({**extra,"name": p.name, "kind": p.kind, "status": p.status,
                     "hands": len(line.hands), "hands_compared": len(mine), "raw": raw,
                     "relative": relative, "matchpoints": matchpoints,
                     "divergent_matchpoints": divergent_mp, "thinking": thinking(line)})
    rows.sort(key=lambda row: (-row["relative"]["chips"], -row["matchpoints"]["points"],
                               row["name"]))
    # only finished lines are ranked: a line closed before its end (status "unfinished") is
    # listed apart, most hands first, its figures over the hands it played
    unfinished = sorted((r for r in rows if r["status"] == "unfinished"),
                        key=lambda row: (-row["hands"], row["name"]))
    rows = [r for r in rows if r["status"] != "unfinished"]
    pairs = [head_to_head(a, b) for i, a in enumerate(field) for b in field[i + 1:]]
    if len(field) == 2:
        h = pairs[0]
        headline = {"kind": "head_to_head", "a": h["a"], "b": h["b"], **h["matchpoints"],
                    "divergent_hands": h["divergent_hands"],
                    "identical_hands": h["identical_hands"], "note": H2H_NOTE}
    else:
        headline = {"kind": "divergent_ranking", "divergent_hands": len(divergent),
                    "identical_hands": len(table) - len(divergent), "note": DIVERGENT_CAVEAT,
                    "ranking": [r["name"] for r in sorted(
                        rows, key=lambda r: -(r["divergent_matchpoints"]["percent"] or 0))]}
    return {"participants": rows, "unfinished": unfinished, "divergent_hands": len(divergent),
            "identical_hands": len(table) - len(divergent), "headline": headline,
            "hands_compared": len(table), "hands": spec.hands, "big_blind": bb,
            "compared_with": compared_with, "field": [line.name for line in field],
            "head_to_head": pairs, "note": H2H_NOTE, "caveat": DIVERGENT_CAVEAT,
            "thinking_note": THINK_NOTE}
