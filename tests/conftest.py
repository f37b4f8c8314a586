import ctypes
import gc
import os

import pytest

# Tests run on the CPU with a deterministic single-host setup.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# One persistent XLA compilation cache for the subprocesses the tests start (they inherit the
# environment): the CLI and training commands compile the same programs (the sng-6 step, init and
# scans) in one fresh process after another, and compiling dominates their time on CPU. The cache
# is keyed by the program and the JAX/XLA versions, so it can only skip work, never change a
# result; it lives in the checkout (.jax_cache/, ignored by git).
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.path.join(_ROOT, ".jax_cache"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.5")
# ... but not inside the test processes themselves (the xdist workers, which live for the whole
# run and compile hundreds of programs): twice a worker died inside JAX's cache write (SIGSEGV,
# then SIGABRT in ``executable.serialize()`` under ``put_executable_and_time``, compiling
# ``heads_up.measure`` for tests/training/test_lbr.py late in a full ``pytest -n auto``; the same
# files in one fresh process pass), and xdist then hung until CI's limit. A worker compiles its
# own programs once and keeps them in memory; it neither reads nor writes the persistent cache.
import jax  # noqa: E402 (after JAX_PLATFORMS above: jax reads its environment at import)

jax.config.update("jax_enable_compilation_cache", False)
# The series engine's compile cache (holdemjax/series/xla_cache.py, turned on by the series
# commands the tests run) in the checkout too, never in the user's ~/.cache.
os.environ.setdefault("HOLDEMJAX_COMPILE_CACHE", os.path.join(_ROOT, ".jax_cache", "holdemjax"))

# xdist runs each file on one worker (``--dist loadfile`` in pyproject): a file's module fixtures
# and its cached compiled programs are built once, not once per worker (1,209 tests in 1,135 s
# wall in a clean-clone .ci/run on a 2-core AMD EPYC, 2026-12-03, 19 min 57 s with the
# installs). A program is shared only by the calls that reach the same jitted function: a
# library function that builds a new `jax.jit` or wrapper per call compiles again each time
# (evaluate, preflop_grid and heads_up.opponent did; holdemjax.testing.CompileCounter counts
# compiles and traces, for a test that a second call compiles nothing).
# The list below orders the files longest first (CPU seconds, mostly compiling). By default
# xdist 3.8's loadfile re-sorts the files by their number of tests, which sent these long
# few-test files last (about 90 s of one worker alone at the end); ``--no-loadscope-reorder``
# (pyproject) keeps the collection order this hook sets. Order only: every test still runs.
# (``loadgroup`` grouped nothing.)
_LONGEST_FIRST = (  # files, longest first (benchmarks/results/test_durations.json)
    "tests/test_luck_rollout.py", "tests/envs/test_sng_invariants.py",
    "tests/training/test_learn.py", "tests/envs/test_go.py", "tests/test_luck.py",
    "tests/training/test_lbr.py", "tests/training/test_ppo_luck.py", "tests/training/test_ppo.py",
    "tests/envs/test_sng.py", "tests/test_luck_learned.py", "tests/training/test_panel_tables.py",
    "tests/training/test_exploit_ppo.py", "tests/envs/test_gardner_chess.py",
    "tests/training/test_exploit.py", "tests/training/test_evaluate.py",
    "tests/training/test_export_wasm.py", "tests/training/test_baselines.py",
    "tests/test_pettingzoo.py", "tests/training/test_sharding.py",
    "tests/training/test_notebooks.py", "tests/series/test_compile_cache.py",
    "tests/duplicate/test_rotation.py", "tests/test_api.py", "tests/bots/test_bots.py",
    "tests/envs/test_backgammon.py", "tests/duplicate/test_tiers.py", "tests/envs/test_othello.py",
    "tests/poker/test_tournament.py", "tests/training/test_distill.py",
    "tests/league/test_executors.py", "tests/training/test_explore.py",
    "tests/bots/test_jax_tiers.py", "tests/training/test_drills.py",
    "tests/duplicate/test_service_exit.py", "tests/envs/test_sng_golden.py",
    "tests/training/test_preflop_grid.py", "tests/poker/test_cards.py", "tests/test_chance.py",
    "tests/series/test_baseline_wasm.py", "tests/envs/test_leduc_holdem.py",
    "tests/envs/test_play2048.py", "tests/poker/test_table.py", "tests/series/test_sdk_rust.py",
    "tests/host/test_legal.py", "tests/series/test_golden_series.py",
    "tests/training/test_push_fold.py", "tests/training/test_alphazero.py",
    "tests/envs/test_hex.py", "tests/poker/test_table_pokerkit.py",
    "tests/series/test_standard_errors.py", "tests/series/test_series_wasm.py",
)
_RANK = {path: i for i, path in enumerate(_LONGEST_FIRST)}


def pytest_collection_modifyitems(session, config, items):
    # stable: a file's tests keep their order, the other files theirs
    items.sort(key=lambda item: _RANK.get(item.nodeid.split("::")[0], len(_RANK)))


# A worker keeps every program it compiled for as long as it lives: in a full run on the 2-core
# CI machine each worker's memory grew past 4.5 GB in 24 minutes, still growing, and a worker of
# the 2026-12-07 CI run died late in the run of a fatal signal inside XLA. After each file the
# worker drops its compiled programs (a program two files share compiles again; five poker
# files in one process ran as fast with it, at two thirds of the peak memory).
@pytest.fixture(autouse=True, scope="module")
def _drop_compiled_programs_after_each_file():
    yield
    jax.clear_caches()
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)  # hand the freed pages back to the system (glibc keeps them)


try:
    _LIBC = ctypes.CDLL("libc.so.6")
except OSError:  # not glibc
    _LIBC = None
