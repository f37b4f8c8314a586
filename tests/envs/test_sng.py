"""Sit & go and ring envs: places, ICM at the cap, ring endings, options, the exact-amount flow,
the stop rule, formats as params. Rules cited from SPEC §2 and holdemjax.envs.sng's docstring.

The conformance test on whole tournaments and the invariants on every step (4,096 tournaments per
format) are in test_sng_invariants.py. Compiling the batched programs dominates these tests' time,
so every test of one env uses that env's one batch size (`BATCH`): one compiled init and step
each."""

import functools
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import sng_obs
from holdemjax.envs.sng import SitAndGo
from holdemjax.poker import table, tournament
from holdemjax.poker.icm import icm
from holdemjax.poker.structure import SNG_PAYOUTS

ROOT = pathlib.Path(__file__).resolve().parents[2]
T = SitAndGo.tournament  # the env's public accessor of its tournament engine state
BATCH = {"certify": 128, "sng-6": 64, "ring-9": 8}  # the one batch size of each env's programs


@functools.cache
def _env(env_id, **opts):
    return holdemjax.make(env_id, **dict(opts))


@functools.cache
def _fns(env_id):
    """The env's batched init (from keys [BATCH]) and step, compiled once."""
    env = _env(env_id)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))

    def checked(fn):
        def run(x, *args):
            lead = jax.tree.leaves(x)[0].shape[0]
            assert lead == BATCH[env_id], f"{env_id}: batch {lead}, use BATCH"
            return fn(x, *args)
        return run

    return checked(init), checked(step)


@functools.cache
def _solo(env_id):
    """The env's unbatched init and step, compiled once."""
    env = _env(env_id)
    return jax.jit(env.init), jax.jit(env.step)


def _play(env_id, seed, policy="random", max_steps=2000):
    """Play a batch of `BATCH[env_id]` games to the end."""
    init, step = _fns(env_id)
    batch = BATCH[env_id]
    state = init(jax.random.split(jax.random.key(seed), batch))
    key = jax.random.key(seed + 1)
    for _ in range(max_steps):
        if bool(state.terminated.all()):
            return state
        key, sub = jax.random.split(key)
        mask = state.legal_action_mask
        if policy == "random":
            action = holdemjax.act_randomly(sub, mask)
        elif policy == "all_in":  # the last legal entry: all-in when offered, else call
            action = mask.shape[-1] - 1 - jnp.argmax(mask[:, ::-1], axis=-1)
        else:  # "call": always check/call
            action = jnp.ones(batch, jnp.int32)
        state = step(state, action.astype(jnp.int32))
    raise AssertionError("games did not end")


def test_places_complete_and_paid():
    """Tournaments won outright: places 1..6 all given (shared places span the tied ranks),
    each seat paid the mean payout of the places it spans (SPEC §2 payouts)."""
    env = _env("certify")
    s = _play("certify", seed=5, policy="all_in")
    place = np.asarray(T(s).place)
    score = np.asarray(T(s).score)
    won = (place > 0).all(axis=1)
    assert won.sum() > 50, "all-in play should end most certify games before the cap"
    pay = np.asarray(SNG_PAYOUTS)
    for p, sc in zip(place[won], score[won]):
        assert sorted(p)[0] == 1 and (p == 1).sum() == 1
        for best in np.unique(p):
            tied = p == best
            span = pay[best - 1: best - 1 + tied.sum()]
            np.testing.assert_allclose(sc[tied], span.mean(), atol=1e-6)
        # The tied spans tile 1..6 exactly.
        covered = sorted(b + i for b in np.unique(p) for i in range((p == b).sum()))
        assert covered == list(range(1, 7))
    assert env.num_players == 6


def test_hand_cap_settles_by_icm():
    """SPEC §2: seats still in at the hand cap settle by Malmuth-Harville ICM over the payouts
    of the places still open."""
    s = _play("certify", seed=9, policy="call")
    hand = np.asarray(T(s).hand)
    capped = np.flatnonzero(hand == 7)
    assert capped.size > 0
    for i in capped:
        alive = np.asarray(T(s).alive[i])
        left = alive.sum()
        stacks = np.where(alive, np.asarray(T(s).table.stacks[i]), 0).astype(np.float32)
        open_pay = np.where(np.arange(6) < left, SNG_PAYOUTS, 0.0)
        want = np.asarray(icm(jnp.asarray(stacks), jnp.asarray(open_pay, jnp.float32)))
        np.testing.assert_allclose(np.asarray(T(s).score[i])[alive], want[alive], atol=1e-6)


def test_simultaneous_busts_ordered_by_starting_stack():
    """SPEC §2: players busting in the same hand — the one who started the hand with more chips
    places higher; equal stacks share the places' payouts."""
    s = _solo("sng-6")[0](jax.random.key(0))
    t = T(s).table.replace(start_stacks=jnp.array([500, 300, 300, 2000, 900, 2000], jnp.int32),
                           stacks=jnp.array([0, 0, 0, 3000, 0, 3000], jnp.int32))
    busted = jnp.array([True, True, True, False, True, False])
    alive = ~busted
    score, place = tournament.places_of_busts(T(s).replace(table=t), busted, alive)
    # Six were in; four bust: places 3..6. Seat 4 (900) 3rd, seat 0 (500) 4th, seats 1, 2
    # (300 each) share 5th and 6th.
    assert np.asarray(place).tolist() == [4, 5, 5, 0, 3, 0]
    np.testing.assert_allclose(np.asarray(score)[[4, 0, 1, 2]],
                               [0.200, 0.133, 0.0335, 0.0335], atol=1e-6)


def test_ring_ends_at_the_cap_with_chip_scores():
    """ring-9: at most 50 hands; score = chips at the end / chips in play."""
    s = _play("ring-9", seed=3, policy="call")
    assert (np.asarray(T(s).hand) == 49).any()
    chips = np.asarray(T(s).table.stacks).astype(np.float64)
    want = (chips / chips.sum(-1, keepdims=True))
    np.testing.assert_allclose(np.asarray(T(s).score), want, atol=1e-6)


def test_ring_ends_when_one_player_has_all_the_chips():
    s = _play("ring-9", seed=4, policy="all_in")
    chips = np.asarray(T(s).table.stacks)
    one = (chips == 9 * 1500).any(axis=1)
    assert one.any() and (np.asarray(T(s).hand)[one] < 49).all()
    assert (np.asarray(T(s).score)[one].max(axis=1) == 1.0).all()


def test_zero_sum_option():
    env = _env("certify", zero_sum=True)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    s = init(jax.random.split(jax.random.key(1), 8))
    total = np.zeros(8)
    while not bool(s.terminated.all()):
        s = step(s, jnp.ones(8, jnp.int32))
        total += np.asarray(s.rewards).sum(-1)
    np.testing.assert_allclose(total, 0.0, atol=1e-5)


@pytest.mark.parametrize("opts,match", [({"raise_sizes": (0.5, 0.5)}, "distinct"),
                                        ({"raise_sizes": (0,)}, "positive"),
                                        ({"zero_sum": "yes"}, "zero_sum"),
                                        ({"format": "x"}, "unknown option")])
def test_bad_options(opts, match):
    with pytest.raises(ValueError, match=match):
        holdemjax.make("sng-6", **opts)


def test_custom_raise_sizes_change_the_menu():
    env = holdemjax.make("sng-6", raise_sizes=(1.0,))
    assert env.num_actions == 5 and env.menu.names()[-2:] == ["RAISE_1_POT", "ALL_IN"]


def test_fold_masked_when_checking_is_free_and_player_ids_not_seats():
    env = _env("sng-6")
    init, _ = _fns("sng-6")
    s = init(jax.random.split(jax.random.key(2), BATCH["sng-6"]))
    seats = np.asarray(T(s).player_at)
    assert len({tuple(r) for r in seats}) > 1, "seating must be random"
    lg = jax.vmap(holdemjax.poker.table.legal)(T(s).table)
    free = np.asarray(lg.can_check)
    assert not np.asarray(s.legal_action_mask)[free, 0].any()
    assert env.num_actions == 9


def test_observation_doc_matches_layout():
    """docs/sng.md lists every observation block with its slice (6 and 9 seats), and is what
    benchmarks/make_docs.py generates from the code."""
    import importlib.util

    doc = (ROOT / "docs" / "sng.md").read_text()
    spec = importlib.util.spec_from_file_location("make_docs", ROOT / "benchmarks" / "make_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.render() == doc
    for n in (6, 9):
        lay = sng_obs.layout(n)
        for name, _, what in sng_obs.BLOCKS:
            sl = lay[name]
            assert f"| `{name}` | {sl.start}..{sl.stop - 1} |" in doc.split(f"## {n} seats")[1]
            assert what in doc
        assert f"size {lay.size}" in doc


def test_golden_tournaments():
    """Recorded tournaments (benchmarks/make_golden_sng.py) replay to the same places, scores
    and chips: a change of behaviour must come with a new env version."""
    import json

    lines = (ROOT / "tests" / "envs" / "golden" / "sng.jsonl").read_text().splitlines()
    assert len(lines) >= 5
    for line in lines:
        g = json.loads(line)
        env = _env(g["env"])
        init, step = _fns(g["env"])
        # Replayed in every row of the env's one batch size, to share its compiled programs.
        batch = BATCH[g["env"]]
        s = init(jnp.repeat(jax.random.key(g["seed"])[None], batch))
        total = np.zeros(env.num_players)
        for a in g["actions"]:
            assert not bool(s.terminated[0])
            assert bool(s.legal_action_mask[0, a]), "a recorded action is no longer legal"
            s = step(s, jnp.full(batch, a, jnp.int32))
            total += np.asarray(s.rewards[0])
        assert bool(s.terminated[0])
        assert int(T(s).hand[0]) + 1 == g["hands"]
        assert np.asarray(T(s).place[0]).tolist() == g["place_by_seat"]
        assert np.asarray(T(s).player_at[0]).tolist() == g["player_at_seat"]
        assert np.asarray(T(s).table.stacks[0]).tolist() == g["chips_by_seat"]
        np.testing.assert_allclose(total, g["rewards"], atol=2e-6)
        np.testing.assert_allclose(total.sum(), 1.0, atol=1e-5)


def test_exact_actions_match_the_menu_step():
    """`advance(act_exact(s, kind, amount))` with the engine action of a menu entry is `step(s, a)`
    (the series host and duplicate matches play exact amounts through the same flow), and the
    chips a decision put in are read back from the engine, also at a hand's end."""
    env = _env("certify")
    act = jax.jit(env.act_exact)
    advance = jax.jit(env.advance)
    init, step = _solo("certify")
    menu = jax.jit(lambda t: env.menu.mask_and_amounts(t, table.legal(t))[1])
    to_engine = jax.jit(env.menu.to_engine)
    key = jax.random.key(11)
    state = init(key)
    hand_ends = 0
    for _ in range(300):
        if bool(state.terminated):
            break
        key, sub = jax.random.split(key)
        a = holdemjax.act_randomly(sub, state.legal_action_mask)
        t = T(state).table
        kind, amount = to_engine(a, menu(t))
        mid = act(state, kind, amount)
        seat = int(t.to_act)
        street = int(t.street)
        put_in = (int(T(mid).street_chips[street, seat])
                  - int(T(state).street_chips[street, seat]))
        if bool(T(mid).table.hand_over):
            hand_ends += 1
            # stacks after = stacks before - chips put in + winnings (SPEC §2: exact chips)
            assert int(T(mid).table.stacks[seat]) == (int(t.stacks[seat]) - put_in
                                                      + int(T(mid).table.winnings[seat]))
        else:
            assert put_in == int(t.stacks[seat]) - int(T(mid).table.stacks[seat])
        via_exact = advance(mid)
        via_step = step(state, a)
        jax.tree.map(np.testing.assert_array_equal, via_exact, via_step)
        state = via_step
    assert hand_ends >= 3


def test_stop_settles_by_icm_at_the_start_of_the_hand():
    """SPEC §3: a series stopped at a hand boundary settles like the hand cap: the players still
    in take ICM over the open places on their stacks before this hand's blinds."""
    env = _env("sng-6")
    stop = jax.jit(env.stop)
    init, step = _solo("sng-6")
    state = init(jax.random.key(5))
    while int(T(state).hand) < 3:  # a few hands in, with random play
        state = step(state, holdemjax.act_randomly(jax.random.key(int(state._step_count)),
                                                   state.legal_action_mask))
    assert not bool(state.terminated)
    ended = stop(state)
    assert bool(ended.terminated)
    alive = np.asarray(T(state).alive)
    start = np.asarray(T(state).table.start_stacks)
    open_places = np.asarray(SNG_PAYOUTS)[: alive.sum()]
    want = np.asarray(icm(np.where(alive, start, 0).astype(np.float32), open_places))
    by_seat = np.asarray(ended.rewards)[np.asarray(T(state).player_at)]
    np.testing.assert_allclose(by_seat[alive], want[alive], atol=1e-6)
    np.testing.assert_allclose(np.asarray(ended.rewards).sum(), 1.0, atol=1e-5)
    assert int(T(ended).table.stacks.sum()) == 6 * 1000
    again = stop(ended)  # a finished game is unchanged
    jax.tree.map(np.testing.assert_array_equal, again, ended)


def test_formats_are_params_that_vmap():
    """Issue #4 point 1: formats are data passed as a params pytree, so one env plays several
    formats of one seat count in one batch, each row exactly as that format's own env."""
    from holdemjax.poker.structure import FORMATS, make_format, stack_formats

    env = _env("sng-6")
    names = ["sng-6", "sng-6-turbo", "certify"]
    fmts = stack_formats(*(make_format(**FORMATS[n]) for n in names))
    keys = jax.random.split(jax.random.key(8), 3)
    init = jax.jit(jax.vmap(env.init_with))
    step = jax.jit(jax.vmap(env.step))
    state = init(keys, fmts)
    assert np.asarray(T(state).table.start_stacks[:, 0]).tolist() == [1000, 1500, 200]
    own = [_solo(n)[0](k) for n, k in zip(names, keys)]
    for i, o in enumerate(own):  # row i is format i's own game
        np.testing.assert_array_equal(state.observation[i], o.observation)
        np.testing.assert_array_equal(T(state).table.hole[i], T(o).table.hole)
    # row 2 (certify) follows certify's own env step for step, under the same actions
    own_step = _solo("certify")[1]
    mine = own[2]
    key = jax.random.key(9)
    total = np.zeros((3, 6))
    for _ in range(400):
        if bool(state.terminated.all()):
            break
        key, sub = jax.random.split(key)
        actions = holdemjax.act_randomly(sub, state.legal_action_mask)
        state = step(state, actions)
        total += np.asarray(state.rewards)
        mine = own_step(mine, actions[2])
        np.testing.assert_array_equal(state.observation[2], mine.observation)
        np.testing.assert_array_equal(state.rewards[2], mine.rewards)
    assert bool(state.terminated.all())
    hands = np.asarray(T(state).hand) + 1
    assert hands[2] <= 8  # certify's hand cap, while the others are not bound by it
    np.testing.assert_allclose(total.sum(axis=1), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="num_seats is 9, the env was built for 6"):
        env.init_with(keys[0], make_format(**FORMATS["ring-9"]))
