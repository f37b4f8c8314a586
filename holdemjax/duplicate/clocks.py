"""The clocks of simultaneous matches (`spec.MatchSpec.simultaneous`), kept in the store so that
a restarted service goes on where they stood (issue 50, finding 7).

The open hand's clock starts when the service first sees the hand open to all; that moment is
stored in wall-clock seconds (`store.Store.open_round`), so a restarted service counts the time
already used and the time it was down: a clock that ran out meanwhile acts at its first tick.
A line's rule of away is the series' `protocol.Clock`: two hands run out in a row make the line
away, and a decision shown to its player brings it back. Its run of timeouts and its away mark
are stored at each change (`store.Store.mark_clock`) and read back when first needed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from holdemjax.series import protocol

__all__ = ["FieldClocks"]


class FieldClocks:
    """The clocks of the simultaneous matches in ``store``, on the time ``now`` gives (wall-clock
    seconds: a stored moment must mean the same to the next process)."""

    def __init__(self, store, now: Callable[[], float]):
        self.store, self.now = store, now
        self._rounds: dict[str, tuple[int, float]] = {}  # match -> (open hand, opened at)
        self._line_clocks: dict[tuple[str, str], protocol.Clock] = {}  # (match, name) -> its clock
        self._guard = threading.Lock()

    def deadline(self, match_id: str):
        """(the match's `store.Round`, the time its open hand's clock runs out); (round, None)
        when no hand is open to all, (None, None) for a match that is not simultaneous."""
        r = self.store.round(match_id)
        if r is None or r.hand is None or not r.behind:
            return r, None
        with self._guard:
            seen = self._rounds.get(match_id)
        if seen is None or seen[0] != r.hand:
            seen = (r.hand, self.store.open_round(match_id, r.hand, self.now()))
            with self._guard:
                self._rounds[match_id] = seen
        return r, seen[1] + self.store.match(match_id).spec.clock

    def seconds_left(self, match_id: str) -> int | None:
        """The whole seconds left on the open hand's clock (None: no hand is open to all)."""
        _, deadline = self.deadline(match_id)
        return None if deadline is None else max(0, round(deadline - self.now()))

    def line(self, match_id: str, name: str) -> protocol.Clock:
        """The line's series clock, with its run of timeouts and away mark as kept."""
        clock = self._line_clocks.get((match_id, name))
        if clock is None:
            fresh = protocol.Clock(self.store.match(match_id).spec.clock * 10**9, 0, None)
            fresh.timeouts_in_a_row, fresh.away = self.store.clock_marks(match_id, name)
            with self._guard:  # read above, outside the guard
                clock = self._line_clocks.setdefault((match_id, name), fresh)
        return clock

    def ran_out(self, match_id: str, name: str) -> None:
        """The table played the rest of the line's hand: one more timeout (two in a row: away)."""
        clock = self.line(match_id, name)
        clock.record_decision("timeout", 0)
        self._keep(match_id, name, clock)

    def shown_decision(self, match_id: str, name: str) -> None:
        """A decision was shown to the line's player: it is back (`protocol.Clock.sit_in`)."""
        clock = self.line(match_id, name)
        if clock.away or clock.timeouts_in_a_row:
            clock.sit_in()
            self._keep(match_id, name, clock)

    def forget(self, match_id: str) -> None:
        """Drop what is cached of a match that closed (the store keeps its rows)."""
        with self._guard:
            self._rounds.pop(match_id, None)
            for key in [k for k in self._line_clocks if k[0] == match_id]:
                del self._line_clocks[key]

    def _keep(self, match_id: str, name: str, clock: protocol.Clock) -> None:
        self.store.mark_clock(match_id, name, clock.timeouts_in_a_row, clock.away)
