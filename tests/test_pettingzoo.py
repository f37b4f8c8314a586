"""The PettingZoo bridge (issue 39 point 3): PettingZoo's own ``api_test`` for every env, a
game played to its end through the bridge against the env itself, and Gymnasium's own
``check_env`` for 2048."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import holdemjax
from holdemjax import pettingzoo

# Long games (go, the tournaments) are cut by the cycle count; every game's end is played in
# test_a_game_through_the_bridge_is_the_game for the short ones and here for the rest.
CYCLES = {"go_19x19": 20, "go_9x9": 40, "sng-6": 60, "sng-6-turbo": 60, "certify": 60,
          "ring-9": 40, "backgammon": 60, "gardner_chess": 60, "othello": 70}


@pytest.mark.parametrize("env_id", holdemjax.available_envs())
def test_pettingzoo_api_test(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice (render modes, float bounds) is not a rule
        api_test(pettingzoo.env(env_id), num_cycles=CYCLES.get(env_id, 200))


@pytest.mark.parametrize("env_id", ["kuhn_poker", "tic_tac_toe", "connect_four"])
def test_a_game_through_the_bridge_is_the_game(env_id):
    """Agents, masks, rewards at the end: the bridge's game is the env's game for the same seed
    and actions, and every agent gets its final reward."""
    bridge, game = pettingzoo.env(env_id), holdemjax.make(env_id)
    bridge.reset(seed=4)
    state = game.init(jax.random.key(4))
    totals = dict.fromkeys(bridge.possible_agents, 0.0)
    for agent in bridge.agent_iter():
        obs, reward, terminated, truncated, info = bridge.last()
        totals[agent] += reward
        if terminated or truncated:
            bridge.step(None)
            continue
        assert agent == f"player_{int(state.current_player)}"
        np.testing.assert_array_equal(obs["observation"], np.asarray(state.observation))
        np.testing.assert_array_equal(obs["action_mask"], np.asarray(state.legal_action_mask))
        action = int(np.flatnonzero(obs["action_mask"])[-1])
        bridge.step(action)
        state = game.step(state, action)
    assert bool(state.terminated) and bridge.agents == []
    assert totals == {f"player_{i}": float(r) for i, r in enumerate(np.asarray(state.rewards))}


def test_the_same_seed_is_the_same_game():
    lines = []
    for _ in range(2):
        bridge = pettingzoo.env("backgammon")
        bridge.reset(seed=11)
        line = []
        for agent in bridge.agent_iter(60):
            obs, *_ = bridge.last()
            action = int(np.flatnonzero(obs["action_mask"])[0])
            line.append((agent, obs["observation"].tobytes(), action))
            bridge.step(action)
        lines.append(line)
    assert lines[0] == lines[1]


def test_a_second_bridge_compiles_nothing():
    from holdemjax.testing import CompileCounter

    first = pettingzoo.env("connect_four")
    first.reset(seed=1)
    first.step(int(np.flatnonzero(first.last()[0]["action_mask"])[0]))
    with CompileCounter() as compiles:
        second = pettingzoo.env("connect_four")
        second.reset(seed=2)
        second.step(int(np.flatnonzero(second.last()[0]["action_mask"])[0]))
    assert compiles.count == 0
    assert pettingzoo.env("kuhn_poker", observe_history=True).game \
        is not pettingzoo.env("kuhn_poker").game


def test_2048_as_a_gymnasium_env():
    env = pettingzoo.gymnasium_env("2048")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert obs.shape == (4, 4, 31) and info["action_mask"].shape == (4,)
    with pytest.raises(ValueError, match="kuhn_poker has 2 players"):
        pettingzoo.gymnasium_env("kuhn_poker")


def test_without_pettingzoo_the_import_names_both_install_lines(monkeypatch):
    """The extra's install line for a checkout (-e '.[pettingzoo]') and for the package."""
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "pettingzoo", None)  # an import of it fails
    monkeypatch.delitem(sys.modules, "holdemjax.pettingzoo")
    with pytest.raises(ImportError) as caught:
        importlib.import_module("holdemjax.pettingzoo")
    assert "pip install -e '.[pettingzoo]'" in str(caught.value)
    assert "pip install 'holdemjax[pettingzoo]'" in str(caught.value)
