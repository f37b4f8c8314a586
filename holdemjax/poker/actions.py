"""The discrete action menu for RL <-> the engine's exact actions.

Menu (ids): FOLD = 0, CHECK_CALL = 1, MIN_RAISE = 2, then one raise per pot fraction of
`sizes` (default 0.5, 0.75, 1, 1.5, 2 × pot), then ALL_IN last. A pot-fraction raise goes to
``current_bet + floor(fraction × pot_after_call)``, where ``pot_after_call`` is every chip in
the middle (bets and dead ante included) plus the actor's call, all in integer arithmetic (the
fraction is held as an exact ratio of small integers). An entry is masked when:

* FOLD: checking is free (folding then is never better; the engine itself would allow it);
* a raise entry: raising is closed to the actor, its amount is below the minimum raise-to, it
  reaches the actor's all-in amount (ALL_IN covers it), or it equals an earlier raise entry;
* ALL_IN: raising is closed (a stack too short for more than the minimum raise is offered as
  ALL_IN only).

CHECK_CALL is always legal at a decision (it calls all-in when the stack is short).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from fractions import Fraction

import jax
import jax.numpy as jnp

from holdemjax import xla
from holdemjax.poker.table import CHECK_CALL as KIND_CALL
from holdemjax.poker.table import FOLD as KIND_FOLD
from holdemjax.poker.table import RAISE as KIND_RAISE
from holdemjax.poker.table import Legal, Table, legal, pot_total
from holdemjax.validate import is_real

__all__ = ["MenuAction", "FOLD", "CHECK_CALL", "MIN_RAISE", "DEFAULT_SIZES", "Menu"]


class MenuAction(enum.IntEnum):
    """The fixed ids of the RL menu; the pot-fraction raises follow MIN_RAISE, and
    `Menu.ALL_IN` (which depends on the number of sizes) is last."""

    FOLD = 0
    CHECK_CALL = 1
    MIN_RAISE = 2


FOLD, CHECK_CALL, MIN_RAISE = MenuAction
DEFAULT_SIZES = (0.5, 0.75, 1.0, 1.5, 2.0)

# The largest pot fraction a menu accepts: with denominators <= 1000 the numerator stays <= 10^6,
# so (pot % den) * num < 10^9 and the int32 raise-to arithmetic cannot overflow.
MAX_RAISE_SIZE = 1000


class Menu:
    """A discrete action menu with the given pot-fraction raise sizes (static)."""

    def __init__(self, sizes=DEFAULT_SIZES):
        if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable):  # named whole
            raise ValueError(f"raise sizes must be a sequence of positive pot fractions, "
                             f"got {sizes!r}")
        sizes = tuple(sizes)
        ratios = []
        for s in sizes:
            if not is_real(s) or not s > 0:
                raise ValueError(f"raise sizes must be positive pot fractions, got {s!r}")
            if not s <= MAX_RAISE_SIZE:  # the int32 raise-to arithmetic below must not overflow
                raise ValueError(f"raise sizes must be at most {MAX_RAISE_SIZE} x pot, got {s!r}")
            ratios.append(Fraction(s).limit_denominator(1000))
        if len(set(ratios)) != len(ratios):
            raise ValueError(f"raise sizes must be distinct, got {sizes}")
        self.sizes = sizes
        self._num = tuple(r.numerator for r in ratios)
        self._den = tuple(r.denominator for r in ratios)
        self.ALL_IN = 3 + len(sizes)
        self.num_actions = 4 + len(sizes)

    def names(self) -> list[str]:
        """A name per action id, e.g. ['FOLD', 'CHECK_CALL', 'MIN_RAISE', 'RAISE_0.5_POT', ...]."""
        return (["FOLD", "CHECK_CALL", "MIN_RAISE"]
                + [f"RAISE_{s:g}_POT" for s in self.sizes] + ["ALL_IN"])

    def raise_targets(self, table: Table, lg: Legal) -> jax.Array:
        """``# [num_actions - 2] int32``: raise-to of MIN_RAISE, each pot fraction, ALL_IN."""
        p = jnp.maximum(table.to_act, 0)
        pot_after_call = pot_total(table) + lg.call_amount
        num = jnp.asarray(self._num, jnp.int32)
        den = jnp.asarray(self._den, jnp.int32)
        # floor(num × pot / den) without int32 overflow for any chip count below 2^31 / 1000.
        frac = (pot_after_call // den) * num + ((pot_after_call % den) * num) // den
        all_in = table.bets[p] + table.stacks[p]
        return jnp.concatenate([lg.min_raise_to[None], table.current_bet + frac, all_in[None]])

    def mask_and_amounts(self, table: Table, lg: Legal):
        """(legal mask ``# [A] bool``, raise-to per action ``# [A] int32``; 0 for FOLD/CALL)."""
        targets = self.raise_targets(table, lg)
        k = targets.shape[0]
        is_all_in = jnp.arange(k) == k - 1
        # A sized raise is offered when it is at least the minimum and below all-in, and no
        # earlier offered entry has the same amount; ALL_IN whenever raising is open.
        sized = (targets >= lg.min_raise_to) & (targets < lg.max_raise_to) & ~is_all_in
        earlier = jnp.tril(jnp.ones((k, k), bool), -1)  # [i, j]: j comes before i
        dup = ((targets[:, None] == targets[None, :]) & earlier & sized[None, :]).any(axis=1)
        ok = lg.can_raise & ((sized & ~dup) | is_all_in)
        deciding = lg.can_fold
        mask = jnp.concatenate([jnp.stack([deciding & ~lg.can_check, deciding]), ok])
        amounts = jnp.concatenate([jnp.zeros(2, jnp.int32), targets.astype(jnp.int32)])
        return mask, amounts

    def legal_mask(self, table: Table, lg: Legal, live=True) -> jax.Array:
        """``# [A] bool``: the mask of `mask_and_amounts` and ``live``, computed once and stored
        (`xla.compute_once`: else XLA recomputes the legal range for each of the A entries in every
        consumer)."""
        mask, _ = self.mask_and_amounts(table, lg)
        return xla.compute_once(mask & live)

    def to_engine(self, action, amounts):
        """(kind, amount) for `table.act` of a menu action id."""
        action = jnp.asarray(action, jnp.int32)
        kind = jnp.where(action == FOLD, KIND_FOLD,
                         jnp.where(action == CHECK_CALL, KIND_CALL, KIND_RAISE))
        return kind.astype(jnp.int32), amounts[action]

    def engine_action(self, table: Table, action):
        """(kind, amount) for `table.act` of menu ``action`` at ``table`` (its raise-to from
        `mask_and_amounts` of the table's `legal`)."""
        _, amounts = self.mask_and_amounts(table, legal(table))
        return self.to_engine(action, amounts)
