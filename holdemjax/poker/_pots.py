"""Pot building and payout at the end of a hold'em hand (private helper of ``table.py``).

Everything here is pure JAX over one table with a static seat count ``N`` (at most nine), so the
"loop over pots" is a fixed ``[N, N]`` array computation with no Python control flow on data.

Rules implemented (docs/rules.md has the full list):

* **Uncalled bet** -- the part of the largest contribution above the second largest goes back to
  the seat that made it (all contributions count, folded seats' too).
* **Side pots** (TDA Rule 21) -- one pot per distinct contribution level of a *live* (not folded)
  seat: pot ``k`` holds every chip between live level ``k - 1`` and live level ``k`` from every seat
  (folded seats' chips included), and live seats that reached level ``k`` may win it. Levels made
  only by folded seats do not make separate pots (their chips join the pot above, exactly as the
  eligible players are the same), and the top live level takes whatever lies above it.
* **Dead money** -- the big-blind ante is added to the main pot (the lowest live level), which every
  live seat is eligible for; it never forms a pot of its own and is never returned.
* **Splits and odd chips** (TDA Rule 20) -- each pot is split separately among its eligible seats
  with the best strength; the indivisible remainder of that pot goes to the first of those winners
  clockwise from the button (the first seat left of the button).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["uncalled_return", "pay_pots"]

_BIG = jnp.iinfo(jnp.int32).max  # sentinel level for seats that cannot win a pot


def uncalled_return(contrib: jax.Array) -> jax.Array:
    """Chips returned to the one seat whose contribution exceeds every other seat's.

    Args:
      contrib: ``# [N] int32`` chips each seat put in this hand (dead ante excluded).
    Returns:
      ``# [N] int32``: ``max - second max`` at the unique largest contributor, 0 elsewhere
      (all zeros when the largest contribution is tied).
    """
    top = contrib.max()
    is_top = contrib == top
    second = jnp.max(jnp.where(is_top, jnp.iinfo(jnp.int32).min, contrib))
    return jnp.where(is_top & (is_top.sum() == 1), top - second, 0).astype(jnp.int32)


def pay_pots(
    contrib: jax.Array,
    dead: jax.Array,
    live: jax.Array,
    strength: jax.Array,
    button: jax.Array,
) -> jax.Array:
    """Chips each seat collects at the end of the hand.

    Args:
      contrib: ``# [N] int32`` chips each seat put in this hand, blinds and bets, ante excluded.
      dead: ``# [] int32`` dead money (the big-blind ante), added to the main pot.
      live: ``# [N] bool`` seats still in the hand (dealt in and not folded). With one live seat the
        hand was won without a showdown and that seat takes everything.
      strength: ``# [N] int32`` showdown strength of each seat (``evaluator.evaluate``); higher
        wins, equal ties. Ignored where ``live`` is False.
      button: ``# [] int32`` button seat (may be an empty seat under the dead-button rule).
    Returns:
      ``# [N] int32`` winnings, the returned uncalled bet included. ``winnings.sum() ==
      contrib.sum() + dead`` whenever at least one seat is live.
    """
    n = contrib.shape[-1]
    seats = jnp.arange(n)
    contrib = jnp.asarray(contrib, jnp.int32)
    returned = uncalled_return(contrib)
    rest = contrib - returned

    # One pot per distinct live level, owned by the lowest live seat at that level (no sort:
    # XLA's CPU sort is slow, and N <= 9 makes [N, N] comparisons cheap). Pot j holds the chips
    # between the next lower live level (``floor``) and its own level (``cap``).
    level = jnp.where(live, rest, _BIG)  # [N]
    lower_live = live[None, :] & (rest[None, :] < level[:, None])  # [j, i]: live i below j
    floor = jnp.max(jnp.where(lower_live, rest[None, :], 0), axis=1)
    same = live[None, :] & (rest[None, :] == level[:, None])
    earlier_tie = same & (seats[None, :] < seats[:, None])
    is_pot = live & ~earlier_tie.any(axis=1)
    top = jnp.max(jnp.where(live, rest, -1))
    bottom = jnp.min(level)
    cap = jnp.where(level == top, _BIG, level)  # the top live level also takes anything above it
    layer = jnp.minimum(rest[None, :], cap[:, None]) - jnp.minimum(rest[None, :], floor[:, None])
    amount = jnp.where(is_pot, jnp.maximum(layer, 0).sum(axis=1), 0)  # [N] pots
    amount = amount + jnp.where(is_pot & (level == bottom), dead, 0)  # the ante: main pot

    eligible = live[None, :] & (rest[None, :] >= level[:, None]) & is_pot[:, None]  # [pots, N]
    best = jnp.max(jnp.where(eligible, strength[None, :], -1), axis=1)
    winners = eligible & (strength[None, :] == best[:, None])
    count = winners.sum(axis=1)
    share = amount // jnp.maximum(count, 1)
    odd = amount - share * count
    order = (seats - button - 1) % n  # 0 = first seat left of the button
    first = jnp.min(jnp.where(winners, order[None, :], n), axis=1)  # in steps from the button
    odd_seat = winners & (order[None, :] == first[:, None])
    paid = share[:, None] * winners + odd[:, None] * odd_seat
    return (paid.sum(axis=0) + returned).astype(jnp.int32)
