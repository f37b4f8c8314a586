"""PPO's compiled trainer (`Trainer`): rollout, per-player GAE and clipped-PPO updates, one
jitted function per iteration; the pytrees it carries. Part of `holdemjax.training.ppo` (the
module docstring there describes the tables, rewards and shaping), which re-exports it.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

import holdemjax
from holdemjax import luck as LK
from holdemjax.bots import baseline
from holdemjax.poker.tournament import player_scores
from holdemjax.training import panel
from holdemjax.training.gae import per_player_gae
from holdemjax.training.networks import features, masked_logits
from holdemjax.training.ppo_config import (
    BASELINE,
    LEARNER,
    PANEL,
    POOL,
    TABLE_KINDS,
    Config,
    make_env,
    make_network,
    potential,
)
from holdemjax.training.sharding import TableSharding, check_divisible, resolve_devices

__all__ = ["Setup", "TrainState", "Transition", "Trainer", "luck_key"]


# --------------------------------------------------------------------------- pytrees
class Setup(NamedTuple):
    """What sits at one table for the current tournament."""

    kind: jax.Array  # [] int32 index into TABLE_KINDS
    controller: jax.Array  # [N] int32 LEARNER / POOL / BASELINE / PANEL per player id
    pool_index: jax.Array  # [] int32 the pool snapshot playing at a pool table
    bot_key: jax.Array  # [2] uint32 the bots' per-tournament key
    bot_index: jax.Array  # [] int32 the bot of Config.panel_bots playing at a panel table


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
    features: jax.Array  # [F] float32 the network's input (`networks.features` of the observation)
    mask: jax.Array  # [A] bool
    action: jax.Array  # [] int32
    logp: jax.Array  # [] float32 log-probability under the current policy (learner rows)
    value: jax.Array  # [] float32
    actor: jax.Array  # [] int32 player id that decided
    learn: jax.Array  # [] bool decided by the current policy
    rewards: jax.Array  # [N] float32 rewards of the step (tournament end only)
    shaped: jax.Array  # [N] float32 rewards + potential difference - luck (what GAE uses)
    luck: jax.Array  # [N] float32 the step's luck taken out of shaped (zeros without luck_out)
    done: jax.Array  # [] bool the tournament ended with this step
    end: jax.Array  # [] bool an episode of the objective ended: the tournament, or the hand
    cut: jax.Array  # [] bool GAE's trace stops here, values bootstrap on ("hand-td": a hand end)
    kind: jax.Array  # [] int32 table kind of the tournament the decision belongs to
    controller: jax.Array  # [N] int32


def luck_key(bot_key):
    """The luck's key of a tournament: its bots' key folded with a domain of its own."""
    return jax.random.fold_in(jax.random.wrap_key_data(bot_key), 0x4C55434B)


def _spread(x, where):
    """The variance of ``x`` over the entries ``where`` is true."""
    w = where.astype(jnp.float32)
    count = jnp.maximum(w.sum(), 1.0)
    mean = (x * w).sum() / count
    return (((x - mean) ** 2) * w).sum() / count


# ------------------------------------------------------------------------------ the trainer
class Trainer:
    """The compiled pieces of one `Config`: `init(key) -> TrainState` and the jitted
    ``step(TrainState) -> (TrainState, metrics)`` (one full iteration). `Trainer.of(config)`
    returns one shared instance per config and devices, so its compiled programs are reused.

    ``devices`` (`holdemjax.training.sharding.resolve_devices`: ``None`` = every device JAX
    sees, ``n`` = the first n): the tables are split over them (`TableSharding`), everything
    else replicated; the same program for one device or many. ``num_tables`` and the minibatch
    size must divide by their number."""

    @classmethod
    def of(cls, config: Config, devices=None) -> Trainer:
        """The shared trainer of ``config`` on ``devices`` (compiles once per process)."""
        return cls._shared(config, tuple(resolve_devices(devices, config.num_tables)))

    @classmethod
    @functools.lru_cache(maxsize=8)
    def _shared(cls, config: Config, devices: tuple) -> Trainer:
        return cls(config, devices)

    def __init__(self, config: Config, devices=None):
        self.config = config
        devices = resolve_devices(devices, config.num_tables)
        minibatch = config.num_tables * config.rollout_steps // config.minibatches
        check_divisible(len(devices), **{"num_tables * rollout_steps / minibatches": minibatch})
        self.sharding = TableSharding(devices)
        self.env = make_env(config)
        self.net = make_network(config, self.env)
        self.n = self.env.num_players
        self.num_actions = self.env.num_actions
        shares = [config.opp_self, config.opp_pool, config.opp_baseline, config.opp_panel]
        # Without panel tables the draw is over the first three kinds, as before they existed
        # (the same tables from the same keys).
        self.kinds = len(TABLE_KINDS) if config.opp_panel > 0 else 3
        self.kind_probs = np.asarray(shares[:self.kinds], np.float32) / sum(shares)
        self.panel_bots = ()
        if config.opp_panel > 0:
            self.panel_bots = tuple(panel.opponent(name, self.env)
                                    for name in config.panel_bots)
        schedule = config.learning_rate  # a resumed run (--init) starts its schedule anew
        if config.lr_schedule == "linear":
            schedule = optax.linear_schedule(config.learning_rate, 0.0, config.iterations
                                             * config.epochs * config.minibatches)
        self.tx = optax.chain(optax.clip_by_global_norm(config.max_grad_norm),
                              optax.adam(schedule, eps=1e-5))
        self.step = jax.jit(self._step, donate_argnums=0)
        self._init_envs = jax.jit(jax.vmap(self.env.init))
        self.compiled = None  # `step` compiled ahead of time by `train`
        # Env.step reports only the step's own rewards, so the terminal rewards auto_reset
        # copies onto a new game's first state are not repeated later.
        self._step_env = jax.vmap(self._table_step)

    # ------------------------------------------------------------------------------- init
    def init_params(self, key) -> Any:
        """Fresh network parameters."""
        obs = jnp.zeros(self.env.observation_shape, jnp.float32)
        return self.net.init(key, obs)

    def init(self, key=None, params=None) -> TrainState:
        """The state before iteration 0 (fresh parameters unless ``params`` are given), placed
        on the trainer's devices: this process builds the tables its devices hold, every
        process the same replicated rest (so ``key`` and ``params`` must agree across
        processes)."""
        c = self.config
        key = jax.random.key(c.seed) if key is None else key
        k_params, k_env, k_setup, key = jax.random.split(key, 4)
        params = self.init_params(k_params) if params is None else params
        # The tables' keys are drawn for the whole batch, then each process keeps its rows.
        rows = self.sharding.local_rows(c.num_tables)
        env_state = self._init_envs(jax.random.split(k_env, c.num_tables)[rows])
        setup = jax.vmap(self._draw_setup)(jax.random.split(k_setup, c.num_tables)[rows],
                                           jnp.ones(rows.stop - rows.start, jnp.int32))
        pool = jax.tree.map(lambda x: jnp.broadcast_to(x, (c.pool_size,) + x.shape), params)
        env_state, setup = self.sharding.put((env_state, setup), batched=True,
                                             num_rows=c.num_tables)
        # `put` copies: the step donates its state, which must not delete the caller's arrays.
        params, opt_state, pool, pool_count, key, iteration = self.sharding.put(
            (params, self.tx.init(params), pool, jnp.int32(1), key, jnp.int32(0)),
            batched=False)
        return TrainState(params, opt_state, env_state, setup, pool, pool_count, key,
                          iteration)

    def state_leaves(self, ts: TrainState) -> list:
        """Every array of ``ts`` on the host (typed keys as their key data), in pytree order:
        what a resumable checkpoint stores (`restore` is the inverse)."""
        def host(x):
            typed = jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)
            return np.asarray(jax.device_get(jax.random.key_data(x) if typed else x))
        return [host(x) for x in jax.tree.leaves(ts)]

    def restore(self, leaves, like: TrainState) -> TrainState:
        """The `TrainState` whose `state_leaves` are ``leaves``, placed as `init` places it
        (``like``: a state of this trainer, e.g. `init`'s, for the structure); `ValueError` if
        they do not fit (count, shape or dtype)."""
        shapes = jax.tree.leaves(like)
        if len(leaves) != len(shapes):
            raise ValueError(f"the saved state has {len(leaves)} arrays; this config's has "
                             f"{len(shapes)}")
        values = []
        for i, (x, leaf) in enumerate(zip(leaves, shapes, strict=True)):
            typed = jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key)
            x = np.asarray(x)
            want = jax.random.key_data(leaf) if typed else leaf
            if x.shape != want.shape or x.dtype != want.dtype:
                raise ValueError(f"saved array {i} is {x.dtype}{list(x.shape)}, this config's "
                                 f"is {want.dtype}{list(want.shape)}")
            values.append(jax.random.wrap_key_data(x, impl=jax.random.key_impl(leaf))
                          if typed else x)
        ts = jax.tree.unflatten(jax.tree.structure(like), values)
        rows = self.sharding.local_rows(self.config.num_tables)
        tables = jax.tree.map(lambda x: x[rows], (ts.env_state, ts.setup))
        env_state, setup = self.sharding.put(tables, batched=True,
                                             num_rows=self.config.num_tables)
        rest = self.sharding.put((ts.params, ts.opt_state, ts.pool, ts.pool_count, ts.key,
                                  ts.iteration), batched=False)
        params, opt_state, pool, pool_count, key, iteration = rest
        return TrainState(params, opt_state, env_state, setup, pool, pool_count, key,
                          iteration)

    def _draw_setup(self, key, pool_count) -> Setup:
        c = self.config
        k_kind, k_ids, k_pool, k_bot = jax.random.split(key, 4)
        kind = jax.random.choice(k_kind, self.kinds,
                                 p=jnp.asarray(self.kind_probs)).astype(jnp.int32)
        learner_ids = jax.random.permutation(k_ids, self.n)[:c.learners]
        is_learner = jnp.zeros(self.n, bool).at[learner_ids].set(True)
        other = jnp.select([kind == 1, kind == 3], [POOL, PANEL], BASELINE)
        controller = jnp.where((kind == 0) | is_learner, LEARNER, other).astype(jnp.int32)
        filled = jnp.clip(pool_count, 1, c.pool_size)
        pool_index = jax.random.randint(k_pool, (), 0, filled).astype(jnp.int32)
        bot_index = jax.random.randint(jax.random.fold_in(k_pool, 1), (), 0,
                                       len(c.panel_bots)).astype(jnp.int32)
        return Setup(kind, controller, pool_index, jax.random.key_data(k_bot), bot_index)

    def _table_step(self, state, action, key, controller):
        """`env.step` with `holdemjax.auto_reset`. With ``stop_when_out`` a table whose learner
        ids are all out starts over too (marked truncated): their scores are final and paid
        to them as the step's rewards; the rest of that game would train nothing."""
        env, step = self.env, self.env.step
        if self.config.stop_when_out:
            def step(s, a, k):
                s = env.step(s, a, k)
                t = env.tournament(s)
                learner = controller == LEARNER
                in_game = t.alive[t.seat_of]  # by player id
                cut = ~(s.terminated | s.truncated) & ~(learner & in_game).any()
                scores = player_scores(t, zero_sum=True)
                return s.replace(truncated=s.truncated | cut,
                                 rewards=jnp.where(cut & learner, scores, s.rewards))
        return holdemjax.auto_reset(step, env.init)(state, action, key)

    def _luck(self, state, action, bot_key):
        """``# [N]`` the luck taken out of one step's rewards with ``luck_out``
        (`holdemjax.luck.step_luck` under the tournament's value); with a hand objective less
        the next hand's deal, which is not the ending hand's luck."""
        hand_mode = self.config.objective != "tournament"
        luck = LK.step_luck(self.env, state, action, luck_key(bot_key), hand_mode)
        return luck.at[LK.DEAL_EVENT].set(0.0).sum(0) if hand_mode else luck

    # ---------------------------------------------------------------------------- rollout
    def _heads(self, params, feats):
        """``(logits, value)`` of the network on `networks.features` ``feats``."""
        return self.net.apply(params, feats, method="heads")

    def _potential(self, state):
        """``# [B, N]`` shaping potential by player id (`ppo_config.potential`)."""
        return jax.vmap(lambda s: potential(self.env, s, self.config.shaping))(state)

    def _rollout(self, ts: TrainState):
        c, B, sh = self.config, self.config.num_tables, self.sharding
        rows = jnp.arange(B)

        def one(carry, _):
            state, setup, key, pot = carry  # pot: the potential of state, from the step before
            key, k_learn, k_pool, k_env, k_setup = jax.random.split(key, 5)
            mask = state.legal_action_mask
            # The features once per decision: the updates reuse them (``method="heads"``).
            feats = features(state.observation, self.n)
            logits, value = self._heads(ts.params, feats)
            logits = masked_logits(logits, mask)
            a_learn = jax.random.categorical(k_learn, logits).astype(jnp.int32)
            logp = jax.nn.log_softmax(logits)[rows, a_learn]
            # Every pool snapshot on every row (a few small MLPs), then each row's own one.
            # A table kind with probability 0 is left out of the program (config is static).
            a_pool = a_base = a_learn
            if c.opp_pool > 0:
                pool_logits = jax.vmap(lambda p: self._heads(p, feats)[0])(ts.pool)
                pool_logits = masked_logits(pool_logits[setup.pool_index, rows], mask)
                a_pool = jax.random.categorical(k_pool, pool_logits).astype(jnp.int32)
            if c.opp_baseline > 0:
                a_base = jax.vmap(baseline.act, in_axes=(None, 0, 0))(self.env, state,
                                                                      setup.bot_key)
            a_panel = a_learn
            if self.panel_bots:  # every panel bot on every row, then each row's own one
                acts = jnp.stack([jax.vmap(bot)(state, setup.bot_key).astype(jnp.int32)
                                  for bot in self.panel_bots])
                a_panel = acts[setup.bot_index, rows]
            ctrl = setup.controller[rows, state.current_player]
            action = jnp.select([ctrl == LEARNER, ctrl == POOL, ctrl == PANEL],
                                [a_learn, a_pool, a_panel], a_base)
            nxt = sh.constrain(self._step_env(state, action, jax.random.split(k_env, B),
                                              setup.controller))
            done = nxt.terminated | nxt.truncated
            fresh = jax.vmap(self._draw_setup, in_axes=(0, None))(
                jax.random.split(k_setup, B), ts.pool_count)
            new_setup = sh.constrain(jax.tree.map(
                lambda a, b: jnp.where(done.reshape((B,) + (1,) * (a.ndim - 1)), a, b),
                fresh, setup))
            # Potential-based shaping: the potential of a finished game is 0, so a tournament's
            # shaped rewards still sum to its score - 1/6 (the potential at the start is 0).
            pot_next = self._potential(nxt)
            shaped = nxt.rewards + jnp.where(done[:, None], 0.0, pot_next) - pot
            luck = jnp.zeros_like(shaped)
            if c.luck_out:  # AIVAT: the luck has expectation zero given what came before it
                luck = jax.vmap(self._luck)(state, action, setup.bot_key)
            hand = lambda s: self.env.tournament(s).hand
            hand_end = done | (hand(nxt) != hand(state))
            end = hand_end if c.objective == "hand" else done
            cut = hand_end if c.objective == "hand-td" else jnp.zeros_like(done)
            tr = Transition(feats, mask, action, logp, value, state.current_player,
                            ctrl == LEARNER, nxt.rewards, shaped - luck, luck, done, end, cut,
                            setup.kind, setup.controller)
            return (nxt, new_setup, key, pot_next), sh.constrain(tr)

        key, k_roll = jax.random.split(ts.key)
        carry = (ts.env_state, ts.setup, k_roll, self._potential(ts.env_state))
        (env_state, setup, _, _), traj = jax.lax.scan(one, carry, None, length=c.rollout_steps)
        return ts._replace(env_state=env_state, setup=setup, key=key), traj

    def _advantages(self, traj: Transition):
        """Per-player GAE over each table's decisions (`training.gae.per_player_gae`)."""
        return per_player_gae(traj, self.config.gamma, self.config.gae_lambda)

    # ----------------------------------------------------------------------------- update
    def _loss(self, params, batch):
        c = self.config
        feats, mask, action, old_logp, adv, ret, w = batch
        logits, value = self._heads(params, feats)
        logp_all = jax.nn.log_softmax(masked_logits(logits, mask))
        logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
        count = jnp.maximum(w.sum(), 1.0)
        mean = lambda x: (w * x).sum() / count
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

    def update(self, params, opt_state, data, key):
        """``(params, opt_state, losses)``: PPO's minibatch epochs over one batch ``data =
        (features, mask, action, logp, adv, ret, weight)``, each with ``num_tables x
        rollout_steps`` rows (the clipped loss, optax's optimizer; the losses averaged over the
        minibatches)."""
        c = self.config
        size = c.num_tables * c.rollout_steps
        grad_fn = jax.grad(self._loss, has_aux=True)

        def epoch(carry, k):
            params, opt_state = carry
            perm = jax.random.permutation(k, size)
            # Each minibatch split over the devices: the gradient is a data-parallel mean.
            mbs = self.sharding.constrain(
                jax.tree.map(lambda x: x[perm].reshape((c.minibatches, -1) + x.shape[1:]),
                             data), axis=1)

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
        if c.objective == "hand-td":  # the critic learns the tournament's value: no cuts
            ret = self._advantages(traj._replace(cut=jnp.zeros_like(traj.cut)))[0] + traj.value
        # luck_out: the advantages' spread over the trained decisions, and with the luck left
        # in (the same rollout): what it is for (docs/luck.md). (Without it the metrics stay
        # as they were: tests/training/golden/ppo_tiny.json hashes them.)
        luck_stats = {}
        if c.luck_out:
            raw_adv, _ = self._advantages(traj._replace(shaped=traj.shaped + traj.luck))
            luck_stats = {"adv_var": _spread(adv, train),
                          "adv_var_luck_in": _spread(raw_adv, train)}
        flat = lambda x: x.reshape((-1,) + x.shape[2:])
        data = (flat(traj.features), flat(traj.mask), flat(traj.action), flat(traj.logp),
                flat(adv), flat(ret), flat(train).astype(jnp.float32))
        key, k_upd = jax.random.split(ts.key)
        params, opt_state, losses = self.update(ts.params, ts.opt_state, data, k_upd)

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
        for k, name in enumerate(TABLE_KINDS[:self.kinds]):
            ended = traj.done & (traj.kind == k)
            stats[f"tournaments_{name}"] = ended.sum()
            stats[f"score_sum_{name}"] = (per_table * ended).sum()
            stats[f"score_sq_{name}"] = (per_table ** 2 * ended).sum()
        illegal = ~jnp.take_along_axis(traj.mask, traj.action[..., None], axis=-1)[..., 0]
        metrics = dict(losses, **stats, **luck_stats,
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
        sh = self.sharding
        env_state, setup = sh.constrain((ts.env_state, ts.setup))
        params, opt_state, pool = sh.replicate((params, opt_state, pool))
        ts = TrainState(params, opt_state, env_state, setup, pool, pool_count, key, it)
        return ts, metrics
