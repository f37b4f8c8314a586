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
Compile time is measured apart from run time.
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import platform
import random
import shlex
import statistics
import subprocess
import sys
import time
from typing import Callable, Iterable, Sequence

import jax

from holdemjax import threefry
from holdemjax.experimental import act_randomly, auto_reset

__all__ = [
    "Side", "Cell", "Comparison", "JaxEnvSide", "OpenSpielSide", "interleave", "compare",
    "machine", "versions", "write_results", "results_dir", "command_line", "Measurement",
    "measure", "bench_env", "bench_env_cells", "scan_length", "DEFAULT_BATCHES",
    "openspiel_game_string", "play_openspiel", "RAISE_SLOTS_MENU", "RAISE_SLOTS_KINDS",
    "target", "peer_of", "ratio", "openspiel_available",
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

    def cell(self) -> "Cell":
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


def _quantile(xs: Sequence[float], q: float) -> float:
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
        return _quantile(self.round_ratios, 0.25)

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
                "q3": _quantile(rr, 0.75), "min": min(rr, default=None),
                "max": max(rr, default=None), "goal": self.goal, "met": self.met}


def compare(key: str, ours: Cell, peer: Cell, goal: float | None = None) -> Comparison:
    return Comparison(key, ours, peer, goal)


def target(key: str, cell: Cell, goal: float) -> dict:
    """An absolute goal (e.g. evals/s): met when the median and the lower quartile of the
    window rates clear it."""
    q1 = _quantile(cell.rates, 0.25)
    return {"key": key, "side": cell.side, "unit": cell.unit, "value": cell.median, "q1": q1,
            "goal": goal, "met": bool(cell.median >= goal and q1 >= goal)}


# ------------------------------------------------------------------------------- results
def results_dir() -> pathlib.Path:
    """``benchmarks/results`` of the checkout this package runs from (or of the working
    directory when the package is installed elsewhere)."""
    root = pathlib.Path(__file__).resolve().parents[1]
    if not (root / "benchmarks").is_dir():
        root = pathlib.Path.cwd()
    return root / "benchmarks" / "results"


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that produced a result, as a user would type it."""
    argv = list(sys.argv if argv is None else argv)
    if argv and argv[0].endswith(".py"):
        root = pathlib.Path(__file__).resolve().parents[1]
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
    root = pathlib.Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        if head:
            out["holdemjax_commit"] = head
    except (OSError, subprocess.SubprocessError):
        pass
    return out


def write_results(name: str, *, title: str, cells: Sequence[Cell],
                  comparisons: Sequence[Comparison] = (), params: dict | None = None,
                  notes: Sequence[str] = (), command: str | None = None,
                  targets: Sequence[dict] = (), out_dir: str | os.PathLike | None = None,
                  load_before=None, extra: dict | None = None) -> pathlib.Path:
    """Write ``<out_dir or results_dir()>/<name>.json`` and return its path."""
    out = pathlib.Path(out_dir) if out_dir is not None else results_dir()
    out.mkdir(parents=True, exist_ok=True)
    mach = machine()
    if load_before is not None:
        mach["load_average_before"] = [round(x, 2) for x in load_before]
    doc = {
        "name": name, "title": title,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command or command_line(), "machine": mach, "versions": versions(),
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


# ----------------------------------------------------------------------------- JAX envs
def scan_length(batch: int) -> int:
    """Moves per compiled call: long scans at small batches, short ones at large."""
    return int(max(8, min(256, 65536 // batch)))


def _runner(init: Callable, step: Callable, batch: int, length: int):
    step = auto_reset(step, init)

    def play(state, key):
        def body(state, k):
            # jax.random.split, bit for bit, with the hash unrolled (holdemjax.threefry): what
            # a user writing jax.random.split gets, at a cost that does not drown the step.
            k_act, k_step = threefry.split(k)
            action = act_randomly(k_act, state.legal_action_mask)
            state = jax.vmap(step)(state, action, threefry.split(k_step, batch))
            return state, state.terminated.sum()

        state, ended = jax.lax.scan(body, state, threefry.split(key, length))
        return state, ended.sum()

    return jax.jit(jax.vmap(init)), jax.jit(play)


class JaxEnvSide(Side):
    """Random play of one env at one batch size: ``jit(scan(vmap(auto_reset(step))))``."""

    unit = "steps/s"

    def __init__(self, who: str, env_id: str, init, step, batch: int, key_fn=jax.random.key):
        super().__init__()
        self.name, self.env_id, self.batch = who, env_id, batch
        self.length = scan_length(batch)
        init_b, play = _runner(init, step, batch, self.length)
        self.key = key_fn(0)
        self.state = init_b(jax.random.split(self.key, batch))
        t0 = time.perf_counter()
        self.play = play.lower(self.state, self.key).compile()
        self.compile_s = time.perf_counter() - t0
        self.calls = 0
        self.info = {"env": env_id, "batch": batch, "scan_length": self.length}

    def _run(self, seconds: float) -> dict:
        calls, episodes, t0 = 0, 0, time.perf_counter()
        while True:
            self.key = jax.random.fold_in(self.key, self.calls)
            self.state, ended = self.play(self.state, self.key)
            self.calls += 1
            calls += 1
            episodes += int(ended)  # blocks on the result
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        return {"count": calls * self.length * self.batch, "episodes": episodes,
                "seconds": elapsed}


# ----------------------------------------------------------------------------- OpenSpiel
def openspiel_game_string(num_players: int = 6, stack: int = 1500, blinds=(10, 20)) -> str:
    """OpenSpiel `universal_poker` no-limit hold'em, full game (one action per raise-to)."""
    blind = " ".join(str(b) for b in list(blinds) + [0] * (num_players - 2))
    first = "3" if num_players > 2 else "1"
    return (f"universal_poker(betting=nolimit,numPlayers={num_players},numRounds=4,"
            f"blind={blind},firstPlayer={first} 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,"
            f"numBoardCards=0 3 1 1,stack={' '.join([str(stack)] * num_players)},"
            "bettingAbstraction=fullgame)")


_CHANCE = -1  # pyspiel.PlayerId.CHANCE; other negative ids: terminal (or simultaneous)


def play_openspiel(new_state: Callable, state, decisions: int, rand: Callable[[], float],
                   raise_slots: int) -> tuple[object, int]:
    """Play `decisions` decisions of random hands from `state`; returns (state, hands ended).

    The policy draws uniformly among fold (when legal), check/call and `raise_slots` raise
    slots (when raising is legal), and a raise slot plays a uniformly drawn legal raise-to;
    chance nodes draw a uniform legal outcome. O(1) Python per decision, whatever the stacks:
    one `legal_actions()` call, its length, two indexings, one `apply_action`. In the full game
    the legal actions are ``[0 (fold, when facing a bet), 1 (check/call), raise-to amounts
    from the minimum to all-in]``.
    """
    hands = 0
    while decisions > 0:
        player = state.current_player()
        if player >= 0:
            legal = state.legal_actions()
            first_raise = 2 if legal[0] == 0 else 1  # fold is offered only facing a bet
            raises = len(legal) - first_raise
            slot = int(rand() * (first_raise + (raise_slots if raises > 0 else 0)))
            state.apply_action(legal[slot] if slot < first_raise
                               else legal[first_raise + int(rand() * raises)])
            decisions -= 1
        elif player == _CHANCE:
            legal = state.legal_actions()
            state.apply_action(legal[int(rand() * len(legal))])
        else:  # terminal
            state = new_state()
            hands += 1
    return state, hands


class OpenSpielSide(Side):
    """OpenSpiel's `universal_poker` full game, one hand at a time, `play_openspiel` policy."""

    name = "open_spiel"
    unit = "decisions/s"
    chunk = 256  # decisions between clock reads

    def __init__(self, game_string: str, raise_slots: int = RAISE_SLOTS_MENU, seed: int = 0):
        super().__init__()
        import pyspiel

        self.game = pyspiel.load_game(game_string)
        self.state = self.game.new_initial_state()
        self.rand = random.Random(seed).random
        self.raise_slots = raise_slots
        self.info = {"game": game_string, "raise_slots": raise_slots}

    def _run(self, seconds: float) -> dict:
        decisions, hands, t0 = 0, 0, time.perf_counter()
        while True:
            self.state, h = play_openspiel(self.game.new_initial_state, self.state, self.chunk,
                                           self.rand, self.raise_slots)
            decisions += self.chunk
            hands += h
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        return {"count": decisions, "hands": hands, "seconds": elapsed}


def openspiel_available() -> bool:
    return importlib.util.find_spec("pyspiel") is not None


# ------------------------------------------------------------- env benchmark (CLI + script)
@dataclasses.dataclass(frozen=True)
class Measurement:
    """One side at one batch size (the CLI's row): median rates over the windows."""

    who: str  # "holdemjax", "pgx" or "open_spiel"
    env_id: str
    batch: int
    steps_per_s: float
    episodes_per_s: float
    compile_s: float
    run_s: float
    windows: int = 0


def _measurement(cell: Cell, env_id: str, batch: int) -> Measurement:
    episodes = "hands" if cell.side == "open_spiel" else "episodes"
    return Measurement(cell.side, env_id, batch, cell.median, cell.rate_of(episodes),
                       cell.compile_s or 0.0, sum(w["seconds"] for w in cell.windows),
                       len(cell.windows))


def measure(who: str, env_id: str, init, step, batch: int, seconds: float,
            key_fn=jax.random.key, windows: int = 5) -> Measurement:
    """Steps/s of one env at one batch size over about `seconds` of run time (median window)."""
    side = JaxEnvSide(who, env_id, init, step, batch, key_fn)
    interleave([side], seconds, windows)
    return _measurement(side.cell(), env_id, batch)


def _pgx_env(env_id: str):
    if importlib.util.find_spec("pgx") is None:
        return None
    import pgx

    if env_id not in pgx.available_envs():
        return None
    return pgx.make(env_id)


def _openspiel_game(env) -> str | None:
    fmt = getattr(env, "format", None)
    if fmt is None or not openspiel_available():
        return None
    return openspiel_game_string(fmt.num_seats, int(fmt.starting_stack),
                                 (int(fmt.small_blinds[0]), int(fmt.big_blinds[0])))


def bench_env_cells(env_id: str, batch: int, seconds: float, peer: bool = True,
                    windows: int = DEFAULT_WINDOWS, openspiel: bool = True) -> list[Cell]:
    """Ours and the peer (pgx at the same batch, or OpenSpiel for the hold'em tables unless
    not `openspiel`) at one batch size, in interleaved windows; `seconds` of run time per
    side."""
    from holdemjax.registry import make

    env = make(env_id)
    sides: list[Side] = [JaxEnvSide("holdemjax", env_id, env.init, env.step, batch)]
    if peer:
        penv = _pgx_env(env_id)
        game = _openspiel_game(env) if openspiel else None
        if penv is not None:
            sides.append(JaxEnvSide("pgx", env_id, penv.init, penv.step, batch,
                                    jax.random.PRNGKey))
        elif game is not None:
            spiel = OpenSpielSide(game, RAISE_SLOTS_MENU, seed=batch)
            spiel.info.update(env=env_id, batch=batch)
            sides.append(spiel)
    interleave(sides, seconds, windows)
    return [s.cell() for s in sides]


def bench_env(env_id: str, batches=DEFAULT_BATCHES, seconds: float = 2.0, peer: bool = True,
              on_result: Callable[[Measurement], None] | None = None,
              windows: int = 5) -> list[Measurement]:
    """Measure holdemjax's `env_id` and its peer at each batch size (see `bench_env_cells`)."""
    results = []
    for batch in batches:
        for cell in bench_env_cells(env_id, batch, seconds, peer, windows):
            m = _measurement(cell, env_id, batch)
            results.append(m)
            if on_result is not None:
                on_result(m)
    return results


def peer_of(results: list[Measurement], batch: int) -> Measurement | None:
    """The peer measurement ours at `batch` is compared with (measured in the same windows)."""
    for m in results:
        if m.who != "holdemjax" and m.batch == batch:
            return m
    return None


def ratio(results: list[Measurement], batch: int) -> float | None:
    """Our steps/s over the peer's at `batch` (ratio of the medians), when both were measured."""
    ours = next((m for m in results if m.who == "holdemjax" and m.batch == batch), None)
    peer = peer_of(results, batch)
    return ours.steps_per_s / peer.steps_per_s if ours and peer and peer.steps_per_s else None
