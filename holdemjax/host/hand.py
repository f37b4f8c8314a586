"""The one host hand driver: what every host-side table (a series, a duplicate line, a reference
line, seat rotation's host loop) uses to play a hand through the rules engine and record it.

* `HostHand` drives one hand decision by decision through the engine's ``act`` (the series'
  compiled `holdemjax.series.engine.Engine`, or the lone-hand programs of `lone_hand` for
  duplicate deals and seat rotation) on host copies of its `tournament.Tournament` state: the
  decision's view (`tournament.Decision`, whose per-hand counters the engine keeps), the
  protocol's ``act`` message, and every decision recorded by `HandLog`. It is stepped by the
  one hand loop alone (`loop.play_hand`).
* `HandLog` turns engine tables into the protocol's record of a hand (PROTOCOL.md §5): the
  ``hand_start`` event, each decision's history entry ``[street, seat, code, to]`` and public
  ``action`` event (read back from the tables before and after the engine's ``act``, so a
  clamped amount is recorded as played; the code is `protocol.code_of`), the ``board`` events
  of newly visible cards, the ``showdown`` and ``result`` events.

Host side: numpy and plain Python on host copies of the engine's states; JAX runs only in the
engine's programs.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.host import protocol
from holdemjax.host.packing import Layout
from holdemjax.poker import table as poker_table
from holdemjax.poker import tournament as poker_tournament
from holdemjax.poker.cards import card_text
from holdemjax.validate import require_int

__all__ = ["STREET_OF_BOARD", "HandLog", "HostHand", "lone_start", "lone_hand"]

#: Board cards visible -> the street that shows them (the ``street`` of a ``board`` event).
STREET_OF_BOARD = {3: poker_table.FLOP, 4: poker_table.TURN, 5: poker_table.RIVER}


def _cards(ids) -> list[str]:
    return [card_text(int(c)) for c in ids]


class HandLog:
    """The protocol's record of one hand, fed with host copies of the engine's tables."""

    def __init__(self, table: poker_table.Table, hand: int):
        self.hand = int(hand)
        self.history: list[list[int]] = []  # [street, seat, code, to] per decision
        self.shown = 0  # board cards announced so far
        self.start = table

    def hole(self) -> list[list[str]]:
        """Every seat's hole cards as text."""
        return [_cards(pair) for pair in np.asarray(self.start.hole)]

    def board_cards(self) -> list[str]:
        """All five board cards as text (fixed at the deal)."""
        return _cards(np.asarray(self.start.board))

    def start_event(self) -> dict:
        """The public part of the ``hand_start`` event (each seat adds its own ``hole``)."""
        t = self.start
        return {"type": "hand_start", "hand": self.hand, "button": int(t.button),
                "sb": int(t.sb), "bb": int(t.bb),
                "blinds": [int(t.small_blind), int(t.big_blind), int(t.ante)],
                "stacks": np.asarray(t.start_stacks).astype(int).tolist(),
                "in_hand": np.asarray(t.in_hand).astype(bool).tolist()}

    def action(self, before: poker_table.Table, legal: poker_table.Legal,
               after: poker_table.Table, kind: int, auto: str | None = None) -> dict:
        """The ``action`` event of the decision that took ``before`` to ``after`` (``legal``:
        what the seat could do; ``kind``: the engine action given), recorded in the history."""
        seat, street = int(before.to_act), int(before.street)
        added = int(before.stacks[seat]) - int(after.stacks[seat])
        added += int(after.winnings[seat]) if bool(after.hand_over) else 0
        raised = int(kind) == poker_table.RAISE and bool(legal.can_raise)
        folded = bool(after.folded[seat]) and not bool(before.folded[seat])
        code = protocol.code_of(folded, raised, added)
        to = int(before.bets[seat]) + added
        self.history.append([street, seat, code, to])
        return {"type": "action", "street": street, "seat": seat, "code": code, "to": to,
                "added": added, "auto": auto}

    def board(self, table: poker_table.Table) -> list[dict]:
        """``board`` events for the cards of ``table`` visible since the last call."""
        events = []
        visible = int(table.revealed)
        board = np.asarray(table.board)
        while self.shown < visible:
            upto = 3 if self.shown == 0 else self.shown + 1
            events.append({"type": "board", "street": STREET_OF_BOARD[upto],
                           "cards": _cards(board[self.shown:upto])})
            self.shown = upto
        return events

    def end(self, table: poker_table.Table) -> list[dict]:
        """The ``showdown`` (when cards were shown) and ``result`` events of a finished hand."""
        events = []
        if bool(table.showdown):
            live = np.asarray(table.in_hand) & ~np.asarray(table.folded)
            hole = np.asarray(table.hole)
            events.append({"type": "showdown", "cards": [[s, *_cards(hole[s])]
                                                         for s in range(len(live)) if live[s]]})
        events.append({"type": "result",
                       "winnings": np.asarray(table.winnings).astype(int).tolist(),
                       "stacks": np.asarray(table.stacks).astype(int).tolist()})
        return events


# ---------------------------------------------------------------------------- the driver
class HostHand:
    """One hand driven through the engine from the host, decision by decision, and recorded
    (`HandLog`): the one host hand driver of the series, duplicate and reference lines and
    seat rotation.

    ``act(kind, amount)`` is the engine's decision step: it plays one exact action of the seat
    to act on the engine's state and returns host views ``(Tournament, Legal)`` of the state
    it reaches (`tournament.act`: the hand may be over, nothing is advanced). ``state`` /
    ``legal``: host views of the state at the start of the hand (dealt; it may be over
    already). The per-hand counters (decisions, bets and raises per street) are the engine's
    (``state.decisions``, ``state.street_raises``), never counted here.
    """

    def __init__(self, act, state: poker_tournament.Tournament, legal: poker_table.Legal):
        self._act = act
        self.state, self.legal = state, legal
        self.log = HandLog(state.table, int(state.hand))

    @property
    def table(self) -> poker_table.Table:
        """The hand's table now (host arrays)."""
        return self.state.table

    @property
    def index(self) -> int:
        """The hand's index (the ``hand`` of the protocol's messages and of a bot's draws)."""
        return self.log.hand

    @property
    def over(self) -> bool:
        """The hand is finished and paid."""
        return bool(self.state.table.hand_over)

    @property
    def to_act(self) -> int:
        return int(self.state.table.to_act)

    @property
    def history(self) -> list[list[int]]:
        """``[street, seat, code, to]`` of each decision so far (PROTOCOL §5)."""
        return self.log.history

    @property
    def decisions(self) -> np.ndarray:
        """``# [seats] int32`` decisions each seat made in this hand (a bot's action rank)."""
        return self.state.decisions

    def decision(self) -> poker_tournament.Decision:
        """The `tournament.Decision` view of the seat to act (host arrays, no JAX call): what
        `protocol.act_message` and the JAX bots read."""
        s = self.state
        return poker_tournament.decision_at(s.table, s.hand, s.decisions, s.street_raises,
                                            alive=s.alive, legal=self.legal)

    def view(self, *, tournament: int = 0, events=(), **clock) -> dict:
        """The protocol's ``act`` message of the seat to act (PROTOCOL §5); ``clock`` takes
        ``budget_ns``, ``bank_ns``, ``away``."""
        return protocol.act_message(self.decision(), tournament=tournament,
                                    history=self.log.history, events=events, **clock)

    def apply(self, kind: int, amount: int = 0, auto: str | None = None) -> dict:
        """Play one engine action of the seat to act (engine rules: a closed raise is a
        check/call, a raise-to is clipped to the legal range); returns its ``action`` event
        (``auto``: why the table acted for the seat, or None), recorded in the history."""
        if self.over:
            raise ValueError(f"hand {self.index} is over: nobody is to act")
        kind = require_int("action kind", kind, poker_table.FOLD, poker_table.RAISE)
        before, legal = self.state.table, self.legal
        self.state, self.legal = self._act(kind, amount)
        return self.log.action(before, legal, self.state.table, kind, auto)

    def board(self) -> list[dict]:
        """``board`` events of the cards visible since the last call."""
        return self.log.board(self.state.table)

    def end(self) -> list[dict]:
        """The ``showdown`` and ``result`` events of the finished hand."""
        return self.log.end(self.state.table)


@functools.cache
def _lone_programs(seats: int):
    """(layout, start, act): the lone-hand programs at ``seats`` seats, jitted once per process,
    on packed states (`packing.Layout`: one read of a few chunks per step)."""
    def dealt(stacks, button, small, big, ante, deck, hand):
        alive = jnp.ones(seats, bool)
        b, sb, bb, sb_posts = poker_table.first_positions(alive, button)
        table = poker_table.start_hand(stacks, alive, b, sb, bb, sb_posts, small, big, ante, deck)
        t = poker_tournament.lone_hand(table, hand)
        return t, poker_table.legal(t.table)

    i32 = jax.ShapeDtypeStruct((), jnp.int32)
    layout = Layout(jax.eval_shape(dealt, jax.ShapeDtypeStruct((seats,), jnp.int32), i32, i32,
                                   i32, i32, jax.ShapeDtypeStruct((52,), jnp.int32), i32))

    def act(state, kind, amount):
        t = poker_tournament.act(layout.unpack(state, None), kind, amount)
        return layout.pack((t, poker_table.legal(t.table)))

    return layout, jax.jit(lambda *args: layout.pack(dealt(*args))), jax.jit(act)


class _LoneEngine:
    """The engine's ``act`` of one lone hand for `HostHand`: the device state between calls."""

    def __init__(self, seats: int, stacks, button, blinds, deck, hand):
        self.layout, start, self._act = _lone_programs(seats)
        i32 = np.int32
        small, big, ante = (i32(b) for b in blinds)
        self.device = start(stacks, i32(button), small, big, ante, deck, i32(hand))

    def host(self):
        return self.layout.host(np.concatenate([np.asarray(c) for c in self.device]), None)

    def __call__(self, kind, amount):
        self.device = self._act(self.device, np.int32(kind), np.int32(amount))
        return self.host()


def lone_start(hand: int, deck, stacks, *, button: int, blinds=(10, 20, 0)) -> tuple:
    """``(act, state, legal)`` of a lone hand (duplicate deals, seat rotation), the arguments of
    `HostHand`: every seat dealt in with its stack (``stacks``, one int per seat), the button on
    ``button`` and the blinds of a first hand around it (`table.first_positions`: heads-up the
    button posts the small blind), ``blinds`` = (small, big, ante), the 52 card ids of ``deck``
    dealt by index. The engine is `tournament.act` on a `tournament.lone_hand` (jitted once per
    process and seat count)."""
    stacks = np.asarray(stacks, np.int32)
    deck = np.asarray(deck, np.int32)
    if sorted(deck.tolist()) != list(range(52)):
        raise ValueError(f"deck must be a permutation of the 52 card ids, got {deck}")
    engine = _LoneEngine(len(stacks), stacks, button, blinds, deck, hand)
    return (engine, *engine.host())


def lone_hand(hand: int, deck, stacks, *, button: int, blinds=(10, 20, 0)) -> HostHand:
    """`HostHand` of a lone hand (`lone_start`)."""
    return HostHand(*lone_start(hand, deck, stacks, button=button, blinds=blinds))
