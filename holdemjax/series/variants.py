"""The series variants (PROTOCOL §3, SPEC §3) and the table identities of the slots.

A `Variant` fixes the table format, the number of tournaments (or games), the seats and the
clock. Each slot keeps one table alias and one avatar for the whole series, drawn from the
series seed (`identities`); the lists are fixed and their order is part of the replay format.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from holdemjax.series import protocol

__all__ = ["Variant", "VARIANTS", "ALIASES", "AVATARS", "identities"]


#: ring-9-series: the most one decision may use, shot clock and bank together.
RING_DECISION_MAX_NS = 1_000 * protocol.MS


@dataclasses.dataclass(frozen=True)
class Variant:
    """A series variant: the table format, the number of tournaments (or games), the seats and
    the clock (PROTOCOL §3; ``decision_max_ns=None``: no cap; ``bank_refills``: per tournament
    or once for the whole series)."""

    name: str
    env_id: str
    tournaments: int
    seats: int
    shot_ns: int = protocol.SHOT_NS
    bank_ns: int = protocol.BANK_NS
    decision_max_ns: int | None = protocol.DECISION_MAX_NS
    bank_refills: bool = True

    def clock(self, shot_ns: int | None = None, bank_ns: int | None = None) -> protocol.Clock:
        """The clock of one seat; a ``shot_ns`` above the variant's cap raises the cap to it
        (a decision always gets at least its shot clock)."""
        shot = self.shot_ns if shot_ns is None else shot_ns
        cap = self.decision_max_ns
        if cap is not None and isinstance(shot, int) and shot > cap:
            cap = shot
        return protocol.Clock(shot, self.bank_ns if bank_ns is None else bank_ns, cap,
                              self.bank_refills)


VARIANTS = {
    v.name: v
    for v in (
        Variant("series-100", "sng-6", 100, 6),
        Variant("series-10", "sng-6", 10, 6),
        Variant("series-1000", "sng-6", 1000, 6),
        Variant("certify-series", "certify", 3, 6),
        # Nine seats, 10 games, chips-at-end score: 200 ms per action and a 30 s bank for the
        # whole series, at most 1 s for one decision (so that one decision cannot hold the
        # series for minutes; issue 15).
        Variant("ring-9-series", "ring-9", 10, 9, shot_ns=200 * protocol.MS,
                bank_ns=30_000 * protocol.MS, decision_max_ns=RING_DECISION_MAX_NS,
                bank_refills=False),
    )
}

#: Table aliases and avatars: each slot keeps one of each for the whole series.
ALIASES = ("Ada", "Blaise", "Carl", "Dorothy", "Emmy", "Felix", "Grace", "Hedy", "Isaac",
           "Johann", "Kurt", "Leonhard", "Marie", "Niels", "Olga", "Pierre", "Rosalind", "Sofia")
AVATARS = ("fox", "owl", "bear", "wolf", "hare", "lynx", "crow", "seal", "stag", "otter",
           "heron", "bison")


def identities(seed: int, n: int) -> tuple[list[str], list[str]]:
    """(aliases, avatars) of slots 0..n-1 for the series ``seed``."""
    rng = np.random.default_rng([seed, 0xA11A5])
    aliases = [ALIASES[i] for i in rng.permutation(len(ALIASES))[:n]]
    avatars = [AVATARS[i] for i in rng.permutation(len(AVATARS))[:n]]
    return aliases, avatars
