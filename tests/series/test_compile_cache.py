"""The engine's persistent compile cache (`engine.use_compile_cache`, as `holdemjax series`
turns it on): a second process loads the engine's programs from the cache instead of compiling
them and plays the same tournaments bit for bit; ``HOLDEMJAX_COMPILE_CACHE=off`` turns it off."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from holdemjax.series import xla_cache

CHILD = r"""
import hashlib, json, jax
from jax._src import dispatch
events, compiled = {}, []
jax.monitoring.register_event_listener(lambda e, **_: events.__setitem__(e, events.get(e, 0) + 1))
def duration(event, _, fun_name=None, **kw):
    if event in (dispatch.BACKEND_COMPILE_EVENT, dispatch.JAXPR_TRACE_EVENT):
        compiled.append(str(fun_name))
jax.monitoring.register_event_duration_secs_listener(duration)
from holdemjax.series import runner, xla_cache
folder = xla_cache.use_compile_cache()
from holdemjax.series.engine import engine
from holdemjax.series.policies import bundled
from holdemjax.series.wasm import load_policy
series = runner.run_series([load_policy(bundled("baseline")) for _ in range(6)],
                           variant="series-10", seed=3, tournaments=2, max_wall=None)
eng = engine("certify")  # a second format in the same process (its own module names)
state = eng.act(eng.seat(jax.random.key(5)), eng.scalar(1), eng.scalar(0))
other = [eng.host(state)[0].table.stacks.tolist(), *(x.tolist() for x in eng.end(state))]
played = json.dumps([series.tournaments, [s.scores for s in series.slots], other],
                    sort_keys=True)
print(json.dumps({"folder": None if folder is None else str(folder),
                  "compiled": compiled,
                  "hits": events.get("/jax/compilation_cache/cache_hits", 0),
                  "misses": events.get("/jax/compilation_cache/cache_misses", 0),
                  "played": hashlib.sha256(played.encode()).hexdigest()}))
"""


def _child(cache: str, jax_cache: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    env["HOLDEMJAX_COMPILE_CACHE"] = cache
    if jax_cache is not None:  # JAX's own persistent cache, as a user may set it
        env.update(JAX_COMPILATION_CACHE_DIR=jax_cache,
                   JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0")
    out = subprocess.run([sys.executable, "-c", CHILD], check=True, capture_output=True,
                         text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_a_second_process_loads_the_engine_from_the_cache_and_plays_the_same(tmp_path):
    folder = tmp_path / "xla"
    cold = _child(str(folder))
    steps = {f"jit({step}_{env})" for step in ("seat", "act", "boundary", "settle", "end")
             for env in ("sng_6", "certify")}
    assert cold["folder"] == str(folder) and steps <= set(cold["compiled"])
    assert len(list((folder / "engine").iterdir())) == 2  # one file per format
    warm = _child(str(folder))  # the engine's executables loaded: not traced, not compiled
    assert not steps & set(warm["compiled"])
    assert not any("boundary" in name for name in warm["compiled"])  # nor traced
    assert warm["played"] == cold["played"]
    off = _child("off")
    assert off["folder"] is None and off["played"] == cold["played"]
    assert steps <= set(off["compiled"])


def test_an_executable_from_jax_s_own_cache_is_not_stored(tmp_path):
    """XLA:CPU does not serialize an executable that JAX's persistent cache loaded whole (a
    fresh process misses a kernel): such a step is used, never stored."""
    jax_cache, folder = str(tmp_path / "jax"), tmp_path / "xla"
    first = _child("off", jax_cache)  # fills JAX's cache
    second = _child(str(folder), jax_cache)  # JAX's cache hits: nothing stored
    assert second["hits"] > 0 and not list((folder / "engine").iterdir())
    assert second["played"] == first["played"]


def test_a_damaged_executable_file_is_compiled_again(tmp_path):
    folder = tmp_path / "xla"
    cold = _child(str(folder))
    path = next((folder / "engine").glob("sng-6-*.bin"))
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    again = _child(str(folder))
    assert "jit(boundary_sng_6)" in again["compiled"] and "jit(act_certify)" not in again[
        "compiled"] and again["played"] == cold["played"]


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(xla_cache.CACHE_ENV, str(tmp_path / "c"))
    assert xla_cache.compile_cache_dir() == tmp_path / "c"
    for off in ("off", "0", ""):
        monkeypatch.setenv(xla_cache.CACHE_ENV, off)
        assert xla_cache.compile_cache_dir() is None
    monkeypatch.delenv(xla_cache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert xla_cache.compile_cache_dir() == pathlib.Path(tmp_path) / "holdemjax" / "xla"


def test_the_cli_option_turns_the_cache_off(monkeypatch, tmp_path):
    from holdemjax import cli

    monkeypatch.setitem(xla_cache._state, "engine", None)
    monkeypatch.setenv(xla_cache.CACHE_ENV, str(tmp_path / "c"))
    for command in (["series"], ["certify", "x.wasm"], ["replay", "r.json"]):
        args = cli.build_parser().parse_args([*command, "--no-compile-cache"])
        cli._compile_cache(args)
        assert xla_cache.executables_dir() is None
    cli._compile_cache(cli.build_parser().parse_args(["series"]))
    assert xla_cache.executables_dir() == tmp_path / "c" / "engine"
