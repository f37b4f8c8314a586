"""A wasm seat's policy call mapped to the protocol's rule (PROTOCOL.md §3-§4): `apply_outcome`
turns one call's `wasm.CallResult` into the action the table plays, the clock's charge, away
and sit-in, the fault that benches the policy and the reply whose chat may be read; one policy
turn (`decision_turn`, `notify_turn`: the message, the call, its rule) serves the series and a
duplicate wasm hero. Callers decide only what they publish (events, chat) and count.
"""

from __future__ import annotations

import dataclasses

from holdemjax.host.legal import default_action
from holdemjax.series import protocol

__all__ = ["Outcome", "apply_outcome", "decision_turn", "notify_turn"]


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one policy call comes to (PROTOCOL §3-§4).

    ``kind``/``amount``: the engine action to play (the reply's, or `default_action`);
    ``auto``: why the table acted for the seat (None: the reply's action was admitted;
    "timeout", "fault", "bad_reply", "away"); ``recorded``: the outcome of a decision's call
    (``ok``, ``timeout``, a fault, a transport outcome or the reply's ``bad_reply`` /
    ``illegal_action`` / ``bad_amount``), None for away calls and notifications; ``fault``:
    the cause when the policy must be benched, exactly as PROTOCOL §4 names it
    (`protocol.FAULTS` or ``out_of_compute``), and ``fault_detail`` what the call adds apart
    (a trap's code, ...; "" when nothing); ``reply``: the parsed reply when its chat may be
    read; ``went_away``: this decision made the seat away; ``sat_in``: an away seat came back.
    """

    kind: int | None = None
    amount: int = 0
    auto: str | None = None
    recorded: str | None = None
    fault: str | None = None
    fault_detail: str = ""
    reply: protocol.Reply | None = None
    went_away: bool = False
    sat_in: bool = False


def apply_outcome(result, legal: dict | None = None, clock: protocol.Clock | None = None, *,
                  notify: str | None = None) -> Outcome:
    """The rule for one call's `wasm.CallResult` (or an object with ``outcome``, ``reply``,
    ``used_ns``, ``detail``).

    * A notification (``notify`` = its message type): a fault (`protocol.FAULTS`) benches the
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
        if o in protocol.FAULTS:
            return Outcome(fault=o, fault_detail=result.detail)
        if o == "timeout":
            return Outcome(fault="out_of_compute",
                           fault_detail=f"{notify} used its {protocol.NOTIFY_NS} ns")
        if o == "ok":
            reply = protocol.parse_reply(result.reply, None)
            back = (reply.outcome == "ok" and reply.sit_in and clock is not None
                    and clock.away)
            if back:
                clock.sit_in()
            return Outcome(reply=reply, sat_in=back)
        return Outcome()
    kind, amount = default_action(legal)
    if clock.away:
        if o in protocol.FAULTS:
            return Outcome(kind, amount, "away", fault=o, fault_detail=result.detail)
        if o == "ok":
            reply = protocol.parse_reply(result.reply, None)
            back = reply.outcome == "ok" and reply.sit_in
            if back:
                clock.sit_in()
            return Outcome(kind, amount, "away", reply=reply, sat_in=back)
        return Outcome(kind, amount, "away")
    went_away = clock.record_decision(o, result.used_ns)  # charges the bank
    if o == "timeout":
        return Outcome(kind, amount, "timeout", "timeout", went_away=went_away)
    if o in protocol.FAULTS:
        return Outcome(kind, amount, "fault", o, o, result.detail, went_away=went_away)
    if o != "ok":  # no_reply, bad_alloc, bad_pointer, reply_too_long
        return Outcome(kind, amount, "bad_reply", o, went_away=went_away)
    reply = protocol.parse_reply(result.reply, legal)
    if reply.kind is None:
        return Outcome(kind, amount, "bad_reply", reply.outcome, reply=reply,
                       went_away=went_away)
    return Outcome(reply.kind, reply.amount, None, "ok", reply=reply, went_away=went_away)


# ----------------------------------------------------------------------- one policy turn
def decision_turn(hand, clock: protocol.Clock, call, *, events=(), tournament: int = 0,
                  benched: bool = False) -> tuple[Outcome, int]:
    """One decision of a wasm seat, for the series and a duplicate wasm hero alike: the
    ``act`` message of the seat to act in ``hand`` (`HostHand.view`) with the clock's budget
    and the seat's pending ``events``, the policy's call (``call(message, budget) ->
    CallResult``) and the rule for its outcome (`apply_outcome`). A ``benched`` seat is not
    called: the table's default action, ``auto`` "fault". Returns the outcome and the fuel the
    call used (0 without a call); the caller hands the action on to the hand loop."""
    legal = protocol.legal_info(hand.legal)
    if benched:
        return Outcome(*default_action(legal), "fault"), 0
    budget = clock.decision_budget()
    message = hand.view(tournament=tournament, events=events, budget_ns=budget,
                        bank_ns=clock.bank_ns, away=clock.away)
    result = call(message, budget)
    return apply_outcome(result, legal, clock), int(result.used_ns)


def notify_turn(call, message: dict, clock: protocol.Clock) -> Outcome:
    """A notification to a wasm seat (``message``: ``hand_end`` or ``tournament_end``) on its
    fixed budget (`protocol.NOTIFY_NS`), and the rule for its outcome (`apply_outcome`)."""
    return apply_outcome(call(message, protocol.NOTIFY_NS), clock=clock, notify=message["type"])
