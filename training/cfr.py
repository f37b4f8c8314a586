"""Counterfactual regret minimization (CFR, CFR+, discounted CFR) with exact exploitability.

`game_tree(env_id)` builds the tree by stepping `holdemjax.make(env_id)` from every deal (set
through the env's private fields) along every legal action, reading players, masks, terminations
and rewards from the env; `kuhn_poker` and `leduc_holdem` are supported (`ENV_IDS`). The env
draws who acts first; the tree fixes it to player 0, so player 0 is "player 1" of the literature
(Kuhn's value for it is -1/18, Leduc's about -0.0856, as in OpenSpiel). The env's own game is the
50/50 mixture of this tree and its mirror image, worth 0 to either seat.

A policy is a mapping infoset key -> probabilities over the env's action ids (0 on illegal ones),
an `[I, A]` array with rows in `infosets(env_id)` order, or "uniform". A key is
`"p{player}:{cards}:{history}"`: the actor, the ranks its observation shows (own card, then
Leduc's public card once visible) and one letter per action so far (Kuhn b = BET, p = PASS;
Leduc c = CALL, r = RAISE, f = FOLD): `"p1:Q:b"`, `"p0:KQ:rcr"`. Leduc's 288 infosets are
OpenSpiel's 936 with suits merged.

Each terminal history is stored as its path of (infoset, action) slots. A pass for player p
gathers the strategy along all paths, takes the opponent's reach (a product) and p's reach from
each step on (a reverse cumulative product), and sums the terminal values into counterfactual
action values with one `segment_sum`. Updates alternate between the players, as OpenSpiel's do;
iterations run in a `lax.fori_loop` under `jit`. Best responses run bottom-up over depth levels,
picking per infoset the action whose value summed over the infoset's nodes is largest.
See docs/cfr.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.training.cfr_tree import (
    ENV_IDS,
    GameTree,
    check_env,
    game_tree,
    infosets,
    policy_array,
    uniform_policy,
)
from holdemjax.validate import require_int

__all__ = ["ALGORITHMS", "ENV_IDS", "CFRResult", "GameTree", "Solver", "solve", "exploitability",
           "game_value", "game_tree", "infosets", "policy_array", "uniform_policy"]

ALGORITHMS = ("cfr", "cfr+", "dcfr")


# ------------------------------------------------------------------------ flat solver arrays
def _i32(mask):
    return np.flatnonzero(mask).astype(np.int32)


class _Arrays:
    """The tree as the gather/scatter tables the jitted kernels close over."""

    def __init__(self, t: GameTree):
        self.I, self.A = t.legal.shape
        self.dummy = self.I * self.A  # slot holding probability 1 (padding)
        n = len(t.parent)
        sa = np.where(t.player >= 0, t.infoset * self.A, 0)  # slot base of each node
        steps = [[] for _ in range(n)]  # (slot, player) per step of each node's path
        for v in range(n):
            if t.parent[v] >= 0:
                u = t.parent[v]
                steps[v] = steps[u] + [(sa[u] + t.action[v], t.player[u])]
        term = t.terminals
        self.D = D = max(1, int(t.depth.max()))
        self.path_sa = np.full((len(term), D), self.dummy, np.int32)  # [T, D]
        self.path_pl = np.full((len(term), D), -1, np.int32)  # [T, D]
        for j, v in enumerate(term):
            for k, (s, p) in enumerate(steps[v]):
                self.path_sa[j, k], self.path_pl[j, k] = s, p
        self.cu0 = (t.chance * t.utility)[term]  # [T] float64, cast to the kernel's dtype
        # Own reach of an infoset: the owner's steps on a node's path; equal over the infoset.
        self.own_sa = np.full((self.I, D), self.dummy, np.int32)  # [I, D]
        seen = set()
        for v in np.flatnonzero(t.player >= 0):
            own = [s for s, p in steps[v] if p == t.player[v]]
            row = np.array(own + [self.dummy] * (D - len(own)), np.int32)
            if t.infoset[v] not in seen:
                seen.add(t.infoset[v])
                self.own_sa[t.infoset[v]] = row
            assert (self.own_sa[t.infoset[v]] == row).all(), "imperfect recall"
        self.owner, self.legal = t.owner, t.legal
        # int32 indices throughout: int64 constants break tracing after an x64 context.
        self.term, self.roots, self.n = term.astype(np.int32), _i32(t.parent < 0), n
        # Best-response levels, deepest first: decision nodes, their children (n = a zero node)
        # and their infosets relative to the level's contiguous infoset range.
        self.levels = []
        for d in range(int(t.depth.max()), -1, -1):
            nodes = _i32((t.depth == d) & (t.player >= 0))
            if len(nodes):
                lo, hi = t.infoset[nodes].min(), t.infoset[nodes].max() + 1
                self.levels.append((nodes, np.where(t.children[nodes] < 0, n, t.children[nodes]),
                                    t.player[nodes], t.infoset[nodes] - lo, int(lo), int(hi)))

    def cu(self, sigma):
        """[T] chance x player 0's utility of each terminal, in sigma's dtype."""
        return self.cu0.astype(sigma.dtype)

    def gathered(self, sigma):
        """[T, D] strategy probability of each path step (1 on padding)."""
        return jnp.concatenate([sigma.reshape(-1), jnp.ones(1, sigma.dtype)])[self.path_sa]

    def action_values(self, sigma, p):
        """[I, A] counterfactual values for player p of each infoset action."""
        g = self.gathered(sigma)
        own = self.path_pl == p
        opp = jnp.prod(jnp.where(own, 1.0, g), axis=1)
        after = jnp.cumprod(jnp.where(own, g, 1.0)[:, ::-1], axis=1)[:, ::-1]  # steps k.. end
        after = jnp.concatenate([after[:, 1:], jnp.ones_like(after[:, :1])], axis=1)
        w = jnp.where(own, ((1 - 2 * p) * self.cu(sigma) * opp)[:, None] * after, 0.0)
        q = jax.ops.segment_sum(w.reshape(-1), self.path_sa.reshape(-1), self.dummy + 1)
        return q[:-1].reshape(self.I, self.A)

    def own_reach(self, sigma):
        """[I] each infoset owner's own probability of reaching it."""
        flat = jnp.concatenate([sigma.reshape(-1), jnp.ones(1, sigma.dtype)])
        return jnp.prod(flat[self.own_sa], axis=1)

    def value(self, sigma):
        """Player 0's expected reward under `sigma` for both players."""
        return jnp.sum(self.cu(sigma) * jnp.prod(self.gathered(sigma), axis=1))

    def best_response(self, sigma, p):
        """Player p's best-response value against the other player's part of `sigma`."""
        g = self.gathered(sigma)
        opp = jnp.prod(jnp.where(self.path_pl == p, 1.0, g), axis=1)
        w = jnp.zeros(self.n + 1, g.dtype).at[self.term].set((1 - 2 * p) * self.cu(sigma) * opp)
        for nodes, kids, pl, local, lo, hi in self.levels:
            wc = w[kids]  # [n, A] values weighted by chance and the opponent's reach
            mine = (pl == p)[:, None]
            q = jax.ops.segment_sum(jnp.where(mine, wc, 0.0), local, hi - lo)
            best = jnp.argmax(jnp.where(self.legal[lo:hi], q, -jnp.inf), axis=1)
            pick = jnp.take_along_axis(wc, best[local][:, None], axis=1)[:, 0]
            w = w.at[nodes].set(jnp.where(mine[:, 0], pick, wc.sum(1)))
        return w[self.roots].sum()


@functools.cache
def _arrays(env_id: str) -> _Arrays:
    return _Arrays(game_tree(env_id))


def _regret_matching(regret, legal):
    pos = jnp.maximum(regret, 0.0)
    total = pos.sum(1, keepdims=True)
    return jnp.where(total > 0, pos / jnp.where(total > 0, total, 1.0),
                     legal / legal.sum(1, keepdims=True))


def _precision(precision: str):
    """The dtype and a fresh context to trace and run in (x64 only inside a context)."""
    if precision == "float32":
        return jnp.float32, contextlib.nullcontext()
    if precision == "float64":
        return jnp.float64, jax.enable_x64(True)
    raise ValueError(f"unknown precision {precision!r}; known: float32, float64")


@functools.cache
def _evaluator(env_id: str, precision: str):
    """Jitted and warmed `sigma -> (exploitability, player 0's value)`; call in the context."""
    arr, (dtype, context) = _arrays(env_id), _precision(precision)

    def evaluate(sigma):
        return (arr.best_response(sigma, 0) + arr.best_response(sigma, 1)) / 2, arr.value(sigma)

    evaluate = jax.jit(evaluate)
    with context:
        jax.block_until_ready(evaluate(jnp.asarray(arr.legal / arr.legal.sum(1, keepdims=True),
                                                   dtype)))
    return evaluate


def _evaluate(env_id, policy, precision) -> tuple[float, float]:
    sigma = policy_array(env_id, policy)
    evaluate, (dtype, context) = _evaluator(check_env(env_id), precision), _precision(precision)
    with context:
        return tuple(float(x) for x in evaluate(jnp.asarray(sigma, dtype)))


def exploitability(env_id: str, policy, *, precision: str = "float32") -> float:
    """NashConv/2 of `policy` in chips: the mean of both players' best-response values.

    `policy` is a mapping from infoset key, an `[I, A]` array in `infosets(env_id)` order,
    "uniform", or a `CFRResult`. Exact on the full tree, in `precision` arithmetic.
    """
    return _evaluate(env_id, policy, precision)[0]


def game_value(env_id: str, policy, *, precision: str = "float32") -> float:
    """Player 0's (the first actor's) expected reward when both players follow `policy`."""
    return _evaluate(env_id, policy, precision)[1]


# ---------------------------------------------------------------------------- the solvers
def _update(algorithm, alpha, beta, gamma):
    """`(regret, avg, instant regret, reach-weighted strategy, t) -> (regret, avg)`."""
    if algorithm == "cfr":
        return lambda r, s, dr, ds, t: (r + dr, s + ds)
    if algorithm == "cfr+":  # regrets floored at 0, linear averaging
        return lambda r, s, dr, ds, t: (jnp.maximum(r + dr, 0.0), s + t * ds)

    def dcfr(r, s, dr, ds, t):
        r = r + dr
        pos, neg = t ** alpha / (t ** alpha + 1), t ** beta / (t ** beta + 1)
        return jnp.where(r > 0, r * pos, r * neg), (s + ds) * (t / (t + 1)) ** gamma

    return dcfr


@functools.cache
def _runner(env_id, algorithm, alternating, alpha, beta, gamma, precision):
    """Jitted and warmed `(regret, avg, t, n) -> (regret, avg, t)`: n more iterations."""
    arr, update = _arrays(env_id), _update(algorithm, alpha, beta, gamma)
    dtype, context = _precision(precision)
    rows = [(arr.owner == p)[:, None] for p in (0, 1)]

    def half(regret, avg, t, p, sigma=None):
        # Player p's regrets and average from the current strategy; other rows unchanged.
        legal = arr.legal.astype(dtype)
        sigma = _regret_matching(regret, legal) if sigma is None else sigma
        q = arr.action_values(sigma, p)
        dr = (q - (sigma * q).sum(1, keepdims=True)) * legal
        ds = arr.own_reach(sigma)[:, None] * sigma
        r2, s2 = update(regret, avg, dr, ds, t)
        return jnp.where(rows[p], r2, regret), jnp.where(rows[p], s2, avg)

    def iteration(_, carry):
        regret, avg, t = carry
        t = t + 1
        if alternating:
            regret, avg = half(*half(regret, avg, t, 0), t, 1)
        else:
            sigma = _regret_matching(regret, arr.legal.astype(dtype))
            r0, s0 = half(regret, avg, t, 0, sigma)
            r1, s1 = half(regret, avg, t, 1, sigma)
            regret, avg = jnp.where(rows[0], r0, r1), jnp.where(rows[0], s0, s1)
        return regret, avg, t

    run = jax.jit(lambda regret, avg, t, n: jax.lax.fori_loop(0, n, iteration, (regret, avg, t)))
    with context:
        z = jnp.zeros((arr.I, arr.A), dtype)
        jax.block_until_ready(run(z, z, jnp.zeros((), dtype), 0))  # compile now, not later
    return run


def _check_count(name, value, least):
    require_int(name, value, least, what=f"an int >= {least}")


class Solver:
    """One CFR-family run on one env; `solve` is the one-call front end.

    `algorithm`: "cfr" (regret matching, uniform average), "cfr+" (regret matching+, linear
    average) or "dcfr" (discounted CFR: positive regrets times t^alpha/(t^alpha+1), negative
    ones times t^beta/(t^beta+1), the average times (t/(t+1))^gamma each iteration).
    `alternating`: update player 0 then player 1 each iteration (default, as OpenSpiel), else
    both from the same strategy. `precision`: "float32" (default) or "float64" (traced and run
    inside `jax.enable_x64`). The first Solver of a configuration compiles (`compile_seconds`).
    """

    def __init__(self, env_id: str, algorithm: str = "cfr+", *, alternating: bool = True,
                 alpha: float | None = None, beta: float | None = None,
                 gamma: float | None = None, precision: str = "float32"):
        check_env(env_id)
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
        given = {k: v for k, v in dict(alpha=alpha, beta=beta, gamma=gamma).items()
                 if v is not None}
        if given and algorithm != "dcfr":
            raise ValueError(f"{', '.join(given)} only apply to algorithm 'dcfr'")
        params = {"alpha": 1.5, "beta": 0.0, "gamma": 2.0, **given}
        self.env_id, self.algorithm, self.precision = env_id, algorithm, precision
        dtype, context = _precision(precision)
        start = time.perf_counter()
        self._run = _runner(env_id, algorithm, bool(alternating), *map(float, params.values()),
                            precision)
        _evaluator(env_id, precision)
        self.compile_seconds = time.perf_counter() - start
        with context:
            z = jnp.zeros(game_tree(env_id).legal.shape, dtype)
            self._state = (z, z, jnp.zeros((), dtype))
        self.iteration = 0  #: iterations run so far

    def run(self, iterations: int) -> float:
        """Run `iterations` more iterations; returns their wall time in seconds."""
        _check_count("iterations", iterations, 0)
        with _precision(self.precision)[1]:
            start = time.perf_counter()
            self._state = jax.block_until_ready(self._run(*self._state, iterations))
            seconds = time.perf_counter() - start
        self.iteration += iterations
        return seconds

    def average_policy_array(self) -> np.ndarray:
        """[I, A] the average strategy, rows in `infosets(env_id)` order."""
        return policy_array(self.env_id, np.asarray(self._state[1], np.float64))

    def average_policy(self) -> dict[str, np.ndarray]:
        """The average strategy as infoset key -> probabilities over the env's action ids."""
        return dict(zip(infosets(self.env_id), self.average_policy_array()))

    def exploitability(self) -> float:
        """Exploitability (NashConv/2, chips) of the average strategy."""
        return exploitability(self.env_id, self.average_policy_array(), precision=self.precision)


@dataclasses.dataclass(frozen=True)
class CFRResult:
    """What `solve` returns.

    `average_policy`: infoset key -> probabilities over the env's action ids (the key format is
    in the module docstring); `exploitability`: NashConv/2 in chips; `game_value`: player 0's
    (the first actor's) expected reward when both play `average_policy`; `history`: `[K, 2]`
    rows (iteration, exploitability) every `history_every` iterations and at the end;
    `seconds`: wall time of the iterations, compilation and history excluded.
    """

    env_id: str
    algorithm: str
    iterations: int
    average_policy: dict[str, np.ndarray]
    exploitability: float
    game_value: float
    history: np.ndarray
    seconds: float


def solve(env_id: str, algorithm: str = "cfr+", iterations: int = 1000, *,
          history_every: int | None = None, **options) -> CFRResult:
    """Run `algorithm` for `iterations` iterations on `env_id`'s tree.

    `history_every` defaults to about a hundredth of the run; `options` go to `Solver`
    (`alternating`, `precision`, and `alpha`, `beta`, `gamma` for "dcfr").
    """
    _check_count("iterations", iterations, 1)
    every = max(1, iterations // 100) if history_every is None else history_every
    _check_count("history_every", every, 1)
    solver = Solver(env_id, algorithm, **options)
    history, seconds = [], 0.0
    while solver.iteration < iterations:
        seconds += solver.run(min(every, iterations - solver.iteration))
        history.append((solver.iteration, solver.exploitability()))
    policy = solver.average_policy_array()
    return CFRResult(env_id, algorithm, iterations, dict(zip(infosets(env_id), policy)),
                     history[-1][1], game_value(env_id, policy, precision=solver.precision),
                     np.array(history), seconds)
