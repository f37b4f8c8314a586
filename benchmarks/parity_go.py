"""Step-by-step parity of holdemjax's go with pgx's over many random games, both board sizes.

    python benchmarks/parity_go.py [--size 9|19] [--games N] [--batch B] [--seed 0]
                                   [--illegal-rate 0.002 (9x9) / 0.0005 (19x19)]
    python benchmarks/parity_go.py --write-golden tests/envs/golden

Defaults: 10,000 games of go_9x9 or 1,000 games of go_19x19. The shared driver
`holdemjax.parity.run_parity` steps both envs together and compares every public field at every
step. Both envs draw the first player (black) from the init key the same way, so no `prepare`
hook is needed. Exit status 0 when no game mismatches.

Every kind of ending is reached and counted (`ending`): positional superko, two passes in a row,
the step cap (2 N² steps) and an illegal move (at `--illegal-rate` per move). Uniform random play
(pgx's benchmark policy) almost never repeats a position, so `pick` gives the games three
styles, by row: uniform; uniform until half the step cap and then passing often; and a ko
hunter that plays a move recreating an earlier position whenever one exists (judged from the
Zobrist hashes of single-stone captures and plain moves) and otherwise prefers captures.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp

from holdemjax.experimental import act_randomly
from holdemjax.parity import cli

ENDINGS = ("superko", "two passes", "step cap", "illegal move")
SUPERKO, TWO_PASSES, STEP_CAP, ILLEGAL = range(4)
UNIFORM, LATE_PASSER, KO_HUNTER = range(3)  # row styles: row % 3
LATE_PASS_RATE = 0.25  # chance per move of passing in the second half, for LATE_PASSER rows
CAPTURE_RATE = 0.7  # chance per move of taking a capture when one exists, for KO_HUNTER rows


def _size(state) -> int:
    return int(round(state._lab.shape[-1] ** 0.5))


def _repeats(state, hashes) -> jax.Array:
    """[B, K] bool: hashes [B, K, 2] already seen in this game (before its step count)."""
    hist = state._hashes  # [B, 2, T]
    steps = jnp.arange(hist.shape[-1])
    past = steps[None, :] < state._step_count[:, None]  # [B, T]
    same = ((hashes[..., 0, None] == hist[:, None, 0]) & (hashes[..., 1, None] == hist[:, None, 1])
            & past[:, None])
    return same.any(axis=-1)


def ending(before, action, after, illegal):
    """Why each game ended (read at its last step): an index into ENDINGS."""
    n = _size(before)
    repeated = _repeats(before, after._hash[:, None])[:, 0] & (action != n * n)
    return jnp.where(illegal, ILLEGAL,
                     jnp.where(repeated, SUPERKO,
                               jnp.where(after._passes >= 2, TWO_PASSES, STEP_CAP)))


def _hunter_moves(state, k: int = 4):
    """[B, N² + 1] bool, [B, N²] bool: legal moves that take single stones only and recreate an
    earlier position (checked for `k` such moves per row), and legal moves that capture."""
    from holdemjax.envs.go import zobrist

    n = _size(state)
    m = n * n
    lab = state._lab.reshape(-1, n, n)
    libs = state._libs.reshape(-1, n, n)
    color = state._step_count % 2  # the mover's
    sign = (1 - 2 * color).astype(jnp.int16)[:, None, None]
    z = jnp.asarray(zobrist(n)).reshape(2, n, n, 2)
    z_own, z_opp = z[color], z[1 - color]  # [B, n, n, 2]

    def shift(x, d, fill=0):  # the value at the neighbour in direction d (up, down, left, right)
        pad = [(0, 0)] * x.ndim
        pad[1 + d // 2] = (1, 1)
        y = jnp.pad(x, pad, constant_values=fill)
        sl = [slice(None)] * x.ndim
        sl[1 + d // 2] = slice(0, n) if d % 2 == 0 else slice(2, n + 2)
        return y[tuple(sl)]

    enemy = lab * sign < 0
    alone = enemy
    for d in range(4):
        alone = alone & (shift(lab, d) != lab)
    atari = enemy & (libs == 1)
    h = state._hash[:, None, None, :] ^ z_own
    singles_only = jnp.ones_like(enemy)
    takes = captures = jnp.zeros_like(enemy)
    for d in range(4):
        near_atari = shift(atari, d, False)
        near_alone = shift(alone, d, False)
        captures = captures | near_atari
        singles_only = singles_only & ~(near_atari & ~near_alone)
        take = near_atari & near_alone
        takes = takes | take
        h = h ^ jnp.where(take[..., None], shift(z_opp, d), jnp.uint32(0))
    legal = state.legal_action_mask[:, :m].reshape(-1, n, n)
    candidates = (takes & singles_only & legal).reshape(-1, m)
    points = jax.vmap(lambda c: jnp.nonzero(c, size=k, fill_value=m)[0])(candidates)  # [B, k]
    rows = jnp.arange(points.shape[0])[:, None]
    h = h.reshape(-1, m, 2)[rows, jnp.minimum(points, m - 1)]  # [B, k, 2]
    hit = _repeats(state, h) & (points < m)
    rep = jnp.zeros((points.shape[0], m + 1), jnp.bool_).at[rows, points].max(hit)
    return rep, (captures & legal).reshape(-1, m)


def pick(key, state):
    """The legal action each row plays (see the module docstring for the three styles)."""
    n = _size(state)
    m = n * n
    rows = state.current_player.shape[0]
    style = jnp.arange(rows) % 3
    k_uniform, k_coin, k_rep, k_cap = jax.random.split(key, 4)
    mask = state.legal_action_mask
    action = act_randomly(k_uniform, mask)
    coin = jax.random.uniform(k_coin, (rows,))
    late = state._step_count >= n * n  # half the step cap
    action = jnp.where((style == LATE_PASSER) & late & (coin < LATE_PASS_RATE), m, action)
    rep, cap = _hunter_moves(state)
    hunt = style == KO_HUNTER
    no_pass = mask.at[:, m].set(False)
    quiet = jnp.where(no_pass.any(axis=1, keepdims=True), no_pass, mask)
    action = jnp.where(hunt, act_randomly(k_uniform, quiet), action)  # hunters never pass
    has_cap = cap.any(axis=1)
    cap_action = act_randomly(k_cap, jnp.concatenate([cap, jnp.zeros_like(cap[:, :1])], axis=1))
    action = jnp.where(hunt & has_cap & (coin < CAPTURE_RATE), cap_action, action)
    action = jnp.where(hunt & rep.any(axis=1), act_randomly(k_rep, rep), action)
    return action.astype(jnp.int32)


def config(size: int) -> dict:
    """The shared driver's hooks for go_{size}x{size}."""
    return dict(max_steps=2 * size * size, ending=ending, ending_names=ENDINGS, pick=pick)


#: env id -> the keyword arguments of `run_parity` for that board size.
CONFIG = {"go_9x9": config(9), "go_19x19": config(19)}
DEFAULT_GAMES = {"go_9x9": 10_000, "go_19x19": 1_000}
#: Chance per move of an illegal action: about a quarter of the games end by one on either size.
ILLEGAL_RATE = {"go_9x9": 0.002, "go_19x19": 0.0005}


# --------------------------------------------------------------- golden games from pgx
def _play_batch(size: int, games: int, seed: int):
    """Play `games` games in both envs with `pick` (no illegal moves); returns the actions
    [T, B], our batched states per step and pgx's batched states per step (host arrays)."""
    import numpy as np
    import pgx

    import holdemjax

    env_id = f"go_{size}x{size}"
    ours, peer = holdemjax.make(env_id), pgx.make(env_id)
    keys = jax.random.split(jax.random.key(seed), games)
    a, b = jax.vmap(ours.init)(keys), jax.vmap(peer.init)(keys)
    step_a, step_b = jax.jit(jax.vmap(ours.step)), jax.jit(jax.vmap(peer.step))
    choose = jax.jit(pick)
    actions, states_a, states_b = [], [jax.device_get(a)], [jax.device_get(b)]
    for t in range(2 * size * size):
        action = choose(jax.random.fold_in(jax.random.key(seed + 1), t), a)
        a, b = step_a(a, action), step_b(b, action)
        actions.append(np.asarray(action))
        states_a.append(jax.device_get(a))
        states_b.append(jax.device_get(b))
        if bool(np.asarray(a.terminated).all()):
            break
    return np.stack(actions), states_a, states_b


def _game(states, row: int, length: int) -> list:
    return [jax.tree.map(lambda x: x[row], s) for s in states[:length + 1]]


def record_golden(directory: str, seed: int = 5) -> list[str]:
    """Write golden games played by pgx (and us, identically) as SGF files under `directory`:
    a 9x9 game with the largest one-move capture, one with a ko retaken after a ko threat, the
    shortest 9x9 and 19x19 games that end by positional superko. Each game's every public field
    is checked against pgx before it is written; the SGF's result and final board are pgx's."""
    import pathlib

    import numpy as np

    from holdemjax.envs.go import to_sgf
    from holdemjax.parity import FIELDS

    written = []
    for size, games in ((9, 600), (19, 150)):
        actions, sa, sb = _play_batch(size, games, seed)
        steps = len(actions)
        done = np.stack([np.asarray(s.terminated) for s in sa])  # [T + 1, B]
        length = np.where(done.any(axis=0), done.argmax(axis=0), steps)  # last step index
        stones = np.stack([(np.asarray(s._lab) != 0).sum(axis=1) for s in sa])  # [T + 1, B]
        taken = np.maximum(stones[:-1] + 1 - stones[1:], 0)  # stones captured at each step
        taken[actions == size * size] = 0
        ko = np.stack([np.asarray(s._ko) for s in sa])  # [T + 1, B]
        ends = [int(ending(jax.tree.map(jnp.asarray, sa[max(int(length[g]) - 1, 0)]),
                           jnp.asarray(actions[max(int(length[g]) - 1, 0)]),
                           jax.tree.map(jnp.asarray, sa[int(length[g])]),
                           jnp.zeros(games, bool))[g]) for g in range(games)]
        picks = {}
        superko = [g for g in range(games) if ends[g] == SUPERKO]
        if superko:
            picks["superko"] = min(superko, key=lambda g: length[g])
        if size == 9:
            picks["large-capture"] = int(taken.max(axis=0).argmax())
            retakes = []
            for g in range(games):
                for t in range(1, int(length[g])):
                    k = ko[t, g]  # banned for the move at step t + 1 (the point just taken)
                    later = [u for u in range(t + 1, int(length[g]))
                             if actions[u, g] == k and ko[u + 1, g] >= 0]
                    if k >= 0 and later:
                        retakes.append((int(length[g]), g))
                        break
            picks["ko-fight"] = min(retakes)[1]
        for name, g in picks.items():
            n = int(length[g])
            ours, theirs = _game(sa, g, n), _game(sb, g, n)
            for t, (x, y) in enumerate(zip(ours, theirs)):
                for field in FIELDS:
                    assert np.array_equal(getattr(x, field), getattr(y, field)), (name, t, field)
            text = to_sgf(ours)
            final = np.sign(np.asarray(theirs[-1]._x.board)).reshape(size, size)
            rows = "\n".join("".join(".XO"[v] for v in row) for row in final)
            assert rows in text, name
            black = int(ours[0]._black)
            winner = "B" if np.asarray(theirs[-1].rewards)[black] > 0 else "W"
            assert f"RE[{winner}+" in text, name
            path = pathlib.Path(directory) / f"go_{size}x{size}_{name}.sgf"
            path.write_text(text)
            written.append(f"{path}: {n} moves, max capture {int(taken[:n, g].max())}")
    return written


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--write-golden" in argv:
        for line in record_golden(argv[argv.index("--write-golden") + 1]):
            print(line)
        return 0
    size = 9
    if "--size" in argv:
        i = argv.index("--size")
        size = int(argv[i + 1])
        del argv[i:i + 2]
    env_id = f"go_{size}x{size}"
    if env_id not in CONFIG:
        raise SystemExit(f"--size must be 9 or 19, got {size}")
    return cli(env_id, argv, games=DEFAULT_GAMES[env_id], batch=1_000 if size == 9 else 250,
               illegal_rate=ILLEGAL_RATE[env_id], **CONFIG[env_id])


if __name__ == "__main__":
    sys.exit(main())
