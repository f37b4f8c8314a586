"""A person in the hero seat: ``holdemjax duplicate play MATCH`` in the terminal.

At each decision the screen shows the table (seats, positions, stacks, bets, who folded or is
all-in), the hero's cards, the board, the pot, what happened since the last decision, and the
legal actions with their amounts. Input is a short command:

=============  =====================================================
``f``          fold
``c`` / ``k``  call / check (``k`` refuses when there is a bet to call)
``r AMOUNT``   bet or raise to AMOUNT (your total on this street)
``a``          all-in (a raise to everything, or a call when raising is closed)
``q``          quit; the line resumes here next time
``?``          this help
=============  =====================================================

Every action is saved at once, so quitting (or closing the terminal) loses nothing. Input and
output are injectable (``ask``, ``console``): a test drives the screen as a scripted person.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from holdemjax.duplicate import match
from holdemjax.duplicate.review import action_texts, seat_label
from holdemjax.host.legal import admits
from holdemjax.poker import table

__all__ = ["HELP", "PersonHero", "parse_command", "play"]

HELP = "f fold · c call/check · k check · r AMOUNT raise to · a all-in · q quit (resume later)"
_SUIT = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
_COLOR = {"c": "green", "d": "blue", "h": "red", "s": "white"}


def _card(text: str) -> str:
    return f"[bold {_COLOR[text[1]]}]{text[0]}{_SUIT[text[1]]}[/]"


def parse_command(text: str, legal: dict) -> tuple[int, int]:
    """(kind, raise-to) for a command; `Quit` for ``q``; ValueError explaining a bad one."""
    words = (text or "").strip().lower().split()
    if not words:
        raise ValueError(f"type a command: {HELP}")
    cmd, args = words[0], words[1:]
    if cmd in ("q", "quit", "exit"):
        raise match.Quit()
    if cmd in ("?", "h", "help"):
        raise ValueError(HELP)
    if cmd in ("f", "fold"):
        return table.FOLD, 0
    if cmd in ("k", "check"):
        if not legal["check"]:
            raise ValueError(f"you cannot check: {legal['call']} to call (c) or fold (f)")
        return table.CHECK_CALL, 0
    if cmd in ("c", "call"):
        return table.CHECK_CALL, 0
    if cmd in ("a", "allin", "all-in", "shove"):
        if legal["raise"] is None:
            return table.CHECK_CALL, 0
        return table.RAISE, legal["raise"][1]
    if cmd in ("r", "raise", "b", "bet"):
        if legal["raise"] is None:
            raise ValueError("raising is closed: call (c) or fold (f)")
        lo, hi = legal["raise"]
        if len(args) != 1 or not args[0].isdigit():
            raise ValueError(f"raise needs an amount: r AMOUNT with AMOUNT in {lo}..{hi}")
        amount = int(args[0])
        if not admits(legal, table.RAISE, amount):
            raise ValueError(f"raise to {amount} is outside {lo}..{hi} (your total on this "
                             f"street; {hi} is all-in)")
        return table.RAISE, amount
    raise ValueError(f"unknown command {text.strip()!r}: {HELP}")


class PersonHero:
    """The person at the terminal (the interface of `match.BotHero`). ``ask(prompt) -> str``
    reads a command (EOF quits); ``console`` is a rich Console."""

    kind = "person"

    def __init__(self, ask: Callable[[str], str] | None = None, console: Console | None = None):
        self.console = console or Console()
        self.ask = ask or self.console.input
        self.source, self.sha256 = "terminal", ""
        self._shown = 0

    def begin(self, spec, seed: int, match_id: str) -> None:
        self.spec = spec
        self.console.print(
            f"[bold]Duplicate match {match_id}[/]: {spec.seats} seats, blinds "
            f"{spec.small_blind}/{spec.big_blind}" + (f" ante {spec.ante}" if spec.ante else "")
            + f", {spec.stack} chips every hand, {spec.hands} hands. You are seat {spec.hero}.")
        self.console.print(HELP)

    def new_hand(self, hand) -> None:
        self._shown = 0
        done = len(hand.actions)
        note = f" (resumed after {done} actions)" if done else ""
        self.console.rule(f"Hand {hand.index + 1} of {self.spec.hands}{note}")

    def _screen(self, hand) -> None:
        spec, t = self.spec, hand.table
        for text in action_texts(spec, hand.actions)[self._shown:]:
            self.console.print("  " + text)
        self._shown = len(hand.actions)
        button, sb, bb = match.positions(spec.seats, hand.index)
        grid = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for col in ("seat", "player", "pos", "stack", "bet", ""):
            grid.add_column(col, justify="right" if col in ("stack", "bet") else "left")
        hole = hand.hole_text()[spec.hero]
        for s in range(spec.seats):
            pos = " ".join(p for p, at in (("BTN", button), ("SB", sb), ("BB", bb)) if at == s)
            state = ("folded" if t.folded[s] else "all-in" if t.allin[s]
                     else "to act" if s == hand.to_act else "")
            who = "[bold]you[/]" if s == spec.hero else seat_label(spec, s).split(" ", 1)[1]
            extra = " ".join(_card(c) for c in hole) if s == spec.hero else state
            if s == spec.hero and state:
                extra += f"  {state}"
            grid.add_row(str(s), who, pos, str(int(t.stacks[s])), str(int(t.bets[s])), extra)
        self.console.print(grid)
        board = hand.board_text()[:int(t.revealed)]
        pot = int(t.contrib.sum()) + int(t.dead)
        self.console.print(f"board: {' '.join(_card(c) for c in board) or '-'}    pot: {pot}")
        lg = hand.legal_info()
        options = ["f fold"]
        options.append("k check" if lg["check"] else f"c call {lg['call']}")
        if lg["raise"] is not None:
            lo, hi = lg["raise"]
            options.append(f"r {lo}..{hi} raise to" if lo < hi else f"r {hi}")
            options.append(f"a all-in ({hi})")
        self.console.print("[bold]your move:[/] " + " · ".join(options) + " · q quit")

    def decide(self, hand):
        self._screen(hand)
        legal = hand.legal_info()
        while True:
            try:
                text = self.ask("> ")
            except EOFError:
                raise match.Quit() from None
            try:
                kind, amount = parse_command(text, legal)
            except ValueError as exc:
                self.console.print(f"[yellow]{exc}")
                continue
            self._shown += 1  # the hero's own action is not echoed back
            return kind, amount, None

    def hand_over(self, hand, record: dict) -> None:
        spec = self.spec
        for text in action_texts(spec, hand.actions)[self._shown:]:
            self.console.print("  " + text)
        board = record["board"][:record["revealed"]]
        if record["showdown"]:
            live = [e for e in hand.events if e["type"] == "showdown"][0]["cards"]
            shown = ", ".join(f"{seat_label(spec, s)} {_card(a)} {_card(b)}" for s, a, b in live)
            self.console.print(f"showdown: {shown}")
        net = record["hero_net"]
        colour = "green" if net > 0 else "red" if net < 0 else "white"
        self.console.print(f"board: {' '.join(_card(c) for c in board) or '-'}    "
                           f"you [{colour}]{'+' if net > 0 else ''}{net}[/] chips")

    def end(self) -> None:
        pass


def play(store, match_id: str, name: str, *, key: str | None = None,
         ask: Callable[[str], str] | None = None, console: Console | None = None,
         now: Callable = match.utcnow) -> str:
    """Play or resume person ``name``'s line (its ``key``: `match.play_line`) in match
    ``match_id``; returns `match.play_line`'s status ("finished", "paused", "closed")."""
    hero = PersonHero(ask, console)
    status = match.play_line(store, match_id, name, hero, key=key, now=now, kind="person")
    con = hero.console
    if status == "paused":
        done, _ = store.progress(match_id, name, key)
        con.print(f"Saved. `holdemjax duplicate play {match_id} --name {shlex.quote(name)}` "
                  f"resumes at hand {done + 1}.", markup=False)
    elif status == "closed":
        con.print(f"Match {match_id} closed at its deadline: your line is kept as played so far.")
    else:
        con.print(f"Your line is complete. Results stay sealed until match {match_id} closes.")
    return status
