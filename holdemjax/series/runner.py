"""One series: six (or nine) policies, many tournaments, one rules engine, compute as the clock.

The host loop, per decision: ask the engine (the tournament env's jitted ``act_exact`` /
``settle``, exact amounts) who acts, encode the seat's message (`protocol.act_message`), run the
policy on its fuel budget (`wasm.WasmPolicy.call` or any object with the same methods), read the
reply (`protocol.parse_reply`), apply it or the default action, and queue the public events for
every seat. No JAX runs inside a policy call, and nothing a policy does can stop the series: every
outcome maps to one rule of PROTOCOL.md §3-§4.

Determinism: the deck of tournament ``t`` comes from ``fold_in(key(seed), t)`` (the env's
``init``, which also shuffles the seating), each slot's seed from `protocol.slot_seed`, aliases
and avatars from ``seed``; budgets are fuel. Only the ``timing`` block of the result depends on
the machine. The wall-time limit stops the series at a hand boundary (`SitAndGo.stop`); the cut
tournament is flagged ``stopped_early`` and counts, as at the hand cap.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Sequence

import jax
import numpy as np

import holdemjax
from holdemjax.poker import table as tb
from holdemjax.poker.cards import card_text
from holdemjax.series import protocol as P

__all__ = ["VARIANTS", "ALIASES", "AVATARS", "Variant", "Series", "run_series", "SeriesFailed"]


@dataclasses.dataclass(frozen=True)
class Variant:
    """A series variant: the table format, the number of tournaments (or games), the seats and
    the clock (PROTOCOL §3; ``decision_max_ns=None``: no cap; ``bank_refills``: per tournament
    or once for the whole series)."""

    name: str
    env_id: str
    tournaments: int
    seats: int
    shot_ns: int = P.SHOT_NS
    bank_ns: int = P.BANK_NS
    decision_max_ns: int | None = P.DECISION_MAX_NS
    bank_refills: bool = True

    def clock(self, shot_ns: int | None = None, bank_ns: int | None = None) -> P.Clock:
        return P.Clock(self.shot_ns if shot_ns is None else shot_ns,
                       self.bank_ns if bank_ns is None else bank_ns,
                       self.decision_max_ns, self.bank_refills)


VARIANTS = {
    v.name: v
    for v in (
        Variant("series-100", "sng-6", 100, 6),
        Variant("series-10", "sng-6", 10, 6),
        Variant("series-1000", "sng-6", 1000, 6),
        Variant("certify-series", "certify", 3, 6),
        # Nine seats, 10 games, chips-at-end score: 200 ms per action and a 30 s bank for the
        # whole series.
        Variant("ring-9-series", "ring-9", 10, 9, shot_ns=200 * P.MS, bank_ns=30_000 * P.MS,
                decision_max_ns=None, bank_refills=False),
    )
}

#: Table aliases and avatars: each slot keeps one of each for the whole series, drawn from the
#: series seed (`_identities`). Fixed lists; their order is part of the replay format.
ALIASES = ("Ada", "Blaise", "Carl", "Dorothy", "Emmy", "Felix", "Grace", "Hedy", "Isaac",
           "Johann", "Kurt", "Leonhard", "Marie", "Niels", "Olga", "Pierre", "Rosalind", "Sofia")
AVATARS = ("fox", "owl", "bear", "wolf", "hare", "lynx", "crow", "seal", "stag", "otter",
           "heron", "bison")


class SeriesFailed(Exception):
    """The series cannot run: a policy failed to load or start (PROTOCOL §4). ``slot`` is the
    policy charged with it."""

    def __init__(self, slot: int, message: str):
        super().__init__(message)
        self.slot = slot


@dataclasses.dataclass
class SlotRecord:
    alias: str
    avatar: str
    name: str
    sha256: str
    scores: list = dataclasses.field(default_factory=list)  # per tournament
    places: list = dataclasses.field(default_factory=list)  # per tournament, 1-based
    chips_won: int = 0
    timeouts: int = 0
    away_hands: int = 0
    faulted_at: int | None = None  # the first fault's tournament
    fault: str | None = None  # ... and its cause
    faults: list = dataclasses.field(default_factory=list)  # every fault: (tournament, cause)
    outcomes: dict = dataclasses.field(default_factory=dict)  # recorded reply outcomes
    chat_dropped: int = 0
    fuel_ns: int = 0


@dataclasses.dataclass
class Series:
    """The result of `run_series` (serialised by `holdemjax.series.results`)."""

    variant: str
    seed: int
    slots: list  # [SlotRecord]
    tournaments: list  # per tournament: replay dict
    tournaments_played: int
    stopped_early: bool
    timing: dict


def _identities(seed: int, n: int):
    rng = np.random.default_rng([seed, 0xA11A5])
    aliases = [ALIASES[i] for i in rng.permutation(len(ALIASES))[:n]]
    avatars = [AVATARS[i] for i in rng.permutation(len(AVATARS))[:n]]
    return aliases, avatars


@functools.cache
def _engine(env_id: str):
    """The env and its jitted host steps; each returns (state, legal of its table)."""
    env = holdemjax.make(env_id)

    def with_legal(state):
        return state, tb.legal(state._table)

    return (env, jax.jit(lambda k: with_legal(env.init(k))),
            jax.jit(lambda s, k, a: with_legal(env.act_exact(s, k, a))),
            jax.jit(lambda s: with_legal(env.settle(s))),
            jax.jit(lambda s: with_legal(env.stop(s))),
            # one hand boundary at a time, so the host sees hands nobody could act in
            jax.jit(lambda s: with_legal(env._next_hand(s))))


class _Seat:
    """A slot's live status during the series."""

    def __init__(self, policy, clock: P.Clock, record: SlotRecord):
        self.policy = policy
        self.record = record
        self.events: list = []
        self.clock = clock  # for the whole series: away and a run of timeouts carry over
        self.chat_this_hand = 0

    @property
    def faulted(self) -> bool:
        return self.record.faulted_at is not None


#: Longer series run in blocks of this many tournaments: each block starts fresh instances of
#: the policies (a policy's memory carries over within its block), so blocks can run in parallel
#: processes (`workers`) with results identical to one process.
BLOCK = 100


def run_series(policies: Sequence, *, variant: str = "series-100", seed: int = 0,
               max_wall: float | None = 600.0, tournaments: int | None = None,
               progress: Callable[[dict], None] | None = None, shot_ns: int | None = None,
               bank_ns: int | None = None, workers: int = 1) -> Series:
    """Run one series.

    ``policies``: one per slot (`wasm.WasmPolicy` or the same interface: ``name``, ``sha256``,
    ``start(bytes)``, ``call(bytes, budget_ns)``, ``new_tournament()``). ``tournaments``
    overrides the variant's count; ``shot_ns`` / ``bank_ns`` its clock. A series of more than
    `BLOCK` tournaments runs in blocks, each with fresh instances loaded again from the policies'
    files (``policy.path``); ``workers > 1`` runs the blocks in that many processes, with the
    same results. ``progress`` gets a dict after every hand (after every block with workers).
    Raises `SeriesFailed` when a policy fails to start. KeyboardInterrupt (and the wall-time
    limit) stops cleanly at the next hand boundary; later blocks are dropped.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    spec = VARIANTS[variant]
    if len(policies) != spec.seats:
        raise ValueError(f"{variant} needs {spec.seats} policies, got {len(policies)}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    count = spec.tournaments if tournaments is None else int(tournaments)
    if count < 1:
        raise ValueError(f"tournaments must be >= 1, got {count}")
    spec.clock(shot_ns, bank_ns)  # checks the values before anything runs
    blocks = [range(b, min(b + BLOCK, count)) for b in range(0, count, BLOCK)]
    names = [getattr(p, "path", None) or getattr(p, "name", f"slot{i}")
             for i, p in enumerate(policies)]
    paths = [getattr(p, "path", None) for p in policies]
    if len(blocks) > 1 and None in paths:
        raise ValueError(f"a series of {count} tournaments runs in blocks of {BLOCK} that load "
                         "the policies again: load every policy from a file")
    job = dict(variant=variant, seed=int(seed), count=count, shot_ns=shot_ns, bank_ns=bank_ns)
    wall0 = time.perf_counter()
    deadline = None if max_wall is None else wall0 + max_wall
    parts = []
    if workers == 1 or len(blocks) == 1:
        for k, block in enumerate(blocks):
            pols = policies if k == 0 else _load_all(paths)
            part = _run_block(pols, block, deadline=deadline, progress=progress, **job)
            parts.append(part)
            if part["stopped_early"]:
                break
    else:
        parts = _run_blocks_in_processes(paths, blocks, workers, max_wall, progress, job)
    return _merge(variant, int(seed), names, policies, parts, time.perf_counter() - wall0)


def _load_all(paths):
    from holdemjax.series.wasm import load_policy

    return [load_policy(p) for p in paths]


def _block_worker(paths, block, max_wall, job):
    """One block in a worker process (module level, so a spawned process can import it)."""
    deadline = None if max_wall is None else time.perf_counter() + max_wall
    return _run_block(_load_all(paths), block, deadline=deadline, progress=None, **job)


def _run_blocks_in_processes(paths, blocks, workers, max_wall, progress, job):
    import concurrent.futures as cf
    import multiprocessing

    # spawn, not fork: a forked JAX process can deadlock.
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_block_worker, paths, b, max_wall, job) for b in blocks]
        parts = []
        try:
            for k, f in enumerate(futures):
                part = f.result()
                parts.append(part)
                if progress is not None:
                    progress({"tournament": blocks[k][-1], "hands": sum(
                        len(r["hands"]) for p in parts for r in p["replays"]),
                        "tournament_done": True, "tournaments_done": len(part["replays"])})
                if part["stopped_early"]:
                    break
        except KeyboardInterrupt:
            for f in futures:
                f.cancel()
            raise
        finally:
            for f in futures:
                f.cancel()
    return parts


def _run_block(policies, block: range, *, variant, seed, count, shot_ns, bank_ns, deadline,
               progress) -> dict:
    """Tournaments ``block`` of a series with these policy instances (started here)."""
    spec = VARIANTS[variant]
    env, init, act, settle, stop, next_hand = _engine(spec.env_id)
    aliases, avatars = _identities(seed, spec.seats)
    seats = [_Seat(p, spec.clock(shot_ns, bank_ns), SlotRecord(
        aliases[i], avatars[i], getattr(p, "path", None) or getattr(p, "name", f"slot{i}"),
        getattr(p, "sha256", ""))) for i, p in enumerate(policies)]
    timer = {"engine": 0.0, "policy": 0.0}
    for i, s in enumerate(seats):
        msg = P.start_message(env, slot=i, alias=s.record.alias, seed=P.slot_seed(seed, i),
                              variant=variant, tournaments=count, clock=s.clock)
        try:
            s.policy.start(P.encode(msg))
        except Exception as exc:  # noqa: BLE001 - a start failure fails the series, never the host
            raise SeriesFailed(i, f"slot {i} ({s.record.name}): {exc}") from exc
    game = _Game(env, init, act, settle, stop, next_hand, seats, timer, seed=seed)
    replays, stopped_early = [], False
    for t in block:
        if deadline is not None and t > block.start and time.perf_counter() > deadline:
            stopped_early = True
            break
        interrupted = False
        try:
            replay, cut = game.play(t, deadline, progress)
        except KeyboardInterrupt:
            interrupted = True
            replay, cut = game.finish_interrupted()
        replays.append(replay)
        if cut or interrupted:
            stopped_early = True
            break
    return {"records": [s.record for s in seats], "replays": replays,
            "stopped_early": stopped_early, "timer": timer}


def _merge(variant, seed, names, policies, parts, wall) -> Series:
    """One `Series` from its blocks, in order."""
    first = parts[0]["records"]
    records = [SlotRecord(r.alias, r.avatar, names[i], r.sha256) for i, r in enumerate(first)]
    for part in parts:
        for rec, r in zip(records, part["records"]):
            rec.scores += r.scores
            rec.places += r.places
            for name in ("chips_won", "timeouts", "away_hands", "chat_dropped", "fuel_ns"):
                setattr(rec, name, getattr(rec, name) + getattr(r, name))
            for k, v in r.outcomes.items():
                rec.outcomes[k] = rec.outcomes.get(k, 0) + v
            rec.faults += r.faults
            if rec.faulted_at is None and r.faulted_at is not None:
                rec.faulted_at, rec.fault = r.faulted_at, r.fault
    engine = sum(p["timer"]["engine"] for p in parts)
    policy = sum(p["timer"]["policy"] for p in parts)
    timing = {"wall_s": round(wall, 3), "engine_s": round(engine, 3),
              "policy_s": round(policy, 3), "host_s": round(max(wall - engine - policy, 0), 3),
              "blocks": len(parts)}
    replays = [r for p in parts for r in p["replays"]]
    return Series(variant, seed, records, replays, len(replays),
                  any(p["stopped_early"] for p in parts), timing)


class _Game:
    """Plays tournaments for `run_series` (state kept between tournaments: the seats)."""

    def __init__(self, env, init, act, settle, stop, next_hand, seats, timer, seed):
        self.env, self._init, self._act, self._settle, self._stop = env, init, act, settle, stop
        self._next_hand = next_hand
        self.seats, self.timer, self.seed = seats, timer, seed
        self.n = env.num_players
        self._current = None
        self._pending_chat = None
        self._last_used = 0
        self._device = (None, None)  # (host copy, device original) of the latest engine state
        self.hands_played = 0

    # ------------------------------------------------------------------ engine calls (timed)
    def _engine(self, fn, *args):
        """Run a jitted engine step; returns host (numpy) copies of (state, legal). The device
        original of the latest state is kept and passed back in its place (saves a transfer),
        and leaves are read one by one (``np.asarray``: ~8x cheaper than ``jax.device_get`` on a
        pytree of this size)."""
        t0 = time.perf_counter()
        last_host, last_device = self._device
        args = [last_device if a is last_host else a for a in args]
        state, legal = fn(*args)
        host = jax.tree.map(np.asarray, (state, legal))
        self._device = (host[0], state)
        self.timer["engine"] += time.perf_counter() - t0
        return host

    def _call(self, seat: _Seat, message: dict, budget: int):
        t0 = time.perf_counter()
        try:
            result = seat.policy.call(P.encode(message), budget)
        finally:
            self.timer["policy"] += time.perf_counter() - t0
        seat.record.fuel_ns += int(result.used_ns)
        return result

    # ------------------------------------------------------------------------------ events
    def _public(self, event: dict, replay_hand: dict | None) -> None:
        for s in self.seats:
            if not s.faulted:
                s.events.append(event)
        if replay_hand is not None:
            replay_hand["events"].append(event)

    def _fault(self, slot: int, cause: str, detail: str, hand: dict | None) -> None:
        rec = self.seats[slot].record
        if rec.faulted_at is None:
            rec.faulted_at = self.t
            rec.fault = f"{cause}: {detail}" if detail else cause
            rec.faults.append((self.t, rec.fault))
            self.seats[slot].events = []
            self._public({"type": "faulted", "seat": self.seat_of[slot]}, hand)

    def _outcome(self, slot: int, outcome: str) -> None:
        d = self.seats[slot].record.outcomes
        d[outcome] = d.get(outcome, 0) + 1

    def _chat(self, slot: int, reply: P.Reply, say: str | None, hand: dict | None,
              folded_or_out: bool) -> None:
        s = self.seats[slot]
        seat = self.seat_of[slot]
        if say:
            self._public({"type": "chat", "seat": seat, "text": say, "say": True}, hand)
        for line in reply.chat:
            if s.chat_this_hand >= P.CHAT_LINES_PER_HAND:
                s.record.chat_dropped += 1
                continue
            s.chat_this_hand += 1
            self._public({"type": "chat", "seat": seat, "text": line, "say": False}, hand)
        if reply.emote is not None:
            if folded_or_out:
                self._public({"type": "emote", "seat": seat, "emote": reply.emote}, hand)
            else:
                s.record.chat_dropped += 1

    def _notify(self, message_type: str, extra: dict, hand: dict | None, folded) -> None:
        """hand_end / tournament_end to every seat that is not faulted (5 ms, no bank)."""
        for slot, s in enumerate(self.seats):
            if s.faulted:
                continue
            msg = {"type": message_type, "events": s.events, "tournament": self.t, **extra}
            s.events = []
            result = self._call(s, msg, P.NOTIFY_NS)
            if result.outcome in ("trap", "memory"):
                self._fault(slot, result.outcome, result.detail, hand)
            elif result.outcome == "timeout":
                self._fault(slot, "out_of_compute", f"{message_type} used its {P.NOTIFY_NS} ns",
                            hand)
            elif result.outcome == "ok":
                reply = P.parse_reply(result.reply, None)
                if reply.outcome == "ok":
                    self._chat(slot, reply, None, hand, bool(folded[self.seat_of[slot]]))

    # ------------------------------------------------------------------------- one tournament
    def play(self, t: int, deadline, progress):
        self.t = t
        env = self.env
        state, legal = self._engine(self._init,
                                    jax.random.fold_in(jax.random.key(self.seed), t))
        self.seat_of = np.asarray(state._seat_of).tolist()  # slot (player id) -> seat
        player_at = self.player_at = np.asarray(state._player_at).tolist()  # seat -> slot
        for s in self.seats:
            s.clock.new_tournament()
            if hasattr(s.policy, "new_tournament"):
                s.policy.new_tournament()
        aliases = [self.seats[p].record.alias for p in player_at]
        replay = {"tournament": t, "env": env.id, "player_at_seat": player_at,
                  "aliases": aliases, "hands": [], "stopped_early": False}
        for slot, s in enumerate(self.seats):
            s.events.append({"type": "tournament_start", "tournament": t,
                             "seat": self.seat_of[slot], "aliases": aliases,
                             "stacks": np.asarray(state._table.stacks).astype(int).tolist()})
        self._current = (state, replay)
        cut = False
        hand_index = -1
        hand = None
        history: list = []
        while not bool(state.terminated):
            tbl = state._table
            if int(state._hand) != hand_index:
                hand_index = int(state._hand)
                if hand is not None:
                    self.hands_played += 1
                    if progress is not None:
                        progress({"tournament": t, "hands": self.hands_played})
                if deadline is not None and time.perf_counter() > deadline and hand is not None:
                    state, legal = self._engine(self._stop, state)
                    replay["stopped_early"] = cut = True
                    break
                hand = self._start_hand(state, replay)
                history = []
                shown_street = 0
            seat = int(tbl.to_act)
            slot = player_at[seat]
            kind, amount, auto = self._decide(state, legal, slot, history, hand)
            mid, legal = self._engine(self._act, state, np.int32(kind), np.int32(amount))
            event = P.action_event(state, mid, auto)
            history.append([event["street"], event["seat"], event["code"], event["to"]])
            hand["actions"].append({**event, "used_ns": self._last_used})
            self._public(event, hand)
            self._after_action(slot, hand)
            m = mid._table
            if bool(m.hand_over):
                shown_street = self._board_events(m, shown_street, hand, final=True)
                self._end_hand(state, mid, hand)
                state, legal = self._next_hands(mid, hand, replay, progress, t)
            else:  # nothing to settle inside a hand: the host reads only the table
                state = mid
                shown_street = self._board_events(state._table, shown_street, hand)
        if not cut:
            self.hands_played += 1
        if progress is not None:
            progress({"tournament": t, "hands": self.hands_played, "tournament_done": True})
        self._end_tournament(state, replay, hand)
        self._current = None
        return replay, cut

    def _next_hands(self, ended, hand, replay, progress, t):
        """From a finished hand to the next decision (or the end), one hand boundary at a time:
        a hand in which nobody could act (everyone all-in from the blinds) is recorded too."""
        prev = ended
        while True:
            nxt, legal = self._engine(self._next_hand, prev)
            self._eliminations(prev, nxt, hand)
            if bool(nxt.terminated) or not bool(nxt._table.hand_over):
                break
            self.hands_played += 1
            if progress is not None:
                progress({"tournament": t, "hands": self.hands_played})
            hand = self._start_hand(nxt, replay)  # dealt and already over: record it
            self._board_events(nxt._table, 0, hand, final=True)
            self._end_hand(nxt, nxt, hand)
            prev = nxt
        return self._engine(self._settle, nxt)

    def finish_interrupted(self):
        """Ctrl-C: end the tournament in progress as at the wall-time stop."""
        state, replay = self._current
        state, _ = self._engine(self._stop, state)
        replay["stopped_early"] = True
        self._end_tournament(state, replay, None, notify=False)
        return replay, True

    def _start_hand(self, state, replay) -> dict:
        tbl = state._table
        in_hand = np.asarray(tbl.in_hand).astype(bool)
        hole = np.asarray(tbl.hole)
        hand = {"hand": int(state._hand), "button": int(tbl.button), "sb": int(tbl.sb),
                "bb": int(tbl.bb),
                "blinds": [int(tbl.small_blind), int(tbl.big_blind), int(tbl.ante)],
                "stacks": np.asarray(tbl.start_stacks).astype(int).tolist(),
                "hole": [[card_text(int(c)) for c in hole[s]] if in_hand[s] else None
                         for s in range(self.n)],
                "board": [card_text(int(c)) for c in np.asarray(tbl.board)],
                "actions": [], "events": []}
        replay["hands"].append(hand)
        self._current = (state, replay)
        base = {"type": "hand_start", "hand": hand["hand"], "button": hand["button"],
                "sb": hand["sb"], "bb": hand["bb"], "blinds": hand["blinds"],
                "stacks": hand["stacks"], "in_hand": in_hand.tolist()}
        hand["events"].append(base)
        for slot, s in enumerate(self.seats):
            s.chat_this_hand = 0
            seat = self.seat_of[slot]
            s.events.append({**base, "hole": hand["hole"][seat]})
            if s.clock.away and in_hand[seat]:
                s.record.away_hands += 1
        return hand

    def _decide(self, state, legal, slot: int, history, hand):
        """(kind, amount, auto) for the slot to act, running its policy when it may."""
        s = self.seats[slot]
        lg = P.legal_info(legal)
        default = (tb.CHECK_CALL if lg["check"] else tb.FOLD, 0)
        self._last_used = 0
        if s.faulted:
            return (*default, "fault")
        budget = s.clock.decision_budget()
        if s.clock.away:
            msg = P.act_message(self.env, state, tournament=self.t, history=history,
                                events=s.events, budget_ns=budget, bank_ns=s.clock.bank_ns,
                                away=True, legal=legal)
            s.events = []
            result = self._call(s, msg, budget)
            self._last_used = int(result.used_ns)
            if result.outcome in ("trap", "memory"):
                self._fault(slot, result.outcome, result.detail, hand)
            elif result.outcome == "ok":
                reply = P.parse_reply(result.reply, None)
                if reply.outcome == "ok":
                    self._chat(slot, reply, None, hand, True)
                    if reply.sit_in:
                        s.clock.sit_in()
                        self._public({"type": "back", "seat": self.seat_of[slot]}, hand)
            return (*default, "away")
        msg = P.act_message(self.env, state, tournament=self.t, history=history,
                            events=s.events, budget_ns=budget, bank_ns=s.clock.bank_ns,
                            legal=legal)
        s.events = []
        result = self._call(s, msg, budget)
        self._last_used = int(result.used_ns)
        if s.clock.record_decision(result.outcome, result.used_ns):  # charges the bank
            self._public({"type": "away", "seat": self.seat_of[slot]}, hand)
        if result.outcome == "timeout":
            s.record.timeouts += 1
            self._outcome(slot, "timeout")
            return (*default, "timeout")
        if result.outcome in ("trap", "memory"):
            self._fault(slot, result.outcome, result.detail, hand)
            return (*default, "fault")
        if result.outcome != "ok":  # no_reply, bad_alloc, bad_pointer, reply_too_long
            self._outcome(slot, result.outcome)
            return (*default, "bad_reply")
        reply = P.parse_reply(result.reply, lg)
        if reply.kind is None:
            self._outcome(slot, reply.outcome)
            if reply.outcome != "bad_reply":
                self._chat(slot, reply, None, hand, False)
            return (*default, "bad_reply")
        self._outcome(slot, "ok")
        self._pending_chat = (slot, reply)
        return reply.kind, reply.amount, None

    def _after_action(self, slot: int, hand) -> None:
        pending = getattr(self, "_pending_chat", None)
        self._pending_chat = None
        if pending is not None:
            slot, reply = pending
            folded = reply.kind == tb.FOLD
            self._chat(slot, reply, reply.say, hand, folded)

    def _board_events(self, tbl, shown: int, hand, final: bool = False) -> int:
        """`board` events for newly visible cards; returns the cards shown so far."""
        visible = int(tbl.revealed)
        board = np.asarray(tbl.board)
        street = {3: 1, 4: 2, 5: 3}
        count = 0 if shown == 0 else shown
        while count < visible:
            upto = 3 if count == 0 else count + 1
            self._public({"type": "board", "street": street[upto],
                          "cards": [card_text(int(c)) for c in board[count:upto]]}, hand)
            count = upto
        return max(count, shown)

    def _end_hand(self, before, mid, hand) -> None:
        m = mid._table
        live = np.asarray(m.in_hand) & ~np.asarray(m.folded)
        hole = np.asarray(m.hole)
        if bool(m.showdown):
            cards = [[s, card_text(int(hole[s, 0])), card_text(int(hole[s, 1]))]
                     for s in range(self.n) if live[s]]
            self._public({"type": "showdown", "cards": cards}, hand)
        winnings = np.asarray(m.winnings).astype(int).tolist()
        stacks = np.asarray(m.stacks).astype(int).tolist()
        self._public({"type": "result", "winnings": winnings, "stacks": stacks}, hand)
        hand["winnings"], hand["stacks_after"] = winnings, stacks
        start = np.asarray(m.start_stacks)
        for seat in range(self.n):
            slot = self.player_at[seat]
            self.seats[slot].record.chips_won += int(stacks[seat]) - int(start[seat])
        self._notify("hand_end", {"hand": hand["hand"]}, hand, np.asarray(m.folded)
                     | ~np.asarray(m.in_hand))

    def _eliminations(self, mid, state, hand) -> None:
        before = np.asarray(mid._place)
        after = np.asarray(state._place)
        for seat in np.flatnonzero((after > 0) & (before == 0)).tolist():
            self._public({"type": "eliminated", "seat": seat, "place": int(after[seat])}, hand)

    def _end_tournament(self, state, replay, hand, notify: bool = True) -> None:
        n = self.n
        place = np.asarray(state._place).astype(int)
        score = np.asarray(state._score, np.float64)
        stacks = np.asarray(state._table.stacks)
        if self.env.format.kind == "ring":
            order = np.argsort(-stacks, kind="stable")
            place = np.empty(n, int)
            place[order] = np.arange(1, n + 1)
        else:
            open_ = place == 0  # settled by ICM: the place their chips rank
            if open_.any():
                taken = n - int((~open_).sum())
                order = [s for s in np.argsort(-stacks, kind="stable") if open_[s]]
                for rank, s in enumerate(order[:taken]):
                    place[s] = rank + 1
        rewards = np.asarray(state.rewards, np.float64)  # by player id = slot
        for slot, s in enumerate(self.seats):
            s.record.scores.append(float(rewards[slot]))
            s.record.places.append(int(place[self.seat_of[slot]]))
        replay["places"] = place.tolist()
        replay["scores"] = [round(float(x), 6) for x in score]
        replay["hands_played"] = len(replay["hands"])
        if notify:
            self._notify("tournament_end", {"places": place.tolist(),
                                            "scores_ppm": [int(round(x * 1e6)) for x in score]},
                         hand, np.ones(n, bool))

