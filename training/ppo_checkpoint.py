"""PPO checkpoints (one msgpack file: params, config, info) and the policies of a trained
network. Part of `holdemjax.training.ppo`, which re-exports them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib
from typing import Any

import flax.serialization
import jax
import jax.numpy as jnp

from holdemjax.bots.random_bot import coordinate_key, coordinates
from holdemjax.poker.tournament import player_scores
from holdemjax.training.networks import masked_logits
from holdemjax.training.ppo_config import (
    CHECKPOINT_FORMAT,
    Config,
    make_env,
    make_network,
    potential,
)

__all__ = ["STATE_FORMAT", "save_checkpoint", "load_checkpoint", "checkpoint_info", "save_state",
           "load_state", "policy", "action_probs", "state_value"]

#: The resumable training state's file format (`save_state`).
STATE_FORMAT = "holdemjax-ppo-state-v1"


# --------------------------------------------------------------------------- checkpoints
def save_checkpoint(path, params, config: Config, **info) -> pathlib.Path:
    """Write ``params`` and ``config`` (plus JSON-able ``info``) to one msgpack file."""
    path = pathlib.Path(path)
    payload = {"format": CHECKPOINT_FORMAT, "config": json.dumps(config.to_dict()),
               "info": json.dumps(info),
               "params": flax.serialization.to_state_dict(jax.device_get(params))}
    return _write_atomic(path, flax.serialization.msgpack_serialize(payload))


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


def _write_atomic(path: pathlib.Path, data: bytes) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)  # never leave a half-written file under the real name
    return path


def save_state(path, leaves, config: Config, **info) -> pathlib.Path:
    """Write a whole training state (`Trainer.state_leaves`: parameters, optimizer, tables,
    pool, keys) with its ``config`` and JSON-able ``info`` (iteration, steps, ...) to one
    msgpack file, atomically: what a run resumes from (`load_state`)."""
    payload = {"format": STATE_FORMAT, "config": json.dumps(config.to_dict()),
               "info": json.dumps(info), "leaves": {str(i): x for i, x in enumerate(leaves)}}
    return _write_atomic(pathlib.Path(path), flax.serialization.msgpack_serialize(payload))


def load_state(path, config: Config) -> tuple[list, dict]:
    """``(leaves, info)`` of a file written by `save_state` for this same ``config``;
    `ValueError` naming the file if it is damaged, of another format or of another config."""
    path = pathlib.Path(path)
    try:
        payload = flax.serialization.msgpack_restore(path.read_bytes())
        ok = isinstance(payload, dict) and payload.get("format") == STATE_FORMAT
        saved = Config.from_dict(json.loads(payload["config"])) if ok else None
        info = json.loads(payload["info"]) if ok else None
    except FileNotFoundError:
        raise
    except Exception as err:  # msgpack and json raise several kinds on a damaged file
        raise ValueError(f"{path}: not a readable training state ({err})") from err
    if not ok:
        raise ValueError(f"{path}: not a {STATE_FORMAT} training state")
    # A run with a constant learning rate may go on past its planned iterations: nothing it
    # computes depends on their number, so it continues as a longer run would have.
    longer = (saved.lr_schedule == "constant" and config.iterations >= info["iteration"]
              and dataclasses.replace(saved, iterations=config.iterations) == config)
    if saved != config and not longer:
        diff = sorted(k for k, v in config.to_dict().items() if saved.to_dict()[k] != v)
        raise ValueError(f"{path}: saved for another config (differs in {', '.join(diff)})")
    leaves = payload["leaves"]
    return [leaves[str(i)] for i in range(len(leaves))], info


# ----------------------------------------------------------------------- trained policies
def _most_likely(logits) -> jax.Array:
    """The greedy action of masked ``logits`` (the first of equals): what ``greedy`` plays."""
    return jnp.argmax(logits).astype(jnp.int32)


@functools.cache
def policy(config: Config, greedy: bool = False):
    """``act(params, state, key) -> int32`` menu action of a network trained with ``config``.

    Sampled from the masked softmax (``greedy``: its most likely action). The draw is addressed
    by the decision's coordinates (`holdemjax.bots.coordinate_key`) like the reference bots',
    so ``key`` is a per-tournament key and lines that differ elsewhere do not shift it. One
    function per (config, greedy), so evaluating several checkpoints compiles once.
    """
    env = make_env(config)
    net = make_network(config, env)

    def act(params, state, key):
        logits, _ = net.apply(params, state.observation)
        logits = masked_logits(logits, state.legal_action_mask)
        if greedy:
            return _most_likely(logits)
        k = coordinate_key(key, *coordinates(env.decision(state)))
        return jax.random.categorical(k, logits).astype(jnp.int32)

    return act


def action_probs(config: Config, greedy: bool = False):
    """``probs(params, state) -> [A] float32``: the masked softmax of a trained network
    (``greedy``: all on its most likely action, the one `policy` with ``greedy`` plays)."""
    net = make_network(config)

    def probs(params, state):
        logits, _ = net.apply(params, state.observation)
        logits = masked_logits(logits, state.legal_action_mask)
        if greedy:
            return jax.nn.one_hot(_most_likely(logits), logits.shape[-1], dtype=jnp.float32)
        return jax.nn.softmax(logits)

    return probs


@functools.cache
def state_value(config: Config):
    """``value(params, state) -> # [N] float32`` by player id: the critic of a network trained
    with ``config`` as a value of whole states, each player's expected zero-sum score (the
    value `holdemjax.luck.chance_term` takes: docs/luck.md, "Other values").

    A player still in: the run's shaping potential (`ppo_config.potential`) plus the critic on
    that player's observation (it was trained on the return after the potential); a placed
    player: its score; a finished game: the scores. The critic has been trained on the
    observations of the player to act only: for the others it is a value like any other
    (the luck terms stay unbiased; they may take out less)."""
    env = make_env(config)
    net = make_network(config, env)
    n = env.num_players

    def value(params, state):
        obs = jax.vmap(lambda p: env.observe(state, p))(jnp.arange(n))
        _, critic = net.apply(params, obs)
        t = env.tournament(state)
        alive = player_scores(t.replace(score=t.alive.astype(jnp.float32))) > 0  # by player id
        scores = player_scores(t, zero_sum=True)  # a placed player's, or the game's at its end
        live = jnp.where(alive, potential(env, state, config.shaping) + critic, scores)
        return jnp.where(state.terminated | state.truncated, scores, live).astype(jnp.float32)

    return value
