"""Whole tournaments: `api_test` to the end for every format, the split of a step at its chance
event (the first board card it shows; issue 39), the tournament invariants on thousands of
tournaments per format under `vmap`, and golden tournaments derived by hand.

Rules cited from SPEC §2 ("Poker rules") and docs/rules.md; the expected values here come from
those texts (the ladder, formats and payouts are written out below from SPEC), never from the
code under test:

* chips are conserved; a busted seat is never dealt in and never acts; the actor is dealt in,
  live and has chips; ``current_player`` is the player sitting at the acting seat;
* the blind level is ``min(hands played // hands per level, last level)`` of the SPEC ladder;
* between hands the big blind moves to the next seat still in after the previous big blind,
  the small blind is the previous big blind's seat (dead when that player is out), the button
  the previous small blind's seat (possibly empty); heads-up the other player is button and
  small blind (TDA Rules 32, 34); the big blind posts the blind first, then the ante (RP-11);
* places: players busting in one hand take the places just below the players left, the one who
  started the hand with more chips higher, equal stacks sharing the payouts of their places;
  the last player left wins; at the hand cap the players still in take Malmuth-Harville ICM over
  the places still open; every place is given exactly once; rewards sum to 1 (ring-9: chips at
  the end / chips in play).

The invariants run inside one compiled ``while_loop`` per seat count (the three six-seat
formats share one batch through `env.init_with`), with four policies (uniform random, the
baseline bot, all-in, passive check/fold) assigned per seat, so every tournament plays to its
end; the counters come back to the host, where the final places, scores and ICM are checked.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import pathlib
import subprocess
import sys
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.bots import baseline
from holdemjax.experimental import act_randomly
from holdemjax.poker import table as poker_table
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.poker.cards import board_cards, card_text, hand_deck, hole_cards, parse_cards
from holdemjax.testing import api_test, shove_policy

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = sorted((ROOT / "tests" / "envs" / "golden").glob("sng_hand_*.json"))


# ------------------------------------------------------------------------------------------
# The one place that reads tournament internals (and, for the golden tournaments, fixes the
# decks). The tournament engine is being made public (`holdemjax.poker.tournament`, read with
# `env.tournament(state)`); where that exists it is used, else the env's private fields.
# ------------------------------------------------------------------------------------------
def internals(env, state) -> dict:
    """What these tests read of a tournament, by name (batched or not): ``table`` (the current
    `table.Table`: stacks, bets, contrib, dead, to_act, in_hand, folded, allin, button, sb, bb,
    blinds, start_stacks), ``alive``, ``player_at``, ``hand``, ``place``, ``score``."""
    if hasattr(env, "tournament"):
        t = env.tournament(state)
        return dict(table=t.table, alive=t.alive, player_at=t.player_at, hand=t.hand,
                    place=t.place, score=t.score)
    return dict(table=state._table, alive=state._alive, player_at=state._player_at,
                hand=state._hand, place=state._place, score=state._score)


@contextlib.contextmanager
def fixed_decks(keys: np.ndarray, decks: np.ndarray):
    """While active, a tournament whose game key is ``keys[g]`` (``# [G, 2] uint32``: the key
    data of ``split(init_key)[1]``, as the tournament module documents) deals hand ``h`` from
    ``decks[g, h]`` (``# [G, H, 52]``, later hands repeat the last): the golden tournaments
    choose their cards. One table for every golden tournament, so compiled steps are shared."""
    import holdemjax.envs.sng as sng_module

    modules = [sng_module]
    with contextlib.suppress(ImportError):
        import holdemjax.poker.tournament as tournament_module

        modules.append(tournament_module)
    key_table = jnp.asarray(keys, jnp.uint32)
    deck_table = jnp.asarray(decks, jnp.int32)

    def dealt(key, hand, num_seats):
        data = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
        g = jnp.argmax((key_table == data[None, :]).all(axis=1))
        return deck_table[g, jnp.minimum(hand, deck_table.shape[1] - 1)]

    saved = [(m, m.dealt_deck) for m in modules if hasattr(m, "dealt_deck")]
    try:
        for m, _ in saved:
            m.dealt_deck = dealt
        yield
    finally:
        for m, f in saved:
            m.dealt_deck = f


# ------------------------------------------------------------------------ SPEC, written out
SPEC_LADDER = np.array([  # (small blind, big blind, big-blind ante), SPEC §2
    (10, 20, 0), (15, 30, 0), (25, 50, 0), (40, 80, 0), (60, 120, 120), (100, 200, 200),
    (150, 300, 300), (250, 500, 500), (400, 800, 800), (600, 1200, 1200),
    (1000, 2000, 2000), (1500, 3000, 3000), (2500, 5000, 5000), (4000, 8000, 8000)], np.int32)
RING_BLINDS = np.array([(15, 30, 0)], np.int32)  # ring-9: blinds 15/30 fixed
PAYOUTS = np.array([0.333, 0.267, 0.200, 0.133, 0.067, 0.0])
# format -> (seats, starting stack, hands per level, hand cap), SPEC §2
SPEC_FORMATS = {"sng-6": (6, 1000, 4, 60), "sng-6-turbo": (6, 1500, 6, 72),
                "certify": (6, 200, 1, 8), "ring-9": (9, 1500, 50, 50)}
SIX_SEAT = ("sng-6", "sng-6-turbo", "certify")
GAMES_PER_FORMAT = 4096
POLICIES = ("random", "baseline", "all_in", "passive")


@functools.cache
def _env(env_id):
    return holdemjax.make(env_id)


# ------------------------------------------------------------------------ api_test to the end
# sng-6-turbo and certify are sng-6's program with other format params (the same step, other
# numbers), ring-9 the nine-seat one (its rules run in CI in test_ring_games_keep_every_invariant
# and tests/envs/test_sng.py): CI runs sng-6; the slow checks run all four (CI's time budget).
@pytest.mark.parametrize("env_id", [
    "sng-6",
    pytest.param("ring-9", marks=pytest.mark.slow),
    pytest.param("sng-6-turbo", marks=pytest.mark.slow),
    pytest.param("certify", marks=pytest.mark.slow)])
def test_api_plays_whole_tournaments(env_id):
    """The conformance test on whole tournaments (every game reaches its end, so the terminal
    rules and the observation dtype at the end are checked too), mostly random play with
    frequent all-ins so that the long formats end within the step bound."""
    env = _env(env_id)
    api_test(env, num_games=4, max_steps=1500, until_end=True, policy=shove_policy(0.3))
    assert env.observation_dtype == np.float32  # docs/sng.md: float32 features


# ------------------------------------------------- the split of a step at its chance event
# Issue 39 (tests/test_chance.py for the other games): every card of a hand is drawn at its
# deal and no step takes a key, so the hidden draws are the decks. Here, beside api_test, the
# env's compiled eager programs (step, step_deterministic, chance_outcomes, chance_step) are
# the ones api_test built: these checks compile almost nothing of their own.
_WITH_CARDS = jax.jit(poker_table.with_cards)


def _same(a, b):
    for (path, x), y in zip(jax.tree_util.tree_leaves_with_path(a), jax.tree.leaves(b),
                            strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y),
                                      err_msg=jax.tree_util.keystr(path))


def _table(env, state) -> poker_table.Table:
    return env.tournament(state).table


@functools.cache
def _scripted(env_id):
    """``[(state, action)]``: every decision of two scripted hands of a fresh game. Hand 0:
    every seat calls and checks to the showdown (the flop, turn and river each shown by the
    step that closes a round; the showdown deals hand 1). Hand 1: the first to act goes
    all-in, the others fold but the big blind, who calls: the board runs out on that call and
    the hand is paid, then the next one is dealt (game 16: which seat busts, if any, depends
    on the card the run-out shows first)."""
    env = _env(env_id)
    n = env.num_players
    state = env.init(jax.random.key(16))
    hand1 = [env.menu.ALL_IN] + [FOLD] * (n - 2) + [CHECK_CALL]
    steps = []
    while int(env.tournament(state).hand) == 0:
        steps.append((state, CHECK_CALL))
        state = env.step(state, CHECK_CALL)
    for action in hand1:
        steps.append((state, action))
        state = env.step(state, action)
    assert int(env.tournament(state).hand) == 2 and not bool(state.terminated)
    return steps


def _shown(env, after, nxt):
    """The card the step shows first (fixed at the deal: the afterstate's board at the
    position of the first card hidden), read off the step's table where the hand goes on."""
    table = _table(env, after)
    pos = int(table.revealed)
    card = int(np.asarray(table.board)[pos])
    going_on = _table(env, nxt)
    if int(env.tournament(nxt).hand) == int(env.tournament(after).hand):
        assert int(going_on.revealed) > pos and int(np.asarray(going_on.board)[pos]) == card
    return pos, card


def _unseen_here(table, pos) -> set[int]:
    """The cards the players cannot see: no seat position's, not shown (written out here)."""
    return set(range(52)) - set(np.asarray(table.hole).ravel().tolist()) - set(
        np.asarray(table.board)[:pos].tolist())


@pytest.mark.parametrize("env_id", ["sng-6", pytest.param("ring-9", marks=pytest.mark.slow)])
def test_split_is_the_step_at_every_kind_of_step(env_id):
    """The chance event of a step is the first board card it shows: uniform over the cards
    the players cannot see (52 outcomes); a step that shows none has outcome 0 alone. Given
    the card the deck holds there, the split is the step, leaf by leaf."""
    env = _env(env_id)
    n = env.num_players
    shown = []
    for state, action in _scripted(env_id):
        nxt = env.step(state, action)
        after = env.step_deterministic(state, action)
        probs = np.asarray(env.chance_outcomes(after), np.float64)
        assert env.num_chance_outcomes == 52 and abs(probs.sum() - 1) < 1e-6
        # the afterstate is the decision's own view: no card shown yet, the same seat to act
        np.testing.assert_array_equal(after.observation, state.observation)
        assert int(after.current_player) == int(state.current_player)
        if probs[0] < 1:
            pos, card = _shown(env, after, nxt)
            left = _unseen_here(_table(env, after), pos)
            assert len(left) == 52 - 2 * n - pos
            np.testing.assert_allclose(probs, [1 / len(left) if c in left else 0
                                               for c in range(52)], rtol=1e-6)
            shown.append(pos)
        else:  # nothing shown: one outcome
            assert int(_table(env, nxt).revealed) == int(_table(env, state).revealed) or (
                int(env.tournament(nxt).hand) > int(env.tournament(state).hand))
            card = 0
        _same(env.chance_step(after, card), nxt)
    assert shown == [0, 3, 4, 0]  # the flop, the turn, the river; hand 1's run-out


def _flop_decision(env):
    """Hand 0's big blind, free to check: its check (or fold) shows the flop."""
    return next(s for s, _ in _scripted(env.id) if int(_table(env, s).street) == poker_table.PREFLOP
                and int(_table(env, s).to_act) == int(_table(env, s).bb))


def test_split_of_an_illegal_fold_that_shows_the_flop():
    """The big blind's fold when checking is free is masked: the step folds it, closes the
    round (the flop shows) and ends the game with the penalty; so does the split."""
    env = _env("sng-6")
    state = _flop_decision(env)
    assert not np.asarray(state.legal_action_mask)[FOLD]
    nxt = env.step(state, FOLD)
    after = env.step_deterministic(state, FOLD)
    assert bool(after.terminated) and np.asarray(env.chance_outcomes(after)).max() < 1
    _same(env.chance_step(after, int(np.asarray(_table(env, state).board)[0])), nxt)
    assert bool(nxt.terminated) and np.asarray(nxt.rewards)[int(state.current_player)] == -1


def test_split_of_a_run_out_for_every_card():
    """The big blind's call that runs the board out, for each of its 40 outcomes: the split
    is the step on the board with that card first (swapped with the later board position
    holding it, else put in place of the first card; written out here): the hand paid on
    that board, busts and places, and the next hand dealt."""
    env = _env("sng-6")
    state, action = _scripted("sng-6")[-1]
    after = env.step_deterministic(state, action)
    probs = np.asarray(env.chance_outcomes(after))
    t = env.tournament(state)
    board = np.asarray(t.table.board).tolist()
    outcomes = np.flatnonzero(probs > 0)
    assert len(outcomes) == 40 and int(t.table.revealed) == 0
    results, swaps = set(), 0
    for o in outcomes.tolist():
        want = list(board)
        if o in want[1:]:
            j = want.index(o)
            want[0], want[j] = want[j], want[0]
            swaps += 1
        else:
            want[0] = o
        table = _WITH_CARDS(t.table, t.table.hole, jnp.asarray(want, jnp.int32))
        nxt = env.step(env.with_tournament(state, t.replace(table=table)), action)
        _same(env.chance_step(after, o), nxt)
        done = env.tournament(nxt)
        results.add((tuple(np.asarray(done.table.start_stacks)), tuple(np.asarray(done.place))))
    assert swaps == 4  # the board's four later cards
    assert len(results) == 3  # the first card decides: one seat busts, or the other, or none


def _redeal(env, state, key):
    """``state`` with a fresh deck from ``key`` (the tournament's key too): the same betting,
    the hand's cards a uniform deal, as over hidden tournament keys (the showdown strengths
    are left as they were: `chance_outcomes` does not read them)."""
    t = env.tournament(state)
    deck = hand_deck(key, t.hand)
    table = t.table.replace(hole=hole_cards(deck, t.num_seats), board=board_cards(deck))
    return env.with_tournament(state, t.replace(table=table, key=jax.random.key_data(key)))


def test_split_of_the_flop_over_hidden_decks():
    """The step that shows the flop, over 3,000 fresh decks (the same betting): the card it
    shows first is drawn as `chance_outcomes` says (its index among the cards of nonzero
    probability is uniform: chi-square), never a card a seat position holds; and row by row
    on some of them, the fresh deck's step and its split given that card are the same state."""
    from scipy import stats

    env = _env("sng-6")
    state = _flop_decision(env)
    after = env.step_deterministic(state, CHECK_CALL)
    games = 3000
    keys = jax.random.split(jax.random.key(5), games)
    # the betting is the afterstate's (the same for every deck): only the cards change
    afters = jax.jit(jax.vmap(lambda k: _redeal(env, after, k)))(keys)
    probs = np.asarray(jax.jit(jax.vmap(env.chance_outcomes))(afters), np.float64)
    host = jax.device_get(env.tournament(afters))
    holes = host.table.hole.reshape(games, -1)
    first = host.table.board[:, 0]
    live = probs > 0
    assert (live.sum(1) == 40).all() and not live[np.arange(games)[:, None], holes].any()
    assert live[np.arange(games), first].all()
    index = (live & (np.arange(52) < first[:, None])).sum(1)
    test = stats.chisquare(np.bincount(index, minlength=40))
    assert test.pvalue > 1e-4, np.bincount(index, minlength=40)
    t = env.tournament(state)
    for i in range(4):  # the decision itself with row i's deck
        table = _WITH_CARDS(t.table, host.table.hole[i], host.table.board[i])
        row = env.with_tournament(state, t.replace(table=table, key=host.key[i]))
        split = env.step_deterministic(row, CHECK_CALL)
        np.testing.assert_array_equal(env.chance_outcomes(split), probs[i])
        _same(env.chance_step(split, int(first[i])), env.step(row, CHECK_CALL))


# ------------------------------------------------------------------------ policies
def _policies(env):
    """``choose(key, state, policy_of_seat)`` for a batch: each row's seat to act plays the
    policy its row assigns to that seat (0 random, 1 baseline, 2 all-in, 3 passive)."""

    def one(key, state, pol):
        mask = state.legal_action_mask
        seat = jnp.maximum(internals(env, state)["table"].to_act, 0)
        k_random, k_bot = jax.random.split(key)
        actions = jnp.stack([
            act_randomly(k_random, mask),
            baseline.act(env, state, k_bot),
            mask.shape[-1] - 1 - jnp.argmax(mask[::-1]),  # all-in (the last legal entry)
            jnp.where(mask[FOLD], FOLD, CHECK_CALL),  # passive: check, else fold
        ]).astype(jnp.int32)
        return actions[pol[seat]]

    def choose(key, state, pol):
        keys = jax.random.split(key, pol.shape[0])
        return jax.vmap(one)(keys, state, pol)

    return choose


def _assign_policies(rng, batch, n):
    """Per row: one policy for every seat (four fifths of the rows, each policy equally) or a
    policy drawn per seat (a fifth)."""
    kind = np.arange(batch) % 5
    pol = np.repeat(kind[:, None], n, axis=1)
    mixed = kind == 4
    pol[mixed] = rng.integers(0, 4, size=(mixed.sum(), n))
    return pol.astype(np.int32)


# ------------------------------------------------------------------------ in-loop checks
def _first_in_after(alive, seat):
    """The first seat after ``seat`` (clockwise, increasing seat number) that is still in."""
    n = alive.shape[-1]
    steps = (jnp.arange(n) - seat - 1) % n
    return ((seat + 1 + jnp.min(jnp.where(alive, steps, n))) % n).astype(jnp.int32)


def _step_checks(prev, nxt, p_pub, n_pub, spec, ring):
    """Violations (and coverage) of one transition of one row, as int32 counts."""
    per_level, ladder, total = spec["per_level"], spec["ladder"], spec["total"]
    tp, tn = prev["table"], nxt["table"]
    seats = jnp.arange(tp.stacks.shape[-1])
    live = ~n_pub["terminated"]
    was_live = ~p_pub["terminated"]
    out = {}
    # chips conserved (SPEC: exact chips)
    chips = tn.stacks.sum() + tn.contrib.sum() + tn.dead
    out["chips"] = chips != total
    # the actor: dealt in, live, with chips, alive, and the player at that seat
    a = jnp.maximum(tn.to_act, 0)
    me = seats == a
    ok_actor = ((tn.to_act >= 0) & (tn.in_hand & me).any() & ~(tn.folded & me).any()
                & ~(tn.allin & me).any() & (nxt["alive"] & me).any()
                & (n_pub["current_player"] == nxt["player_at"][a]) & n_pub["mask"].any())
    out["actor"] = live & ~ok_actor
    out["dealt_not_alive"] = live & (tn.in_hand & ~nxt["alive"]).any()
    out["revived"] = (nxt["alive"] & ~prev["alive"]).any()
    out["hand_back"] = nxt["hand"] < prev["hand"]
    # the blind level follows the hands played
    level = jnp.minimum(nxt["hand"] // per_level, ladder.shape[0] - 1)
    want = ladder[level]
    out["blinds"] = live & ((tn.small_blind != want[0]) | (tn.big_blind != want[1])
                            | (tn.ante != want[2]))
    # rewards: zero until the terminal step, summing to 1 there
    ended_now = was_live & n_pub["terminated"]
    out["rewards_early"] = ~ended_now & (n_pub["rewards"] != 0).any()
    out["rewards_sum"] = ended_now & (jnp.abs(n_pub["rewards"].sum() - 1.0) > 1e-5)
    # the dead button rule over one hand boundary (TDA 32, 34), and blind-first posting (RP-11)
    one_hand = was_live & live & (nxt["hand"] == prev["hand"] + 1)
    alive = nxt["alive"]
    heads_up = alive.sum() == 2
    bb = _first_in_after(alive, tp.bb)
    other = _first_in_after(alive, bb)  # heads-up: the other player
    sb = jnp.where(heads_up, other, tp.bb)
    button = jnp.where(heads_up, other, tp.sb)
    out["positions"] = one_hand & ((tn.bb != bb) | (tn.sb != sb) | (tn.button != button))
    sb_posts = (alive & (seats == sb)).any()
    start = tn.start_stacks
    want_bb = jnp.minimum(want[1], start[bb])
    want_sb = jnp.where(sb_posts, jnp.minimum(want[0], start[sb]), 0)
    want_ante = jnp.minimum(want[2], start[bb] - want_bb)
    out["posting"] = one_hand & ((tn.bets[bb] != want_bb) | (tn.bets[sb] != want_sb)
                                 | (tn.dead != want_ante))
    out["transitions"] = one_hand
    out["dead_small_blind"] = one_hand & ~sb_posts
    out["dead_button"] = one_hand & ~(alive & (seats == button)).any()
    out["heads_up_hands"] = one_hand & heads_up
    out["short_big_blind"] = one_hand & (want_bb < want[1])
    if not ring:
        # busts of the hand that just ended (prev's hand), placed by the rule of SPEC §2
        busted = prev["alive"] & ~alive
        # (a step that also played later hands without a decision is not checked here)
        same_hand = was_live & busted.any() & (((nxt["hand"] == prev["hand"] + 1) & live)
                                               | ((nxt["hand"] == prev["hand"]) & ~live))
        s0 = tp.start_stacks
        both = busted[:, None] & busted[None, :]
        greater = (both & (s0[None, :] > s0[:, None])).sum(1)
        equal = (both & (s0[None, :] == s0[:, None])).sum(1)
        best = prev["alive"].sum() - busted.sum() + 1 + greater
        pay = jnp.asarray(PAYOUTS, jnp.float32)
        span = (jnp.arange(pay.shape[0])[None, :] >= best[:, None] - 1) & (
            jnp.arange(pay.shape[0])[None, :] < best[:, None] - 1 + equal[:, None])
        share = (span * pay[None, :]).sum(1) / jnp.maximum(equal, 1)
        wrong = busted & ((nxt["place"] != best) | (jnp.abs(nxt["score"] - share) > 1e-6))
        out["places"] = same_hand & wrong.any()
        out["busts_checked"] = same_hand
        out["multi_busts"] = same_hand & (busted.sum() >= 2)
        out["tied_busts"] = same_hand & (busted & (equal >= 2)).any()
        # the last player left wins place 1
        won = ended_now & (alive.sum() == 1)
        out["winner"] = won & ~((alive & (nxt["place"] == 1)).any()
                                & (jnp.abs(jnp.where(alive, nxt["score"], 0).sum() - pay[0])
                                   < 1e-6))
    return {k: v.astype(jnp.int32) for k, v in out.items()}


def _public(state):
    return dict(terminated=state.terminated, current_player=state.current_player,
                mask=state.legal_action_mask, rewards=state.rewards)


@functools.cache
def _runner(env_id, max_steps):
    """One compiled program: play the batch to the end, checking every transition."""
    env = _env(env_id)
    choose = _policies(env)
    ring = env_id == "ring-9"
    init = jax.vmap(env.init) if ring else jax.vmap(env.init_with)

    def run(keys, fmts, pol, spec, key):
        s = init(keys) if ring else init(keys, fmts)
        batch = pol.shape[0]
        checks = jax.vmap(lambda a, b, pa, pb, sp: _step_checks(a, b, pa, pb, sp, ring))

        def cond(c):
            return (c["t"] < max_steps) & ~c["s"].terminated.all()

        def body(c):
            s, key = c["s"], c["key"]
            key, k_act = jax.random.split(key)
            nxt = jax.vmap(env.step)(s, choose(k_act, s, pol))
            got = checks(internals(env, s), internals(env, nxt), _public(s), _public(nxt), spec)
            counts = {k: c["counts"][k] + v.sum(dtype=jnp.int32) for k, v in got.items()}
            return dict(s=nxt, key=key, t=c["t"] + 1, counts=counts,
                        rewards=c["rewards"] + nxt.rewards)

        zero = jax.eval_shape(checks, internals(env, s), internals(env, s), _public(s),
                              _public(s), spec)
        c = dict(s=s, key=key, t=jnp.int32(0),
                 counts={k: jnp.int32(0) for k in zero},
                 rewards=jnp.zeros((batch, env.num_players), jnp.float32))
        c = jax.lax.while_loop(cond, body, c)
        x = internals(env, c["s"])
        return dict(t=c["t"], counts=c["counts"], rewards=c["rewards"],
                    terminated=c["s"].terminated, alive=x["alive"], place=x["place"],
                    score=x["score"], stacks=x["table"].stacks, hand=x["hand"],
                    player_at=x["player_at"])

    return jax.jit(run)


def _spec_rows(names):
    """Per row: the SPEC numbers of its format (ladder padded to one shape)."""
    rows = [SPEC_FORMATS[n] for n in names]
    ladder = [RING_BLINDS if n == "ring-9" else SPEC_LADDER for n in names]
    return dict(stack=jnp.asarray([r[1] for r in rows], jnp.int32),
                per_level=jnp.asarray([r[2] for r in rows], jnp.int32),
                total=jnp.asarray([r[0] * r[1] for r in rows], jnp.int32),
                ladder=jnp.asarray(np.stack(ladder)))


def _play(env_id, names, seed, max_steps):
    from holdemjax.poker.structure import FORMATS, make_format, stack_formats

    env = _env(env_id)
    n = env.num_players
    rng = np.random.default_rng(seed)
    batch = len(names)
    pol = _assign_policies(rng, batch, n)
    keys = jax.random.split(jax.random.key(seed), batch)
    fmts = None
    if env_id != "ring-9":
        kinds = sorted(set(names))
        stacked = stack_formats(*(make_format(**FORMATS[k]) for k in kinds))
        idx = jnp.asarray([kinds.index(k) for k in names])
        fmts = jax.tree.map(lambda x: x[idx], stacked)
    out = _runner(env_id, max_steps)(keys, fmts, jnp.asarray(pol), _spec_rows(names),
                                     jax.random.key(seed + 1))
    return jax.device_get(out), pol


# ------------------------------------------------------------------------ host-side checks
def _harville_icm(stacks, payouts):
    """Malmuth-Harville equity by brute force over finishing orders (numpy, independent of
    holdemjax.poker.icm): ``# [B, N] stacks, [B, N] payouts -> [B, N]``."""
    b, n = stacks.shape
    equity = np.zeros((b, n))
    s = stacks.astype(np.float64)
    for order in itertools.permutations(range(n)):
        prob = np.ones(b)
        left = s.sum(1)
        for j, player in enumerate(order):
            # once only empty stacks remain, they take the last places in a uniform order
            prob = prob * np.where(left > 0, s[:, player] / np.where(left > 0, left, 1),
                                   1 / (n - j))
            left = left - s[:, player]
        for place, player in enumerate(order):
            equity[:, player] += prob * payouts[:, place]
    return equity


def _check_final(out, names, n):
    assert out["terminated"].all(), f"{(~out['terminated']).sum()} tournaments did not end"
    place, score, alive = out["place"], out["score"], out["alive"]
    stacks, hand = out["stacks"], out["hand"]
    # every player's rewards over the game are its seat's score; they sum to 1
    by_seat = np.take_along_axis(out["rewards"], out["player_at"], axis=1)
    np.testing.assert_allclose(by_seat, score, atol=2e-6)
    np.testing.assert_allclose(score.sum(1), 1.0, atol=1e-5)
    names = np.asarray(names)
    caps = np.asarray([SPEC_FORMATS[k][3] for k in names])
    left = alive.sum(1)
    if names[0] == "ring-9":
        np.testing.assert_allclose(score, stacks / stacks.sum(1, keepdims=True), atol=1e-6)
        assert ((hand == caps - 1) | (stacks.max(1) == stacks.sum(1))).all()
        return dict(capped=int((hand == caps - 1).sum()), won=int((left == 1).sum()))
    # places unique and complete: the busted seats' spans tile left+1..N (2..N when one won)
    for p, a in zip(place, alive):
        closed = [k for k in range(1, n + 1) if k > max(a.sum(), 1)]
        spans = sorted(b + i for b in set(p[~a]) for i in range((p[~a] == b).sum()))
        assert spans == closed, (p, a)
        if a.sum() == 1:
            assert p[a].tolist() == [1]
        else:
            assert (p[a] == 0).all()
    # the hand cap: the players still in take ICM over the open places
    capped = left >= 2
    assert (hand[capped] == caps[capped] - 1).all()
    open_pay = np.where(np.arange(n)[None, :] < left[capped, None], PAYOUTS[None, :], 0)
    want = _harville_icm(np.where(alive[capped], stacks[capped], 0), open_pay)
    np.testing.assert_allclose(np.where(alive[capped], score[capped], 0),
                               np.where(alive[capped], want, 0), atol=1e-5)
    return dict(capped=int(capped.sum()), won=int((left == 1).sum()))


VIOLATIONS = ("chips", "actor", "dealt_not_alive", "revived", "hand_back", "blinds",
              "rewards_early", "rewards_sum", "positions", "posting", "places", "winner")


def _assert_clean(counts):
    bad = {k: int(counts[k]) for k in VIOLATIONS if k in counts and counts[k]}
    assert not bad, f"invariants broken (transitions): {bad}"


def test_six_seat_tournaments_keep_every_invariant():
    """4,096 tournaments each of sng-6, sng-6-turbo and certify in one batch, to the end."""
    names = [k for k in SIX_SEAT for _ in range(GAMES_PER_FORMAT)]
    out, pol = _play("sng-6", names, seed=17, max_steps=4000)
    c = out["counts"]
    _assert_clean(c)
    ends = _check_final(out, names, 6)
    # the checks above were exercised
    assert c["transitions"] > 100_000 and c["busts_checked"] > 20_000
    assert c["dead_small_blind"] > 1000 and c["dead_button"] > 1000
    assert c["heads_up_hands"] > 10_000 and c["short_big_blind"] > 1000
    assert c["multi_busts"] > 1000 and c["tied_busts"] > 100
    assert ends["capped"] > 2000 and ends["won"] > 5000
    assert (pol == 1).any() and set(np.unique(pol)) == {0, 1, 2, 3}


def test_ring_games_keep_every_invariant():
    """4,096 ring-9 games to the end: chips, actors, fixed blinds, the dead-button rule, chip
    scores."""
    names = ["ring-9"] * GAMES_PER_FORMAT
    out, _ = _play("ring-9", names, seed=23, max_steps=6000)
    c = out["counts"]
    _assert_clean(c)
    ends = _check_final(out, names, 9)
    assert c["transitions"] > 50_000 and c["dead_small_blind"] > 500
    assert ends["capped"] > 500 and ends["won"] > 100


# ------------------------------------------------------------------------ golden tournaments
def _deck(hand: dict, n: int) -> np.ndarray:
    """A full 52-card deck with each seat's hole cards at 2s, 2s+1 and the board at 18..22
    (docs/rules.md, dealing by fixed index); the other positions get the remaining cards."""
    deck = np.full(52, -1)
    for seat, cards in hand.get("hole", {}).items():
        deck[2 * int(seat): 2 * int(seat) + 2] = parse_cards(cards)
    if "board" in hand:
        deck[18:23] = parse_cards(hand["board"])
    used = set(deck[deck >= 0].tolist())
    assert len(used) == (deck >= 0).sum(), "a card is dealt twice"
    deck[deck < 0] = [c for c in range(52) if c not in used]
    return deck


def _golden_tables():
    """Every golden tournament's game key and decks (``fixed_decks``), by file."""
    files = [json.loads(p.read_text()) for p in GOLDEN]
    hands = max(len(g["hands"]) for g in files)
    keys, decks = [], []
    for i, g in enumerate(files):
        n = SPEC_FORMATS[g["env"]][0]
        d = [_deck(h, n) for h in g["hands"]]
        decks.append(np.stack(d + d[-1:] * (hands - len(d))))
        k_game = jax.random.split(jax.random.key(i))[1]
        keys.append(np.asarray(jax.random.key_data(k_game)))
    return np.stack(keys), np.stack(decks)


@functools.cache
def _golden_fns(env_id):
    env = holdemjax.make(env_id)
    return env, jax.jit(env.init), jax.jit(lambda s, a: env.step(s, a))


def run_goldens() -> dict:
    """Play every golden tournament (in this process, with the decks fixed); returns the
    first failure of each by file name (None when it passed)."""
    out = {}
    with fixed_decks(*_golden_tables()):  # compiled on first use, inside the block
        for index, path in enumerate(GOLDEN):
            g = json.loads(path.read_text())
            n = SPEC_FORMATS[g["env"]][0]
            try:
                env, init, step = _golden_fns(g["env"])
                state = init(jax.random.key(index))
                dealt = np.asarray(internals(env, state)["table"].hole).reshape(-1)
                want = _deck(g["hands"][0], n)[: 2 * n]
                assert (dealt == want).all(), "the golden decks were not dealt (game key?)"
                _play_golden(path, g, n, env, step, state)
                out[path.stem] = None
            except AssertionError as exc:
                out[path.stem] = f"{type(exc).__name__}: {exc}"
    return out


@pytest.fixture(scope="module")
def golden_results():
    """The golden tournaments run in a fresh interpreter: patching the dealer must not meet
    steps compiled by other tests of this process (nor leak into theirs)."""
    code = ("import json, tests.envs.test_sng_invariants as T; "
            "print('GOLDEN ' + json.dumps(T.run_goldens()))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=1800)
    line = [x for x in proc.stdout.splitlines() if x.startswith("GOLDEN ")]
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    return json.loads(line[-1][len("GOLDEN "):])


@pytest.mark.parametrize("name", [p.stem for p in GOLDEN])
def test_golden_tournament(name, golden_results):
    """A tournament whose every expected number (positions, blinds posted, stacks after each
    hand, places, scores) was derived by hand from the rules it names (its file says which
    and how)."""
    assert golden_results[name] is None, golden_results[name]


def _play_golden(path, g, n, env, step, state):
    names = env.menu.names()
    total = np.zeros(n)
    for h, hand in enumerate(g["hands"]):
        x = internals(env, state)
        t = x["table"]
        where = f"{path.stem} hand {h}"
        assert int(x["hand"]) == h, where
        assert [int(t.button), int(t.sb), int(t.bb)] == hand["positions"], where
        if "posted" in hand:  # blinds and ante as posted at the start of the hand
            assert [int(v) for v in t.bets] == hand["posted"]["bets"], where
            assert int(t.dead) == hand["posted"]["ante"], where
        assert [int(t.small_blind), int(t.big_blind), int(t.ante)] == hand["blinds"], where
        for seat, action in hand["actions"]:
            assert not bool(state.terminated), where
            x = internals(env, state)
            assert int(x["table"].to_act) == seat, (where, "to act", seat)
            a = names.index(action)
            assert bool(state.legal_action_mask[a]), (where, seat, action)
            state = step(state, jnp.int32(a))
            total += np.asarray(state.rewards)
        x = internals(env, state)
        after = x["table"].stacks if bool(state.terminated) else x["table"].start_stacks
        assert [int(v) for v in after] == hand["stacks_after"], where
    assert bool(state.terminated), f"{path.stem}: the tournament should be over"
    x = internals(env, state)
    player_at = np.asarray(x["player_at"])
    if "places" in g:
        assert [int(v) for v in x["place"]] == g["places"]
    want = np.asarray(_scores(g, np.asarray(x["table"].stacks), np.asarray(x["alive"])))
    np.testing.assert_allclose(np.asarray(x["score"]), want, atol=1e-6)
    np.testing.assert_allclose(total[player_at], want, atol=2e-6)  # rewards by player id
    np.testing.assert_allclose(total.sum(), 1.0, atol=1e-5)


def _scores(g, stacks, alive):
    """The expected scores by seat: written in the golden file, or (at the hand cap) the
    written scores of the busted seats and exact Malmuth-Harville ICM for the others."""
    if "scores" in g:
        return g["scores"]
    spec = g["icm_at_cap"]
    assert [int(v) for v in stacks] == spec["stacks"]
    left = [s for s in range(len(stacks)) if alive[s]]
    pay = [Fraction(p).limit_denominator(1000) for p in PAYOUTS[: len(left)]]
    chips = [Fraction(int(stacks[s])) for s in left]
    equity = [Fraction(0)] * len(left)
    for order in itertools.permutations(range(len(left))):
        prob, rest = Fraction(1), sum(chips)
        for i in order:
            prob *= chips[i] / rest
            rest -= chips[i]
        for place, i in enumerate(order):
            equity[i] += prob * pay[place]
    out = [float(v) for v in spec["busted_scores"]]
    for s, e in zip(left, equity):
        out[s] = float(e)
    return out


def test_golden_files_name_their_rules():
    assert len(GOLDEN) >= 5
    for path in GOLDEN:
        g = json.loads(path.read_text())
        assert g["rule"] and g["derivation"], path.stem
        for hand in g["hands"]:
            for cards in hand.get("hole", {}).values():
                assert "".join(card_text(c) for c in parse_cards(cards)) == cards
