"""AIVAT-style chance corrections of hold'em hands: the check-down value, the deal's and each
reveal's correction (`holdemjax.luck`, the room; its sit & go part: `holdemjax.luck.sng`).

AIVAT (Burch, Schmid, Moravčík, Morrill, Bowling: "AIVAT: A New Variance Reduction Technique
for Agent Evaluation in Imperfect Information Games", AAAI 2018) removes from a game's outcome
the part that chance caused, and stays unbiased: at every chance event it subtracts
``u(h·c) - E_c'[u(h·c')]``, the change of a value function ``u`` the outcome ``c`` caused minus
its expectation over the outcomes chance could have drawn. Each term has expectation zero given
the history before the event, whatever ``u`` is; a good ``u`` only makes the reduction larger.

Here ``u`` is the value of a check-down: what every seat would end with if nobody put in another
chip and the hand were shown down, as a function of the seats' final stacks (`chips`: the stacks
themselves; `icm_value`: their ICM equity in a tournament). Its expectation over the board cards
still to come is exact where that is cheap (the river: up to 52 cards; turn and river: the
1,326 pairs) and sampled with addressed keys before the flop (unbiased: a mean of uniform draws).
The chance events of a hand and their corrections:

* the deal (every seat's hole cards): `deal_correction` -- the check-down value with the cards
  dealt minus its mean over every deal, on the table right after the blinds;
* board cards (flop, turn, river, or several at once in an all-in run-out):
  `reveal_correction` -- ``u`` with ``k1`` board cards known minus ``u`` with ``k0``, on the
  contributions at the moment they come out (`holdemjax.poker.table.decided`). The cards dealt
  to seat positions are never on the board (`holdemjax.poker.cards`: seat s holds deck[2s],
  deck[2s+1], the board is deck[18:23]), so the board's unseen cards are drawn from the 52 minus
  every seat position's two and the board cards shown (`holdemjax.poker.cards.unseen`).

`hand_luck` sums them over one hand from its decisions; a host that plays the hand itself
records its reveals as it goes (`no_reveals`, `note`) and sums them with `luck_of`. The
corrected result of a hand is the actual one minus its luck.

Everything is pure JAX (fixed shapes, vmap-able).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax import xla
from holdemjax.poker import table as poker_table
from holdemjax.poker.cards import NUM_CARDS, unseen
from holdemjax.poker.tournament import open_places_icm
from holdemjax.sparse import sparse_cond

__all__ = ["Value", "chips", "icm_value", "check_down_values", "reveal_correction",
           "deal_correction", "Reveals", "no_reveals", "note", "luck_of", "hand_luck",
           "VISIBLE", "PREFLOP_SAMPLES", "DISTINCT"]

#: A value function: the seats' stacks at the end of a hand ``# [N]`` -> their values ``# [N]``.
Value = Callable[[jax.Array], jax.Array]

#: The numbers of board cards a hold'em table shows: pre-flop, flop, turn, river.
VISIBLE = (0, 3, 4, 5)
#: Boards drawn for a pre-flop check-down value (its expectation is sampled: unbiased).
PREFLOP_SAMPLES = 64

_PAIRS = np.array(list(itertools.combinations(range(NUM_CARDS), 2)), np.int32)  # [1326, 2]
_SINGLES = np.arange(NUM_CARDS, dtype=np.int32)[:, None]  # [52, 1]


def chips(stacks: jax.Array) -> jax.Array:
    """The value of chips: the stacks themselves (float32), for cash and ring formats."""
    return jnp.asarray(stacks, jnp.float32)


def icm_value(alive: jax.Array, payouts: jax.Array) -> Value:
    """The value of a tournament's stacks: ICM equity of the places still open
    (`tournament.open_places_icm`, the one definition) among the seats ``alive`` when the hand
    began (a seat the hand busts shares the lowest open places, as ICM gives a zero stack)."""
    return lambda stacks: open_places_icm(stacks, alive, payouts)


def _end_stacks(table: poker_table.Table, boards: jax.Array, holes: jax.Array | None = None
                ) -> jax.Array:
    """``# [B, N] int32``: the stacks after a check-down on each of ``boards # [B, 5]``, with
    the table's hole cards (or each of ``holes # [B, N, 2]``)."""
    def one(hole, board):
        return table.stacks + poker_table.showdown_winnings(
            poker_table.with_cards(table, hole, board))
    if holes is None:
        holes = jnp.broadcast_to(table.hole, boards.shape[:1] + table.hole.shape)
    return jax.vmap(one)(holes, boards)


#: Distinct end stacks a non-linear value (ICM) is computed on at once: a check-down's boards
#: end in few distinct ways (who wins each pot); a table with more values every board.
DISTINCT = 32


def _mean_values(ends: jax.Array, weights: jax.Array, value: Value) -> jax.Array:
    """``# [G, N]``: for each row of ``weights # [G, M]``, the weighted sum of ``value`` over
    the end stacks ``ends # [M, N]``. `chips` (linear) is taken on every row; another value
    once per distinct row of ``ends`` (rows no group weighs aside), `DISTINCT` at most, else on
    every row (under ``vmap`` only for the tables that need it: `holdemjax.sparse`)."""
    if value is chips:
        return jnp.stack([(w[:, None] * chips(ends)).sum(axis=0) for w in weights])
    used = (weights > 0).any(axis=0)
    ref = ends[jnp.argmax(used)]
    ends = jnp.where(used[:, None], ends, ref)
    order = jnp.lexsort(ends.T[::-1])
    rows = ends[order]
    new = jnp.concatenate([jnp.ones(1, bool), (rows[1:] != rows[:-1]).any(axis=1)])
    group = jnp.zeros_like(order).at[order].set(jnp.cumsum(new) - 1)  # [M] by original row
    mass = jax.vmap(lambda w: jax.ops.segment_sum(w, group, num_segments=DISTINCT))(weights)
    reps = jnp.broadcast_to(ref, (DISTINCT,) + ref.shape).at[group].set(ends, mode="drop")
    compact = mass @ jax.vmap(value)(reps)
    every = lambda _: weights @ jax.vmap(value)(ends)  # noqa: E731
    return sparse_cond(group.max() >= DISTINCT, every, compact)


def _complete(table: poker_table.Table, visible: int, extra: jax.Array) -> jax.Array:
    """Boards ``# [B, 5]``: the first ``visible`` cards of the table's board, then ``extra``."""
    known = jnp.broadcast_to(table.board[:visible], (extra.shape[0], visible))
    return jnp.concatenate([known, extra], axis=1).astype(jnp.int32)


def _draw(key: jax.Array, allowed: jax.Array, count: int, samples: int) -> jax.Array:
    """``# [samples, count]``: each row ``count`` distinct cards drawn uniformly from
    ``allowed # [52] bool`` (the smallest uniform keys of the allowed cards)."""
    noise = xla.uniform(key, (samples, NUM_CARDS))
    noise = jnp.where(allowed[None, :], noise, 2.0)
    return jax.lax.top_k(-noise, count)[1].astype(jnp.int32)


def _boards(table: poker_table.Table, visible: int, key,
            samples: int) -> tuple[jax.Array, jax.Array]:
    """The completions of the board with ``visible`` (static) cards known and their weights:
    ``(boards # [M, 5] int32, weights # [M] float32)``, the weights summing to 1."""
    if visible == 5:
        return table.board[None, :].astype(jnp.int32), jnp.ones(1, jnp.float32)
    allowed = unseen(table.hole, table.board, visible)
    if visible == 0:
        if key is None:
            raise ValueError("a pre-flop check-down value is sampled: pass a key")
        return _draw(key, allowed, 5, samples), jnp.full(samples, 1.0 / samples, jnp.float32)
    extra = _SINGLES if visible == 4 else _PAIRS
    ok = allowed[extra].all(axis=1)
    safe = jnp.where(ok[:, None], extra, 0)  # masked rows are weighted 0
    return (_complete(table, visible, jnp.asarray(safe)),
            ok.astype(jnp.float32) / ok.sum())


def check_down_values(table: poker_table.Table, visible: int, value: Value = chips, key=None,
                      samples: int = PREFLOP_SAMPLES) -> jax.Array:
    """``# [N] float32``: the expected ``value`` of every seat if the hand were checked down
    from ``table`` (its contributions as they are) with the first ``visible`` (static: 0, 3, 4
    or 5) of its board cards known, the rest drawn from the cards no seat position holds.
    Exact for 3, 4 and 5; for 0 the mean over ``samples`` boards drawn from ``key`` (an
    unbiased estimate). ``table`` must have its chips in (not ``hand_over``: `table.decided`
    or a table waiting for a decision)."""
    if visible not in VISIBLE:
        raise ValueError(f"visible must be one of {VISIBLE}, got {visible!r}")
    boards, weights = _boards(table, visible, key, samples)
    return _mean_values(_end_stacks(table, boards), weights[None], value)[0]


def _values_by_visible(table: poker_table.Table, value: Value, key) -> jax.Array:
    """``# [4, N]``: `check_down_values` for each entry of `VISIBLE`, every completion of
    every level evaluated in one batch (one program, not four)."""
    parts = [_boards(table, k, key, PREFLOP_SAMPLES) for k in VISIBLE]
    ends = _end_stacks(table, jnp.concatenate([b for b, _ in parts]))
    sizes = [b.shape[0] for b, _ in parts]
    starts = np.cumsum([0] + sizes)
    weights = jnp.stack([jnp.zeros(ends.shape[0], jnp.float32).at[lo:lo + m].set(w)
                         for lo, m, (_, w) in zip(starts, sizes, parts)])
    return _mean_values(ends, weights, value)


def _index(visible: jax.Array) -> jax.Array:
    return jnp.searchsorted(jnp.asarray(VISIBLE), visible)


def reveal_correction(table: poker_table.Table, shown_before, shown_after, value: Value = chips,
                      key=None) -> jax.Array:
    """``# [N] float32``: the luck of the board cards that came out between ``shown_before``
    and ``shown_after`` visible cards (0, 3, 4, 5; traced is fine) on ``table``'s
    contributions: ``u(shown_after) - u(shown_before)`` with ``u`` = `check_down_values`. Zero
    when nothing came out. Its expectation over the cards that came out is zero (exactly where
    ``shown_before`` >= 3; over the pre-flop samples' draw too where it is 0). ``key`` draws
    the pre-flop samples (needed: which cards came out may be traced)."""
    if key is None:
        raise ValueError("reveal_correction needs a key: a pre-flop check-down value is sampled")
    vals = _values_by_visible(table, value, key)
    after, before = vals[_index(shown_after)], vals[_index(shown_before)]
    return jnp.where(shown_after > shown_before, after - before, 0.0).astype(jnp.float32)


def deal_correction(table: poker_table.Table, value: Value = chips, key=None,
                    samples: int = PREFLOP_SAMPLES) -> jax.Array:
    """``# [N] float32``: the luck of the deal on the table right after the blinds
    (`table.start_hand(..., can_end=False)`): the pre-flop check-down value with the hole
    cards dealt minus its mean over deals of every seat position's cards and the board
    (``samples`` of each, drawn from ``key``; unbiased)."""
    k_board, k_deal = xla.split(key)
    n = table.num_seats
    boards, _ = _boards(table, 0, k_board, samples)
    deal_holes, deal_boards = _random_deals(n, k_deal, samples)
    holes = jnp.concatenate([jnp.broadcast_to(table.hole, (samples, n, 2)), deal_holes])
    boards = jnp.concatenate([boards, deal_boards])
    means = _mean_values(_end_stacks(table, boards, holes), _halves(samples), value)
    return (means[0] - means[1]).astype(jnp.float32)


def _halves(samples: int) -> jax.Array:
    """``# [2, 2 * samples]``: the weights of the mean of the first half, and of the second."""
    first = np.arange(2 * samples) < samples
    return jnp.asarray(np.stack([first, ~first]) / samples, jnp.float32)


def _random_deals(n: int, key, samples: int) -> tuple[jax.Array, jax.Array]:
    """``(holes # [samples, n, 2], boards # [samples, 5])``: whole deals drawn uniformly."""
    deals = _draw(key, jnp.ones(NUM_CARDS, bool), 2 * n + 5, samples)
    return deals[:, :2 * n].reshape(samples, n, 2), deals[:, 2 * n:]


@struct.dataclass
class Reveals:
    """The decisions of one hand that brought board cards out (at most three: the flop, the
    turn, the river; a run-out is one), recorded as the hand is played (`note`), so that the
    corrections are computed for those alone (`luck_of`). Unbatched shapes below."""

    tables: poker_table.Table  # [3, ...] the tables the cards came out on (`table.decided`)
    before: jax.Array  # [3] int32 board cards shown before each
    after: jax.Array  # [3] int32 and after
    count: jax.Array  # [] int32 recorded so far


def no_reveals(table: poker_table.Table) -> Reveals:
    """An empty record for a hand at a table shaped as ``table``."""
    zeros = jnp.zeros(3, jnp.int32)
    return Reveals(jax.tree.map(lambda a: jnp.stack([a] * 3), table), zeros, zeros,
                   jnp.int32(0))


def note(record: Reveals, before: poker_table.Table, kind, amount,
         after: poker_table.Table) -> Reveals:
    """``record`` with the decision that took ``before`` to ``after`` (`table.act` of ``kind``,
    ``amount``) added when it brought board cards out."""
    brought = ~before.hand_over & (before.to_act >= 0) & (after.revealed > before.revealed)
    i = jnp.minimum(record.count, 2)
    put = lambda buf, x: buf.at[i].set(jnp.where(brought, x, buf[i]))  # noqa: E731
    return Reveals(jax.tree.map(put, record.tables, poker_table.decided(before, kind, amount)),
                   put(record.before, before.revealed), put(record.after, after.revealed),
                   record.count + brought.astype(jnp.int32))


def luck_of(start: poker_table.Table, record: Reveals, value: Value = chips, key=None) -> jax.Array:
    """``# [N] float32``: the luck of a hand played from ``start`` (the table right after the
    blinds, `table.start_hand(..., can_end=False)`) whose reveals are ``record``: the deal's
    correction plus every reveal's (a hand the blinds leave nobody able to act in runs its board
    out at once, on the blinds). The corrected result of seat ``i`` is its actual result minus
    ``luck[i]``."""
    if key is None:
        raise ValueError("luck needs a key: pre-flop values are sampled")
    k_deal, k_events = xla.split(key)
    zeros = jnp.zeros(start.num_seats, jnp.float32)
    # Slot 3: a hand the blinds leave nobody able to act in runs its board out at once, on the
    # blinds. Only the reveals that happened are computed (under vmap too: holdemjax.sparse).
    tables = jax.tree.map(lambda rec, s0: jnp.concatenate([rec, s0[None]]), record.tables, start)
    before = jnp.concatenate([record.before, jnp.zeros(1, jnp.int32)])
    after = jnp.concatenate([record.after, jnp.full(1, 5, jnp.int32)])
    happened = jnp.concatenate([jnp.arange(3) < record.count, (start.to_act < 0)[None]])

    def event(t, b, a, h, k):
        return sparse_cond(h, lambda z: z + reveal_correction(t, b, a, value, k), zeros)

    corr = jax.vmap(event)(tables, before, after, happened, xla.split(k_events, 4))
    return (deal_correction(start, value, k_deal) + corr.sum(axis=0)).astype(jnp.float32)


def hand_luck(start: poker_table.Table, kinds: jax.Array, amounts: jax.Array, value: Value = chips,
              key=None) -> tuple[jax.Array, poker_table.Table]:
    """``(luck # [N] float32, the finished table)`` of one hand played from ``start`` (as in
    `luck_of`) by the decisions ``kinds``, ``amounts`` ``# [D]`` (the engine's exact actions,
    in order; the ones after the hand ended are ignored)."""
    def body(carry, xs):
        t, record = carry
        nxt = poker_table.act(t, *xs)
        return (nxt, note(record, t, *xs, nxt)), None

    table = poker_table.begin(start)
    (table, record), _ = jax.lax.scan(body, (table, no_reveals(table)), (kinds, amounts))
    return luck_of(start, record, value, key), table
