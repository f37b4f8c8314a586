"""Canonical JSON of the host's messages whose ``events`` share event dicts (`EventText`): a
public event goes to every seat, so its JSON is made once and spliced into each message, and
the bytes are exactly `protocol.encode`'s.
"""

from __future__ import annotations

from holdemjax.series import protocol

__all__ = ["EventText"]

#: the events' place in `EventText`'s head (no other message holds it): ``"events":"\u0000"``
_PLACEHOLDER = protocol.encode({"events": "\x00"})[1:-1]


class EventText:
    """`protocol.encode` of messages whose ``events`` share event dicts (a public event goes
    to every seat): each event's canonical JSON is made once and spliced in, so the bytes are
    exactly `protocol.encode`'s. An event is cached by identity and held with its bytes (its id
    is not reused while cached); it must not change once sent. `clear` empties the cache."""

    def __init__(self):
        self._bytes: dict[int, tuple[dict, bytes]] = {}

    def clear(self) -> None:
        self._bytes.clear()

    def _of(self, event: dict) -> bytes:
        hit = self._bytes.get(id(event))
        if hit is None:
            hit = self._bytes[id(event)] = (event, protocol.encode(event))
        return hit[1]

    def encode(self, message: dict) -> bytes:
        events = message.get("events")
        if not events:
            return protocol.encode(message)
        # a placeholder no message holds elsewhere (table talk has its control characters
        # removed), in the events' place: keys stay sorted
        head = protocol.encode({**message, "events": "\x00"})
        cut = head.index(_PLACEHOLDER)
        return b"".join((head[:cut], b'"events":[', b",".join([self._of(e) for e in events]),
                         b"]", head[cut + len(_PLACEHOLDER):]))
