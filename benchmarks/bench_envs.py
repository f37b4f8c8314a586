"""Steps/s of holdemjax envs and pgx's in one process run (same as `holdemjax bench`).

    python benchmarks/bench_envs.py kuhn_poker tic_tac_toe --batch 1024 4096
"""

import sys

from holdemjax.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
