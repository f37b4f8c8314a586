"""The env benchmark (see `holdemjax.bench`): our JAX envs in one compiled scan, pgx, and
OpenSpiel's universal poker as the peers, measured the same way (`holdemjax.bench.core`)."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import os
import random
import time
from collections.abc import Callable

import jax
import numpy as np

from holdemjax import xla
from holdemjax.bench.compile import kernel_counts, make_pgx, pgx_peer_id
from holdemjax.bench.core import (
    DEFAULT_BATCHES,
    DEFAULT_WINDOWS,
    RAISE_SLOTS_MENU,
    Cell,
    Side,
    interleave,
)
from holdemjax.experimental import act_randomly, auto_reset

__all__ = [
    "JaxEnvSide", "OpenSpielSide", "EnvpoolSide", "ENVPOOL_IDS", "envpool_available",
    "Measurement", "measure", "bench_env", "bench_env_cells",
    "scan_length", "openspiel_game_string", "play_openspiel", "openspiel_available", "peer_of",
    "ratio",
]


# ----------------------------------------------------------------------------- JAX envs
def scan_length(batch: int) -> int:
    """Moves per compiled call: long scans at small batches, short ones at large."""
    return int(max(8, min(256, 65536 // batch)))


def _runner(init: Callable, step: Callable, batch: int, length: int):
    step = auto_reset(step, init)

    def play(state, key):
        def body(state, k):
            # jax.random.split, bit for bit, with the hash unrolled (holdemjax.xla): what
            # a user writing jax.random.split gets, at a cost that does not drown the step.
            k_act, k_step = xla.split(k)
            action = act_randomly(k_act, state.legal_action_mask)
            state = jax.vmap(step)(state, action, xla.split(k_step, batch))
            return state, state.terminated.sum()

        state, ended = jax.lax.scan(body, state, xla.split(key, length))
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
        # The kernels of the compiled play program (its scan body is one step of every row,
        # with the reset and the action draw): what an accelerator launches per step.
        fusions, whiles = kernel_counts(self.play.as_text() or "")
        self.info = {"env": env_id, "batch": batch, "scan_length": self.length,
                     "fusions": fusions, "whiles": whiles}

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


# ----------------------------------------------------------------------------- envpool
#: holdemjax env id -> envpool's C++ port of the same pgx game (envpool >= 1.2), its options.
ENVPOOL_IDS = {
    "tic_tac_toe": ("TicTacToe-v1", {}), "connect_four": ("ConnectFour-v1", {}),
    "hex": ("Hex-v1", {}), "othello": ("Othello-v1", {}), "kuhn_poker": ("KuhnPoker-v1", {}),
    "leduc_holdem": ("LeducHoldem-v1", {}), "2048": ("Play2048-v1", {}),
    "backgammon": ("Backgammon-v1", {}), "gardner_chess": ("GardnerChess-v1", {}),
    "go_9x9": ("Go9x9-v1", {"rules": "pgx"}), "go_19x19": ("Go19x19-v1", {"rules": "pgx"}),
}


def envpool_available() -> bool:
    return importlib.util.find_spec("envpool") is not None


class EnvpoolSide(Side):
    """envpool's C++ port of a pgx game, as its fastest honest user runs it: one synchronous
    batch of ``batch`` envs stepped together on every core (``num_threads`` = the CPU count),
    its own auto-reset, the same random policy as ours (uniform over the legal actions, drawn
    with numpy in one vectorized call per batch)."""

    unit = "steps/s"

    def __init__(self, env_id: str, batch: int, seed: int = 0):
        super().__init__()
        import envpool

        task, options = ENVPOOL_IDS[env_id]
        self.name, self.batch = "envpool", batch
        t0 = time.perf_counter()
        self.env = envpool.make(task, env_type="gymnasium", num_envs=batch, batch_size=batch,
                                num_threads=os.cpu_count() or 1, seed=seed, **options)
        _, self.info_ = self.env.reset()
        self.compile_s = time.perf_counter() - t0  # (building the pool: no compile)
        self.rng = np.random.default_rng(seed)
        self.info = {"env": env_id, "batch": batch, "task": task,
                     "threads": os.cpu_count() or 1,
                     "version": importlib.metadata.version("envpool")}

    def _run(self, seconds: float) -> dict:
        calls, episodes, t0 = 0, 0, time.perf_counter()
        while True:
            mask = self.info_["legal_action_mask"]
            pick = np.where(mask, self.rng.random(mask.shape), -1.0).argmax(axis=1)
            _, _, terminated, truncated, self.info_ = self.env.step(pick,
                                                                     self.info_["env_id"])
            calls += 1
            episodes += int((terminated | truncated).sum())
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        return {"count": calls * self.batch, "episodes": episodes, "seconds": elapsed}


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
    """pgx's own game of that id, or None (no pgx, or a game pgx lacks)."""
    return make_pgx(env_id) if pgx_peer_id(env_id) == env_id else None


def _openspiel_game(env) -> str | None:
    fmt = getattr(env, "format", None)
    if fmt is None or not openspiel_available():
        return None
    return openspiel_game_string(fmt.num_seats, int(fmt.starting_stack),
                                 (int(fmt.small_blinds[0]), int(fmt.big_blinds[0])))


def bench_env_cells(env_id: str, batch: int, seconds: float, peer: bool = True,
                    windows: int = DEFAULT_WINDOWS, openspiel: bool = True,
                    envpool: bool = False) -> list[Cell]:
    """Ours and the peer (pgx at the same batch, or OpenSpiel for the hold'em tables unless
    not `openspiel`) at one batch size, in interleaved windows; `seconds` of run time per
    side. With `envpool` (where installed and the game has a port), envpool's side last."""
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
    if envpool and env_id in ENVPOOL_IDS and envpool_available():
        sides.append(EnvpoolSide(env_id, batch, seed=batch))
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
