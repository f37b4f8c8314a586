"""The env API: make/registry errors, action checks, the universal step rules, helpers."""

import subprocess
import sys
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs.kuhn_poker import BET, PASS
from holdemjax.testing import CompileCounter


def test_available_envs_lists_registered_ids():
    ids = holdemjax.available_envs()
    assert "kuhn_poker" in ids and "tic_tac_toe" in ids
    assert len(set(ids)) == len(ids)


def test_make_unknown_id_lists_valid_ids():
    with pytest.raises(ValueError, match="unknown env id 'kuhn'.*kuhn_poker.*tic_tac_toe"):
        holdemjax.make("kuhn")


def test_make_unknown_option_names_it():
    with pytest.raises(ValueError, match="unknown option.*'board_size'.*valid options: none"):
        holdemjax.make("tic_tac_toe", board_size=4)


@pytest.mark.parametrize("bad", [1.0, jnp.float32(1), True, jnp.zeros(2, jnp.int32)])
def test_step_rejects_non_integer_or_non_scalar_actions(bad):
    env = holdemjax.make("tic_tac_toe")
    s = env.init(jax.random.key(0))
    with pytest.raises(ValueError, match="action"):
        env.step(s, bad)


@pytest.mark.parametrize("bad", [-1, 9, 100])
def test_step_rejects_out_of_range_python_int(bad):
    env = holdemjax.make("tic_tac_toe")
    s = env.init(jax.random.key(0))
    with pytest.raises(ValueError, match=f"action {bad} is out of range 0..8"):
        env.step(s, bad)


def test_traced_out_of_range_action_is_illegal_with_penalty():
    """Inside jit the range cannot be checked on the host: the action is illegal (pgx rule)."""
    env = holdemjax.make("kuhn_poker")
    s = env.init(jax.random.key(1))
    out = jax.jit(env.step)(s, jnp.int32(7))
    want = np.where(np.arange(2) == int(s.current_player), -1.0, 1.0)
    assert bool(out.terminated) and np.array_equal(np.asarray(out.rewards), want)


def test_finished_game_is_unchanged_with_zero_rewards():
    env = holdemjax.make("kuhn_poker")
    s = env.init(jax.random.key(2))
    s = env.step(env.step(s, BET), BET)  # bet-call: showdown
    assert bool(s.terminated) and np.abs(np.asarray(s.rewards)).sum() == 4.0
    again = env.step(s, PASS)
    assert not np.asarray(again.rewards).any()
    assert int(again._step_count) == int(s._step_count)
    assert np.array_equal(np.asarray(again.observation), np.asarray(s.observation))


def test_requires_step_key_is_enforced():
    class Needy(type(holdemjax.make("kuhn_poker"))):
        requires_step_key = True

    env = Needy()
    with pytest.raises(ValueError, match="needs a key"):
        env.step(env.init(jax.random.key(0)), 0)


def test_act_randomly_picks_only_legal_actions_uniformly():
    mask = jnp.array([[True, False, True, False]] * 4000)
    a = np.asarray(holdemjax.act_randomly(jax.random.key(0), mask))
    assert set(np.unique(a)) == {0, 2}
    assert abs((a == 0).mean() - 0.5) < 0.04


def test_auto_reset_starts_a_new_game_and_keeps_final_rewards():
    env = holdemjax.make("kuhn_poker")
    step = jax.jit(holdemjax.auto_reset(env.step, env.init))
    s = env.init(jax.random.key(3))
    s = step(s, jnp.int32(BET), jax.random.key(4))
    s = step(s, jnp.int32(PASS), jax.random.key(5))  # fold: game over, then reset
    assert bool(s.terminated)
    assert sorted(np.asarray(s.rewards).tolist()) == [-1.0, 1.0]
    assert int(s._step_count) == 0  # a fresh game
    nxt = step(s, jnp.int32(PASS), jax.random.key(6))  # the stale flag does not freeze it
    assert not bool(nxt.terminated) and int(nxt._step_count) == 1
    # the finished game's rewards belong to the step that ended it, not to the next one
    assert np.asarray(nxt.rewards).tolist() == [0.0, 0.0]


def test_a_step_reports_only_its_own_rewards_after_auto_reset():
    """The carried-over terminal rewards of auto_reset are not repeated by later steps (an env
    that leaves `rewards` alone on a non-terminal step, as the tournaments do, must not leak)."""
    env = holdemjax.make("certify")
    step = jax.jit(holdemjax.auto_reset(env.step, env.init))
    s = env.init(jax.random.key(0))
    key = jax.random.key(1)
    ended = 0
    for _ in range(600):
        key, k1, k2 = jax.random.split(key, 3)
        was_carried = bool(s.terminated)
        s = step(s, holdemjax.act_randomly(k1, s.legal_action_mask), k2)
        if bool(s.terminated):
            ended += 1
            assert abs(float(s.rewards.sum()) - 1.0) < 1e-5
        elif was_carried or ended:
            assert not np.asarray(s.rewards).any()
        if ended >= 2:
            break
    assert ended >= 2


def test_observe_any_player():
    env = holdemjax.make("kuhn_poker")
    s = env.init(jax.random.key(8))
    o0, o1 = env.observe(s, 0), env.observe(s, 1)
    assert o0.shape == o1.shape == (7,)
    assert not np.array_equal(np.asarray(o0), np.asarray(o1))  # different cards


def test_render_refuses_a_batch():
    env = holdemjax.make("kuhn_poker")
    s = jax.vmap(env.init)(jax.random.split(jax.random.key(0), 2))
    with pytest.raises(ValueError, match="one state at a time"):
        env.render_svg(s)


def test_save_svg(tmp_path):
    env = holdemjax.make("tic_tac_toe")
    s = env.init(jax.random.key(0))
    s.save_svg(tmp_path / "t.svg")
    assert (tmp_path / "t.svg").read_text().startswith("<svg")


def test_wheel_maps_envs_and_training(tmp_path):
    """`envs/` installs as holdemjax.envs and `training/` as holdemjax.training in a wheel."""
    root = __import__("pathlib").Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path), str(root)], check=True)
    (wheel,) = tmp_path.glob("holdemjax-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "holdemjax/envs/kuhn_poker.py" in names
    assert "holdemjax/training/__init__.py" in names
    assert "holdemjax/api.py" in names and not any(n.startswith("envs/") for n in names)


# SPEC §2: the side games keep pgx's encodings (pgx is the oracle where it has the game); the
# hold'em tournaments observe float32 features (docs/sng.md).
_FLOAT_FEATURES = {"sng-6", "sng-6-turbo", "certify", "ring-9"}


@pytest.mark.parametrize("env_id", holdemjax.available_envs())
def test_observation_dtype_is_declared_and_kept(env_id):
    """`observation_dtype` is the init observation's dtype, pgx's for the side games (bool
    boards, int32 backgammon, float32 chess) and float32 for the tournaments; the observation
    after a step and every player's view keep it (and `observation_shape`)."""
    env = holdemjax.make(env_id)
    state = jax.eval_shape(env.init, jax.random.key(0))  # traced, not compiled: dtypes only
    assert state.observation.dtype == env.observation_dtype
    assert state.observation.shape == env.observation_shape
    if env_id in _FLOAT_FEATURES:
        assert env.observation_dtype == np.float32
    else:
        pgx = pytest.importorskip("pgx")
        theirs = jax.eval_shape(pgx.make(env_id).init, jax.random.PRNGKey(0)).observation
        assert (env.observation_dtype, env.observation_shape) == (theirs.dtype, theirs.shape)
    step = jax.eval_shape(env.step, state, jnp.int32(0), jax.random.key(1))
    assert step.observation.dtype == env.observation_dtype
    for p in range(env.num_players):
        view = jax.eval_shape(env.observe, state, p)
        assert (view.dtype, view.shape) == (env.observation_dtype, env.observation_shape)


@pytest.mark.parametrize("env_id", ["kuhn_poker", "tic_tac_toe"])
def test_eager_calls_run_one_cached_program_each(env_id):
    """SPEC §2 "Eager calls work": after the first call of each, `init`, `step` and `observe`
    on concrete arrays compile nothing (one cached program per env and input signature)."""
    env = holdemjax.make(env_id)
    s = env.init(jax.random.key(0))
    s = env.step(s, int(np.flatnonzero(s.legal_action_mask)[0]))
    env.observe(s, 0)
    with CompileCounter() as compiles:
        t = env.init(jax.random.key(1))
        for _ in range(2):
            t = env.step(t, int(np.flatnonzero(t.legal_action_mask)[-1]))
        env.observe(t, 1)
        env.observe(t)
    assert compiles.count == 0


def test_eager_and_traced_calls_give_the_same_states():
    """Eager calls run the jitted pure function; inside a trace the plain function runs: both
    give the same state leaf by leaf, game after game."""
    env = holdemjax.make("tic_tac_toe")
    step = jax.jit(env.step)
    for g in range(3):
        eager = env.init(jax.random.key(g))
        traced = jax.jit(env.init)(jax.random.key(g))
        while not bool(eager.terminated):
            a = int(np.flatnonzero(eager.legal_action_mask)[g % 2 - 1])
            eager, traced = env.step(eager, a), step(traced, jnp.int32(a))
            for x, y in zip(jax.tree.leaves(eager), jax.tree.leaves(traced)):
                np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
        np.testing.assert_array_equal(env.observe(eager, 1),
                                      jax.jit(env.observe)(traced, jnp.int32(1)))
