"""Issue 36, "the duplicate service a club can run": every bad input a clear 4xx, no side
channels, normalised names, exactly-once actions, and a leaderboard that ranks finished lines.

One app for the module (`club`), with matches made straight in its store (no reference lines
are played, so nothing here compiles but the one 3-seat line of `test_service.py`'s spec); the
body caps are also tried on a real uvicorn (`tests.duplicate.server.running`), where a body that
is never sent shows whether the server waits to read it.
"""

from __future__ import annotations

import os
import socket
import stat

import pytest
from fastapi.testclient import TestClient

from holdemjax.duplicate import match as M
from holdemjax.duplicate import names
from holdemjax.duplicate.service import create_app
from holdemjax.duplicate.store import Store
from tests.duplicate.server import OPERATOR

OP = {"X-Operator": OPERATOR}
SPEC = M.MatchSpec(seats=3, hands=2, bots=("advanced", "beginner"))  # test_service's programs
SEED = 2**90 + 17


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = tmp_path_factory.mktemp("club") / "club.sqlite"
    app = create_app(str(path), operator=OPERATOR, max_lines=1)
    # a failure must come back as the client sees it (a 500 too), not as a raised exception
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def _match(client, **spec) -> tuple[str, str]:
    """A new open match in the app's store (no reference lines): (id, share token)."""
    store = client.app.state.service.store
    m = store.create_match(M.MatchSpec(**{**SPEC.as_dict(), **spec}), SEED)
    return m.id, store.add_door(m.id, "share")


def _join(client, mid, share, name):
    return client.post(f"/api/matches/{mid}/join", json={"token": share, "name": name})


def _key(client, mid, share, name) -> str:
    r = _join(client, mid, share, name)
    assert r.status_code == 200, r.text
    return r.json()["key"]


# ----------------------------------------------------------- A: every bad input a clear 4xx






def _raw(base: str, head: str, chunks=()) -> tuple[str, int]:
    """Send ``head`` (request line and headers) then ``chunks`` to the server behind ``base``
    until it answers; returns (its status line, the body bytes sent before the answer)."""
    host, port = base.removeprefix("http://").split(":")
    sent = 0
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(head.encode())
        try:
            for chunk in chunks:
                s.settimeout(0.0)
                try:
                    if s.recv(1, socket.MSG_PEEK):
                        break  # answered already
                except BlockingIOError:
                    pass
                s.settimeout(10)
                s.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the server closed the connection: its answer is waiting
        s.settimeout(10)
        answer = s.recv(4096).decode("latin-1")
    return answer.split("\r\n", 1)[0], sent










def test_the_store_refuses_a_name_not_in_its_normal_form(tmp_path):
    """Finding 6, below the service: every joiner (CLI, bots, references) goes through it."""
    with Store(tmp_path / "s.sqlite") as s:
        mid = s.create_match(SPEC, SEED).id
        s.join(mid, "carol", "api", "http", "", M.utcnow())
        with pytest.raises(names.BadName, match="' dave' is not in its normal form: write 'dave'"):
            s.join(mid, " dave", "api", "http", "", M.utcnow())
        with pytest.raises(M.MatchError, match="'CAROL' already took part.*as 'carol'"):
            s.check_can_join(mid, "CAROL")


def test_the_name_rules():
    assert names.normal("  Ｅｖｅ ") == "Eve"
    assert names.fold("Eve") == names.fold("EVE") == names.fold("\u0415ve")  # Cyrillic Е
    assert names.fold("a  b") == names.fold("a b")
    assert names.fold("alice") != names.fold("alicia")
    assert names.normal("ref:advanced") == "ref:advanced"
    with pytest.raises(names.BadName, match="1..64 characters"):
        names.normal("x" * 65)






# ------------------------------------------------------------------- B: no side channels




def test_the_store_file_and_its_companions_are_private(tmp_path):
    """Finding 8: club.sqlite and its WAL were created 0644 with the open matches' seeds."""
    old = os.umask(0o022)
    try:
        with Store(tmp_path / "club.sqlite") as s:
            s.create_match(SPEC, SEED)
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    finally:
        os.umask(old)
    assert modes == {"club.sqlite": 0o600, "club.sqlite-wal": 0o600, "club.sqlite-shm": 0o600}
    ignored = (os.path.dirname(os.path.dirname(os.path.dirname(__file__))) + "/.gitignore")
    assert "*.sqlite*" in open(ignored).read().split()


# ------------------------------------------------------------------ C: exactly-once actions


# ---------------------------------------------------------- D: finished lines are ranked


