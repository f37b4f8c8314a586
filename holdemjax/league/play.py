"""The jobs of a league and where they run: here, in a process pool, or on a Ray cluster.

A job is a plain dict: a certification (``kind: "certify"``: `pool.certify_module`) or one
series (``kind: "series"``: `holdemjax.series.runner.run_series` with its seed and line-up,
its files made by `holdemjax.series.output`). A job reads the modules from a ``{sha256: bytes}``
table and returns plain data: the series' files as bytes (``results.json``, ``replay.json``,
``viewer.html``, logs) and its `summary`; the calling process writes them. So the same job
gives the same bytes in whichever process or machine ran it. Every executor hands the modules
over once: the process pool to each worker when it starts, Ray through its object store
(``ray.put``, one object for the league).

A Ctrl-C stops a series at its next hand boundary (the series host's rule); a job stopped so
returns ``{"interrupted": True}`` and nothing of it is kept.
"""

from __future__ import annotations

import json
import pathlib
import signal
import tempfile

from holdemjax.league.pool import certify_module
from holdemjax.series import wasm

__all__ = ["run_job", "summary", "Inline", "ProcessPool", "RayCluster", "prepare_process",
           "ExecutorError"]


class ExecutorError(RuntimeError):
    """The executor itself failed (a worker process died, Ray cannot be reached): not a
    result of the league."""

#: ``interrupted``: a Ctrl-C reached the job in progress; ``stopping``: one reached this process
#: (a worker then starts no further job: the pool may have queued it before the Ctrl-C)
_state = {"interrupted": False, "stopping": False, "modules": None, "prepared": False}


def _on_sigint(signum, frame):
    _state["interrupted"] = _state["stopping"] = True
    raise KeyboardInterrupt


def prepare_process(compile_cache: bool = True, modules: dict | None = None,
                    catch_sigint: bool = False) -> None:
    """Once per process, before the engine runs: its steps on the calling thread and the
    persistent compile cache (as ``holdemjax series`` does); ``modules``: the worker's table;
    ``catch_sigint``: a Ctrl-C marks the job in progress interrupted."""
    if modules is not None:
        _state["modules"] = modules
    if catch_sigint:
        signal.signal(signal.SIGINT, _on_sigint)
    if _state["prepared"]:
        return
    _state["prepared"] = True
    from holdemjax.series.engine import run_inline

    run_inline()
    if compile_cache:
        from holdemjax.series.xla_cache import use_compile_cache

        use_compile_cache()


def run_job(job: dict, modules: dict | None = None) -> dict:
    """Run one job (modules: ``{sha256: bytes}``, default the worker's table)."""
    modules = _state["modules"] if modules is None else modules
    _state["interrupted"] = False
    if _state["stopping"]:
        return {"interrupted": True}
    try:
        if job["kind"] == "certify":
            out = {"certify": certify_module(modules[job["sha256"]], job["path"],
                                             job["format"], max_wall=job["max_wall"])}
        else:
            out = _play_series(job, modules)
    except KeyboardInterrupt:  # outside a series' hands (loading, writing its files)
        return {"interrupted": True}
    if _state["interrupted"]:
        return {"interrupted": True}
    return out


def _ray_job(job: dict, modules: dict, compile_cache: bool) -> dict:
    prepare_process(compile_cache)
    return run_job(job, modules)


def _play_series(job: dict, modules: dict) -> dict:
    from holdemjax.series import output, runner
    from holdemjax.series import replay as series_replay
    from holdemjax.series import results as series_results
    from holdemjax.series.protocol import SeriesVoid
    from holdemjax.series.wasm import PolicyLoadError, load_policy

    policies = []
    try:
        for bot in job["bots"]:
            p = load_policy(modules[bot["sha256"]], name=pathlib.Path(bot["path"]).name)
            p.path = bot["path"]  # as the pool gave it: `holdemjax replay` finds it by it
            policies.append(p)
        series = runner.run_series(policies, variant=job["variant"], seed=job["seed"],
                                   max_wall=job["max_wall"], tournaments=job["tournaments"],
                                   luck=job.get("luck", False))
    except (PolicyLoadError, runner.SeriesFailed, SeriesVoid, ValueError) as exc:
        return {"error": f"series {job['index']}: {exc}"}
    finally:
        for p in policies:
            p.close()
    doc = series_results.summarize(series, planned=job["tournaments"])
    with tempfile.TemporaryDirectory(prefix="holdemjax-league-") as tmp:
        output.write_results(doc, tmp)
        output.write_all(series, doc, tmp)
        files = {p.relative_to(tmp).as_posix(): p.read_bytes()
                 for p in sorted(pathlib.Path(tmp).rglob("*")) if p.is_file()}
    return {"files": files,
            "summary": summary(job, doc, json.loads(files[series_replay.REPLAY_NAME]))}


def summary(job: dict, results: dict, replay: dict) -> dict:
    """What the leaderboard reads of one series (no timing: a pure function of the series):
    per slot the bot, its score and place in every game, faults, timeouts, chips won, and its
    HUD counts (the results' ``hud``, `holdemjax.series.hud.COUNTS`); run with luck, its luck in
    every game (``luck``: the replay's luck of its seat, summed over the kinds of event)."""
    from holdemjax.series import hud

    slots = []
    for s in results["slots"]:
        seats = [t["player_at_seat"].index(s["slot"]) for t in replay["tournaments"]]
        slots.append({
            "bot": job["bots"][s["slot"]]["name"],
            "scores": [t["scores"][k] for t, k in zip(replay["tournaments"], seats)],
            "places": [t["places"][k] for t, k in zip(replay["tournaments"], seats)],
            "faults": s["faults"], "timeouts": s["timeouts"], "chips_won": s["chips_won"],
            "hud": {k: s["hud"][k] for k in hud.COUNTS},
        })
        if "luck" in s and all("luck" in t for t in replay["tournaments"]):
            slots[-1]["luck"] = [round(sum(t["luck"][k]), 6)
                                 for t, k in zip(replay["tournaments"], seats)]
    return {"index": job["index"], "stage": job["stage"], "seed": job["seed"],
            "variant": job["variant"], "tournaments_played": results["tournaments_played"],
            "stopped_early": results["stopped_early"], "slots": slots}


class Inline:
    """Every job in this process, one after another."""

    name = "inline"

    def __init__(self, compile_cache: bool = True):
        self.compile_cache = compile_cache

    def run(self, jobs: list[dict], modules: dict, on_result) -> None:
        prepare_process(self.compile_cache)
        _state["stopping"] = False
        previous = signal.signal(signal.SIGINT, _on_sigint)
        try:
            for job in jobs:
                out = run_job(job, modules)
                on_result(job, out)
                if out.get("interrupted"):
                    raise KeyboardInterrupt
        finally:
            signal.signal(signal.SIGINT, previous)


class ProcessPool:
    """``workers`` processes of this machine (spawned: a forked JAX process can deadlock),
    each given the modules once; results come back as they finish. ``job``: the function a
    worker runs on each job (module level; `run_job`)."""

    name = "process pool"

    def __init__(self, workers: int, compile_cache: bool = True, job=None):
        self.workers, self.compile_cache = workers, compile_cache
        self.job = run_job if job is None else job

    def run(self, jobs: list[dict], modules: dict, on_result) -> None:
        import concurrent.futures as cf
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        pool = cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                      initializer=prepare_process,
                                      initargs=(self.compile_cache, modules, True))
        futures = {pool.submit(self.job, job): job for job in jobs}
        delivered = set()
        try:
            for f in cf.as_completed(futures):
                try:
                    result = f.result()
                except cf.process.BrokenProcessPool as exc:
                    raise ExecutorError(f"a worker process died: {exc}") from None
                delivered.add(f)
                on_result(futures[f], result)
        except KeyboardInterrupt:
            # the series already running finish (or stop, if the Ctrl-C reached them too):
            # those that finish are kept
            for f in futures:
                f.cancel()
            running = [f for f in futures if not f.cancelled() and f not in delivered]
            for f in cf.as_completed(running):
                if f.exception() is None:
                    on_result(futures[f], f.result())
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class RayCluster:
    """One Ray task per job on the cluster at ``address`` (``"auto"``: the one this machine
    joined; None: the Ray this process already started), the modules put in the object store
    once."""

    name = "ray"

    def __init__(self, address: str | None = "auto", compile_cache: bool = True):
        self.address, self.compile_cache = address, compile_cache

    def run(self, jobs: list[dict], modules: dict, on_result) -> None:
        import ray

        if not ray.is_initialized():
            try:
                ray.init(address=self.address, log_to_driver=False)
            except Exception as exc:  # noqa: BLE001 - Ray's many ways to fail to connect
                raise ExecutorError(f"--ray {self.address}: {exc}") from None
        # a Ray driver puts its fault handler in front of wasmtime's: wasm traps in this
        # process (a certification, a later series) would kill it (wasm.trap_handlers_first)
        wasm.trap_handlers_first()
        task = ray.remote(num_cpus=1, max_retries=0)(_ray_job)
        shared = ray.put(modules)
        pending = {task.remote(job, shared, self.compile_cache): job for job in jobs}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    job = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        raise ExecutorError(f"Ray lost job {job['kind']} {job['index']}: "
                                            f"{str(exc).splitlines()[0]}") from None
                    on_result(job, result)
        except KeyboardInterrupt:  # keep what already finished, cancel the rest
            done, rest = ray.wait(list(pending), num_returns=len(pending), timeout=0)
            for ref in rest:
                ray.cancel(ref, force=True)
            for ref in done:
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayError:
                    continue
                on_result(pending[ref], result)
            raise
