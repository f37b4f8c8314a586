"""holdemjax.luck.chance_term: AIVAT's chance term (Burch et al., AAAI 2018) under a value of
whole states, through the env's chance split (`step_deterministic`, `chance_outcomes`,
`chance_step`), and the PPO critic as that value (`training.ppo.state_value`).

What could be wrong and is checked: the outcomes' weights (the env's cards that can still come,
each equally likely), which state the value is taken on, the sampled form's weights, the rows the
sit & go luck puts the terms in, and the estimator's mean over played games with a learned value
(the shipped network's critic, trained on other games)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import holdemjax
from holdemjax import luck
from holdemjax.poker.actions import CHECK_CALL
from tests.test_luck import _to_board_card, _tournament

_ENV = holdemjax.make("sng-6")


def _river_decision():
    """The hand of test_luck's hand-computed river: two players left of six, AA against KK,
    20 chips each in, the turn checked to the last decision before the river (Kd)."""
    t = _to_board_card(_tournament([1000, 1000, 0, 0, 0, 0], {0: "AsAh", 1: "KsKh"},
                                   "2c7d9hJcKd"), 5)
    return _ENV.advance(_ENV.with_tournament(_ENV.init(jax.random.key(0)), t))


def _check_down(state):
    """The check-down value of the river's table under the tournament's value, by player id
    (the river is shown in every state the term values here)."""
    t = _ENV.tournament(state)
    return luck.check_down_values(t.table, 5, luck.tournament_value(t))[t.seat_of]


@functools.cache
def _terms():
    """At the river decision, in one program: the check's next state, its term (exact and over
    512 keys of 4 samples), the outcomes' probabilities, and the fold's term."""
    state = _river_decision()

    @jax.jit
    def run(state, keys):
        check, fold = jnp.int32(CHECK_CALL), jnp.int32(0)
        nxt = _ENV.step(state, check)
        sampled = jax.vmap(lambda k: luck.chance_term(_ENV, _check_down, state, check, nxt, k,
                                                      samples=4))(keys)
        return dict(nxt=nxt, exact=luck.chance_term(_ENV, _check_down, state, check, nxt),
                    sampled=sampled,
                    probs=_ENV.chance_outcomes(_ENV.step_deterministic(state, check)),
                    fold=luck.chance_term(_ENV, _check_down, state, fold,
                                          _ENV.step(state, fold)))

    out = run(state, jax.random.split(jax.random.key(1), 512))
    return state, out["nxt"], {k: np.asarray(v) for k, v in out.items() if k != "nxt"}


def test_the_river_term_is_the_hand_computed_reveal_correction():
    """Checking the turn brings the river out (Kd: KK wins). With the check-down as the value
    the term is the reveal correction test_luck computes by hand: KK's 40 chips in win on 34 of
    the 36 cards that can come (the 12 cards of the seats that are out and the 4 held are not on
    the board), heads-up ICM 0.066 / 2,000 a chip: AA loses ``40 * 34/36 * 0.066 / 2000``, KK
    gains it, the seats out nothing. The env's outcomes are those 36 cards, equally likely."""
    _, nxt, out = _terms()
    exact, probs = out["exact"], out["probs"]
    assert int(_ENV.tournament(nxt).table.revealed) == 5
    assert (probs > 0).sum() == 36
    np.testing.assert_allclose(probs[probs > 0], 1 / 36, rtol=1e-6)
    step = 40 * 34 / 36 * (0.333 - 0.267) / 2000
    np.testing.assert_allclose(exact, [-step, step, 0, 0, 0, 0], atol=2e-7)


def test_sampled_terms_average_to_the_exact_one():
    """With ``samples`` the expectation is a mean over outcomes drawn from `chance_outcomes`:
    over 512 keys of 4 samples the terms' mean is the exact term within 4 standard errors, and
    the draws do vary (a sampled expectation, not the exact one)."""
    _, _, out = _terms()
    exact, sampled = out["exact"], out["sampled"]
    se = sampled.std(axis=0, ddof=1) / np.sqrt(len(sampled))
    assert se[:2].min() > 0
    assert (np.abs(sampled.mean(axis=0) - exact) <= 4 * se + 1e-7).all(), (sampled.mean(0), exact)


def test_no_chance_no_term_and_bad_samples_named():
    """A step without a chance event (a fold: the hand ends, no card comes) has no term, and a
    bad ``samples`` is an error naming it."""
    state, _, out = _terms()
    fold = jnp.int32(0)
    assert not out["fold"].any()
    for bad in (0, 2.0, True):
        try:
            luck.chance_term(_ENV, _check_down, state, fold, state, jax.random.key(0), bad)
        except ValueError as err:
            assert "samples" in str(err) and repr(bad) in str(err)
        else:
            raise AssertionError(f"samples={bad!r} accepted")


def test_the_critic_values_placed_players_at_their_scores():
    """`ppo.state_value`: a player out of the game is worth its score (zero-sum: its place's
    payout less 1/6) whatever the critic says; players in get the critic's estimate."""
    from holdemjax.training import ppo

    params, config = ppo.load_checkpoint("training/checkpoints/sng6_example.msgpack")
    state, _, _ = _terms()
    value = np.asarray(jax.jit(ppo.state_value(config))(params, state))
    t = _ENV.tournament(state)
    placed = ~np.asarray(t.alive)
    np.testing.assert_allclose(value[placed], np.asarray(t.score)[placed] - 1 / 6, atol=1e-6)
    assert np.isfinite(value).all() and abs(value[0] - value[1]) > 0  # AA and KK differ


def test_evaluate_with_the_critic_keeps_the_mean():
    """`training.evaluate(..., luck=True, luck_value=ppo.state_value(config))`: the shipped
    policy against baselines, 8 deals (48 sit & gos): the luck is in the board-card rows only
    (no deal term, no action terms), every row happened, and the corrected mean equals the raw
    one within the luck's standard error (the terms' mean is zero whatever the value)."""
    from holdemjax.training import evaluate, ppo

    params, config = ppo.load_checkpoint("training/checkpoints/sng6_example.msgpack")
    r = evaluate.evaluate(ppo.policy(config), params, deals=8, chunk=8, seed=5, luck=True,
                          luck_value=ppo.state_value(config))
    assert r.luck.shape == (8, 6, len(luck.EVENTS)) and r.unfinished == 0
    assert not r.luck[..., luck.DEAL_EVENT].any() and not r.luck[..., luck.ACTION_EVENT].any()
    for row in (1, 2, 3):
        assert np.abs(r.luck[..., row]).max() > 0, luck.EVENTS[row]
    total = r.luck.sum(axis=2).mean(axis=1)
    np.testing.assert_allclose(r.per_deal - r.corrected_per_deal, total, atol=1e-6)
    se = total.std(ddof=1) / np.sqrt(len(total))
    assert abs(total.mean()) < 3.5 * se, (total.mean(), se)
    try:
        evaluate.evaluate(ppo.policy(config), params, deals=2, luck=False,
                          luck_value=ppo.state_value(config))
    except ValueError as err:
        assert "luck_value" in str(err)
    else:
        raise AssertionError("luck_value without luck accepted")


def test_the_readme_and_docs_show_the_committed_values_results():
    """docs/luck.md's figures of the other values (its "In short" summary and its tables; the
    README links there) are those of benchmarks/results/luck_learned.json
    (benchmarks/bench_luck_learned.py), whose rows say the luck kept the mean (each slot's mean
    luck within 3.5 of its standard errors), and the verdict on the 2x goal follows from the
    rollout row."""
    import json
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    doc = json.loads((root / "benchmarks" / "results" / "luck_learned.json").read_text())
    luck_md = " ".join((root / "docs" / "luck.md").read_text().split())
    six, mixed, shipped = doc["rows"]
    best = six["values"]["rollouts 32"]
    for row in (six, mixed):
        for value in row["values"].values():
            assert max(abs(z) for z in value["luck_mean_z"]) < 3.5, (row["setting"], value)
    for value in shipped["values"].values():
        assert abs(value["luck_mean"]) < 3.5 * value["luck_mean_stderr"], value
    assert f"{best['se_ratio_mean']:.2f}x" in luck_md
    assert f"{mixed['values']['rollouts 32']['se_ratio_mean']:.2f}x" in luck_md
    assert f"{round(100 * (1 - best['se_ratio_mean'] ** -2))} % fewer tournaments" in luck_md
    training_md = " ".join((root / "docs" / "training.md").read_text().split())
    for name in ("check-down", "critic", "rollouts 32"):
        for text in (luck_md, training_md):
            assert f"{shipped['values'][name]['se_ratio']:.2f}x" in text, name
    panel = json.loads((root / "benchmarks" / "results" / "panel_luck_rollouts.json"
                        ).read_text())
    assert "--luck-value rollout" in panel["command"]
    ratios = [r["se"] / r["corrected_se"] for r in panel["lineups"]]
    assert f"{sum(ratios) / len(ratios):.2f}x smaller standard errors on average" in luck_md
    assert f"panel tables {sum(ratios) / len(ratios):.2f}x on average" in luck_md
    for r, ratio in zip(panel["lineups"], ratios):
        assert f"{r['opponent']} {ratio:.2f}x" in luck_md.replace("all-in", "allin"), r
    verdict = "A value that sees play meets it" if best["se_ratio_mean"] >= 2 else (
        "A value that sees play does not meet it either")
    assert verdict in luck_md
