"""Distillation: a deterministic JAX policy (the teacher: a searched push/fold policy,
`holdemjax.training.policy_search`) taught to the PPO network (`networks.ActorCritic`), so that
the result is an ordinary PPO checkpoint that `evaluate`, `export-wasm`, `preflop_grid` and
`exploit` read.

The teacher is a policy of the push/fold family (`holdemjax.training.push_fold`: thresholds as
data). Data (`collect`): ``tables`` tournaments run side by side for ``steps`` decisions each (a
finished one starts over, `holdemjax.auto_reset`); at each table every player id is the teacher
with probability 1/2 and otherwise plays the table's bot, one of `DistillConfig.bots` (the
evaluation panel's bots), drawn per table. Every decision, whoever makes it, is a training
example labelled with the teacher's action there: the network learns the teacher's play on the
states the panel's line-ups reach, not only on the teacher's own.

Training (`distill`): cross-entropy of the masked logits against the teacher's action (actions
that differ from the passive move, rare and decisive, weigh ``aggressive_weight``), adam with a
cosine-decayed learning rate, minibatches drawn with replacement. Only the actor is trained; the
critic keeps its initial weights (nothing reads a distilled network's value). ``agreement`` is
measured on held-out decisions from fresh keys: the share where the network's most likely action
is the teacher's, overall and among the teacher's non-passive actions (held-out: the decisions
of ``test_tables`` more tables, played in the same batch with their own keys).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax

import holdemjax
from holdemjax.training import evaluate as ev
from holdemjax.training import panel
from holdemjax.training.networks import masked_logits
from holdemjax.training.ppo_checkpoint import save_checkpoint
from holdemjax.training.ppo_config import PANEL_BOTS, Config, make_network

__all__ = ["DistillConfig", "Distilled", "collect", "distill", "save"]


@dataclasses.dataclass(frozen=True)
class DistillConfig:
    """Everything that defines a distillation."""

    env_id: str = "sng-6"
    hidden: tuple[int, ...] = (128, 128)
    bots: tuple[str, ...] = PANEL_BOTS  # what the non-teacher ids play, drawn per table
    tables: int = 512  # training data: tables x steps decisions
    steps: int = 256
    test_tables: int = 64  # held-out tables (played beside the training ones, own keys)
    updates: int = 3000
    batch: int = 2048
    learning_rate: float = 1e-3
    aggressive_weight: float = 8.0  # weight of examples whose label is not the passive move
    seed: int = 0

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["hidden"], d["bots"] = list(self.hidden), list(self.bots)
        return d


@dataclasses.dataclass(frozen=True)
class Distilled:
    """The network's parameters, the PPO `Config` that rebuilds it, and what was measured."""

    params: dict
    config: Config
    info: dict


@functools.lru_cache(maxsize=4)
def _collector(env, bots: tuple[str, ...], tables: int, steps: int):
    """Jitted ``(teacher_params, key) -> (obs [T*B, OBS], mask [T*B, A], label [T*B])``."""
    from holdemjax.training import push_fold

    teacher = push_fold.policy(env)
    acts = [panel.opponent(name, env) for name in bots]
    n = env.num_players
    step = holdemjax.auto_reset(env.step, env.init)

    def run(params, key):
        k_init, k_bot, k_who, k_seat, k_run = jax.random.split(key, 5)
        states = jax.vmap(env.init)(jax.random.split(k_init, tables))
        bot = jax.random.randint(k_bot, (tables,), 0, len(bots))
        teacher_ids = jax.random.bernoulli(k_who, 0.5, (tables, n))
        table_keys = jax.random.split(k_seat, tables)
        rows = jnp.arange(tables)

        def body(carry, k):
            states, games = carry
            bot_keys = jax.vmap(lambda tk, g: jax.random.key_data(jax.random.fold_in(tk, g)))(
                table_keys, games)
            label = jax.vmap(teacher, in_axes=(None, 0, 0))(params, states, bot_keys)
            their = jnp.stack([jax.vmap(a)(states, bot_keys) for a in acts]).astype(jnp.int32)
            their = their[bot, rows]
            mine = teacher_ids[rows, states.current_player]
            action = jnp.where(mine, label, their)
            out = (states.observation, states.legal_action_mask, label)
            states = jax.vmap(step)(states, action, jax.random.split(k, tables))
            games = games + (states.terminated | states.truncated)
            return (states, games), out

        games = jnp.zeros(tables, jnp.int32)
        _, (obs, mask, label) = jax.lax.scan(body, (states, games),
                                             jax.random.split(k_run, steps))
        return (obs.reshape(steps * tables, -1), mask.reshape(steps * tables, -1),
                label.reshape(-1))

    return jax.jit(run)


def collect(teacher_params, env, key, *, bots=PANEL_BOTS, tables: int = 512, steps: int = 256):
    """Decisions of panel line-ups with the push/fold ``teacher_params`` (`push_fold`) as
    numpy arrays ``(obs, mask, label)`` (see the module doc)."""
    run = _collector(env, tuple(bots), tables, steps)
    return jax.device_get(run(jnp.asarray(teacher_params, jnp.int32), key))


@functools.lru_cache(maxsize=4)
def _greedy(net):
    """Jitted ``(params, obs, mask) -> the network's most likely legal action`` (one per net)."""
    return jax.jit(lambda p, o, m: jnp.argmax(masked_logits(net.apply(p, o)[0], m), -1))


def _agreement(net, params, obs, mask, label, chunk=8192):
    pred = []
    apply = _greedy(net)
    for lo in range(0, len(obs), chunk):
        pred.append(np.asarray(apply(params, obs[lo:lo + chunk], mask[lo:lo + chunk])))
    pred = np.concatenate(pred)
    aggressive = label != np.asarray(panel.passive_move(mask))
    return (float((pred == label).mean()),
            float((pred == label)[aggressive].mean()) if aggressive.any() else float("nan"),
            int(aggressive.sum()))


def distill(teacher_params, *, env_id: str = "sng-6", seed: int = 0,
            config: DistillConfig | None = None,
            progress: Callable[[str], None] | None = None) -> Distilled:
    """Teach the PPO network the push/fold policy ``teacher_params`` (see the module doc)."""
    cfg = config or DistillConfig(env_id=env_id, seed=seed)
    ppo_config = Config(env_id=cfg.env_id, hidden=cfg.hidden, seed=cfg.seed)
    env = ev.make_env(cfg.env_id)  # cached: one compiled collector per format
    net = make_network(ppo_config, env)
    key = jax.random.key(cfg.seed)
    k_data, k_init, k_batch = jax.random.split(key, 3)
    start = time.perf_counter()
    # One program for both sets: the held-out tables are the last test_tables of one batch
    # (independent keys, so independent tournaments), rows are step-major.
    every = collect(teacher_params, env, k_data, bots=cfg.bots,
                    tables=cfg.tables + cfg.test_tables, steps=cfg.steps)
    held_out = (np.arange(len(every[2])) % (cfg.tables + cfg.test_tables)) >= cfg.tables
    obs, mask, label = (x[~held_out] for x in every)
    t_obs, t_mask, t_label = (x[held_out] for x in every)
    del every
    collect_s = time.perf_counter() - start
    weight = np.where(label != np.asarray(panel.passive_move(mask)),
                      cfg.aggressive_weight, 1.0).astype(np.float32)
    if progress:
        progress(f"distill: {len(label):,} decisions ({int((weight > 1).sum()):,} not passive), "
                 f"{collect_s:.0f} s")
    params = net.init(k_init, jnp.asarray(obs[:1]))
    schedule = optax.cosine_decay_schedule(cfg.learning_rate, cfg.updates)
    opt = optax.adam(schedule)
    opt_state = opt.init(params)
    data = tuple(jnp.asarray(x) for x in (obs, mask, label, weight))

    def loss_fn(p, o, m, y, w):
        logits = masked_logits(net.apply(p, o)[0], m)
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, y)
        return (ce * w).sum() / w.sum()

    @jax.jit
    def update(p, s, k):
        idx = jax.random.randint(k, (cfg.batch,), 0, data[0].shape[0])
        loss, grads = jax.value_and_grad(loss_fn)(p, *(x[idx] for x in data))
        upd, s = opt.update(grads, s, p)
        return optax.apply_updates(p, upd), s, loss

    losses = []
    for i in range(cfg.updates):
        params, opt_state, loss = update(params, opt_state, jax.random.fold_in(k_batch, i))
        if (i + 1) % 500 == 0 or i + 1 == cfg.updates:
            losses.append(float(loss))
            if progress:
                progress(f"distill: update {i + 1:,}/{cfg.updates:,}, loss {losses[-1]:.5f}")
    agree, agree_aggr, n_aggr = _agreement(net, params, t_obs, t_mask, t_label)
    train_agree, _, _ = _agreement(net, params, obs, mask, label)
    info = dict(method="push/fold policy search + distillation",
                teacher=[int(x) for x in np.asarray(teacher_params)], distill=cfg.to_dict(),
                decisions=int(len(label)), test_decisions=int(len(t_label)),
                agreement=agree, agreement_not_passive=agree_aggr, test_not_passive=n_aggr,
                train_agreement=train_agree, losses=losses, collect_s=collect_s,
                distill_s=time.perf_counter() - start)
    if progress:
        progress(f"distill: held-out agreement {agree:.5f} ({agree_aggr:.4f} of {n_aggr:,} "
                 f"non-passive decisions)")
    return Distilled(jax.device_get(params), ppo_config, info)


def save(path, result: Distilled, **info):
    """The distilled network as a PPO checkpoint (`ppo.save_checkpoint`), its info included."""
    return save_checkpoint(path, result.params, result.config, **result.info, **info)
