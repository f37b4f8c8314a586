"""holdemjax: functional JAX game environments, six-max no-limit hold'em at their heart."""

from holdemjax.api import Env, State
from holdemjax.experimental import act_randomly, auto_reset
from holdemjax.registry import available_envs, make
from holdemjax.testing import api_test

__version__ = "0.1.0"

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
