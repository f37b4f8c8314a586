"""The env registry: ids -> classes in `holdemjax.envs`, imported lazily on first `make`."""

from __future__ import annotations

import importlib
import inspect

from holdemjax.api import Env

__all__ = ["make", "available_envs", "REGISTRY"]

#: env id -> ("module:Class", default options). Add an env here and nowhere else.
REGISTRY: dict[str, tuple[str, dict]] = {
    "kuhn_poker": ("holdemjax.envs.kuhn_poker:KuhnPoker", {}),
    "tic_tac_toe": ("holdemjax.envs.tic_tac_toe:TicTacToe", {}),
    "connect_four": ("holdemjax.envs.connect_four:ConnectFour", {}),
    "othello": ("holdemjax.envs.othello:Othello", {}),
    "hex": ("holdemjax.envs.hex:Hex", {}),
    "gardner_chess": ("holdemjax.envs.gardner_chess:GardnerChess", {}),
    "go_9x9": ("holdemjax.envs.go:Go", {"_size": 9}),
    "go_19x19": ("holdemjax.envs.go:Go", {"_size": 19}),
    "2048": ("holdemjax.envs.play2048:Play2048", {}),
    "leduc_holdem": ("holdemjax.envs.leduc_holdem:LeducHoldem", {}),
    "backgammon": ("holdemjax.envs.backgammon:Backgammon", {}),
    "sng-6": ("holdemjax.envs.sng:SitAndGo", {"_format": "sng-6"}),
    "sng-6-turbo": ("holdemjax.envs.sng:SitAndGo", {"_format": "sng-6-turbo"}),
    "certify": ("holdemjax.envs.sng:SitAndGo", {"_format": "certify"}),
    "ring-9": ("holdemjax.envs.ring:Ring", {"_format": "ring-9"}),
}


def available_envs() -> tuple[str, ...]:
    """Every id `make` accepts, in registry order."""
    return tuple(REGISTRY)


def _load(env_id: str) -> tuple[type[Env], dict]:
    target, defaults = REGISTRY[env_id]
    module_name, cls_name = target.split(":")
    return getattr(importlib.import_module(module_name), cls_name), defaults


def make(env_id: str, **options) -> Env:
    """The environment `env_id`, with keyword options of its constructor.

    Raises ValueError naming the bad id (and listing the valid ids) or the bad option (and
    listing the valid options of that env).
    """
    if not isinstance(env_id, str) or env_id not in REGISTRY:
        raise ValueError(
            f"unknown env id {env_id!r}; available: {', '.join(available_envs())}"
        )
    cls, defaults = _load(env_id)
    params = inspect.signature(cls.__init__).parameters
    # Options are the constructor's keyword-only parameters; `_private` ones are the registry's.
    valid = sorted(k for k in params
                   if params[k].kind == params[k].KEYWORD_ONLY and not k.startswith("_"))
    bad = sorted(set(options) - set(valid))
    if bad:
        raise ValueError(
            f"{env_id}: unknown option(s) {', '.join(map(repr, bad))}; "
            f"valid options: {', '.join(valid) if valid else 'none'}"
        )
    return cls(**{**defaults, **options})
