"""Ctrl-C for the commands that run series (issue 50, finding 9: every interrupt of a league
exits 130 with its message).

A SIGINT raises KeyboardInterrupt in whatever Python code the main thread runs next, and some
of that code cannot pass it on: a garbage-collection callback (JAX's, while it is imported) or
a ``__del__`` only prints it as "Exception ignored", and the command ran on to its end; inside
a wasm callback it killed the process (that one is `guard.DeferredSigint`'s). `CtrlC`, for the
length of a command (`CTRL_C`, entered by ``holdemjax``'s `main`), remembers every SIGINT,
keeps the swallowed ones off stderr, and `check` raises one again at the command's next
report, so none is lost.
"""

from __future__ import annotations

import signal
import sys
import threading

__all__ = ["CtrlC", "CTRL_C"]


class CtrlC:
    """A context: SIGINT raises KeyboardInterrupt as before and is remembered (``pending``);
    `check` raises KeyboardInterrupt while one is pending. The previous handler and
    ``sys.unraisablehook`` are put back at the exit. Outside the main thread it does nothing."""

    def __init__(self):
        self.pending = False
        self._handler = self._hook = None
        self._depth = 0

    def _on_sigint(self, signum, frame):
        self.pending = True
        raise KeyboardInterrupt

    def _unraisable(self, unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return  # swallowed where it landed: `check` raises it again
        self._hook(unraisable)

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is threading.main_thread():
            if self._depth == 0:
                self.pending = False
                self._handler = signal.signal(signal.SIGINT, self._on_sigint)
                self._hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
            self._depth += 1
        return self

    def __exit__(self, *exc) -> None:
        if threading.current_thread() is not threading.main_thread() or not self._depth:
            return
        self._depth -= 1
        if self._depth == 0:
            signal.signal(signal.SIGINT, self._handler)
            sys.unraisablehook, self._hook = self._hook, None

    def check(self) -> None:
        """KeyboardInterrupt if a Ctrl-C came (one that nothing passed on, too)."""
        if self.pending:
            raise KeyboardInterrupt


#: The process's one: ``holdemjax``'s `main` enters it, the commands `check` it.
CTRL_C = CtrlC()
