"""The one hand loop: every host table (a series, a duplicate line, a reference line, a
verification, seat rotation's host loop, a browser seat) plays its hands through `play_hand`,
and nothing else steps a hand (``HostHand.apply``; a test holds it).

The loop asks each seat's player for its action, plays it, and yields after every decision
(`Played`), so the caller records, saves and publishes it; where a seat has no player in the
loop (a person in the browser, a hero the caller times) it yields `Waiting` and the caller
sends the action in when it has it, now or in a later request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Mapping

__all__ = ["Waiting", "Played", "play_hand", "next_step"]

#: ``(kind, amount, auto)``: an engine action and why the table acted for the seat (None: the
#: seat's own action).
Action = tuple[int, int, "str | None"]


@dataclasses.dataclass(frozen=True)
class Waiting:
    """The seat to act has no action yet: the caller sends it (``(kind, amount, auto)``)."""

    seat: int


@dataclasses.dataclass(frozen=True)
class Played:
    """One decision played: the seat that acted and what the hand recorded of it (the return
    value of its ``apply``)."""

    seat: int
    played: object


def play_hand(hand, seats: Mapping[int, Callable | None]) -> Generator:
    """Play ``hand`` (a `HostHand`, or a subclass of it) from where it stands to its end.

    ``seats.get(seat)`` is the player of a seat, ``player(hand) -> (kind, amount, auto)``; a
    seat with no player, or a player that returns None, waits: the loop yields `Waiting` and
    the next ``send`` carries the action. After each decision it yields `Played`. A caller
    that stops early drops the generator; the hand stays where it is.
    """
    while not hand.over:
        seat = hand.to_act
        player = seats.get(seat)
        action = None if player is None else player(hand)
        while action is None:
            action = yield Waiting(seat)
        kind, amount, auto = action
        yield Played(seat, hand.apply(kind, amount, auto))


def next_step(turns: Generator, action: Action | None = None) -> Waiting | Played | None:
    """The loop's next step (``action``: the answer to the `Waiting` it yielded last), or None
    once the hand is over."""
    try:
        return next(turns) if action is None else turns.send(action)
    except StopIteration:
        return None
