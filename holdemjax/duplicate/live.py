"""A line played one request at a time: a person in the browser or a bot client over HTTP.

`LiveLine` holds a participant's `seat.Seat` between requests. `LiveLine.state` plays the bots
(server side, coordinate-addressed draws) up to the hero's next decision and returns what the
hero may see: the ``act`` message of PROTOCOL §5 (its own cards, the visible board, the
history), the events since the last answer (showdown cards and results of finished hands
included), and the line's status. `LiveLine.act` plays the hero's action. Every action is
saved at once; a paused line resumes from the store in a new `LiveLine`. Thinking time runs
from the moment this session first showed the decision to the action (a decision shown before
a pause is timed again from the resumed session's first showing).

Every decision offered carries its id, ``decision``: how many hero decisions the line has made
before it (0 for the first, counted over every hand, kept in the store so a resumed line goes
on counting). `LiveLine.act` plays only the decision it names (`OtherDecision` otherwise), so a
request sent twice cannot play the next decision too; the service answers a repeat of the
decision just played with the answer it gave the first time.

In a simultaneous match (`spec.MatchSpec.simultaneous`) a line is dealt hand k only when the
store's `round` opens it to every line: until then `state` answers ``"waiting"`` (for the field
to be complete, or for the lines still on the hand before). When a line's clock runs out, the
service plays the rest of its hand by the table's rule (`LiveLine.run_out`).
"""

from __future__ import annotations

import time

from holdemjax.duplicate.doors import Refused
from holdemjax.duplicate.spec import parse_time, utcnow
from holdemjax.host.legal import admitted, default_action
from holdemjax.host.loop import Played, Waiting, next_step, play_hand
from holdemjax.series import protocol

__all__ = ["LiveLine", "OtherDecision"]


class OtherDecision(Refused):
    """An action for a decision that is not the one offered now (an older one, or one not yet
    offered): nothing is played (the service: 409)."""


class LiveLine:
    """``name``'s line in ``match_id``, opened with its key (MatchError otherwise)."""

    def __init__(self, store, match_id: str, name: str, key: str | None, *, now=utcnow,
                 seat=None):
        self.store, self.match_id, self.name, self.now = store, match_id, name, now
        self.seat = store.seat(match_id, name, key) if seat is None else seat
        self.seat.check_versions()
        self.spec = self.seat.spec
        self.hand = None
        self.turns = None  # the current hand in the one loop (`loop.play_hand`)
        self.shown = 0  # events of the current hand already sent
        self.offered: float | None = None
        self.pending: list = []  # events of finished hands not yet sent
        self.made = self.seat.decisions()  # the id of the decision offered next

    def _status(self, status: str) -> dict:
        events, self.pending = self.pending, []
        done = self.seat.progress()[0]
        return {"status": status, "hands_done": done, "hands": self.spec.hands,
                "events": events}

    def _events(self) -> list:
        new = self.hand.events[self.shown:]
        self.shown = len(self.hand.events)
        return new

    def state(self) -> dict:
        """Play the bots up to the hero's decision. ``status``: ``"decision"`` (with ``view``),
        ``"finished"``, ``"waiting"`` (a simultaneous match: the next hand is not open to every
        line yet; ``waiting_for`` ``"field"`` or ``"hand"``, ``behind``: how many lines the
        field waits for) or ``"closed"`` (the match closed, or its deadline passed: the line is
        kept as played). It closes nothing: a read (the steward closes, or the next action)."""
        if self.seat.participant.status != "playing":  # its line is over: it says so
            return self._status("finished" if self.seat.participant.status == "finished"
                                else "closed")
        if not self._open():
            return self._status("closed")
        while True:
            if self.hand is None:
                waiting = self._gate()
                if waiting is not None:
                    return waiting
                if not self._deal():
                    return self._status("finished")
            hand = self.hand
            step = next_step(self.turns)  # the bots play up to the hero's decision
            while isinstance(step, Played):
                if not self._save(step):
                    return self._status("closed")
                step = next_step(self.turns)
            if not hand.over:
                if self.offered is None:
                    self.offered = time.monotonic()
                out = self._status("decision")
                out["decision"] = self.made
                out["events"] += self._events()
                out["view"] = hand.view()
                return out
            if not self._finish(hand):
                return self._status("closed")
            if hand.index == self.spec.hands - 1:
                return self._status("finished")

    def _deal(self) -> bool:
        """The line's next hand, in the loop with the bots (the hero waits for `act`); False
        when the line has played every hand."""
        self.hand, self.shown = self.seat.hand(), 0
        if self.hand is None:
            return False
        self.turns = play_hand(self.hand, self.seat.players())
        return True

    def _save(self, step: Played, think: int | None = None) -> bool:
        """Save a decision the loop played (False: the line was closed meanwhile)."""
        return self.seat.add_action(self.hand.index, len(self.hand.actions) - 1, step.played,
                                    think)

    def _gate(self) -> dict | None:
        """In a simultaneous match, the ``"waiting"`` answer while the line's next hand is not
        open to every line (`store.Store.round`); None when it may be dealt."""
        if not self.spec.simultaneous:
            return None
        start = self.seat.progress()[0]
        r = self.store.round(self.match_id)
        if start >= self.spec.hands or r is None or (r.hand is not None and start <= r.hand):
            return None
        out = self._status("waiting")
        out["waiting_for"] = "field" if r.hand is None else "hand"
        out["behind"] = len(r.behind)
        return out

    def _finish(self, hand) -> bool:
        """Save the finished ``hand`` (False: the line was closed meanwhile)."""
        record = hand.record()
        if not self.seat.finish_hand(record, last=hand.index == self.spec.hands - 1,
                                     now=self.now()):
            return False
        self.pending += self._events() + [{"type": "hand_over", "hand": hand.index,
                                           "net": record["hero_net"]}]
        self.hand = None
        return True

    def _open(self) -> bool:
        """Whether the match takes actions: open and before its deadline (read, not closed)."""
        m = self.store.match(self.match_id)
        return m.state == "open" and (m.spec.deadline is None
                                      or self.now() < parse_time(m.spec.deadline))

    def waiting(self) -> dict | None:
        """The ``"waiting"`` answer when the line's next hand is not open to every line yet (a
        simultaneous match), else None; deals nothing."""
        return self._gate() if self.hand is None else None

    def run_out(self, auto: str = "timeout") -> int | None:
        """The line's clock ran out (a simultaneous match): play the rest of its hand, the
        hero's decisions by the table's rule (`holdemjax.host.legal.default_action`: check
        when free, else fold; recorded with ``auto``: ``"timeout"``, or ``"away"``), the bots as
        ever, and save it. Returns how many of the hero's decisions the table played; None when
        there was nothing to play out or the line was closed meanwhile."""
        if self.hand is None:
            if self.seat.progress()[0] >= self.spec.hands:
                return None
            self._deal()
        hand, made = self.hand, self.made
        step = next_step(self.turns)
        while step is not None:
            if isinstance(step, Waiting):  # the hero's decision, by the table's rule
                step = next_step(self.turns, (*default_action(hand.legal_info()), auto))
                self.made, self.offered = self.made + 1, None
            if not self._save(step):
                return None
            step = next_step(self.turns)
        return self.made - made if self._finish(hand) else None

    def act(self, action: str, amount: int = 0, decision: int | None = None) -> dict:
        """Play the hero's ``action`` (a reply's word, `protocol.ACTIONS`; ``raise`` to
        ``amount``) at decision ``decision`` (the id `state` offered; None: the one offered
        now), then `state`. ValueError for an action that is not legal now, naming it;
        `OtherDecision` when ``decision`` is not the decision offered now."""
        hand = self.hand
        if decision is not None and decision != self.made:
            when = "was played" if decision < self.made else "is not offered yet"
            raise OtherDecision(f"decision {decision} {when}: the decision offered now is "
                                f"{self.made}")
        if hand is None or hand.over or hand.to_act != self.spec.hero:
            raise ValueError("the hero is not to act: ask for the state first")
        if action not in protocol.ACTIONS:
            raise ValueError(f"action must be one of {', '.join(protocol.ACTIONS)}, got {action!r}")
        if action != "raise" and amount:
            raise ValueError(f"{action} takes no amount, got {amount} (only raise does: the "
                             "total it raises to)")
        legal = hand.legal_info()
        if action == "check" and not legal["check"]:
            raise ValueError(f"cannot check: {legal['call']} to call")
        kind, amount = admitted(legal, protocol.kind_of(action), amount if action == "raise" else 0,
                                f"{self.name!r}")
        if self.store.refresh(self.match_id, self.now()) != "open":
            return self._status("closed")
        think = round(1000 * (time.monotonic() - (self.offered or time.monotonic())))
        next_step(self.turns)  # the loop waits for the hero (asked again if it already did)
        step = next_step(self.turns, (kind, amount, None))  # its event goes back: the page logs it
        self.offered = None
        self.made += 1
        if not self._save(step, think):
            return self._status("closed")
        out = self.state()
        if out["status"] == "finished":  # the last line done: the match closes (complete)
            self.store.refresh(self.match_id, self.now())
        return out
