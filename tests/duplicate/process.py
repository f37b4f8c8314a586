"""A real ``holdemjax duplicate serve`` in a process of its own, on a free local port, that a
test can kill with SIGKILL (the recovery tests: nothing acknowledged is lost, everything
finishes after a restart on the same store)."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

MAIN = "import sys; from holdemjax.cli import main; sys.exit(main())"


class Server:
    """``holdemjax duplicate serve --store STORE`` started now; ``url``, ``operator`` (the
    token it printed)."""

    def __init__(self, store, timeout: float = 60):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", MAIN, "duplicate", "serve", "--store", str(store), "--port",
             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.proc.stdout.readline()  # the URL
        self.operator = self.proc.stdout.readline().split()[2]
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.get("/api/matches/none")
            except urllib.error.HTTPError:
                break  # it answers: 404
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    why = self.proc.stderr.read() if self.proc.poll() is not None else "timeout"
                    raise RuntimeError(f"the server did not start: {why}") from None
                time.sleep(0.1)

    def call(self, method: str, path: str, body: dict | None = None, timeout: float = 30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "X-Operator": self.operator, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def get(self, path: str):
        return self.call("GET", path)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup of any kind."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.communicate(timeout=30)

    def stop(self) -> int:
        """SIGINT (Ctrl-C): the service shuts down; returns its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        self.proc.communicate(timeout=60)
        return self.proc.returncode


@contextlib.contextmanager
def serving(store):
    server = Server(store)
    try:
        yield server
    finally:
        if server.proc.poll() is None:
            server.kill()


def stored(store, match_id: str, name: str) -> tuple[dict[int, str], list[tuple]]:
    """What the store file holds of one line: its finished hands' records by index, and the
    actions of every hand (read straight from the file: no process of the service)."""
    with contextlib.closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
        hands = dict(db.execute("SELECT hand, record FROM hands WHERE match_id = ? AND "
                                "name = ?", (match_id, name)).fetchall())
        actions = db.execute("SELECT hand, idx, street, seat, code, amount_to, added FROM "
                             "actions WHERE match_id = ? AND name = ? ORDER BY hand, idx",
                             (match_id, name)).fetchall()
    return hands, actions


def until(check, timeout: float, what: str, every: float = 0.05):
    """Poll ``check()`` until it returns something true (returned); AssertionError naming
    ``what`` after ``timeout`` seconds."""
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout} s (last seen: {last!r})")
