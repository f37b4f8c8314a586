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
