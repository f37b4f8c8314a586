"""The pgx-style environment API: the `State` base pytree and the `Env` base class.

`Env.step` applies the universal rules once, for every game:

* stepping a finished game (terminated or truncated) returns it unchanged with zero rewards
  (the step count does not move);
* an illegal action ends the game: the move is applied as pgx does (an id outside
  `0..num_actions-1` is clipped into range first), then the game is terminated and the actor
  gets `illegal_action_penalty` (−1 by default) while the other players share the opposite
  amount equally (+1 in all for a two-player game, +1/(n−1) each for n players);
* at a terminal state the legal action mask is all true (so that masked softmaxes never divide
  by zero), as pgx does;
* the step count increments by one per step of a live game.

Called eagerly (concrete arrays, outside any ``jit``/``vmap``/``scan`` trace), `init`, `step` and
`observe` run one compiled program per env and input signature (`jax.jit` of the same pure
function, cached on the env), so a notebook's second call answers in milliseconds instead of
tracing the game op by op; inside a trace they are the plain pure functions. Both give the same
states bit for bit.

Chance made explicit: `step_deterministic` (the afterstate), `chance_outcomes` (the
probabilities of its chance event's outcomes) and `chance_step` (one outcome applied) split a
step, for planners; chained with an outcome drawn from those probabilities they give what
`step` gives, in distribution (tests/test_chance.py). An afterstate is what its game makes
it, as long as `chance_step` completes it: 2048's board slid, Leduc's step with the public card
not shown yet, the hold'em envs' decision with its action recorded (their chance is the
hidden deck's next board card, so their `chance_step` plays the whole step on the board with
the outcome's card; docs/sng.md).

Games implement only `_init`, `_step` and `_observe` (and the chance hooks, where their steps
draw chance). This module knows no game: the registry
(`holdemjax.registry`) maps ids to the modules in `holdemjax.envs`.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

__all__ = ["State", "Env", "Array", "PRNGKey"]

Array = jax.Array
PRNGKey = jax.Array


def _traced(*trees) -> bool:
    """Whether any leaf of ``trees`` is a tracer (we are inside a jit/vmap/scan trace)."""
    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree.leaves(trees))


def _scalar(dtype, value=0):
    return dataclasses.field(default_factory=lambda: jnp.asarray(value, dtype))


@struct.dataclass
class State:
    """Public fields every game state has (pgx's names and dtypes).

    Subclasses add their own private fields (names start with `_`) and give the public fields
    defaults of the right shapes.
    """

    current_player: Array = _scalar(jnp.int32)  # [] int32: player id to act
    observation: Array = _scalar(jnp.bool_)  # game-specific shape, from current_player's view
    rewards: Array = _scalar(jnp.float32)  # [num_players] float32: rewards of this step
    terminated: Array = _scalar(jnp.bool_)  # [] bool
    truncated: Array = _scalar(jnp.bool_)  # [] bool
    legal_action_mask: Array = _scalar(jnp.bool_)  # [num_actions] bool
    _step_count: Array = _scalar(jnp.int32)  # [] int32

    @property
    def env_id(self) -> str:
        raise NotImplementedError

    def to_svg(self) -> str:
        """The state drawn as an SVG document (an unbatched state)."""
        raise NotImplementedError(f"{type(self).__name__} has no SVG renderer")

    def save_svg(self, path) -> None:
        """Write `to_svg()` to `path`."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_svg())

    def _repr_html_(self) -> str:  # notebooks show the picture
        try:
            return self.to_svg()
        except (NotImplementedError, ValueError):
            return repr(self)


class Env(abc.ABC):
    """Base class of every environment. Subclasses implement `_init`, `_step`, `_observe`."""

    #: Reward given to a player whose action was illegal; the others share its opposite.
    illegal_action_penalty: float = -1.0
    #: True when `step` needs a key (chance inside a step).
    requires_step_key: bool = False

    # ----------------------------------------------------------------- public API
    def init(self, key: PRNGKey) -> State:
        """A new game drawn from `key` (all chance comes from keys)."""
        if not _traced(key):
            return self._eager("init", self._init_pure)(key)
        return self._init_pure(key)

    def step(self, state: State, action, key: PRNGKey | None = None) -> State:
        """One move by `state.current_player`; pure, jit/vmap/scan-able."""
        action = self._check_action(action)
        if key is None:
            if self.requires_step_key:
                raise ValueError(f"{self.id}: step needs a key (chance happens inside a step)")
            key = jax.random.key(0)
        if not _traced(state, action, key):
            return self._eager("step", self._step_pure)(state, action, key)
        return self._step_pure(state, action, key)

    def observe(self, state: State, player_id=None) -> Array:
        """The observation of `player_id` (default: the player to act)."""
        if player_id is None:
            player_id = state.current_player
        player_id = jnp.asarray(player_id, jnp.int32)
        if not _traced(state, player_id):
            return self._eager("observe", self._observe_pure)(state, player_id)
        return self._observe_pure(state, player_id)

    # --------------------------------------------------------------- chance, made explicit
    # `step(state, action, key)` is, in distribution, `chance_step(step_deterministic(state,
    # action), o)` with the outcome ``o`` drawn from `chance_outcomes` of that afterstate: a
    # planner (expectimax, stochastic MuZero) searches over the outcomes instead of keys.
    @property
    def num_chance_outcomes(self) -> int:
        """How many outcomes a step's chance event can have (1: its steps have no chance)."""
        return 1

    def step_deterministic(self, state: State, action) -> State:
        """`step` up to its chance event: the afterstate (the universal rules applied as in
        `step`); pass it to `chance_outcomes` and `chance_step`. Where a step has no chance
        (`num_chance_outcomes` 1) the afterstate is the next state."""
        action = self._check_action(action)
        if not _traced(state, action):
            return self._eager("step_deterministic", self._step_deterministic_pure)(state, action)
        return self._step_deterministic_pure(state, action)

    def chance_outcomes(self, state: State) -> Array:
        """``# [num_chance_outcomes] float32``: the probability of each outcome of the chance
        event an afterstate awaits (zero for impossible ones; summing to 1). An afterstate
        awaiting none (no chance in this step, a game that was over before it) has outcome 0
        with probability 1."""
        if not _traced(state):
            return self._eager("chance_outcomes", self._chance_outcomes)(state)
        return self._chance_outcomes(state)

    def chance_step(self, state: State, outcome) -> State:
        """The afterstate ``state`` completed by chance ``outcome`` (an int in
        ``0..num_chance_outcomes-1`` of nonzero probability): the state `step` would give."""
        outcome = jnp.asarray(outcome, jnp.int32)
        if outcome.shape != ():
            raise ValueError(f"{self.id}: outcome must be a scalar, got shape {outcome.shape} "
                             "(use jax.vmap(env.chance_step) for batches)")
        if not _traced(state, outcome):
            return self._eager("chance_step", self._chance_step_pure)(state, outcome)
        return self._chance_step_pure(state, outcome)

    def render_svg(self, state: State) -> str:
        """An SVG picture of an unbatched state."""
        return state.to_svg()

    # ------------------------------------------------------ the pure bodies of the public API
    def _init_pure(self, key: PRNGKey) -> State:
        state = self._init(key)
        return state.replace(observation=self._observe(state, state.current_player))

    def _step_pure(self, state: State, action: Array, key: PRNGKey) -> State:
        done = state.terminated | state.truncated
        return jax.lax.cond(
            done,
            lambda: state.replace(rewards=jnp.zeros_like(state.rewards)),
            lambda: self._step_live(state, action, key),
        )

    def _step_deterministic_pure(self, state: State, action: Array) -> State:
        done = state.terminated | state.truncated
        return jax.lax.cond(
            done,
            lambda: state.replace(rewards=jnp.zeros_like(state.rewards)),
            lambda: self._finish_step(
                self._universal_move(state, action, self._step_deterministic)),
        )

    def _chance_step_pure(self, state: State, outcome: Array) -> State:
        return self._finish_step(self._chance_step(state, outcome))

    def _observe_pure(self, state: State, player_id: Array) -> Array:
        return jax.lax.stop_gradient(self._observe(state, player_id))

    def _eager(self, name: str, fn):
        """The compiled form of ``fn`` for eager calls, one `jax.jit` per env and public function
        (jit itself keeps one program per input signature)."""
        programs = self.__dict__.setdefault("_eager_programs", {})
        if name not in programs:
            programs[name] = jax.jit(fn)
        return programs[name]

    # ------------------------------------------------------------------ properties
    @property
    @abc.abstractmethod
    def id(self) -> str: ...

    @property
    @abc.abstractmethod
    def version(self) -> str: ...

    @property
    @abc.abstractmethod
    def num_players(self) -> int: ...

    @property
    def state_shapes(self) -> Any:
        """One game's state as shapes and dtypes (`jax.ShapeDtypeStruct` leaves): ``init``
        traced once per env and kept, for checks that need a state's structure, not a game."""
        return self._shapes()

    @property
    def num_actions(self) -> int:
        return int(self._shapes().legal_action_mask.shape[0])

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return tuple(self._shapes().observation.shape)

    @property
    def observation_dtype(self) -> np.dtype:
        """The observation's dtype (pgx's for the side games: bool boards, int32 backgammon,
        float32 chess; float32 for the poker tournaments); every state's observation has it."""
        return np.dtype(self._shapes().observation.dtype)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, version={self.version!r})"

    # --------------------------------------------------------------- game hooks
    @abc.abstractmethod
    def _init(self, key: PRNGKey) -> State: ...

    @abc.abstractmethod
    def _step(self, state: State, action: Array, key: PRNGKey) -> State: ...

    @abc.abstractmethod
    def _observe(self, state: State, player_id: Array) -> Array: ...

    # Chance made explicit. The defaults are those of a game whose steps have no chance (its
    # `_step` ignores the key); a game with chance in its steps overrides all three: the
    # afterstate records that an outcome is awaited, `_chance_step` applies one and clears it.
    def _step_deterministic(self, state: State, action: Array) -> State:
        if self.requires_step_key:
            raise NotImplementedError(f"{self.id}: its steps draw chance, and it does not "
                                      "split them (step_deterministic / chance_step)")
        return self._step(state, action, jax.random.key(0))

    def _chance_outcomes(self, state: State) -> Array:
        return jnp.ones(1, jnp.float32)

    def _chance_step(self, state: State, outcome: Array) -> State:
        return state

    # ----------------------------------------------------------------- internals
    def _shapes(self) -> Any:
        cached = self.__dict__.get("_shape_cache")
        if cached is None:
            cached = jax.eval_shape(self.init, jax.random.key(0))
            self.__dict__["_shape_cache"] = cached
        return cached

    def _check_action(self, action) -> Array:
        """Host-side checks of what can be checked without tracing: dtype and shape."""
        if isinstance(action, (bool, np.bool_)):
            raise ValueError(f"{self.id}: action must be an integer id, got {action!r}")
        if isinstance(action, (int, np.integer)):
            if not 0 <= int(action) < self.num_actions:
                raise ValueError(
                    f"{self.id}: action {int(action)} is out of range 0..{self.num_actions - 1}"
                )
            return jnp.asarray(action, jnp.int32)
        action = jnp.asarray(action)
        if not jnp.issubdtype(action.dtype, jnp.integer):
            raise ValueError(f"{self.id}: action must have an integer dtype, got {action.dtype}")
        if action.shape != ():
            raise ValueError(
                f"{self.id}: action must be a scalar, got shape {action.shape} "
                "(use jax.vmap(env.step) for batches)"
            )
        return action.astype(jnp.int32)

    def _step_live(self, state: State, action: Array, key: PRNGKey) -> State:
        return self._finish_step(
            self._universal_move(state, action, lambda s, a: self._step(s, a, key)))

    def _universal_move(self, state: State, action: Array, move) -> State:
        """``move(state, action)`` (`_step`, or `_step_deterministic`) under the universal rules:
        the step count, the rewards of this step alone, an illegal action's penalty."""
        n = state.legal_action_mask.shape[-1]
        in_range = (action >= 0) & (action < n)
        safe = jnp.clip(action, 0, n - 1)
        illegal = ~in_range | ~state.legal_action_mask[safe]
        # A step's rewards are what this step produced: start from zero (a state carried over by
        # auto_reset holds the finished game's rewards).
        counted = state.replace(_step_count=state._step_count + 1,
                                rewards=jnp.zeros_like(state.rewards))
        # As pgx does, the move is applied (clipped into range) and an illegal one then ends the
        # game with the penalty; the resulting board is what pgx shows too.
        nxt = move(counted, safe)
        return jax.lax.cond(illegal, lambda: self._illegal(nxt, state.current_player),
                            lambda: nxt)

    def _finish_step(self, nxt: State) -> State:
        """A terminal state's mask all true; the observation of the player to act."""
        mask = jnp.where(nxt.terminated | nxt.truncated, True, nxt.legal_action_mask)
        nxt = nxt.replace(legal_action_mask=mask)
        return nxt.replace(observation=self._observe(nxt, nxt.current_player))

    def _illegal(self, state: State, actor: Array) -> State:
        p = self.num_players
        penalty = jnp.float32(self.illegal_action_penalty)
        others = -penalty / max(p - 1, 1)
        rewards = jnp.where(jnp.arange(p) == actor, penalty, others).astype(jnp.float32)
        return state.replace(terminated=jnp.bool_(True), rewards=rewards)
