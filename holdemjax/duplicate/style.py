"""The style table of a closed match: how each line played the hero seat on the identical deals.

Per line (participants, then the reference tiers' lines, so a bot's missing range shows), the
hero seat's HUD over the line's hands (`holdemjax.series.hud`, where every figure is defined:
VPIP, PFR, 3-bet, c-bet, fold to c-bet, WTSD, W$SD, AF, with the counts behind them). The
table's columns (`COLUMNS`) are the HUD's own (`hud.COLUMNS`), in its order.
"""

from __future__ import annotations

from collections.abc import Mapping

from holdemjax.series import hud

__all__ = ["COLUMNS", "line_style", "style_table", "record_hand"]

COLUMNS = tuple(key for key, _, _ in hud.COLUMNS)


def record_hand(rec: dict) -> hud.Hand:
    """A stored hand of a line as the HUD reads it (every seat is dealt in: stacks reset every
    hand)."""
    return hud.Hand.of(rec["actions"], rec["net"], flop=rec["revealed"] >= 3,
                       showdown=rec["showdown"])


def line_style(line, hero: int) -> dict:
    """The style figures of one line (percentages 0..100, with the counts behind them)."""
    total: dict = {}
    for rec in line.hands.values():
        total = hud.add(total, hud.count(record_hand(rec), hero))
    p = line.participant
    return {"name": p.name, "kind": p.kind, **hud.figures(total)}


def style_table(spec, lines: Mapping) -> dict:
    """``{"columns": COLUMNS, "rows": [...]}``: participants in joining order, then references."""
    ordered = ([line for line in lines.values() if not line.reference]
               + [line for line in lines.values() if line.reference])
    return {"columns": list(COLUMNS), "rows": [line_style(line, spec.hero) for line in ordered]}
