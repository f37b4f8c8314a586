"""Go game records (SGF) and pictures (SVG); host-side helpers of `holdemjax.envs.go`.

SGF (FF[4]): `SZ` board size, `KM` komi, `RU[Tromp-Taylor]`, `PB`/`PW` the player ids of black
and white (`player 0` / `player 1`), `RE` the result: `B+3.5` / `W+0.5` by area score, `B+F` /
`W+F` when the loser forfeited (a positional-superko repeat or an illegal move), absent while the
game goes on. Moves are `B[xy]` / `W[xy]` with `x` the column and `y` the row, `a` = 0 (row 0 is
the top row, as in the observation), and `B[]` / `W[]` for a pass. The last node's comment says
how the game ended and draws the final board (`X` black, `O` white, `.` empty).
"""

from __future__ import annotations

import dataclasses
import re

import jax
import numpy as np

from holdemjax.envs._go_board import KOMI, zobrist
from holdemjax.render.svg import Svg, unbatched

__all__ = ["GoRecord", "to_sgf", "from_sgf", "area_scores", "render_svg"]

_LETTERS = "abcdefghijklmnopqrs"
ENDINGS = ("superko", "two passes", "step cap", "illegal move")


@dataclasses.dataclass(frozen=True)
class GoRecord:
    """A parsed SGF game: `moves` are action ids (`size²` = pass), black moves first."""

    size: int
    komi: float
    moves: tuple[int, ...]
    black_player: int  # player id of black
    result: str | None  # the RE property, e.g. "B+3.5", "W+F"
    comment: str  # the last node's comment ("" when none)

    @property
    def final_board(self) -> list[str] | None:
        """The final board drawn in the last comment (rows of X/O/.), if any."""
        rows = [line for line in self.comment.splitlines()
                if len(line) == self.size and set(line) <= set("XO.")]
        return rows if len(rows) == self.size else None


def _rows(states) -> list:
    """Unbatched states from a list/tuple of states or one state stacked on a time axis."""
    if isinstance(states, (list, tuple)):
        return [jax.device_get(s) for s in states]
    states = jax.device_get(states)
    count = np.asarray(states.current_player).shape[0]
    return [jax.tree.map(lambda x, i=i: x[i], states) for i in range(count)]


def _board(state) -> np.ndarray:
    lab = np.asarray(state._lab)
    n = int(round(lab.shape[-1] ** 0.5))
    return np.sign(lab).astype(np.int64).reshape(n, n)


def area_scores(board) -> tuple[int, int]:
    """(black, white) Tromp-Taylor area scores of an [N, N] board (+1 black, −1 white, 0 empty):
    stones plus the empty points that reach no stone of the other colour through empty points."""
    board = np.asarray(board)
    scores = []
    for me in (1, -1):
        reach = board == -me
        while True:
            grown = reach.copy()
            grown[1:] |= reach[:-1]
            grown[:-1] |= reach[1:]
            grown[:, 1:] |= reach[:, :-1]
            grown[:, :-1] |= reach[:, 1:]
            grown &= (board == 0) | reach
            if (grown == reach).all():
                break
            reach = grown
        scores.append(int((board == me).sum() + ((board == 0) & ~reach).sum()))
    return scores[0], scores[1]


def _move(before, after, n: int) -> int:
    """The action that led from `before` to `after` (one step of a game)."""
    if int(after._passes) > 0:
        return n * n
    color = int(before._step_count) % 2
    sign = 1 - 2 * color
    a, b = _board(before).reshape(-1), _board(after).reshape(-1)
    new = np.flatnonzero((b == sign) & (a != sign))
    if new.size == 1:
        return int(new[0])
    # A stone put on the mover's own stone (an illegal move) changes no point: the hash
    # still records the point (the new stone's key is xor-ed in).
    diff = np.asarray(before._hash) ^ np.asarray(after._hash)
    hits = np.flatnonzero((zobrist(n)[color] == diff).all(axis=1))
    if hits.size != 1:
        raise ValueError(f"cannot tell the move of step {int(after._step_count)}")
    return int(hits[0])


def _ending(states, moves, n: int) -> str:
    last, prev = states[-1], states[-2]
    if not bool(np.asarray(prev.legal_action_mask)[moves[-1]]):
        return "illegal move"
    if moves[-1] != n * n:
        final = np.asarray(last._hash)
        if any((np.asarray(s._hash) == final).all() for s in states[1:-1]):
            return "superko"
    if int(last._passes) >= 2:
        return "two passes"
    return "step cap"


def _point(action: int, n: int) -> str:
    return "" if action == n * n else _LETTERS[action % n] + _LETTERS[action // n]


def to_sgf(states, *, komi: float | None = None) -> str:
    """The SGF record of one game given as its states from `init` on (a list of unbatched
    states, or one state stacked on a leading time axis, as `lax.scan` returns them).

    The moves are read off consecutive states; `komi` (default 7.5) is only written down."""
    states = _rows(states)
    if not states:
        raise ValueError("to_sgf needs at least the initial state")
    n = int(round(np.asarray(states[0]._lab).shape[-1] ** 0.5))
    komi = KOMI if komi is None else float(komi)
    black = int(states[0]._black)
    moves = [_move(a, b, n) for a, b in zip(states, states[1:])]
    props = [f"FF[4]GM[1]CA[UTF-8]AP[holdemjax]SZ[{n}]KM[{komi:g}]RU[Tromp-Taylor]",
             f"PB[player {black}]PW[player {1 - black}]"]
    comment = ""
    last = states[-1]
    if bool(last.terminated) and moves:
        why = _ending(states, moves, n)
        rewards = np.asarray(last.rewards)
        winner = "B" if rewards[black] > 0 else "W"
        if why in ("superko", "illegal move"):
            props.append(f"RE[{winner}+F]")
        else:
            b, w = area_scores(_board(last))
            props.append(f"RE[{winner}+{abs(b - komi - w):g}]")
        rows = ["".join(".XO"[v] for v in row) for row in _board(last)]
        comment = f"ended: {why}\n" + "\n".join(rows)
    nodes = []
    for t, a in enumerate(moves):
        node = f";{'BW'[t % 2]}[{_point(a, n)}]"
        if t == len(moves) - 1 and comment:
            node += f"C[{comment}]"
        nodes.append(node)
    return "(;" + "".join(props) + "\n" + "\n".join(nodes) + ")\n"


def _parse_nodes(text: str) -> list[dict[str, list[str]]]:
    """The nodes of a one-variation SGF tree: property name -> values (escapes undone)."""
    body = text.strip()
    if not body.startswith("(") or not body.endswith(")"):
        raise ValueError("not an SGF game tree")
    nodes: list[dict[str, list[str]]] = []
    name, i = "", 1
    while i < len(body) - 1:
        ch = body[i]
        if ch == "[":
            value, i = [], i + 1
            while body[i] != "]":
                if body[i] == "\\":
                    i += 1
                value.append(body[i])
                i += 1
            if not nodes or not name:
                raise ValueError("SGF value outside a property")
            nodes[-1].setdefault(name, []).append("".join(value))
        elif ch == ";":
            nodes.append({})
            name = ""
        elif ch.isalpha() and ch.isupper():
            if i == 0 or not body[i - 1].isupper():
                name = ""
            name += ch
        elif ch in "()":
            raise ValueError("SGF variations are not supported")
        elif not ch.isspace():
            raise ValueError(f"unexpected {ch!r} in SGF")
        i += 1
    if not nodes:
        raise ValueError("empty SGF game tree")
    return nodes


def from_sgf(text: str) -> GoRecord:
    """Parse the main line of an SGF go record (the format `to_sgf` writes; setup stones,
    handicap and variations are refused)."""
    root, *nodes = _parse_nodes(text)
    if any(k in root for k in ("AB", "AW", "AE")) or root.get("HA", ["0"])[0] not in ("0", ""):
        raise ValueError("SGF setup stones and handicap are not supported")
    if root.get("GM", ["1"])[0] != "1":
        raise ValueError("not a go record (GM is not 1)")
    size = int(root.get("SZ", ["19"])[0])
    komi = float(root.get("KM", ["7.5"])[0])
    pb = root.get("PB", ["player 0"])[0]
    black = int(pb.split()[1]) if re.fullmatch(r"player [01]", pb) else 0
    moves, comment = [], root.get("C", [""])[0]
    for t, props in enumerate(nodes):
        color = "BW"[t % 2]
        if color not in props:
            raise ValueError(f"move {t + 1}: expected {color} to play")
        value = props[color][0]
        if value == "" or (value == "tt" and size <= 19):
            moves.append(size * size)
        else:
            col, row = _LETTERS.find(value[0]), _LETTERS.find(value[1:2] or "?")
            if len(value) != 2 or not (0 <= col < size and 0 <= row < size):
                raise ValueError(f"move {t + 1}: point {value!r} is off the board")
            moves.append(row * size + col)
        comment = props.get("C", [comment])[0]
    return GoRecord(size=size, komi=komi, moves=tuple(moves), black_player=black,
                    result=root.get("RE", [None])[0], comment=comment)


# ------------------------------------------------------------------------------- drawing
def render_svg(state) -> str:
    """The board of an unbatched state: grid, star points, stones, the ko point, coordinates."""
    unbatched(state)
    board = _board(state)
    n = board.shape[0]
    cell, pad = (36 if n <= 9 else 24), 30
    side = (n - 1) * cell
    svg = Svg(side + 2 * pad, side + 2 * pad + 24, background="#dcb35c")
    for i in range(n):
        svg.line(pad, pad + i * cell, pad + side, pad + i * cell, stroke="black")
        svg.line(pad + i * cell, pad, pad + i * cell, pad + side, stroke="black")
        svg.text(pad + i * cell, pad / 2, _LETTERS[i], size=10)
        svg.text(pad / 2, pad + i * cell, _LETTERS[i], size=10)
    stars = (2, 4, 6) if n == 9 else (3, 9, 15)
    for r in stars:
        for c in stars:
            svg.circle(pad + c * cell, pad + r * cell, 3, fill="black")
    for r in range(n):
        for c in range(n):
            if board[r, c]:
                svg.circle(pad + c * cell, pad + r * cell, cell * 0.46,
                           fill="black" if board[r, c] > 0 else "white", stroke="black")
    ko = int(state._ko)
    if ko >= 0 and not bool(state.terminated):
        r, c = divmod(ko, n)
        svg.rect(pad + c * cell - 5, pad + r * cell - 5, 10, 10, fill="none", stroke="red",
                 stroke_width=2)
    black = int(state._black)
    b, w = int((board > 0).sum()), int((board < 0).sum())
    status = (f"black = player {black} ({b}), white = player {1 - black} ({w}); "
              + ("game over" if bool(state.terminated)
                 else f"player {int(state.current_player)} to move"))
    svg.text(pad + side / 2, side + 2 * pad + 6, status, size=11)
    return str(svg)
