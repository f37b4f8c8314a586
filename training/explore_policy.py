"""The policies the pre-flop explorer reads, by name: the scripted bots of the panel, the
shipped trained policies (`holdemjax.training.baselines`), a PPO checkpoint file; a ``.wasm``
policy is refused (not yet supported: the host plays one decision at a time, docs/explore.md).

The reference bots with an exact distribution (`holdemjax.bots.POLICIES`: baseline, random) and
networks (their masked softmax, `ppo.action_probs`) are read exactly; the other bots return an
action and are sampled.
"""

from __future__ import annotations

import functools
import pathlib

from holdemjax.bots import POLICIES
from holdemjax.training import panel, ppo
from holdemjax.training.baselines import REGISTRY
from holdemjax.training.evaluate import make_env
from holdemjax.training.explore import ExploreError, ExplorePolicy
from holdemjax.training.ppo_config import CHECKPOINTS

__all__ = ["names", "load"]

ENV_ID = "sng-6"


def names() -> tuple[str, ...]:
    """The policies known by name (`holdemjax.training.baselines.REGISTRY`)."""
    return tuple(REGISTRY)


def load(name: str, num_keys: int = 32) -> ExplorePolicy:
    """The policy ``name``: a registered name, or the path of a checkpoint (``.msgpack``);
    `ExploreError` (one sentence) for anything else."""
    name = str(name)
    if name.endswith(".wasm"):
        raise ExploreError(f"{name}: a .wasm policy is not supported by explore yet (give a "
                           f"checkpoint or one of {', '.join(names())})")
    if name in REGISTRY and REGISTRY[name].checkpoint is not None:
        return _network(str(CHECKPOINTS / REGISTRY[name].checkpoint), name,
                        REGISTRY[name].description)
    if name in REGISTRY:
        return _scripted(name, num_keys)
    path = pathlib.Path(name)
    if name.endswith(".msgpack") or path.exists():
        if not path.is_file():
            raise ExploreError(f"{name}: no such checkpoint file")
        return _network(str(path.resolve()), path.name, f"the checkpoint {path.name}")
    raise ExploreError(f"unknown policy {name!r}: give a checkpoint file or one of "
                       f"{', '.join(names())}")


@functools.cache
def _scripted(name: str, num_keys: int) -> ExplorePolicy:
    """A bot of the panel: its exact distribution where it has one, else its action."""
    env = make_env(ENV_ID)
    description = REGISTRY[name].description
    if name in POLICIES:
        exact = POLICIES[name]
        return ExplorePolicy(name, env, lambda params, state, key: exact(env, state), 0, True,
                             description)
    act = panel.opponent(name, env)
    return ExplorePolicy(name, env, lambda params, state, key: act(state, key), 0, False,
                         description, num_keys)


@functools.cache
def _network(path: str, name: str, description: str) -> ExplorePolicy:
    """A checkpoint's masked softmax (sampling mode: the distribution it draws from)."""
    try:
        params, config = ppo.load_checkpoint(path)
    except (OSError, ValueError) as err:
        raise ExploreError(f"{name}: not a readable checkpoint ({err})") from err
    if config.env_id not in ("sng-6", "sng-6-turbo", "certify"):
        raise ExploreError(f"{name} plays {config.env_id}, not a sit & go the explorer shows")
    probs = ppo.action_probs(config)
    return ExplorePolicy(name, make_env(config.env_id),
                         lambda prm, state, key: probs(prm, state), params, True, description)
