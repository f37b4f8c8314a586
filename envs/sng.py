"""Sit & go tournaments (`sng-6`, `sng-6-turbo`, `certify`) and the chip-count game `ring-9`,
as one pgx-style episode per game, thin on the rules engine `holdemjax.poker.table`.

Flow (all inside `step`, with `lax` control flow and fixed shapes): player ids are seated at
random at `init`; hand h deals from `cards.hand_deck(tournament_key, h)`; after a hand, busted
seats are eliminated and placed, the button and blinds move by the dead-button rule
(`table.next_positions`), the blind level follows the number of hands played, and the next hand
starts, until a live player must decide. A step therefore always returns at a decision of a
live player, or at the end of the game.

Scores (`rewards` at the terminal step, zero before; `zero_sum=True` subtracts 1/num_players):

* tournaments: places pay `Format.payouts`; a player busting earlier places lower; several
  busting in one hand are ordered by their stacks at the start of that hand (larger places
  higher), equal stacks share the payouts of the places they span; the last player left wins
  place 1; at the hand cap the players still in settle by Malmuth-Harville ICM over the
  payouts of the places still open. Scores sum to 1.
* `ring-9` (RING formats): score = chips at the end / chips in play (busted players 0); the game
  ends at the hand cap or when one player has all the chips. Raw chips: `state._chips`.

Actions: the discrete menu of `holdemjax.poker.actions.Menu` (FOLD, CHECK_CALL, MIN_RAISE, the
pot-fraction raises of the `raise_sizes` option, ALL_IN). An illegal action (masked) ends the
episode with the pgx penalty of `holdemjax.api` (−1 for the actor, +1/(n−1) for each other).
The observation is described in `holdemjax.envs.sng_obs` and docs/sng.md.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from holdemjax.api import Array, Env, State
from holdemjax.envs import sng_obs
from holdemjax.poker import table as tb
from holdemjax.poker.actions import DEFAULT_SIZES, Menu
from holdemjax.poker.cards import _unfused, dealt_deck, permutation_and_inverse, split_key_data
from holdemjax.poker.icm import icm
from holdemjax.poker.structure import FORMATS, RING, Format, blinds_at, check_compatible
from holdemjax.poker.structure import make_format
from holdemjax.sparse import sparse_cond, sparse_while

__all__ = ["SitAndGo", "SngState"]

NUM_STREETS = 4


@struct.dataclass
class SngState(State):
    observation: Array = None  # [OBS] float32, see sng_obs
    rewards: Array = None  # [N] float32
    legal_action_mask: Array = None  # [A] bool
    _table: tb.Table = None  # the current hand (after the last hand: its end)
    _key: Array = None  # [2] uint32 the tournament key's data (hand h deals from fold_in(key, h))
    _hand: Array = None  # [] int32 index of the current hand, 0-based
    _player_at: Array = None  # [N] int32 player id sitting at seat s
    _seat_of: Array = None  # [N] int32 seat of player id p
    _alive: Array = None  # [N] bool seat still in the game
    _score: Array = None  # [N] float32 final score per seat (set when placed / at the end)
    _place: Array = None  # [N] int32 best place of the span a seat finished in; 0 = open
    _street_chips: Array = None  # [4, N] int32 chips put in per street this hand, by seat
    _street_raises: Array = None  # [4, N] int32 bets/raises per street this hand, by seat
    _decisions: Array = None  # [N] int32 decisions each seat made this hand (a bot's action rank)
    _last_actor: Array = None  # [] int32 seat of the last decision (-1 before any)
    _icm_due: Array = None  # [] bool the game ended at the hand cap; ICM still to settle
    _format: Format = None  # the format's params (blinds, stacks, cap, payouts): vmappable
    _format_name: str = struct.field(pytree_node=False, default="sng-6")

    @property
    def env_id(self) -> str:
        return self._format_name

    @property
    def _chips(self) -> Array:
        """# [N] int32 chips of each seat (at the end: final chips)."""
        return self._table.stacks

    def to_svg(self) -> str:
        from holdemjax.render.table import render_table

        return render_table(self)


class SitAndGo(Env):
    """A whole tournament (or chip-count game) of `num_seats` players as one episode."""

    def __init__(self, *, raise_sizes=DEFAULT_SIZES, zero_sum: bool = False,
                 _format: str = "sng-6"):
        if _format not in FORMATS:
            raise ValueError(f"unknown format {_format!r}; known: {', '.join(FORMATS)}")
        if not isinstance(zero_sum, bool):
            raise ValueError(f"zero_sum must be a bool, got {zero_sum!r}")
        self.format_name = _format
        self.format: Format = make_format(**FORMATS[_format])
        self.menu = Menu(raise_sizes)
        self.zero_sum = zero_sum
        self.layout = sng_obs.layout(self.format.num_seats)

    id = property(lambda self: self.format_name)
    version = property(lambda self: "v0")
    num_players = property(lambda self: self.format.num_seats)

    # ------------------------------------------------------------------------ game hooks
    def init_with(self, key, fmt: Format) -> SngState:
        """A new game under the format params ``fmt`` instead of the env's own: formats are data,
        so ``jax.vmap(env.init_with)(keys, stack_formats(...))`` plays several formats in one
        batch (same seat count, scoring kind and number of blind levels as the env's, checked
        here; `step` then reads the format from the state)."""
        check_compatible(self.format, fmt)
        state = self._init(key, fmt)
        return state.replace(observation=self._observe(state, state.current_player))

    def _init(self, key, fmt: Format | None = None) -> SngState:
        fmt = self.format if fmt is None else fmt
        n = self.format.num_seats
        if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
            key = jax.random.key_data(key)
        k_seat, k_game = split_key_data(key)  # jax.random.split(key), unrolled
        # jax.random.permutation(k_seat, n) and its argsort, exactly, without XLA's slow sort.
        player_at, seat_of = permutation_and_inverse(k_seat, n)
        alive = jnp.ones(n, bool)
        stacks = jnp.full(n, fmt.starting_stack, jnp.int32)
        positions = tb.first_positions(alive, n - 1)
        table = self._deal(fmt, k_game, jnp.int32(0), stacks, alive, positions)
        state = SngState(
            current_player=jnp.int32(0),
            observation=jnp.zeros(self.layout.size, jnp.float32),
            rewards=jnp.zeros(n, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.zeros(self.menu.num_actions, bool),
            _step_count=jnp.int32(0),
            _table=table,
            _key=k_game,
            _hand=jnp.int32(0),
            _player_at=player_at,
            _seat_of=seat_of,
            _alive=alive,
            _score=jnp.zeros(n, jnp.float32),
            _place=jnp.zeros(n, jnp.int32),
            _street_chips=jnp.zeros((NUM_STREETS, n), jnp.int32),
            _street_raises=jnp.zeros((NUM_STREETS, n), jnp.int32),
            _decisions=jnp.zeros(n, jnp.int32),
            _last_actor=jnp.int32(-1),
            _icm_due=jnp.bool_(False),
            _format=jax.tree.map(jnp.asarray, fmt),
            _format_name=self.format_name,
        )
        return self._settle(state)

    def _step(self, state: SngState, action: Array, key) -> SngState:
        _, amounts = self.menu.mask_and_amounts(state._table, tb.legal(state._table))
        kind, amount = self.menu.to_engine(action, amounts)
        return self._settle(self._act(state, kind, amount))

    # ------------------------------------------------------ exact amounts (series, duplicate)
    def act_exact(self, state: SngState, kind, amount=0) -> SngState:
        """One decision of the seat to act as the engine's exact action (`table.FOLD`,
        `CHECK_CALL` or `RAISE` with its raise-to ``amount``, clamped by the engine's rules),
        without going on: the returned table may have ``hand_over`` (its showdown, winnings and
        cards still readable). Call `settle` next. Pure and jit-able; the host validates first
        (`table.check_action`) when it wants errors instead of clamping.
        """
        state = state.replace(_step_count=state._step_count + 1)
        return self._act(state, jnp.asarray(kind, jnp.int32), jnp.asarray(amount, jnp.int32))

    def settle(self, state: SngState) -> SngState:
        """After `act_exact`: finish the hand if it is over, eliminate, place, deal on until a
        live player's decision or the end; sets `current_player`, the mask, the observation and
        the terminal rewards exactly as `step` does. ``settle(act_exact(s, *engine action of
        menu action a))`` equals ``step(s, a)`` for a legal ``a``.
        """
        nxt = self._settle(state)
        done = nxt.terminated | nxt.truncated
        nxt = nxt.replace(legal_action_mask=jnp.where(done, True, nxt.legal_action_mask))
        return nxt.replace(observation=self._observe(nxt, nxt.current_player))

    def stop(self, state: SngState) -> SngState:
        """End the game at the start of the current hand (the series' wall-time stop, taken at a
        hand boundary): the hand's blinds and ante go back (`Table.start_stacks`) and the
        players still in settle as at the hand cap (ICM; RING formats: chips / chips in play).
        Pure and jit-able; a finished game is returned unchanged."""
        t = state._table
        zeros = jnp.zeros_like(t.stacks)
        table = t.replace(stacks=t.start_stacks, bets=zeros, contrib=zeros, dead=jnp.int32(0),
                          to_act=jnp.int32(tb.NO_SEAT), street=jnp.int32(tb.HAND_OVER),
                          hand_over=jnp.bool_(True))
        n = self.format.num_seats
        ended = state.replace(_table=table, terminated=jnp.bool_(True))
        if self.format.kind == RING:
            score = (t.start_stacks / t.start_stacks.sum()).astype(jnp.float32)
            final = score - (1.0 / n if self.zero_sum else 0.0)
            ended = ended.replace(_score=score, rewards=final[state._seat_of].astype(jnp.float32))
        else:
            ended = self._settle_by_icm(ended)
        ended = ended.replace(legal_action_mask=jnp.ones_like(state.legal_action_mask))
        ended = ended.replace(observation=self._observe(ended, ended.current_player))
        return jax.tree.map(lambda a, b: jnp.where(state.terminated, a, b), state, ended)

    def _act(self, state: SngState, kind: Array, amount: Array) -> SngState:
        t = state._table
        seat = jnp.maximum(t.to_act, 0)
        lg = tb.legal(t)
        new = tb.act(t, kind, amount)
        # Chips the decision put in, read back from the engine (which clamps the amount): the
        # stack went down by them, and at a hand's end the winnings were added back.
        added = t.stacks[seat] - new.stacks[seat] + jnp.where(new.hand_over, new.winnings[seat], 0)
        street = jnp.minimum(t.street, NUM_STREETS - 1)
        raised = (jnp.clip(kind, tb.FOLD, tb.RAISE) == tb.RAISE) & lg.can_raise
        return state.replace(
            _table=new,
            _street_chips=state._street_chips.at[street, seat].add(added),
            _street_raises=state._street_raises.at[street, seat].add(raised.astype(jnp.int32)),
            _decisions=state._decisions.at[seat].add(1),
            _last_actor=seat,
        )

    def _observe(self, state: SngState, player_id: Array) -> Array:
        return sng_obs.encode(self.layout, state._format, state, state._seat_of[player_id])

    # ------------------------------------------------------------------------- internals
    def _deal(self, fmt, key, hand, stacks, alive, positions) -> tb.Table:
        button, sb, bb, sb_posts = positions
        small, big, ante = blinds_at(fmt, hand)
        # hand_deck(key, hand) at the positions start_hand reads (the rest is never dealt).
        deck = dealt_deck(jax.random.wrap_key_data(key), hand, self.format.num_seats)
        return tb.start_hand(stacks, alive, button, sb, bb, sb_posts, small, big, ante, deck)

    def _settle(self, state: SngState) -> SngState:
        """Finish hands that are over and start the next ones until a decision or the end."""

        def pending(s):
            return s._table.hand_over & ~s.terminated

        # Under vmap the sparse forms deal and settle only the rows that need it (see
        # holdemjax.sparse): a plain while_loop / cond would run them for every row.
        state = sparse_while(pending, self._next_hand, state)
        state = sparse_cond(state._icm_due, self._settle_by_icm, state)
        t = state._table
        live = ~state.terminated
        mask, _ = self.menu.mask_and_amounts(t, tb.legal(t))
        current = state._player_at[jnp.maximum(t.to_act, 0)]
        last = state._player_at[jnp.maximum(state._last_actor, 0)]
        return state.replace(
            current_player=jnp.where(live, current, last).astype(jnp.int32),
            # Stored once: else XLA recomputes the legal range for each of the A entries.
            legal_action_mask=_unfused(mask & live),
        )

    def _next_hand(self, state: SngState) -> SngState:
        fmt, n = state._format, self.format.num_seats
        t = state._table
        busted = state._alive & (t.stacks == 0)
        alive = state._alive & ~busted
        left = alive.sum()
        at_cap = state._hand + 1 >= fmt.hand_cap
        over = (left <= 1) | at_cap
        if fmt.kind == RING:
            score = jnp.where(over, t.stacks / t.stacks.sum(), 0.0).astype(jnp.float32)
            place = state._place
            icm_due = jnp.bool_(False)
        else:
            score, place = self._places(state, busted, alive)
            icm_due = over & at_cap & (left >= 2)  # scores of the seats still in: ICM below
        final = score - (1.0 / n if self.zero_sum else 0.0)
        rewards = jnp.where(over, final[state._seat_of], 0.0).astype(jnp.float32)  # by player id
        hand = state._hand + 1
        positions = tb.next_positions(alive, t.button, t.sb, t.bb)
        nxt = self._deal(fmt, state._key, hand, t.stacks, alive, positions)
        zeros = jnp.zeros_like(state._street_chips)
        ongoing = state.replace(_table=nxt, _hand=hand, _alive=alive, _score=score, _place=place,
                                _street_chips=zeros, _street_raises=zeros,
                                _decisions=jnp.zeros_like(state._decisions))
        ended = state.replace(_alive=alive, _score=score, _place=place, rewards=rewards,
                              _icm_due=icm_due, terminated=jnp.bool_(True))
        return jax.tree.map(lambda a, b: jnp.where(over, a, b), ended, ongoing)

    def _settle_by_icm(self, state: SngState) -> SngState:
        """At the hand cap: the seats still in take Malmuth-Harville ICM over the open places."""
        fmt, n = state._format, self.format.num_seats
        alive = state._alive
        open_pay = jnp.where(jnp.arange(n) < alive.sum(), fmt.payouts, 0.0)
        equity = icm(jnp.where(alive, state._table.stacks, 0).astype(jnp.float32), open_pay)
        score = jnp.where(alive, equity.astype(jnp.float32), state._score)
        final = score - (1.0 / n if self.zero_sum else 0.0)
        return state.replace(_score=score, rewards=final[state._seat_of].astype(jnp.float32),
                             _icm_due=jnp.bool_(False))

    def _places(self, state: SngState, busted, alive):
        """Places and scores of the seats busting this hand (and of the winner)."""
        fmt = state._format
        t = state._table
        before = state._alive.sum()
        k = busted.sum()
        start = t.start_stacks
        both = busted[:, None] & busted[None, :]
        greater = (both & (start[None, :] > start[:, None])).sum(axis=1)
        equal = (both & (start[None, :] == start[:, None])).sum(axis=1)
        best = before - k + 1 + greater  # 1-based best place of the span
        worst = best + equal - 1
        cum = jnp.concatenate([jnp.zeros(1, jnp.float32), jnp.cumsum(fmt.payouts)])
        share = (cum[jnp.clip(worst, 0, fmt.num_seats)] - cum[jnp.clip(best - 1, 0, fmt.num_seats)])
        share = share / jnp.maximum(equal, 1)
        score = jnp.where(busted, share, state._score)
        place = jnp.where(busted, best, state._place)
        win = alive & (alive.sum() == 1)  # the last player left
        score = jnp.where(win, fmt.payouts[0], score)
        place = jnp.where(win, 1, place)
        return score.astype(jnp.float32), place.astype(jnp.int32)
