"""The tournament invariants of tests/envs/test_sng.py over thousands of random tournaments.

Checked after every step of every game (SPEC §2): chips conserved; the actor is alive, dealt in,
not folded and not all-in; `current_player` is the player at the acting seat; the big blind
matches the level of the hands played; rewards are zero until the terminal step and sum to 1
there; eliminated players never come back. At the end: every tournament finished.

    python benchmarks/sng_invariants.py --games 1000 --env certify sng-6 ring-9
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.envs.test_sng import _env, _invariants, _play


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--env", nargs="+", default=["certify", "sng-6", "ring-9"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for env_id in args.env:
        env = _env(env_id)
        steps = [0]
        check = _invariants(env)

        def counted(prev, s):
            steps[0] += 1
            check(prev, s)

        t0 = time.perf_counter()
        s = _play(env_id, args.games, seed=args.seed, check=counted, max_steps=5000)
        hands = int((env.tournament(s).hand + 1).sum())
        print(f"{env_id}: {args.games} tournaments, {hands} hands, {steps[0]} batched steps, "
              f"all invariants held ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
