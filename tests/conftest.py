import os

# Tests run on the CPU with a deterministic single-host setup.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# One persistent XLA compilation cache for the whole run, shared by the xdist workers and the
# subprocesses the tests start (they inherit the environment): many test files compile the same
# programs (the sng-6 step, init and scans), and compiling dominates the suite's time on CPU. The
# cache is keyed by the program and the JAX/XLA versions, so it can only skip work, never change a
# result; it lives in the checkout (.jax_cache/, ignored by git).
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.path.join(_ROOT, ".jax_cache"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.5")

# The longest tests (CPU seconds measured on a 2-core machine, mostly compiling) start first, so
# that the two xdist workers do not end with one of them alone on a long test: xdist's default
# scheduling hands tests out in collection order, round robin. Order only: every test still runs;
# a file whose module fixture its tests share moves whole (else it is built more often).
# (``--dist loadfile`` was tried: xdist sends the files with the most tests first, so these long
# files ran last and the run took longer; ``loadgroup`` grouped nothing with xdist 3.8.)
_LONGEST_FIRST = (
    "tests/test_sparse.py::test_device_check_script_runs",
    "tests/training/test_notebooks.py::test_notebook_runs",
    "tests/envs/test_go.py::test_parity_with_pgx",
    "tests/envs/test_gardner_chess.py::test_parity_with_pgx",
    "tests/envs/test_sng_invariants.py::test_api_plays_whole_tournaments",
    "tests/envs/test_sng_invariants.py::test_six_seat_tournaments_keep_every_invariant",
    "tests/envs/test_sng_invariants.py::test_ring_games_keep_every_invariant",
    "tests/envs/test_sng_golden.py::test_tournaments_reproduce_leaf_by_leaf",
    "tests/training/test_ppo.py",
    "tests/training/test_export_wasm.py",
    "tests/poker/test_cards.py::test_sort_free_dealing_equals_jax_random",
    "tests/series/test_baseline_wasm.py::test_baseline_wasm_plays_as_the_jax_baseline",
    "tests/envs/test_sng.py::test_formats_are_params_that_vmap",
    "tests/training/test_evaluate.py",
)


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        for i, prefix in enumerate(_LONGEST_FIRST):
            if item.nodeid.startswith(prefix):
                return i
        return len(_LONGEST_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order
