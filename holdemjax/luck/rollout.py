"""The luck of sit & go tournaments under a value that sees play (`holdemjax.luck`,
docs/luck.md): the rest of the hand played out by known policies.

The value of a hand at a moment where ``k`` board cards are known is the mean over the board's
completions of what the hand ends with when the players' policies play it out from there
(`rollout_value`: the stacks it ends with, valued as the tournament does; a rollout of
``policy(state, key)`` with a key of the luck's own, never the bots' draws). A chance event's
term is that value after the event less its value before it: with ``K`` completions drawn for
each (``samples``), both are unbiased estimates of the played-out value, and the value after
has mean, over the cards that could come, the value before (the tower property), so every term
has mean zero given the history before it. The completions are paired: sample ``j`` of both
sides orders the cards that may come by the same uniform keys, and the rollouts of both share
sample ``j``'s key (common random numbers: the terms are less noisy, their mean unchanged).

Events (rows of `EVENTS`): the deal of every hand whose first decision a step (or ``init``)
reaches: the value with the cards dealt less its mean over whole random deals (every seat
position's cards and the board); the board cards a decision brings out (every card of a flop and
of an all-in run-out, unlike the env's chance split, which names the first card only).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from holdemjax import xla
from holdemjax.luck.sng import DEAL_EVENT, EVENTS, _reveal_row
from holdemjax.poker import cards, tournament
from holdemjax.poker import table as poker_table
from holdemjax.poker.cards import NUM_CARDS
from holdemjax.sparse import sparse_cond
from holdemjax.validate import require_int

__all__ = ["Policy", "ROLLOUTS", "rollout_value", "settled_value", "rollout_step_luck",
           "rollout_first_luck", "games_rollout_first_luck", "games_rollout_step_luck"]

#: ``policy(state, key) -> int32`` menu action of the player to act (the line-up's known play).
Policy = Callable[[object, jax.Array], jax.Array]

#: Completions (each played out) per side of an event, the default: fewer leave the rollouts'
#: own noise in the terms (benchmarks/results/luck_learned.json has the standard errors by count)
ROLLOUTS = 32
_MAX_DECISIONS = 64  # a hand has far fewer; the rollout stops there whatever happens


def _settled(env, state) -> jax.Array:
    """``# [N]`` by player id: the value of a state at a hand's boundary as the tournament
    settles it: the places of seats out (their scores), ICM of the stacks the hand started with
    over the open places for the others, the scores once the game is over."""
    t = env.tournament(state)
    icm = tournament.open_places_icm(t.table.start_stacks, t.alive, t.format.payouts)
    value = jnp.where(t.alive & ~t.finished, icm, t.score)
    return value[t.seat_of].astype(jnp.float32)


def rollout_value(env, policy: Policy, state, key, hand=None) -> jax.Array:
    """``# [N] float32`` by player id: hand number ``hand`` (default: the one ``state`` is in)
    played out from ``state`` by ``policy`` (its draws from ``key``), valued at its end as the
    tournament settles it (the next hand's start stacks by ICM, places for the seats it busts,
    the scores if the game ends); a state past that hand is valued as it is."""
    hand = env.tournament(state).hand if hand is None else hand

    def going(carry):
        s, i = carry
        return (env.tournament(s).hand == hand) & ~(s.terminated | s.truncated) & (
            i < _MAX_DECISIONS)

    def step(carry):
        s, i = carry
        return env.step(s, policy(s, key)), i + 1

    end, _ = jax.lax.while_loop(going, step, (state, jnp.int32(0)))
    return _settled(env, end)


def settled_value(env, state) -> jax.Array:
    """``# [N] float32`` by player id: the value `rollout_value` gives the end of a hand
    (``state`` at the next hand's first decision or the game's end), for callers that play
    the hand out themselves (the explorer's drills batch their rollouts with other play)."""
    return _settled(env, state)


def _completions(table: poker_table.Table, visible, noise: jax.Array) -> jax.Array:
    """``# [K, 5]`` boards: the first ``visible`` cards of ``table``'s board kept, the rest the
    cards that may still come (`cards.unseen`) with the smallest of ``noise # [K, 52]``."""
    allowed = cards.unseen(table.hole, table.board, visible)
    order = jnp.argsort(jnp.where(allowed[None, :], noise, 2.0), axis=1)[:, :5]  # [K, 5]
    at = jnp.arange(5)
    fill = order[:, jnp.clip(at - visible, 0, 4)]
    return jnp.where(at[None, :] < visible, table.board[None, :], fill).astype(jnp.int32)


def _with_cards(env, state, hole, board):
    t = env.tournament(state)
    return env.with_tournament(state, t.replace(table=poker_table.with_cards(t.table, hole, board)))


def _difference(env, policy, states, keys, hand) -> jax.Array:
    """``# [N]``: the mean played-out value of the first half of ``states # [2K, ...]`` less
    that of the second (one batch of rollouts: one program), sample ``j`` of both halves
    played with ``keys[j]``."""
    keys = jnp.concatenate([keys, keys])
    values = jax.vmap(lambda s, k: rollout_value(env, policy, s, k, hand))(states, keys)
    half = keys.shape[0] // 2
    return values[:half].mean(axis=0) - values[half:].mean(axis=0)


def _reveal_term(env, policy, state, action, shown_after, key, samples: int) -> jax.Array:
    """The played-out value after the board cards ``action`` brings out less the value before
    (``samples`` paired completions each)."""
    t = env.tournament(state)
    noise = xla.uniform(jax.random.fold_in(key, 0), (samples, NUM_CARDS))
    keys = jax.random.split(jax.random.fold_in(key, 1), samples)
    hole = t.table.hole
    # The board is fixed at the deal: the cards the step shows are the table's next ones.
    shown = _completions(t.table, shown_after, noise)
    before = _completions(t.table, t.table.revealed, noise)

    boards = jnp.concatenate([shown, before])
    states = jax.vmap(lambda b: env.step(_with_cards(env, state, hole, b), action))(boards)
    return _difference(env, policy, states, keys, t.hand)


def _deal_term(env, policy, state, key, samples: int) -> jax.Array:
    """The played-out value of a hand at its first decision with the cards dealt less its mean
    over whole random deals (every seat position's two cards and the board). ``env.advance``
    brings a redealt state's observation up to date (at a decision it changes nothing else)."""
    t = env.tournament(state)
    n = t.table.hole.shape[0]
    noise = xla.uniform(jax.random.fold_in(key, 0), (samples, NUM_CARDS))
    keys = jax.random.split(jax.random.fold_in(key, 1), samples)
    holes = jnp.concatenate([jnp.broadcast_to(t.table.hole, (samples, n, 2)),  # as dealt
                             jnp.argsort(noise, axis=1)[:, :2 * n].reshape(samples, n, 2)])
    boards = jnp.concatenate([_completions(t.table, 0, noise),
                              jnp.argsort(noise, axis=1)[:, 2 * n:2 * n + 5]])  # whole deals
    states = jax.vmap(lambda h, b: env.advance(_with_cards(env, state, h, b)))(holes, boards)
    return _difference(env, policy, states, keys, t.hand)


def rollout_step_luck(env, policy: Policy, state, action, next_state, key,
                      samples: int = ROLLOUTS) -> jax.Array:
    """``# [5, N] float32`` by event (`EVENTS`) and player id: the luck of ``next_state =
    env.step(state, action)`` under the played-out value: the board cards the decision brings
    out (their street's row), and the deal of the next hand when the step reaches its first
    decision (the deal's row). ``key``: the game's and the step's own (independent of the
    cards and of the bots' draws). Zero for a finished game."""
    require_int("samples", samples, 1, what="an int >= 1")
    t, nt = env.tournament(state), env.tournament(next_state)
    live = ~(state.terminated | state.truncated)
    kind, amount = env.menu.engine_action(t.table, action)
    shown_after = poker_table.act(t.table, kind, amount).revealed
    reveals = live & (shown_after > t.table.revealed)
    deals = live & (nt.hand != t.hand) & ~(next_state.terminated | next_state.truncated)
    zeros = jnp.zeros((len(EVENTS), nt.num_seats), jnp.float32)
    luck = sparse_cond(reveals, lambda z: z.at[_reveal_row(t.table.revealed)].set(_reveal_term(
        env, policy, state, action, shown_after, jax.random.fold_in(key, 0), samples)), zeros)
    return sparse_cond(deals, lambda z: z.at[DEAL_EVENT].add(_deal_term(
        env, policy, next_state, jax.random.fold_in(key, 1), samples)), luck)


def rollout_first_luck(env, policy: Policy, state, key, samples: int = ROLLOUTS) -> jax.Array:
    """``# [5, N]``: the deal a game starts with (``state`` from ``env.init``), in the deal's
    row, under the played-out value."""
    require_int("samples", samples, 1, what="an int >= 1")
    zeros = jnp.zeros((len(EVENTS), env.num_players), jnp.float32)
    return zeros.at[DEAL_EVENT].set(_deal_term(env, policy, state, key, samples))


_ROLLOUT_KEY = 0x524F4C4C  # the rollouts' keys under a game's luck key: their own stream


def _game_key(key, step):
    return jax.random.fold_in(jax.random.fold_in(key, _ROLLOUT_KEY), step)


def _bound(policy, extra):
    return policy if extra is None else (lambda s, k: policy(s, k, extra))


def games_rollout_first_luck(env, policy, states, keys, samples: int = ROLLOUTS,
                             extra=None) -> jax.Array:
    """``# [G, 5, N]``: `rollout_first_luck` of a batch of games just started (a luck key
    each: the rollouts draw from ``fold_in(fold_in(key, 0x524F4C4C), 0)``). ``extra # [G,
    ...]``: each game's policy is ``policy(state, key, extra[g])`` (a line-up of its own)."""
    return jax.vmap(lambda s, k, e: rollout_first_luck(
        env, _bound(policy, e), s, _game_key(k, 0), samples),
        in_axes=(0, 0, None if extra is None else 0))(states, keys, extra)


def games_rollout_step_luck(env, policy, states, actions, next_states, keys, step,
                            samples: int = ROLLOUTS, extra=None) -> jax.Array:
    """``# [G, 5, N]``: `rollout_step_luck` of a batch of games' steps; ``step`` (the play
    loop's count, from 0) addresses the rollouts' draws: ``fold_in(fold_in(key, 0x524F4C4C),
    step + 1)`` (a game's luck does not depend on the batch). ``extra``: as in
    `games_rollout_first_luck`."""
    return jax.vmap(lambda s, a, x, k, e: rollout_step_luck(
        env, _bound(policy, e), s, a, x, _game_key(k, step + 1), samples),
        in_axes=(0, 0, 0, 0, None if extra is None else 0))(
        states, actions, next_states, keys, extra)
