"""Shared fixtures: the issue's end-to-end match, played once per test process through the CLI.

Two bundled wasm baselines, a JAX bot (``jax-random``, joining under the name ``random``) and a
scripted person (the terminal UI fed from stdin, quitting once and resuming) play one small match
that closes by itself when the fourth line is complete. What each command printed and returned
along the way is kept for the tests to judge.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from holdemjax.duplicate import cli
from holdemjax.series.policies import bundled

SEATS, HANDS, SEED = 6, 8, 20261130
# participant names are user input: the report must escape it (a name has no "/": `names`)
PERSON = '<Eve & "co"><script>'
FIRST_SESSION = ["x", "r 999999", "c", "c", "q"]  # two bad commands, two calls, then quit


class Ran(tuple):
    """What a command did: unpacks as ``(exit status, stdout + stderr)``; ``.out`` and ``.err``
    apart."""

    def __new__(cls, code: int, out: str, err: str):
        ran = super().__new__(cls, (code, out + err))
        ran.code, ran.out, ran.err = code, out, err
        return ran


def run_cli(store, *args, stdin: str | None = None) -> Ran:
    """``holdemjax duplicate ARGS --store STORE`` in this process (stdout and stderr caught)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        if stdin is not None:
            mp = stack.enter_context(pytest.MonkeyPatch.context())
            mp.setattr("sys.stdin", io.StringIO(stdin))
        code = cli.main([args[0], "--store", str(store), *map(str, args[1:])])
    return Ran(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def e2e(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("duplicate")
    store = tmp / "match.sqlite"
    seen: dict = {"store": store, "tmp": tmp}
    ran = run_cli(store, "create", "--seats", SEATS, "--hands", HANDS, "--seed", SEED,
                  "--participants", 4, "--json")
    assert ran.code == 0, ran
    seen["create"] = json.loads(ran.out)
    mid = seen["match"] = seen["create"]["match"]
    seen["run_a"] = run_cli(store, "run", mid, bundled("baseline"), "--name", "base-a")
    seen["sealed"] = {
        "leaderboard": run_cli(store, "leaderboard", mid, "--json"),
        "review": run_cli(store, "review", mid, "base-a", "base-b"),
        "style": run_cli(store, "style", mid),
        "report": run_cli(store, "report", mid, "--out", tmp / "early.html"),
        "verify": run_cli(store, "verify", mid),
    }
    seen["run_b"] = run_cli(store, "run", mid, bundled("baseline"), "--name", "base-b")
    seen["run_random"] = run_cli(store, "run", mid, "jax-random", "--name", "random")
    seen["play_1"] = run_cli(store, "play", mid, "--name", PERSON,
                             stdin="\n".join(FIRST_SESSION) + "\n")
    seen["status_open"] = run_cli(store, "status", mid)
    from holdemjax.duplicate.store import Store

    with Store(store) as s:
        # the CLI keeps the key of each line it joined beside the store: the person's own
        key = json.loads((tmp / "match.sqlite.keys.json").read_text())[mid][PERSON]
        seen["progress_after_quit"] = s.progress(mid, PERSON, key)
        seen["state_after_quit"] = s.match(mid).state
    seen["sealed_late"] = run_cli(store, "leaderboard", mid)
    seen["play_2"] = run_cli(store, "play", mid, "--name", PERSON, stdin="c\n" * 400)
    seen["status_closed"] = run_cli(store, "status", mid)
    return seen
