"""Throughput of an env under `jit(vmap(scan(step)))`, ours and pgx's side by side.

For the hold'em table envs the peer is OpenSpiel's `universal_poker` full game with the same
seats, stacks and first blinds (one hand at a time, decisions/s), when `open_spiel` is installed.

Both sides play random legal actions (`act_randomly`) with auto-reset, inside one compiled
`lax.scan` of `scan_length(batch)` moves per call, so the figures include action sampling and
resets, as pgx's own benchmarks do. Compile time is measured apart from run time. The two sides
run in alternating short windows within one process and each reports its best window, so a
load spike on this shared machine does not favour either side.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import time
from typing import Callable

import jax

from holdemjax.experimental import act_randomly, auto_reset

__all__ = ["Measurement", "measure", "bench_env", "scan_length", "DEFAULT_BATCHES"]

DEFAULT_BATCHES = (1, 64, 1024, 4096)


@dataclasses.dataclass(frozen=True)
class Measurement:
    who: str  # "holdemjax" or "pgx"
    env_id: str
    batch: int
    steps_per_s: float
    episodes_per_s: float
    compile_s: float
    run_s: float


def scan_length(batch: int) -> int:
    """Moves per compiled call: long scans at small batches, short ones at large."""
    return int(max(8, min(256, 65536 // batch)))


def _runner(init: Callable, step: Callable, batch: int, length: int):
    step = auto_reset(step, init)

    def play(state, key):
        def body(state, k):
            k_act, k_step = jax.random.split(k)
            action = act_randomly(k_act, state.legal_action_mask)
            state = jax.vmap(step)(state, action, jax.random.split(k_step, batch))
            return state, state.terminated.sum()

        state, ended = jax.lax.scan(body, state, jax.random.split(key, length))
        return state, ended.sum()

    return jax.jit(jax.vmap(init)), jax.jit(play)


class _Side:
    """One compiled runner: its state, key and counters."""

    def __init__(self, who: str, env_id: str, init, step, batch: int, key_fn):
        self.who, self.env_id, self.batch = who, env_id, batch
        self.length = scan_length(batch)
        init_b, play = _runner(init, step, batch, self.length)
        self.key = key_fn(0)
        self.state = init_b(jax.random.split(self.key, batch))
        t0 = time.perf_counter()
        self.play = play.lower(self.state, self.key).compile()
        self.compile_s = time.perf_counter() - t0
        self.calls = 0
        self.windows: list[tuple[float, float, float]] = []  # (steps, episodes, seconds)
        self._window(0.0)  # warm-up

    def _window(self, seconds: float) -> None:
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
        if seconds > 0:
            self.windows.append((calls * self.length * self.batch, episodes, elapsed))

    def result(self) -> Measurement:
        steps, episodes, secs = max(self.windows, key=lambda w: w[0] / w[2])
        return Measurement(self.who, self.env_id, self.batch, steps / secs, episodes / secs,
                           self.compile_s, sum(w[2] for w in self.windows))


def measure_sides(sides: list[_Side], seconds: float, windows: int = 5) -> list[Measurement]:
    """Alternate short timing windows between the sides (so both see the same machine load)
    and report each side's best window."""
    for _ in range(windows):
        for side in sides:
            side._window(seconds / windows)
    return [side.result() for side in sides]


def measure(who: str, env_id: str, init, step, batch: int, seconds: float,
            key_fn=jax.random.key) -> Measurement:
    """Steps/s of one env at one batch size over about `seconds` of run time."""
    return measure_sides([_Side(who, env_id, init, step, batch, key_fn)], seconds)[0]


def openspiel_game_string(num_players: int = 6, stack: int = 1500, blinds=(10, 20)) -> str:
    """OpenSpiel `universal_poker` no-limit hold'em, full game (one action per raise-to)."""
    blind = " ".join(str(b) for b in list(blinds) + [0] * (num_players - 2))
    first = "3" if num_players > 2 else "1"
    return (f"universal_poker(betting=nolimit,numPlayers={num_players},numRounds=4,"
            f"blind={blind},firstPlayer={first} 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,"
            f"numBoardCards=0 3 1 1,stack={' '.join([str(stack)] * num_players)},"
            "bettingAbstraction=fullgame)")


def openspiel_random_play(seconds: float, game_string: str, seed: int = 0) -> dict | None:
    """Random hands of OpenSpiel's universal_poker for about `seconds`; None if not installed.

    The policy picks uniformly among fold, check/call and "a raise" (then a raise-to uniform
    over the legal ones), as our bench's random play does over the menu.
    """
    if importlib.util.find_spec("pyspiel") is None:
        return None
    import random

    import pyspiel

    rng = random.Random(seed)
    game = pyspiel.load_game(game_string)
    hands = decisions = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            legal = state.legal_actions()
            groups = [[a] for a in legal if a in (0, 1)]  # fold, check/call
            raises = [a for a in legal if a >= 2]
            if raises:
                groups.append(raises)
            state.apply_action(rng.choice(rng.choice(groups)))
            decisions += 1
        hands += 1
    return dict(hands=hands, decisions=decisions, seconds=time.perf_counter() - t0)


def _openspiel_peer(env, env_id: str, seconds: float) -> Measurement | None:
    """OpenSpiel's full-game hold'em at the env's seats, stacks and first blinds."""
    fmt = getattr(env, "format", None)
    if fmt is None:
        return None
    game = openspiel_game_string(fmt.num_seats, int(fmt.starting_stack),
                                 (int(fmt.small_blinds[0]), int(fmt.big_blinds[0])))
    out = openspiel_random_play(seconds, game)
    if out is None:
        return None
    return Measurement("open_spiel", env_id, 1, out["decisions"] / out["seconds"],
                       out["hands"] / out["seconds"], 0.0, out["seconds"])


def _pgx_env(env_id: str):
    if importlib.util.find_spec("pgx") is None:
        return None
    import pgx

    if env_id not in pgx.available_envs():
        return None
    return pgx.make(env_id)


def bench_env(env_id: str, batches=DEFAULT_BATCHES, seconds: float = 2.0, peer: bool = True,
              on_result: Callable[[Measurement], None] | None = None) -> list[Measurement]:
    """Measure holdemjax's `env_id` (and pgx's, when installed and `peer`) at each batch size."""
    from holdemjax.registry import make

    env = make(env_id)
    penv = _pgx_env(env_id) if peer else None
    results = []
    spiel = _openspiel_peer(env, env_id, seconds) if peer else None
    if spiel is not None:  # one unbatched figure, the peer of every batch size
        results.append(spiel)
        if on_result is not None:
            on_result(spiel)
    for batch in batches:
        sides = [_Side("holdemjax", env_id, env.init, env.step, batch, jax.random.key)]
        if penv is not None:
            sides.append(_Side("pgx", env_id, penv.init, penv.step, batch, jax.random.PRNGKey))
        for m in measure_sides(sides, seconds * len(sides)):
            results.append(m)
            if on_result is not None:
                on_result(m)
    return results


def peer_of(results: list[Measurement], batch: int) -> Measurement | None:
    """The peer measurement ours at `batch` is compared with: pgx at the same batch, or
    OpenSpiel's single-game figure (episodes/s there are hands/s, not tournaments/s)."""
    for m in results:
        if (m.who == "pgx" and m.batch == batch) or m.who == "open_spiel":
            return m
    return None


def ratio(results: list[Measurement], batch: int) -> float | None:
    """Our steps/s over the peer's at `batch`, when both were measured."""
    ours = next((m for m in results if m.who == "holdemjax" and m.batch == batch), None)
    peer = peer_of(results, batch)
    return ours.steps_per_s / peer.steps_per_s if ours and peer else None
