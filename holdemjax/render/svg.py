"""A tiny SVG writer shared by every renderer (no dependency beyond the standard library)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

__all__ = ["Svg", "unbatched"]


def unbatched(state, field: str = "current_player") -> None:
    """Raise ValueError when asked to draw a batch of states instead of one."""
    shape = getattr(state, field).shape
    if shape != ():
        raise ValueError(f"render one state at a time; got a batch of shape {shape} "
                         "(select a row with jax.tree.map(lambda x: x[i], state))")


class Svg:
    """Collects SVG elements; `str(svg)` is the document."""

    def __init__(self, width: float, height: float, background: str = "white"):
        self.width, self.height = width, height
        self.parts: list[str] = []
        self.rect(0, 0, width, height, fill=background)

    def _el(self, tag: str, text: str | None = None, **attrs) -> None:
        a = " ".join(f"{k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}"
                     for k, v in attrs.items() if v is not None)
        if text is None:
            self.parts.append(f"<{tag} {a}/>")
        else:
            self.parts.append(f"<{tag} {a}>{escape(text)}</{tag}>")

    def rect(self, x, y, w, h, **attrs) -> None:
        self._el("rect", x=x, y=y, width=w, height=h, **attrs)

    def circle(self, cx, cy, r, **attrs) -> None:
        self._el("circle", cx=cx, cy=cy, r=r, **attrs)

    def ellipse(self, cx, cy, rx, ry, **attrs) -> None:
        self._el("ellipse", cx=cx, cy=cy, rx=rx, ry=ry, **attrs)

    def line(self, x1, y1, x2, y2, **attrs) -> None:
        self._el("line", x1=x1, y1=y1, x2=x2, y2=y2, **attrs)

    def polygon(self, points, **attrs) -> None:
        self._el("polygon", points=" ".join(f"{x:.2f},{y:.2f}" for x, y in points), **attrs)

    def text(self, x, y, s: str, size: float = 14, anchor: str = "middle", **attrs) -> None:
        self._el("text", str(s), x=x, y=y, font_size=size, text_anchor=anchor,
                 font_family="sans-serif", dominant_baseline="central", **attrs)

    def __str__(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}">')
        return head + "".join(self.parts) + "</svg>"
