"""Ctrl-C never kills a league with a signal of its own (issue 50, finding 9): a SIGINT that
arrived as wasmtime entered the epoch-deadline callback (`series.guard.judge_calls`) was raised
at its first bytecode, before its ``try:``, and the process died with SIGSEGV. A SIGINT during a
guarded call now waits for the call's end (`guard.DeferredSigint`), so every interrupt exits 130
with the command's message."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from tests.league.conftest import make_pool

MAIN = "import sys; from holdemjax.cli import main; sys.exit(main())"
# seconds after the league's folder appears: certifying, the first series, later series
DELAYS = (0.0, 0.3, 0.9, 1.8)


def test_every_interrupt_of_a_league_exits_130_with_its_message(tmp_path):
    pool = make_pool(tmp_path / "pool", passing={f"b{i}": "baseline" for i in range(5)}
                     | {"r1": "random"}, failing=())
    procs = []
    for k in range(len(DELAYS)):
        procs.append(subprocess.Popen(
            [sys.executable, "-c", MAIN, "league", str(pool), "--games", "40", "--tournaments",
             "4", "--out", str(tmp_path / f"league{k}")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    waiting = dict(enumerate(DELAYS))  # process -> its delay, until it is signalled
    seen: dict[int, float] = {}
    deadline = time.monotonic() + 120
    while waiting and time.monotonic() < deadline:
        for k, delay in list(waiting.items()):
            if k not in seen and (tmp_path / f"league{k}").exists():
                seen[k] = time.monotonic()
            if k in seen and time.monotonic() >= seen[k] + delay:
                procs[k].send_signal(signal.SIGINT)
                del waiting[k]
        time.sleep(0.01)
    assert not waiting, f"leagues that never started: {sorted(waiting)}"
    for proc, delay in zip(procs, DELAYS):
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, (delay, proc.returncode, err[-3000:])
        last = err.strip().splitlines()[-1]  # before the command ran, or in it
        assert last.startswith(("holdemjax: interrupted", "holdemjax league: interrupted:")), (
            delay, err[-3000:])
        assert "Traceback" not in err, (delay, err[-3000:])

