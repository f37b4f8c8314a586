"""A league killed with SIGKILL (issue 50, the SIGKILL suite): ``holdemjax league`` in a process
of its own is killed once its first series is in place; the same command then continues the
folder and ends with the leaderboard bytes of an uninterrupted run, every series kept by the
dead process trusted (its manifest) and none played twice."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from holdemjax.cli import main
from tests.league.conftest import SPEC
from tests.league.test_league import FILES

MAIN = "import sys; from holdemjax.cli import main; sys.exit(main())"


def _args(pool, out) -> list[str]:
    return ["league", str(pool), "--seed", str(SPEC.seed), "--games", str(SPEC.games),
            "--tournaments", str(SPEC.tournaments), "--final", str(SPEC.final),
            "--final-games", str(SPEC.final_games), "--out", str(out)]


def test_a_killed_league_continues_to_the_same_bytes(reference, pool_dir, tmp_path, capsys):
    ref_out, _ = reference
    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", MAIN, *_args(pool_dir, out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "series" / "0000").exists():  # renamed into place whole
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, "no series within 120 s"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    kept = sorted(p.name for p in (out / "series").iterdir() if p.name.isdigit())
    assert kept and "0000" in kept
    before = {k: (out / "series" / k / "summary.json").read_bytes() for k in kept
              if (out / "series" / k / "summary.json").exists()}

    assert main(_args(pool_dir, out)) == 0
    err = capsys.readouterr().err
    for name in FILES:
        assert (out / name).read_bytes() == (ref_out / name).read_bytes(), (name, err)
    for k, data in before.items():  # what the dead process finished is what the league used
        assert (out / "series" / k / "summary.json").read_bytes() == data
