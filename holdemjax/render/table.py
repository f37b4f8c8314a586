"""SVG of a hold'em table state (the tournament and ring envs)."""

from __future__ import annotations

import math

import numpy as np

from holdemjax.poker.cards import card_text
from holdemjax.render.svg import Svg, unbatched

__all__ = ["render_table"]

_SUIT_COLOURS = {"c": "#1a7f37", "d": "#1f5fbf", "h": "#c62828", "s": "#222222"}


def _card(svg: Svg, x: float, y: float, card: int, hidden: bool = False) -> None:
    svg.rect(x, y, 26, 36, rx=3, fill="#f4f4f4" if not hidden else "#8aa0c8", stroke="#333")
    if not hidden:
        text = card_text(card)
        svg.text(x + 13, y + 18, text, size=13, fill=_SUIT_COLOURS[text[1]], font_weight="bold")


def render_table(tour, *, over=False, title: str = "") -> str:
    """Seats with player ids, stacks, bets, cards and markers; the board, pot, level and hand,
    of an unbatched `holdemjax.poker.tournament.Tournament` (``over``: the game has ended;
    ``title``: the env id shown under the table)."""
    unbatched(tour, "hand")
    t = tour.table
    n = int(t.stacks.shape[0])
    w, h = 760, 520
    cx, cy = w / 2, h / 2 - 10
    svg = Svg(w, h, background="#1e1e1e")
    svg.ellipse(cx, cy, 270, 150, fill="#0b6623", stroke="#5a3a1a", stroke_width=14)
    stacks, bets = np.asarray(t.stacks), np.asarray(t.bets)
    for s in range(n):
        ang = math.pi / 2 + 2 * math.pi * s / n
        x, y = cx + 320 * math.cos(ang), cy + 200 * math.sin(ang)
        alive = bool(tour.alive[s])
        folded = bool(t.folded[s])
        acting = int(t.to_act) == s and not bool(over)
        # The seat's box holds, top to bottom, its label, its hole cards and its stack, each
        # clear of the next (tests/test_render_table.py checks the geometry).
        svg.rect(x - 62, y - 40, 124, 80, rx=8, fill="#333" if alive else "#111",
                 stroke="gold" if acting else "#777", stroke_width=3 if acting else 1)
        label = f"seat {s} · player {int(tour.player_at[s])}"
        svg.text(x, y - 29, label, size=11, fill="white")
        if alive:
            svg.text(x, y + 29, f"{int(stacks[s]):,}", size=12, fill="#ffd54f")
            if bool(t.in_hand[s]):
                for i in range(2):
                    _card(svg, x - 28 + 30 * i, y - 18, int(t.hole[s, i]), hidden=folded)
        else:
            place = int(tour.place[s])
            svg.text(x, y + 4, f"out (place {place})" if place else "out", size=12, fill="#aaa")
        bx, by = cx + 200 * math.cos(ang), cy + 105 * math.sin(ang)
        if bets[s] > 0:
            svg.text(bx, by, f"{int(bets[s]):,}", size=12, fill="white")
        marks = [m for m, seat in (("D", t.button), ("SB", t.sb), ("BB", t.bb)) if int(seat) == s]
        if marks:
            svg.text(x + 75, y - 26, " ".join(marks), size=11, fill="#80cbc4")
    for i in range(int(t.revealed)):
        _card(svg, cx - 72 + 30 * i, cy - 30, int(t.board[i]))
    pot = int(t.contrib.sum() + t.dead)
    svg.text(cx, cy + 28, f"pot {pot:,}", size=14, fill="white")
    svg.text(cx, cy + 48, f"blinds {int(t.small_blind)}/{int(t.big_blind)}"
             + (f" ante {int(t.ante)}" if int(t.ante) else ""), size=12, fill="#ddd")
    status = (f"{title} · hand {int(tour.hand) + 1}"
              + (" · game over" if bool(over) else ""))
    svg.text(cx, h - 16, status, size=13, fill="#ddd")
    return str(svg)
