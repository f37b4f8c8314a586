"""The header of a training-side JSON record: when and where it was made (`run_header`)."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys

import jax

import holdemjax

__all__ = ["run_header"]


def run_header() -> dict:
    """``date``, ``machine`` and ``versions`` of a training-side JSON record (this run's)."""
    return dict(date=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                machine=dict(uname=" ".join(platform.uname()), nproc=os.cpu_count(),
                             load_average=list(os.getloadavg()),
                             devices=[str(d) for d in jax.devices()]),
                versions=dict(python=sys.version.split()[0], jax=jax.__version__,
                              holdemjax=holdemjax.__version__))
