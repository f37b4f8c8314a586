"""Step-by-step parity of holdemjax's backgammon with pgx's over many random games.

    python benchmarks/parity_backgammon.py [--games 10000] [--batch 1000] [--seed 0]
                                           [--illegal-rate 0.0007]
    python benchmarks/parity_backgammon.py --write-golden tests/envs/golden/backgammon.jsonl

The shared driver `holdemjax.parity.run_parity` steps both envs together with random legal
actions (and, at `--illegal-rate` per micro-move, an illegal one: about one game in eight ends
so, with the board after the illegal move, an illegal no-op's new roll included) and compares
every public field at every step. Both envs get the same init and step keys and draw the same
dice from them (no `prepare` hook: our `init` and `step` use pgx's draws). Endings are counted
by kind (single, gammon, backgammon win, illegal move) and play events by name (forced no-ops
at the start and in the middle of a turn, doubles, hits, entering from the bar, bearing off,
bearing off with a higher die). Exit status 0 when no game mismatches.

`--write-golden PATH` records games played by pgx alone (see `record_golden`) for
tests/envs/test_backgammon.py.
"""

from __future__ import annotations

import sys

import jax.numpy as jnp

from holdemjax.envs.backgammon import (
    BOARD_LEN,
    NUM_DIE_FACES,
    NUM_POINTS,
    OBS_DICE,
    OFF,
    SRC_BAR,
    decode_action,
)
from holdemjax.parity import cli

ENDINGS = ("single", "gammon", "backgammon", "illegal move")
EVENTS = ("forced no-op at turn start", "forced no-op mid-turn", "double rolled", "hit",
          "enter from bar", "bear off", "bear off with a higher die")


def ending(before, action, after, illegal):
    """single / gammon / backgammon from the winner's reward, or an illegal move."""
    score = jnp.abs(after.rewards).max(axis=1).astype(jnp.int32)
    return jnp.where(illegal, 3, jnp.clip(score, 1, 3) - 1)


def events(before, action, after, illegal):
    legal = ~illegal
    no_op = legal & (action < NUM_DIE_FACES)
    dice = before._dice
    full_roll = jnp.where(dice[:, 0] == dice[:, 1], 4, 2)
    fresh = before._playable.sum(axis=1) == full_roll
    src, tgt = decode_action(action)
    moved = legal & ~no_op
    target = jnp.take_along_axis(before._board, jnp.clip(tgt, 0, 27)[:, None], axis=1)[:, 0]
    passed = after.current_player != before.current_player
    pips = action % NUM_DIE_FACES + 1
    return jnp.stack([
        no_op & fresh,
        no_op & ~fresh,
        legal & passed & ~after.terminated & (after._dice[:, 0] == after._dice[:, 1]),
        moved & (tgt < NUM_POINTS) & (target == -1),
        moved & (action // NUM_DIE_FACES == SRC_BAR),
        moved & (tgt == OFF),
        moved & (tgt == OFF) & (src + pips > NUM_POINTS),
    ], axis=1)


#: Random games last about 200 micro-moves; the longest of 10,000 took under 1,000.
CONFIG = dict(max_steps=3000, illegal_rate=0.0007, ending=ending, ending_names=ENDINGS,
              events=events, event_names=EVENTS)


# ------------------------------------------------------------------ golden games from pgx
def golden_keys(seed: int):
    """(init key, step key of step t) of a golden game: `key(seed)` and
    `fold_in(key(seed), t + 1)`."""
    import jax

    base = jax.random.key(seed)
    return base, lambda t: jax.random.fold_in(base, t + 1)


def _dice_text(faces) -> str:
    return "".join(str(int(f) + 1) for f in faces)


def record_game(seed: int, illegal_at: int | None = None) -> dict:
    """One game played by pgx with random legal moves (numpy rng `seed`), with pgx's dice.

    Each step is one line "P RR LL: MOVE | LEGAL": the player to move, the roll, the dice still
    to play, the move played (notation of `holdemjax.envs.backgammon.action_name`, "pass" for
    the six no-op ids; "!" after an illegal move) and the legal micro-moves in id order. With
    `illegal_at`, the move at that step is the lowest illegal id instead.
    """
    import jax
    import numpy as np
    import pgx

    from holdemjax.envs.backgammon import action_name

    env = pgx.make("backgammon")
    init, step = jax.jit(env.init), jax.jit(env.step)
    rng = np.random.default_rng(seed)
    k_init, k_step = golden_keys(seed)
    state = init(k_init)
    game = {"name": f"pgx-{seed}", "seed": seed, "first_player": int(state.current_player),
            "steps": []}
    t = 0
    while not bool(state.terminated):
        mask = np.asarray(state.legal_action_mask)
        legal = np.flatnonzero(mask)
        names = sorted({action_name(a) for a in legal}, key=lambda n: legal[0] if n == "pass"
                       else next(a for a in legal if action_name(a) == n))
        if t == illegal_at:
            action = int(np.flatnonzero(~mask)[0])
        else:
            action = int(rng.choice(legal))
        left = np.asarray(state.observation)[OBS_DICE]
        game["steps"].append(
            f"{int(state.current_player)} {_dice_text(state._dice)} "
            + "".join(str(f + 1) * int(n) for f, n in enumerate(left))
            + f": {action_name(action)}{'' if mask[action] else '!'} | {' '.join(names)}")
        state = step(state, action, k_step(t))
        t += 1
    game["rewards"] = np.asarray(state.rewards).tolist()
    game["current_player"] = int(state.current_player)
    game["board"] = np.asarray(state.observation)[:BOARD_LEN].tolist()
    game["dice_shown"] = np.asarray(state.observation)[OBS_DICE].tolist()
    return game


#: (seed, illegal_at): games whose endings cover single, gammon, backgammon and an illegal
#: move (the last, at step 40) between them.
GOLDEN = ((0, None), (4, None), (8, None), (5, None), (7, 40))


def record_golden(path: str) -> None:
    import json

    with open(path, "w", encoding="utf-8") as f:
        for seed, illegal_at in GOLDEN:
            f.write(json.dumps(record_game(seed, illegal_at)) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--write-golden":
        record_golden(sys.argv[2])
        sys.exit(0)
    sys.exit(cli("backgammon", **CONFIG))
