"""The tournaments of one block of a series, decision by decision (`Game`).

Per decision: the tournament engine (`holdemjax.series.engine`: the jitted steps of
`holdemjax.poker.tournament` on a packed device state, one call and one read per step, exact
amounts) says who acts; the one hand loop (`holdemjax.host.loop.play_hand`) asks the seat's
policy: the host hand driver (`holdemjax.host.hand.HostHand`) builds its ``act`` message, the
policy runs on its fuel budget, `turn.apply_outcome` turns the call into the protocol's rule;
the driver plays the action through the engine and records it, and the public events go to
every seat that is not faulted. Between hands this module
drives the tournament's boundaries itself (`tournament.advance_one` as the engine's programs).
No JAX runs inside a policy call, and nothing a policy does can stop the series.
"""

from __future__ import annotations

import concurrent.futures
import time

import jax
import numpy as np

from holdemjax.host.hand import HostHand
from holdemjax.host.loop import play_hand
from holdemjax.poker import table
from holdemjax.series import protocol
from holdemjax.series.engine import Engine, engine
from holdemjax.series.event_text import EventText
from holdemjax.series.luckbook import LuckBook
from holdemjax.series.results import SlotRecord, rounded
from holdemjax.series.turn import decision_turn, notify_turn

__all__ = ["Engine", "engine", "Slot", "Game"]


class Slot:
    """A slot's live status during the series."""

    def __init__(self, policy, clock: protocol.Clock, record: SlotRecord):
        self.policy = policy
        self.record = record
        self.events: list = []
        self.clock = clock  # for the whole series: away and a run of timeouts carry over
        self.chat_this_hand = 0

    @property
    def faulted(self) -> bool:
        return self.record.faulted_at is not None


class Game:
    """Plays tournaments for `runner.run_series` (kept between tournaments: the seats)."""

    def __init__(self, eng: Engine, seats, timer, seed, luck: bool = False):
        self.eng = eng
        # the decisions as played, for each tournament's luck (`luckbook`); None: no luck. The
        # luck of a finished tournament is computed on a thread of its own while the next one
        # is played (XLA runs without the GIL), and collected in order (`finish_luck`).
        self.luck = LuckBook(eng.name) if luck else None
        self._luck_pool = concurrent.futures.ThreadPoolExecutor(1) if luck else None
        self._luck_jobs: list = []  # (future, seat_of, replay) per tournament, in order
        self.seats, self.timer, self.seed = seats, timer, seed
        self.n = eng.format.num_seats
        self._current = None  # (state, replay, device state) at the start of the hand
        self._pending_chat = None
        self._last_used = 0
        self._buf = None  # the device state (packed) of the latest engine call
        self.hands_played = 0
        self.cut = None  # (tournament, hands): stop there, as the wall-time limit did (replays)
        # (tournament, slot, call) -> used_ns: machine-time guard trips to replay (PROTOCOL §3)
        self.guard_trips: dict = {}
        self._calls: list = []  # calls of each slot in this tournament
        self._text = EventText()  # each public event's JSON made once for all seats

    # ------------------------------------------------------------------ engine calls (timed)
    def _engine(self, fn, *args):
        """One jitted engine call (`engine.Engine`) from the device state ``self._buf`` (``seat``
        takes a key instead); the state it returns replaces it and comes back as host views
        ``(Tournament, Legal)``: one read of its chunks."""
        t0 = time.perf_counter()
        if fn is self.eng.seat:
            self._buf = fn(*args)
        else:
            self._buf = fn(self._buf, *(self.eng.scalar(a) for a in args))
        views = self.eng.host(self._buf)
        self.timer["engine"] += time.perf_counter() - t0
        return views

    def _act(self, kind: int, amount: int):
        """The engine's decision step of the hand driver (`HostHand`): `tournament.act`
        (the decision recorded for the tournament's luck first)."""
        if self.luck is not None:
            self.luck.note(self._buf, kind, amount)
        return self._engine(self.eng.act, kind, amount)

    def _boundary(self, stop: bool = False):
        """`tournament.advance_one` (``stop``: `tournament.stop`) as the engine's programs:
        the hand boundary, then the settlement when the state says it is due."""
        if stop:
            return self._engine(self.eng.settle, True)
        state, legal = self._engine(self.eng.boundary)
        if state.icm_due:
            return self._engine(self.eng.settle, False)
        return state, legal

    def _call(self, slot: int, message: dict, budget: int):
        """One call of the slot's policy. A machine-time guard trip (a ``wall_clock`` outcome,
        the one machine-dependent rule: PROTOCOL §3) is recorded in the tournament's replay as
        ``guard_trips`` (slot, the slot's call index in the tournament, the fuel it used), and
        a recorded trip (`guard_trips`) is replayed at the same call."""
        seat = self.seats[slot]
        index = self._calls[slot]
        self._calls[slot] += 1
        trip = self.guard_trips.get((self.t, slot, index))
        kwargs = {} if trip is None else {"guard_trip_ns": trip}
        t0 = time.perf_counter()
        try:
            result = seat.policy.call(self._text.encode(message), budget, **kwargs)
        finally:
            self.timer["policy"] += time.perf_counter() - t0
        seat.record.fuel_ns += int(result.used_ns)
        if result.outcome == protocol.WALL_CLOCK:
            self._current[1].setdefault("guard_trips", []).append(
                {"slot": slot, "call": index, "used_ns": int(result.used_ns)})
        return result

    # ------------------------------------------------------------------------------ events
    def _public(self, event: dict, replay_hand: dict | None) -> None:
        for s in self.seats:
            if not s.faulted:
                s.events.append(event)
        if replay_hand is not None:
            replay_hand["events"].append(event)

    def _fault(self, slot: int, out, hand: dict | None) -> None:
        """Bench ``slot`` for the fault of `turn.Outcome` ``out`` (its cause and detail apart)."""
        rec = self.seats[slot].record
        if rec.faulted_at is None:
            rec.faulted_at = self.t
            rec.fault = out.fault
            rec.faults.append((self.t, out.fault, out.fault_detail))
            self.seats[slot].events = []
            self._public({"type": "faulted", "seat": self.seat_of[slot]}, hand)

    def _outcome(self, slot: int, outcome: str) -> None:
        d = self.seats[slot].record.outcomes
        d[outcome] = d.get(outcome, 0) + 1

    def _chat(self, slot: int, reply: protocol.Reply, say: str | None, hand: dict | None,
              folded_or_out: bool) -> None:
        """Publish a reply's table talk; count every line that is not shown by its reason
        (`protocol.CHAT_DROPS`)."""
        s = self.seats[slot]
        seat = self.seat_of[slot]
        for why in reply.dropped:
            s.record.drop_chat(why)
        if say:
            self._public({"type": "chat", "seat": seat, "text": say, "say": True}, hand)
        for line in reply.chat:
            if s.chat_this_hand >= protocol.CHAT_LINES_PER_HAND:
                s.record.drop_chat("lines_per_hand")
                continue
            s.chat_this_hand += 1
            self._public({"type": "chat", "seat": seat, "text": line, "say": False}, hand)
        if reply.emote is not None:
            if folded_or_out:
                self._public({"type": "emote", "seat": seat, "emote": reply.emote}, hand)
            else:
                s.record.drop_chat("emote_in_hand")

    def _notify(self, message_type: str, extra: dict, hand: dict | None, folded) -> None:
        """hand_end / tournament_end to every seat that is not faulted (5 ms, no bank); a reply's
        ``sit_in`` brings an away seat back from its next decision."""
        for slot, s in enumerate(self.seats):
            if s.faulted:
                continue
            msg = {"type": message_type, "events": s.events, "tournament": self.t, **extra}
            s.events = []
            out = notify_turn(self._caller(slot), msg, s.clock)
            if out.fault:
                self._fault(slot, out, hand)
            elif out.reply is not None:
                self._chat(slot, out.reply, None, hand, bool(folded[self.seat_of[slot]]))
                if out.sat_in:
                    self._public({"type": "back", "seat": self.seat_of[slot]}, hand)

    # ------------------------------------------------------------------------- one tournament
    def play(self, t: int, deadline, progress):
        self.t = t
        self._calls = [0] * len(self.seats)
        eng = self.eng
        self._buf = None
        if self.luck is not None:
            self.luck.clear()
        t0 = time.perf_counter()
        key = jax.random.fold_in(jax.random.key(self.seed), t)
        self.timer["engine"] += time.perf_counter() - t0
        state, legal = self._engine(eng.seat, key)
        while bool(state.table.hand_over) and not bool(state.finished):  # tournament.start's
            state, legal = self._boundary()  # advance: a hand dealt already over
        self.seat_of = np.asarray(state.seat_of).tolist()  # slot (player id) -> seat
        player_at = self.player_at = np.asarray(state.player_at).tolist()  # seat -> slot
        for s in self.seats:
            s.clock.new_tournament()
            if hasattr(s.policy, "new_tournament"):
                s.policy.new_tournament()
        aliases = [self.seats[p].record.alias for p in player_at]
        replay = {"tournament": t, "env": eng.name, "player_at_seat": player_at,
                  "aliases": aliases, "hands": [], "stopped_early": False}
        for slot, s in enumerate(self.seats):
            s.events.append({"type": "tournament_start", "tournament": t,
                             "seat": self.seat_of[slot], "aliases": aliases,
                             "stacks": np.asarray(state.table.stacks).astype(int).tolist()})
        self._current = (state, replay, self._buf)
        cut = False
        hand = None
        while not bool(state.finished):
            if hand is not None:
                self.hands_played += 1
                if progress is not None:
                    progress({"tournament": t, "hands": self.hands_played})
                if self._stop_now(deadline, t, len(replay["hands"])):
                    state, legal = self._boundary(stop=True)
                    replay["stopped_early"] = cut = True
                    break
            hand, drv = self._start_hand(state, legal, replay)
            self._play_hand(drv, hand)
            self._end_hand(drv, hand)
            state, legal = self._next_hands(drv.state, hand, replay, progress, t)
        if not cut:
            self.hands_played += 1
        if progress is not None:
            progress({"tournament": t, "hands": self.hands_played, "tournament_done": True})
        self._end_tournament(state, replay, hand)
        self._current = None
        return replay, cut

    def _play_hand(self, drv: HostHand, hand: dict) -> None:
        """One hand through the one loop (`loop.play_hand`), every seat's policy in it; each
        decision recorded and published as it is played."""
        players = {seat: self._player(slot, hand) for seat, slot in enumerate(self.player_at)}
        for step in play_hand(drv, players):
            event = step.played
            hand["actions"].append({**event, "used_ns": self._last_used})
            self._public(event, hand)
            self._after_action(hand)
            for e in drv.board():
                self._public(e, hand)

    def _player(self, slot: int, hand: dict):
        """The loop's player of ``slot``: its policy's turn (`_decide`)."""
        return lambda drv: self._decide(drv, slot, hand)

    def _stop_now(self, deadline, t: int, hands: int) -> bool:
        """At a hand boundary of tournament ``t`` after ``hands`` recorded hands: stop the
        series here (the wall-time limit has passed, or a replayed stop is reached)?"""
        if self.cut is not None and self.cut[0] == t and hands >= self.cut[1] > 0:
            return True
        return deadline is not None and time.perf_counter() > deadline

    def _next_hands(self, ended, hand, replay, progress, t):
        """From a finished hand to the next decision (or the end), one hand boundary at a time:
        a hand in which nobody could act (everyone all-in from the blinds) is recorded too."""
        prev = ended
        while True:
            nxt, legal = self._boundary()  # the ICM settled with the boundary that ends the game
            self._eliminations(prev, nxt, hand)
            if bool(nxt.finished) or not bool(nxt.table.hand_over):
                return nxt, legal
            self.hands_played += 1
            if progress is not None:
                progress({"tournament": t, "hands": self.hands_played})
            hand, drv = self._start_hand(nxt, legal, replay)  # dealt and already over
            for e in drv.board():
                self._public(e, hand)
            self._end_hand(drv, hand)
            prev = nxt

    def finish_interrupted(self):
        """Ctrl-C: end the tournament in progress as at the wall-time stop (from the start of
        the hand in progress)."""
        _, replay, self._buf = self._current
        state, _ = self._boundary(stop=True)
        replay["stopped_early"] = True
        self._end_tournament(state, replay, None, notify=False)
        return replay, True

    def _start_hand(self, state, legal, replay) -> tuple[dict, HostHand]:
        tbl = state.table
        self._text.clear()
        drv = HostHand(self._act, state, legal)
        log = drv.log
        in_hand = np.asarray(tbl.in_hand).astype(bool)
        hole = log.hole()
        base = log.start_event()
        hand = {"hand": base["hand"], "button": base["button"], "sb": base["sb"],
                "bb": base["bb"], "blinds": base["blinds"], "stacks": base["stacks"],
                "hole": [hole[s] if in_hand[s] else None for s in range(self.n)],
                "board": log.board_cards(),
                "actions": [], "events": [base]}
        replay["hands"].append(hand)
        self._current = (state, replay, self._buf)
        for slot, s in enumerate(self.seats):
            s.chat_this_hand = 0
            seat = self.seat_of[slot]
            s.events.append({**base, "hole": hand["hole"][seat]})
            if s.clock.away and in_hand[seat]:
                s.record.away_hands += 1
        return hand, drv

    def _caller(self, slot: int):
        """``call(message, budget)`` of the slot's policy for a policy turn (`_call`)."""
        return lambda message, budget: self._call(slot, message, budget)

    def _decide(self, drv: HostHand, slot: int, hand):
        """(kind, amount, auto) for the slot to act: its policy's turn (`turn.decision_turn`),
        then what the table publishes and counts of it."""
        s = self.seats[slot]
        out, self._last_used = decision_turn(drv, s.clock, self._caller(slot), events=s.events,
                                             tournament=self.t, benched=s.faulted)
        if s.faulted:
            return out.kind, out.amount, out.auto
        s.events = []
        if out.auto == "away":
            if out.fault:
                self._fault(slot, out, hand)
            elif out.reply is not None:  # the seat acts, so it is in the hand: no emote
                self._chat(slot, out.reply, None, hand, False)
                if out.sat_in:
                    self._public({"type": "back", "seat": self.seat_of[slot]}, hand)
            return out.kind, out.amount, out.auto
        if out.went_away:
            self._public({"type": "away", "seat": self.seat_of[slot]}, hand)
        if out.auto == "timeout":
            s.record.timeouts += 1
        if out.fault:
            self._fault(slot, out, hand)
        else:
            self._outcome(slot, out.recorded)
        if out.auto is None:
            self._pending_chat = (slot, out.reply)
        elif out.reply is not None:  # a reply that was read but not admitted: its chat counts
            self._chat(slot, out.reply, None, hand, False)
        return out.kind, out.amount, out.auto

    def _after_action(self, hand) -> None:
        pending, self._pending_chat = self._pending_chat, None
        if pending is not None:
            slot, reply = pending
            self._chat(slot, reply, reply.say, hand, reply.kind == table.FOLD)

    def _end_hand(self, drv: HostHand, hand) -> None:
        m = drv.table
        for e in drv.end():
            self._public(e, hand)
        winnings = np.asarray(m.winnings).astype(int).tolist()
        stacks = np.asarray(m.stacks).astype(int).tolist()
        hand["winnings"], hand["stacks_after"] = winnings, stacks
        start = np.asarray(m.start_stacks)
        for seat in range(self.n):
            slot = self.player_at[seat]
            self.seats[slot].record.chips_won += int(stacks[seat]) - int(start[seat])
        self._notify("hand_end", {"hand": hand["hand"]}, hand, np.asarray(m.folded)
                     | ~np.asarray(m.in_hand))

    def _eliminations(self, mid, state, hand) -> None:
        before = np.asarray(mid.place)
        after = np.asarray(state.place)
        for seat in np.flatnonzero((after > 0) & (before == 0)).tolist():
            self._public({"type": "eliminated", "seat": seat, "place": int(after[seat])}, hand)

    def _end_tournament(self, state, replay, hand, notify: bool = True) -> None:
        t0 = time.perf_counter()
        places, rewards = (np.asarray(x) for x in self.eng.end(self._buf))
        self.timer["engine"] += time.perf_counter() - t0
        place = places.astype(int)
        score = np.asarray(state.score, np.float64)
        rewards = rewards.astype(np.float64)  # by player id = slot
        for slot, s in enumerate(self.seats):
            s.record.scores.append(float(rewards[slot]))
            s.record.places.append(int(place[self.seat_of[slot]]))
        if self.luck is not None:
            job = self._luck_pool.submit(self._tournament_luck, self.luck.take(), self.t)
            self._luck_jobs.append((job, list(self.seat_of), replay))
        replay["places"] = place.tolist()
        replay["scores"] = [round(float(x), 6) for x in score]
        replay["hands_played"] = len(replay["hands"])
        if replay["hands"]:  # the last hand recorded, auto-played or not, takes the chat
            hand = replay["hands"][-1]
        if notify:
            self._notify("tournament_end", {"places": place.tolist(),
                                            "scores_ppm": [int(round(x * 1e6)) for x in score]},
                         hand, np.ones(self.n, bool))

    # ------------------------------------------------------------------------------ luck
    def _tournament_luck(self, rows, t: int):
        t0 = time.perf_counter()
        luck = self.luck.luck(self.seed, t, rows)  # [events, seats]
        return luck, time.perf_counter() - t0

    def finish_luck(self) -> None:
        """Wait for the luck of the tournaments played and record it, in their order: each
        slot's (`SlotRecord.luck`) and the replay's (``luck`` by seat). No-op without luck."""
        jobs, self._luck_jobs = self._luck_jobs, []
        for job, seat_of, replay in jobs:
            luck, seconds = job.result()
            self.timer["luck"] = self.timer.get("luck", 0.0) + seconds
            for slot, s in enumerate(self.seats):
                s.record.luck.append([float(x) for x in luck[:, seat_of[slot]]])
            replay["luck"] = [[rounded(x) for x in row] for row in luck.T]  # by seat

    def close(self) -> None:
        """Stop the luck's thread (what it has not started is dropped)."""
        if self._luck_pool is not None:
            self._luck_pool.shutdown(wait=False, cancel_futures=True)
