"""A real uvicorn running the duplicate service in a thread of the test process, on a free
local port (the browser and load tests talk to it over HTTP)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import uvicorn

from holdemjax.duplicate.service import create_app

OPERATOR = "operator-token"


@contextlib.contextmanager
def running(path, *, max_lines: int = 24):
    """Yields ``(base_url, app)`` while the server runs; stops it afterwards."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(str(path), operator=OPERATOR, max_lines=max_lines)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the duplicate service did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(timeout=30)
