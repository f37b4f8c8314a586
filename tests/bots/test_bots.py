"""Tests of holdemjax/bots: legality, determinism, coordinate-addressed draws, the data file,
the baseline's edge over random bots, jit and vmap.

One compiled `play` (certify, 256 games) serves most tests: whole tournaments for the audit and
the significance test, a truncated loop for mid-game states.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.bots import baseline, coordinate_key, coordinates, draw_below, play, random_bot
from holdemjax.envs.sng import SitAndGo
from holdemjax.poker import table as poker_table
from holdemjax.poker.cards import parse_cards

ROOT = pathlib.Path(__file__).resolve().parents[2]
PREFLOP_SHA256 = "0db41beffd7bfcec2d56314b5ffdd7debd9c5a4beb456db08cb345ca9b7d26cf"
GAMES = 256
RANDOM, BASELINE = 0, 1


@pytest.fixture(scope="module")
def certify():
    return holdemjax.make("certify")


@pytest.fixture(scope="module")
def full_run(certify):
    """Baseline (player 0) against five random bots, every tournament to its end."""
    out = play(certify, jax.random.key(7), GAMES, jnp.asarray([1, 0, 0, 0, 0, 0]), 1_000_000)
    return jax.tree.map(np.asarray, out)


@pytest.fixture(scope="module")
def mid_states(certify):
    """Mid-game decision states: all-random play stopped after 9 steps (same compilation)."""
    out = play(certify, jax.random.key(11), GAMES, jnp.zeros(6, jnp.int32), 9)
    return out["states"]


def _row(states, i):
    return jax.tree.map(lambda x: x[i], states)


# ------------------------------------------------------------------------------- legality
def test_both_bots_pick_only_legal_actions(full_run):
    # Every bot is evaluated at every decision of every tournament, whoever plays it.
    assert full_run["decisions"] > 3000
    assert full_run["illegal"].tolist() == [0, 0]
    assert (full_run["steps"] > 0).all()


def test_tournaments_end_and_scores_sum_to_one(full_run):
    np.testing.assert_allclose(full_run["scores"].sum(1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_legal_on_sng6_random_play():
    """Both bots' picks are legal at every decision of 512 sng-6 tournaments of random play
    (random play ends a tournament in about 50 decisions: over 10,000 decisions audited)."""
    env = holdemjax.make("sng-6")
    out = play(env, jax.random.key(3), 512, jnp.zeros(6, jnp.int32), 1_000_000)
    assert int(out["decisions"]) > 10_000
    assert np.asarray(out["illegal"]).tolist() == [0, 0]


# ------------------------------------------------------------------- baseline beats random
def test_baseline_beats_random_bots(full_run):
    """One-sided z-test of the baseline's mean score against the fair share 1/6.

    z > 4 (p < 3.2e-5). Measured: 0.229 ± 0.006 (z about 10) over these 256 certify tournaments.
    """
    s = full_run["scores"][:, 0]
    z = (s.mean() - 1 / 6) / (s.std(ddof=1) / math.sqrt(len(s)))
    assert z > 4, (s.mean(), z)


# ---------------------------------------------------------------- determinism, jit, vmap
def test_determinism_jit_and_vmap(certify, mid_states):
    keys = jax.vmap(lambda g: jax.random.fold_in(jax.random.key(5), g))(jnp.arange(GAMES))
    both = jax.jit(jax.vmap(lambda s, k: jnp.stack(
        [baseline.act(certify, s, k), random_bot.act(certify, s, k)])))
    a1, a2 = np.asarray(both(mid_states, keys)), np.asarray(both(mid_states, keys))
    np.testing.assert_array_equal(a1, a2)
    assert a1.dtype == np.int32
    mask = np.asarray(mid_states.legal_action_mask)
    assert mask[np.arange(GAMES), a1[:, 0]].all() and mask[np.arange(GAMES), a1[:, 1]].all()
    single = jax.jit(lambda s, k: jnp.stack(
        [baseline.act(certify, s, k), random_bot.act(certify, s, k)]))
    for i in (0, 1, 2):  # a vmapped row equals its unbatched run
        assert np.asarray(single(_row(mid_states, i), keys[i])).tolist() == a1[i].tolist()


def test_random_bot_is_uniform_over_legal_actions(certify, mid_states):
    state = _row(mid_states, 0)
    keys = jax.random.split(jax.random.key(1), 2000)
    picks = np.asarray(jax.jit(jax.vmap(lambda k: random_bot.act(certify, state, k)))(keys))
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    counts = np.bincount(picks, minlength=len(state.legal_action_mask))
    assert set(np.flatnonzero(counts)) == set(legal)
    expected = 2000 / len(legal)
    assert (np.abs(counts[legal] - expected) < 5 * math.sqrt(expected)).all()


# ------------------------------------------------------------------ coordinate addressing
def test_coordinate_key_depends_on_each_coordinate_only():
    base = jax.random.key(42)
    u = lambda *c: int(draw_below(coordinate_key(base, *c), 2**31 - 1))
    ref = u(3, 2, 1, 0)
    assert u(3, 2, 1, 0) == ref
    assert len({ref, u(4, 2, 1, 0), u(3, 3, 1, 0), u(3, 2, 2, 0), u(3, 2, 1, 1)}) == 5
    raw = jax.random.key_data(base)  # raw uint32 key data works too, with the same draws
    assert int(draw_below(coordinate_key(raw, 3, 2, 1, 0), 2**31 - 1)) == ref


@pytest.fixture(scope="module")
def first_decisions(certify):
    """The same 256 deals after one decision by the first actor: all-random play, and play by
    six baselines (so the first actor's decision may differ between the two lines)."""
    run = lambda lineup, steps: play(certify, jax.random.key(13), GAMES,
                                     jnp.asarray(lineup), steps)["states"]
    return run([0] * 6, 0), run([0] * 6, 1), run([1] * 6, 1)


def _first_action(start, after):
    """0 fold, 1 check/call, 2 bet/raise: the first actor's decision, read from the tables."""
    start, after = SitAndGo.tournament(start), SitAndGo.tournament(after)
    seat = np.asarray(start.table.to_act)
    rows = np.arange(len(seat))
    folded = np.asarray(after.table.folded)[rows, seat]
    raised = np.asarray(after.street_raises)[rows, 0, seat] > 0
    return np.where(folded, 0, np.where(raised, 2, 1))


def test_draw_unchanged_by_another_seats_earlier_decision(certify, first_decisions):
    """The first actor decides differently in the two lines (fold in one, call in the other):
    the next seat's decision has the same coordinates, hence the same draws."""
    start, s1, s2 = first_decisions
    a1, a2 = _first_action(start, s1), _first_action(start, s2)
    coords = jax.jit(jax.vmap(lambda s: jnp.stack(coordinates(SitAndGo.decision(s)))))
    c1, c2 = np.asarray(coords(s1)), np.asarray(coords(s2))
    bot_keys = jax.vmap(lambda g: jax.random.fold_in(jax.random.key(99), g))(jnp.arange(GAMES))
    draw = jax.jit(jax.vmap(lambda k, c: draw_below(coordinate_key(k, *c), 10000)))
    d1, d2 = np.asarray(draw(bot_keys, c1)), np.asarray(draw(bot_keys, c2))
    rand = jax.jit(jax.vmap(lambda s, k: random_bot.act(certify, s, k)))
    r1, r2 = np.asarray(rand(s1, bot_keys)), np.asarray(rand(s2, bot_keys))
    ongoing = ((np.asarray(SitAndGo.tournament(s1).hand) == 0)
               & (np.asarray(SitAndGo.tournament(s2).hand) == 0))
    same_masks = (np.asarray(s1.legal_action_mask) == np.asarray(s2.legal_action_mask)).all(1)
    differ = ongoing & (a1 != a2)
    checked = 0
    for g in np.flatnonzero(differ):
        assert (c1[g] == c2[g]).all(), (g, c1[g], c2[g])
        assert d1[g] == d2[g]
        if same_masks[g]:
            assert r1[g] == r2[g]
        checked += 1
    assert checked >= 10, checked
    # and where nothing differs, every coordinate and draw agrees
    same = (a1 == a2) & ongoing
    assert (c1[same] == c2[same]).all() and (d1[same] == d2[same]).all()


# --------------------------------------------------------------------------- the data file
def test_preflop_file_checksum():
    raw = baseline.PREFLOP_PATH.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == PREFLOP_SHA256 == baseline.PREFLOP_SHA256
    equity, top = baseline.load_preflop()
    assert equity.shape == (169, 5) and top.shape == (169,)


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_preflop_table", ROOT / "benchmarks" / "make_preflop_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_preflop_file_is_what_the_script_computes():
    gen = _generator()
    data = json.loads(baseline.PREFLOP_PATH.read_text())
    assert data["version"] == gen.VERSION and data["seed"] == gen.SEED
    assert data["samples_per_class"] == gen.CHUNKS * gen.CHUNK
    assert data["names"] == [gen.class_name(c) for c in range(169)]
    assert data["top_bp"] == gen.top_bp([e[0] for e in data["equity_bp"]])
    assert gen.dumps(data) == baseline.PREFLOP_PATH.read_text()  # the file's exact text
    for c in (168, 5):  # AA and 72o recomputed from scratch (the whole file: the script --check)
        assert gen.class_equity(c) == data["equity_bp"][c], gen.class_name(c)


def test_preflop_table_is_sane():
    equity, top = baseline.load_preflop()
    names = json.loads(baseline.PREFLOP_PATH.read_text())["names"]
    aa, kk, seven_two = names.index("AA"), names.index("KK"), names.index("72o")
    assert 8400 < equity[aa, 0] < 8600 and 3350 < equity[seven_two, 0] < 3600
    assert top.argmin() == aa and top[aa] < top[kk]
    assert (np.diff(equity, axis=1) < 0).all()  # more opponents, less equity


# ------------------------------------------------------------------------ strategy pieces
def test_hand_class():
    cls = lambda text: int(baseline.hand_class(jnp.asarray(parse_cards(text))))
    assert cls("AsAh") == 12 * 13 + 12
    assert cls("AsKs") == 12 * 13 + 11 and cls("KdAd") == 12 * 13 + 11
    assert cls("AsKd") == 11 * 13 + 12
    assert cls("7c2d") == 0 * 13 + 5


@pytest.mark.parametrize("hole, board, street, tier, flush_draw, straight_draw", [
    ("AhKh", "Kd7c2s4d5c", 1, baseline.GOOD, False, False),  # top pair
    ("QhQd", "Jd7c2s4d5c", 1, baseline.GOOD, False, False),  # overpair
    ("7h7d", "Jd9c2s4d5c", 1, baseline.WEAK, False, False),  # underpair
    ("8h7h", "9hTh2cKdAs", 1, baseline.WEAK, True, True),  # combo draw
    ("As5c", "KdKh7c2s3d", 1, baseline.NOTHING, False, False),  # the board's pair only
    ("7s7d", "KdKh7c2s3d", 1, baseline.STRONG, False, False),  # full house
    ("Ac7s", "KdKh7c2s3d", 1, baseline.WEAK, False, False),  # two pair with the board's pair
    ("AsQd", "2c3d4h5s6c", 3, baseline.NOTHING, False, False),  # the board's straight
    ("AhJh", "2h3h9hKs6c", 2, baseline.STRONG, False, False),  # flush on the turn
    ("AhJh", "2h3h9sKs6c", 2, baseline.WEAK, True, False),  # nut flush draw
    ("AhJh", "2h3h9sKs6c", 3, baseline.NOTHING, False, False),  # river: no more draws
])
def test_postflop_reading(hole, board, street, tier, flush_draw, straight_draw):
    got = jax.jit(baseline._postflop)(jnp.asarray(parse_cards(hole)),
                                      jnp.asarray(parse_cards(board)), jnp.int32(street))
    assert [int(got[0]), bool(got[1]), bool(got[2])] == [tier, flush_draw, straight_draw]


def test_category_matches_the_evaluator():
    """The baseline's count-based category equals the evaluator's on 5, 6 and 7 cards."""
    from holdemjax.poker.evaluator import category, evaluate

    keys = jax.random.split(jax.random.key(4), 3000)
    hands = jax.vmap(lambda k: jax.random.permutation(k, 52)[:7])(keys).astype(jnp.int32)

    @jax.jit
    def both(cards, n):
        seen = jnp.arange(7) < n
        mine = baseline._category(*baseline._counts(cards, seen))
        return mine, jnp.select([n == 5, n == 6], [category(evaluate(cards[:5])),
                                category(evaluate(cards[:6]))], category(evaluate(cards)))

    for n in (5, 6, 7):
        mine, ref = jax.vmap(both, (0, None))(hands, n)
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(ref))


def test_docs_state_every_threshold():
    """docs/baseline.md lists every constant of the strategy with its value."""
    text = (ROOT / "docs" / "baseline.md").read_text()
    rows = dict(re.findall(r"^\| `([A-Z_0-9]+)` \| `([^`]+)` \|", text, flags=re.M))
    skip = {"FOLD", "CHECK_CALL", "MIN_RAISE", "NOTHING", "WEAK", "GOOD", "STRONG"}
    names = [n for n in dir(baseline) if n.isupper() and n[0] != "_"
             and not n.startswith("PREFLOP") and n not in skip]
    assert sorted(rows) == sorted(names)
    for name in names:
        assert rows[name] == repr(getattr(baseline, name)).replace(" ", ""), name


# ------------------------------------------------------- exact policies (luck's action terms)
@pytest.fixture(scope="module")
def baseline_states(certify):
    """Decisions of all-baseline play at several depths (the compiled `play` of `full_run`:
    the line-up and the step bound are traced), the finished games left out."""
    runs = [play(certify, jax.random.key(13), GAMES, jnp.ones(6, jnp.int32), s)["states"]
            for s in (2, 7, 16)]
    states = jax.tree.map(lambda *x: jnp.concatenate(x), *runs)
    live = ~np.asarray(states.terminated | states.truncated)
    return jax.tree.map(lambda x: x[live], states)


def test_baseline_probabilities_are_its_decisions_over_every_draw(certify, baseline_states):
    """`baseline.probabilities` is the exact distribution of `decide`: at every decision, the
    menu actions `decide_at` picks at each of the 10,000 draws, counted, are the probabilities
    times 10,000 (the same integers: equal exactly); `decide` is `decide_at` at its draw. The
    decisions: certify's (short stacks: push or fold) as played, and the same with every stack
    ten times deeper (the deep ranges, where a steal depends on the draw)."""
    u = jnp.arange(10000, dtype=jnp.int32)

    def one(state, key, deep):
        view = certify.decision(state)
        table = view.table.replace(stacks=view.table.stacks * jnp.where(deep, 10, 1))
        lg = poker_table.legal(table)
        view = view.replace(table=table, legal=lg)
        mask, _ = certify.menu.mask_and_amounts(table, lg)
        picks = jax.vmap(lambda x: baseline.decide_at(certify.menu, view, mask, x))(u)
        counts = jnp.zeros(mask.shape[0], jnp.int32).at[picks].add(1)
        drawn = draw_below(coordinate_key(key, *coordinates(view)), 10000)
        return (counts, baseline.probabilities(certify.menu, view, mask),
                baseline.decide(certify.menu, view, mask, key), picks[drawn], mask)

    n = baseline_states.current_player.shape[0]
    both = jax.tree.map(lambda x: jnp.concatenate([x, x]), baseline_states)
    deep = jnp.arange(2 * n) >= n
    keys = jax.random.split(jax.random.key(3), 2 * n)
    counts, probs, decided, at_draw, mask = (np.asarray(x) for x in jax.jit(jax.vmap(one))(
        both, keys, deep))
    assert n > 500
    np.testing.assert_array_equal(np.rint(probs.astype(np.float64) * 10000), counts)
    np.testing.assert_allclose(probs, counts / 10000, rtol=1e-6)  # (float32 rounding)
    np.testing.assert_array_equal(decided, at_draw)
    assert not (counts * ~mask).any()
    mixed = (counts > 0).sum(axis=1) > 1
    assert mixed.sum() >= 5, mixed.sum()  # decisions whose action depends on the draw


def test_random_bot_probabilities_are_its_decisions_over_every_draw(certify, mid_states):
    """`random_bot.probabilities` is the exact distribution of `decide`: each of the ``count``
    draws picks a different legal action (`legal_at`), so counts / count are the probabilities;
    `uniform_legal` is `legal_at` at its draw."""
    u = jnp.arange(certify.menu.num_actions, dtype=jnp.int32)

    def one(state, key):
        mask = state.legal_action_mask
        counts = jnp.zeros(mask.shape[0], jnp.int32).at[
            jax.vmap(lambda x: random_bot.legal_at(mask, x))(u)].add(
            (u < mask.sum()).astype(jnp.int32))
        drawn = random_bot.legal_at(mask, draw_below(key, mask.sum()))
        return counts, random_bot.policy(certify, state), random_bot.uniform_legal(key, mask), drawn

    keys = jax.random.split(jax.random.key(4), GAMES)
    counts, probs, picked, drawn = (np.asarray(x) for x in jax.jit(jax.vmap(one))(
        mid_states, keys))
    mask = np.asarray(mid_states.legal_action_mask)
    np.testing.assert_array_equal(counts, mask.astype(np.int32))
    np.testing.assert_array_equal(probs, mask / mask.sum(axis=1, keepdims=True).astype(
        np.float32))
    np.testing.assert_array_equal(picked, drawn)


def test_policies_follow_the_bots_order(certify):
    """`POLICIES` is in `BOTS` order (`play` picks a bot's probabilities by its index), and
    `known_policy` finds a bot's from its ``act`` bound to an env, nothing else's."""
    import functools

    from holdemjax.bots import BOTS, POLICIES, known_policy

    assert tuple(POLICIES) == tuple(BOTS)
    assert known_policy(functools.partial(baseline.act, certify)).func is baseline.policy
    assert known_policy(functools.partial(random_bot.act, certify)).func is random_bot.policy
    assert known_policy(lambda state, key: 0) is None
