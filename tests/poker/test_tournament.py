"""The tournament engine (holdemjax/poker/tournament.py): one named test per rule of its
docstring and docs/rules.md "Tournaments". The env's tests (tests/envs/test_sng.py) play whole
tournaments through it; here each rule is checked on a hand-made tournament."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.poker import cards, tournament
from holdemjax.poker import table as poker_table
from holdemjax.poker.icm import icm
from holdemjax.poker.structure import FORMATS, SNG_PAYOUTS, make_format

CERTIFY = make_format(**FORMATS["certify"])
RING = make_format(**FORMATS["ring-9"])


@functools.cache
def _start(name: str):
    fmt = make_format(**FORMATS[name])
    return jax.jit(lambda k: tournament.start(k, fmt))


def _with(t: tournament.Tournament, **table) -> tournament.Tournament:
    return t.replace(table=t.table.replace(**{k: jnp.asarray(v, jnp.int32)
                                             for k, v in table.items()}))


def test_start_seats_player_ids_at_random_and_deals_hand_zero_from_the_game_key():
    key = jax.random.key(4)
    t = _start("certify")(key)
    k_seat, k_game = jax.random.split(key)
    want = np.asarray(jax.random.permutation(k_seat, 6))
    assert np.asarray(t.player_at).tolist() == want.tolist()
    assert np.asarray(t.seat_of).tolist() == np.argsort(want).tolist()
    deck = np.asarray(cards.hand_deck(k_game, 0))
    assert np.asarray(t.table.hole).reshape(-1).tolist() == deck[:12].tolist()
    assert np.asarray(t.key).tolist() == np.asarray(jax.random.key_data(k_game)).tolist()
    assert int(t.hand) == 0 and not bool(t.finished) and int(t.table.to_act) >= 0
    assert (np.asarray(t.table.start_stacks) == 200).all()


def test_act_counts_the_decision_its_chips_and_raises_per_street():
    t = _start("certify")(jax.random.key(1))
    seat = int(t.table.to_act)
    lg = poker_table.legal(t.table)
    after = tournament.act(t, poker_table.RAISE, int(lg.min_raise_to))
    assert int(after.decisions[seat]) == 1 and int(after.last_actor) == seat
    assert int(after.street_chips[0, seat]) == int(lg.min_raise_to)
    assert int(after.street_raises[0, seat]) == 1
    called = tournament.act(after, poker_table.CHECK_CALL)
    nxt = int(after.table.to_act)
    assert int(called.street_raises[0, nxt]) == 0 and int(called.street_chips[0, nxt]) > 0


def test_simultaneous_busts_place_by_starting_stack_and_share_equal_spans():
    t = _start("certify")(jax.random.key(0))
    t = _with(t, start_stacks=[500, 300, 300, 2000, 900, 2000], stacks=[0, 0, 0, 3000, 0, 3000])
    busted = jnp.array([True, True, True, False, True, False])
    score, place = tournament.places_of_busts(t, busted, ~busted)
    assert np.asarray(place).tolist() == [4, 5, 5, 0, 3, 0]
    np.testing.assert_allclose(np.asarray(score)[[4, 0, 1, 2]],
                               [0.200, 0.133, 0.0335, 0.0335], atol=1e-6)


def test_the_last_player_left_wins_place_one():
    t = _start("certify")(jax.random.key(0))
    t = t.replace(alive=jnp.array([True, True, False, False, False, False]),
                  place=jnp.array([0, 0, 3, 4, 5, 6], jnp.int32))
    t = _with(t, start_stacks=[700, 500, 0, 0, 0, 0], stacks=[1200, 0, 0, 0, 0, 0])
    busted = jnp.array([False, True, False, False, False, False])
    score, place = tournament.places_of_busts(t, busted, jnp.array([True] + [False] * 5))
    assert np.asarray(place).tolist() == [1, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(np.asarray(score)[:2], SNG_PAYOUTS[:2], atol=1e-7)


def test_next_hand_eliminates_moves_the_blinds_by_the_dead_button_and_rises_the_level():
    t = _start("certify")(jax.random.key(2))
    t = _with(t, stacks=[0, 300, 200, 200, 100, 400])
    t = t.replace(table=t.table.replace(hand_over=jnp.bool_(True)))
    nxt = tournament.next_hand(t)
    alive = np.asarray(nxt.alive)
    assert alive.tolist() == [False, True, True, True, True, True]
    assert int(nxt.place[0]) == 6 and int(nxt.hand) == 1
    b, sb, bb, _ = poker_table.next_positions(jnp.asarray(alive), t.table.button, t.table.sb,
                                              t.table.bb)
    assert (int(nxt.table.button), int(nxt.table.sb), int(nxt.table.bb)) == (int(b), int(sb),
                                                                              int(bb))
    assert int(nxt.table.big_blind) == 30  # certify: the blinds rise every hand
    assert not bool(nxt.table.in_hand[0])
    assert (np.asarray(nxt.decisions) == 0).all() and (np.asarray(nxt.street_chips) == 0).all()


def test_the_hand_cap_settles_the_seats_still_in_by_icm_over_the_open_places():
    t = _start("certify")(jax.random.key(3))
    stacks = np.array([300, 0, 250, 450, 0, 200], np.int32)
    t = _with(t, stacks=stacks).replace(hand=jnp.int32(7))
    t = t.replace(table=t.table.replace(hand_over=jnp.bool_(True)))
    end = tournament.advance(t)
    assert bool(end.finished) and not bool(end.icm_due)
    alive = stacks > 0
    want = np.asarray(icm(jnp.asarray(np.where(alive, stacks, 0), jnp.float32),
                          jnp.asarray(np.where(np.arange(6) < 4, SNG_PAYOUTS, 0.0),
                                      jnp.float32)))
    np.testing.assert_allclose(np.asarray(end.score)[alive], want[alive], atol=1e-7)
    np.testing.assert_allclose(np.asarray(end.score)[~alive], [0.0335, 0.0335], atol=1e-6)
    np.testing.assert_allclose(float(np.asarray(tournament.player_scores(end)).sum()), 1.0,
                               atol=1e-6)
    assert np.asarray(tournament.open_places_icm(jnp.asarray(stacks), jnp.asarray(alive),
                                                 CERTIFY.payouts)).tolist() == want.tolist()


def test_open_payouts_are_those_of_the_places_still_to_take():
    """With k seats still in, places 1..k are open; places k+1.. are paid already. The same
    payouts feed the ICM at the cap, at the stop and training's shaping (`open_places_icm`)."""
    alive = jnp.array([True, False, True, True, False, False])
    got = np.asarray(tournament.open_payouts(alive, CERTIFY.payouts))
    np.testing.assert_allclose(got, np.where(np.arange(6) < 3, SNG_PAYOUTS, 0.0), atol=1e-7)
    assert float(tournament.open_payouts(jnp.ones(6, bool), CERTIFY.payouts).sum()) == \
        pytest.approx(1.0, abs=1e-6)


def test_stop_gives_the_blinds_back_and_settles_as_at_the_cap():
    t = _start("certify")(jax.random.key(5))
    stopped = tournament.stop(t)
    assert bool(stopped.finished)
    assert (np.asarray(stopped.table.stacks) == 200).all() and int(stopped.table.dead) == 0
    np.testing.assert_allclose(np.asarray(stopped.score), [1 / 6] * 6, atol=1e-6)
    again = tournament.stop(stopped)  # a finished game is unchanged
    jax.tree.map(np.testing.assert_array_equal, again, stopped)


def test_ring_scores_chips_at_the_end_and_places_every_seat_by_chips():
    t = _start("ring-9")(jax.random.key(6))
    t = _with(t, stacks=[3000, 0, 1500, 1500, 4500, 0, 1500, 1500, 0])
    t = t.replace(table=t.table.replace(hand_over=jnp.bool_(True)), hand=jnp.int32(49))
    end = tournament.next_hand(t)
    assert bool(end.finished)
    np.testing.assert_allclose(np.asarray(end.score) * 13_500,
                               [3000, 0, 1500, 1500, 4500, 0, 1500, 1500, 0], atol=1e-3)
    # ties by seat order: seats 2, 3, 6, 7 hold 1,500 each; the empty seats 1, 5, 8 come last
    assert np.asarray(tournament.final_places(end)).tolist() == [2, 7, 3, 4, 1, 8, 5, 6, 9]


def test_final_places_rank_only_the_open_seats():
    t = _start("certify")(jax.random.key(7))
    t = _with(t, stacks=[400, 0, 400, 0, 400, 0])
    t = t.replace(place=jnp.array([0, 6, 0, 4, 0, 5], jnp.int32))
    assert np.asarray(tournament.final_places(t)).tolist() == [1, 6, 2, 4, 3, 5]


def test_player_scores_are_by_player_id_and_zero_sum_subtracts_the_mean():
    t = _start("certify")(jax.random.key(8))
    score = jnp.array([0.333, 0.267, 0.2, 0.133, 0.067, 0.0], jnp.float32)
    t = t.replace(score=score)
    by_id = np.asarray(tournament.player_scores(t))
    assert by_id.tolist() == np.asarray(score)[np.asarray(t.seat_of)].tolist()
    np.testing.assert_allclose(np.asarray(tournament.player_scores(t, zero_sum=True)),
                               by_id - 1 / 6, atol=1e-7)


def test_the_decision_view_is_read_from_the_tournament():
    t = _start("certify")(jax.random.key(9))
    view = tournament.decision(t)
    assert view.table is t.table and view.hand is t.hand and view.decisions is t.decisions
    assert bool(view.legal.can_fold)
    lone = tournament.decision_at(jax.device_get(t.table), np.int32(3), np.zeros(6, np.int32),
                                  np.zeros((4, 6), np.int32), legal=jax.device_get(view.legal))
    assert np.asarray(lone.alive).all() and int(lone.hand) == 3


@pytest.mark.parametrize("name", ["certify"])
def test_start_under_vmap_equals_each_row(name):
    keys = jax.random.split(jax.random.key(10), 3)
    batch = jax.jit(jax.vmap(lambda k: tournament.start(k, CERTIFY)))(keys)
    for i in range(3):
        one = _start(name)(keys[i])
        jax.tree.map(lambda a, b, i=i: np.testing.assert_array_equal(a[i], b), batch, one)


def test_advance_is_advance_one_repeated_through_hands_dealt_already_over():
    """A host that records every hand steps with `advance_one` (one boundary, then the ICM if
    due) from `seat`; repeated while a hand is over and the game is not, it is `advance`."""
    one = jax.jit(tournament.advance_one)
    seated = jax.jit(lambda k: tournament.seat(k, CERTIFY))(jax.random.key(11))
    jax.tree.map(np.testing.assert_array_equal, tournament.advance(seated), _start("certify")(
        jax.random.key(11)))
    # Two seats with one chip each: every hand is dealt all-in from the blinds (already over)
    # until one of them busts; then the game ends.
    t = _with(seated, stacks=[1, 0, 0, 1, 0, 0])
    t = t.replace(table=t.table.replace(hand_over=jnp.bool_(True)), hand=jnp.int32(3))
    want, steps = jax.jit(tournament.advance)(t), 0
    while bool(t.table.hand_over) and not bool(t.finished):
        t, steps = one(t), steps + 1
    assert steps >= 2 and bool(t.finished) and not bool(t.icm_due)
    jax.tree.map(np.testing.assert_array_equal, t, want)
    # At the hand cap the one boundary ends the game and settles by ICM.
    cap = _with(seated, stacks=[300, 0, 250, 450, 0, 200]).replace(hand=jnp.int32(7))
    cap = cap.replace(table=cap.table.replace(hand_over=jnp.bool_(True)))
    end = one(cap)
    assert bool(end.finished) and not bool(end.icm_due) and float(end.score[0]) > 0
    jax.tree.map(np.testing.assert_array_equal, end, jax.jit(tournament.advance)(cap))


def test_start_leaves_out_advance_only_when_the_first_hand_must_wait_for_a_decision():
    """`start` skips `advance` for a concrete format whose first big blind and ante leave every
    seat chips behind (hand 0 then always waits for a decision); a format whose stacks go
    all-in from the first blinds, or a traced one, still advances (docs/rules.md,
    "Tournaments": hands dealt already over are played on)."""
    assert all(tournament.first_hand_waits(make_format(**f)) for f in FORMATS.values())
    shallow = make_format(2, 10, 1, 8, ladder=[(10, 20, 0)], payouts=(1.0,))
    assert not tournament.first_hand_waits(shallow)
    jax.jit(lambda f: tournament.first_hand_waits(f) and None)(CERTIFY)  # traced: no error
    assert not jax.jit(lambda f: jnp.bool_(tournament.first_hand_waits(f)))(CERTIFY)
    key = jax.random.key(12)
    t = jax.jit(lambda k: tournament.start(k, shallow))(key)
    # Both seats are all-in from the blinds: hand 0 is over at the deal, one seat busts and
    # the game ends inside start.
    assert bool(t.finished) and sorted(np.asarray(t.table.stacks).tolist()) == [0, 20]
    jax.tree.map(np.testing.assert_array_equal, t,
                 jax.jit(lambda k: tournament.advance(tournament.seat(k, shallow)))(key))
