"""The host hand driver: one room for what every host-side table (a series, a duplicate match,
seat rotation's host loop) records about a hand and for how it reads a policy's call.

* `HandLog` turns engine tables into the protocol's record of a hand (PROTOCOL.md §5): the
  ``hand_start`` event, each decision's history entry ``[street, seat, code, to]`` and public
  ``action`` event (read back from the tables before and after the engine's ``act``, so a
  clamped amount is recorded as played), the ``board`` events of newly visible cards, the
  ``showdown`` and ``result`` events, and the per-seat decision counters and bets/raises per
  street (a bot's action rank and its street history).
* `is_exact` / `check_exact`: an engine action the table would play as given (no clamping).
* `apply_outcome` maps one policy call (`wasm.CallResult`) to the protocol's rule (§3-§4):
  the clock's charge, away and sit-in, the fault causes `wasm.FAULTS` and ``out_of_compute``
  of a notification, the bad-reply kinds and the reply's admitted action. Callers decide only
  what they publish (events, chat) and count.

Host side only: numpy and plain Python on host copies of the engine's tables.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from holdemjax.poker import table as tb
from holdemjax.poker.cards import card_text
from holdemjax.series import protocol as P
from holdemjax.series.wasm import FAULTS
from holdemjax.validate import is_int

__all__ = ["STREET_OF_BOARD", "HandLog", "default_action", "is_exact", "check_exact",
           "Outcome", "apply_outcome"]

#: Board cards visible -> the street that shows them (the ``street`` of a ``board`` event).
STREET_OF_BOARD = {3: tb.FLOP, 4: tb.TURN, 5: tb.RIVER}


def _cards(ids) -> list[str]:
    return [card_text(int(c)) for c in ids]


class HandLog:
    """The protocol's record of one hand, fed with host copies of the engine's tables."""

    def __init__(self, table: tb.Table, hand: int):
        n = int(np.shape(table.stacks)[-1])
        self.hand = int(hand)
        self.history: list[list[int]] = []  # [street, seat, code, to] per decision
        self.decisions = np.zeros(n, np.int32)  # decisions per seat this hand
        self.street_raises = np.zeros((tb.NUM_STREETS, n), np.int32)  # bets/raises per street
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

    def action(self, before: tb.Table, legal: tb.Legal, after: tb.Table, kind: int,
               auto: str | None = None) -> dict:
        """The ``action`` event of the decision that took ``before`` to ``after`` (``legal``:
        what the seat could do; ``kind``: the engine action given), recorded in the history and
        the counters."""
        seat, street = int(before.to_act), int(before.street)
        added = int(before.stacks[seat]) - int(after.stacks[seat])
        added += int(after.winnings[seat]) if bool(after.hand_over) else 0
        raised = int(kind) == tb.RAISE and bool(legal.can_raise)
        folded = bool(after.folded[seat]) and not bool(before.folded[seat])
        code = (P.FOLD if folded else P.RAISE if raised
                else P.CALL if added > 0 else P.CHECK)
        to = int(before.bets[seat]) + added
        self.history.append([street, seat, code, to])
        self.decisions[seat] += 1
        self.street_raises[street, seat] += int(raised)
        return {"type": "action", "street": street, "seat": seat, "code": code, "to": to,
                "added": added, "auto": auto}

    def board(self, table: tb.Table) -> list[dict]:
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

    def end(self, table: tb.Table) -> list[dict]:
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


# -------------------------------------------------------------------------- exact actions
def default_action(legal: dict) -> tuple[int, int]:
    """The table's action for a seat that gave none it may play: check when free, else fold."""
    return (tb.CHECK_CALL if legal["check"] else tb.FOLD), 0


def is_exact(kind, amount, legal: dict) -> bool:
    """``(kind, amount)`` is an engine action the table plays as given for ``legal`` (a
    `protocol.legal_info` block): FOLD or CHECK_CALL, or RAISE to an int in the legal range."""
    if not is_int(kind):
        return False
    if kind in (tb.FOLD, tb.CHECK_CALL):
        return True
    r = legal["raise"]
    return kind == tb.RAISE and r is not None and is_int(amount) and r[0] <= amount <= r[1]


def check_exact(kind, amount, legal: dict, who: str) -> tuple[int, int]:
    """`is_exact` or ValueError naming ``who`` and the action; returns ints."""
    if not is_exact(kind, amount, legal):
        shown = ", ".join(str(int(x)) if is_int(x) else repr(x) for x in (kind, amount))
        raise ValueError(f"{who} chose ({shown}), not legal: {legal}")
    return int(kind), int(amount)


# ------------------------------------------------------------------------ policy outcomes
@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one policy call comes to (PROTOCOL §3-§4).

    ``kind``/``amount``: the engine action to play (the reply's, or `default_action`);
    ``auto``: why the table acted for the seat (None: the reply's action was admitted;
    "timeout", "fault", "bad_reply", "away"); ``recorded``: the outcome of a decision's call
    (``ok``, ``timeout``, a fault, a transport outcome or the reply's ``bad_reply`` /
    ``illegal_action`` / ``bad_amount``), None for away calls and notifications; ``fault``:
    the cause when the policy must be benched; ``reply``: the parsed reply when its chat may be
    read; ``went_away``: this decision made the seat away; ``sat_in``: an away seat came back.
    """

    kind: int | None = None
    amount: int = 0
    auto: str | None = None
    recorded: str | None = None
    fault: str | None = None
    reply: P.Reply | None = None
    went_away: bool = False
    sat_in: bool = False


def _cause(name: str, detail: str) -> str:
    return f"{name}: {detail}" if detail else name


def apply_outcome(result, legal: dict | None = None, clock: P.Clock | None = None, *,
                  notify: str | None = None) -> Outcome:
    """The rule for one call's `wasm.CallResult` (or an object with ``outcome``, ``reply``,
    ``used_ns``, ``detail``).

    * A notification (``notify`` = its message type): a fault (`wasm.FAULTS`) benches the
      policy, so does running out of its budget (``out_of_compute``); an "ok" reply's chat may
      be read, and its ``sit_in`` brings an away seat back (when ``clock`` is given). ``legal``
      is unused.
    * A decision of an away seat (``clock.away``): nothing is charged; a fault benches; an "ok"
      reply may carry chat and ``sit_in`` (the clock is told). The table checks or folds.
    * A decision: the clock is charged (`Clock.record_decision`: two timeouts in a row make the
      seat away); a timeout, a fault or a transport failure takes the default action; an "ok"
      reply is read against ``legal`` (`protocol.parse_reply`) and its action admitted or
      replaced by the default (recorded as the reply's outcome).

    ``reply`` is the parsed reply whenever one was read, a refused one included (its shown
    lines are empty, its ``dropped`` reasons are to be counted).
    """
    o = result.outcome
    if notify is not None:
        if o in FAULTS:
            return Outcome(fault=_cause(o, result.detail))
        if o == "timeout":
            return Outcome(fault=_cause("out_of_compute", f"{notify} used its {P.NOTIFY_NS} ns"))
        if o == "ok":
            reply = P.parse_reply(result.reply, None)
            back = (reply.outcome == "ok" and reply.sit_in and clock is not None
                    and clock.away)
            if back:
                clock.sit_in()
            return Outcome(reply=reply, sat_in=back)
        return Outcome()
    kind, amount = default_action(legal)
    if clock.away:
        if o in FAULTS:
            return Outcome(kind, amount, "away", fault=_cause(o, result.detail))
        if o == "ok":
            reply = P.parse_reply(result.reply, None)
            back = reply.outcome == "ok" and reply.sit_in
            if back:
                clock.sit_in()
            return Outcome(kind, amount, "away", reply=reply, sat_in=back)
        return Outcome(kind, amount, "away")
    went_away = clock.record_decision(o, result.used_ns)  # charges the bank
    if o == "timeout":
        return Outcome(kind, amount, "timeout", "timeout", went_away=went_away)
    if o in FAULTS:
        return Outcome(kind, amount, "fault", o, _cause(o, result.detail), went_away=went_away)
    if o != "ok":  # no_reply, bad_alloc, bad_pointer, reply_too_long
        return Outcome(kind, amount, "bad_reply", o, went_away=went_away)
    reply = P.parse_reply(result.reply, legal)
    if reply.kind is None:
        return Outcome(kind, amount, "bad_reply", reply.outcome, reply=reply,
                       went_away=went_away)
    return Outcome(reply.kind, reply.amount, None, "ok", reply=reply, went_away=went_away)
