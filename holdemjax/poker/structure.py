"""Table formats as data: blind ladders, stacks, hand caps and payouts.

A `Format` is a pytree (so formats of the same seat count can be stacked and vmapped); the seat
count and the scoring kind are static. `FORMATS` holds the named formats of SPEC §2.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

__all__ = [
    "LADDER",
    "SNG_PAYOUTS",
    "Format",
    "FORMATS",
    "TOURNAMENT",
    "RING",
    "make_format",
    "check_compatible",
    "stack_formats",
    "blinds_at",
    "level_at",
]

#: (small blind, big blind, big-blind ante) per level; the ante starts at 60/120 and equals
#: the big blind; the last level repeats.
LADDER: tuple[tuple[int, int, int], ...] = (
    (10, 20, 0),
    (15, 30, 0),
    (25, 50, 0),
    (40, 80, 0),
    (60, 120, 120),
    (100, 200, 200),
    (150, 300, 300),
    (250, 500, 500),
    (400, 800, 800),
    (600, 1200, 1200),
    (1000, 2000, 2000),
    (1500, 3000, 3000),
    (2500, 5000, 5000),
    (4000, 8000, 8000),
)

#: Shares of the prize for places 1..6 (six-max sit & go).
SNG_PAYOUTS: tuple[float, ...] = (0.333, 0.267, 0.200, 0.133, 0.067, 0.0)

TOURNAMENT = "tournament"  # score = place payouts, ICM at the hand cap
RING = "ring"  # score = chips at the end / chips in play


@struct.dataclass
class Format:
    """A table format. Array fields are the params pytree; `num_seats` and `kind` are static."""

    starting_stack: jax.Array  # [] int32 chips per seat at the start
    hands_per_level: jax.Array  # [] int32 hands played at each blind level
    hand_cap: jax.Array  # [] int32 hands after which the game ends (ICM / chip count)
    small_blinds: jax.Array  # [L] int32
    big_blinds: jax.Array  # [L] int32
    antes: jax.Array  # [L] int32 big-blind ante of each level (0 = none)
    payouts: jax.Array  # [N] float32 share of place 1..N (tournaments); unused by RING
    num_seats: int = struct.field(pytree_node=False, default=6)
    kind: str = struct.field(pytree_node=False, default=TOURNAMENT)

    @property
    def num_levels(self) -> int:
        return self.big_blinds.shape[-1]


def make_format(
    num_seats: int,
    starting_stack: int,
    hands_per_level: int,
    hand_cap: int,
    ladder=LADDER,
    payouts=SNG_PAYOUTS,
    kind: str = TOURNAMENT,
) -> Format:
    """Build a `Format`, checking every value on the host (ValueError names the bad one)."""
    if not 2 <= num_seats <= 9:
        raise ValueError(f"num_seats must be 2..9, got {num_seats}")
    for name, v in (("starting_stack", starting_stack), ("hands_per_level", hands_per_level),
                    ("hand_cap", hand_cap)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if kind not in (TOURNAMENT, RING):
        raise ValueError(f"kind must be {TOURNAMENT!r} or {RING!r}, got {kind!r}")
    ladder = np.asarray(ladder, np.int64)
    if ladder.ndim != 2 or ladder.shape[1] != 3 or len(ladder) == 0:
        raise ValueError(f"ladder must be rows of (small blind, big blind, ante), got {ladder!r}")
    if (ladder[:, 0] < 1).any() or (ladder[:, 1] < ladder[:, 0]).any() or (ladder[:, 2] < 0).any():
        raise ValueError(f"ladder needs 1 <= small blind <= big blind and ante >= 0: {ladder!r}")
    pay = np.zeros(num_seats, np.float64)
    given = np.asarray(payouts, np.float64)
    if kind == TOURNAMENT:
        if len(given) > num_seats or (given < 0).any() or abs(given.sum() - 1.0) > 1e-6:
            raise ValueError(f"payouts must be <= {num_seats} non-negative shares summing to 1, "
                             f"got {tuple(payouts)}")
        if (np.diff(given) > 0).any():
            raise ValueError(f"payouts must not increase with the place, got {tuple(payouts)}")
        pay[: len(given)] = given
    # cast on the host, then copied: jnp.asarray runs (and, first in a process, compiles) a
    # conversion on the device
    i32 = lambda x: jax.device_put(np.asarray(x, np.int32))
    return Format(
        starting_stack=i32(starting_stack),
        hands_per_level=i32(hands_per_level),
        hand_cap=i32(hand_cap),
        small_blinds=i32(ladder[:, 0]),
        big_blinds=i32(ladder[:, 1]),
        antes=i32(ladder[:, 2]),
        payouts=jax.device_put(pay.astype(np.float32)),
        num_seats=num_seats,
        kind=kind,
    )


def _formats() -> dict:
    return {
        "sng-6": dict(num_seats=6, starting_stack=1000, hands_per_level=4, hand_cap=60),
        "sng-6-turbo": dict(num_seats=6, starting_stack=1500, hands_per_level=6, hand_cap=72),
        "certify": dict(num_seats=6, starting_stack=200, hands_per_level=1, hand_cap=8),
        # Blinds 15/30 that never rise, 50 hands at most, score = chips at the end.
        "ring-9": dict(num_seats=9, starting_stack=1500, hands_per_level=50, hand_cap=50,
                       ladder=((15, 30, 0),), kind=RING),
    }


#: Named formats (SPEC §2): keyword arguments of `make_format`.
FORMATS: dict[str, dict] = _formats()


def check_compatible(env_format: Format, fmt: Format) -> None:
    """Host-side check that ``fmt`` (one format, or several stacked by `stack_formats`) can run
    in an env built for ``env_format``: same seat count, scoring kind and number of levels (the
    static parts); ValueError names the difference."""
    if not isinstance(fmt, Format):
        raise ValueError(f"expected a Format (structure.make_format), got {type(fmt).__name__}")
    for name, a, b in (("num_seats", env_format.num_seats, fmt.num_seats),
                       ("kind", env_format.kind, fmt.kind),
                       ("number of blind levels", env_format.num_levels, fmt.num_levels),
                       ("payout places", np.shape(env_format.payouts)[-1],
                        np.shape(fmt.payouts)[-1])):
        if a != b:
            raise ValueError(f"format {name} is {b!r}, the env was built for {a!r}")


def stack_formats(*formats: Format) -> Format:
    """Stack formats along a new leading axis, for ``jax.vmap(env.init_with)``. All must share
    seat count, kind and number of levels (ValueError otherwise)."""
    if not formats:
        raise ValueError("stack_formats needs at least one format")
    for f in formats[1:]:
        check_compatible(formats[0], f)
    return jax.tree.map(lambda *xs: jnp.stack(xs), *formats)


def level_at(fmt: Format, hand_index) -> jax.Array:
    """Blind level (0-based) of hand `hand_index` (0-based); the last level repeats."""
    level = jnp.asarray(hand_index, jnp.int32) // fmt.hands_per_level
    return jnp.minimum(level, fmt.num_levels - 1)


def blinds_at(fmt: Format, hand_index):
    """(small blind, big blind, ante) of hand `hand_index`, int32 scalars."""
    level = level_at(fmt, hand_index)
    return fmt.small_blinds[level], fmt.big_blinds[level], fmt.antes[level]
