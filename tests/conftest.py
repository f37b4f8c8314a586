import os

# Tests run on the CPU with a deterministic single-host setup.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
