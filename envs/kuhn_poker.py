"""Kuhn poker, with pgx's encodings (pgx `kuhn_poker` v1).

Rules: a three-card deck J < Q < K; each player antes 1 chip and gets one card. Players alternate;
each action is 0 = BET (put one more chip in: a bet, or a call of a bet) or 1 = PASS (check, or
fold to a bet). The game ends on pass-pass (showdown for 1), bet-pass or pass-bet-pass (the bettor
wins 1), or when a bet is called (showdown for 2). The first player is drawn at `init` from the
key, as is the deal (one of the 6 ordered pairs of distinct cards, uniformly).

Observation `(7,)` bool from the observer's view: `[0:3]` own card one-hot (J, Q, K), `[3:5]` own
chips beyond the ante one-hot (0, 1), `[5:7]` the opponent's chips beyond the ante one-hot.
That is pgx's, and it gives two information sets one observation: the first player at the start
and the second player after a pass (no chips moved), and likewise after a bet and after
pass-bet. `make("kuhn_poker", observe_history=True)` appends who acted and how, `(12,)`:
`[7]` the observer acts first, `[8:10]` the game's first action one-hot (BET, PASS), `[10:12]`
its second; then no two information sets share an observation (tests/envs/test_kuhn_poker.py
enumerates them).
Rewards are chips won at the end: ±1 or ±2. Both actions are always legal, so the only illegal
actions are ids outside 0..1 (ended with the penalty of `holdemjax.api`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax import xla
from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched

__all__ = ["KuhnPoker", "KuhnState", "BET", "PASS", "JACK", "QUEEN", "KING"]

BET, PASS = 0, 1
JACK, QUEEN, KING = 0, 1, 2
NUM_ACTIONS = 2
OBS_CARD = slice(0, 3)
OBS_MY_CHIPS = slice(3, 5)
OBS_OPP_CHIPS = slice(5, 7)
OBS_FIRST = 7  # with observe_history: the observer acts first
OBS_MOVES = slice(8, 12)  # with observe_history: the first two actions, one-hot each
# The 6 ordered deals (card of player 0, card of player 1).
_DEALS = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))


def _rewards_table() -> np.ndarray:
    """[24, 2] float32: the rewards of a step at row ((history * 2 + bet) * 2 + mover) * 2 +
    (player 0 holds the higher card). Showdown (pass-pass or a called bet): the higher card wins
    the pot beyond the ante (1, or 2 with the call); a fold to a bet: the bettor wins 1."""
    table = np.zeros((3, 2, 2, 2, 2), np.float32)
    for history, bet, mover, high0 in np.ndindex(3, 2, 2, 2):
        called, folded = history == 2 and bet == 1, history == 2 and bet == 0
        showdown = (history == 1 and bet == 0) or called
        mine = bool(high0) == (mover == 0)  # the mover holds the higher card
        win = (1 + called) * (1 if mine else -1) if showdown else -1 if folded else 0
        table[history, bet, mover, high0, mover] = win
        table[history, bet, mover, high0, 1 - mover] = -win
    return table.reshape(24, 2)


_REWARDS = _rewards_table()


@struct.dataclass
class KuhnState(State):
    observation: Array = struct.field(default_factory=lambda: jnp.zeros(7, jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(default_factory=lambda: jnp.ones(2, jnp.bool_))
    # [2] card of player p
    _cards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.int32))
    # [2] chips beyond the ante
    _chips: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.int32))
    # [] 0 start, 1 a pass, 2 a bet
    _history: Array = struct.field(default_factory=lambda: jnp.int32(0))
    # [] the player who acts first; [2] the first two actions (-1: not yet), with observe_history
    _first: Array = struct.field(default_factory=lambda: jnp.int32(0))
    _moves: Array = struct.field(default_factory=lambda: jnp.full(2, -1, jnp.int32))

    @property
    def env_id(self) -> str:
        return "kuhn_poker"

    def to_svg(self) -> str:
        return render_svg(self)


class KuhnPoker(Env):
    """Kuhn poker; ``observe_history=True`` adds who acted and how to the observation (see the
    module), so distinct information sets never share one."""

    def __init__(self, *, observe_history: bool = False):
        super().__init__()
        if not isinstance(observe_history, bool):
            raise ValueError(f"observe_history must be True or False, got {observe_history!r}")
        self.observe_history = observe_history

    id = property(lambda self: "kuhn_poker")
    version = property(lambda self: "v1")
    num_players = property(lambda self: 2)

    def _init(self, key) -> KuhnState:
        # jax.random's split, randint and bernoulli, bit for bit, with the hash unrolled (an
        # auto-reset loop runs init at every step; JAX's rolled hash cost more than the game).
        k_first, k_deal = xla.split_at(key, 0), xla.split_at(key, 1)
        deal = jnp.asarray(_DEALS, jnp.int32)[xla.randint(k_deal, (), 0, 6)]
        first = xla.bernoulli(k_first).astype(jnp.int32)
        return KuhnState(current_player=first, _cards=deal, _first=first)

    def _step(self, state: KuhnState, action: Array, key) -> KuhnState:
        p = state.current_player
        bet = action == BET
        facing_bet = state._history == 2
        # Selects instead of a scatter and gathers at the player's index: under vmap those
        # become batched scatter/gather kernels, these fuse with the rest of the step.
        me = jnp.arange(2) == p
        chips = state._chips + (me & bet).astype(jnp.int32)
        # History codes: 0 start; 1 one pass; 2 a bet was made (first action or after a pass).
        pass_pass = (state._history == 1) & ~bet
        called = facing_bet & bet
        folded = facing_bet & ~bet
        showdown = pass_pass | called
        done = showdown | folded
        history = jnp.where(bet, 2, jnp.where(state._history == 0, 1, state._history))
        # The rewards: one read of a table by (history, bet, mover, player 0 holds the higher
        # card) rather than selects per player, so that the rewards kernel stays small enough
        # for XLA's CPU to keep it on one thread.
        high0 = (state._cards[0] > state._cards[1]).astype(jnp.int32)
        row = ((state._history * 2 + bet.astype(jnp.int32)) * 2 + p) * 2 + high0
        moves = state._moves
        if self.observe_history:  # the action into the first free slot (a third ends the game)
            slot = (moves >= 0).sum(dtype=jnp.int32)
            moves = jnp.where(jnp.arange(2) == slot, action.astype(jnp.int32), moves)
        return state.replace(
            current_player=1 - p,
            rewards=jnp.asarray(_REWARDS)[row],
            terminated=done,
            _chips=chips,
            _history=history,
            _moves=moves,
        )

    def _observe(self, state: KuhnState, player_id: Array) -> Array:
        first = player_id == 0
        card = jnp.where(first, state._cards[0], state._cards[1])
        chips, other = (jnp.where(first, state._chips[0], state._chips[1]),
                        jnp.where(first, state._chips[1], state._chips[0]))
        card = jax.nn.one_hot(card, 3, dtype=jnp.bool_)
        mine = jax.nn.one_hot(chips, 2, dtype=jnp.bool_)
        theirs = jax.nn.one_hot(other, 2, dtype=jnp.bool_)
        if not self.observe_history:
            return jnp.concatenate([card, mine, theirs])
        moves = jax.nn.one_hot(state._moves, 2, dtype=jnp.bool_).reshape(4)  # -1: no bit
        return jnp.concatenate([card, mine, theirs, (state._first == player_id)[None], moves])


def render_svg(state: KuhnState) -> str:
    unbatched(state)
    names = "JQK"
    svg = Svg(320, 180, background="#0b6623")
    for p in range(2):
        x = 80 + 160 * p
        svg.rect(x - 30, 50, 60, 84, rx=6, fill="white", stroke="black")
        svg.text(x, 92, names[int(state._cards[p])], size=34)
        svg.text(x, 24, f"player {p}" + (" *" if int(state.current_player) == p
                                         and not bool(state.terminated) else ""), fill="white")
        svg.text(x, 152, f"in: {1 + int(state._chips[p])}", fill="white")
        if bool(state.terminated):
            svg.text(x, 170, f"{float(state.rewards[p]):+g}", fill="yellow")
    return str(svg)
