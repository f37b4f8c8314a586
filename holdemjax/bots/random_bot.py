"""The random bot, and the coordinate-addressed draws every reference bot uses.

A bot's random draw is never taken from a stream. It is addressed by its coordinates: the hand
index, the seat, the street and the action rank (how many decisions this seat has already made
in this hand), folded one after the other into the bot's per-game key::

    key = fold_in(fold_in(fold_in(fold_in(bot_key, hand), seat), street), rank)

so two lines of play that differ elsewhere (another seat's choice, another hand) cannot shift
it. The draw itself is the 32 bits of ``jax.random.bits(key, (), uint32)`` reduced modulo the
number of outcomes (a bias below 3e-6 for 10,000 outcomes; exact integers, so a C port that
implements threefry2x32 ``fold_in`` and ``bits`` reproduces it).

``act(env, state, key)`` of this module: uniform over the legal menu actions. The coordinates
are read from the decision's view (`holdemjax.poker.tournament.Decision`, ``env.decision(state)``
for an env state).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["coordinate_key", "decision_rank", "coordinates", "draw_below", "legal_at",
           "uniform_legal", "decide", "probabilities", "policy", "act"]


def coordinate_key(base_key: jax.Array, hand, seat, street, rank) -> jax.Array:
    """The key of one decision: ``fold_in`` of (hand, seat, street, rank), in that order.

    ``base_key`` is the bot's per-game key (a typed key or raw ``uint32[2]`` data; the result
    has the same kind). The key is only folded, never split or consumed.
    """
    key = base_key
    for coordinate in (hand, seat, street, rank):
        key = jax.random.fold_in(key, jnp.asarray(coordinate, jnp.uint32))
    return key


def decision_rank(view) -> jax.Array:
    """``# [] int32``: decisions the seat to act has already made in this hand (0 at its first),
    from the per-seat counter ``view.decisions`` of a `tournament.Decision` (reset every hand)."""
    seat = jnp.maximum(view.table.to_act, 0)
    return jnp.asarray(view.decisions[seat], jnp.int32)


def coordinates(view):
    """(hand, seat, street, rank) of the decision a `tournament.Decision` view waits for, as
    int32 scalars."""
    t = view.table
    return (
        jnp.asarray(view.hand, jnp.int32),
        jnp.maximum(t.to_act, 0).astype(jnp.int32),
        jnp.asarray(t.street, jnp.int32),
        decision_rank(view),
    )


def draw_below(key: jax.Array, n) -> jax.Array:
    """``# [] int32`` in ``[0, n)``: ``bits(key) mod n`` (n >= 1, n < 2**31)."""
    bits = jax.random.bits(key, (), jnp.uint32)
    return (bits % jnp.maximum(jnp.asarray(n, jnp.uint32), 1)).astype(jnp.int32)


def legal_at(mask: jax.Array, u) -> jax.Array:
    """``# [] int32``: the ``u``-th legal action of ``mask`` (0-based); 0 if none."""
    mask = jnp.asarray(mask, bool)
    pick = jnp.argmax(jnp.cumsum(mask.astype(jnp.int32)) > u)
    return jnp.where(mask.any(), pick, 0).astype(jnp.int32)


def uniform_legal(key: jax.Array, mask: jax.Array) -> jax.Array:
    """``# [] int32``: the ``u``-th legal action with ``u = draw_below(key, count)``; 0 if none."""
    mask = jnp.asarray(mask, bool)
    return legal_at(mask, draw_below(key, mask.sum()))


def decide(menu, view, mask: jax.Array, key: jax.Array) -> jax.Array:
    """A uniform legal menu action (``# [] int32``) for the decision ``view``
    (`tournament.Decision`) with the menu's legal ``mask``; the draw is at its coordinates."""
    del menu
    return uniform_legal(coordinate_key(key, *coordinates(view)), mask)


def probabilities(menu, view, mask: jax.Array) -> jax.Array:
    """``# [A] float32``: the distribution of `decide`: uniform over the legal ``mask`` (``u`` is
    32 random bits mod the count: the true weights differ by less than 2e-9)."""
    del menu, view
    legal = jnp.asarray(mask, jnp.float32)
    return legal / jnp.maximum(legal.sum(), 1.0)


def policy(env, state) -> jax.Array:
    """``# [A] float32``: `probabilities` of `act` at ``state``."""
    return probabilities(env.menu, None, state.legal_action_mask)


def act(env, state, key: jax.Array) -> jax.Array:
    """A uniform legal menu action for ``state.current_player`` (``# [] int32``).

    ``key`` is the bot's per-game key; the draw is at the coordinates of ``env.decision(state)``.
    Pure and jit/vmap-able; ``env`` is only used for its (static) configuration.
    """
    return decide(env.menu, env.decision(state), state.legal_action_mask, key)
