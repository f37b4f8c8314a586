"""The PettingZoo bridge: every holdemjax env as a PettingZoo AEC environment, and the
single-player 2048 as a Gymnasium environment (optional extra ``holdemjax[pettingzoo]``).

    import holdemjax.pettingzoo
    env = holdemjax.pettingzoo.env("sng-6")        # an AECEnv: agents player_0 .. player_5
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(
            obs["action_mask"])
        env.step(action)

* Agents are ``player_i`` for the env's player ids; the agent to act is the state's
  ``current_player``. Every agent stays until the game ends (a tournament's eliminated players
  are simply never selected again), then each takes its final ``step(None)``, as PettingZoo's
  classic games do.
* Observations are dicts, as in PettingZoo's classic games: ``"observation"`` (the env's
  observation from that agent's view, `holdemjax.api.Env.observe`; bool boards as int8) and
  ``"action_mask"`` (int8, the legal actions for the agent to act, zeros for the others).
* Rewards are the env's, every step (the tournaments pay at the end); ``terminated`` and
  ``truncated`` the state's.
* Chance: ``reset(seed)`` draws the game from ``jax.random.key(seed)``; step ``t`` of an env
  whose steps draw chance uses ``fold_in(key, t)``; a seed gives the same game every time.
* Calls run the env's compiled programs (`holdemjax.api`'s eager calls: compiled once per env,
  then about a millisecond a step); every bridge of one env id and options shares one env, so
  a second bridge compiles nothing.

`gymnasium_env("2048")` is the single-player game as a ``gymnasium.Env``: a Box observation, a
Discrete action, the legal actions in ``info["action_mask"]``. Tests: tests/test_pettingzoo.py
(PettingZoo's own ``api_test`` for every env, Gymnasium's ``check_env``).
"""

from __future__ import annotations

import functools

import jax
import numpy as np

try:
    import gymnasium
    from pettingzoo import AECEnv
except ImportError as exc:  # the optional extra
    raise ImportError(f"holdemjax.pettingzoo needs PettingZoo and Gymnasium ({exc}): "
                      "pip install -e '.[pettingzoo]' in a checkout, "
                      "pip install 'holdemjax[pettingzoo]' else") from exc

from holdemjax.registry import make

__all__ = ["HoldemjaxAEC", "HoldemjaxGym", "env", "gymnasium_env"]


@functools.lru_cache(maxsize=64)
def _shared(env_id: str, options: tuple):
    return make(env_id, **dict(options))


def _game(env_id: str, options: dict):
    """One env per id and options for every bridge of this process, so its compiled programs
    (init, step, observe: compiled on first use) serve them all: a second bridge compiles
    nothing."""
    try:
        return _shared(env_id, tuple(sorted(options.items())))
    except TypeError:  # an option that cannot be a cache key: an env of its own
        return make(env_id, **options)


def _space(env) -> gymnasium.spaces.Box:
    """The observation's Box: bool as int8 0..1, integers by their dtype's range, floats open."""
    shape, dtype = env.observation_shape, env.observation_dtype
    if dtype == np.bool_:
        return gymnasium.spaces.Box(0, 1, shape, np.int8)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return gymnasium.spaces.Box(info.min, info.max, shape, dtype)
    return gymnasium.spaces.Box(-np.inf, np.inf, shape, dtype)


def _as_space(obs, space: gymnasium.spaces.Box) -> np.ndarray:
    return np.asarray(obs).astype(space.dtype, copy=False)


class HoldemjaxAEC(AECEnv):
    """A holdemjax env (`holdemjax.make(env_id, **options)`) as a PettingZoo AEC env."""

    def __init__(self, env_id: str, **options):
        super().__init__()
        self.game = _game(env_id, options)
        self.metadata = {"name": f"holdemjax_{env_id}", "render_modes": [],
                         "is_parallelizable": False}
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        box = _space(self.game)
        mask = gymnasium.spaces.Box(0, 1, (self.game.num_actions,), np.int8)
        self._observation_spaces = {a: gymnasium.spaces.Dict(
            {"observation": box, "action_mask": mask}) for a in self.possible_agents}
        self._action_spaces = {a: gymnasium.spaces.Discrete(self.game.num_actions)
                               for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def __str__(self) -> str:
        return self.metadata["name"]

    def reset(self, seed=None, options=None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._key = jax.random.key(seed)
        self.state = self.game.init(self._key)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[int(self.state.current_player)]

    def observe(self, agent):
        i = self.possible_agents.index(agent)
        space = self._observation_spaces[agent]["observation"]
        to_act = i == int(self.state.current_player)
        # the state carries the view of the player to act; another's is computed
        obs = self.state.observation if to_act else self.game.observe(self.state, i)
        obs = _as_space(obs, space)
        live = to_act and not bool(self.state.terminated) and not bool(self.state.truncated)
        mask = np.asarray(self.state.legal_action_mask, np.int8) if live else np.zeros(
            self.game.num_actions, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        key = jax.random.fold_in(self._key, int(self.state._step_count))
        self.state = self.game.step(self.state, int(action), key)
        self._cumulative_rewards[agent] = 0
        rewards = np.asarray(self.state.rewards, np.float64)
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(rewards[i])
        terminated, truncated = bool(self.state.terminated), bool(self.state.truncated)
        if terminated or truncated:
            for a in self.agents:
                self.terminations[a], self.truncations[a] = terminated, truncated
        else:
            self.agent_selection = self.possible_agents[int(self.state.current_player)]
        self._accumulate_rewards()

    def render(self):
        """An SVG picture of the game (`holdemjax.api.Env.render_svg`)."""
        return None if self.state is None else self.game.render_svg(self.state)

    def close(self):
        pass


def env(env_id: str, **options) -> HoldemjaxAEC:
    """The holdemjax env ``env_id`` (with its `holdemjax.make` options) as a PettingZoo AEC
    environment."""
    return HoldemjaxAEC(env_id, **options)


class HoldemjaxGym(gymnasium.Env):
    """A single-player holdemjax env (2048) as a Gymnasium environment."""

    metadata = {"render_modes": []}

    def __init__(self, env_id: str = "2048", **options):
        super().__init__()
        self.game = _game(env_id, options)
        if self.game.num_players != 1:
            raise ValueError(f"{env_id} has {self.game.num_players} players; a Gymnasium env "
                             "has one (use holdemjax.pettingzoo.env for more)")
        self.observation_space = _space(self.game)
        self.action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        self.state = None

    def _info(self) -> dict:
        return {"action_mask": np.asarray(self.state.legal_action_mask, np.int8)}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31))
        self._key = jax.random.key(seed)
        self.state = self.game.init(self._key)
        return _as_space(self.state.observation, self.observation_space), self._info()

    def step(self, action):
        key = jax.random.fold_in(self._key, int(self.state._step_count))
        self.state = self.game.step(self.state, int(action), key)
        obs = _as_space(self.state.observation, self.observation_space)
        return (obs, float(self.state.rewards[0]), bool(self.state.terminated),
                bool(self.state.truncated), self._info())


@functools.cache
def _registered() -> bool:
    gymnasium.register(id="holdemjax/2048-v0", entry_point=HoldemjaxGym,
                       kwargs={"env_id": "2048"})
    return True


def gymnasium_env(env_id: str = "2048", **options) -> HoldemjaxGym:
    """The single-player env ``env_id`` as a ``gymnasium.Env`` (also registered with
    Gymnasium as ``holdemjax/2048-v0``)."""
    _registered()
    return HoldemjaxGym(env_id, **options)
