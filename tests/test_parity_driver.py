"""The shared parity driver (`holdemjax.parity`): it must find a planted difference, count it by
field, and accept an env compared with itself."""

import jax.numpy as jnp
import pytest

import holdemjax
from holdemjax.parity import run_parity


class _Shifted:
    """tic_tac_toe whose rewards are wrong by 1 on the step that ends a game."""

    def __init__(self):
        self.env = holdemjax.make("tic_tac_toe")
        self.id, self.requires_step_key = "shifted", False

    def init(self, key):
        return self.env.init(key)

    def step(self, state, action, key=None):
        out = self.env.step(state, action)
        newly = out.terminated & ~state.terminated
        return out.replace(rewards=out.rewards + jnp.where(newly, 1.0, 0.0))

    def observe(self, state, player_id=None):
        return self.env.observe(state, player_id)


def test_self_parity_is_clean_and_counts_endings():
    env = holdemjax.make("tic_tac_toe")
    report = run_parity(env, env, games=64, batch=32, max_steps=9, illegal_rate=0.05)
    assert report.ok and report.mismatched_games == 0 and report.unfinished == 0
    assert sum(report.endings.values()) == 64 and report.endings["illegal move"] > 0
    legal = run_parity(env, env, games=64, max_steps=9)
    assert legal.endings == {"ended": 64, "illegal move": 0}
    assert legal.game_steps >= 64 * 5  # a legal game needs five moves for a line of three


def test_a_planted_difference_is_found_on_its_field_only():
    env = holdemjax.make("tic_tac_toe")
    report = run_parity(_Shifted(), env, games=40, max_steps=9)
    assert not report.ok
    assert report.mismatched_games == 40  # every game ends once, and that step differs
    assert report.mismatches["rewards"] == 40
    assert all(v == 0 for k, v in report.mismatches.items() if k != "rewards")
    assert report.first_mismatch is not None and report.first_mismatch[1] >= 5


class _Int8Board(_Shifted):
    """tic_tac_toe whose observation has the right values in the wrong dtype (int8, not bool)."""

    def _int8(self, state):
        return state.replace(observation=state.observation.astype(jnp.int8))

    def init(self, key):
        return self._int8(self.env.init(key))

    def step(self, state, action, key=None):
        return self._int8(self.env.step(state.replace(observation=state.observation != 0),
                                        action))


def test_equal_values_in_another_dtype_are_a_difference():
    env = holdemjax.make("tic_tac_toe")
    report = run_parity(_Int8Board(), env, games=8, max_steps=9)
    assert report.mismatched_games == 0  # the values agree (int8 1 == True) ...
    assert not report.ok and list(report.layout) == ["observation"]  # ... the dtypes do not
    assert "ours int8[3, 3, 2], peer bool[3, 3, 2]" in str(report)
    assert run_parity(env, env, games=8, max_steps=9).layout == {}


def test_a_game_that_does_not_end_within_the_bound_is_reported():
    env = holdemjax.make("tic_tac_toe")
    report = run_parity(env, env, games=8, max_steps=3)
    assert report.unfinished == 8 and not report.ok


def test_bad_arguments_are_refused():
    env = holdemjax.make("tic_tac_toe")
    with pytest.raises(ValueError, match="illegal_rate"):
        run_parity(env, env, games=8, max_steps=9, illegal_rate=2.0)
    with pytest.raises(ValueError, match="games"):
        run_parity(env, env, games=0, max_steps=9)
