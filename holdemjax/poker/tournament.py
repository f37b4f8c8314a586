"""The tournament rules: one pure-JAX engine state and the functions that move it.

A `Tournament` is a whole sit & go (or `ring-9` chip-count game) between ``N`` seats, ``N``
static: the current hand's `table.Table`, the seating, who is still in, places and scores, and
the per-hand counters a decision-maker reads. Everything here is jit/vmap-able (fixed shapes,
``lax`` control flow only, through `holdemjax.sparse` where the batched form should run only the
rows that need it). The RL env (`holdemjax.envs.sng`) adds the observation, the action menu,
rewards and masks on top; the series host and the tests drive it directly with exact amounts.

    t = start(key, fmt)                  # seat the players, deal hand 0, go to a decision
    t = advance(act(t, kind, amount))    # one decision, then hands end and start as needed
    t = stop(t)                          # the wall-time cut at a hand boundary

Rules (docs/rules.md, "Tournaments", cites the tests):

* seating: ``player_at = permutation(k_seat, N)`` with ``k_seat, k_game = split(key)``; hand
  ``h`` deals from ``cards.hand_deck(k_game, h)``;
* between hands (`next_hand`): seats that hold no chips are eliminated and placed; the button
  and blinds move by the dead-button rule (`table.next_positions`); the blind level follows the
  number of hands played (`structure.blinds_at`);
* places (`places_of_busts`): a player busting earlier places lower; several busting in one
  hand are ordered by their stacks at the start of that hand (larger places higher), equal
  stacks share the payouts of the places they span; the last player left wins place 1;
* the end: one player left, or the hand cap. At the cap the seats still in take
  Malmuth-Harville ICM over the payouts of the places still open (`open_places_icm`,
  `finish_by_icm`); RING formats score chips at the end / chips in play instead;
* `stop` ends the game at the start of the current hand: the hand's blinds and ante go back
  and the seats still in settle as at the hand cap;
* `final_places`: the places of every seat once the game is over (seats settled by ICM, and
  every seat of a RING game, rank by their chips; ties by seat order).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax import xla
from holdemjax.poker import table as poker_table
from holdemjax.poker.cards import dealt_deck, permutation_and_inverse
from holdemjax.poker.icm import icm
from holdemjax.poker.structure import RING, Format, blinds_at
from holdemjax.sparse import sparse_cond, sparse_while

__all__ = ["NUM_STREETS", "Tournament", "Decision", "seat", "lone_hand", "start",
           "first_hand_waits", "act", "next_hand",
           "advance", "advance_one", "next_hand_if_over", "settle_if_due", "boundary_due",
           "stop", "places_of_busts", "open_payouts", "open_places_icm", "finish_by_icm",
           "player_scores", "final_places", "decision", "decision_at"]

NUM_STREETS = poker_table.NUM_STREETS


@struct.dataclass
class Tournament:
    """A tournament between ``N`` seats (a pytree; unbatched shapes below, dtypes fixed).

    Seat-indexed fields are by seat; ``player_at`` / ``seat_of`` map seats and player ids.
    """

    table: poker_table.Table  # the current hand (after the last hand: its end)
    key: jax.Array  # [2] uint32 data of the game key (hand h deals from fold_in(key, h))
    hand: jax.Array  # [] int32 index of the current hand, 0-based
    player_at: jax.Array  # [N] int32 player id sitting at seat s
    seat_of: jax.Array  # [N] int32 seat of player id p
    alive: jax.Array  # [N] bool seat still in the game
    score: jax.Array  # [N] float32 final score per seat (set when placed / at the end)
    place: jax.Array  # [N] int32 best place of the span a seat finished in; 0 = open
    street_chips: jax.Array  # [4, N] int32 chips put in per street this hand, by seat
    street_raises: jax.Array  # [4, N] int32 bets/raises per street this hand, by seat
    decisions: jax.Array  # [N] int32 decisions each seat made this hand (a bot's action rank)
    last_actor: jax.Array  # [] int32 seat of the last decision (-1 before any)
    icm_due: jax.Array  # [] bool the game ended at the hand cap; ICM still to settle
    finished: jax.Array  # [] bool the game is over (scores final)
    format: Format  # the format's params (blinds, stacks, cap, payouts): vmappable

    @property
    def num_seats(self) -> int:
        return self.alive.shape[-1]


@struct.dataclass
class Decision:
    """What a decision-maker at the seat to act reads: the host view of one decision (the
    protocol's ``act`` message, `holdemjax.series.protocol.act_message`) and the input of the
    reference bots. Built by `decision` from a tournament or by `decision_at` for a lone hand.
    The table holds every card: a host shows the seat only its own hole cards and the visible
    board.
    """

    table: poker_table.Table  # the hand
    legal: poker_table.Legal  # what table.to_act may do
    hand: jax.Array  # [] int32 hand index (the ``hand`` coordinate of a bot draw)
    alive: jax.Array  # [N] bool seats still in the game
    decisions: jax.Array  # [N] int32 decisions each seat made this hand
    street_raises: jax.Array  # [4, N] int32 bets/raises per street and seat this hand


def _deal(fmt: Format, key, hand, stacks, alive, positions,
          can_end: bool = True) -> poker_table.Table:
    button, sb, bb, sb_posts = positions
    small, big, ante = blinds_at(fmt, hand)
    # hand_deck(key, hand) at the positions start_hand reads (the rest is never dealt).
    deck = dealt_deck(jax.random.wrap_key_data(key), hand, fmt.num_seats)
    return poker_table.start_hand(stacks, alive, button, sb, bb, sb_posts, small, big, ante, deck,
                                  can_end=can_end)


def start(key, fmt: Format) -> Tournament:
    """A new game under ``fmt`` from ``key`` (typed, or raw uint32[2] data): the players are
    seated, hand 0 is dealt (`seat`), and play goes on (`advance`) until a live seat must
    decide. When ``fmt`` is concrete and `first_hand_waits`, hand 0 always waits for a decision
    and `advance` would return its input: it is left out of the program."""
    t = seat(key, fmt)
    return t if first_hand_waits(fmt) else advance(t)


def first_hand_waits(fmt: Format) -> bool:
    """Whether hand 0 of every game under ``fmt`` starts with a decision (a static fact of a
    concrete format; False for a traced one): every seat keeps chips behind after posting the
    first level's big blind and ante, so the seat after the big blind faces a bet and nothing
    is over (no hand end, no elimination, no ICM)."""
    values = (fmt.starting_stack, fmt.big_blinds, fmt.antes)
    if any(isinstance(v, jax.core.Tracer) for v in values):
        return False
    stack, big, ante = (np.asarray(v) for v in values)
    return fmt.num_seats >= 2 and int(stack) > int(big.reshape(-1)[0]) + int(ante.reshape(-1)[0])


def seat(key, fmt: Format) -> Tournament:
    """`start` before its `advance`: the players seated and hand 0 dealt (which may be over
    already). A host that drives the hand boundaries itself (`advance_one`) starts here."""
    n = fmt.num_seats
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    k_seat, k_game = xla.split(key)  # jax.random.split(key), unrolled
    # jax.random.permutation(k_seat, n) and its argsort, exactly, without XLA's slow sort.
    player_at, seat_of = permutation_and_inverse(k_seat, n)
    alive = jnp.ones(n, bool)
    stacks = jnp.full(n, fmt.starting_stack, jnp.int32)
    positions = poker_table.first_positions(alive, n - 1)
    # Hand 0 of a format whose first hand waits cannot be over from the blinds: its deal
    # leaves the payout out of the program.
    table = _deal(fmt, k_game, jnp.int32(0), stacks, alive, positions,
                  can_end=not first_hand_waits(fmt))
    return Tournament(
        table=table,
        key=k_game,
        hand=jnp.int32(0),
        player_at=player_at,
        seat_of=seat_of,
        alive=alive,
        score=jnp.zeros(n, jnp.float32),
        place=jnp.zeros(n, jnp.int32),
        street_chips=jnp.zeros((NUM_STREETS, n), jnp.int32),
        street_raises=jnp.zeros((NUM_STREETS, n), jnp.int32),
        decisions=jnp.zeros(n, jnp.int32),
        last_actor=jnp.int32(-1),
        icm_due=jnp.bool_(False),
        finished=jnp.bool_(False),
        format=jax.tree.map(jnp.asarray, fmt),
    )


def lone_hand(table: poker_table.Table, hand=0) -> Tournament:
    """A `Tournament` that holds one dealt hand and nothing else, for hosts that play lone
    hands (duplicate deals, seat rotation): `act` plays its decisions and counts them, its
    chips and raises, as in a tournament. Every seat is its own player and still in, the
    counters start at zero; there is no format, so `advance`, `stop` and the scores do not
    apply."""
    n = table.num_seats
    zeros = jnp.zeros((NUM_STREETS, n), jnp.int32)
    seats = jnp.arange(n, dtype=jnp.int32)
    return Tournament(table=table, key=jnp.zeros(2, jnp.uint32), hand=jnp.asarray(hand, jnp.int32),
                      player_at=seats, seat_of=seats, alive=jnp.ones(n, bool),
                      score=jnp.zeros(n, jnp.float32), place=jnp.zeros(n, jnp.int32),
                      street_chips=zeros, street_raises=zeros, decisions=jnp.zeros(n, jnp.int32),
                      last_actor=jnp.int32(-1), icm_due=jnp.bool_(False),
                      finished=jnp.bool_(False), format=None)


def act(t: Tournament, kind, amount=0, pay: bool = True) -> Tournament:
    """One decision of the seat to act as the engine's exact action (`table.act`: FOLD,
    CHECK_CALL or RAISE with its raise-to, clamped by the engine's rules), and the per-hand
    counters. Does not go on: the table may have ``hand_over`` (its showdown and winnings still
    readable); `advance` next. ``pay=False`` (static) leaves a hand the decision ends unpaid
    (`table.pay_if_ended`) for `advance`, which pays it in the loop that deals the next hand:
    a step that pays in one place (the env's)."""
    kind = jnp.asarray(kind, jnp.int32)
    amount = jnp.asarray(amount, jnp.int32)
    old = t.table
    seat = jnp.maximum(old.to_act, 0)
    lg = poker_table.legal(old)
    new = poker_table.act(old, kind, amount, pay=pay)
    # Chips the decision put in, read back from the engine (which clamps the amount): the
    # stack went down by them, and at a hand's end the winnings were added back.
    added = old.stacks[seat] - new.stacks[seat] + jnp.where(new.hand_over, new.winnings[seat], 0)
    street = jnp.minimum(old.street, NUM_STREETS - 1)
    raised = ((jnp.clip(kind, poker_table.FOLD, poker_table.RAISE) == poker_table.RAISE)
              & lg.can_raise)
    return t.replace(
        table=new,
        street_chips=t.street_chips.at[street, seat].add(added),
        street_raises=t.street_raises.at[street, seat].add(raised.astype(jnp.int32)),
        decisions=t.decisions.at[seat].add(1),
        last_actor=seat,
    )


def places_of_busts(t: Tournament, busted, alive):
    """``(score, place)`` ``# [N] float32, [N] int32``: the seats busting in the hand that just
    ended (``busted``) placed and paid, and the winner once one seat is left (``alive``: the
    seats still in after the hand); the others keep theirs."""
    fmt = t.format
    table = t.table
    before = t.alive.sum()
    k = busted.sum()
    start_stacks = table.start_stacks
    both = busted[:, None] & busted[None, :]
    greater = (both & (start_stacks[None, :] > start_stacks[:, None])).sum(axis=1)
    equal = (both & (start_stacks[None, :] == start_stacks[:, None])).sum(axis=1)
    best = before - k + 1 + greater  # 1-based best place of the span
    worst = best + equal - 1
    cum = jnp.concatenate([jnp.zeros(1, jnp.float32), jnp.cumsum(fmt.payouts)])
    share = (cum[jnp.clip(worst, 0, fmt.num_seats)] - cum[jnp.clip(best - 1, 0, fmt.num_seats)])
    share = share / jnp.maximum(equal, 1)
    score = jnp.where(busted, share, t.score)
    place = jnp.where(busted, best, t.place)
    win = alive & (alive.sum() == 1)  # the last player left
    score = jnp.where(win, fmt.payouts[0], score)
    place = jnp.where(win, 1, place)
    return score.astype(jnp.float32), place.astype(jnp.int32)


def next_hand(t: Tournament, can_end: bool = True) -> Tournament:
    """One hand boundary, after a hand that is over: eliminate and place the busted seats, and
    end the game (one seat left or the hand cap) or deal the next hand (which may itself be
    over already: everyone all-in from the blinds; with ``can_end=False``, static, such a hand
    is left unpaid, nobody to act: `table.pay_if_ended`)."""
    fmt = t.format
    table = t.table
    busted = t.alive & (table.stacks == 0)
    alive = t.alive & ~busted
    left = alive.sum()
    at_cap = t.hand + 1 >= fmt.hand_cap
    over = (left <= 1) | at_cap
    if fmt.kind == RING:
        score = jnp.where(over, table.stacks / table.stacks.sum(), 0.0).astype(jnp.float32)
        place = t.place
        icm_due = jnp.bool_(False)
    else:
        score, place = places_of_busts(t, busted, alive)
        icm_due = over & at_cap & (left >= 2)  # scores of the seats still in: finish_by_icm
    hand = t.hand + 1
    positions = poker_table.next_positions(alive, table.button, table.sb, table.bb)
    nxt = _deal(fmt, t.key, hand, table.stacks, alive, positions, can_end)
    zeros = jnp.zeros_like(t.street_chips)
    ongoing = t.replace(table=nxt, hand=hand, alive=alive, score=score, place=place,
                        street_chips=zeros, street_raises=zeros,
                        decisions=jnp.zeros_like(t.decisions))
    ended = t.replace(alive=alive, score=score, place=place, icm_due=icm_due,
                      finished=jnp.bool_(True))
    # A field both sides leave as it was stays the same value (no select).
    return jax.tree.map(lambda a, b: a if a is b else jnp.where(over, a, b), ended, ongoing)


def open_payouts(alive, payouts) -> jax.Array:
    """``# [N] float32``: the payouts of the places still open (the first ``alive.sum()``
    places; the others are taken), 0 for the places already paid."""
    n = alive.shape[-1]
    return jnp.where(jnp.arange(n) < alive.sum(), payouts, 0.0)


def open_places_icm(stacks, alive, payouts) -> jax.Array:
    """``# [N] float32``: Malmuth-Harville ICM of the ``alive`` seats' ``stacks`` over the
    payouts of the places still open (`open_payouts`); 0 for the others' share of nothing. The
    one definition used at the hand cap, at the wall-time stop and by training's reward
    shaping."""
    return icm(jnp.where(alive, stacks, 0).astype(jnp.float32), open_payouts(alive, payouts))


def finish_by_icm(t: Tournament) -> Tournament:
    """At the hand cap (or the stop): the seats still in take `open_places_icm` of their
    chips as their scores."""
    equity = open_places_icm(t.table.stacks, t.alive, t.format.payouts)
    score = jnp.where(t.alive, equity.astype(jnp.float32), t.score)
    return t.replace(score=score, icm_due=jnp.bool_(False))


def advance(t: Tournament) -> Tournament:
    """Finish hands that are over and deal the next ones until a live seat's decision or the
    end (and settle by ICM at the hand cap). ``advance(act(t, ...))`` is one decision."""

    def pending(s):  # a hand over, or ended unpaid (`table.pay_if_ended`)
        return (s.table.hand_over | (s.table.to_act < 0)) & ~s.finished

    def boundary(s):  # every hand is paid here, then the next dealt (unpaid if over at once)
        return next_hand(s.replace(table=poker_table.pay_if_ended(s.table)), can_end=False)

    # Under vmap the sparse forms deal and settle only the rows that need it (see
    # holdemjax.sparse): a plain while_loop / cond would run them for every row.
    t = sparse_while(pending, boundary, t)
    return settle_if_due(t)


def boundary_due(t: Tournament) -> jax.Array:
    """``# [] bool``: `advance_one` has work to do (a hand over in a game that is not, or the
    ICM settlement due); otherwise it returns ``t`` unchanged."""
    return (t.table.hand_over & ~t.finished) | t.icm_due


def advance_one(t: Tournament) -> Tournament:
    """One pass of `advance`: at most one hand boundary (`next_hand`, when the hand is over and
    the game is not), then the ICM settlement if it is due. `advance` is `advance_one` repeated
    while the table has ``hand_over`` and the game is not ``finished``; a host that records
    every hand (also one dealt already over) steps through them with this. It is
    ``settle_if_due(next_hand_if_over(t))``: a host may run the two halves as two programs."""
    return settle_if_due(next_hand_if_over(t))


def next_hand_if_over(t: Tournament) -> Tournament:
    """`next_hand` when the hand is over and the game is not, else ``t``: `advance_one`'s
    first half (it may leave the ICM settlement due: ``icm_due``)."""
    return sparse_cond(t.table.hand_over & ~t.finished, next_hand, t)


def settle_if_due(t: Tournament) -> Tournament:
    """`finish_by_icm` when ``icm_due``, else ``t``: `advance_one`'s second half."""
    # The sparse form carries the scores alone (each carried leaf costs a gather and a scatter
    # per pass in the batched program); the rest of finish_by_icm is a select.
    score = sparse_cond(t.icm_due, lambda _: finish_by_icm(t).score, t.score)
    return t.replace(score=score, icm_due=jnp.bool_(False))


def stop(t: Tournament) -> Tournament:
    """End the game at the start of the current hand (the series' wall-time stop, taken at a
    hand boundary): the hand's blinds and ante go back (`Table.start_stacks`) and the seats
    still in settle as at the hand cap (ICM; RING formats: chips / chips in play). A finished
    game is returned unchanged."""
    table = t.table
    zeros = jnp.zeros_like(table.stacks)
    reset = table.replace(stacks=table.start_stacks, bets=zeros, contrib=zeros, dead=jnp.int32(0),
                          to_act=jnp.int32(poker_table.NO_SEAT),
                          street=jnp.int32(poker_table.HAND_OVER), hand_over=jnp.bool_(True))
    ended = t.replace(table=reset, finished=jnp.bool_(True))
    if t.format.kind == RING:
        score = (table.start_stacks / table.start_stacks.sum()).astype(jnp.float32)
        ended = ended.replace(score=score)
    else:
        ended = finish_by_icm(ended)
    return jax.tree.map(lambda a, b: jnp.where(t.finished, a, b), t, ended)


def player_scores(t: Tournament, zero_sum: bool = False) -> jax.Array:
    """``# [N] float32`` the scores by player id (they sum to 1); ``zero_sum`` (static)
    subtracts 1/N from each, so that they sum to 0."""
    final = t.score - (1.0 / t.num_seats if zero_sum else 0.0)
    return final[t.seat_of].astype(jnp.float32)


def final_places(t: Tournament) -> jax.Array:
    """``# [N] int32`` place of each seat (1 = best): the place a seat busted in, and for the
    seats still open (settled by ICM at the cap or the stop, and every seat of a RING game) the
    rank of their chips among them, ties by seat order. Meaningful once the game is over."""
    n = t.num_seats
    stacks = t.table.stacks
    open_ = t.place == 0
    seats = jnp.arange(n)
    ahead = open_[None, :] & ((stacks[None, :] > stacks[:, None])
                              | ((stacks[None, :] == stacks[:, None]) & (seats[None, :]
                                                                         < seats[:, None])))
    return jnp.where(open_, ahead.sum(axis=1) + 1, t.place).astype(jnp.int32)


def decision(t: Tournament) -> Decision:
    """The `Decision` view of the seat to act."""
    return Decision(table=t.table, legal=poker_table.legal(t.table), hand=t.hand, alive=t.alive,
                    decisions=t.decisions, street_raises=t.street_raises)


def decision_at(table: poker_table.Table, hand, decisions, street_raises, alive=None,
                legal: poker_table.Legal | None = None) -> Decision:
    """The `Decision` view of a lone hand's seat to act (duplicate deals, seat rotation):
    ``decisions # [N] int32``, ``street_raises # [4, N] int32`` counted by the caller, every
    seat in unless ``alive`` says otherwise. Works on device arrays (pure JAX) and, with
    ``legal`` given, on host numpy arrays without a JAX call."""
    n = table.stacks.shape[-1]
    if legal is None:
        legal = poker_table.legal(table)
    if alive is None:
        alive = jnp.ones(n, bool) if isinstance(table.stacks, jax.Array) else np.ones(n, bool)
    return Decision(table=table, legal=legal, hand=hand, alive=alive, decisions=decisions,
                    street_raises=street_raises)
