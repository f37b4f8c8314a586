"""Record golden tournaments into tests/envs/golden/sng.jsonl (actions + expected results).

Each line: the env id, the init seed, the menu action ids played (from the random and baseline
bots), and what must come out: hands played, places, scores by player id, final chips by seat.
`tests/envs/test_sng.py` replays every line. Re-record only when the env's version changes.

    python benchmarks/make_golden_sng.py
"""

from __future__ import annotations

import json
import pathlib

import jax
import numpy as np

import holdemjax
from holdemjax.bots import baseline, random_bot

ROOT = pathlib.Path(__file__).resolve().parents[1]
GAMES = (("certify", 1, "random"), ("certify", 2, "baseline"), ("certify", 3, "mixed"),
         ("sng-6", 4, "baseline"), ("ring-9", 5, "random"))


def record(env_id: str, seed: int, who: str) -> dict:
    env = holdemjax.make(env_id)
    state = jax.jit(env.init)(jax.random.key(seed))
    step = jax.jit(env.step)
    bots = {"random": jax.jit(lambda s, k: random_bot.act(env, s, k)),
            "baseline": jax.jit(lambda s, k: baseline.act(env, s, k))}
    bot_key = jax.random.key(1000 + seed)
    actions, rewards = [], np.zeros(env.num_players)
    while not bool(state.terminated):
        name = who if who != "mixed" else ("baseline" if int(state.current_player) == 0
                                          else "random")
        a = int(bots[name](state, bot_key))
        actions.append(a)
        state = step(state, a)
        rewards += np.asarray(state.rewards)
    t = env.tournament(state)
    return {
        "env": env_id, "seed": seed, "bots": who, "actions": actions,
        "hands": int(t.hand) + 1,
        "place_by_seat": np.asarray(t.place).tolist(),
        "player_at_seat": np.asarray(t.player_at).tolist(),
        "chips_by_seat": np.asarray(t.table.stacks).tolist(),
        "rewards": [round(float(r), 6) for r in rewards],
    }


def main() -> None:
    lines = [json.dumps(record(*g)) for g in GAMES]
    path = ROOT / "tests" / "envs" / "golden" / "sng.jsonl"
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} games to {path}")


if __name__ == "__main__":
    main()
