"""A line played one request at a time: a person in the browser or a bot client over HTTP.

`LiveLine` holds a participant's `seat.Seat` between requests. `LiveLine.state` plays the bots
(server side, coordinate-addressed draws) up to the hero's next decision and returns what the
hero may see: the ``act`` message of PROTOCOL §5 (its own cards, the visible board, the
history), the events since the last answer (showdown cards and results of finished hands
included), and the line's status. `LiveLine.act` plays the hero's action. Every action is
saved at once; a paused line resumes from the store in a new `LiveLine`. Thinking time runs
from the moment this session first showed the decision to the action (a decision shown before
a pause is timed again from the resumed session's first showing).
"""

from __future__ import annotations

import time

from holdemjax.duplicate import match as M
from holdemjax.series import protocol as P
from holdemjax.series.hand import check_exact

__all__ = ["LiveLine"]


class LiveLine:
    """``name``'s line in ``match_id``, opened with its key (MatchError otherwise)."""

    def __init__(self, store, match_id: str, name: str, key: str, *, now=M.utcnow):
        self.store, self.match_id, self.name, self.now = store, match_id, name, now
        self.seat = store.seat(match_id, name, key)
        if self.seat.participant.status != "playing":
            raise M.MatchError(f"{name!r} already played match {match_id} "
                               f"(line {self.seat.participant.status})")
        self.seat.check_versions()
        self.spec = self.seat.spec
        self.hand = None
        self.shown = 0  # events of the current hand already sent
        self.offered: float | None = None
        self.pending: list = []  # events of finished hands not yet sent

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
        ``"finished"`` or ``"closed"`` (the match closed: the line is kept as played)."""
        if self.store.refresh(self.match_id, self.now()) != "open":
            return self._status("closed")
        while True:
            if self.hand is None:
                self.hand, self.shown = self.seat.hand(), 0
                if self.hand is None:
                    return self._status("finished")
            hand = self.hand
            while not hand.over and hand.to_act != self.spec.hero:
                kind, amount = self.seat.bot_action(hand)
                action = hand.apply(kind, amount)
                if not self.seat.add_action(hand.index, len(hand.actions) - 1, action):
                    return self._status("closed")
            if not hand.over:
                if self.offered is None:
                    self.offered = time.monotonic()
                out = self._status("decision")
                out["events"] += self._events()
                out["view"] = hand.view()
                return out
            record = hand.record()
            if not self.seat.finish_hand(record, last=hand.index == self.spec.hands - 1,
                                         now=self.now()):
                return self._status("closed")
            self.pending += self._events() + [{"type": "hand_over", "hand": hand.index,
                                               "net": record["hero_net"]}]
            self.hand = None
            if record["hand"] == self.spec.hands - 1:
                self.store.refresh(self.match_id, self.now())
                return self._status("finished")

    def act(self, action: str, amount: int = 0) -> dict:
        """Play the hero's ``action`` (a reply's word, `protocol.ACTIONS`; ``raise`` to
        ``amount``), then `state`.
        ValueError for an action that is not legal now, naming it."""
        hand = self.hand
        if hand is None or hand.over or hand.to_act != self.spec.hero:
            raise ValueError("the hero is not to act: ask for the state first")
        if action not in P.ACTIONS:
            raise ValueError(f"action must be one of {', '.join(P.ACTIONS)}, got {action!r}")
        legal = hand.legal_info()
        if action == "check" and not legal["check"]:
            raise ValueError(f"cannot check: {legal['call']} to call")
        kind, amount = check_exact(P.kind_of(action), amount if action == "raise" else 0, legal,
                                   f"{self.name!r}")
        if self.store.refresh(self.match_id, self.now()) != "open":
            return self._status("closed")
        think = round(1000 * (time.monotonic() - (self.offered or time.monotonic())))
        before = len(hand.events)
        played = hand.apply(kind, amount)
        self.offered = None
        if self.shown == before:
            self.shown += 1  # the hero's own action is not sent back
        if not self.seat.add_action(hand.index, len(hand.actions) - 1, played, think):
            return self._status("closed")
        return self.state()
