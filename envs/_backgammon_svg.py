"""The backgammon board as SVG, seen from black's side (black = the player who rolled the
higher opening die; it moves from point index 0 at the top right, round to the left, down and
along the bottom to its home, indices 18..23 at the bottom right; white moves the other way).

Points are labelled with black's point numbers (24 − index, so black's home is 1..6 at the bottom
right, white's 19..24 at the top right). The bars are in the middle (black's checkers on the bar
in the lower half), borne-off checkers in the trays on the right (black's at the bottom). The
roll is drawn at the right of the bar; dice already played are faded.
"""

from __future__ import annotations

import numpy as np

from holdemjax.render.svg import Svg, unbatched

__all__ = ["render_svg"]

_W, _H = 34, 150  # point width, point height
_PAD, _BAR, _TRAY = 20, 34, 46
_R = 14  # checker radius
_BLACK, _WHITE = "#2b2b2b", "#f2efe6"
_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
         5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _column(index: int) -> tuple[int, bool]:
    """(column 0..11 from the left, top row?) of point `index` (black's view)."""
    if index < 12:
        return 11 - index, True
    return index - 12, False


def _x(col: int) -> float:
    return _PAD + col * _W + (_BAR if col >= 6 else 0)


def _stack(svg: Svg, cx: float, y0: float, down: bool, n: int, fill: str, limit: int = 5):
    """`n` checkers stacked from y0 (toward the centre), the count written past `limit`."""
    step = 2 * _R if n <= 5 else (_H - 2 * _R) / (n - 1)
    for k in range(n):
        cy = y0 + (k * step + _R) * (1 if down else -1)
        svg.circle(cx, cy, _R, fill=fill, stroke="#555555", stroke_width=1)
    if n > limit:
        cy = y0 + ((n - 1) * step + _R) * (1 if down else -1)
        svg.text(cx, cy, str(n), size=12, fill=_WHITE if fill == _BLACK else _BLACK)


def _die(svg: Svg, x: float, y: float, face: int, faded: bool) -> None:
    s = 24
    svg.rect(x, y, s, s, rx=4, fill="#fafafa", stroke="#333333", stroke_width=1,
             opacity=0.35 if faded else 1.0)
    for dx, dy in _PIPS[face]:
        svg.circle(x + s / 2 + dx * 6, y + s / 2 + dy * 6, 2.4, fill="#111111",
                   opacity=0.35 if faded else 1.0)


def render_svg(state, board: np.ndarray) -> str:
    """The picture of `state`, its int [28] board given from black's view (black positive)."""
    unbatched(state)
    width = 2 * _PAD + 12 * _W + _BAR + _TRAY
    top, bottom = _PAD + 14, _PAD + 14 + 2 * _H + 40
    height = bottom + 14 + 40
    svg = Svg(width, height)
    svg.rect(_PAD, top, 12 * _W + _BAR, bottom - top, fill="#3d7a4f", stroke="#222222")
    bar_x = _PAD + 6 * _W
    svg.rect(bar_x, top, _BAR, bottom - top, fill="#6b4a2b")
    tray_x = _PAD + 12 * _W + _BAR + 6
    svg.rect(tray_x, top, _TRAY - 10, bottom - top, fill="#6b4a2b")
    for index in range(24):
        col, is_top = _column(index)
        x = _x(col)
        fill = "#c9a36b" if (col + is_top) % 2 else "#8c2d1f"
        tip = top + _H if is_top else bottom - _H
        base = top if is_top else bottom
        svg.polygon([(x, base), (x + _W, base), (x + _W / 2, tip)], fill=fill)
        label_y = top - 8 if is_top else bottom + 10
        svg.text(x + _W / 2, label_y, str(24 - index), size=10)
        n = int(board[index])
        if n:
            _stack(svg, x + _W / 2, base, is_top, abs(n), _BLACK if n > 0 else _WHITE)
    # Bars: black's checkers in the lower half, white's in the upper half.
    middle = (top + bottom) / 2
    if board[24] > 0:
        _stack(svg, bar_x + _BAR / 2, middle + 20, True, int(board[24]), _BLACK, limit=3)
    if board[25] < 0:
        _stack(svg, bar_x + _BAR / 2, middle - 20, False, -int(board[25]), _WHITE, limit=3)
    # Borne-off checkers: counts in the trays (black bottom, white top).
    for n, y, fill in ((int(board[26]), bottom - 30, _BLACK), (-int(board[27]), top + 30, _WHITE)):
        if n:
            svg.circle(tray_x + (_TRAY - 10) / 2, y, _R, fill=fill, stroke="#555555")
            svg.text(tray_x + (_TRAY - 10) / 2, y, str(n), size=12,
                     fill=_WHITE if fill == _BLACK else _BLACK)
    # The roll: four dice for a double; the ones already played are faded.
    dice = [int(d) + 1 for d in np.asarray(state._dice)]
    playable = np.asarray(state._playable)
    faces = dice * 2 if dice[0] == dice[1] else dice
    left = {f: int(playable[f - 1]) for f in set(faces)}
    x = bar_x + _BAR + 6 * _W / 2 - 14 * len(faces)
    for k, face in enumerate(faces):
        # For a double the first (4 − left) dice are the played ones.
        played = (k < len(faces) - left[face]) if len(faces) == 4 else left[face] == 0
        _die(svg, x + 28 * k, middle - 12, face, played and not bool(state.terminated))
    colour = "black" if int(state._turn) == 0 else "white"
    if bool(state.terminated):
        status = f"game over; rewards {np.asarray(state.rewards).tolist()}"
    else:
        status = f"{colour} (player {int(state.current_player)}) to move"
    svg.text(width / 2, height - 20, status, size=13)
    return str(svg)
