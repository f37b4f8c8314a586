"""The reference lines of a match: one per tier, ``"ref:<tier>"`` in the hero seat with the hero
seat's key, over every hand (the style table's bot rows, the comparison of a one-participant
match). They are played here, by whoever asks: ``duplicate create`` (default) or ``close`` with
a progress bar, the service in a background worker (`Worker`); never by the store. Each joins
with the house's key (`house.house_key`), so a line a killed process left half played resumes
from its stored actions, the match open or closed (issue 50, finding 3).
"""

from __future__ import annotations

import threading

from holdemjax.duplicate import match
from holdemjax.duplicate.house import house_key

__all__ = ["PREFIX", "names", "missing", "done", "play", "Worker"]

PREFIX = "ref:"


def names() -> list[str]:
    """The reference line of every tier, in tier order."""
    return [PREFIX + tier for tier in match.tier_names()]


def missing(store, match_id: str) -> list[str]:
    """The reference lines of ``match_id`` not yet finished."""
    done = store.references(match_id)
    return [n for n in names() if done.get(n) != "finished"]


def done(store, match_id: str) -> int:
    """Hands of the reference lines stored so far, of all (their progress after a restart)."""
    out = 0
    for name, status in store.references(match_id).items():
        key = house_key(store, match_id, name)
        if status == "finished":
            out += store.match(match_id).spec.hands
        elif store.authorized(match_id, name, key):  # a line joined before keys were the house's
            out += store.progress(match_id, name, key)[0]
    return out


def play(store, match_id: str, progress=None) -> None:
    """Play what is missing of the reference lines (sealed like every line; closed matches
    too). ``progress(done, total)``: hands of reference lines played, of all."""
    tiers, hands = match.tier_names(), store.match(match_id).spec.hands
    todo = set(missing(store, match_id))
    for i, tier in enumerate(tiers):
        if PREFIX + tier not in todo:
            continue
        each = None if progress is None else (
            lambda done, _, i=i: progress(i * hands + done, len(tiers) * hands))
        match.play_line(store, match_id, PREFIX + tier, match.BotHero(tier), kind="reference",
                        reference=True, progress=each,
                        key=house_key(store, match_id, PREFIX + tier))  # resumable while open
    if progress is not None:
        progress(len(tiers) * hands, len(tiers) * hands)


class _Stopped(Exception):
    pass


class Worker:
    """Plays the reference lines of the service's matches in background threads, one job per
    match, and keeps their progress (``(done, total)`` hands) for the status to show. Between
    two hands a job waits (up to `YIELD_S`) while ``quiet`` is clear: the service clears it
    while requests are being answered, so a background job never competes with them for long
    (one interpreter: the jobs and the requests share its lock)."""

    YIELD_S = 0.05

    def __init__(self, store, quiet: threading.Event | None = None):
        self.store, self.quiet = store, quiet
        self.progress: dict[str, tuple[int, int]] = {}
        self.errors: dict[str, str] = {}
        self._jobs: dict[str, threading.Thread] = {}
        self._guard = threading.Lock()
        self._stop = threading.Event()

    def start(self, match_id: str) -> bool:
        """Start the match's job unless one runs or nothing is missing; True if one runs now."""
        with self._guard:
            job = self._jobs.get(match_id)
            if job is not None and job.is_alive():
                return True
            if self._stop.is_set() or not missing(self.store, match_id):
                return False
            hands = self.store.match(match_id).spec.hands
            self.progress.setdefault(  # shown from now, from what is stored (a restart)
                match_id, (done(self.store, match_id), len(names()) * hands))
            job = self._jobs[match_id] = threading.Thread(
                target=self._run, args=(match_id,), daemon=True,
                name=f"references-{match_id}")
            job.start()
            return True

    def _run(self, match_id: str) -> None:
        def show(done: int, total: int) -> None:
            self.progress[match_id] = (done, total)
            if self.quiet is not None:
                self.quiet.wait(self.YIELD_S)
            if self._stop.is_set():
                raise _Stopped  # between two hands: the lines resume at the next start

        try:
            play(self.store, match_id, progress=show)
        except _Stopped:
            pass
        except Exception as exc:  # kept for the status: a job must not die unseen
            self.errors[match_id] = f"{type(exc).__name__}: {exc}"
        finally:
            self.store.close(this_thread=True)  # its connection ends with the job

    def stop(self) -> None:
        """Stop every job after its current hand and join it (the service shutting down): no
        job is left inside compiled code when the interpreter exits."""
        with self._guard:  # `start` starts nothing after this
            self._stop.set()
            jobs = list(self._jobs.values())
        for job in jobs:
            job.join()

    def busy(self, match_id: str) -> bool:
        job = self._jobs.get(match_id)
        return job is not None and job.is_alive()

    def wait(self, match_id: str, timeout: float | None = None) -> None:
        job = self._jobs.get(match_id)
        if job is not None:
            job.join(timeout)
