"""Heads-up hands for the exploitability proxy: how much a best responder wins from a frozen
policy, in big blinds per 100 hands with a 95 % interval (issue 20, point 3; docs/training.md,
"Exploitability proxy (heads-up)").

Heads-up spots are "the last two players of a tournament" (`heads_up_starts`): ``sng-6``
tournaments are played by one generator in all six seats (the baseline bot by default, so every
row of a comparison meets the same spots; or the frozen policy itself) until exactly two players
are left, and the env state is kept at the first decision of the first heads-up hand. Tournaments
that end otherwise (two players busted in one hand, the hand cap) are dropped.

The unit of measure is one heads-up hand played from such a state to its end (`play_hand`, the
tournament is not continued): the responder's chip change in big blinds of the hand's level.
Every start is played twice on the same cards, the responder once in each of the two live seats
(so it plays both positions and both stacks equally); the per-start mean of the two is the
independent sample, ``bb/100 = 100 x mean`` and the interval ``1.96 x SE`` over starts
(`measure`).

Two responders: the exploiter PPO (`holdemjax.training.exploit_ppo`: a fresh network trained
only against the frozen policy in these hands) and a local best response in the spirit of LBR
(`holdemjax.training.lbr`); the command is `holdemjax.training.exploit`
(``python -m holdemjax.training.exploit CHECKPOINT --help``).

Every function here is pure JAX with fixed shapes (``lax.while_loop`` with a step cap, ``vmap``,
`holdemjax.sparse.sparse_cond` so that a batch runs a responder's work only on its rows); the
rules are the engine's (`SitAndGo.act_exact` / `advance`, `actions.Menu`), never restated.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax.poker.actions import CHECK_CALL
from holdemjax.sparse import sparse_cond
from holdemjax.training import panel
from holdemjax.validate import require_int

__all__ = ["ENV_ID", "GREEDY_SUFFIX", "MAX_HAND_STEPS", "OPPONENTS", "Opponent", "Agent",
           "make_env", "opponent", "heads_up_starts", "live_seats", "hand_step", "play_hand",
           "measure", "summary", "take"]

ENV_ID = "sng-6"
#: Decisions after which a heads-up hand is cut (counted as ``unfinished``; none in practice).
MAX_HAND_STEPS = 64
#: Decisions after which a tournament that has not reached heads-up is dropped.
MAX_TOURNAMENT_STEPS = 4000
#: The named opponents (besides checkpoint paths): the evaluation panel's bots
#: (`holdemjax.training.panel.OPPONENTS`: baseline, random, passive, allin, the three tiers) and
#: a calling station (always checks or calls).
OPPONENTS = (*panel.OPPONENTS, "call")
#: Keys the action probabilities of a bot are estimated with (`opponent`).
BOT_PROB_KEYS = 16
#: Probability floor mixed into every opponent's action probabilities (uniform over the legal
#: actions), so that no hypothetical hand is ruled out by a single decision.
PROB_FLOOR = 0.01
#: Appended to a checkpoint's name when it plays greedily (`opponent`).
GREEDY_SUFFIX = " (greedy)"


class Opponent(NamedTuple):
    """A frozen policy: ``act(state, key_data) -> menu action`` (the key is a per-hand
    ``uint32[2]``; PPO policies and bots address their draws by the decision's coordinates) and
    ``probs(state) -> [A] float32`` (its action probabilities, floored by `PROB_FLOOR`)."""

    name: str
    act: Callable
    probs: Callable


class Agent(NamedTuple):
    """A responder with parameters ``params`` (a pytree passed as data, so that new parameters
    do not compile anew; ``None`` for LBR): ``init(params, state, seat, key) -> carry`` at the
    hand's first decision, ``act(params, carry, state, key) -> (action, carry)`` at its own
    decisions and ``observe(params, carry, state, action) -> carry`` at the opponent's
    (``action`` is what the opponent plays in ``state``). The carry has fixed shapes (LBR's
    range; nothing for a network)."""

    init: Callable
    act: Callable
    observe: Callable


@functools.cache
def make_env():
    """The (cached) ``sng-6`` env every measure here plays."""
    return holdemjax.make(ENV_ID)


def _floored(env, probs: Callable) -> Callable:
    def out(state):
        mask = state.legal_action_mask
        uniform = mask / jnp.maximum(mask.sum(), 1)
        return (1 - PROB_FLOOR) * probs(state) + PROB_FLOOR * uniform

    return out


def _calling(env, state, key):
    """Always check or call (a calling station)."""
    return jnp.int32(CHECK_CALL)


def opponent(name: str, greedy: bool = False) -> Opponent:
    """The frozen policy ``name``: one of `OPPONENTS` or a PPO checkpoint path (its sampled
    policy, `ppo.policy`, and `ppo.action_probs`; ``greedy``: its most likely action, with all
    its probability there, as the panel's ``--greedy`` plays it; the name then ends in
    ``GREEDY_SUFFIX``). A bot's probabilities are the frequencies of its action over
    `BOT_PROB_KEYS` fixed keys (exact for a deterministic bot); ``greedy`` is an error for a bot
    (it has no network to take the most likely action of).

    One object per (name, greedy) in a process, however the arguments are passed: the
    programs that play it (`measure`, the exploiter) are cached by it and compile once."""
    return _opponent(name, bool(greedy))


@functools.cache
def _opponent(name: str, greedy: bool) -> Opponent:
    env = make_env()
    if greedy and name in OPPONENTS:
        raise ValueError(f"greedy play is for checkpoints; {name!r} is a bot")
    if name == "call":
        act = functools.partial(_calling, env)
    elif name in OPPONENTS:
        act = panel.opponent(name, env)
    else:
        if not (name.endswith(".msgpack") or "/" in name):
            raise ValueError(f"opponent {name!r} is neither one of {', '.join(OPPONENTS)} nor "
                             "a checkpoint path")
        from holdemjax.training import ppo

        params, config = ppo.load_checkpoint(name)
        if config.env_id != ENV_ID:
            raise ValueError(f"checkpoint {name} plays {config.env_id}, not {ENV_ID}")
        fn, probs = ppo.policy(config, greedy), ppo.action_probs(config, greedy)
        return Opponent(name + GREEDY_SUFFIX * greedy, lambda s, k: fn(params, s, k),
                        _floored(env, lambda s: probs(params, s)))
    keys = jax.random.key_data(jax.random.split(jax.random.key(0), BOT_PROB_KEYS))

    def bot_probs(state):
        acts = jax.vmap(lambda k: act(state, k))(keys)
        return jax.nn.one_hot(acts, env.num_actions).mean(0)

    return Opponent(name, act, _floored(env, bot_probs))


# ----------------------------------------------------------------------- heads-up start states
def _players_left(env, state):
    return env.tournament(state).alive.sum()


@functools.lru_cache(maxsize=8)
def _starts_program(env, generator: Callable, batch: int, max_steps: int):
    """Jitted ``keys -> (states, valid)``: ``batch`` tournaments played by ``generator`` in every
    seat until two players are left (or the game ends, or ``max_steps``)."""

    def run(key_data):
        keys = jax.random.wrap_key_data(key_data)
        states = jax.vmap(env.init)(keys)
        bot_keys = jax.vmap(lambda k: jax.random.key_data(jax.random.fold_in(k, 1)))(keys)

        def stop(s):
            return s.terminated | (jax.vmap(lambda x: _players_left(env, x))(s) <= 2)

        def cond(c):
            s, i = c
            return (~stop(s)).any() & (i < max_steps)

        def body(c):
            s, i = c
            actions = jax.vmap(generator)(s, bot_keys)
            nxt = jax.vmap(env.step)(s, actions)
            keep = stop(s)
            s = jax.tree.map(lambda a, b: jnp.where(
                keep.reshape(keep.shape + (1,) * (a.ndim - 1)), a, b), s, nxt)
            return s, i + 1

        states, _ = jax.lax.while_loop(cond, body, (states, jnp.int32(0)))
        left = jax.vmap(lambda x: _players_left(env, x))(states)
        return states, ~states.terminated & (left == 2)

    return jax.jit(run)


def heads_up_starts(generator: Callable, num: int, seed: int = 0, batch: int = 256,
                    max_steps: int = MAX_TOURNAMENT_STEPS):
    """``num`` env states (a batched ``SngState``) at the first decision of the first heads-up
    hand of ``sng-6`` tournaments played by ``generator(state, key_data) -> action`` in all six
    seats. Tournament ``i`` of batch ``b`` starts from ``fold_in(key(seed), b)`` split ``batch``
    ways; tournaments that do not reach exactly two players are skipped."""
    require_int("num", num, 1, what="an int >= 1")
    require_int("batch", batch, 1, what="an int >= 1")
    env = make_env()
    program = _starts_program(env, generator, batch, max_steps)
    got, count, b = [], 0, 0
    while count < num:
        if b > 8 * (num // batch + 1):
            raise ValueError(f"only {count} of {num} tournaments reached heads-up")
        keys = jax.random.split(jax.random.fold_in(jax.random.key(seed), b), batch)
        states, valid = program(jax.random.key_data(keys))
        idx = np.flatnonzero(np.asarray(valid))[: num - count]
        got.append(take(states, idx))
        count += idx.size
        b += 1
    return jax.tree.map(lambda *xs: jnp.concatenate(xs), *got)


def take(states, idx):
    """Rows ``idx`` of a batched pytree."""
    idx = jnp.asarray(idx, jnp.int32)
    return jax.tree.map(lambda x: x[idx], states)


def live_seats(env, state) -> jax.Array:
    """``# [2] int32`` the two seats still in the game (ascending)."""
    return jnp.nonzero(env.tournament(state).alive, size=2)[0].astype(jnp.int32)


# ---------------------------------------------------------------------------- one hand
def hand_step(env, state, action):
    """``(state, over)``: the menu ``action`` of the seat to act applied with the engine's exact
    action (`SitAndGo.act_exact`); the state is brought to the next decision (`advance`) unless
    the hand is over, where it is left at the hand's end (its stacks paid, the tournament not
    continued)."""
    t = env.tournament(state).table
    kind, amount = env.menu.engine_action(t, action)
    done = env.act_exact(state, kind, amount)
    over = env.tournament(done).table.hand_over
    return sparse_cond(~over, env.advance, done), over


def play_hand(env, agent: Agent, params, opp: Opponent, state, seat, key, opp_key,
              max_steps: int = MAX_HAND_STEPS):
    """``(chips # [N] int32, big_blind, over)``: one hand from ``state`` (at a decision of that
    hand) with ``agent`` (its ``params``) at ``seat`` and ``opp`` at the other seats, to the
    hand's end (or ``max_steps`` decisions: ``over`` False). ``chips``: each seat's stack at
    the end less its stack before the hand's blinds (`Table.start_stacks`); they sum to zero."""
    t0 = env.tournament(state).table
    k_init, k_loop = jax.random.split(key)
    carry = agent.init(params, state, seat, k_init)

    def cond(c):
        _, _, over, i, _ = c
        return ~over & (i < max_steps)

    def body(c):
        s, carry, _, i, k = c
        k, k_act = jax.random.split(k)
        mine = env.tournament(s).table.to_act == seat
        a_opp = opp.act(s, opp_key)

        def own(x):
            c_, _ = x
            a, c_ = agent.act(params, c_, s, k_act)
            return c_, jnp.asarray(a, jnp.int32)

        carry, a_own = sparse_cond(mine, own, (carry, a_opp))
        carry = sparse_cond(~mine, lambda c_: agent.observe(params, c_, s, a_opp), carry)
        s, over = hand_step(env, s, jnp.where(mine, a_own, a_opp))
        return s, carry, over, i + 1, k

    s, _, over, _, _ = jax.lax.while_loop(
        cond, body, (state, carry, jnp.bool_(False), jnp.int32(0), k_loop))
    chips = env.tournament(s).table.stacks - t0.start_stacks
    return chips, t0.big_blind, over


# --------------------------------------------------------------------------- measuring
@functools.lru_cache(maxsize=16)
def _measure_program(env, agent: Agent, opp: Opponent, max_steps: int):
    """Jitted ``(params, starts, key) -> (bb [S, 2], zero [S, 2], over [S, 2])``: each start played
    with the agent in each of its two live seats, same cards and opponent key."""

    def one(params, state, key):
        k_agent, k_opp = jax.random.split(key)
        opp_key = jax.random.key_data(k_opp)
        seats = live_seats(env, state)

        def at(seat):
            chips, bb, over = play_hand(env, agent, params, opp, state, seat, k_agent,
                                        opp_key, max_steps)
            return chips[seat] / bb, chips.sum(), over

        return jax.vmap(at)(seats)

    def run(params, starts, key):
        keys = jax.random.split(key, starts.terminated.shape[0])
        return jax.vmap(one, in_axes=(None, 0, 0))(params, starts, keys)

    return jax.jit(run)


def measure(agent: Agent, opp: Opponent, starts, params=None, seed: int = 0, chunk: int = 256,
            max_steps: int = MAX_HAND_STEPS, progress: Callable | None = None,
            per_start: bool = False) -> dict:
    """The responder ``agent`` (with ``params``) against ``opp`` on every start of ``starts``
    (batched ``SngState``), in both seats: the `summary` of the per-start means of the two
    hands' results in big blinds. ``progress(done, total)`` after each chunk of starts;
    ``per_start``: also the ``# [S, 2]`` results in bb under ``"per_start"`` (numpy)."""
    env = make_env()
    total = int(starts.terminated.shape[0])
    program = _measure_program(env, agent, opp, max_steps)
    bb, zero, over = [], [], []
    for i, lo in enumerate(range(0, total, chunk)):
        idx = np.arange(lo, min(lo + chunk, total))
        rows = take(starts, np.resize(idx, chunk))  # padded to one shape: one compile
        out = jax.device_get(program(params, rows, jax.random.fold_in(jax.random.key(seed),
                                                                      i)))
        bb.append(out[0][: idx.size]), zero.append(out[1][: idx.size])
        over.append(out[2][: idx.size])
        if progress is not None:
            progress(lo + idx.size, total)
    bb, zero, over = (np.concatenate(x) for x in (bb, zero, over))
    out = summary(bb, unfinished=int((~over).sum()), chips_sum=int(np.abs(zero).max()))
    return dict(out, per_start=bb) if per_start else out


def summary(bb_per_seat: np.ndarray, **extra) -> dict:
    """``bb_per_seat # [S, 2]`` (a start's two hands, in big blinds) as the reported figure:
    ``bb_per_100`` = 100 x the mean, ``ci95`` = 1.96 x 100 x the SE over starts (the mean of a
    start's two hands is the independent sample)."""
    per_start = np.asarray(bb_per_seat, np.float64).mean(axis=1)
    n = per_start.size
    se = per_start.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")
    return dict(bb_per_100=100 * float(per_start.mean()), ci95=1.96 * 100 * float(se),
                starts=n, hands=2 * n, per_seat_bb_per_100=(100 * np.asarray(
                    bb_per_seat, np.float64).mean(axis=0)).tolist(), **extra)


