"""Leduc hold'em, with pgx's encodings (pgx `leduc_holdem` v0).

Rules. A six-card deck holds two Jacks, two Queens and two Kings (`DECK`, ranks J < Q < K). Each
of the 2 players antes `ANTE` = 1 chip and is dealt one private card; a third card is the public
card, revealed for the second betting round. Both rounds are limit betting: a raise puts the
raiser `RAISE_SIZES[round]` chips (2 in round 0, 4 in round 1) above the opponent, with at most
`MAX_RAISES` = 2 raises per round. `first_player` acts first in both rounds; players alternate.
A call (a check when there is nothing to call) closes the round unless it is the round's first
action. The game ends when a player folds (the opponent wins the folder's chips) or when the
call closing round 1 is made (showdown). At showdown a pair with the public card beats any
unpaired card, otherwise the higher card wins; equal cards split (rewards 0).

Chance: `init` draws from its key the first player (fair coin) and the deal (three cards without
replacement: player 0's, player 1's, the public card, each ordered draw of deck positions equally
likely); `step` uses no key. The split of a step (`holdemjax.api`: `step_deterministic`,
`chance_outcomes`, `chance_step`) deals the public card where the players see it dealt, at the
step that closes round 0: 3 outcomes (its rank), each with its share of the four cards neither
player holds.

Actions (3): `CALL` = 0 (call, or check), `RAISE` = 1, `FOLD` = 2. `CALL` is always legal;
`RAISE` while fewer than `MAX_RAISES` raises were made this round; `FOLD` only when facing a raise
(folding when there is nothing to call is illegal, as in pgx).

Observation `(34,)` bool from the observer's view: `OBS_HAND` = [0:3] own card one-hot (J, Q, K),
`OBS_PUBLIC` = [3:6] public card one-hot (set only while the round index `_round` is 1: during
round 1 and after a fold in round 0; clear after the final call or a fold in round 1, as in pgx),
`OBS_MY_CHIPS` = [6:20] own chips in the pot one-hot (0..13), `OBS_OPP_CHIPS` = [20:34] the
opponent's chips one-hot. That is pgx's; it can give two information sets one observation (a
check and no action yet in round 1; the order of a round's calls and raises).
`make("leduc_holdem", observe_history=True)` appends who acted and how, `(59,)`: `OBS_FIRST` =
[34] the observer acts first in each round, `OBS_MOVES` = [35:59] each round's first four
actions one-hot (CALL, RAISE, FOLD) in order (round 0's four, then round 1's); then no two
information sets share an observation (tests/envs/test_leduc_holdem.py enumerates them).
Rewards are zero until the end, then ±(loser's chips): a fold pays the
folder's chips to the opponent; a showdown pays the (equal) chips of each player to the winner.
At the end (and after a round closes) `current_player` is the first player, as in pgx.

Helpers for tree builders (pure, usable on Python ints or on jnp arrays, no env needed):
`CALL/RAISE/FOLD`, `JACK/QUEEN/KING`, `DECK`, `ANTE`, `RAISE_SIZES`, `MAX_RAISES`, `NUM_ROUNDS`,
`hand_strength(card, public)` (a pair scores above every unpaired card),
`showdown(card0, card1, public)` (+1 when player 0 wins, −1 when player 1 wins, 0 on a split) and
`legal_actions(raise_count, facing_raise)` (the (call, raise, fold) legality). The env's `step`
uses these, so a tree built from them follows the env's rules.
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched

__all__ = [
    "LeducHoldem", "LeducState", "CALL", "RAISE", "FOLD", "JACK", "QUEEN", "KING", "DECK",
    "ANTE", "RAISE_SIZES", "MAX_RAISES", "NUM_ROUNDS", "hand_strength", "showdown",
    "legal_actions",
]

CALL, RAISE, FOLD = 0, 1, 2  #: action ids
ACTION_NAMES = ("call", "raise", "fold")
NUM_ACTIONS = 3
JACK, QUEEN, KING = 0, 1, 2  #: card ranks
DECK = (JACK, JACK, QUEEN, QUEEN, KING, KING)  #: the six cards
ANTE = 1  #: chips each player puts in before the deal
RAISE_SIZES = (2, 4)  #: raise size in round 0 and in round 1
MAX_RAISES = 2  #: raises allowed per betting round
NUM_ROUNDS = 2
MAX_CHIPS = ANTE + MAX_RAISES * (RAISE_SIZES[0] + RAISE_SIZES[1])  # 13
OBS_HAND = slice(0, 3)
OBS_PUBLIC = slice(3, 6)
OBS_MY_CHIPS = slice(6, 6 + MAX_CHIPS + 1)
OBS_OPP_CHIPS = slice(6 + MAX_CHIPS + 1, 6 + 2 * (MAX_CHIPS + 1))
OBS_SIZE = OBS_OPP_CHIPS.stop  # 34
MAX_ROUND_ACTIONS = 2 + MAX_RAISES  # the longest round: call, raise, raise, call
OBS_FIRST = OBS_SIZE  # with observe_history
OBS_MOVES = slice(OBS_SIZE + 1, OBS_SIZE + 1 + NUM_ROUNDS * MAX_ROUND_ACTIONS * NUM_ACTIONS)
NO_ACTION = -1  # `_last_action` at the start of a betting round


def hand_strength(card, public):
    """A comparable score: a pair with the public card beats every unpaired card."""
    return card + 3 * (card == public)


def showdown(card0, card1, public):
    """+1 when player 0's card wins, -1 when player 1's wins, 0 on a split."""
    s0, s1 = hand_strength(card0, public), hand_strength(card1, public)
    return (s0 > s1) * 1 - (s0 < s1) * 1


def legal_actions(raise_count, facing_raise):
    """(call, raise, fold) legality: call always, raise below MAX_RAISES, fold facing a raise."""
    return (True, raise_count < MAX_RAISES, facing_raise)


@functools.cache
def _deal_table() -> np.ndarray:
    """[120, 3] ranks of every ordered draw of 3 distinct deck positions (uniform deal)."""
    return np.array([[DECK[i] for i in d] for d in itertools.permutations(range(6), 3)],
                    np.int32)


_NUM_DEALS = 120


@struct.dataclass
class LeducState(State):
    observation: Array = struct.field(default_factory=lambda: jnp.zeros(OBS_SIZE, jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(
        default_factory=lambda: jnp.array([True, True, False]))
    # Private fields; `_cards` and `_first_player` have pgx's names and meaning.
    _first_player: Array = struct.field(  # [] int32: acts first in each round
        default_factory=lambda: jnp.int32(0))
    _cards: Array = struct.field(  # [3] int32 ranks: player 0's, player 1's, the public card
        default_factory=lambda: jnp.zeros(3, jnp.int32))
    _chips: Array = struct.field(  # [2] int32: chips each player has in the pot
        default_factory=lambda: jnp.full(2, ANTE, jnp.int32))
    _round: Array = struct.field(  # [] int32: 0, 1; +1 when a round closes or on a fold
        default_factory=lambda: jnp.int32(0))
    _raise_count: Array = struct.field(  # [] int32: raises made in this round
        default_factory=lambda: jnp.int32(0))
    _last_action: Array = struct.field(  # [] int32: this round's last action, NO_ACTION at start
        default_factory=lambda: jnp.int32(NO_ACTION))
    _moves: Array = struct.field(  # [2, 4] int32: each round's actions, NO_ACTION where none
        default_factory=lambda: jnp.full((NUM_ROUNDS, MAX_ROUND_ACTIONS), NO_ACTION, jnp.int32))
    _reveal_pending: Array = struct.field(  # [] bool: an afterstate awaiting the public card
        default_factory=lambda: jnp.bool_(False))

    @property
    def env_id(self) -> str:
        return "leduc_holdem"

    def to_svg(self) -> str:
        return render_svg(self)


class LeducHoldem(Env):
    """Leduc hold'em; ``observe_history=True`` adds who acted and how to the observation (see
    the module), so distinct information sets never share one."""

    def __init__(self, *, observe_history: bool = False):
        super().__init__()
        if not isinstance(observe_history, bool):
            raise ValueError(f"observe_history must be True or False, got {observe_history!r}")
        self.observe_history = observe_history

    id = property(lambda self: "leduc_holdem")
    version = property(lambda self: "v0")
    num_players = property(lambda self: 2)

    def _init(self, key) -> LeducState:
        # One draw decides both: r % 2 is the first player, r // 2 the ordered deal.
        r = jax.random.randint(key, (), 0, 2 * _NUM_DEALS, jnp.int32)
        first = r % 2
        cards = jnp.asarray(_deal_table())[r // 2]
        return LeducState(current_player=first, _first_player=first, _cards=cards)

    def _step(self, state: LeducState, action: Array, key) -> LeducState:
        p = state.current_player
        p0 = p == 0
        c0, c1 = state._chips[0], state._chips[1]
        mine, theirs = jnp.where(p0, c0, c1), jnp.where(p0, c1, c0)
        is_call, is_raise, is_fold = action == CALL, action == RAISE, action == FOLD
        size = jnp.where(state._round == 0, RAISE_SIZES[0], RAISE_SIZES[1])
        new_mine = jnp.where(is_fold, mine, theirs + jnp.where(is_raise, size, 0))
        # A fold ends the game; a call closes the round unless it opened it.
        closes = is_fold | (is_call & (state._last_action != NO_ACTION))
        rnd = state._round + closes.astype(jnp.int32)
        done = is_fold | (rnd == NUM_ROUNDS)
        raises = jnp.where(closes, 0, state._raise_count + is_raise.astype(jnp.int32))
        # Rewards of player 0: a fold pays the folder's chips; a showdown the (equal) stakes.
        cards = state._cards
        fold_r0 = jnp.where(p0, -mine, mine)
        show_r0 = showdown(cards[0], cards[1], cards[2]) * theirs
        r0 = jnp.where(is_fold, fold_r0, jnp.where(done, show_r0, 0)).astype(jnp.float32)
        chips = jnp.stack([jnp.where(p0, new_mine, theirs), jnp.where(p0, theirs, new_mine)])
        mask = jnp.stack(legal_actions(raises, chips[0] != chips[1]))
        moves = state._moves
        if self.observe_history:  # the action into its round's first free slot
            cur = jnp.where(state._round == 0, moves[0], moves[1])
            slot = (cur != NO_ACTION).sum(dtype=jnp.int32)
            at = ((jnp.arange(NUM_ROUNDS) == state._round)[:, None]
                  & (jnp.arange(MAX_ROUND_ACTIONS) == slot)[None, :])
            moves = jnp.where(at, action.astype(jnp.int32), moves)
        return state.replace(
            current_player=jnp.where(closes, state._first_player, 1 - p),
            rewards=jnp.stack([r0, -r0]),
            terminated=done,
            legal_action_mask=mask,
            _chips=chips,
            _round=rnd,
            _raise_count=raises,
            _last_action=jnp.where(closes, NO_ACTION, action),
            _moves=moves,
        )

    # ----------------------------------------------------- the step split at its chance event
    # The public card is drawn by `init` and hidden until round 1; seen from the players, the
    # step that closes round 0 deals it: the split deals it there, from the four cards the two
    # players do not hold (`chance_outcomes`: a rank's share of them). Over the hidden draws of
    # `init`, `step` reveals each rank with exactly that probability.
    num_chance_outcomes = property(lambda self: 3)  # the public card's rank

    def _step_deterministic(self, state: LeducState, action: Array) -> LeducState:
        nxt = self._step(state, action, None)
        return nxt.replace(_reveal_pending=(nxt._round == 1) & (state._round == 0)
                           & ~nxt.terminated)

    def _chance_outcomes(self, state: LeducState) -> Array:
        left = 2 - (state._cards[:2, None] == jnp.arange(3)).sum(0)  # copies not in a hand
        none = jnp.arange(3) == 0
        return jnp.where(state._reveal_pending, left.astype(jnp.float32) / 4, none)

    def _chance_step(self, state: LeducState, outcome: Array) -> LeducState:
        public = jnp.where(state._reveal_pending, outcome, state._cards[2])
        return state.replace(_cards=state._cards.at[2].set(public),
                             _reveal_pending=jnp.bool_(False))

    def _observe(self, state: LeducState, player_id: Array) -> Array:
        me0 = player_id == 0
        c0, c1 = state._chips[0], state._chips[1]
        hand = jnp.where(me0, state._cards[0], state._cards[1])
        shown = (state._round == 1) & ~state._reveal_pending  # (an afterstate: not dealt yet)
        public = jnp.where(shown, OBS_PUBLIC.start + state._cards[2], -1)
        mine = OBS_MY_CHIPS.start + jnp.where(me0, c0, c1)
        theirs = OBS_OPP_CHIPS.start + jnp.where(me0, c1, c0)
        i = jnp.arange(OBS_SIZE, dtype=jnp.int32)
        obs = (i == hand) | (i == public) | (i == mine) | (i == theirs)
        if not self.observe_history:
            return obs
        moves = jax.nn.one_hot(state._moves, NUM_ACTIONS, dtype=jnp.bool_).reshape(-1)
        return jnp.concatenate([obs, (state._first_player == player_id)[None], moves])


def render_svg(state: LeducState) -> str:
    unbatched(state)
    names = "JQK"
    svg = Svg(420, 200, background="#0b6623")

    def card(x, y, text):
        svg.rect(x - 26, y - 36, 52, 72, rx=6, fill="white", stroke="black")
        svg.text(x, y, text, size=30)

    done = bool(state.terminated)
    for p in range(2):
        x = 70 + 280 * p
        turn = " *" if int(state.current_player) == p and not done else ""
        svg.text(x, 22, f"player {p}{turn}", fill="white")
        card(x, 90, names[int(state._cards[p])])
        svg.text(x, 146, f"chips: {int(state._chips[p])}", fill="white")
        if done:
            svg.text(x, 172, f"{float(state.rewards[p]):+g}", fill="yellow")
    shown = int(state._round) >= 1
    card(210, 90, names[int(state._cards[2])] if shown else "?")
    svg.text(210, 146, f"round {min(int(state._round), 1)}", fill="white")
    return str(svg)
