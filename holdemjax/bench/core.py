"""The measuring side of the benchmarks (see `holdemjax.bench`): sides and their interleaved
windows, cells, ratios against goals, and the results files with machine and versions."""

from __future__ import annotations

import dataclasses
import datetime
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence

import jax

__all__ = [
    "Side", "Cell", "Comparison", "interleave", "compare", "target", "machine", "versions",
    "header", "write_results", "results_dir", "command_line", "DEFAULT_BATCHES", "DEFAULT_WINDOWS",
    "RAISE_SLOTS_MENU", "RAISE_SLOTS_KINDS", "quantile",
]

DEFAULT_BATCHES = (1, 64, 1024, 4096)
DEFAULT_WINDOWS = 7
#: Raise entries of the sng menu (min-raise, five pot fractions, all-in): the menu-shaped
#: OpenSpiel policy draws one of these slots, then a uniform legal raise-to.
RAISE_SLOTS_MENU = 7
#: One raise slot: the rules-engine bench's fold / check-call / raise policy.
RAISE_SLOTS_KINDS = 1


# --------------------------------------------------------------------------------- sides
class Side:
    """Something measured in windows. Subclasses set `name`, `unit` and implement `_run`."""

    name: str = "?"
    unit: str = "steps/s"

    def __init__(self):
        self.windows: list[dict] = []  # one per timed window: count, seconds and extra counts
        self.compile_s: float | None = None
        self.info: dict = {}

    def _run(self, seconds: float) -> dict:
        """Work for about `seconds`; returns at least ``{"count": n, "seconds": s}``."""
        raise NotImplementedError

    def window(self, seconds: float) -> dict:
        cpu = time.process_time()
        w = self._run(seconds)
        # CPU time of the whole process (every thread) in the window: how much of the machine
        # the side got, for reading figures taken under load.
        w.setdefault("cpu_seconds", time.process_time() - cpu)
        self.windows.append(w)
        return w

    def cell(self) -> Cell:
        return Cell(self.name, self.unit, list(self.windows), self.compile_s, dict(self.info))


@dataclasses.dataclass
class Cell:
    """One side's windows and their median rate."""

    side: str
    unit: str
    windows: list[dict]
    compile_s: float | None = None
    info: dict = dataclasses.field(default_factory=dict)

    @property
    def rates(self) -> list[float]:
        return [w["count"] / w["seconds"] for w in self.windows if w["seconds"] > 0]

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else 0.0

    def rate_of(self, key: str) -> float:
        """Median rate of another counter of the windows (e.g. episodes)."""
        rates = [w.get(key, 0) / w["seconds"] for w in self.windows if w["seconds"] > 0]
        return statistics.median(rates) if rates else 0.0

    def to_json(self) -> dict:
        return {"side": self.side, "unit": self.unit, "median": self.median,
                "compile_s": self.compile_s, **self.info, "windows": self.windows}


def interleave(sides: Sequence[Side], seconds: float, windows: int = DEFAULT_WINDOWS,
               warmup: bool = True) -> None:
    """Give every side `windows` windows of ``seconds / windows``, in turn, the order rotating
    every round (so no side always runs right after another)."""
    if warmup:
        for side in sides:
            side._run(0.0)
    n = len(sides)
    for r in range(windows):
        for i in range(n):
            sides[(r + i) % n].window(seconds / windows)


def quantile(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``xs``, linear between order statistics (NaN for none)."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = q * (len(xs) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@dataclasses.dataclass
class Comparison:
    """Ours over a peer: the ratio of the medians and the spread of the per-round ratios."""

    key: str  # e.g. "kuhn_poker B=1024"
    ours: Cell
    peer: Cell
    goal: float | None = None

    @property
    def ratio(self) -> float:
        return self.ours.median / self.peer.median if self.peer.median else float("nan")

    @property
    def round_ratios(self) -> list[float]:
        return [a / b for a, b in zip(self.ours.rates, self.peer.rates) if b > 0]

    @property
    def q1(self) -> float:
        return quantile(self.round_ratios, 0.25)

    @property
    def met(self) -> bool | None:
        """None without a goal; else the ratio and the lower quartile of the rounds clear it."""
        if self.goal is None:
            return None
        return bool(self.ratio >= self.goal and self.q1 >= self.goal)

    def to_json(self) -> dict:
        rr = self.round_ratios
        return {"key": self.key, "ours": self.ours.side, "peer": self.peer.side,
                "unit": self.ours.unit, "ours_median": self.ours.median,
                "peer_median": self.peer.median, "ratio": self.ratio, "round_ratios": rr,
                "q1": self.q1,
                "q3": quantile(rr, 0.75), "min": min(rr, default=None),
                "max": max(rr, default=None), "goal": self.goal, "met": self.met}


def compare(key: str, ours: Cell, peer: Cell, goal: float | None = None) -> Comparison:
    return Comparison(key, ours, peer, goal)


def target(key: str, cell: Cell, goal: float) -> dict:
    """An absolute goal (e.g. evals/s): met when the median and the lower quartile of the
    window rates clear it."""
    q1 = quantile(cell.rates, 0.25)
    return {"key": key, "side": cell.side, "unit": cell.unit, "value": cell.median, "q1": q1,
            "goal": goal, "met": bool(cell.median >= goal and q1 >= goal)}


# ------------------------------------------------------------------------------- results
#: The checkout this package runs from (holdemjax/bench/core.py is two levels down).
_ROOT = pathlib.Path(__file__).resolve().parents[2]


def results_dir() -> pathlib.Path:
    """``benchmarks/results`` of the checkout this package runs from (or of the working
    directory when the package is installed elsewhere)."""
    root = _ROOT
    if not (root / "benchmarks").is_dir():
        root = pathlib.Path.cwd()
    return root / "benchmarks" / "results"


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that produced a result, as a user would type it."""
    argv = list(sys.argv if argv is None else argv)
    if argv and argv[0].endswith(".py"):
        root = _ROOT
        try:
            argv[0] = str(pathlib.Path(argv[0]).resolve().relative_to(root))
        except ValueError:
            pass
        argv = ["python"] + argv
    elif argv and argv[0].endswith("holdemjax"):
        argv[0] = "holdemjax"
    return shlex.join(argv)


def _cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """What the figures were measured on (no host name)."""
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        mem = None
    devices = jax.devices()
    return {"cpu": _cpu_model(), "cores": os.cpu_count(), "memory_gib": mem and round(mem, 1),
            "system": f"{platform.system()} {platform.machine()}",
            "device_kind": devices[0].device_kind, "platform": devices[0].platform,
            "devices": len(devices), "load_average": [round(x, 2) for x in os.getloadavg()]}


_PACKAGES = ("holdemjax", "jax", "jaxlib", "numpy", "pgx", "open_spiel", "pokerkit",
             "phevaluator", "eval7", "wasmtime", "flax", "optax")


def versions(packages: Iterable[str] = _PACKAGES) -> dict:
    out = {"python": platform.python_version()}
    for name in packages:
        try:
            out[name] = importlib.metadata.version(name.replace("_", "-"))
        except importlib.metadata.PackageNotFoundError:
            continue
    root = _ROOT
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        if head:
            out["holdemjax_commit"] = head
    except (OSError, subprocess.SubprocessError):
        pass
    return out


def header(name: str, title: str, *, command: str | None = None, load_before=None) -> dict:
    """The opening fields of every results file: name, title, date (UTC), the command, the
    machine (with ``load_before``, the load average when the run started) and the versions."""
    mach = machine()
    if load_before is not None:
        mach["load_average_before"] = [round(x, 2) for x in load_before]
    return {"name": name, "title": title,
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": command or command_line(), "machine": mach, "versions": versions()}


def write_results(name: str, *, title: str, cells: Sequence[Cell],
                  comparisons: Sequence[Comparison] = (), params: dict | None = None,
                  notes: Sequence[str] = (), command: str | None = None,
                  targets: Sequence[dict] = (), out_dir: str | os.PathLike | None = None,
                  load_before=None, extra: dict | None = None) -> pathlib.Path:
    """Write ``<out_dir or results_dir()>/<name>.json`` and return its path."""
    out = pathlib.Path(out_dir) if out_dir is not None else results_dir()
    out.mkdir(parents=True, exist_ok=True)
    doc = {
        **header(name, title, command=command, load_before=load_before),
        "statistic": "median of interleaved windows; ratio = ratio of the medians, goal met "
                     "when the ratio and the lower quartile of the per-round ratios clear it",
        "params": params or {}, "notes": list(notes),
        "cells": [c.to_json() for c in cells],
        "comparisons": [c.to_json() for c in comparisons],
        "targets": list(targets),
        **(extra or {}),
    }
    path = out / f"{name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path
