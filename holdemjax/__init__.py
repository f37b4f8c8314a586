"""holdemjax: functional JAX game environments, six-max no-limit hold'em at their heart.

The face's names are loaded on first use (PEP 562), so that a host-side module (the duplicate
store) can be imported without loading JAX.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same names, statically: for type checkers and the API reference
    from holdemjax.api import Env, State
    from holdemjax.experimental import act_randomly, auto_reset
    from holdemjax.registry import available_envs, make
    from holdemjax.testing import api_test

__version__ = "0.1.0"

#: Each public name of the face -> the module that defines it.
_FACE = {
    "Env": "holdemjax.api",
    "State": "holdemjax.api",
    "make": "holdemjax.registry",
    "available_envs": "holdemjax.registry",
    "api_test": "holdemjax.testing",
    "auto_reset": "holdemjax.experimental",
    "act_randomly": "holdemjax.experimental",
}

__all__ = [
    "Env",
    "State",
    "make",
    "available_envs",
    "api_test",
    "auto_reset",
    "act_randomly",
    "__version__",
]


def __getattr__(name: str):
    if name not in _FACE:
        raise AttributeError(f"module 'holdemjax' has no attribute {name!r}")
    value = getattr(importlib.import_module(_FACE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FACE))
