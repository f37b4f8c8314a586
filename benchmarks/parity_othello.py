"""Step-by-step parity of holdemjax's othello with pgx's over many random games.

    python benchmarks/parity_othello.py [--games 10000] [--batch 1000] [--seed 0]
                                        [--illegal-rate 0.01]

The shared driver `holdemjax.parity.run_parity` steps both envs together with random legal
actions (and, at `--illegal-rate` per move, an illegal one) and compares every public field at
every step. The only chance is who moves first (black): pgx draws it from its key and `prepare`
copies its draw into our states. Exit status 0 when no game mismatches.
"""

from __future__ import annotations

import sys

from holdemjax.parity import cli


def prepare(ours, theirs):
    return ours.replace(current_player=theirs.current_player,
                        _first_player=theirs.current_player)


#: A game has at most 60 moves, passes only when no move exists, and two final passes.
CONFIG = dict(max_steps=130, prepare=prepare)

if __name__ == "__main__":
    sys.exit(cli("othello", **CONFIG))
