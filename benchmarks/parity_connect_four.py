"""Step-by-step parity of holdemjax's connect four with pgx's over many random games.

    python benchmarks/parity_connect_four.py [--games 10000] [--batch 1000] [--seed 0]
                                             [--illegal-rate 0.01]

The shared driver `holdemjax.parity.run_parity` steps both envs together with random legal
actions (and, at `--illegal-rate` per move, an illegal one: a full column) and compares every
public field at every step. The only chance is who moves first: pgx draws it from its key and
`prepare` copies its draw into our states. Exit status 0 when no game mismatches.
"""

from __future__ import annotations

import sys

from holdemjax.parity import cli

#: A game has at most 42 moves.
CONFIG = dict(max_steps=42)


def prepare(ours, theirs):
    return ours.replace(current_player=theirs.current_player,
                        _first_player=theirs.current_player)


CONFIG["prepare"] = prepare

if __name__ == "__main__":
    sys.exit(cli("connect_four", **CONFIG))
