"""The luck of sit & go tournaments (`holdemjax.luck`, docs/luck.md): every hand's chance
corrections (`holdemjax.luck.hands`) under `tournament_value` (what the tournament makes of the
stacks a hand ends with: places of its busts, ICM of the rest), whose changes over the hands
telescope to the score, and AIVAT's action corrections at the decisions of a player whose
policy probabilities are known (`action_luck`): the check-down value after the action taken
less its mean over the actions the policy could have taken (mean zero given the history,
whatever the value). `step_luck` is the luck of one `env.step` by player id, beside it
(`first_luck`: the first deal), `decision_luck` the same on the engine's `Tournament`.
Everything is pure JAX (fixed shapes, vmap-able).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from holdemjax import xla
from holdemjax.luck.hands import (
    PREFLOP_SAMPLES,
    VISIBLE,
    Value,
    _boards,
    _end_stacks,
    _halves,
    _index,
    _mean_values,
    _random_deals,
    reveal_correction,
)
from holdemjax.luck.learned import StateValue, chance_term
from holdemjax.poker import table as poker_table
from holdemjax.poker import tournament
from holdemjax.poker.actions import FOLD as MENU_FOLD
from holdemjax.poker.cards import NUM_CARDS
from holdemjax.poker.structure import RING
from holdemjax.sparse import sparse_cond, sparse_while

__all__ = ["EVENTS", "DEAL_EVENT", "ACTION_EVENT", "tournament_value", "blinds_table",
           "dealt_luck", "decision_luck", "action_values", "action_terms", "action_luck",
           "first_luck", "step_luck", "games_first_luck", "games_step_luck",
           "games_chance_luck"]

#: The kinds of event of a tournament, rows of ``by_event`` luck and event ids under a hand's
#: key (``fold_in(fold_in(game key, hand), event)``): the deal (or the whole of a hand the
#: blinds alone played), board cards coming out with 0, 3 or 4 of them shown before, and the
#: actions of players whose policy probabilities are known (`action_luck`).
EVENTS = ("deal", "from pre-flop", "from the flop", "from the turn", "actions")
DEAL_EVENT = 0
ACTION_EVENT = 4


def tournament_value(t: tournament.Tournament) -> Value:
    """The value of the stacks at the end of the hand ``t`` is in, as the tournament scores
    them (`tournament.places_of_busts`: a seat the hand busts takes its place, busts of one hand
    ordered by their stacks at its start; the seats left `tournament.open_places_icm` of their
    chips over the places still open, the score at the hand cap and at the stop too; seats out
    before the hand keep their scores). Summed over a game's hands, the change of this value
    from each hand's start to its end is the game's score less the even share (it telescopes).
    RING formats score chips at the end over chips in play."""
    if t.format.kind == RING:
        return lambda stacks: jnp.asarray(stacks, jnp.float32) / stacks.sum()

    def value(stacks):
        busted = t.alive & (stacks == 0)
        alive = t.alive & ~busted
        score, _ = tournament.places_of_busts(t, busted, alive)
        equity = tournament.open_places_icm(stacks, alive, t.format.payouts)
        return jnp.where(alive, equity, score).astype(jnp.float32)
    return value


def blinds_table(table: poker_table.Table) -> poker_table.Table:
    """The table right after the blinds (`table.start_hand(..., can_end=False)`) of the hand
    ``table`` holds, rebuilt from its public fields: for a hand the blinds alone ended (nobody
    could act), whose table is paid out already. (Of a hand waiting for its first decision it
    is that table, ``to_act`` aside.)"""
    posted = table.start_stacks - (table.stacks - table.winnings)
    sb_posts = posted[table.sb] > 0
    start = poker_table.start_hand(table.start_stacks, table.in_hand, table.button, table.sb,
                                   table.bb, sb_posts, table.small_blind, table.big_blind,
                                   table.ante, jnp.arange(NUM_CARDS, dtype=jnp.int32),
                                   can_end=False)
    return poker_table.with_cards(start, table.hole, table.board)


def _hand_key(key, hand, event):
    return xla.fold_in(xla.fold_in(key, hand), event)


def dealt_luck(t: tournament.Tournament, key) -> jax.Array:
    """``# [N] float32`` by seat: the luck of the deal of the hand ``t`` has just dealt (``t``
    not finished), drawn with the game's luck ``key`` addressed by the hand. A hand waiting for
    a decision: `deal_correction` (the same draws). A hand the blinds alone played out (nobody
    could act): its deal and board are one chance event, so its luck is its actual end's value
    less the mean over deals (`PREFLOP_SAMPLES`) of the check-down from the blinds
    (`blinds_table`): what is left of it is that mean, which nobody's play changed."""
    value, k = tournament_value(t), _hand_key(key, t.hand, DEAL_EVENT)
    table = t.table
    start = blinds_table(table)
    n, samples = table.num_seats, PREFLOP_SAMPLES
    k_board, k_deal = xla.split(k)
    boards, _ = _boards(start, 0, k_board, samples)
    deal_holes, deal_boards = _random_deals(n, k_deal, samples)
    holes = jnp.concatenate([jnp.broadcast_to(start.hole, (samples, n, 2)), deal_holes])
    ends = _end_stacks(start, jnp.concatenate([boards, deal_boards]), holes)
    means = _mean_values(ends, _halves(samples), value)
    dealt = jnp.where(table.hand_over, value(table.stacks), means[0])
    return (dealt - means[1]).astype(jnp.float32)


def decision_luck(t: tournament.Tournament, kind, amount, key, by_event: bool = False) -> jax.Array:
    """``# [N] float32`` by seat: the luck of one decision of the tournament ``t`` (the engine's
    exact action) and of everything it leads to before the next decision, as
    ``tournament.advance(tournament.act(t, kind, amount))`` plays it: the board cards it brings
    out (`reveal_correction` on its chips in, `table.decided`), then each hand dealt after it
    (`dealt_luck`: the one that waits for the next decision, and every hand in between that the
    blinds alone played). ``key`` is the game's luck key (the same at every decision: draws are
    addressed by hand and event). Zero for a finished game. ``by_event`` (static): ``# [5, N]``,
    a row per kind of event (`EVENTS`; the actions' row is `action_luck`'s, zero here). Under
    ``vmap`` only the rows with a reveal or a new hand compute them (`holdemjax.sparse`)."""
    table = t.table
    deciding = ~t.finished & ~table.hand_over & (table.to_act >= 0)
    after = tournament.act(t, kind, amount)
    shown, now = table.revealed, after.table.revealed
    brought = deciding & (now > shown)
    mid = poker_table.decided(table, kind, amount)
    row = 1 + _index(shown)
    k_reveal = _hand_key(key, t.hand, row)
    zeros = jnp.zeros((len(EVENTS), t.num_seats), jnp.float32)
    luck = sparse_cond(brought, lambda z: z.at[row].add(reveal_correction(
        mid, shown, now, tournament_value(t), k_reveal)), zeros)

    def next_hand(carry):
        game, total = carry
        nxt = tournament.next_hand(game)
        dealt = jnp.where(nxt.finished, 0.0, dealt_luck(nxt, key))
        return nxt, total.at[DEAL_EVENT].add(dealt)

    def pending(carry):
        game = carry[0]
        return deciding & game.table.hand_over & ~game.finished

    _, luck = sparse_while(pending, next_hand, (after, luck))
    return luck if by_event else luck.sum(axis=0)


def action_values(table: poker_table.Table, value: Value, key, need=True) -> jax.Array:
    """``# [2, N] float32``: the check-down values (`holdemjax.luck.hands.check_down_values`
    at the board cards shown, the same boards for both) of the decision waiting at ``table``
    had it folded (row 0) or checked or called (row 1), its chips in (`table.decided`). In a
    check-down every raise is worth the call: nobody calls it, so the engine returns what no
    other seat matched (tested on real decisions). Only the street's level is computed, and
    under ``vmap`` only for the rows with ``need`` (`holdemjax.sparse`; zeros elsewhere)."""
    tables = jax.tree.map(lambda f, c: jnp.stack([f, c]),
                          poker_table.decided(table, poker_table.FOLD, 0),
                          poker_table.decided(table, poker_table.CHECK_CALL, 0))
    out = jnp.zeros((2, table.num_seats), jnp.float32)
    for visible in VISIBLE:
        def level(z, visible=visible):
            boards, weights = _boards(table, visible, key, PREFLOP_SAMPLES)
            ends = jax.vmap(lambda t: _end_stacks(t, boards))(tables).reshape(
                -1, table.num_seats)
            m = weights.shape[0]
            both = jnp.zeros((2, 2 * m), jnp.float32).at[0, :m].set(weights).at[1, m:].set(
                weights)
            return z + _mean_values(ends, both, value)
        out = sparse_cond(need & (table.revealed == visible), level, out)
    return out


def action_terms(values: jax.Array, probs: jax.Array) -> jax.Array:
    """``# [M, N]``: AIVAT's action correction had each menu action been taken, ``values[a]
    - sum_b probs[b] values[b]`` (``values # [M, N]``: the value after each action; ``probs #
    [M]``: the policy's probabilities, actions it never takes weigh nothing whatever their
    value). Its mean under ``probs`` is zero: the action's luck, mean zero given the history."""
    mean = jnp.where(probs[:, None] > 0, probs[:, None] * values, 0.0).sum(axis=0)
    return (values - mean).astype(jnp.float32)


def action_luck(t: tournament.Tournament, probs: jax.Array, action, key) -> jax.Array:
    """``# [N] float32`` by seat: the action correction of the decision waiting in ``t`` (a
    menu action; ``probs # [M]``: the probabilities of the policy that took it, over the same
    menu, all zero when unknown: no correction), under `tournament_value` with check-downs
    (`action_values`: the fold's value for FOLD, the call's for every other action). Zero for
    a finished game, an unknown policy, and where the policy folds never or surely (every
    action it may take is then worth the same). ``key``: the game's luck key; pre-flop values
    are sampled on the boards the street's reveal correction draws (its hand and event key),
    independent of the actor's draw and of the cards."""
    table = t.table
    deciding = ~t.finished & ~table.hand_over & (table.to_act >= 0)
    p_fold = probs[MENU_FOLD]
    need = deciding & (p_fold > 0) & (p_fold < 1)
    k = _hand_key(key, t.hand, 1 + _index(table.revealed))  # the street's reveal's samples
    both = action_values(table, tournament_value(t), k, need)
    values = both[(jnp.arange(probs.shape[0]) != MENU_FOLD).astype(jnp.int32)]  # [M, N]
    a = jnp.clip(jnp.asarray(action, jnp.int32), 0, probs.shape[0] - 1)
    return jnp.where(need, action_terms(values, probs)[a], 0.0).astype(jnp.float32)


def first_luck(env, state, key, by_event: bool = False) -> jax.Array:
    """``# [N] float32`` by player id: the luck of the deal a sit & go game (``env``, a
    `SitAndGo`, after ``env.init``) starts with: `dealt_luck` of its first hand (``by_event``:
    ``# [5, N]``, in the deal's row). Its formats' first hands always wait for a decision
    (`tournament.first_hand_waits`), checked here."""
    if not tournament.first_hand_waits(env.format):
        raise ValueError(f"{env.id}: the first hand may end from the blinds; luck starts at a "
                         "decision")
    t = env.tournament(state)
    luck = dealt_luck(t, key)[t.seat_of]
    if not by_event:
        return luck
    return jnp.zeros((len(EVENTS), t.num_seats), jnp.float32).at[DEAL_EVENT].set(luck)


def step_luck(env, state, action, key, by_event: bool = False, probs=None) -> jax.Array:
    """``# [N] float32`` by player id: the luck of ``env.step(state, action)`` (`decision_luck`
    of the menu action's exact action; zero for a finished game or a masked action, which ends
    it; ``by_event``: ``# [5, N]``). ``probs # [M]``: the probabilities over the menu of the
    policy of the player to act, the one that picked ``action`` (a row of zeros or None:
    unknown), adds its action correction (`action_luck`, the "actions" row). Pure, beside
    `step`: ``jax.vmap(step_luck, (None, 0, 0, 0))``. A game's corrected scores are its rewards
    less the sum of `first_luck` and every step's luck: the same mean, the luck taken out."""
    t = env.tournament(state)
    action = jnp.asarray(action, jnp.int32)
    a = jnp.clip(action, 0, env.menu.num_actions - 1)
    kind, amount = env.menu.engine_action(t.table, a)
    ok = (action == a) & state.legal_action_mask[a] & ~(state.terminated | state.truncated)
    luck = decision_luck(t, kind, amount, key, by_event=True)
    if probs is not None:
        luck = luck.at[ACTION_EVENT].add(action_luck(t, jnp.asarray(probs, jnp.float32), a, key))
    luck = jnp.where(ok, luck, 0.0)[:, t.seat_of]
    return luck if by_event else luck.sum(axis=0)


def games_first_luck(env, states, keys) -> jax.Array:
    """``# [G, 5, N]``: `first_luck` by kind of event of a batch of games just started (a key
    each), what a play loop carries and adds `games_step_luck` to."""
    return jax.vmap(lambda s, k: first_luck(env, s, k, by_event=True))(states, keys)


def games_step_luck(env, states, actions, keys, probs=None) -> jax.Array:
    """``# [G, 5, N]``: `step_luck` by kind of event of a batch of games' steps (each game's
    luck key, the same at every step; ``probs # [G, M]``: the acting players' policy
    probabilities, a row of zeros where unknown, or None: no action corrections)."""
    if probs is None:
        return jax.vmap(lambda s, a, k: step_luck(env, s, a, k, by_event=True))(
            states, actions, keys)
    return jax.vmap(lambda s, a, k, p: step_luck(env, s, a, k, True, p))(
        states, actions, keys, probs)


def _reveal_row(shown) -> jax.Array:
    """The `EVENTS` row of board cards coming out with ``shown`` (0, 3 or 4) shown before."""
    return 1 + (shown >= 3).astype(jnp.int32) + (shown >= 4).astype(jnp.int32)


def games_chance_luck(env, value: StateValue, states, actions, next_states, keys=None,
                      samples: int | None = None) -> jax.Array:
    """``# [G, 5, N]``: the chance term (`holdemjax.luck.chance_term`) of each game's step
    ``next_states = env.step(states, actions)`` under ``value`` (a value of whole states by
    player id, e.g. a network's critic), in the row of the board cards it comes from (0, 3 or
    4 shown before the step, `EVENTS`): the learned value's counterpart of `games_step_luck`.
    ``samples`` outcomes drawn with each game's key instead of all of them (unbiased)."""
    def one(state, action, nxt, key):
        term = chance_term(env, value, state, action, nxt, key, samples)
        row = _reveal_row(env.tournament(state).table.revealed)
        return jnp.zeros((len(EVENTS), term.shape[0]), jnp.float32).at[row].set(term)

    return jax.vmap(one, in_axes=(0, 0, 0, None if keys is None else 0))(
        states, actions, next_states, keys)
