"""Sit & go tournaments (`sng-6`, `sng-6-turbo`, `certify`) and the chip-count game `ring-9`,
as one pgx-style episode per game: the RL adapter over the tournament engine
`holdemjax.poker.tournament` (which holds every tournament rule: seating, dealing, eliminations,
places, ICM at the hand cap, the stop at a hand boundary).

This module adds what RL needs: the observation (`holdemjax.envs.sng_obs`), the discrete action
menu and its legal mask (`holdemjax.poker.actions.Menu`), player ids to act, and rewards. The
state holds the tournament as one private field (as pgx keeps ``_x``); read it with
``env.tournament(state)`` (its fields are public and documented there) and the view of the
decision waiting with ``env.decision(state)``.

Flow (all inside `step`, with `lax` control flow and fixed shapes): player ids are seated at
random at `init`; hand h deals from `cards.hand_deck(tournament_key, h)`; after a hand, busted
seats are eliminated and placed, the button and blinds move by the dead-button rule, the blind
level follows the number of hands played, and the next hand starts, until a live player must
decide. A step therefore always returns at a decision of a live player, or at the end of the game.

Scores (`rewards` at the terminal step, zero before; `zero_sum=True` subtracts 1/num_players):
the tournament's `player_scores` (places pay `Format.payouts`, ICM at the hand cap; `ring-9`:
chips at the end / chips in play). Scores sum to 1. Raw chips:
``env.tournament(state).table.stacks``.

Chance (`holdemjax.api`'s split of a step): every card of a hand is drawn at its deal (from
the tournament's key, `cards.hand_deck`) and hidden until shown, so `step` takes no key. Seen
from the table, the chance event of a step is the first board card it shows in the hand being
played (the flop's first card, the turn, the river, or the first of an all-in run-out), a
uniform draw from the `cards.unseen` cards (no seat position holds them, not shown yet):
``num_chance_outcomes`` is 52, the outcome a card id. `step_deterministic` returns the state
before the step with the action recorded (``_pending_action``; ``_reveal_pending`` when the
step shows a board card): its observation, player to act and mask are still the decision's.
`chance_step` puts the outcome at that board position (`cards.put_on_board`: swapped with the
later board position holding it, else in place of the card there, which keeps the rest of the
board a uniform draw) and plays the step on that board: the run-out, showdown, payout,
eliminations and the hands dealt after it follow from it. A step that shows no board card
(a bet, a fold, a hand ended by folds, a new hand's deal) has outcome 0 with probability 1; the
hole cards of the hands a step deals, and the board cards after the first, come from the
hidden deck as `step` deals them.

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
from holdemjax.poker import cards
from holdemjax.poker import table as poker_table
from holdemjax.poker import tournament as poker_tournament
from holdemjax.poker.actions import DEFAULT_SIZES, Menu
from holdemjax.poker.cards import NUM_CARDS
from holdemjax.poker.structure import FORMATS, Format, check_compatible, make_format

__all__ = ["SitAndGo", "SngState", "NO_ACTION"]

NO_ACTION = -1  # `SngState._pending_action` of every state but an afterstate


@struct.dataclass
class SngState(State):
    observation: Array = None  # [OBS] float32, see sng_obs
    rewards: Array = None  # [N] float32 by player id
    legal_action_mask: Array = None  # [A] bool
    _x: poker_tournament.Tournament = None  # the tournament (read it with env.tournament(state))
    # An afterstate (`step_deterministic`) is the state before its step with these set; every
    # other state has -1 and False.
    _pending_action: Array = None  # [] int32 the menu action its step awaits, -1 for none
    _reveal_pending: Array = None  # [] bool that step reveals a board card: the chance event
    _format_name: str = struct.field(pytree_node=False, default="sng-6")

    @property
    def env_id(self) -> str:
        return self._format_name

    def to_svg(self) -> str:
        from holdemjax.render.table import render_table

        return render_table(self._x, over=self.terminated, title=self.env_id)


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

    # --------------------------------------------------------------------- public accessors
    @staticmethod
    def tournament(state: SngState) -> poker_tournament.Tournament:
        """The tournament engine's state (`holdemjax.poker.tournament.Tournament`): the table,
        seating, places, scores and counters, all public fields."""
        return state._x

    @staticmethod
    def decision(state: SngState) -> poker_tournament.Decision:
        """The view of the decision ``state`` waits for (`tournament.Decision`): what the
        reference bots and the protocol's ``act`` message read."""
        return poker_tournament.decision(state._x)

    @staticmethod
    def with_tournament(state: SngState, t: poker_tournament.Tournament) -> SngState:
        """``state`` holding the tournament ``t`` instead (same shapes); call `advance` next
        to bring the player to act, the mask and the observation up to date."""
        return state.replace(_x=t)

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
        state = SngState(
            current_player=jnp.int32(0),
            observation=jnp.zeros(self.layout.size, jnp.float32),
            rewards=jnp.zeros(n, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=jnp.zeros(self.menu.num_actions, bool),
            _step_count=jnp.int32(0),
            _x=poker_tournament.start(key, fmt),
            _pending_action=jnp.int32(NO_ACTION),
            _reveal_pending=jnp.bool_(False),
            _format_name=self.format_name,
        )
        return self._after(state, jnp.bool_(False))

    def _step(self, state: SngState, action: Array, key) -> SngState:
        kind, amount = self.menu.engine_action(state._x.table, action)
        was_over = state._x.finished
        # pots paid in one place
        t = poker_tournament.advance(poker_tournament.act(state._x, kind, amount, pay=False))
        return self._after(state.replace(_x=t), was_over)

    # ----------------------------------------------------- the step split at its chance event
    # Every card of a hand is fixed at its deal and hidden until shown (`cards.hand_deck`);
    # seen from the table, a step that shows board cards deals the first of them from the cards
    # `cards.unseen` (no seat position holds them, not shown yet). The afterstate is the state
    # before the step with the action recorded; `chance_step` puts the outcome card at that
    # board position (`cards.put_on_board`, which keeps the rest of the board a uniform draw)
    # and plays the step on that board: its run-out, showdown, payout, eliminations and the
    # hands dealt after it all follow from it. Over the hidden decks `step` shows each card
    # with exactly the probability `chance_outcomes` gives (tests/envs/test_sng_invariants.py).
    num_chance_outcomes = property(lambda self: NUM_CARDS)  # the first board card shown

    def _step_deterministic(self, state: SngState, action: Array) -> SngState:
        table = state._x.table
        shown = poker_table.act(table, *self.menu.engine_action(table, action)).revealed
        return state.replace(_pending_action=action.astype(jnp.int32),
                             _reveal_pending=shown > table.revealed)

    def _chance_outcomes(self, state: SngState) -> Array:
        table = state._x.table
        left = cards.unseen(table.hole, table.board, table.revealed).astype(jnp.float32)
        none = (jnp.arange(NUM_CARDS) == 0).astype(jnp.float32)
        return jnp.where(state._reveal_pending, left / left.sum(), none)

    def _chance_step(self, state: SngState, outcome: Array) -> SngState:
        t = state._x
        table = t.table
        board = cards.put_on_board(table.board, table.revealed, outcome)
        board = jnp.where(state._reveal_pending, board, table.board)
        # The state the step started from (`Env.step` counts the step and zeroes the rewards
        # before the move; an illegal action's end is put back after it, as `Env.step` does).
        before = state.replace(
            _x=t.replace(table=poker_table.with_cards(table, table.hole, board)),
            terminated=jnp.bool_(False), rewards=jnp.zeros_like(state.rewards),
            _pending_action=jnp.int32(NO_ACTION), _reveal_pending=jnp.bool_(False))
        nxt = self._step(before, state._pending_action, None)
        nxt = nxt.replace(terminated=nxt.terminated | state.terminated,
                          rewards=jnp.where(state.terminated, state.rewards, nxt.rewards))
        return jax.lax.cond(state._pending_action == NO_ACTION, lambda: state, lambda: nxt)

    # ------------------------------------------------------ exact amounts (series, duplicate)
    def act_exact(self, state: SngState, kind, amount=0) -> SngState:
        """One decision of the seat to act as the engine's exact action (`table.FOLD`,
        `CHECK_CALL` or `RAISE` with its raise-to ``amount``, clamped by the engine's rules),
        without going on: the returned table may have ``hand_over`` (its showdown, winnings and
        cards still readable). Call `advance` next. Pure and jit-able; the host validates first
        (`holdemjax.host.legal.admitted`) when it wants errors instead of clamping.
        """
        state = state.replace(_step_count=state._step_count + 1)
        return state.replace(_x=poker_tournament.act(state._x, kind, amount))

    def advance(self, state: SngState) -> SngState:
        """After `act_exact` (or `with_tournament`): finish the hand if it is over, eliminate,
        place, deal on until a live player's decision or the end; sets `current_player`, the
        mask, the observation and the terminal rewards exactly as `step` does.
        ``advance(act_exact(s, *engine action of menu action a))`` equals ``step(s, a)`` for a
        legal ``a``.
        """
        was_over = state._x.finished
        nxt = self._after(state.replace(_x=poker_tournament.advance(state._x)), was_over)
        done = nxt.terminated | nxt.truncated
        nxt = nxt.replace(legal_action_mask=jnp.where(done, True, nxt.legal_action_mask))
        return nxt.replace(observation=self._observe(nxt, nxt.current_player))

    def stop(self, state: SngState) -> SngState:
        """End the game at the start of the current hand (the series' wall-time stop, taken at a
        hand boundary): `tournament.stop` (blinds and ante back, the players still in settle as
        at the hand cap), with the rewards, mask and observation of a terminal state. Pure and
        jit-able; a finished game is returned unchanged."""
        t = poker_tournament.stop(state._x)
        ended = state.replace(_x=t, terminated=jnp.bool_(True),
                              rewards=poker_tournament.player_scores(t, self.zero_sum))
        ended = ended.replace(legal_action_mask=jnp.ones_like(state.legal_action_mask))
        ended = ended.replace(observation=self._observe(ended, ended.current_player))
        return jax.tree.map(lambda a, b: jnp.where(state.terminated, a, b), state, ended)

    def _observe(self, state: SngState, player_id: Array) -> Array:
        t = state._x
        return sng_obs.encode(self.layout, t, t.seat_of[player_id])

    # ------------------------------------------------------------------------- internals
    def _after(self, state: SngState, was_over: Array) -> SngState:
        """The RL view of an advanced tournament: the player to act (the last actor's once the
        game is over), the legal menu, and the scores as rewards on the step that ended it."""
        t = state._x
        ended_now = t.finished & ~was_over
        scores = poker_tournament.player_scores(t, self.zero_sum)
        rewards = jnp.where(ended_now, scores, state.rewards)
        terminated = state.terminated | t.finished
        live = ~terminated
        current = t.player_at[jnp.maximum(t.table.to_act, 0)]
        last = t.player_at[jnp.maximum(t.last_actor, 0)]
        return state.replace(
            rewards=rewards.astype(jnp.float32),
            terminated=terminated,
            current_player=jnp.where(live, current, last).astype(jnp.int32),
            legal_action_mask=self.menu.legal_mask(t.table, poker_table.legal(t.table), live),
        )
