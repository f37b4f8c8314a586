"""``holdemjax league --demo FOLDER``: the demo pool (the bundled modules and the shipped
checkpoints exported greedy and sampled) built into the pool folder, the modules already there
kept; without the sdk extra's compiler, one line naming the bots it cannot build and the extra;
and a pool smaller than the table refused before any certification runs."""

from __future__ import annotations

import pathlib
import sys

import pytest

from holdemjax.league import run as league_run
from holdemjax.league.demo import BUNDLED, Exports, build_demo_pool
from holdemjax.league.pool import PoolError, load_pool
from holdemjax.series.policies import bundled
from tests.league.conftest import SPEC


class FakeExports:
    """Two checkpoints; the export writes the bundled baseline's bytes and records the call."""

    def __init__(self, fail_after: int | None = None):
        self.calls, self.fail_after = [], fail_after

    def exports(self) -> Exports:
        return Exports({"a": pathlib.Path("a.msgpack"), "b": pathlib.Path("b.msgpack")},
                       self.export)

    def export(self, checkpoint, out, greedy):
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise ValueError("no compiler here (pip install -e '.[sdk]')")
        self.calls.append((checkpoint.name, out.name, greedy))
        out.write_bytes(pathlib.Path(bundled("baseline")).read_bytes())


def test_the_demo_pool_is_the_bundled_modules_and_each_checkpoint_greedy_and_sampled(tmp_path):
    fake = FakeExports()
    said = []
    paths = build_demo_pool(tmp_path / "bots", fake.exports(), say=said.append)
    assert [p.name for p in paths] == ["baseline.wasm", "random.wasm", "a.wasm",
                                       "a_sampled.wasm", "b.wasm", "b_sampled.wasm"]
    assert fake.calls == [("a.msgpack", "a.wasm", True), ("a.msgpack", "a_sampled.wasm", False),
                          ("b.msgpack", "b.wasm", True), ("b.msgpack", "b_sampled.wasm", False)]
    assert len(said) == 4 and "a_sampled.wasm (sampled a.msgpack)" in said[1]
    assert [b.name for b in load_pool([tmp_path / "bots"])] == sorted(p.stem for p in paths)
    again = FakeExports()  # a second run keeps every module
    assert build_demo_pool(tmp_path / "bots", again.exports(), say=said.append) == paths
    assert again.calls == []


def test_a_failed_export_names_the_bots_left_to_build_and_why(tmp_path):
    with pytest.raises(PoolError, match=r"--demo: 3 of the demo's 6 bots cannot be built "
                       r"\(a_sampled.wasm, b.wasm, b_sampled.wasm\): no compiler here "
                       r"\(pip install -e '.\[sdk\]'\)"):
        build_demo_pool(tmp_path / "bots", FakeExports(fail_after=1).exports(), say=print)
    assert sorted(p.name for p in (tmp_path / "bots").iterdir()) == [
        "a.wasm", *(f"{n}.wasm" for n in BUNDLED)]


def test_the_command_s_demo_is_every_shipped_checkpoint():
    from holdemjax.cli import demo_exports

    modules = demo_exports().modules()
    assert len(modules) + len(BUNDLED) >= 6 + 4  # ten distinct bots for a six-seat table
    assert {checkpoint.name for checkpoint, _ in modules.values()} == {
        "sng6_example.msgpack", "sng6_learned.msgpack", "sng6_pushfold.msgpack",
        "sng6_pushfold_seed1.msgpack", "sng6_pushfold_seed2.msgpack"}


def test_without_the_compiler_the_command_names_the_sdk_extra(tmp_path, capsys, monkeypatch):
    from holdemjax.cli import main

    monkeypatch.setitem(sys.modules, "ziglang", None)  # as if the sdk extra were not installed
    assert main(["league", "--demo", str(tmp_path / "bots"), "--out", str(tmp_path / "l")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("holdemjax league: --demo: 10 of the demo's 12 "
                                               "bots cannot be built (sng6_example.wasm, "), err
    assert "no module named ziglang (pip install -e '.[sdk]'" in err[0]
    assert sorted(p.name for p in (tmp_path / "bots").iterdir()) == ["baseline.wasm",
                                                                     "random.wasm"]
    assert not (tmp_path / "l").exists()


def test_demo_takes_one_pool_folder(tmp_path, capsys):
    from holdemjax.cli import main

    assert main(["league", "--demo", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert "--demo builds one pool folder, got 2" in capsys.readouterr().err


def test_a_pool_smaller_than_the_table_is_refused_before_certifying(tmp_path):
    class NoJobs:
        def run(self, *args):
            raise AssertionError("a job ran for a pool that cannot fill a table")

    bots = load_pool([bundled("baseline"), bundled("random")])
    with pytest.raises(league_run.LeagueError, match=r"a sng-6 table needs 6 bots, the pool has 2 "
                       r"\(baseline, random\)"):
        league_run.run_league(SPEC, bots, tmp_path / "league", NoJobs())
    assert not (tmp_path / "league").exists()
