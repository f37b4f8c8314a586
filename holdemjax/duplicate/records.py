"""What the store returns: a match as anyone may see it, a participant, a line (`store.Store`)."""

from __future__ import annotations

import dataclasses

from holdemjax.duplicate.spec import MatchError, MatchSpec

__all__ = ["MatchRecord", "Participant", "Line", "Round", "Sealed", "JOINED", "sealed_until"]

JOINED = "joined"  # the status every participant shows while the match is open


class Sealed(MatchError):
    """Results, histories and progress of an open match are sealed."""


@dataclasses.dataclass(frozen=True)
class MatchRecord:
    """One match as anyone may see it: ``seed`` and ``salt`` are None until it is closed.
    ``versions``: the checksums it was created under (`spec.versions`; empty for a match of a
    version-1 store)."""

    id: str
    created_at: str
    spec: MatchSpec
    seed: int | None
    salt: str | None
    commitment: str
    state: str
    closed_at: str | None
    close_reason: str | None
    versions: dict
    field_closed: bool

    def field_complete(self, joined: int) -> bool:
        """Nobody can join once ``joined`` participants have: the field closed, or full."""
        return self.field_closed or (self.spec.participants is not None
                                     and joined >= self.spec.participants)


@dataclasses.dataclass(frozen=True)
class Round:
    """Where a simultaneous match stands (`store.Store.round`): ``hand``, the hand open to every
    line (None while the field is not complete: nothing is dealt; the match's hand count once
    every line finished); ``behind``, the lines that have not finished it."""

    hand: int | None
    behind: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Participant:
    name: str
    kind: str  # "wasm", "bot", "person", "api" or "reference"
    source: str
    sha256: str
    status: str  # "playing", "finished", "unfinished"; JOINED while the match is open
    joined_at: str
    finished_at: str | None


@dataclasses.dataclass
class Line:
    """A participant's line: its finished hands by index (`match.Hand.record` dicts) and the
    thinking time of each hero decision, in ms (``think_ms``; None where not measured)."""

    participant: Participant
    hands: dict
    think_ms: list = dataclasses.field(default_factory=list)

    @property
    def name(self) -> str:
        return self.participant.name

    @property
    def reference(self) -> bool:
        return self.participant.kind == "reference"


def sealed_until(m: MatchRecord) -> Sealed:
    """`Sealed` for the open match ``m``, saying how it closes (no command to run: the words
    reach a browser as they are)."""
    ways = ["the operator closing it"]
    if m.spec.deadline:
        ways.append(f"its deadline {m.spec.deadline}")
    ways.append("every line finishing once nobody can join"
                + (f" ({m.spec.participants} participants)" if m.spec.participants else
                   " (the operator closes the field)"))
    return Sealed(f"match {m.id} is sealed until it closes: results, hand histories and "
                  f"progress stay hidden; it closes by {' or '.join(ways)}")
