"""Review two lines of a closed match: where they part, which hands decided, how they differ.

`review(spec, lines, a, b)` returns one document:

* ``divergences``: for every hand where the two lines differ, the first decision where they part
  (always the hero's: the deal and the bots are fixed), the shared history before it and both
  lines from there to the end of the hand, with the hero's cards, the board and both results;
* ``deciding``: for each of the two, the hands furthest from the field (largest ``|x - field
  mean|``), which are not the same as the biggest pots;
* ``only_folder`` / ``only_allin``: hands where exactly one of the two folded / went all-in;
* ``streets``: for each, chips won and lost by the street the hero's hand was decided on (the
  street it folded on, else ``showdown``, else the street where everyone else folded);
* ``head_to_head``: wins, losses and ties on the divergent hands only.
"""

from __future__ import annotations

from collections.abc import Mapping

from holdemjax.duplicate import scores
from holdemjax.duplicate.spec import MatchError
from holdemjax.series import protocol

__all__ = ["STREETS", "action_text", "action_texts", "decided_on", "review"]

STREETS = ("preflop", "flop", "turn", "river", "showdown")
_VERB = {protocol.FOLD: "folds", protocol.CHECK: "checks", protocol.CALL: "calls",
         protocol.RAISE: "raises to"}


def seat_label(spec, seat: int) -> str:
    """``"hero"`` or ``"S3 advanced"``."""
    return "hero" if seat == spec.hero else f"S{seat} {spec.tier_at(seat)}"


def action_text(spec, action, *, opens: bool = False) -> str:
    """One stored action in words: ``"S2 intermediate raises to 60"``, ``"hero calls 40"``;
    ``opens``: the action is the first bet of its street (`action_texts` knows), so a raise
    reads ``"hero bets 80"``."""
    street, seat, code, to, added = (int(x) for x in action[:5])
    verb = "bets" if opens and code == protocol.RAISE else _VERB[code]
    amount = f" {to}" if code == protocol.RAISE else f" {added}" if code == protocol.CALL else ""
    auto = f" ({action[5]})" if len(action) > 5 and action[5] else ""
    return f"{seat_label(spec, seat)} {verb}{amount}{auto}"


def action_texts(spec, actions) -> list[str]:
    """A hand's stored ``actions``, from its first, in words (`action_text`): the first raise
    of a street after the flop is a bet; before the flop the blinds are the bet."""
    out, opened = [], set()
    for a in actions:
        street, code = int(a[0]), int(a[2])
        out.append(action_text(spec, a, opens=code == protocol.RAISE and street > 0
                               and street not in opened))
        if code == protocol.RAISE:
            opened.add(street)
    return out


def _actions(spec, actions, first: int = 0, last: int | None = None) -> list[dict]:
    """``actions[first:last]`` as dicts with their words (worded in the whole hand)."""
    texts = action_texts(spec, actions)
    return [{"street": a[0], "seat": a[1], "code": a[2], "to": a[3], "added": a[4],
             "auto": a[5] if len(a) > 5 else None, "text": text}
            for a, text in list(zip(actions, texts))[first:last]]


def decided_on(record: dict) -> str:
    """The street the hero's hand was decided on (`STREETS`)."""
    if record["hero_folded_on"] is not None:
        return STREETS[record["hero_folded_on"]]
    if record["showdown"]:
        return "showdown"
    return STREETS[record["actions"][-1][0]] if record["actions"] else "preflop"


def _streets(line) -> dict:
    out = {s: {"won": 0, "lost": 0, "net": 0, "hands": 0} for s in STREETS}
    for rec in line.hands.values():
        cell = out[decided_on(rec)]
        x = rec["hero_net"]
        cell["hands"] += 1
        cell["net"] += x
        cell["won" if x > 0 else "lost"] += abs(x)
    return out


def _divergence(spec, h: int, ra: dict, rb: dict) -> dict:
    aa, ab = ra["actions"], rb["actions"]
    at = next(i for i in range(max(len(aa), len(ab)))
              if i >= len(aa) or i >= len(ab) or aa[i][:4] != ab[i][:4])
    street = (aa[at] if at < len(aa) else ab[at])[0]
    return {"hand": h, "at": at, "street": STREETS[street], "button": ra["button"],
            "hole": ra["hole"][spec.hero], "board": ra["board"],
            "shared": _actions(spec, aa, 0, at), "a_line": _actions(spec, aa, at),
            "b_line": _actions(spec, ab, at), "a_net": ra["hero_net"], "b_net": rb["hero_net"],
            "a_showdown": ra["showdown"], "b_showdown": rb["showdown"],
            "a_revealed": ra["revealed"], "b_revealed": rb["revealed"]}


def review(spec, lines: Mapping, a: str, b: str, *, top: int = 5) -> dict:
    """The review of lines ``a`` and ``b`` (names of participants or reference lines)."""
    for name in (a, b):
        if name not in lines:
            raise MatchError(f"no line {name!r} in this match; lines: {', '.join(lines)}")
    if a == b:
        raise MatchError(f"review needs two different lines, got {a!r} twice")
    la, lb = lines[a], lines[b]
    common = sorted(set(la.hands) & set(lb.hands))
    divergences = [_divergence(spec, h, la.hands[h], lb.hands[h]) for h in common
                   if scores.line_key(la.hands[h]) != scores.line_key(lb.hands[h])]
    field, _ = scores.field_of(lines)
    names = {line.name for line in field}
    field = field + [line for line in (la, lb) if line.name not in names]
    rel = scores.relative_by_hand(field)
    deciding = {}
    for name in (a, b):
        mine = [(h, row[name]) for h, row in rel.items() if name in row]
        mine.sort(key=lambda item: (-abs(item[1]), item[0]))
        deciding[name] = [{"hand": h, "relative": r, "net": lines[name].hands[h]["hero_net"],
                           "decided_on": decided_on(lines[name].hands[h])}
                          for h, r in mine[:top]]
    only_folder, only_allin = [], []
    for h in common:
        ra, rb = la.hands[h], lb.hands[h]
        if (ra["hero_folded_on"] is None) != (rb["hero_folded_on"] is None):
            who, rec = (a, ra) if ra["hero_folded_on"] is not None else (b, rb)
            only_folder.append({"hand": h, "who": who, "street": STREETS[rec["hero_folded_on"]],
                                "a_net": ra["hero_net"], "b_net": rb["hero_net"]})
        if ra["hero_allin"] != rb["hero_allin"]:
            only_allin.append({"hand": h, "who": a if ra["hero_allin"] else b,
                               "a_net": ra["hero_net"], "b_net": rb["hero_net"]})
    return {"a": a, "b": b, "hands_compared": len(common), "divergent_hands": len(divergences),
            "head_to_head": scores.head_to_head(la, lb), "divergences": divergences,
            "deciding": deciding, "only_folder": only_folder, "only_allin": only_allin,
            "streets": {a: _streets(la), b: _streets(lb)}}
