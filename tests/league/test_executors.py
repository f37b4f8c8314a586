"""One league, three executors (holdemjax/league/play.py): a real local Ray (two CPUs, one task
per job, the modules put in its object store once), a process pool of two and this process give
the same leaderboard and series files byte for byte."""

from __future__ import annotations

import time

import pytest

from holdemjax.league import play, run
from holdemjax.league.pool import load_pool
from holdemjax.series import replay, wasm
from tests.league.conftest import seed_certification

SPEC = run.LeagueSpec(format="sng-6", seed=9, games=4, tournaments=2)  # 3 series of 2


@pytest.fixture(scope="module")
def ray_league(pool_dir, tmp_path_factory):
    """The league on a real local Ray, started once for the module (certification included)."""
    import ray  # the `ray` extra, in `test`: CI installs it (no skip)

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        out = tmp_path_factory.mktemp("ray") / "league"
        doc = run.run_league(SPEC, load_pool([pool_dir]), out, play.RayCluster(address=None))
        # ray.init put the Ray driver's fault handler in front of wasmtime's; the league put
        # wasmtime's back (RayCluster, each new store), else the next wasm trap here kills us
        doc["wasmtime_handlers_in_front"] = not wasm.trap_handlers_first()
    finally:
        ray.shutdown()  # leaves SIG_DFL where the handlers were: put wasmtime's back again
        wasm.trap_handlers_first()
    return out, doc


def _same_files(a, b, series: int) -> None:
    for name in (run.LEADERBOARD_JSON, run.LEADERBOARD_HTML):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    for k in range(series):
        for name in (replay.REPLAY_NAME, "summary.json"):  # (results and viewer hold the timing)
            path = f"series/{k:04d}/{name}"
            assert (a / path).read_bytes() == (b / path).read_bytes(), path


def test_ray_and_a_process_pool_agree_byte_for_byte(ray_league, pool_dir, tmp_path):
    ray_out, doc = ray_league
    assert doc["wasmtime_handlers_in_front"]  # (tests/series/test_trap_handlers.py)
    assert doc["stages"][0]["series_played"] == 3
    assert [c["passed"] for c in doc["certification"]].count(False) == 2
    out = tmp_path / "pool"
    # the certification is Ray's (already in the folder): the pool plays the three series
    seed_certification(ray_out, out)
    run.run_league(SPEC, load_pool([pool_dir]), out, play.ProcessPool(2))
    _same_files(ray_out, out, 3)


def test_and_this_process_too(ray_league, pool_dir, tmp_path):
    ray_out, _ = ray_league
    out = tmp_path / "inline"
    seed_certification(ray_out, out)
    run.run_league(SPEC, load_pool([pool_dir]), out, play.Inline())
    _same_files(ray_out, out, 3)


def slow_job(job: dict) -> dict:
    """A stand-in job for a worker process: it takes a while and returns its index."""
    time.sleep(0.4)
    return {"index": job["index"]}


def test_a_ctrl_c_on_the_process_pool_keeps_each_finished_job_once():
    """Ctrl-C after the second result, as Python's handler delivers it in the loop (the
    KeyboardInterrupt raised there): the jobs still running are waited for and delivered once
    each, those not started are cancelled, and the interrupt goes on to the caller (which keeps
    what it got: `run.run_league`). (A real SIGINT to this process was swallowed once in a
    clean-clone CI run under xdist, though it passes alone: raised here, it cannot be.)"""
    got = []

    def on_result(job, result):
        got.append(result["index"])
        if len(got) == 2:
            raise KeyboardInterrupt

    jobs = [{"index": i} for i in range(12)]
    with pytest.raises(KeyboardInterrupt):
        play.ProcessPool(1, job=slow_job).run(jobs, {}, on_result)  # one worker: cheaper
    assert len(got) == len(set(got)) and 2 <= len(got) < 12, got
