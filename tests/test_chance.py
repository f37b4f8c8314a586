"""Chance made explicit (issue 39 point 1): ``step_deterministic``, ``chance_outcomes`` and
``chance_step`` split a step, and chained with an outcome drawn from those probabilities they
give what ``step`` gives, in distribution and state by state.

For every key, the outcome that ``step`` drew is read off its result, and the pair given that
outcome must give the very same state; the outcomes' counts over hidden keys must fit the
announced probabilities (chi-square); and where the outcome space is small the probabilities
are checked exactly: 2048's new tile against `place_tile` over every 16-bit draw, backgammon's
21 rolls against the 36 ordered pairs of dice.

The hold'em envs draw every card at a hand's deal and take no step key: their hidden draws are
the decks, so their split is checked over fresh decks dealt into one decision (the same
betting, other cards), state by state at every kind of step of scripted hands (the flop, turn
and river shown; bets, folds and a showdown that show nothing; an all-in run-out whose every
outcome re-pays the hand and deals the next one) in tests/envs/test_sng_invariants.py, where
api_test compiled the env's programs already; here `cards.put_on_board`'s uniformity by
enumeration, and (slow) games through the split under jit/vmap/scan.
"""

from __future__ import annotations

import ast
import collections
import itertools
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

import holdemjax
from holdemjax.envs import backgammon, play2048
from holdemjax.poker import cards
from holdemjax.testing import shove_policy

KEYS = 3000
ROOT = pathlib.Path(__file__).resolve().parents[1]
_ENVS: dict = {}


def _env(env_id):
    """One env per id for the whole file, and its compiled batch programs (built once)."""
    if env_id not in _ENVS:
        env = holdemjax.make(env_id)
        _ENVS[env_id] = env, {
            "steps": jax.jit(jax.vmap(env.step, in_axes=(None, None, 0))),
            "complete": jax.jit(jax.vmap(env.chance_step, in_axes=(None, 0))),
        }
    return _ENVS[env_id]


def _same(a, b, skip=()):
    for (path, x), y in zip(jax.tree_util.tree_leaves_with_path(a), jax.tree.leaves(b),
                            strict=True):
        name = jax.tree_util.keystr(path)
        if not any(s in name for s in skip):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=name)


def _play(env, steps, seed):
    """A state after ``steps`` random legal moves (every move drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    state = env.init(jax.random.key(seed))
    for i in range(steps):
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        action = int(legal[rng.integers(len(legal))])
        state = env.step(state, action, jax.random.key(1000 * seed + i))
        assert not bool(state.terminated)
    return state


def _check_split(env_id, state, action, outcome_of, skip=()):
    """Over `KEYS` hidden keys: step == chance_step(step_deterministic, the outcome step drew),
    and the outcomes' counts fit `chance_outcomes` (chi-square)."""
    env, programs = _env(env_id)
    keys = jax.random.split(jax.random.key(123), KEYS)
    nexts = programs["steps"](state, jnp.int32(action), keys)
    after = env.step_deterministic(state, action)
    probs = np.asarray(env.chance_outcomes(after), np.float64)
    assert probs.shape == (env.num_chance_outcomes,) and abs(probs.sum() - 1) < 1e-6
    host_after, host_nexts = jax.device_get((after, nexts))
    outcomes = np.array([outcome_of(host_after, jax.tree.map(lambda x, i=i: x[i], host_nexts))
                         for i in range(KEYS)])
    assert (probs[outcomes] > 0).all()  # step never draws an outcome called impossible
    completed = programs["complete"](after, jnp.asarray(outcomes, jnp.int32))
    _same(completed, nexts, skip)
    seen = np.bincount(outcomes, minlength=len(probs))
    live = probs > 0
    if live.sum() > 1:
        test = stats.chisquare(seen[live], probs[live] / probs[live].sum() * KEYS)
        assert test.pvalue > 1e-4, (seen, probs)
    return after, probs


# --------------------------------------------------------------------------------- 2048
def _new_tile(after, nxt) -> int:
    """The outcome step drew: the cell whose exponent changed, and a 2 (0) or a 4 (1)."""
    old, new = np.asarray(after._board).reshape(-1), np.asarray(nxt._board).reshape(-1)
    (cell,) = np.flatnonzero(old != new)
    return 2 * int(cell) + int(new[cell] == 2)


def _exact_spawn(board) -> np.ndarray:
    """Every 16-bit high half of the draw through `place_tile` itself, the low half as a 2
    (59,982 of 65,536 values) or a 4 (6,554): the new tile's exact distribution."""
    high = jnp.arange(65536, dtype=jnp.uint32) << 16
    counts = np.zeros(2 * 16)
    for low, weight in ((0xFFFF, 65536 - 6554), (0, 6554)):
        boards = jax.jit(jax.vmap(play2048.place_tile, in_axes=(None, 0)))(board, high | low)
        changed = np.asarray(boards.reshape(65536, -1) != board.reshape(-1))
        cells = np.where(changed.any(1), changed.argmax(1), 0)
        four = np.asarray(boards.reshape(65536, -1))[np.arange(65536), cells] == 2
        np.add.at(counts, 2 * cells + four, weight)
    return counts / 2**32


@pytest.mark.parametrize("steps, action", [(0, None), (25, None), (60, "illegal")])
def test_2048_the_split_is_the_step(steps, action):
    env, _ = _env("2048")
    state = _play(env, steps, seed=steps)
    while action == "illegal" and np.asarray(state.legal_action_mask).all():
        state = env.step(state, 0, jax.random.key(int(state._step_count)))  # until one is
    legal = np.asarray(state.legal_action_mask)
    # an illegal move still slides (nothing) and gets its new tile, then the game ends
    action = int(np.flatnonzero(~legal)[0] if action == "illegal" else np.flatnonzero(legal)[0])
    after, probs = _check_split("2048", state, action, _new_tile)
    np.testing.assert_allclose(probs, _exact_spawn(after._board), rtol=0, atol=2e-7)
    assert bool(after._spawn_pending) and env.num_chance_outcomes == 32


def test_2048_full_board_puts_the_tile_on_cell_0():
    board = jnp.arange(1, 17, dtype=jnp.int32).reshape(4, 4)
    probs = np.asarray(play2048.spawn_probabilities(board))
    assert probs[0] == pytest.approx(1 - 6554 / 65536) and probs[1] == pytest.approx(6554 / 65536)
    np.testing.assert_allclose(probs, _exact_spawn(board), atol=2e-7)


# ---------------------------------------------------------------------------- backgammon
def _roll(after, nxt) -> int:
    """The outcome step drew: the next player's roll as (low, high) faces."""
    if not bool(after._roll_pending):
        return 0
    return backgammon.ROLLS.index(tuple(sorted(int(d) for d in nxt._dice)))


def _turn_ending(env, seed):
    """A state and an action that passes the turn (the next roll is the step's chance)."""
    for steps in range(4, 40):
        state = _play(env, steps, seed)
        for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
            if bool(env.step_deterministic(state, int(action))._roll_pending):
                return state, int(action)
    raise AssertionError("no turn-ending move found")


def test_backgammon_rolls_are_the_36_ordered_pairs():
    counts = np.zeros(len(backgammon.ROLLS))
    for a, b in itertools.product(range(6), repeat=2):
        counts[backgammon.ROLLS.index((min(a, b), max(a, b)))] += 1
    np.testing.assert_allclose(backgammon.ROLL_PROBABILITIES, counts / 36, rtol=1e-7)
    assert len(backgammon.ROLLS) == 21


@pytest.mark.parametrize("seed", [0, 1])
def test_backgammon_the_split_is_the_step(seed):
    env, _ = _env("backgammon")
    state, action = _turn_ending(env, seed)
    # step keeps the roll's dice in drawn order, the split as (low, high): the same roll
    after, probs = _check_split("backgammon", state, action, _roll, skip=("_dice",))
    np.testing.assert_array_equal(probs, backgammon.ROLL_PROBABILITIES)
    assert env.num_chance_outcomes == 21


def test_backgammon_a_move_that_keeps_the_turn_has_no_chance():
    env, _ = _env("backgammon")
    for steps in range(0, 20):
        state = _play(env, steps, seed=5)
        for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
            after = env.step_deterministic(state, int(action))
            if not bool(after._roll_pending):
                np.testing.assert_array_equal(env.chance_outcomes(after), np.eye(21)[0])
                _same(env.chance_step(after, 0),
                      env.step(state, int(action), jax.random.key(9)))
                return
    pytest.fail("every move passed the turn")


# -------------------------------------------------------------------------------- Leduc
def test_leduc_deals_the_public_card_where_the_players_see_it():
    """The hidden card `init` drew is revealed by the step that closes round 0: over the hidden
    draws (`KEYS` games, call-call), the revealed rank given the two private cards follows
    `chance_outcomes` (a rank's share of the four cards nobody holds), and the split given that
    rank is the step."""
    env = holdemjax.make("leduc_holdem")
    keys = jax.random.split(jax.random.key(7), KEYS)
    starts = jax.jit(jax.vmap(env.init))(keys)
    call = jnp.zeros(KEYS, jnp.int32)
    opened = jax.jit(jax.vmap(env.step))(starts, call)
    nexts = jax.jit(jax.vmap(env.step))(opened, call)
    afters = jax.jit(jax.vmap(env.step_deterministic))(opened, call)
    assert bool(afters._reveal_pending.all()) and not bool(nexts._reveal_pending.any())
    # the afterstate shows no public card yet; the step shows it
    public = slice(3, 6)
    assert not np.asarray(afters.observation)[:, public].any()
    assert np.asarray(nexts.observation)[:, public].any(axis=1).all()
    probs = np.asarray(jax.vmap(env.chance_outcomes)(afters), np.float64)
    revealed = np.asarray(nexts._cards[:, 2])
    assert (probs[np.arange(KEYS), revealed] > 0).all()
    _same(jax.jit(jax.vmap(env.chance_step))(afters, jnp.asarray(revealed)), nexts)
    # chi-square of the (private pair, revealed rank) counts against the announced probabilities
    pair = np.asarray(nexts._cards[:, 0] * 3 + nexts._cards[:, 1])
    seen, want = np.zeros((9, 3)), np.zeros((9, 3))
    np.add.at(seen, (pair, revealed), 1)
    np.add.at(want, pair, probs)
    live = want > 0
    assert (seen[~live] == 0).all()
    test = stats.chisquare(seen[live], want[live])
    assert test.pvalue > 1e-4, (seen, want)


def test_leduc_steps_inside_a_round_have_no_chance():
    env = holdemjax.make("leduc_holdem")
    state = env.init(jax.random.key(2))
    after = env.step_deterministic(state, 1)  # a raise opens round 0: nothing dealt
    np.testing.assert_array_equal(env.chance_outcomes(after), [1.0, 0.0, 0.0])
    _same(env.chance_step(after, 0), env.step(state, 1))


# ------------------------------------------------------------------------- hold'em envs
# The split state by state and over hidden decks: tests/envs/test_sng_invariants.py, beside
# the api_test whose compiled programs it reuses. Here: the board's uniformity under
# `put_on_board`, and (slow) the split under jit/vmap/scan.
@pytest.mark.slow  # two batched programs of the sng step (CI's time: api_test checks the split)
def test_holdem_the_split_under_jit_vmap_and_scan():
    """Games played through the split under ``jit(vmap(scan))``, each step's outcome the card
    the deck holds where the step shows its first board card, are the games `step` plays,
    leaf by leaf; and that card always has a nonzero probability."""
    env, _ = _env("sng-6")
    pick = shove_policy(0.3)  # all-ins: run-outs, busts, whole tournaments

    def run(split):
        def body(s, k):
            a = pick(k, s)
            if not split:
                return env.step(s, a), (jnp.bool_(False), jnp.float32(1))
            after = env.step_deterministic(s, a)
            table = env.tournament(after).table
            card = jnp.sum(jnp.where(jnp.arange(5) == table.revealed, table.board, 0))
            o = jnp.where(after._reveal_pending, card, 0)
            return env.chance_step(after, o), (after._reveal_pending, env.chance_outcomes(after)[o])

        return jax.jit(jax.vmap(lambda s, k: jax.lax.scan(body, s, jax.random.split(k, 60))))

    keys = jax.random.split(jax.random.key(3), 4)
    states = jax.jit(jax.vmap(env.init))(keys)
    split, (shown, probs) = run(True)(states, keys)
    _same(split, run(False)(states, keys)[0])
    assert (np.asarray(probs) > 0).all() and np.asarray(shown).sum() >= 10


@pytest.mark.parametrize("position, pool", [(0, 7), (3, 6), (4, 5)])
def test_put_on_board_keeps_the_hidden_board_uniform(position, pool):
    """Every hidden board of ``pool`` unseen cards, with every outcome among them put at
    ``position``: each hidden board comes out exactly ``pool`` times (uniform in, uniform
    out), with the outcome at ``position`` and the cards shown untouched."""
    unseen_cards = 20 + np.arange(pool)
    shown = np.arange(position)
    hidden = [list(shown) + list(h) for h in itertools.permutations(unseen_cards, 5 - position)]
    boards = np.repeat(np.asarray(hidden, np.int32), pool, axis=0)
    outcomes = np.tile(unseen_cards, len(hidden)).astype(np.int32)
    out = np.asarray(jax.jit(jax.vmap(cards.put_on_board, in_axes=(0, None, 0)))(
        boards, position, outcomes))
    np.testing.assert_array_equal(out[:, position], outcomes)
    np.testing.assert_array_equal(out[:, :position], boards[:, :position])
    counts = collections.Counter(map(tuple, out.tolist()))
    assert set(counts) == set(map(tuple, hidden)) and set(counts.values()) == {pool}


# ------------------------------------------------------------------ games without chance
@pytest.mark.parametrize("env_id", ["kuhn_poker", "tic_tac_toe"])
def test_a_step_without_chance_is_its_own_afterstate(env_id):
    env = holdemjax.make(env_id)
    assert env.num_chance_outcomes == 1
    state = _play(env, 1, seed=3)
    for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
        after = env.step_deterministic(state, int(action))
        _same(after, env.step(state, int(action)))
        np.testing.assert_array_equal(env.chance_outcomes(after), [1.0])
        _same(env.chance_step(after, 0), after)


def test_the_split_under_jit_vmap_and_scan():
    env = holdemjax.make("2048")
    keys = jax.random.split(jax.random.key(0), 8)
    states = jax.vmap(env.init)(keys)

    def body(s, k):
        action = jnp.argmax(s.legal_action_mask).astype(jnp.int32)
        after = env.step_deterministic(s, action)
        outcome = jax.random.categorical(k, jnp.log(env.chance_outcomes(after)))
        return env.chance_step(after, outcome), after.rewards

    run = jax.jit(jax.vmap(lambda s, k: jax.lax.scan(body, s, jax.random.split(k, 5))))
    final, rewards = run(states, keys)
    assert rewards.shape == (8, 5, 1) and final._board.shape == (8, 4, 4)
    assert not bool(final._spawn_pending.any())
    # five moves, five new tiles: the tiles only grow in number or merge
    assert (np.asarray(final._step_count) == 5).all()


def test_every_env_whose_step_draws_splits_it():
    """An env whose ``_step`` reads its key has chance in its steps: it must split them (the
    default hooks are those of a step without chance), and say it needs a step key."""
    for path in sorted((ROOT / "envs").glob("*.py")):
        for cls in ast.parse(path.read_text()).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
            step = methods.get("_step")
            if step is None:
                continue
            draws = any(isinstance(n, ast.Name) and n.id == "key"
                        for stmt in step.body for n in ast.walk(stmt))
            if draws:
                assert {"_step_deterministic", "_chance_outcomes", "_chance_step"} <= set(
                    methods), f"{path.name}: {cls.name} draws in _step without the split"
                assert "requires_step_key = True" in ast.get_source_segment(
                    path.read_text(), cls), cls.name
