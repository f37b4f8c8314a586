"""The person's seat as a series policy (the interface of `holdemjax.series.wasm.WasmPolicy`:
``start``, ``call``, ``new_tournament``, ``close``, ``name``, ``sha256``, ``path``).

`LivePerson` answers each ``act`` message with what the page sends (`LivePerson.answer`),
waiting for it on the series' thread, and keeps every answer; `write_record` writes them to the
person's file (``person.json``, canonical JSON), whose SHA-256 is the seat's in the replay.
`RecordedPerson` answers from that file, so `holdemjax replay` re-runs the tournament byte for
byte. What does not depend on the person is answered at once, the same way by both: a
notification (``hand_end``, ``tournament_end``) and a decision while the seat is away (after
two timeouts in a row: the person sits in again, the table checks or folds this one).

A file's answers, in order: ``{"action": ..., "amount": ...}`` (a reply of PROTOCOL §5) or
``null`` (the person's clock ran out: the table's default action, recorded as a timeout).
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import threading
import time

from holdemjax.series import protocol
from holdemjax.series.wasm import CallResult, PolicyLoadError, load_policy

__all__ = ["SCHEMA", "RECORD_NAME", "Abandoned", "LivePerson", "RecordedPerson",
           "write_record", "is_record", "load", "load_seat", "legal_reply"]

SCHEMA = "holdemjax.play.person/1"
RECORD_NAME = "person.json"
_SIT_IN = json.dumps({"sit_in": True}).encode()


class Abandoned(Exception):
    """The page went away (the server stopped) while the tournament waited for the person."""


def _quick(message: dict) -> bytes | None:
    """The answer to a message that does not need the person (None: it does)."""
    if message.get("type") != "act":
        return b"{}"
    if message.get("away"):
        return _SIT_IN
    return None


class _Seat:
    name = "person"

    def __init__(self, path):
        self.path = str(path)  # the replay names the person's file, as the wasm seats' files
        self.logs: list = []

    def start(self, message: bytes) -> CallResult:
        return CallResult("ok", None, 0)

    def new_tournament(self, index: int | None = None) -> None:
        pass

    def close(self) -> None:
        pass


class LivePerson(_Seat):
    """The person at the page. ``clock_s``: seconds for each decision (None: no clock); when
    it runs out the call ends as a ``timeout`` (the table checks or folds)."""

    def __init__(self, path, clock_s: float | None = None):
        super().__init__(path)
        self.sha256 = ""  # the file's, once written (`write_record`)
        self.clock_s = clock_s
        self.answers: list = []
        self.events: list = []  # every event the seat was sent, in order
        self.offer: dict | None = None  # the act message waiting for the person
        self.decision = 0  # the id of the decision offered next
        self._offered_at = 0.0
        self._cond = threading.Condition()
        self._reply: bytes | None = None
        self._closed = False

    def call(self, message: bytes, budget_ns: int, **_) -> CallResult:
        msg = json.loads(message)
        with self._cond:
            self.events += msg.get("events", ())
            self._cond.notify_all()
        quick = _quick(msg)
        if quick is not None:
            return CallResult("ok", quick, 0)
        with self._cond:
            self.offer, self._reply, self._offered_at = msg, None, time.monotonic()
            self._cond.notify_all()
            answered = self._cond.wait_for(lambda: self._reply is not None or self._closed,
                                           timeout=self.clock_s)
            if self._closed:
                raise Abandoned("the page went away")
            self.offer, reply = None, self._reply
            self.decision += 1
            self._cond.notify_all()
        if not answered:
            self.answers.append(None)
            return CallResult("timeout", None, budget_ns)
        self.answers.append(json.loads(reply))
        return CallResult("ok", reply, 0)

    def answer(self, decision: int, reply: dict) -> bool:
        """Hand the page's ``reply`` to decision ``decision``; False when it is not the one
        waiting now (already played, timed out, or not offered yet)."""
        with self._cond:
            if self.offer is None or decision != self.decision or self._reply is not None:
                return False
            self._reply = json.dumps(reply, sort_keys=True).encode()
            self._cond.notify_all()
            return True

    def waited(self) -> float:
        """Seconds since the decision waiting now was offered."""
        return time.monotonic() - self._offered_at

    def wait(self, until, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) until ``until()`` holds or anything changes."""
        with self._cond:
            return self._cond.wait_for(until, timeout=timeout)

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def abandon(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


def encode_record(answers: list) -> bytes:
    return json.dumps({"schema": SCHEMA, "answers": answers}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True).encode()


def write_record(person: LivePerson, write) -> str:
    """Write the person's answers with ``write(path, bytes)`` (the series' whole-or-nothing
    `output.write_file`); returns their SHA-256, set as the seat's."""
    data = encode_record(person.answers)
    write(pathlib.Path(person.path), data)
    person.sha256 = hashlib.sha256(data).hexdigest()
    return person.sha256


def is_record(path) -> bool:
    """Whether ``path`` is a person's file (JSON of `SCHEMA`), not a wasm module."""
    try:
        doc = json.loads(pathlib.Path(path).read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("schema") == SCHEMA


class RecordedPerson(_Seat):
    """The person's recorded answers (`load`), replayed call by call."""

    def __init__(self, path, answers: list, sha256: str):
        super().__init__(path)
        self.answers, self.sha256, self._next = list(answers), sha256, 0

    def call(self, message: bytes, budget_ns: int, **_) -> CallResult:
        quick = _quick(json.loads(message))
        if quick is not None:
            return CallResult("ok", quick, 0)
        if self._next >= len(self.answers):  # more decisions than recorded: not this game
            return CallResult("timeout", None, budget_ns)
        answer = self.answers[self._next]
        self._next += 1
        if answer is None:
            return CallResult("timeout", None, budget_ns)
        return CallResult("ok", json.dumps(answer, sort_keys=True).encode(), 0)


def load(path) -> RecordedPerson:
    """A person's file as a policy; ValueError naming the file when it is not one."""
    data = pathlib.Path(path).read_bytes()
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(
            doc.get("answers"), list):
        raise ValueError(f"{path}: not a person's answers (schema {SCHEMA!r} expected)")
    return RecordedPerson(path, doc["answers"], hashlib.sha256(data).hexdigest())


def load_seat(path):
    """One seat of a `holdemjax play` replay (`holdemjax.series.replay.verify`'s ``loader``):
    the person's file (`load`) or a bot's wasm module (`load_policy`)."""
    if is_record(path):
        return load(path)
    try:
        return load_policy(path)
    except PolicyLoadError as exc:
        raise ValueError(str(exc)) from None


def legal_reply(offer: dict, action: str, amount: int) -> dict:
    """The reply of ``action`` (``raise``: to ``amount``) at ``offer``; ValueError naming what
    is not legal (the table's own reading of a reply, `protocol.parse_reply`)."""
    if action not in protocol.ACTIONS:
        raise ValueError(f"action must be one of {', '.join(protocol.ACTIONS)}, got {action!r}")
    reply = {"action": action} if action != "raise" else {"action": action, "amount": amount}
    read = protocol.parse_reply(json.dumps(reply).encode(), offer["legal"])
    if read.kind is None:
        raise ValueError(f"{action} is not legal now: {read.detail or read.outcome}")
    return reply
