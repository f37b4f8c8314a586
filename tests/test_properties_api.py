"""Property-based tests (hypothesis) of the public env API: `make` and its options, action ids
and their dtypes (SPEC §2; holdemjax/api.py: host-side checks, the pgx illegal-action rule).

Reproducible in CI: the profile derandomizes (examples come from the test's name, not a clock)
and keeps no example database in the tree; ``HYPOTHESIS_PROFILE=holdemjax-deep`` searches more.
"""

from __future__ import annotations

import functools
import math
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import holdemjax

settings.register_profile("holdemjax-ci", derandomize=True, database=None, deadline=None,
                          max_examples=40, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("holdemjax-deep", database=None, deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "holdemjax-ci"))

IDS = holdemjax.available_envs()
TOURNAMENTS = ("sng-6", "sng-6-turbo", "certify", "ring-9")
# The documented options of each env (SPEC §2, docs/<env>.md); every other name is refused.
OPTIONS = {**{e: () for e in IDS}, **{e: ("raise_sizes", "zero_sum") for e in TOURNAMENTS},
           "go_9x9": ("komi",), "go_19x19": ("komi",)}


@functools.cache
def _ttt():
    env = holdemjax.make("tic_tac_toe")
    return env, env.init(jax.random.key(0)), jax.jit(env.step)


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=12)


@given(env_id=names)
def test_make_refuses_unknown_ids_and_lists_the_valid_ones(env_id):
    if env_id in IDS:
        assert holdemjax.make(env_id).id == env_id
        return
    with pytest.raises(ValueError, match="unknown env id") as err:
        holdemjax.make(env_id)
    assert all(i in str(err.value) for i in IDS)


@given(env_id=st.sampled_from(IDS), option=names.filter(lambda n: not n.startswith("_")),
       value=st.one_of(st.integers(), st.booleans(), st.text(max_size=3)))
def test_make_refuses_undocumented_options_naming_them(env_id, option, value):
    if option in OPTIONS[env_id]:
        return
    with pytest.raises(ValueError, match=f"unknown option.*'{option}'"):
        holdemjax.make(env_id, **{option: value})


@settings(max_examples=10)  # each env traces its init once (observation, mask shapes)
@given(sizes=st.lists(st.floats(min_value=0.01, max_value=1000.0, allow_nan=False), min_size=1,
                      max_size=8, unique_by=lambda x: round(x, 3)),
       zero_sum=st.booleans())
def test_raise_sizes_and_zero_sum_build_the_menu(sizes, zero_sum):
    """SPEC §2: the menu is fold, check/call, min-raise, the configured pot fractions, all-in;
    the sizes are pot fractions (docs/sng.md), distinct to 1/1000."""
    env = holdemjax.make("sng-6", raise_sizes=tuple(sizes), zero_sum=zero_sum)
    assert env.num_actions == 4 + len(sizes)
    assert env.menu.names()[0] == "FOLD" and env.menu.names()[-1] == "ALL_IN"


@given(bad=st.one_of(st.just(()), st.lists(st.floats(max_value=0.0), min_size=1, max_size=3),
                     st.lists(st.just(0.5), min_size=2, max_size=3),
                     st.lists(st.text(min_size=1, max_size=2), min_size=1, max_size=2)))
def test_bad_raise_sizes_are_refused(bad):
    if bad == ():
        env = holdemjax.make("sng-6", raise_sizes=())  # no pot fractions: a valid, small menu
        assert env.menu.names() == ["FOLD", "CHECK_CALL", "MIN_RAISE", "ALL_IN"]
        return
    with pytest.raises(ValueError, match="raise sizes"):
        holdemjax.make("sng-6", raise_sizes=tuple(bad))


@given(value=st.one_of(st.integers(), st.text(max_size=3), st.none(), st.floats()))
def test_zero_sum_must_be_a_bool(value):
    with pytest.raises(ValueError, match="zero_sum"):
        holdemjax.make("certify", zero_sum=value)


@given(komi=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-100, 100),
                      st.text(max_size=2), st.booleans()))
def test_go_komi_must_be_a_finite_number(komi):
    ok = (isinstance(komi, (int, float)) and not isinstance(komi, bool)
          and math.isfinite(komi))
    if ok:
        assert holdemjax.make("go_9x9", komi=komi).komi == float(komi)
    else:
        with pytest.raises(ValueError, match="komi"):
            holdemjax.make("go_9x9", komi=komi)


def test_a_huge_raise_size_is_refused_or_played():
    """A pot fraction too large for the int32 arithmetic of the menu must be refused by `make`
    (ValueError) or played (masked as beyond all-in), not crash the first step.
    BUG (holdemjax/poker/actions.py, reported): raise_sizes=(1e10,) is accepted by `make` and
    `init` raises OverflowError."""
    try:
        env = holdemjax.make("certify", raise_sizes=(1e10,))
    except ValueError:
        return
    state = jax.eval_shape(env.init, jax.random.key(0))  # traced: where the overflow is
    assert state.legal_action_mask.shape == (env.menu.num_actions,)


# --------------------------------------------------------------------------- actions
@given(action=st.integers(min_value=-2**40, max_value=2**40))
def test_python_int_actions_out_of_range_are_refused_on_the_host(action):
    env, state, step = _ttt()
    if 0 <= action < env.num_actions:
        assert int(step(state, action)._step_count) == 1
    else:
        with pytest.raises(ValueError, match=f"action {action} is out of range"):
            env.step(state, action)


@given(dtype=st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                              np.uint32]),
       action=st.integers(0, 8))
def test_integer_scalar_actions_of_any_int_dtype_equal_the_int32_action(dtype, action):
    """Any integer scalar array is an action id; the result equals the int32 action's."""
    env, state, step = _ttt()
    a = jnp.asarray(np.asarray(action, dtype))
    want = step(state, jnp.int32(action))
    got = step(state, a)  # traced: the host-side dtype check runs on the tracer's dtype
    jax.tree.map(np.testing.assert_array_equal, got, want)


@given(value=st.one_of(st.floats(allow_nan=True), st.booleans(),
                       st.lists(st.integers(0, 8), min_size=0, max_size=3)),
       as_array=st.booleans())
def test_non_integer_or_non_scalar_actions_are_refused(value, as_array):
    env, state, _ = _ttt()
    if isinstance(value, list):  # any int32 array that is not a scalar, even of one entry
        value = jnp.asarray(value, jnp.int32)
    elif as_array:
        value = jnp.asarray(value)
    with pytest.raises(ValueError, match="action"):
        env.step(state, value)


@given(action=st.integers(min_value=-1000, max_value=1000))
def test_traced_actions_outside_the_mask_end_the_game_with_the_penalty(action):
    """Inside jit the range cannot be checked: an action outside the legal mask ends the game,
    the actor -1 and the opponent +1 (pgx's rule, holdemjax/api.py)."""
    env, state, step = _ttt()
    out = step(state, jnp.int32(action))
    legal = 0 <= action < env.num_actions and bool(state.legal_action_mask[action])
    if legal:
        assert not bool(out.terminated) and not np.asarray(out.rewards).any()
    else:
        actor = int(state.current_player)
        assert bool(out.terminated)
        assert np.asarray(out.rewards).tolist() == [(-1.0 if p == actor else 1.0)
                                                    for p in range(2)]
        assert bool(out.legal_action_mask.all())
