"""Host-side checks of user-given values, with errors that name the bad value.

One validator for the integer arguments of every room (formats, series, duplicate matches,
training configs): ``require_int("seed", seed, 0)`` returns ``int(seed)`` or raises
``ValueError("seed must be >= 0, got -1")``. A bool is not an integer here, although
Python says it is: ``hands=True`` is a mistake, not 1. `is_real` is the same test for the real
numbers (komi, pot fractions, learning rates): an int, float or Fraction, and not a bool.
`cli_error` is the one voice of the ``holdemjax`` command's errors.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np

__all__ = ["cli_error", "is_int", "is_real", "require_int"]


def is_int(value) -> bool:
    """``value`` is a Python or numpy integer, and not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_real(value) -> bool:
    """``value`` is a Python or numpy integer or float, or a Fraction, and not a bool (it may
    still be infinite or NaN: the caller says whether those are allowed)."""
    return (isinstance(value, (int, float, Fraction, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)))


def require_int(name: str, value, lo: int | None = None, hi: int | None = None, *,
                what: str | None = None) -> int:
    """``int(value)`` when it is an integer (`is_int`) in ``[lo, hi]`` (either bound may be
    None). Else ValueError: ``"<name> must be an integer, got 1.5"``, ``"<name> must be
    2..9, got 10"`` (or ``>= lo``, ``<= hi``); ``what`` words the requirement instead
    (``"<name> must be <what>, got <value!r>"``)."""
    if not is_int(value):
        raise ValueError(f"{name} must be {what or 'an integer'}, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bound = what or (f"{lo}..{hi}" if lo is not None and hi is not None
                         else f">= {lo}" if lo is not None else f"<= {hi}")
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return int(value)


def cli_error(command: str, what: str) -> int:
    """Print a ``holdemjax`` command's error as one line on stderr, ``holdemjax COMMAND: WHAT``
    (WHAT names the bad value; ``holdemjax: WHAT`` with no command), and return the exit
    status of an error, 2."""
    print(f"{f'holdemjax {command}'.strip()}: {what}", file=sys.stderr, flush=True)
    return 2
