"""Baselines: the trained and scripted `sng-6` policies a user loads as opponents (pgx's
baseline models), each with the committed results file that holds its panel figures.

``load(name)`` returns a `Baseline`. Every entry has ``act(key, state) -> # [] int32``, a
legal menu action for ``state.current_player``: pure, jit/vmap-able, what a loop that holds
env states calls. Network entries also have ``act_observation(key, observation, mask)`` and
``probs(observation, mask)``, pure functions of the observation and legal mask alone, their
params closed over (read once, at `load`). Scripted bots read the engine's decision view from
the state (`env.decision`), so they have ``act`` only.

Keys. ``act`` draws as the panel measured: the draw is addressed by the decision's coordinates
(`holdemjax.bots.coordinate_key`), so ``key`` may be one key per tournament or a fresh key per
step. ``act_observation`` has no coordinates: it draws from ``key`` itself, so pass a fresh key
per decision. Greedy network entries ignore the key.

One line per entry in `REGISTRY`; a new trained policy is one more line.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

import holdemjax
from holdemjax.training import panel, ppo

__all__ = ["Entry", "Baseline", "REGISTRY", "CHECKPOINTS", "names", "available", "load"]

CHECKPOINTS = ppo.CHECKPOINTS


def _panel(stem: str) -> str:
    """The repo-relative path of the committed panel record ``panel_<stem>.json``."""
    return f"benchmarks/results/panel_{stem}.json"


_PANEL = _panel("sng6_pushfold_greedy")  # the shipped policy's panel: the bots' line-ups too


@dataclasses.dataclass(frozen=True)
class Entry:
    """One registered baseline. ``checkpoint``: a file in `CHECKPOINTS` (a network entry) or
    ``None`` (a scripted bot of `holdemjax.training.panel.OPPONENTS`, by its name). ``results``:
    the repo-relative results file of its panel figures (a network's: measured as ``greedy``
    says), ``None`` where none is committed; ``results_other``: a network's figures in the
    other mode, if committed. A scripted bot's figures are its line-up in the shipped policy's
    panel: that policy against five copies of it."""

    description: str
    checkpoint: str | None = None
    results: str | None = None
    greedy: bool = True
    results_other: str | None = None


def _bot(description: str) -> Entry:
    """A scripted bot of the panel, its figures the shipped policy's panel."""
    return Entry(description, results=_PANEL)


REGISTRY: dict[str, Entry] = {
    "learned": Entry("the policy learned from scratch (training/learn.py, seed 0)", "sng6_learned.msgpack", "benchmarks/results/panel_learned_greedy_vs_sng6_pushfold.json"),  # noqa: E501
    "pushfold": Entry("the shipped push/fold PPO policy", "sng6_pushfold.msgpack", _PANEL),
    "example": Entry("the PPO example run", ppo.TRAINED_BOTS["example"], _panel("sng6_example_greedy"), True, _panel("sng6_example")),  # noqa: E501
    "baseline": _bot("the reference scripted bot (docs/baseline.md)"),
    "random": _bot("a uniform legal action"),
    "passive": _bot("checks when free, else folds (also in the policy's seat: 'versus')"),
    "allin": _bot("the menu's all-in when legal, else check/call"),
    "beginner": _bot("the beginner reference tier (docs/tiers.md)"),
    "intermediate": _bot("the intermediate reference tier (docs/tiers.md)"),
    "advanced": _bot("the advanced reference tier (docs/tiers.md)"),
}


@dataclasses.dataclass(frozen=True)
class Baseline:
    """A loaded baseline: ``act(key, state)`` for every kind; for ``kind == "network"`` also
    ``act_observation(key, observation, mask) -> # [] int32`` and ``probs(observation, mask)
    -> # [A] float32`` (greedy: all on the action it plays), else ``None``. ``greedy``: a
    network's mode (``None`` for scripted bots). ``results``: as in `Entry`, for this mode."""

    name: str
    description: str
    kind: str
    results: str | None
    act: Callable
    act_observation: Callable | None = None
    probs: Callable | None = None
    greedy: bool | None = None


def names() -> tuple[str, ...]:
    """The registered names, in registry order."""
    return tuple(REGISTRY)


available = names


def load(name: str, env=None, *, greedy: bool | None = None) -> Baseline:
    """The baseline ``name`` on ``env`` (default ``holdemjax.make("sng-6")``). ``greedy``
    (network entries only; default: the mode its ``results`` were measured in): play the most
    likely action instead of sampling. Loaded once per (name, env, greedy)."""
    if name not in REGISTRY:
        raise ValueError(f"unknown baseline {name!r}; known: {', '.join(REGISTRY)}")
    entry = REGISTRY[name]
    if entry.checkpoint is None:
        if greedy is not None:
            raise ValueError(f"baseline {name!r} is a scripted bot: it takes no greedy option")
        return _scripted(name, env)
    return _network(name, env, entry.greedy if greedy is None else bool(greedy))


@functools.cache
def _scripted(name: str, env) -> Baseline:
    """A scripted bot of the panel (`panel.opponent`), its arguments as ``(key, state)``."""
    play = panel.opponent(name, holdemjax.make("sng-6") if env is None else env)
    entry = REGISTRY[name]

    def act(key, state):
        return play(state, key)

    return Baseline(name, entry.description, "scripted", entry.results, act)


class _View(NamedTuple):
    """What `ppo.action_probs` reads of a state: the observation and the legal mask."""

    observation: jax.Array
    legal_action_mask: jax.Array


@functools.cache
def _network(name: str, env, greedy: bool) -> Baseline:
    """A checkpoint's policy (`ppo.policy`, `ppo.action_probs`), its params closed over."""
    entry = REGISTRY[name]
    params, config = ppo.load_checkpoint(CHECKPOINTS / entry.checkpoint)
    if env is not None and env.id != config.env_id:
        raise ValueError(f"baseline {name!r} plays {config.env_id}, not {env.id}")
    policy = ppo.policy(config, greedy)
    probs_of = ppo.action_probs(config, greedy)

    def act(key, state):
        return policy(params, state, key)

    def probs(observation, mask):
        return probs_of(params, _View(jnp.asarray(observation), jnp.asarray(mask)))

    def act_observation(key, observation, mask):
        p = probs(observation, mask)
        if greedy:
            return jnp.argmax(p).astype(jnp.int32)
        return jax.random.categorical(key, jnp.log(p)).astype(jnp.int32)

    results = entry.results if greedy == entry.greedy else entry.results_other
    return Baseline(name, entry.description, "network", results, act, act_observation, probs,
                    greedy)
