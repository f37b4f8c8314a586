"""Benchmarks: ours and a peer side by side in one process, measured the same way, kept as files.

The standards every benchmark here follows (docs/benchmarks.md says them to readers):

* **Each peer runs as its fastest honest user would run it**: O(1) host work per decision (no
  per-decision list building: `play_openspiel` picks from OpenSpiel's legal actions by index),
  the peer's batch or C entry point where it has one, and the policy shape of ours (fold /
  check-call / raise sizes, each raise a uniformly drawn legal amount).
* **Interleaved windows**: every side runs `windows` short windows, in turn (`interleave`), so a
  change of the machine's load hits both sides alike; the order rotates every round.
* **The same statistic on both sides**: the median of the per-window rates (`Cell.median`). A
  ratio is the ratio of the two medians; the spread of the per-round ratios (window i of ours
  over window i of the peer) is the noise band, and a goal counts as met only when its lower
  quartile clears the goal too (`compare`).
* **Results are files**: `write_results` stores date, machine, versions, command, every window
  and every ratio under ``benchmarks/results/<name>.json``; docs/benchmarks.md and the README's
  table are generated from those files (``benchmarks/make_benchmarks_doc.py``).

For the env benchmark both sides play random legal actions (`act_randomly`) through the same
reset wrapper (`holdemjax.auto_reset`) inside one compiled ``lax.scan`` of `scan_length(batch)`
moves per call: the figures include action sampling and resets, as pgx's own benchmarks do.
Compile time is measured apart from run time, and on its own (`holdemjax.bench.compile`): the
trace-and-lower and XLA compile times of each env's ``init`` and ``step``, every program new to
the process, with its kernel count, ours beside pgx's.
"""

from __future__ import annotations

from holdemjax.bench.compile import *  # noqa: F403 (idem)
from holdemjax.bench.compile import __all__ as _compile_all
from holdemjax.bench.core import *  # noqa: F403 (the package's face: the names of __all__)
from holdemjax.bench.core import __all__ as _core_all
from holdemjax.bench.envs import *  # noqa: F403 (idem)
from holdemjax.bench.envs import __all__ as _envs_all

__all__ = [*_core_all, *_envs_all, *_compile_all]
