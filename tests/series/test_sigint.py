"""A Ctrl-C never lands inside a wasm callback (issue 50, finding 9): while a guarded call runs
on the main thread, SIGINT only sets a flag (`series.guard.DeferredSigint`), and the process's
own handler gets it once the call is over, in the host's code. (Raised inside the epoch-deadline
callback before its ``try:``, it killed a league with SIGSEGV.)"""

from __future__ import annotations

import os
import signal

import pytest

from holdemjax.series import guard
from tests.series.test_guard import ASKER, _started


def test_a_sigint_inside_a_guarded_call_is_raised_after_the_call(monkeypatch):
    """The SIGINT comes from inside a host import (Python called by the guest, as the judge
    is): the guest goes on calling imports until its call ends (out of fuel), and the
    KeyboardInterrupt comes after, with the process's handler back in place."""
    asker = _started(ASKER, "asker.wasm")
    calls, handlers, import_call = [], [], guard.MachineGuard.import_call

    def ctrl_c_at_the_10th(self):
        calls.append(1)
        if len(calls) == 10:
            handlers.append(signal.getsignal(signal.SIGINT))
            os.kill(os.getpid(), signal.SIGINT)
        return import_call(self)

    monkeypatch.setattr(guard.MachineGuard, "import_call", ctrl_c_at_the_10th)
    with pytest.raises(KeyboardInterrupt):
        asker.call(b"go", 10**8)
    assert handlers and handlers[0] is not signal.default_int_handler  # deferred meanwhile
    assert len(calls) > 100, "the signal cut the guest's call short"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.undo()
    assert asker.call(b"", 10**8).outcome == "no_reply"  # the policy plays on
