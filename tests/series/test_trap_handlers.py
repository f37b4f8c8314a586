"""A wasm trap stays a `trap` outcome after another library puts its fault handler in front of
wasmtime's (`wasm_module.trap_handlers_first`; holdemjax/series/wasm.py: nothing
a policy does may crash the host). `ray.init` does that in a Ray driver, and so does
`faulthandler.enable()`; both re-raise the signal, which then no longer comes from the guest's
code; `ray.shutdown` leaves no handler at all. Without the fix the process dies at the next trap
(a CI test worker did, after the Ray league tests). The script runs in a process of its own:
that death is the failure."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ZOO = pathlib.Path(__file__).parent / "zoo"

SCRIPT = r"""
import faulthandler, pathlib, signal, sys
import wasmtime
from holdemjax.series import wasm

zoo = pathlib.Path(sys.argv[1])

def started(name):
    policy = wasm.load_policy(bytes(wasmtime.wat2wasm((zoo / f"{name}.wat").read_text())),
                              name=f"{name}.wasm")
    policy.start(b"")
    return policy

def intruder():  # a handler in front of wasmtime's that re-raises: faulthandler's
    faulthandler.disable()
    faulthandler.enable()

early = started("recurse")  # stack overflow: SIGSEGV
print("fresh", wasm.trap_handlers_first())
intruder()
print("after the intruder", wasm.trap_handlers_first())
print("early", early.call(b"r", wasm.SHOT_NS).detail)
intruder()
late = started("trap_nth")  # unreachable: SIGILL; its new store put the handlers back
late.call(b"{}", wasm.SHOT_NS)
print("late", late.call(b"{}", wasm.SHOT_NS).detail, wasm.trap_handlers_first())
signal.signal(signal.SIGSEGV, signal.SIG_DFL)  # none at all, as ray.shutdown leaves them
print("defaults", wasm.trap_handlers_first(), started("recurse").call(b"r", wasm.SHOT_NS).detail)
"""


def test_a_trap_after_another_fault_handler_is_still_a_trap():
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(ZOO)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["fresh False", "after the intruder True",
                                        "early STACK_OVERFLOW", "late UNREACHABLE False",
                                        "defaults True STACK_OVERFLOW"]
