"""A small pool for the league tests: copies of the bundled baseline and random modules under
their own names (seven bots that pass the certification), and two zoo modules that fail it:
``trap_nth`` (traps on its third message: a fault in the first game) and ``wrong_abi`` (fails
to start); and the small league they play (`SPEC`), once per session (``reference``)."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from holdemjax.league import manifest, play, run
from holdemjax.league.pool import load_pool
from holdemjax.series.policies import bundled

# 7 bots pass: 2 series of 2 tournaments each -> 3 qualifying series; a final of 1 series
SPEC = run.LeagueSpec(format="sng-6", seed=5, games=4, tournaments=2, final=6, final_games=2)
ZOO = pathlib.Path(__file__).parents[1] / "series" / "zoo"
PASSING = {"b1": "baseline", "b2": "baseline", "b3": "baseline", "b4": "baseline",
           "b5": "baseline", "r1": "random", "r2": "random"}
FAILING = ("trap_nth", "wrong_abi")


def make_pool(folder: pathlib.Path, passing=PASSING, failing=FAILING) -> pathlib.Path:
    import wasmtime

    folder.mkdir(parents=True, exist_ok=True)
    for name, source in passing.items():
        shutil.copy(bundled(source), folder / f"{name}.wasm")
    for name in failing:
        (folder / f"{name}.wasm").write_bytes(wasmtime.wat2wasm((ZOO / f"{name}.wat").read_text()))
    return folder


@pytest.fixture(scope="session")
def pool_dir(tmp_path_factory) -> pathlib.Path:
    return make_pool(tmp_path_factory.mktemp("league-pool"))


@pytest.fixture(scope="session")
def reference(pool_dir, tmp_path_factory):
    """`SPEC` played whole, uninterrupted: (its folder, its leaderboard document)."""
    out = tmp_path_factory.mktemp("league") / "ref"
    doc = run.run_league(SPEC, load_pool([pool_dir]), out, play.Inline())
    return out, doc


def seed_certification(league: pathlib.Path, folder: pathlib.Path) -> None:
    """Give ``folder`` the certifications of the league folder ``league``, recorded in its
    manifest (so trusted: not run again)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = (league / run.CERT_NAME).read_bytes()
    (folder / run.CERT_NAME).write_bytes(data)
    manifest.Manifest(folder, warn=print).record({run.CERT_NAME: data})
