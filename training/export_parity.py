"""Parity of an exported policy module with its JAX policy at real tournament decisions.

Tournaments are played in JAX (vmapped, jitted) by a mix of the checkpoint's sampled policy,
random bots, calling stations (check/call: many post-flop decisions) and, optionally, the
baseline (the policy's share varying by game, so that many kinds of states occur). At every
``every``-th decision:

* JAX: ``ppo.policy(config, greedy)(params, state, game_key)`` for both modes, with
  ``game_key = fold_in(slot key, tournament)`` (what the module derives from its seed);
* wasm: the exported modules' replies to ``protocol.act_message`` of the state, through the
  series host (`holdemjax.series.wasm.load_policy`) after the ``start`` message;
* the observation: `act_features.observation` of the message against the env's
  ``state.observation`` (bit for bit), and (``probe=True``) the module's own observation,
  features and logits against `act_features` / `networks.features` / the network.

`run_parity` returns the counts (decisions, mismatches per mode, the largest logit difference,
the fuel per decision); the CI test and benchmarks/parity_export_wasm.py use it.
"""

from __future__ import annotations

import collections
import dataclasses
import json

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax.bots import baseline, random_bot
from holdemjax.host.hand import HandLog
from holdemjax.poker import table as tb
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.series import protocol as P
from holdemjax.training import act_features, ppo
from holdemjax.training.networks import features, masked_logits

__all__ = ["SERIES_SEED", "SLOT", "ParityResult", "expected_reply", "run_parity"]

SERIES_SEED, SLOT = 2024, 3


@dataclasses.dataclass
class ParityResult:
    decisions: int = 0
    obs_mismatches: int = 0  # act_features.observation != state.observation
    greedy_mismatches: int = 0
    sampled_mismatches: int = 0
    probe_obs_mismatches: int = 0  # the module's observation != act_features.observation
    probe_feature_mismatches: int = 0  # the module's features != networks.features (bits)
    probe_feature_mismatches_not_log1p: int = 0  # ... outside the log1p-squashed observation
    max_feature_diff: float = 0.0
    probe_logit_bit_mismatches: int = 0  # decisions whose 9 logits are not all bit-equal
    max_logit_diff: float = 0.0
    max_fuel_ns: int = 0
    mean_fuel_ns: float = 0.0
    first_failures: list = dataclasses.field(default_factory=list)
    coverage: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["coverage"] = dict(self.coverage)
        return d


def expected_reply(message: dict, action: int, amount: int) -> dict:
    """The reply of a menu action (FOLD, CHECK_CALL: check when free else call, raise-to)."""
    if action == FOLD:
        return {"action": "fold"}
    if action == CHECK_CALL:
        return {"action": "check" if message["legal"]["check"] else "call"}
    return {"action": "raise", "amount": int(amount)}


def _step_fn(env, config, with_baseline):
    greedy_pol, sampled_pol = ppo.policy(config, greedy=True), ppo.policy(config)
    net = ppo.make_network(config)

    def one(params, state, bot_key, who, game_key):
        g = greedy_pol(params, state, game_key)
        s = sampled_pol(params, state, game_key)
        logits, _ = net.apply(params, state.observation)
        logits = masked_logits(logits, state.legal_action_mask)
        feats = features(state.observation, env.num_players)
        kind = who[state.current_player]
        # 2: random bot, 3: calling station (check/call: many post-flop decisions)
        other = jnp.where(kind == 3, CHECK_CALL, random_bot.act(env, state, bot_key))
        if with_baseline:  # the baseline bot compiles slowly: only when asked for
            other = jnp.where(kind == 1, baseline.act(env, state, bot_key), other)
        chosen = jnp.where(kind == 0, s, other)
        table = env.tournament(state).table
        _, amounts = env.menu.mask_and_amounts(table, tb.legal(table))
        return chosen, g, s, amounts, logits, feats

    @jax.jit
    def step(params, states, bot_keys, who, game_keys):
        out = jax.vmap(one, in_axes=(None, 0, 0, 0, 0))(params, states, bot_keys, who, game_keys)
        chosen = out[0]
        return (jax.vmap(env.step)(states, chosen),) + out[1:]

    return step


def _decisions(env, config, params, games, seed, limit, every, with_baseline):
    rng = np.random.default_rng(seed)
    # per game: the share of seats played by the policy, then baseline vs random
    share = np.linspace(0.3, 0.9, games)[:, None]
    draw = rng.random((games, env.num_players))
    other = rng.random(draw.shape)
    if with_baseline:  # baseline 50 %, random 25 %, calling station 25 % of the other seats
        others = np.where(other < 0.5, 1, np.where(other < 0.75, 2, 3))
    else:  # random 40 %, calling station 60 %
        others = np.where(other < 0.4, 2, 3)
    who = np.where(draw < share, 0, others)
    who = jnp.asarray(who.astype(np.int32))
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(seed), games))
    bot_keys = jax.random.split(jax.random.key(seed + 1), games)
    slot_key = jax.random.wrap_key_data(jnp.asarray(P.slot_seed(SERIES_SEED, SLOT), jnp.uint32))
    game_keys = jax.vmap(lambda t: jax.random.key_data(jax.random.fold_in(slot_key, t)))(
        jnp.arange(games))
    step = _step_fn(env, config, with_baseline)
    previous, logs = [None] * games, [None] * games
    count = seen = 0
    while not bool(states.terminated.all()):
        nxt, g, s, amounts, logits, feats = step(params, states, bot_keys, who, game_keys)
        host = jax.device_get(states)
        g, s, amounts = np.asarray(g), np.asarray(s), np.asarray(amounts)
        logits, feats = np.asarray(logits), np.asarray(feats)
        done = np.asarray(host.terminated)
        for i in range(games):
            if done[i]:
                continue
            state = jax.tree.map(lambda x: x[i], host)  # noqa: B023
            now, before = env.tournament(state), previous[i]
            if before is not None and int(before.hand) == int(now.hand):
                # the decision between the two states, as the series host logs it
                t = before.table
                street, seat = int(t.street), int(t.to_act)
                raised = int(now.street_raises[street, seat]) > int(before.street_raises[
                    street, seat])
                logs[i].action(t, tb.legal(t), now.table, tb.RAISE if raised else tb.CHECK_CALL)
            else:
                logs[i] = HandLog(now.table, int(now.hand))
            previous[i] = now
            seen += 1
            if seen % every:
                continue
            yield (i, state, list(logs[i].history), int(g[i]), int(s[i]), amounts[i], logits[i],
                   feats[i])
            count += 1
            if count >= limit:
                return
        states = nxt


def _words(text: str) -> np.ndarray:
    return np.array([int(text[k:k + 8], 16) for k in range(0, len(text), 8)],
                    np.uint32).view(np.float32)


def run_parity(checkpoint, greedy_wasm, sampled_wasm, *, env_id: str | None = None,
               games: int = 16, seed: int = 1, limit: int = 1000, every: int = 1,
               probe: bool = True, with_baseline: bool = False,
               max_failures: int = 5) -> ParityResult:
    """Ask both modules at up to ``limit`` decisions and count the disagreements.

    The seats the policy does not play are random bots and calling stations, and
    (``with_baseline``) baseline bots."""
    from holdemjax.series.wasm import load_policy

    params, config = ppo.load_checkpoint(checkpoint)
    env = holdemjax.make(env_id or config.env_id)
    fmt = P.format_info(env.id, env.format)
    start = P.encode(P.start_message(fmt, slot=SLOT, alias="Export",
                                     seed=P.slot_seed(SERIES_SEED, SLOT), variant="parity",
                                     tournaments=games))
    res = ParityResult()
    fuel = []
    mods = [load_policy(greedy_wasm, cache=False), load_policy(sampled_wasm, cache=False)]
    try:
        for mod in mods:
            assert mod.start(start).outcome == "no_reply"
        for t, state, hist, g, s, amounts, logits, feats in _decisions(
                env, config, params, games, seed, limit, every, with_baseline):
            message = P.act_message(env.decision(state), tournament=t, history=hist)
            res.decisions += 1
            obs = act_features.observation(message, fmt)
            if not np.array_equal(obs.view(np.uint32),
                                  np.asarray(state.observation, np.float32).view(np.uint32)):
                res.obs_mismatches += 1
                _fail(res, max_failures, "observation", message,
                      np.nonzero(obs != np.asarray(state.observation))[0].tolist())
            raw = P.encode(message)
            for mod, action, name in ((mods[0], g, "greedy"), (mods[1], s, "sampled")):
                want = expected_reply(message, action, amounts[action])
                result = mod.call(raw, P.DECISION_MAX_NS)
                got = json.loads(result.reply) if result.outcome == "ok" else result.outcome
                fuel.append(result.used_ns)
                if got != want:
                    setattr(res, f"{name}_mismatches", getattr(res, f"{name}_mismatches") + 1)
                    _fail(res, max_failures, name, message, {"want": want, "got": got})
            if probe:
                _probe(res, mods[0], message, obs, feats, logits, max_failures)
            _cover(res.coverage, message, expected_reply(message, g, amounts[g]))
    finally:
        for mod in mods:
            mod.close()
    res.max_fuel_ns = int(max(fuel, default=0))
    res.mean_fuel_ns = float(np.mean(fuel)) if fuel else 0.0
    return res


def _probe(res, mod, message, obs, feats, logits, max_failures):
    raw = P.encode(dict(message, probe=1))
    result = mod.call(raw, P.DECISION_MAX_NS)
    if result.outcome != "ok":
        _fail(res, max_failures, "probe", message, result.outcome)
        return
    got = json.loads(result.reply)
    w_obs, w_feat, w_logits = (_words(got[k]) for k in ("obs", "feat", "logits"))
    if not np.array_equal(w_obs.view(np.uint32), obs.view(np.uint32)):
        res.probe_obs_mismatches += 1
        _fail(res, max_failures, "probe obs", message, np.nonzero(w_obs != obs)[0].tolist())
    feats = np.asarray(feats, np.float32)
    if not np.array_equal(w_feat.view(np.uint32), feats.view(np.uint32)):
        res.probe_feature_mismatches += 1
        differ = np.nonzero(w_feat.view(np.uint32) != feats.view(np.uint32))[0]
        if (differ >= obs.size).any():
            res.probe_feature_mismatches_not_log1p += 1
            _fail(res, max_failures, "probe features", message, differ.tolist())
        res.max_feature_diff = max(res.max_feature_diff, float(np.abs(w_feat - feats).max()))
    legal = logits > -1e8
    if not np.array_equal(w_logits[legal].view(np.uint32), logits[legal].view(np.uint32)):
        res.probe_logit_bit_mismatches += 1
    if legal.any():
        res.max_logit_diff = max(res.max_logit_diff,
                                 float(np.abs(w_logits[legal] - logits[legal]).max()))


def _fail(res, max_failures, what, message, detail):
    if len(res.first_failures) < max_failures:
        res.first_failures.append({"what": what, "detail": detail,
                                   "message": P.encode(message).decode()})


def _cover(seen, m, reply):
    seen["states"] += 1
    seen[f"street {m['street']}"] += 1
    seen[f"reply {reply['action']}"] += 1
    seen["ante"] += m["blinds"][2] > 0
    seen["heads-up"] += sum(m["in_hand"]) == 2
    seen["an all-in seat"] += any(m["allin"])
    seen["dead button"] += not m["alive"][m["button"]]
    seen["raising closed"] += m["legal"]["raise"] is None
