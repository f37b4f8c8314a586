"""The line service behind ``holdemjax duplicate serve``: the lines being played, each behind a
lock of its own, and the reference lines in a background worker (`references.Worker`).

There is no global lock: two requests on one line queue on that line's lock (`LineService.lock`),
requests on other lines and every read go on at once (the store gives each thread its own SQLite
connection, WAL mode: a read never waits for a writer). Creating a match returns at once; its
reference lines are played by the worker, and the status shows their progress. A closed match's
results wait for them (`Preparing`, the service's 503) rather than showing a partial field.

A second background thread, the steward (`LineService.start`, one `tick` a second), does what
no read may do: it closes the matches whose deadline passed or whose field is complete and
finished (`store.Store.refresh`), and it keeps the clock of simultaneous matches: a line still
on the open hand ``clock`` seconds after the hand opened to all has the rest of it played by
the table's rule (`live.LiveLine.run_out`), so one absent participant never holds the field.
The clocks and away marks are kept in the store (`clocks.FieldClocks`): a restart goes on
where they stood.
A line nobody touched for ``idle_s`` seconds leaves the cap of lines in play (it keeps its
hands; it takes a place again when it is next opened).

Every background thread of a service (the steward, the reference jobs) is stopped and joined by
`LineService.close` (the app's lifespan calls it at shutdown), and by the interpreter's exit for
a service whose app never shut down (a test client used without its context): a thread still in
compiled code while the interpreter finalizes aborts the process.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import hashlib
import hmac
import threading
import time
import weakref

from holdemjax.duplicate import house, references
from holdemjax.duplicate.clocks import FieldClocks
from holdemjax.duplicate.doors import Refused, WrongKey
from holdemjax.duplicate.entrants import HeroLoaders, play_entrant
from holdemjax.duplicate.live import LiveLine
from holdemjax.duplicate.spec import MatchError, MatchSpec
from holdemjax.validate import require_int

__all__ = ["LineService", "Busy", "Preparing", "IDLE_S", "TICK_S", "SHARE_CAP"]

IDLE_S = 5 * 60  # a line nobody touched for this long leaves the cap of lines in play
TICK_S = 1.0  # the steward's period (closing, the simultaneous clock)
SHARE_CAP = 32  # joins a share link admits when neither the operator nor the match says


_RUNNING: weakref.WeakSet = weakref.WeakSet()  # services whose threads may still run


@atexit.register
def _stop_at_exit() -> None:
    """At the interpreter's exit (before daemon threads are frozen mid-call): stop and join the
    threads of every service nobody closed."""
    for svc in list(_RUNNING):
        svc.stop()


def _move(action: str, amount: int) -> str:
    return f"{action!r} to {amount}" if action == "raise" else repr(action)


class Busy(Refused):
    """``max_lines`` lines are being played (the service: 503)."""


class Preparing(MatchError):
    """The match's reference lines are still being played (the service: 503)."""


class LineService:
    """``store`` (a `store.Store`, shared by every thread), at most ``max_lines`` lines in play,
    ``heroes`` for the operator's uploads."""

    def __init__(self, store, max_lines: int, heroes: HeroLoaders | None = None, *,
                 idle_s: float = IDLE_S):
        self.store, self.max_lines, self.idle_s = store, max_lines, idle_s
        self._secret = store.secret()  # signs the share tokens and the join cookies
        self.monotonic = time.monotonic  # the idle lines' time (tests replace it)
        self.wall = time.time  # the simultaneous clocks' time, kept in the store (tests replace it)
        self.clocks = FieldClocks(store, lambda: self.wall())
        self._steward: threading.Thread | None = None
        self._stopping = threading.Event()
        self.steward_error: str | None = None  # the last failure of a tick, for the status
        self.heroes = HeroLoaders() if heroes is None else heroes
        self._guard = threading.Lock()  # the dictionaries below, never held while playing
        self._serving, self._quiet = 0, threading.Event()  # requests in a line, none now
        self._quiet.set()
        self.references = references.Worker(store, self._quiet)
        self.resumer = house.Resumer(store, self.lock, self._stopping)
        self._live: dict[tuple[str, str], tuple[LiveLine, float]] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        # (match, name) -> (the decision last played, its (action, amount), the answer given):
        # a repeat of that action gets the answer again
        self._answers: dict[tuple[str, str], tuple[int, tuple[str, int], dict]] = {}
        for match_id in store.match_ids(open_only=True):  # matches made before: their link too
            self._add_share_link(match_id, store.match(match_id).spec.participants)
        _RUNNING.add(self)

    def stop(self) -> None:
        """Stop the steward and the reference jobs (after their current hand) and join them."""
        self._stopping.set()
        if self._steward is not None:
            self._steward.join()
        self.references.stop()
        self.resumer.wait()  # each after its current hand
        _RUNNING.discard(self)

    def close(self) -> None:
        """`stop`, then close the store (the service is not used after)."""
        self.stop()
        self.store.close()

    # ---------------------------------------------------------------------- the steward
    def start(self, tick_s: float = TICK_S) -> None:
        """`resume` what a stopped or killed process left, then run the steward: `tick` every
        ``tick_s`` seconds until `close`."""
        self.resume()

        def run():
            try:
                while not self._stopping.wait(tick_s):
                    try:
                        self.tick()
                    except Exception as exc:  # noqa: BLE001 - kept for the status, never lost
                        self.steward_error = f"{type(exc).__name__}: {exc}"
            finally:
                self.store.close(this_thread=True)

        self._steward = threading.Thread(target=run, daemon=True, name="duplicate-steward")
        self._steward.start()

    def resume(self) -> None:
        """Play on, in the background, what the store holds half played (issue 50, finding 3):
        the reference lines of every match (open or closed), and the operator's registered-bot
        entrants of the open matches (`house.Resumer`), each from its stored actions."""
        for match_id in self.store.match_ids():
            self.references.start(match_id)  # nothing when none is missing
        self.resumer.start()

    def tick(self) -> None:
        """Close what must close (deadline passed; field complete and finished) and run out the
        clocks of simultaneous matches: the writes no read makes."""
        for match_id in self.store.match_ids(open_only=True):
            if self.store.refresh(match_id) != "open":
                self.clocks.forget(match_id)
                self.references.start(match_id)  # what is missing of them
                continue
            r, deadline = self.clocks.deadline(match_id)
            if r is None or deadline is None:
                continue
            late = self.clocks.now() >= deadline
            for name in r.behind:  # an away line's hand is run out as soon as it opens
                away = self.clocks.line(match_id, name).away
                if away or late:
                    self.run_out(match_id, name, "away" if away else "timeout")

    def run_out(self, match_id: str, name: str, why: str = "timeout") -> bool:
        """Play the rest of ``name``'s open hand by the table's rule (`live.LiveLine.run_out`):
        its clock ran out (``why`` "timeout", counted by `clocks.FieldClocks.ran_out`) or it is
        away ("away")."""
        with self.lock(match_id, name):
            found = self._live.get((match_id, name))
            if found is not None and found[0] is not None:
                live = found[0]
            else:
                try:
                    live = LiveLine(self.store, match_id, name, None,
                                    seat=self.store.seat(match_id, name, None, clock=True))
                except Refused:
                    return False  # it finished the hand meanwhile
            played = live.run_out(why)
            if played:  # a hand whose decisions the table played (nothing counts while away)
                self.clocks.ran_out(match_id, name)
            return played is not None

    def _clocked(self, live: LiveLine, state: dict) -> dict:
        """A simultaneous match's state with ``clock``: the seconds left on the open hand. A
        decision shown to the line's player brings an away line back
        (`clocks.FieldClocks.shown_decision`)."""
        if not live.spec.simultaneous or state.get("status") != "decision":
            return state
        self.clocks.shown_decision(live.match_id, live.name)
        left = self.clocks.seconds_left(live.match_id)
        return state if left is None else {**state, "clock": left}

    # --------------------------------------------------------------------------- matches
    def create(self, spec: MatchSpec, seed: int | None, share_cap: int | None = None) -> tuple:
        """A new match and its share token (admitting ``share_cap`` joins; None: the match's
        participants, else `SHARE_CAP`); its reference lines start in the background."""
        if share_cap is not None:
            require_int("share_cap", share_cap, 1)
        m = self.store.create_match(spec, seed)
        share = self._add_share_link(m.id, share_cap or spec.participants)
        self.references.start(m.id)
        return m, share

    def _add_share_link(self, match_id: str, cap: int | None) -> str:
        """The match's share link (`share_token`), admitting ``cap`` joins (None: `SHARE_CAP`);
        a link that exists already is kept as it is."""
        return self.store.add_door(match_id, "share", cap=cap or SHARE_CAP,
                                   token=self.share_token(match_id))

    def _sign(self, what: str) -> str:
        digest = hmac.new(self._secret, what.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()

    def share_token(self, match_id: str) -> str:
        """The match's share token, derived from the service's secret (so the operator's
        page can show the link again; the store keeps only its hash)."""
        return self._sign(f"share:{match_id}")

    def join_mark(self, match_id: str, name: str) -> str:
        """The value of the cookie a browser gets at its join (`joined_as` reads it)."""
        return base64.urlsafe_b64encode(name.encode()).decode() + "." + self._sign(
            f"joined:{match_id}:{name}")

    def joined_as(self, match_id: str, mark: str | None) -> str | None:
        """The name a browser joined ``match_id`` under, from its signed cookie (None: none,
        or one not signed by this service)."""
        try:
            coded, sig = str(mark).split(".")
            name = base64.urlsafe_b64decode(coded.encode()).decode()
        except (ValueError, UnicodeError):
            return None
        good = hmac.compare_digest(sig, self._sign(f"joined:{match_id}:{name}"))
        return name if mark is not None and good else None

    def ready(self, match_id: str, timeout: float | None = None) -> None:
        """Wait for the match's reference lines (tests, tools: no route waits)."""
        self.references.wait(match_id, timeout)

    def close_match(self, match_id: str) -> None:
        self.store.close_match(match_id, "closed")
        self.references.start(match_id)  # what is missing of them, in the background

    def results_ready(self, match_id: str) -> None:
        """`store.Sealed` while open; `Preparing` while its reference lines are played. A read:
        it closes nothing (the steward closes at the deadline)."""
        self.store.require_closed(match_id)
        if self.references.start(match_id):
            done, total = self.references.progress.get(match_id, (0, None))
            raise Preparing(f"match {match_id} is closed; its reference lines are being played "
                            f"({done}/{total or '?'} hands): its results follow them")

    def status(self, match_id: str) -> dict:
        """The match as anyone may see it. A read: it writes nothing (a match past its deadline
        is closed by the steward, `tick`, not by whoever looks)."""
        m = self.store.match(match_id)
        r = self.store.round(match_id)
        return {"match": m.id, "state": m.state, "spec": m.spec.as_dict(),
                "round": None if r is None else {"hand": r.hand, "behind": len(r.behind)},
                "commitment": m.commitment, "created_at": m.created_at,
                "closed_at": m.closed_at, "close_reason": m.close_reason,
                "field_closed": m.field_closed, "seed": m.seed, "salt": m.salt,
                "seed_hex": None if m.seed is None else f"{m.seed:032x}",
                "versions": m.versions, "references": self.references.progress.get(match_id),
                "preparing": self.references.busy(match_id),
                "resuming": len(self.resumer.busy(match_id)),  # entrants a restart resumed
                "references_error": self.references.errors.get(match_id),
                "participants": [{"name": p.name, "kind": p.kind, "status": p.status}
                                 for p in self.store.participants(match_id)]}

    # ----------------------------------------------------------------------------- lines
    @contextlib.contextmanager
    def lock(self, match_id: str, name: str):
        """Hold the lock of one line (its requests are played one at a time); the reference
        jobs wait between hands while any line is being answered."""
        with self._guard:
            lock = self._locks.setdefault((match_id, name), threading.Lock())
            self._serving += 1
            self._quiet.clear()
        try:
            with lock:
                yield
        finally:
            with self._guard:
                self._serving -= 1
                if not self._serving:
                    self._quiet.set()

    def check_key(self, match_id: str, name: str, key: str | None) -> None:
        """`doors.WrongKey` unless ``key`` opens ``name``'s line: the same answer whether the
        line is being played, paused, never opened, finished, or there is no such name."""
        if not self.store.authorized(match_id, name, key):
            raise WrongKey.of(match_id, name)

    def _line(self, match_id: str, name: str, key: str | None) -> LiveLine:
        """The line in play (opened now if it is not; its lock held by the caller)."""
        self.check_key(match_id, name, key)  # first: the cap below must not tell who plays
        now = self.monotonic()
        with self._guard:
            found = self._live.get((match_id, name))
            if found is None:
                for k, (_, seen) in list(self._live.items()):
                    if now - seen > self.idle_s:
                        del self._live[k]
                if len(self._live) >= self.max_lines:
                    raise Busy(f"{self.max_lines} lines are being played: try again when one "
                               "pauses or ends")
                self._live[(match_id, name)] = (None, now)  # the place is taken
        if found is None:
            try:
                live = LiveLine(self.store, match_id, name, key or "")
            except BaseException:
                with self._guard:
                    self._live.pop((match_id, name), None)
                raise
        else:
            live = found[0]
        with self._guard:
            self._live[(match_id, name)] = (live, now)
        return live

    def _done(self, live: LiveLine, state: dict) -> dict:
        if state["status"] != "decision":
            with self._guard:
                self._live.pop((live.match_id, live.name), None)
        return state

    def state(self, match_id: str, name: str, key: str | None) -> dict:
        """The hero's state (`LiveLine.state`), the bots played up to its decision."""
        with self.lock(match_id, name):
            try:
                live = self._line(match_id, name, key)
            except Busy:  # a line that waits for the others needs no place among those in play
                waiting = LiveLine(self.store, match_id, name, key).waiting()
                if waiting is None:
                    raise
                return waiting
            return self._clocked(live, self._done(live, live.state()))

    def act(self, match_id: str, name: str, key: str | None, decision: int, action: str,
            amount: int = 0) -> dict:
        """Play decision ``decision``; a repeat of the decision just played with the same
        action gets the answer given the first time, and nothing more is played; with another
        action it is `Refused` (409), naming the action played."""
        self.check_key(match_id, name, key)
        with self.lock(match_id, name):
            last = self._answers.get((match_id, name))
            if last is not None and last[0] == decision:
                if last[1] != (action, amount):
                    raise Refused(f"decision {decision} was played as {_move(*last[1])}, not "
                                  f"{_move(action, amount)}: one action per decision")
                return last[2]  # a retry, a double click
            live = self._line(match_id, name, key)
            if live.hand is None:
                live.state()
            answer = self._clocked(live, self._done(live, live.act(action, amount, decision)))
            self._answers[(match_id, name)] = (decision, (action, amount), answer)
            return answer

    def pause(self, match_id: str, name: str, key: str | None) -> int:
        """End this session of the line; returns its hands done."""
        self.check_key(match_id, name, key)
        with self.lock(match_id, name):
            done, _ = self.store.progress(match_id, name, key)
            with self._guard:
                self._live.pop((match_id, name), None)
        return done

    def entrant(self, match_id: str, name: str, bot: str | None, data: bytes,
                suffix: str | None, sample: bool) -> str:
        """The operator's entrant plays its whole line (`entrants.play_entrant`)."""
        with self.lock(match_id, name):
            return play_entrant(self.store, match_id, name, bot, data, suffix, sample,
                                self.heroes, key=house.house_key(self.store, match_id, name))
