"""A WebAssembly policy in the hero seat of a duplicate match: the series host's rules.

The policy is loaded and started with `holdemjax.series.wasm` and spoken to with the messages of
PROTOCOL.md (`protocol.act_message`, `protocol.parse_reply`, `protocol.Clock`), with the same
clock and reply rules as a series. The differences, all from the match having no tournament:

* the ``start`` message has ``variant`` ``"duplicate"``, ``tournaments`` 1 and a ``format`` of
  kind ``"duplicate"`` (one blind level, ``hand_cap`` = the match's hands); ``seed`` is the hero
  seat's key words (`match.bot_key`), the same for every participant, so two copies of one
  policy play identical lines;
* ``tournament`` is always 0 and ``hand`` is the match's hand index; stacks reset every hand;
* the time bank refills at the start of every hand (every hand stands alone, as its chips do);
* there is no ``tournament_end``; ``hand_end`` follows every hand (5 ms, no bank);
* only the hero seat is a policy: there is no chat from other seats, and the hero's own chat
  and emotes are read and dropped (a match has no table talk).

A policy that traps or goes over its memory is benched (check/fold) for the rest of its line; two
timeouts in a row make it away (check/fold) until it sends ``sit_in`` (in the reply to an away
decision or to a ``hand_end``). Nothing it does stops the
host.
"""

from __future__ import annotations

from holdemjax.series import protocol
from holdemjax.series.turn import decision_turn, notify_turn

__all__ = ["WasmHero"]


class WasmHero:
    """A ``.wasm`` policy file as the hero of a line (the interface of `match.BotHero`).

    ``counts`` tallies the recorded outcomes (``ok``, ``timeout``, ``bad_reply``, ...);
    ``fault`` is the cause once benched. `begin` raises `wasm.PolicyLoadError` when the policy
    fails to load or start (the participant then never joins).
    """

    kind = "wasm"

    def __init__(self, path: str, *, shot_ns: int = protocol.SHOT_NS,
                 bank_ns: int = protocol.BANK_NS):
        import hashlib
        import pathlib

        self.path = str(path)
        self.source = self.path
        try:
            self.sha256 = hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
        except OSError:
            self.sha256 = ""  # load_policy names the problem in begin()
        self.clock = protocol.Clock(shot_ns, bank_ns, protocol.DECISION_MAX_NS, refill=True)
        self.counts: dict[str, int] = {}
        self.fault: str | None = None  # the cause that benched it (PROTOCOL §4's name)
        self.fault_detail = ""  # ... and what the call added (a trap's code, ...)
        self.policy = None
        self._seen = 0

    def begin(self, spec, seed: int, match_id: str) -> None:
        from holdemjax.duplicate.spec import bot_key
        from holdemjax.series.wasm import load_policy

        self.policy = load_policy(self.path)
        n = spec.seats
        fmt = {"name": "duplicate", "kind": "duplicate", "seats": n,
               "starting_stack": spec.stack, "hands_per_level": spec.hands,
               "hand_cap": spec.hands, "levels": [[spec.small_blind, spec.big_blind, spec.ante]],
               "payouts_ppm": []}
        msg = protocol.start_message(fmt, slot=0, alias=f"hero-{match_id}",
                                     seed=bot_key(seed, spec.hero), variant="duplicate",
                                     tournaments=1, clock=self.clock)
        try:
            self.policy.start(protocol.encode(msg))
        except BaseException:
            self.policy.close()
            raise
        self.policy.new_tournament(0)
        aliases = ["hero" if s == spec.hero else f"{spec.tier_at(s)}-{s}" for s in range(n)]
        self._pending = [{"type": "tournament_start", "tournament": 0, "seat": spec.hero,
                          "aliases": aliases, "stacks": [spec.stack] * n}]

    def new_hand(self, hand) -> None:
        self.clock.new_tournament()  # the bank refills every hand
        self._seen = 0

    def _events(self, hand) -> list:
        events = self._pending + hand.events[self._seen:]
        self._pending, self._seen = [], len(hand.events)
        return events

    def _count(self, outcome: str) -> None:
        self.counts[outcome] = self.counts.get(outcome, 0) + 1

    def _call(self, message: dict, budget: int):
        return self.policy.call(protocol.encode(message), budget)

    def decide(self, hand):
        """(kind, amount, auto) for the hero's decision: the policy's admitted action, or the
        default (check if free, else fold) with the reason as ``auto`` (the series host's
        policy turn, `turn.decision_turn`)."""
        if self.fault:
            out, _ = decision_turn(hand, self.clock, self._call, benched=True)
            return out.kind, out.amount, out.auto
        out, _ = decision_turn(hand, self.clock, self._call, events=self._events(hand))
        if out.fault:
            self.fault, self.fault_detail = out.fault, out.fault_detail
        if out.recorded is not None:  # every decision's outcome, faults included
            self._count(out.recorded)
        return out.kind, out.amount, out.auto

    def hand_over(self, hand, record) -> None:
        """``hand_end`` with the hand's last events (5 ms, no bank; running out is a fault); the
        reply is read for ``sit_in`` (PROTOCOL §4), its chat dropped."""
        if self.fault:
            return
        msg = {"type": "hand_end", "events": self._events(hand), "tournament": 0,
               "hand": hand.index}
        out = notify_turn(self._call, msg, self.clock)  # its sit_in brings an away seat back
        if out.fault:
            self.fault, self.fault_detail = out.fault, out.fault_detail

    def end(self) -> None:
        if self.policy is not None:
            self.policy.close()
