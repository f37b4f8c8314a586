"""One participant's own line, as the store deals it (`store.Store.seat`, with the line's key).

The seat holds the match's seed for the engine and never shows it: it deals the line's next
hand (`Seat.hand`), plays the bots' decisions in it (`Seat.bot_action`), starts an in-process
hero (`Seat.begin_hero`: a wasm policy, a registered bot or a checkpoint, which get the hero
seat's key from the seed as the match rules say) and writes the line one action at a time.
It refuses to deal under engine, bot or preflop-table versions other than the match's
(`spec.versions`). It reads and writes its line through the `store.LineRows` the store handed
it: no SQL here.
"""

from __future__ import annotations

import dataclasses

from holdemjax.duplicate import spec

__all__ = ["Seat"]


class Seat:
    """``participant`` (the line's own, true status), ``spec``, ``match_id``, ``state`` (the
    match's, when the seat was taken), ``reference``."""

    def __init__(self, rows, record, participant, *, reference: bool = False):
        self._rows, self._seed = rows, record.seed
        self._versions = record.versions
        self.match_id, self.spec, self.state = record.id, record.spec, record.state
        self.participant, self.reference = participant, reference

    def __repr__(self) -> str:
        return f"Seat({self.match_id!r}, {getattr(self.participant, 'name', None)!r})"

    @property
    def name(self) -> str:
        return self.participant.name

    def check_versions(self) -> None:
        """MatchError naming the parts whose checksums differ from the match's."""
        if not self._versions:  # a match of a version-1 store recorded none
            return
        now = spec.versions()
        bad = [f"{k} {self._versions.get(k, '-')[:12]} (this process: {now.get(k, '-')[:12]})"
               for k in sorted(set(now) | set(self._versions))
               if now.get(k) != self._versions.get(k)]
        if bad:
            raise spec.MatchError(f"match {self.match_id} was created under other versions and is "
                                  f"not dealt under these: {'; '.join(bad)}")

    def progress(self) -> tuple[int, list]:
        """(the first unfinished hand, the actions stored for it so far) of this line."""
        return self._rows.progress()

    def decisions(self) -> int:
        """How many hero decisions this line has made (its stored hero actions, every hand):
        the id of the decision it is offered next (`live.LiveLine`)."""
        return self._rows.decisions(self.spec.hero)

    def hand(self):
        """The line's next unfinished hand (`match.Hand`), with its stored actions replayed;
        None when the line has played every hand."""
        from holdemjax.duplicate.match import Hand, replay

        self.check_versions()
        start, stored = self.progress()
        if start >= self.spec.hands:
            return None
        hand = Hand(self.spec, self._seed, start)
        replay(hand, stored)
        return hand

    def bot_action(self, hand) -> tuple[int, int]:
        """The engine action of the bot to act in ``hand`` (not the hero seat)."""
        from holdemjax.duplicate.match import bot_decide

        seat = hand.to_act
        if seat == self.spec.hero:
            raise ValueError(f"seat {seat} is the hero's: no bot acts there")
        return bot_decide(self.spec.tier_at(seat), hand.view(), spec.bot_key(self._seed, seat))

    def players(self, hero=None) -> dict:
        """The seats' players for the one hand loop (`holdemjax.host.loop.play_hand`): the bots
        in every seat but the hero's, whose player is ``hero`` (None: it waits for the caller).
        """
        bots = {s: self._bot for s in range(self.spec.seats) if s != self.spec.hero}
        return {**bots, self.spec.hero: hero}

    def _bot(self, hand) -> tuple[int, int, None]:
        return (*self.bot_action(hand), None)

    def begin_hero(self, hero) -> None:
        """``hero.begin(spec, seed, match_id)``: an in-process hero (bot, wasm host, checkpoint)
        derives the hero seat's key from the seed."""
        self.check_versions()
        hero.begin(self.spec, self._seed, self.match_id)

    # -------------------------------------------------------------------------- writing
    def add_action(self, hand: int, idx: int, action, think_ms: int | None = None) -> bool:
        """Save one action ``[street, seat, code, to, added, auto]`` of an unfinished hand
        (``think_ms``: the hero's thinking time). Returns False, saving nothing, when the line
        was closed meanwhile: a closed line never grows."""
        return self._rows.add_action(hand, idx, action, think_ms)

    def finish_hand(self, record: dict, *, last: bool, now) -> bool:
        """Save a finished hand (and finish the line after its last hand), in one transaction;
        False when the line was closed meanwhile (nothing saved)."""
        if not self._rows.finish_hand(record, last, now):
            return False
        if last:
            self.participant = dataclasses.replace(self.participant, status="finished")
        return True
