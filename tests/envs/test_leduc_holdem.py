"""Leduc hold'em: API conformance, rules, golden games, docs, and step-by-step parity with pgx."""

from __future__ import annotations

import ast
import collections
import itertools
import json
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import leduc_holdem
from holdemjax.envs.leduc_holdem import CALL, FOLD, RAISE, LeducHoldem

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = pathlib.Path(__file__).parent / "golden" / "leduc_holdem.jsonl"
DOC = ROOT / "docs" / "leduc_holdem.md"
RANKS = "JQK"
LETTERS = "crf"  # action ids 0, 1, 2 in the golden notation
PUBLIC_FIELDS = ("current_player", "legal_action_mask", "observation", "rewards", "terminated",
                 "truncated")

env = LeducHoldem()
step = jax.jit(env.step)


def dealt(env, key, cards, first):
    """A fresh state of `env` with the deal and first player set (same recipe for pgx)."""
    s = env.init(key)
    s = s.replace(_cards=jnp.asarray(cards, jnp.int32), _first_player=jnp.asarray(first, jnp.int32),
                  current_player=jnp.asarray(first, jnp.int32))
    return s.replace(observation=env.observe(s))


def play(cards, first, actions):
    s = dealt(env, jax.random.key(0), cards, first)
    for a in actions:
        s = step(s, jnp.int32(a))
    return s


def obs_parts(obs):
    obs = np.asarray(obs)
    def idx(sl):
        hits = np.flatnonzero(obs[sl])
        return int(hits[0]) if len(hits) else None
    return (idx(leduc_holdem.OBS_HAND), idx(leduc_holdem.OBS_PUBLIC),
            idx(leduc_holdem.OBS_MY_CHIPS), idx(leduc_holdem.OBS_OPP_CHIPS))


# ------------------------------------------------------------------------------ conformance
def test_api():
    holdemjax.api_test(env, num_games=16, max_steps=12)


def test_make_and_properties():
    e = holdemjax.make("leduc_holdem")
    assert isinstance(e, LeducHoldem)
    assert (e.id, e.version, e.num_players, e.num_actions) == ("leduc_holdem", "v0", 2, 3)
    assert e.observation_shape == (34,)
    assert e.init(jax.random.key(0)).observation.dtype == jnp.bool_


# ------------------------------------------------------------------------------------ rules
def test_initial_state():
    """Antes of 1 each; own card visible, public card hidden; check or raise, no fold."""
    s = dealt(env, jax.random.key(0), [2, 0, 1], 1)
    assert int(s.current_player) == 1
    assert s.legal_action_mask.tolist() == [True, True, False]
    assert obs_parts(s.observation) == (0, None, 1, 1)  # player 1 holds J; chips 1 and 1


def test_raise_sizes_and_limit():
    """A raise is 2 above the opponent in round 0 and 4 in round 1; at most 2 raises a round."""
    s = play([0, 1, 2], 0, [RAISE])
    assert s._chips.tolist() == [3, 1]
    s = play([0, 1, 2], 0, [RAISE, RAISE])
    assert s._chips.tolist() == [3, 5]
    assert s.legal_action_mask.tolist() == [True, False, True]  # third raise not allowed
    s = play([0, 1, 2], 0, [RAISE, CALL, RAISE, RAISE])
    assert s._chips.tolist() == [7, 11]  # p0: 3 + 4, then p1: 7 + 4
    assert s.legal_action_mask.tolist() == [True, False, True]
    s = step(s, jnp.int32(RAISE))  # the third raise of a round is illegal
    assert bool(s.terminated) and s.rewards.tolist() == [-1.0, 1.0]  # player 0 raised


def test_fold_illegal_without_a_bet():
    """Folding when nothing is owed is illegal (pgx): -1 to the actor, +1 to the other."""
    s = play([0, 1, 2], 0, [CALL])
    assert not bool(s.legal_action_mask[FOLD])
    s = step(s, jnp.int32(FOLD))
    assert bool(s.terminated) and s.rewards.tolist() == [1.0, -1.0]


def test_rounds_and_public_card():
    """Check-check closes round 0; the first player opens round 1 and sees the public card."""
    s = play([0, 1, 2], 1, [CALL])
    assert int(s.current_player) == 0 and obs_parts(s.observation)[1] is None
    s = step(s, jnp.int32(CALL))
    assert int(s.current_player) == 1 and int(s._round) == 1
    assert obs_parts(s.observation) == (1, 2, 1, 1)  # Q in hand, K public
    s = play([0, 1, 2], 1, [RAISE, CALL])  # a called raise closes the round too
    assert int(s.current_player) == 1 and int(s._round) == 1 and s._chips.tolist() == [3, 3]


def test_fold_pays_folders_chips():
    s = play([2, 0, 1], 0, [CALL, CALL, RAISE, RAISE, FOLD])  # p0 folds with 5 in
    assert bool(s.terminated) and s.rewards.tolist() == [-5.0, 5.0]
    assert int(s.current_player) == 0  # the first player at the end, as in pgx


def test_showdown():
    """Pair with the public card beats a higher card; higher card wins; equal cards split."""
    seq = [RAISE, CALL, CALL, RAISE, CALL]  # 7 chips each
    assert play([2, 0, 0], 0, seq).rewards.tolist() == [-7.0, 7.0]  # J pairs
    assert play([2, 0, 1], 0, seq).rewards.tolist() == [7.0, -7.0]  # K high
    assert play([1, 1, 2], 0, seq).rewards.tolist() == [0.0, 0.0]  # split
    assert not bool(play([2, 0, 1], 0, seq[:-1]).terminated)


def test_terminal_observation_follows_pgx():
    """The public card bits are on after a fold in round 0 and off after the final call."""
    assert obs_parts(play([0, 1, 2], 0, [RAISE, FOLD]).observation)[1] == 2
    assert obs_parts(play([0, 1, 2], 0, [CALL, CALL, CALL, CALL]).observation)[1] is None


def test_helpers():
    assert sorted(collections.Counter(leduc_holdem.DECK).values()) == [2, 2, 2]
    assert leduc_holdem.showdown(leduc_holdem.JACK, leduc_holdem.KING, leduc_holdem.JACK) == 1
    assert leduc_holdem.showdown(leduc_holdem.QUEEN, leduc_holdem.KING, leduc_holdem.JACK) == -1
    assert leduc_holdem.showdown(leduc_holdem.QUEEN, leduc_holdem.QUEEN, leduc_holdem.KING) == 0
    a, b, c = (jnp.asarray(x) for x in zip(*itertools.product(range(3), repeat=3)))
    want = [leduc_holdem.showdown(int(x), int(y), int(z)) for x, y, z in zip(a, b, c)]
    assert leduc_holdem.showdown(a, b, c).tolist() == want
    assert max(leduc_holdem.hand_strength(c, c) for c in range(3)) > 0
    assert min(leduc_holdem.hand_strength(c, (c + 1) % 3) for c in range(3)) >= 0
    assert leduc_holdem.legal_actions(0, False) == (True, True, False)
    assert leduc_holdem.legal_actions(2, True) == (True, False, True)
    assert leduc_holdem.MAX_CHIPS == \
        leduc_holdem.OBS_MY_CHIPS.stop - leduc_holdem.OBS_MY_CHIPS.start - 1 == 13


def test_deal_distribution():
    """Ordered draws of 3 of the 6 cards: 8/120 for distinct ranks, 4/120 with a repeat."""
    n = 24_000
    s = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(7), n))
    cards = np.asarray(s._cards)
    assert (cards[:, 0] != cards[:, 1]).any() and not ((cards == cards[:, :1]).all(1)).any()
    counts = collections.Counter(map(tuple, cards.tolist()))
    for t, c in counts.items():
        p = (8 if len(set(t)) == 3 else 4) / 120
        assert abs(c / n - p) < 5 * np.sqrt(p * (1 - p) / n), (t, c)
    assert len(counts) == 24
    first = np.asarray(s.current_player)
    assert (first == np.asarray(s._first_player)).all() and abs(first.mean() - 0.5) < 0.02


# ------------------------------------------------------------------------------ golden games
def golden_games():
    return [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("game", golden_games(), ids=lambda g: g["name"])
def test_golden(game):
    cards = [RANKS.index(c) for c in game["hands"] + game["public"]]
    s = dealt(env, jax.random.key(0), cards, game["first"])
    rounds = game["actions"].split("/")
    moves = "".join(rounds)
    assert len(moves) == len(game["players"]) == len(game["legal"])
    for i, ch in enumerate(moves):
        assert not bool(s.terminated)
        legal = "".join(LETTERS[a] for a in range(3) if s.legal_action_mask[a])
        assert legal == game["legal"][i], (i, legal)
        assert int(s.current_player) == int(game["players"][i]), i
        assert int(s._round) == (0 if i < len(rounds[0]) else 1), i  # "/" marks round 1
        s = step(s, jnp.int32(LETTERS.index(ch)))
    assert bool(s.terminated)
    assert s.rewards.tolist() == game["rewards"]


# -------------------------------------------------------------------------------------- docs
def test_doc_tables_match_code():
    text = DOC.read_text()
    obs_rows = re.findall(r"^\| \[(\d+):(\d+)\] \| `(\w+)` \|", text, re.M)
    assert {n: slice(int(a), int(b)) for a, b, n in obs_rows} == {
        n: getattr(leduc_holdem, n)
        for n in ("OBS_HAND", "OBS_PUBLIC", "OBS_MY_CHIPS", "OBS_OPP_CHIPS")}
    assert max(int(b) for _, b, _ in obs_rows) == env.observation_shape[0]
    act_rows = re.findall(r"^\| (\d+) \| `(\w+)` \|", text, re.M)
    assert {n: int(i) for i, n in act_rows} == {"CALL": CALL, "RAISE": RAISE, "FOLD": FOLD}
    assert len(act_rows) == env.num_actions
    const_rows = re.findall(r"^\| `(\w+)` \| `([^`]+)` \|", text, re.M)
    assert len(const_rows) == 11
    for name, value in const_rows:
        assert getattr(leduc_holdem, name) == ast.literal_eval(value), name


# ------------------------------------------------------------------------- parity with pgx
# The chance outcome is made equal by copying pgx's dealt cards and first player (`_cards`,
# `_first_player`, `current_player`) into our state after both inits; from then on both envs
# are stepped with the same actions and compared on every public field at every step.
def _compare(ours, ref, skip_rows=None):
    for f in PUBLIC_FIELDS:
        x, y = np.asarray(getattr(ours, f)), np.asarray(getattr(ref, f))
        bad = (x != y).reshape(len(x), -1).any(1)
        if skip_rows is not None and f in ("current_player", "observation"):
            bad &= ~skip_rows
        assert not bad.any(), f"{f} differs in {bad.sum()} rows, e.g. row {np.flatnonzero(bad)[0]}"


def test_parity_random_games():
    pgx = pytest.importorskip("pgx")
    ref_env = pgx.make("leduc_holdem")
    n = 2048
    keys = jax.random.split(jax.random.key(11), n)
    ref = jax.jit(jax.vmap(ref_env.init))(jax.random.key_data(keys))

    @jax.jit
    @jax.vmap
    def ours_init(key, cards, first):
        return dealt(env, key, cards, first)

    ours = ours_init(keys, ref._cards, ref._first_player)
    ours_step, ref_step = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(ref_env.step))
    _compare(ours, ref)
    key = jax.random.key(12)
    for _ in range(8):  # the longest game has 8 actions
        key, k = jax.random.split(key)
        actions = holdemjax.act_randomly(k, ref.legal_action_mask)
        ours, ref = ours_step(ours, actions), ref_step(ref, actions)
        _compare(ours, ref)
    assert np.asarray(ref.terminated).all()


def test_parity_every_action_sequence():
    """Every deal (24 rank triples) x first player x all 3^8 action sequences, illegal included.

    Both envs apply an illegal action to the state and then end the game with the penalty
    (holdemjax.api follows pgx here), so every field is compared on every row.
    """
    pgx = pytest.importorskip("pgx")
    ref_env = pgx.make("leduc_holdem")
    triples = [t for t in itertools.product(range(3), repeat=3) if len(set(t)) > 1]
    seqs = np.array(list(itertools.product(range(3), repeat=8)), np.int32)
    setups = [(t, f) for t in triples for f in (0, 1)]
    n = len(setups) * len(seqs)
    cards = jnp.asarray(np.repeat(np.array([s[0] for s in setups], np.int32), len(seqs), 0))
    first = jnp.asarray(np.repeat(np.array([s[1] for s in setups], np.int32), len(seqs)))
    actions = np.tile(seqs, (len(setups), 1))
    keys = jax.random.split(jax.random.key(0), n)
    ours = jax.jit(jax.vmap(lambda k, c, f: dealt(env, k, c, f)))(keys, cards, first)
    ref = jax.jit(jax.vmap(lambda k, c, f: dealt(ref_env, k, c, f)))(
        jax.random.key_data(keys), cards, first)
    ours_step, ref_step = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(ref_env.step))
    illegal_seen = np.zeros(n, bool)
    _compare(ours, ref)
    for t in range(8):
        live = ~np.asarray(ours.terminated)
        illegal_seen |= live & ~np.asarray(ours.legal_action_mask)[np.arange(n), actions[:, t]]
        a = jnp.asarray(actions[:, t])
        ours, ref = ours_step(ours, a), ref_step(ref, a)
        _compare(ours, ref)
    assert np.asarray(ours.terminated).all()
    assert (~illegal_seen).sum() > 1000 and illegal_seen.sum() > 1000  # both kinds covered


# ------------------------------------------------------- information sets (issue 39 point 2)
def _infoset_starts(env):
    """A state at the first decision for every deal of ranks (player 0's, player 1's, the
    public card; no rank three times) and first player: 48 starts."""
    base = env.init(jax.random.key(0))
    deals = [d for d in itertools.product(range(3), repeat=3) if len(set(d)) > 1]
    return [base.replace(_cards=jnp.asarray(d, jnp.int32), current_player=jnp.int32(f),
                         _first_player=jnp.int32(f)) for d in deals for f in (0, 1)]


def _private(state):
    """The player to act's card, and the public card once round 1 has started."""
    card = int(state._cards[int(state.current_player)])
    return card, int(state._cards[2]) if int(state._round) == 1 else None


def test_pgx_observation_gives_information_sets_one_observation():
    """pgx's encoding (the default, kept identical) leaves out who acted and how: some
    information sets share an observation; what observe_history fixes."""
    from tests.envs.infosets import decisions, shared

    env = holdemjax.make("leduc_holdem")
    seen = decisions(env, _infoset_starts(env), _private)
    assert all(len(obs) == 1 for obs in seen.values())  # a function of the information set
    assert shared(seen)


def test_observe_history_tells_every_information_set_apart():
    from tests.envs.infosets import decisions, shared

    env = holdemjax.make("leduc_holdem", observe_history=True)
    plain = holdemjax.make("leduc_holdem")
    assert env.observation_shape == (59,)
    starts = _infoset_starts(env)
    seen = decisions(env, starts, _private)
    assert all(len(obs) == 1 for obs in seen.values())
    assert shared(seen) == {}
    # Round 0: 3 cards x 6 lines to a decision ("", c, r, cr, rr, crr); round 1: 3 x 3
    # (card, public card) x the 5 round-0 lines that close with a call x 6 lines: 288.
    assert len(seen) == 18 + 270
    s = env.step(env.step(starts[0], RAISE), RAISE)
    assert (np.asarray(env.observe(s))[:leduc_holdem.OBS_SIZE]
            == np.asarray(plain.observe(s))).all()


def test_observe_history_api():
    env = holdemjax.make("leduc_holdem", observe_history=True)
    holdemjax.api_test(env, num_games=8, max_steps=12)
