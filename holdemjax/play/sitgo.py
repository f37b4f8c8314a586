"""One sit & go with the person in slot 0 and five bots (`SitGo`): the series engine's
tournament (`runner.run_series`, one tournament of ``series-10``'s ``sng-6``, every hand
through the host's one hand loop) on a thread of its own, the person's decisions coming from
the page (`person.LivePerson`). At its end the person's answers, the replay file and its
viewer are written to the output folder (`holdemjax.series.output`), the person's file named in
the replay as a wasm seat's is, so ``holdemjax replay`` re-runs it byte for byte.

`SitGo.state` answers as the duplicate service's line does (`holdemjax.duplicate.live`), so the
duplicate play page plays it: ``status`` (``"decision"`` with ``decision`` and ``view``, the
act message of PROTOCOL §5; ``"waiting"`` while the bots play; ``"finished"``; ``"failed"``),
``events`` since the last answer, ``hands_done``; and ``seating`` (the person's seat and the
names at the table), ``clock`` (seconds left), ``note`` and ``link`` at the end.
"""

from __future__ import annotations

import pathlib
import threading

from holdemjax.play import person as persons
from holdemjax.series import output, runner
from holdemjax.series import results as series_results
from holdemjax.series.policies import BUNDLED, bundled
from holdemjax.series.variants import identities
from holdemjax.series.wasm import PolicyLoadError, load_policy

__all__ = ["VARIANT", "SEATS", "SitGo", "Refused", "bot_path"]

VARIANT, SEATS = "series-10", 6


class Refused(Exception):
    """An action for a decision that is not the one offered now, or after the end (409)."""


def bot_path(name: str) -> str:
    """The file of a bot: a bundled policy by name (`BUNDLED`) or a ``.wasm`` file."""
    if name in BUNDLED:
        return bundled(name)
    path = pathlib.Path(name)
    if path.suffix != ".wasm":
        raise ValueError(f"bot {name!r}: a bundled policy ({', '.join(BUNDLED)}) or a .wasm "
                         "file")
    if not path.is_file():
        raise ValueError(f"bot {name!r}: no such file")
    return name


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... (places 1 to 9)."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th')}"


class SitGo:
    """The person (slot 0) and ``bots`` (five names, `bot_path`) in one tournament of
    ``seed``; ``clock_s``: the person's seconds per decision (None: no clock); ``out``: the
    output folder (made and checked here)."""

    def __init__(self, bots, *, seed: int = 0, out="holdemjax-play",
                 clock_s: float | None = None):
        if len(bots) != SEATS - 1:
            raise ValueError(f"a sit & go seats the person and {SEATS - 1} bots, got "
                             f"{len(bots)} bots")
        if clock_s is not None and not clock_s > 0:
            raise ValueError(f"the clock must be a positive number of seconds, got {clock_s}")
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"the seed must be a non-negative integer, got {seed!r}")
        self.names = ["you", *bots]
        paths = [bot_path(b) for b in bots]
        self.out, self._created = output.check_writable(out)
        self.seed, self.clock_s = seed, clock_s
        self.person = persons.LivePerson(self.out / persons.RECORD_NAME, clock_s)
        self.bots = []
        self._thread = threading.Thread(target=self._run, name="sit-and-go", daemon=True)
        for name, path in zip(bots, paths):
            try:
                self.bots.append(load_policy(path))
            except PolicyLoadError as exc:
                self.close()
                raise ValueError(f"bot {name!r} cannot be loaded: {exc}") from None
        self.slot_aliases = identities(seed, SEATS)[0]
        self.done, self.error, self.place, self.hands = False, None, None, 0
        self._lock = threading.Lock()
        self._shown = 0  # the person's events already answered
        self._me, self._seat_names, self._skip = None, [], False
        self._hand, self._start = 0, 0  # the hand being logged, the person's stack at its start

    # ------------------------------------------------------------------ the tournament
    def start(self) -> SitGo:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            series = runner.run_series([self.person, *self.bots], variant=VARIANT,
                                       seed=self.seed, max_wall=None, tournaments=1)
            self._write(series)
        except persons.Abandoned:
            self.error = "the page went away before the end"
        except Exception as exc:  # noqa: BLE001 - the page says what failed, the server stays
            self.error = f"the tournament failed: {type(exc).__name__}: {exc}"
        finally:
            self.done = True
            self.person.wake()

    def _write(self, series) -> None:
        """The person's answers, then the replay file and its viewer (the person's file's
        SHA-256 as the seat's, as a wasm seat's file's)."""
        series.slots[0].sha256 = persons.write_record(self.person, output.write_file)
        output.write_all(series, series_results.summarize(series), self.out)
        tour = series.tournaments[0]
        seat = tour["player_at_seat"].index(0)
        self.place, self.hands = tour["places"][seat], tour["hands_played"]

    def close(self) -> None:
        """Stop waiting for the person (a tournament not finished writes nothing, and the
        output folder it made is removed) and free the bots once it has stopped."""
        self.person.abandon()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
        for b in self.bots:
            b.close()
        self.bots = []
        if self.place is None:  # nothing written: no empty folder left behind
            output.discard_created(self.out, self._created)

    # ------------------------------------------------------------------ what the page sees
    def reset_log(self) -> None:
        """The page was (re)loaded: the next answer carries every event from the start."""
        with self._lock:
            self._shown, self._me, self._seat_names, self._skip = 0, None, [], False

    def _events(self) -> list:
        """The person's events since the last answer, as the play page reads them: the hands
        the person is not dealt in left out, a ``hand_over`` with its net after each result."""
        new = self.person.events[self._shown:]
        self._shown += len(new)
        shown = []
        for e in new:
            kind = e.get("type")
            if kind == "tournament_start":
                self._me = e["seat"]
                self._seat_names = [f"{a} ({self.names[self.slot_aliases.index(a)]})"
                                    for a in e["aliases"]]
            elif kind == "hand_start":
                self._skip = e.get("hole") is None
                self._hand = e["hand"]
                self._start = e["stacks"][self._me] if self._me is not None else 0
            if self._skip:
                continue
            shown.append(e)
            if kind == "result":
                shown.append({"type": "hand_over", "hand": self._hand,
                              "net": e["stacks"][self._me] - self._start})
        return shown

    def _seating(self) -> dict:
        me = self._me if self._me is not None else 0
        names = self._seat_names or ["?"] * SEATS
        return {"hero": me, "name": names[me].split(" ")[0] if self._seat_names else "you",
                "bots": [n for s, n in enumerate(names) if s != me]}

    def _hands_done(self) -> int:
        return sum(e.get("type") == "result" for e in self.person.events)

    def state(self, timeout: float = 20.0) -> dict:
        """The next answer for the page: waits (at most ``timeout`` s) for the person's
        decision or the end."""
        p = self.person
        p.wait(lambda: p.offer is not None or self.done, timeout)
        with self._lock:
            out = {"events": self._events(), "hands_done": self._hands_done(), "hands": None}
            out["seating"] = self._seating()
            offer = p.offer
            if offer is not None:
                out.update(status="decision", decision=p.decision, view=offer)
                if self.clock_s is not None:
                    out["clock"] = max(0, round(self.clock_s - p.waited()))
            elif not self.done:
                out.update(status="waiting", waiting_for="hand", behind=SEATS - 1)
            elif self.error is not None:
                out.update(status="failed", note=self.error)
            else:
                out.update(status="finished", link={"href": "/viewer", "text": "the replay"},
                           note=(f"Tournament over: you finished {_ordinal(self.place)} of "
                                 f"{SEATS} ({self.hands} hands). The replay file and its "
                                 f"viewer are in {self.out}: "))
            return out

    def act(self, decision, action: str, amount=0) -> dict:
        """Play the person's ``action`` at ``decision`` (the id `state` offered), then `state`.
        ValueError for an action that is not legal, `Refused` for another decision."""
        p = self.person
        offer = p.offer
        if self.done:
            raise Refused("the tournament is over")
        if offer is None or decision != p.decision:
            raise Refused(f"decision {decision} is not the one offered now ({p.decision})")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise ValueError(f"amount must be an integer, got {amount!r}")
        reply = persons.legal_reply(offer, action, amount)
        if not p.answer(decision, reply):
            raise Refused(f"decision {decision} is not the one offered now")
        p.wait(lambda: p.decision > decision, 30.0)
        return self.state()

