"""A small pool for the league tests: copies of the bundled baseline and random modules under
their own names (seven bots that pass the certification), and two zoo modules that fail it:
``trap_nth`` (traps on its third message: a fault in the first game) and ``wrong_abi`` (fails
to start)."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from holdemjax.series.policies import bundled

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
