"""The line service behind ``holdemjax duplicate serve``: the lines being played, each behind a
lock of its own, and the reference lines in a background worker (`references.Worker`).

There is no global lock: two requests on one line queue on that line's lock (`LineService.lock`),
requests on other lines and every read go on at once (the store gives each thread its own SQLite
connection, WAL mode: a read never waits for a writer). Creating a match returns at once; its
reference lines are played by the worker, and the status shows their progress. A closed match's
results wait for them (`Preparing`, the service's 503) rather than showing a partial field.
"""

from __future__ import annotations

import contextlib
import threading
import time

from holdemjax.duplicate import match as M
from holdemjax.duplicate import references
from holdemjax.duplicate.doors import Refused, WrongKey
from holdemjax.duplicate.entrants import HeroLoaders, play_entrant
from holdemjax.duplicate.live import LiveLine

__all__ = ["LineService", "Busy", "Preparing", "IDLE_S"]

IDLE_S = 15 * 60  # a line nobody touched for this long leaves the cap of lines in play


class Busy(Refused):
    """``max_lines`` lines are being played (the service: 503)."""


class Preparing(M.MatchError):
    """The match's reference lines are still being played (the service: 503)."""


class LineService:
    """``store`` (a `store.Store`, shared by every thread), at most ``max_lines`` lines in play,
    ``heroes`` for the operator's uploads."""

    def __init__(self, store, max_lines: int, heroes: HeroLoaders | None = None):
        self.store, self.max_lines = store, max_lines
        self.heroes = HeroLoaders() if heroes is None else heroes
        self._guard = threading.Lock()  # the dictionaries below, never held while playing
        self._serving, self._quiet = 0, threading.Event()  # requests in a line, none now
        self._quiet.set()
        self.references = references.Worker(store, self._quiet)
        self._live: dict[tuple[str, str], tuple[LiveLine, float]] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        # (match, name) -> (the decision last played, the answer given): a repeat gets it again
        self._answers: dict[tuple[str, str], tuple[int, dict]] = {}

    def close(self) -> None:
        self.references.stop()
        self.store.close()

    # --------------------------------------------------------------------------- matches
    def create(self, spec: M.MatchSpec, seed: int | None) -> tuple:
        """A new match and its share token; its reference lines start in the background."""
        m = self.store.create_match(spec, seed)
        share = self.store.add_door(m.id, "share")
        self.references.start(m.id)
        return m, share

    def ready(self, match_id: str, timeout: float | None = None) -> None:
        """Wait for the match's reference lines (tests, tools: no route waits)."""
        self.references.wait(match_id, timeout)

    def close_match(self, match_id: str) -> None:
        self.store.close_match(match_id, "closed")
        self.references.start(match_id)  # what is missing of them, in the background

    def results_ready(self, match_id: str) -> None:
        """`store.Sealed` while open; `Preparing` while its reference lines are played."""
        self.store.refresh(match_id)  # closing at the deadline: a call, made here
        self.store.require_closed(match_id)
        if self.references.start(match_id):
            done, total = self.references.progress.get(match_id, (0, None))
            raise Preparing(f"match {match_id} is closed; its reference lines are being played "
                            f"({done}/{total or '?'} hands): its results follow them")

    def status(self, match_id: str) -> dict:
        state = self.store.refresh(match_id)  # closing at the deadline: a call, made here
        m = self.store.match(match_id)
        return {"match": m.id, "state": state, "spec": m.spec.as_dict(),
                "commitment": m.commitment, "created_at": m.created_at,
                "closed_at": m.closed_at, "close_reason": m.close_reason,
                "field_closed": m.field_closed, "seed": m.seed, "salt": m.salt,
                "seed_hex": None if m.seed is None else f"{m.seed:032x}",
                "versions": m.versions, "references": self.references.progress.get(match_id),
                "preparing": self.references.busy(match_id),
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
        now = time.monotonic()
        with self._guard:
            found = self._live.get((match_id, name))
            if found is None:
                for k, (_, seen) in list(self._live.items()):
                    if now - seen > IDLE_S:
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
            live = self._line(match_id, name, key)
            return self._done(live, live.state())

    def act(self, match_id: str, name: str, key: str | None, decision: int, action: str,
            amount: int = 0) -> dict:
        """Play decision ``decision``; a repeat of the decision just played gets the answer
        given the first time, and nothing more is played."""
        self.check_key(match_id, name, key)
        with self.lock(match_id, name):
            last = self._answers.get((match_id, name))
            if last is not None and last[0] == decision:
                return last[1]  # a retry, a double click
            live = self._line(match_id, name, key)
            if live.hand is None:
                live.state()
            answer = self._done(live, live.act(action, amount, decision))
            self._answers[(match_id, name)] = (decision, answer)
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
                                self.heroes)
