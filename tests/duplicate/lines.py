"""Hand-made lines for the scoring, review and style tests (no engine: the numbers are chosen
so that every expected figure can be worked out on paper)."""

from __future__ import annotations

from holdemjax.duplicate.match import MatchSpec
from holdemjax.duplicate.store import Line, Participant

SPEC = MatchSpec(seats=6, hands=4, big_blind=20)


def record(hand: int, net: int, actions=None, *, folded_on=None, allin=False, showdown=False,
           revealed=0) -> dict:
    """A stored hand of the hero (seat 0). Without ``actions`` the line is a single hero action
    whose amount encodes ``net``, so different nets mean different lines."""
    if actions is None:
        actions = [[0, 0, 3, 1000 + net, 1000 + net, None]]
    return {"hand": hand, "button": hand % 6, "hole": [["As", "Kd"]] * 6,
            "board": ["2c", "3d", "4h", "5s", "7c"], "actions": actions, "net": [net] * 6,
            "hero_net": net, "showdown": showdown, "revealed": revealed,
            "hero_folded_on": folded_on, "hero_allin": allin}


def line(name: str, records, kind: str = "bot", status: str = "finished") -> Line:
    return Line(Participant(name, kind, name, "", status, "2026-01-01T00:00:00+00:00", None),
                {r["hand"]: r for r in records})


def from_nets(name: str, nets, kind: str = "bot", same=()) -> Line:
    """A line with ``nets[h]`` per hand; hands in ``same`` get one shared action sequence."""
    return line(name, [record(h, x, [[0, 0, 2, 20, 20, None]] if h in same else None)
                       for h, x in enumerate(nets)], kind)
