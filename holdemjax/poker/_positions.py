"""Button and blinds between hands (private helper of ``table.py``, which re-exports the API).

``first_positions`` places the blinds for the first hand of a table, ``next_positions`` moves
them for every later hand of a tournament under the dead-button rule (TDA Rule 32) and the
heads-up rule (TDA Rule 34). docs/rules.md, "Button and blinds between hands".
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["NO_SEAT", "first_after", "first_positions", "next_positions"]

NO_SEAT = -1  # ``Table.to_act`` when nobody is to act (the hand is over); "no such seat"


def _i32(x) -> jax.Array:
    return jnp.asarray(x, jnp.int32)


def first_after(mask: jax.Array, seat: jax.Array) -> jax.Array:
    """First seat clockwise strictly after ``seat`` (wrapping, ``seat`` itself last) where
    ``mask`` is True; NO_SEAT if none."""
    n = mask.shape[-1]
    order = (jnp.arange(n) - seat - 1) % n  # 0 for the seat right after ``seat``
    steps = jnp.min(jnp.where(mask, order, n))  # no argmin: XLA's CPU arg-reductions are slow
    return jnp.where(steps < n, (seat + 1 + steps) % n, NO_SEAT).astype(jnp.int32)


def first_positions(alive, button):
    """Blinds for the first hand: SB = next alive seat after ``button``, BB = next alive after
    the SB. Heads-up (two alive) the button posts the small blind: the button moves to the next
    alive seat if it is empty, and the other player is the big blind.

    Returns ``(button, sb, bb, sb_posts)`` as int32, int32, int32, bool scalars.
    """
    alive = jnp.asarray(alive, bool)
    button = _i32(button)
    heads_up = alive.sum() == 2
    sb = first_after(alive, button)
    bb = first_after(alive, sb)
    hu_button = jnp.where(alive[button], button, sb)
    hu_bb = first_after(alive, hu_button)
    return (
        jnp.where(heads_up, hu_button, button).astype(jnp.int32),
        jnp.where(heads_up, hu_button, sb).astype(jnp.int32),
        jnp.where(heads_up, hu_bb, bb).astype(jnp.int32),
        jnp.asarray(True),
    )


def next_positions(alive, prev_button, prev_sb, prev_bb):
    """Button and blinds for the next hand of a tournament (dead button, TDA Rule 32).

    ``alive`` marks the seats still in after the previous hand. The big blind moves to the next
    alive seat after the previous big blind (nobody skips it); the small blind is the previous
    big blind's seat and is dead (``sb_posts`` False) if that player is out; the button is the
    previous small blind's seat, possibly empty. Heads-up (two alive, TDA Rule 34) the big blind
    still moves to the next alive seat after the previous one, so nobody posts it twice in a row,
    and the other player is button and small blind.

    Returns ``(button, sb, bb, sb_posts)`` as int32, int32, int32, bool scalars.
    """
    alive = jnp.asarray(alive, bool)
    prev_button, prev_sb, prev_bb = _i32(prev_button), _i32(prev_sb), _i32(prev_bb)
    del prev_button  # the button follows the small blind under the dead-button rule
    heads_up = alive.sum() == 2
    bb = first_after(alive, prev_bb)
    other = first_after(alive, bb)
    return (
        jnp.where(heads_up, other, prev_sb).astype(jnp.int32),
        jnp.where(heads_up, other, prev_bb).astype(jnp.int32),
        bb,
        jnp.where(heads_up, True, alive[prev_bb]),
    )
