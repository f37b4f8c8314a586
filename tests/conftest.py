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

# xdist runs each file on one worker (``--dist loadfile`` in pyproject): a file's module fixtures
# and its cached compiled programs are built once, not once per worker. The files with the longest
# tests (CPU seconds measured on a 2-core machine, mostly compiling) start first, so that the two
# workers do not end with one of them alone on a long file: xdist hands files out in collection
# order. Order only: every test still runs.
_LONGEST_FIRST = (  # files, longest first
    "tests/envs/test_sng_invariants.py", "tests/envs/test_sng.py", "tests/training/test_ppo.py",
    "tests/envs/test_go.py", "tests/training/test_notebooks.py", "tests/test_sparse.py",
    "tests/envs/test_gardner_chess.py", "tests/envs/test_sng_golden.py",
    "tests/poker/test_cards.py", "tests/training/test_export_wasm.py",
    "tests/poker/test_tournament.py", "tests/envs/test_backgammon.py", "tests/bots/test_bots.py",
)
_RANK = {path: i for i, path in enumerate(_LONGEST_FIRST)}


def pytest_collection_modifyitems(session, config, items):
    # stable: a file's tests keep their order, the other files theirs
    items.sort(key=lambda item: _RANK.get(item.nodeid.split("::")[0], len(_RANK)))
