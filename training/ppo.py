"""PPO self-play on the tournament envs (`sng-6` by default), end to end under `jit`.

One compiled function, `Trainer.step`, does a whole iteration: a rollout (`lax.scan` of
``rollout_steps`` decisions over ``num_tables`` tables with ``jax.vmap(env.step)`` and
`holdemjax.auto_reset`), per-player GAE, and ``epochs`` x ``minibatches`` clipped-PPO updates
(optax adam with gradient clipping). The network is `holdemjax.training.networks.ActorCritic`
(Flax linen) over the observation, the legal mask applied to its logits.

Tables. Every table draws, at the start of each tournament, what sits at it (probabilities
``opp_self``, ``opp_pool``, ``opp_baseline``):

* *self*: all six player ids play the current policy;
* *pool*: ``learners`` ids play the current policy, the others one frozen past policy drawn from
  the pool (``pool_size`` snapshots kept on device, one taken every ``pool_every`` iterations,
  the oldest replaced first; the initial policy is the first);
* *baseline*: ``learners`` ids play the current policy, the others `holdemjax.bots.baseline.act`.

Which ids the learner controls is drawn too (the env seats ids at random anyway). Every
decision made by the current policy is training data (the current policy's decisions are
on-policy whichever seat makes them); frozen and baseline decisions are not.

Rewards: the env's ``zero_sum=True`` tournament score (score - 1/6), paid at the end of a
tournament to every player. Returns are per player: a decision's advantage runs to that player's
next decision (or to the end of its tournament), GAE with ``gamma`` and ``gae_lambda`` over the
player's own decisions. A decision whose successor (its next decision or the tournament's end)
is not in the rollout is not trained on (its value still bootstraps the earlier ones); the
tables carry on into the next rollout, so nothing is lost but that tail.

``python -m holdemjax.training.ppo --help`` lists the options; docs/training.md explains the
outputs (checkpoints, ``metrics.jsonl``, ``learning_curve.png``) and GPU settings.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import pathlib
import sys
import time
from typing import Any, NamedTuple

import flax.serialization
import jax
import jax.numpy as jnp
import numpy as np
import optax

import holdemjax
from holdemjax.bots import baseline
from holdemjax.bots.random_bot import coordinate_key, coordinates
from holdemjax.poker.icm import icm
from holdemjax.training.networks import ActorCritic, masked_logits

__all__ = ["ENV_IDS", "Config", "Trainer", "TrainState", "train", "save_checkpoint",
           "load_checkpoint", "policy", "main"]

ENV_IDS = ("sng-6", "sng-6-turbo", "certify")
CHECKPOINT_FORMAT = "holdemjax-ppo-v1"

# Who controls a player id at a table, and what a table's non-learner ids play.
LEARNER, POOL, BASELINE = 0, 1, 2
TABLE_KINDS = ("self", "pool", "baseline")  # index = table kind; self tables are all LEARNER
SHAPINGS = ("none", "icm", "chips")


# ------------------------------------------------------------------------------- the config
@dataclasses.dataclass(frozen=True)
class Config:
    """Everything that defines a training run (saved in every checkpoint).

    The defaults are CPU-sized (a few minutes on two cores); docs/training.md has GPU settings.
    """

    env_id: str = "sng-6"
    num_tables: int = 256  # tables played in parallel
    rollout_steps: int = 32  # decisions per table per iteration
    iterations: int = 150
    epochs: int = 3
    minibatches: int = 4
    learning_rate: float = 3e-4
    gamma: float = 1.0  # per own decision; a tournament is a finite episode
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (128, 128)
    learners: int = 1  # player ids the current policy controls at pool and baseline tables
    opp_self: float = 0.1  # share of tables in self-play
    opp_pool: float = 0.2  # ... against past snapshots
    opp_baseline: float = 0.7  # ... against the baseline bot
    pool_size: int = 4
    pool_every: int = 10  # iterations between snapshots
    shaping: str = "none"  # potential-based reward shaping: "none", "icm" or "chips"
    seed: int = 0

    def __post_init__(self):
        if self.env_id not in ENV_IDS:
            raise ValueError(f"env_id {self.env_id!r} is not supported; known: {', '.join(ENV_IDS)}")
        ints = ("num_tables", "rollout_steps", "iterations", "epochs", "minibatches",
                "learners", "pool_size", "pool_every")
        for name in ints:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise ValueError(f"seed must be an int, got {self.seed!r}")
        floats = ("learning_rate", "gamma", "gae_lambda", "clip_eps", "value_coef",
                  "entropy_coef", "max_grad_norm", "opp_self", "opp_pool", "opp_baseline")
        for name in floats:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.learning_rate <= 0 or self.clip_eps <= 0:
            raise ValueError("learning_rate and clip_eps must be > 0")
        if self.gamma > 1 or self.gae_lambda > 1:
            raise ValueError(f"gamma and gae_lambda must be <= 1, got {self.gamma}, "
                             f"{self.gae_lambda}")
        if self.shaping not in SHAPINGS:
            raise ValueError(f"shaping {self.shaping!r} is not known; known: {', '.join(SHAPINGS)}")
        if self.opp_self + self.opp_pool + self.opp_baseline <= 0:
            raise ValueError("opp_self + opp_pool + opp_baseline must be > 0")
        hidden = tuple(self.hidden)
        if not hidden or any(isinstance(h, bool) or not isinstance(h, (int, np.integer))
                             or h < 1 for h in hidden):
            raise ValueError(f"hidden must be a non-empty list of layer widths >= 1, got "
                             f"{self.hidden!r}")
        object.__setattr__(self, "hidden", tuple(int(h) for h in hidden))
        seats = 6  # every supported env has six seats
        if self.learners > seats:
            raise ValueError(f"learners must be at most {seats}, got {self.learners}")
        batch = self.num_tables * self.rollout_steps
        if batch % self.minibatches:
            raise ValueError(f"num_tables * rollout_steps = {batch} is not divisible by "
                             f"minibatches = {self.minibatches}")

    def to_dict(self) -> dict:
        """The config as JSON-able values."""
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Config":
        """Inverse of `to_dict`; unknown keys raise `ValueError` naming them."""
        known = {f.name for f in dataclasses.fields(cls)}
        extra = set(d) - known
        if extra:
            raise ValueError(f"unknown config keys: {sorted(extra)}")
        d = dict(d)
        if "hidden" in d:
            d["hidden"] = tuple(d["hidden"])
        return cls(**d)


def make_env(config: Config):
    """The env a config trains on (zero-sum rewards)."""
    return holdemjax.make(config.env_id, zero_sum=True)


def make_network(config: Config, env=None) -> ActorCritic:
    env = make_env(config) if env is None else env
    return ActorCritic(num_actions=env.num_actions, hidden=config.hidden,
                       num_seats=env.num_players)


# --------------------------------------------------------------------------- pytrees
class Setup(NamedTuple):
    """What sits at one table for the current tournament."""

    kind: jax.Array  # [] int32 index into TABLE_KINDS
    controller: jax.Array  # [N] int32 LEARNER / POOL / BASELINE per player id
    pool_index: jax.Array  # [] int32 the pool snapshot playing at a pool table
    bot_key: jax.Array  # [2] uint32 the baseline's per-tournament key


class TrainState(NamedTuple):
    params: Any
    opt_state: Any
    env_state: Any  # [B] batched SngState
    setup: Setup  # [B] batched
    pool: Any  # params stacked on a leading [pool_size] axis
    pool_count: jax.Array  # [] int32 snapshots taken so far (slots filled: min(count, size))
    key: jax.Array
    iteration: jax.Array  # [] int32


class Transition(NamedTuple):
    obs: jax.Array  # [OBS] float32
    mask: jax.Array  # [A] bool
    action: jax.Array  # [] int32
    logp: jax.Array  # [] float32 log-probability under the current policy (learner rows)
    value: jax.Array  # [] float32
    actor: jax.Array  # [] int32 player id that decided
    learn: jax.Array  # [] bool decided by the current policy
    rewards: jax.Array  # [N] float32 rewards of the step (tournament end only)
    shaped: jax.Array  # [N] float32 rewards + potential difference (what GAE uses)
    done: jax.Array  # [] bool the tournament ended with this step
    kind: jax.Array  # [] int32 table kind of the tournament the decision belongs to
    controller: jax.Array  # [N] int32


# ------------------------------------------------------------------------------ the trainer
class Trainer:
    """The compiled pieces of one `Config`: `init(key) -> TrainState` and the jitted
    ``step(TrainState) -> (TrainState, metrics)`` (one full iteration). `Trainer.of(config)`
    returns one shared instance per config, so its compiled programs are reused."""

    @classmethod
    @functools.lru_cache(maxsize=8)
    def of(cls, config: "Config") -> "Trainer":
        """The shared trainer of ``config`` (compiles once per process)."""
        return cls(config)

    def __init__(self, config: Config):
        self.config = config
        self.env = make_env(config)
        self.net = make_network(config, self.env)
        self.n = self.env.num_players
        self.num_actions = self.env.num_actions
        total = config.opp_self + config.opp_pool + config.opp_baseline
        self.kind_probs = np.asarray([config.opp_self, config.opp_pool, config.opp_baseline],
                                     np.float32) / total
        schedule = config.learning_rate  # constant: runs are short, resumes stay simple
        self.tx = optax.chain(optax.clip_by_global_norm(config.max_grad_norm),
                              optax.adam(schedule, eps=1e-5))
        self.step = jax.jit(self._step, donate_argnums=0)
        self._init_envs = jax.jit(jax.vmap(self.env.init))
        self.compiled = None  # `step` compiled ahead of time by `train`
        # Env.step reports only the step's own rewards, so the terminal rewards auto_reset
        # copies onto a new game's first state are not repeated later.
        self._step_env = jax.vmap(holdemjax.auto_reset(self.env.step, self.env.init))

    # ------------------------------------------------------------------------------- init
    def init_params(self, key) -> Any:
        """Fresh network parameters."""
        obs = jnp.zeros(self.env.observation_shape, jnp.float32)
        return self.net.init(key, obs)

    def init(self, key=None, params=None) -> TrainState:
        """The state before iteration 0 (fresh parameters unless ``params`` are given)."""
        c = self.config
        key = jax.random.key(c.seed) if key is None else key
        k_params, k_env, k_setup, key = jax.random.split(key, 4)
        # A copy of given params: the step donates its state, which must not delete the
        # caller's arrays.
        params = (self.init_params(k_params) if params is None
                  else jax.tree.map(lambda x: jnp.array(x, copy=True), params))
        env_state = self._init_envs(jax.random.split(k_env, c.num_tables))
        setup = jax.vmap(self._draw_setup)(jax.random.split(k_setup, c.num_tables),
                                           jnp.ones(c.num_tables, jnp.int32))
        pool = jax.tree.map(lambda x: jnp.broadcast_to(x, (c.pool_size,) + x.shape), params)
        return TrainState(params, self.tx.init(params), env_state, setup, pool,
                          jnp.int32(1), key, jnp.int32(0))

    def _draw_setup(self, key, pool_count) -> Setup:
        c = self.config
        k_kind, k_ids, k_pool, k_bot = jax.random.split(key, 4)
        kind = jax.random.choice(k_kind, 3, p=jnp.asarray(self.kind_probs)).astype(jnp.int32)
        learner_ids = jax.random.permutation(k_ids, self.n)[:c.learners]
        is_learner = jnp.zeros(self.n, bool).at[learner_ids].set(True)
        other = jnp.where(kind == 1, POOL, BASELINE)
        controller = jnp.where((kind == 0) | is_learner, LEARNER, other).astype(jnp.int32)
        filled = jnp.clip(pool_count, 1, c.pool_size)
        pool_index = jax.random.randint(k_pool, (), 0, filled).astype(jnp.int32)
        return Setup(kind, controller, pool_index, jax.random.key_data(k_bot))

    # ---------------------------------------------------------------------------- rollout
    def _potential(self, state):
        """``# [B, N]`` shaping potential by player id: the expected score - 1/6 from the
        stacks at the start of the current hand (ICM over the open places, or the chip share),
        a placed player's score once out. Trainer-side only: the policy never sees it."""
        n = self.n
        if self.config.shaping == "none":
            return jnp.zeros(state.rewards.shape, jnp.float32)

        def one(s):
            alive = s._alive
            chips = jnp.where(alive, s._table.start_stacks, 0).astype(jnp.float32)
            if self.config.shaping == "icm":
                open_pay = jnp.where(jnp.arange(n) < alive.sum(), s._format.payouts, 0.0)
                equity = icm(chips, open_pay)
            else:  # chips: the share of the chips in play, scaled to the payouts still open
                open_total = jnp.where(jnp.arange(n) < alive.sum(), s._format.payouts, 0.0).sum()
                equity = chips / jnp.maximum(chips.sum(), 1.0) * open_total
            score = jnp.where(alive, equity, s._score)
            return (score[s._seat_of] - 1.0 / n).astype(jnp.float32)

        return jax.vmap(one)(state)

    def _rollout(self, ts: TrainState):
        c, B = self.config, self.config.num_tables
        rows = jnp.arange(B)

        def one(carry, _):
            state, setup, key = carry
            key, k_learn, k_pool, k_env, k_setup = jax.random.split(key, 5)
            obs, mask = state.observation, state.legal_action_mask
            logits, value = self.net.apply(ts.params, obs)
            logits = masked_logits(logits, mask)
            a_learn = jax.random.categorical(k_learn, logits).astype(jnp.int32)
            logp = jax.nn.log_softmax(logits)[rows, a_learn]
            # Every pool snapshot on every row (a few small MLPs), then each row's own one.
            # A table kind with probability 0 is left out of the program (config is static).
            a_pool = a_base = a_learn
            if c.opp_pool > 0:
                pool_logits = jax.vmap(lambda p: self.net.apply(p, obs)[0])(ts.pool)
                pool_logits = masked_logits(pool_logits[setup.pool_index, rows], mask)
                a_pool = jax.random.categorical(k_pool, pool_logits).astype(jnp.int32)
            if c.opp_baseline > 0:
                a_base = jax.vmap(baseline.act, in_axes=(None, 0, 0))(self.env, state,
                                                                      setup.bot_key)
            ctrl = setup.controller[rows, state.current_player]
            action = jnp.select([ctrl == LEARNER, ctrl == POOL], [a_learn, a_pool], a_base)
            nxt = self._step_env(state, action, jax.random.split(k_env, B))
            done = nxt.terminated | nxt.truncated
            fresh = jax.vmap(self._draw_setup, in_axes=(0, None))(
                jax.random.split(k_setup, B), ts.pool_count)
            new_setup = jax.tree.map(
                lambda a, b: jnp.where(done.reshape((B,) + (1,) * (a.ndim - 1)), a, b),
                fresh, setup)
            # Potential-based shaping: the potential of a finished game is 0, so a tournament's
            # shaped rewards still sum to its score - 1/6 (the potential at the start is 0).
            shaped = (nxt.rewards + jnp.where(done[:, None], 0.0, self._potential(nxt))
                      - self._potential(state))
            tr = Transition(obs, mask, action, logp, value, state.current_player,
                            ctrl == LEARNER, nxt.rewards, shaped, done, setup.kind,
                            setup.controller)
            return (nxt, new_setup, key), tr

        key, k_roll = jax.random.split(ts.key)
        (env_state, setup, _), traj = jax.lax.scan(
            one, (ts.env_state, ts.setup, k_roll), None, length=c.rollout_steps)
        return ts._replace(env_state=env_state, setup=setup, key=key), traj

    def _advantages(self, traj: Transition):
        """Per-player GAE over each table's decisions, backwards in time (see module doc)."""
        c, n = self.config, self.n
        B = c.num_tables
        zeros = jnp.zeros((B, n), jnp.float32)

        def back(carry, tr):
            next_value, next_adv, reward, known = carry
            d = tr.done[:, None]
            # A tournament ended here: what follows in the rollout is another tournament.
            next_value = jnp.where(d, 0.0, next_value)
            next_adv = jnp.where(d, 0.0, next_adv)
            reward = jnp.where(d, tr.shaped, reward + tr.shaped)
            known = known | d
            mine = (jnp.arange(n) == tr.actor[:, None]) & tr.learn[:, None]  # [B, N]
            pick = lambda x: (x * mine).sum(1)  # noqa: E731
            has_next = (known & mine).any(1)
            delta = pick(reward) + c.gamma * pick(next_value) - tr.value
            adv = jnp.where(has_next, delta + c.gamma * c.gae_lambda * pick(next_adv), 0.0)
            next_value = jnp.where(mine, tr.value[:, None], next_value)
            next_adv = jnp.where(mine, adv[:, None], next_adv)
            reward = jnp.where(mine, 0.0, reward)
            known = known | mine
            return (next_value, next_adv, reward, known), (adv, tr.learn & has_next)

        init = (zeros, zeros, zeros, jnp.zeros((B, n), bool))
        _, (adv, train) = jax.lax.scan(back, init, traj, reverse=True)
        return adv, train

    # ----------------------------------------------------------------------------- update
    def _loss(self, params, batch):
        c = self.config
        obs, mask, action, old_logp, adv, ret, w = batch
        logits, value = self.net.apply(params, obs)
        logp_all = jax.nn.log_softmax(masked_logits(logits, mask))
        logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
        count = jnp.maximum(w.sum(), 1.0)
        mean = lambda x: (w * x).sum() / count  # noqa: E731
        adv_mean = mean(adv)
        adv = (adv - adv_mean) / (jnp.sqrt(mean((adv - adv_mean) ** 2)) + 1e-8)
        log_ratio = logp - old_logp
        ratio = jnp.exp(log_ratio)
        clipped = jnp.clip(ratio, 1 - c.clip_eps, 1 + c.clip_eps)
        pg_loss = mean(-jnp.minimum(ratio * adv, clipped * adv))
        v_loss = 0.5 * mean((value - ret) ** 2)
        # Masked actions have probability exactly 0 and a finite log-probability: no NaN.
        entropy = mean(-(jnp.exp(logp_all) * logp_all).sum(1))
        total = pg_loss + c.value_coef * v_loss - c.entropy_coef * entropy
        approx_kl = mean((ratio - 1) - log_ratio)
        clip_frac = mean((jnp.abs(ratio - 1) > c.clip_eps).astype(jnp.float32))
        return total, dict(pg_loss=pg_loss, v_loss=v_loss, entropy=entropy,
                           approx_kl=approx_kl, clip_frac=clip_frac)

    def _update(self, params, opt_state, data, key):
        c = self.config
        size = c.num_tables * c.rollout_steps
        grad_fn = jax.grad(self._loss, has_aux=True)

        def epoch(carry, k):
            params, opt_state = carry
            perm = jax.random.permutation(k, size)
            mbs = jax.tree.map(lambda x: x[perm].reshape((c.minibatches, -1) + x.shape[1:]),
                               data)

            def minibatch(carry, mb):
                params, opt_state = carry
                grads, aux = grad_fn(params, mb)
                updates, opt_state = self.tx.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), aux

            return jax.lax.scan(minibatch, (params, opt_state), mbs)

        (params, opt_state), aux = jax.lax.scan(epoch, (params, opt_state),
                                                jax.random.split(key, c.epochs))
        return params, opt_state, jax.tree.map(jnp.mean, aux)

    # ------------------------------------------------------------------------ one iteration
    def _step(self, ts: TrainState):
        c, n = self.config, self.n
        ts, traj = self._rollout(ts)
        adv, train = self._advantages(traj)
        ret = adv + traj.value
        flat = lambda x: x.reshape((-1,) + x.shape[2:])  # noqa: E731
        data = (flat(traj.obs), flat(traj.mask), flat(traj.action), flat(traj.logp),
                flat(adv), flat(ret), flat(train).astype(jnp.float32))
        key, k_upd = jax.random.split(ts.key)
        params, opt_state, losses = self._update(ts.params, ts.opt_state, data, k_upd)

        # Snapshots into the pool every pool_every iterations (oldest slot replaced).
        it = ts.iteration + 1
        take = (it % c.pool_every) == 0
        slot = ts.pool_count % c.pool_size
        pool = jax.tree.map(lambda p, x: jnp.where(take, p.at[slot].set(x), p), ts.pool, params)
        pool_count = ts.pool_count + take.astype(jnp.int32)

        # Rollout statistics: the current policy's mean score per finished tournament, by kind.
        learner = traj.controller == LEARNER  # [T, B, N]
        score = (traj.rewards + 1.0 / n) * learner  # back to scores in [0, 1]
        per_table = score.sum(-1) / jnp.maximum(learner.sum(-1), 1)
        stats = {}
        for k, name in enumerate(TABLE_KINDS):
            ended = traj.done & (traj.kind == k)
            stats[f"tournaments_{name}"] = ended.sum()
            stats[f"score_sum_{name}"] = (per_table * ended).sum()
            stats[f"score_sq_{name}"] = (per_table ** 2 * ended).sum()
        illegal = ~jnp.take_along_axis(traj.mask, traj.action[..., None], axis=-1)[..., 0]
        metrics = dict(losses, **stats,
                       decisions=jnp.int32(traj.done.size),
                       learner_decisions=traj.learn.sum(),
                       trained_decisions=train.sum(),
                       illegal_actions=illegal.sum(),
                       # Checks: rewards only at tournament ends; potentials sum to zero.
                       stray_rewards=jnp.abs(jnp.where(traj.done[..., None], 0.0,
                                                       traj.rewards)).sum(),
                       shaped_sum_max=jnp.abs(traj.shaped.sum(-1)).max(),
                       value_mean=traj.value.mean(),
                       pool_count=pool_count)
        ts = TrainState(params, opt_state, ts.env_state, ts.setup, pool, pool_count, key, it)
        return ts, metrics


# --------------------------------------------------------------------------- checkpoints
def save_checkpoint(path, params, config: Config, **info) -> pathlib.Path:
    """Write ``params`` and ``config`` (plus JSON-able ``info``) to one msgpack file."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": CHECKPOINT_FORMAT, "config": json.dumps(config.to_dict()),
               "info": json.dumps(info),
               "params": flax.serialization.to_state_dict(jax.device_get(params))}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(flax.serialization.msgpack_serialize(payload))
    tmp.replace(path)  # never leave a half-written checkpoint under the real name
    return path


def load_checkpoint(path) -> tuple[Any, Config]:
    """``(params, config)`` from a file written by `save_checkpoint` (or the trainer)."""
    path = pathlib.Path(path)
    try:
        payload = flax.serialization.msgpack_restore(path.read_bytes())
    except FileNotFoundError:
        raise
    except Exception as err:  # msgpack raises several kinds on a damaged file
        raise ValueError(f"{path}: not a readable checkpoint ({err})") from err
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path}: not a {CHECKPOINT_FORMAT} checkpoint")
    config = Config.from_dict(json.loads(payload["config"]))
    params = jax.tree.map(jnp.asarray, payload["params"])
    return params, config


def checkpoint_info(path) -> dict:
    """The ``info`` stored with a checkpoint (iteration, env steps, ...)."""
    payload = flax.serialization.msgpack_restore(pathlib.Path(path).read_bytes())
    return json.loads(payload.get("info", "{}"))


# ----------------------------------------------------------------------- trained policies
@functools.lru_cache(maxsize=None)
def policy(config: Config, greedy: bool = False):
    """``act(params, state, key) -> int32`` menu action of a network trained with ``config``.

    Sampled from the masked softmax (``greedy``: its most likely action). The draw is addressed
    by the decision's coordinates (`holdemjax.bots.coordinate_key`) like the reference bots',
    so ``key`` is a per-tournament key and lines that differ elsewhere do not shift it. One
    function per (config, greedy), so evaluating several checkpoints compiles once.
    """
    net = make_network(config)

    def act(params, state, key):
        logits, _ = net.apply(params, state.observation)
        logits = masked_logits(logits, state.legal_action_mask)
        if greedy:
            return jnp.argmax(logits).astype(jnp.int32)
        k = coordinate_key(key, *coordinates(state))
        return jax.random.categorical(k, logits).astype(jnp.int32)

    return act


def action_probs(config: Config):
    """``probs(params, state) -> [A] float32``: the masked softmax of a trained network."""
    net = make_network(config)

    def probs(params, state):
        logits, _ = net.apply(params, state.observation)
        return jax.nn.softmax(masked_logits(logits, state.legal_action_mask))

    return probs


# ------------------------------------------------------------------------- the training loop
def _summary(records, window: int, kind: str = "baseline"):
    """(mean score, standard error, tournaments) of the last ``window`` iterations' ``kind``
    tables."""
    recent = records[-window:]
    count = sum(r[f"tournaments_{kind}"] for r in recent)
    if count == 0:
        return float("nan"), float("nan"), 0
    s = sum(r[f"score_sum_{kind}"] for r in recent)
    sq = sum(r[f"score_sq_{kind}"] for r in recent)
    mean = s / count
    var = max(sq / count - mean ** 2, 0.0)
    return mean, math.sqrt(var / max(count - 1, 1)), count


def plot_metrics(records, path) -> pathlib.Path:
    """The learning curve (score against the baseline, losses, entropy) as a PNG/SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    steps = np.array([r["env_steps"] for r in records], np.float64)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    window = max(1, len(records) // 15)
    means, ses = [], []
    for i in range(len(records)):
        m, se, count = _summary(records[: i + 1], window)
        if count < 30:  # too few finished tournaments in the window to plot a mean
            m = se = float("nan")
        means.append(m), ses.append(se)
    means, ses = np.array(means), np.array(ses)
    ax = axes[0]
    ax.plot(steps, means, color="C3", label=f"current policy vs 5 baselines ({window}-it window)")
    ax.fill_between(steps, means - 2 * ses, means + 2 * ses, color="C3", alpha=0.2)
    ax.axhline(1 / 6, color="k", lw=0.8, ls="--", label="1/6 (even)")
    ax.set(xlabel="env steps", ylabel="mean tournament score", title="score at baseline tables")
    ax.legend(fontsize=7)
    for key, color in (("pg_loss", "C0"), ("v_loss", "C1")):
        axes[1].plot(steps, [r[key] for r in records], color=color, label=key)
    axes[1].set(xlabel="env steps", title="losses")
    axes[1].legend(fontsize=7)
    axes[2].plot(steps, [r["entropy"] for r in records], color="C2", label="entropy")
    axes[2].plot(steps, [r["approx_kl"] * 100 for r in records], color="C4",
                 label="approx KL x 100")
    axes[2].set(xlabel="env steps", title="policy")
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _to_host(metrics) -> dict:
    return {k: (int(v) if np.issubdtype(np.asarray(v).dtype, np.integer) else float(v))
            for k, v in jax.device_get(metrics).items()}


def train(config: Config, out_dir=None, *, log_every: int = 1, checkpoint_every: int = 0,
          init_params=None, console=None, quiet: bool = False):
    """Run ``config.iterations`` iterations; returns ``(params, records)``.

    With ``out_dir``: writes ``metrics.jsonl`` (one record per iteration, appended as it
    goes), ``checkpoint.msgpack`` (every ``checkpoint_every`` iterations, 0 = only at the end)
    and ``learning_curve.png`` at the end. ``init_params`` continues from given parameters (the
    optimizer and pool start afresh). Prints a progress line every ``log_every`` iterations
    (rich markup) unless ``quiet``.
    """
    from rich.console import Console

    console = console or Console(highlight=False, soft_wrap=True)
    trainer = Trainer.of(config)
    t0 = time.perf_counter()
    ts = trainer.init(params=init_params)
    # Compile apart from the timed iterations (once per trainer: shapes follow the config).
    if trainer.compiled is None:
        trainer.compiled = trainer.step.lower(ts).compile()
    compiled = trainer.compiled
    compile_s = time.perf_counter() - t0
    if not quiet:
        console.print(f"[bold]PPO[/] {config.env_id}: {config.num_tables} tables x "
                      f"{config.rollout_steps} steps, {config.iterations} iterations; "
                      f"compiled in {compile_s:.1f} s")
    out = pathlib.Path(out_dir) if out_dir is not None else None
    log = None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        log = open(out / "metrics.jsonl", "w", encoding="utf-8")
    records, env_steps, run_s = [], 0, 0.0
    try:
        for i in range(config.iterations):
            start = time.perf_counter()
            ts, metrics = compiled(ts)
            rec = _to_host(metrics)  # waits for the iteration
            seconds = time.perf_counter() - start
            run_s += seconds
            env_steps += rec["decisions"]
            rec.update(iteration=i + 1, env_steps=env_steps, seconds=seconds,
                       steps_per_s=rec["decisions"] / seconds, wall_s=run_s,
                       compile_s=compile_s)
            records.append(rec)
            if log is not None:
                log.write(json.dumps(rec) + "\n")
                log.flush()
            if not quiet and ((i + 1) % log_every == 0 or i + 1 == config.iterations):
                m, se, cnt = _summary(records, 10)
                console.print(
                    f"it {i + 1:>4}/{config.iterations} | {env_steps / run_s:>7,.0f} steps/s | "
                    f"vs baseline [bold]{m:.3f}[/] ± {se:.3f} (n={cnt}, last 10 it) | "
                    f"pg {rec['pg_loss']:+.4f} v {rec['v_loss']:.4f} "
                    f"ent {rec['entropy']:.3f} kl {rec['approx_kl']:.4f} | "
                    f"{run_s + compile_s:,.0f} s")
            if out is not None and checkpoint_every and (i + 1) % checkpoint_every == 0:
                save_checkpoint(out / "checkpoint.msgpack", ts.params, config,
                                iteration=i + 1, env_steps=env_steps)
    finally:
        if log is not None:
            log.close()
    if out is not None:
        save_checkpoint(out / "checkpoint.msgpack", ts.params, config,
                        iteration=config.iterations, env_steps=env_steps,
                        steps_per_s=env_steps / max(run_s, 1e-9), train_s=run_s,
                        compile_s=compile_s)
        if records:
            plot_metrics(records, out / "learning_curve.png")
    return ts.params, records


# ---------------------------------------------------------------------------------- the CLI
_HELP = {
    "env_id": "tournament env to train on",
    "num_tables": "tables played in parallel (batch)",
    "rollout_steps": "decisions per table per iteration",
    "iterations": "training iterations",
    "epochs": "PPO epochs per iteration",
    "minibatches": "minibatches per epoch",
    "learning_rate": "adam learning rate",
    "gamma": "discount per own decision",
    "gae_lambda": "GAE lambda",
    "clip_eps": "PPO clip range",
    "value_coef": "value loss weight",
    "entropy_coef": "entropy bonus weight",
    "max_grad_norm": "global gradient norm clip",
    "hidden": "hidden layer widths of the actor and critic MLPs",
    "learners": "player ids the current policy controls at pool and baseline tables",
    "opp_self": "share of tables in pure self-play",
    "opp_pool": "share of tables against a past snapshot",
    "opp_baseline": "share of tables against the baseline bot",
    "pool_size": "snapshots kept in the opponent pool",
    "pool_every": "iterations between snapshots",
    "shaping": "potential-based reward shaping (icm: expected score of the stacks at each hand "
               "start; chips: chip share; none: the tournament score only)",
    "seed": "random seed",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m holdemjax.training.ppo",
        description="PPO self-play on a holdemjax tournament env (docs/training.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    defaults = Config()
    for f in dataclasses.fields(Config):
        flag = "--" + f.name.replace("_", "-")
        value = getattr(defaults, f.name)
        if f.name == "hidden":
            p.add_argument(flag, type=int, nargs="+", default=list(value), help=_HELP[f.name])
        elif f.name in ("env_id", "shaping"):
            choices = ENV_IDS if f.name == "env_id" else SHAPINGS
            p.add_argument(flag, choices=choices, default=value, help=_HELP[f.name])
        else:
            p.add_argument(flag, type=type(value), default=value, help=_HELP[f.name])
    p.add_argument("--out", default="ppo_run", help="output folder (metrics, checkpoint, plot)")
    p.add_argument("--log-every", type=int, default=1, help="iterations between progress lines")
    p.add_argument("--checkpoint-every", type=int, default=0,
                   help="iterations between checkpoints (0: only at the end)")
    p.add_argument("--init", default=None, help="start from this checkpoint's parameters")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def main(argv=None) -> int:
    """Command-line entry point; returns an exit status."""
    args = _parser().parse_args(argv)
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(Config)}
    try:
        config = Config.from_dict(values)
        init_params = None
        if args.init:
            init_params, old = load_checkpoint(args.init)
            if (old.hidden, old.env_id) != (config.hidden, config.env_id):
                raise ValueError(f"--init {args.init}: network {old.hidden} on {old.env_id} "
                                 f"does not match {config.hidden} on {config.env_id}")
        if args.log_every < 1 or args.checkpoint_every < 0:
            raise ValueError("--log-every must be >= 1 and --checkpoint-every >= 0")
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    _, records = train(config, args.out, log_every=args.log_every,
                       checkpoint_every=args.checkpoint_every, init_params=init_params,
                       quiet=args.quiet)
    if records and not args.quiet:
        total = records[-1]["env_steps"]
        wall = records[-1]["wall_s"]
        print(f"done: {total:,} env steps in {wall:.0f} s ({total / wall:,.0f} steps/s, "
              f"compile {records[-1]['compile_s']:.0f} s); outputs in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
