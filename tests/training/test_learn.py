"""The from-scratch learner (`holdemjax.training.learn`, issue 48): its start knows no poker,
a tiny run of its settings learns a toy spot (calling five all-in bots with good hands only),
a table whose learner is out starts over with the learner's final score, and the command
resumes a run."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax import xla
from holdemjax.poker.tournament import player_scores
from holdemjax.training import evaluate as ev
from holdemjax.training import learn, panel, ppo

# The learner's settings at toy size: `certify` (200 chips, the blinds up every hand, 8 hands)
# against five all-in bots, where a policy that calls with every hand busts and one that calls
# with good hands only wins. Only the table mix, sizes and learning rate differ from LEARNER.
TOY = learn.config(3, env_id="certify", num_tables=32, rollout_steps=16, iterations=60,
                   minibatches=2, learning_rate=2e-3, hidden=(16,), opp_self=0.0,
                   opp_pool=0.0, opp_baseline=0.0, opp_panel=1.0, panel_bots=("allin",))


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    out = tmp_path_factory.mktemp("learn")
    trainer = ppo.Trainer.of(TOY)
    params0 = trainer.init_params(jax.random.key(TOY.seed))
    params, records = ppo.train(TOY, out, init_params=params0, quiet=True)
    return dict(trainer=trainer, params0=params0, params=params, records=records, out=out)


def test_the_learner_starts_from_a_near_uniform_policy(toy):
    """Knowledge-free start: the fresh network's probabilities are uniform over the legal
    actions to within 1 % (no prior, no strategy), whatever the cards."""
    trainer = toy["trainer"]
    states = jax.vmap(trainer.env.init)(jax.random.split(jax.random.key(0), 64))
    probs = jax.vmap(ppo.action_probs(TOY), in_axes=(None, 0))(toy["params0"], states)
    legal = states.legal_action_mask
    uniform = legal / legal.sum(-1, keepdims=True)
    assert learn.LEARNER.prior == "uniform"
    np.testing.assert_allclose(np.asarray(probs), np.asarray(uniform), atol=0.01)


def test_a_tiny_run_of_the_learner_beats_its_start_on_a_toy_spot(toy):
    """Issue 48's CI guard of learning: after 60 tiny iterations the greedy policy scores above
    its own first policy against five all-in bots, paired on the same unseen deals (z > 3)."""
    env = ev.make_env("certify")
    fn = ppo.policy(TOY, greedy=True)
    opp = panel.opponent("allin", env)
    before = ev.evaluate(fn, toy["params0"], deals=64, env_id="certify", seed=99, opponent=opp)
    after = ev.evaluate(fn, toy["params"], deals=64, env_id="certify", seed=99, opponent=opp)
    diff, se = ev.mean_se(after.per_deal - before.per_deal)
    assert ev.z_score(diff, se) > 3, (before.mean, after.mean, diff, se)
    assert sum(r["illegal_actions"] for r in toy["records"]) == 0


def test_a_table_whose_learner_is_out_starts_over_with_its_final_score(toy):
    """``stop_when_out``: where the learner's id is placed and the game goes on, the step is
    marked truncated, the new game starts, and the learner's reward is its final score - 1/6
    (what the whole game would have paid it); elsewhere the step is `env.step`'s."""
    trainer, env = toy["trainer"], toy["trainer"].env
    B = 64
    controller = jnp.zeros((B, 6), jnp.int32).at[:, 1:].set(ppo.BASELINE)  # id 0 learns

    @jax.jit
    def both(states, keys):
        shove = jnp.where(states.legal_action_mask[:, -1], env.num_actions - 1, 1)
        cut = jax.vmap(trainer._table_step)(states, shove, keys, controller)
        # a new game's first state keeps the ended step's flags (auto_reset): play it as live
        live = states.replace(terminated=jnp.zeros(B, bool), truncated=jnp.zeros(B, bool))
        plain = jax.vmap(env.step)(live, shove, jax.vmap(lambda k: xla.split_at(k, 0))(keys))
        return cut, plain

    states = jax.vmap(env.init)(jax.random.split(jax.random.key(1), B))
    cuts = 0
    for i in range(12):
        nxt, plain = both(states, jax.random.split(jax.random.key(100 + i), B))
        t = jax.vmap(env.tournament)(plain)
        out = ~jax.vmap(lambda a, s: a[s[0]])(t.alive, t.seat_of)  # id 0 placed
        over = plain.terminated | plain.truncated
        cut = np.asarray(out & ~over)
        scores = np.asarray(jax.vmap(lambda x: player_scores(x, zero_sum=True))(t))[:, 0]
        np.testing.assert_array_equal(np.asarray(nxt.truncated), cut | np.asarray(plain.truncated))
        np.testing.assert_array_equal(np.asarray(nxt.rewards[:, 0]),
                                      np.where(cut, scores, np.asarray(plain.rewards[:, 0])))
        cuts += int(cut.sum())
        # the rows that go on are env.step's, and the cut rows are a new game's first state
        same = ~cut & ~np.asarray(over)
        np.testing.assert_array_equal(np.asarray(nxt.observation)[same],
                                      np.asarray(plain.observation)[same])
        assert (np.asarray(jax.vmap(env.tournament)(nxt).hand)[cut] == 0).all()
        states = nxt
    assert cuts > 0  # the shoving tables do bust the learner before the end


def test_the_command_resumes_and_refuses_what_it_cannot_do(tmp_path, capsys):
    """``learn`` resumes from the folder's saved state by default (a saved state of another
    config is refused by name, exit 2); bad values exit 2 naming them."""
    assert learn.main(["--out", str(tmp_path), "--iterations", "0"]) == 2
    assert "iterations must be an int >= 1" in capsys.readouterr().err
    trainer = ppo.Trainer.of(TOY)
    leaves = trainer.state_leaves(trainer.init(params=trainer.init_params(jax.random.key(0))))
    ppo.save_state(tmp_path / "state.msgpack", leaves, TOY, iteration=1, env_steps=1,
                   train_s=1.0)
    assert learn.main(["--out", str(tmp_path), "--iterations", "5", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("holdemjax learn: ") and "saved for another config" in err


def _docs_table(marker: str) -> list[str]:
    import pathlib
    import re

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "learner.md").read_text()
    block = re.search(rf"<!-- {marker} -->\n((?:\|.*\n)+)", doc)
    assert block, marker
    return block.group(1).splitlines()[2:]


def _record(name: str) -> dict:
    import json
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    return json.loads((root / "benchmarks" / "results" / f"{name}.json").read_text())


def test_the_docs_learner_tables_are_the_committed_records():
    """docs/learner.md's tables of the learner's choices and speed are their results files'
    figures (no number typed by hand)."""
    choices = _record("learner_choices")
    assert _docs_table("learner-choices") == [
        f"| {r['name']} | {r['iteration']} ({r['decisions'] / 1e6:.1f} M) | "
        f"{r['mean']:.4f} ± {r['se']:.4f} | {r['versus']['diff']:+.5f} ± "
        f"{r['versus']['se']:.5f} | {r['versus']['z']:+.2f} |" for r in choices["rows"]]
    speed = _record("learner_speed")
    assert _docs_table("learner-speed") == [
        f"| {r['tables']:,} | {r['decisions_per_s']['end_to_end']:,.0f} | "
        f"{r['decisions_per_s']['env_only']:,.0f} | {r['split_s']['env']:.2f} s / "
        f"{r['split_s']['acting_and_bots']:.2f} s / {r['split_s']['update']:.2f} s | "
        f"{r['compile_s']['iteration']:.0f} s |" for r in speed["rows"]]
    assert speed["config"] == learn.LEARNER.to_dict() | {"iterations": speed["config"][
        "iterations"]}


def test_the_docs_head_to_head_and_lbr_figures_are_the_committed_records():
    import pathlib

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "learner.md").read_text()
    for name in ("learner_head_to_head", "learner_head_to_head_1200",
                 "learner_head_to_head_pfmix"):
        h2h = _record(name)
        for row in h2h["rows"]:
            assert f"{row['mean']:.4f} ± {row['se']:.4f}" in doc, name
            assert row["illegal"] == 0 and row["tournaments"] == 6 * h2h["deals"]
    lbr = _record("exploit_sng6_learned")["rows"][0]
    assert _docs_table("lbr:exploit_sng6_learned") == [
        f"| `{lbr['policy']}` | {lbr['lbr']['bb_per_100']:+.1f} ± {lbr['lbr']['ci95']:.1f} |"]


def _against_the_shipped(suffix: str) -> str:
    """The cells of a trial's row: its score against five baselines, its tables won over the
    shipped policy with z > 3, the example's table and one shipped policy against five of it,
    from the trial's panel and head-to-head records."""
    panel = _record(f"panel_learned_{suffix}_greedy_vs_sng6_pushfold")
    h2h = _record(f"learner_head_to_head_{suffix}")["rows"]
    by = {r["opponent"]: r for r in panel["lineups"]}
    wins = sum(r["versus"]["z"] > 3 for r in panel["lineups"])
    example, base = by["training/checkpoints/sng6_example.msgpack"]["versus"], by["baseline"]
    assert h2h[1]["policy"] == "training/checkpoints/sng6_pushfold.msgpack"
    return (f"{base['mean']:.4f} ± {base['se']:.4f} | {wins} of {len(by)} | "
            f"{example['diff']:+.4f} (z {example['z']:+.1f}) | {h2h[1]['mean']:.4f} ± "
            f"{h2h[1]['se']:.4f} (z {h2h[1]['z']:+.1f}) |")


def test_the_docs_table_of_the_pfmix_seeds_is_the_committed_records():
    """docs/learner.md's table of the other mix's three seeds, from each seed's records."""
    rows = [f"| {seed} | " + _against_the_shipped(f"pfmix{suffix}")
            for seed, suffix in ((0, ""), (1, "_s1"), (2, "_s2"))]
    assert _docs_table("pfmix-seeds") == rows


def test_the_docs_table_of_the_example_s_table_trials_is_the_committed_records():
    """docs/learner.md's table of the trials aimed at the example's table (one seed each)."""
    trials = (("pfmix", "the other mix", 600), ("pfex", "example 3 of 11 panel draws", 600),
              ("pfex1200", "the same, continued", 1200),
              ("pfexwide", "the same, a (128, 128) network", 600))
    rows = [f"| {label} | {its:,} | " + _against_the_shipped(name) for name, label, its in trials]
    assert _docs_table("example-trials") == rows
