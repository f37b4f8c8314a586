"""`ring-9`: nine seats, 1,500 chips, blinds 15/30 that never rise, at most 50 hands; the game
ends early when one player has all the chips. Score = chips at the end / chips in play (so the
rewards sum to 1); raw chips are ``env.tournament(state).table.stacks``. The same engine and env
code as the sit & go tournaments (`holdemjax.envs.sng`), with the RING scoring of its format."""

from __future__ import annotations

from holdemjax.envs.sng import SitAndGo, SngState
from holdemjax.poker.actions import DEFAULT_SIZES

__all__ = ["Ring", "SngState"]


class Ring(SitAndGo):
    def __init__(self, *, raise_sizes=DEFAULT_SIZES, zero_sum: bool = False,
                 _format: str = "ring-9"):
        super().__init__(raise_sizes=raise_sizes, zero_sum=zero_sum, _format=_format)
