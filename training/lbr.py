"""A local best response in the spirit of LBR (Lisý & Bowling 2017) for one heads-up hand, as an
`heads_up.Agent` (pure JAX, jit/vmap-able, fixed shapes).

The range. At the hand's first decision LBR draws ``particles`` hole-card pairs for the opponent
(all 1,326 when ``particles = 1326``: the exact range; fewer: a uniform sample of it), those that
share a card with LBR's own hole cards weighted 0. At every opponent decision each pair's weight
is multiplied by the probability the frozen policy gives the action it actually took, computed
on the same state with the pair as the opponent's hole cards (`with_cards`; the policy sees the
pair in its observation, a bot in its decision view). Pairs that share a card with the visible
board are left out when sampled.

The decision. At each of its decisions LBR draws ``samples`` (K) pairs from the weighted range;
for each pair the board cards not yet shown are drawn at random from the cards neither player
holds nor the board shows. Every candidate action of the menu is then evaluated on each of the
K deals by one rollout: the candidate is played, then LBR checks or calls to the end of the hand
(as in the paper) while the opponent plays its policy (its own sampled action, fresh key per
rollout); the rollout's value is LBR's chip change at the hand's end. LBR plays the legal action
with the largest mean over the K rollouts (``K x A`` rollouts per decision, A = 9 menu actions).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import table as tb
from holdemjax.poker.actions import CHECK_CALL
from holdemjax.training.heads_up import MAX_HAND_STEPS, Agent, Opponent, hand_step
from holdemjax.validate import require_int

__all__ = ["NUM_COMBOS", "LBRConfig", "Range", "combos", "with_cards", "rollout", "lbr_agent"]

NUM_COMBOS = 1326  # 52 choose 2


@dataclasses.dataclass(frozen=True)
class LBRConfig:
    """LBR's sizes (static)."""

    particles: int = 256  # opponent hole-card pairs held as its range (1326: all of them)
    samples: int = 16  # K: pairs drawn from the range per decision, one rollout per action each
    rollout_steps: int = MAX_HAND_STEPS  # decisions after which a rollout is cut

    def __post_init__(self):
        require_int("particles", self.particles, 1, NUM_COMBOS, what=f"an int in 1..{NUM_COMBOS}")
        require_int("samples", self.samples, 1, what="an int >= 1")
        require_int("rollout_steps", self.rollout_steps, 1, what="an int >= 1")


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Range:
    """LBR's carry through a hand: the opponent's possible hole cards and their weights."""

    pairs: jax.Array  # [M, 2] int32 hole-card pairs
    log_w: jax.Array  # [M] float32 log weight (-inf: ruled out)


@functools.cache
def combos() -> np.ndarray:
    """``# [1326, 2] int32`` every pair of distinct cards, low id first."""
    a, b = np.triu_indices(52, 1)
    return np.stack([a, b], 1).astype(np.int32)


def with_cards(env, state, seat, hole, board):
    """``state`` with ``hole # [2]`` as ``seat``'s hole cards and ``board # [5]`` as the board
    (the visible cards must be the same; `table.with_cards` recomputes the showdown strengths),
    the observation, mask and player to act brought up to date (`SitAndGo.advance`, which
    changes nothing else mid-hand)."""
    t = env.tournament(state)
    table = tb.with_cards(t.table, t.table.hole.at[seat].set(hole), board)
    return env.advance(env.with_tournament(state, t.replace(table=table)))


def _holds(cards, pairs):
    """``# [M] bool``: which ``pairs # [M, 2]`` share a card with ``cards # [k]`` (-1 = none)."""
    return (pairs[:, :, None] == cards[None, None, :]).any(axis=(1, 2))


def rollout(env, opp: Opponent, state, seat, action, key, max_steps: int = MAX_HAND_STEPS):
    """LBR's chip change at the hand's end (``# [] int32``, against `Table.start_stacks`) after
    ``seat`` plays menu ``action`` in ``state``, then checks or calls to the end while the other
    seat plays ``opp`` (key data drawn from ``key``)."""
    start = env.tournament(state).table.start_stacks[seat]
    opp_key = jax.random.key_data(key)
    s, over = hand_step(env, state, action)

    def cond(c):
        _, over, i = c
        return ~over & (i < max_steps)

    def body(c):
        s, _, i = c
        mine = env.tournament(s).table.to_act == seat
        a = jnp.where(mine, CHECK_CALL, opp.act(s, opp_key))
        s, over = hand_step(env, s, a)
        return s, over, i + 1

    s, _, _ = jax.lax.while_loop(cond, body, (s, over, jnp.int32(0)))
    return env.tournament(s).table.stacks[seat] - start


def _deal_rest(key, table, seat, opp_seat, opp_hole):
    """``# [5] int32`` the board: the visible cards kept, the others drawn uniformly from the
    cards not held by ``seat`` nor ``opp_hole`` nor on the visible board."""
    visible = jnp.arange(5) < table.revealed
    used = jnp.concatenate([table.hole[seat], opp_hole, jnp.where(visible, table.board, -1)])
    taken = (jnp.arange(52)[:, None] == used[None, :]).any(axis=1)
    u = jnp.where(taken, 2.0, jax.random.uniform(key, (52,)))
    fresh = jax.lax.top_k(-u, 5)[1].astype(jnp.int32)  # five distinct free cards, random order
    return jnp.where(visible, table.board, fresh)


def lbr_agent(env, opp: Opponent, config: LBRConfig = LBRConfig()) -> Agent:
    """The LBR responder against ``opp`` (see the module doc) as a `heads_up.Agent` (its
    ``params`` unused: ``None``)."""
    m, k, steps = config.particles, config.samples, config.rollout_steps
    all_pairs = combos()

    def init(params, state, seat, key):
        table = env.tournament(state).table
        if m == NUM_COMBOS:
            pairs = jnp.asarray(all_pairs)
        else:
            pairs = jnp.asarray(all_pairs)[jax.random.choice(key, NUM_COMBOS, (m,),
                                                             replace=False)]
        ruled_out = _holds(table.hole[seat], pairs)
        return Range(pairs, jnp.where(ruled_out, -jnp.inf, 0.0).astype(jnp.float32))

    def observe(params, rng: Range, state, action):
        table = env.tournament(state).table
        me = table.to_act

        def prob(pair):
            hyp = with_cards(env, state, me, pair, table.board)
            return opp.probs(hyp)[action]

        p = jax.vmap(prob)(rng.pairs)
        return Range(rng.pairs, rng.log_w + jnp.log(jnp.maximum(p, 1e-30)))

    def act(params, rng: Range, state, key):
        table = env.tournament(state).table
        seat = table.to_act
        opp_seat = jnp.argmax(table.in_hand & (jnp.arange(table.num_seats) != seat))
        shown = jnp.where(jnp.arange(5) < table.revealed, table.board, -1)
        log_w = jnp.where(_holds(shown, rng.pairs), -jnp.inf, rng.log_w)
        # A range emptied by the floor's underflow (cannot happen with PROB_FLOOR > 0) falls
        # back to every pair still possible.
        possible = jnp.where(_holds(jnp.concatenate([shown, table.hole[seat]]), rng.pairs),
                             -jnp.inf, 0.0)
        log_w = jnp.where(jnp.isfinite(log_w).any(), log_w, possible)
        k_pick, k_board, k_roll = jax.random.split(key, 3)
        picked = rng.pairs[jax.random.categorical(k_pick, log_w, shape=(k,))]  # [K, 2]
        boards = jax.vmap(lambda kk, h: _deal_rest(kk, table, seat, opp_seat, h))(
            jax.random.split(k_board, k), picked)
        deals = jax.vmap(lambda h, b: with_cards(env, state, opp_seat, h, b))(picked, boards)
        actions = jnp.arange(env.num_actions, dtype=jnp.int32)
        keys = jax.random.split(k_roll, (env.num_actions, k))

        def value(a, ks):  # mean over the K deals of candidate a
            return jax.vmap(lambda d, kk: rollout(env, opp, d, seat, a, kk, steps))(
                deals, ks).astype(jnp.float32).mean()

        values = jax.vmap(value)(actions, keys)
        values = jnp.where(state.legal_action_mask, values, -jnp.inf)
        return jnp.argmax(values).astype(jnp.int32), rng

    return Agent(init, act, observe)
