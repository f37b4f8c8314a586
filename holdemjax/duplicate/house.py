"""The house's lines: the ones the store's own processes play with no person holding their key
(the reference lines, `references`; the operator's entrants, ``POST .../entrants``), and their
resumption after a restart (issue 50, finding 3: a bot entrant killed with its server was left
``playing`` forever, so its field never closed ``complete``).

A house line joins with a key derived from the store's secret (`house_key`: HMAC-SHA256 of
``house:<match>:<name>``), so any process holding the store can open it again, as a person's
process opens its own line with the key it kept. `Resumer` (started with the service's steward)
plays every operator-entered registered-bot line left unfinished in an open match from its
stored actions to its end (the one hand loop replays them: `match.replay`); the reference jobs
resume the same way (`references.Worker`). A line in play stops after its current hand when the
service stops (`Stoppable`) and resumes at the next start.
"""

from __future__ import annotations

import hashlib
import hmac
import threading

from holdemjax.duplicate import match

__all__ = ["house_key", "Stoppable", "Resumer"]


def house_key(store, match_id: str, name: str) -> str:
    """The key of the house's line ``name`` in ``match_id``, derived from the store's secret."""
    return hmac.new(store.secret(), f"house:{match_id}:{name}".encode(),
                    hashlib.sha256).hexdigest()


class Stoppable:
    """``hero`` (any hero of `match.play_line`), which quits (`match.Quit`: the line is kept as
    played, ``"paused"``) before its next hand once ``stop`` is set."""

    def __init__(self, hero, stop: threading.Event):
        self._hero, self._stop = hero, stop

    def __getattr__(self, name):
        return getattr(self._hero, name)

    def new_hand(self, hand) -> None:
        if self._stop.is_set():
            raise match.Quit
        self._hero.new_hand(hand)


class Resumer:
    """Resumes the operator's registered-bot lines of the open matches of ``store``: one
    thread per line (the line's lock of the service, ``lock(match_id, name)``, held while it
    plays). ``errors``: line -> why it did not resume or stopped, for the status."""

    def __init__(self, store, lock, stop: threading.Event):
        self.store, self._lock, self._stop = store, lock, stop
        self.errors: dict[tuple[str, str], str] = {}
        self._jobs: dict[tuple[str, str], threading.Thread] = {}

    def unfinished(self, match_id: str) -> list[tuple[str, str]]:
        """(name, bot) of the house's bot lines of ``match_id`` with hands left to play."""
        spec, out = self.store.match(match_id).spec, []
        for p in self.store.participants(match_id):
            if p.kind != "bot" or p.source not in match.bot_names():
                continue
            key = house_key(self.store, match_id, p.name)
            if (self.store.authorized(match_id, p.name, key)
                    and self.store.progress(match_id, p.name, key)[0] < spec.hands):
                out.append((p.name, p.source))
        return out

    def start(self) -> list[tuple[str, str]]:
        """Start a job for every unfinished house bot line of the open matches; returns the
        (match, name) of the lines resumed."""
        started = []
        for match_id in self.store.match_ids(open_only=True):
            for name, bot in self.unfinished(match_id):
                job = self._jobs[(match_id, name)] = threading.Thread(
                    target=self._run, args=(match_id, name, bot), daemon=True,
                    name=f"resume-{match_id}-{name}")
                job.start()
                started.append((match_id, name))
        return started

    def _run(self, match_id: str, name: str, bot: str) -> None:
        try:
            with self._lock(match_id, name):
                match.play_line(self.store, match_id, name,
                                Stoppable(match.BotHero(bot), self._stop),
                                key=house_key(self.store, match_id, name))
        except Exception as exc:  # kept for the status: a job must not die unseen
            self.errors[(match_id, name)] = f"{type(exc).__name__}: {exc}"
        finally:
            self.store.close(this_thread=True)  # its connection ends with the job

    def busy(self, match_id: str) -> list[str]:
        """The lines of ``match_id`` being resumed now."""
        return [n for (m, n), job in list(self._jobs.items()) if m == match_id and job.is_alive()]

    def wait(self, timeout: float | None = None) -> None:
        """Join every job (``stop`` set first: each ends after its current hand)."""
        for job in list(self._jobs.values()):
            job.join(timeout)
