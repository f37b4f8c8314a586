"""The SVG of a hold'em table state (holdemjax/render/table.py): in each live seat's box the
label, the hole cards and the stack sit clear of each other and inside the box (issue 51: the
stack was drawn under the hole cards, half hidden)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import jax

import holdemjax
from holdemjax.render.table import render_table

NS = "{http://www.w3.org/2000/svg}"
CARD = ("26", "36")  # a card's rect: width, height


def _band(el) -> tuple[float, float]:
    """Vertical extent of a rect, or of a text drawn with ``dominant-baseline: central``."""
    if el.tag == NS + "rect":
        y = float(el.get("y"))
        return y, y + float(el.get("height"))
    y, size = float(el.get("y")), float(el.get("font-size"))
    return y - size / 2, y + size / 2


def _apart(a, b) -> bool:
    return a[1] <= b[0] or b[1] <= a[0]


def _in_box(el, box, width: float = 0.0) -> bool:
    """``el`` belongs to the seat ``box``: its x within the box, its vertical middle too."""
    left, (top, bottom) = float(box.get("x")), _band(box)
    x = float(el.get("x"))
    return left <= x and x + width <= left + float(box.get("width")) and \
        top <= sum(_band(el)) / 2 <= bottom


def test_each_seat_shows_label_cards_and_stack_apart_inside_its_box():
    env = holdemjax.make("sng-6")
    t = env.tournament(env.init(jax.random.key(0)))
    root = ET.fromstring(render_table(t, title="sng-6"))
    rects, texts = root.findall(NS + "rect"), root.findall(NS + "text")
    boxes = [r for r in rects if r.get("width") == "124"]
    assert len(boxes) == 6
    for box in boxes:
        inside = _band(box)
        cards = [r for r in rects
                 if (r.get("width"), r.get("height")) == CARD and _in_box(r, box, 26)]
        label = [e for e in texts if e.text.startswith("seat ") and _in_box(e, box)]
        stack = [e for e in texts if e.get("fill") == "#ffd54f" and _in_box(e, box)]
        assert len(cards) == 2 and len(label) == 1 and len(stack) == 1, (cards, label, stack)
        card = _band(cards[0])
        for text in (label[0], stack[0]):
            band = _band(text)
            assert _apart(band, card), (text.text, band, card)
            assert inside[0] <= band[0] and band[1] <= inside[1], (text.text, band, inside)
        assert inside[0] <= card[0] and card[1] <= inside[1]
