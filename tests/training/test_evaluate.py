"""Seat-rotation evaluation: neutrality with six identical policies, the rotation itself, a weak
policy measured as weak, and the guards (illegal actions, unfinished tournaments)."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.bots import baseline, random_bot
from holdemjax.testing import CompileCounter
from holdemjax.training import evaluate as ev
from holdemjax.training import evaluate_cli

ENV = ev.make_env("sng-6")
BASELINE, RANDOM, OUT_OF_RANGE = 0, 1, 2


def switch_policy(which, state, key):
    """One policy function for the whole module (one compile): ``which`` is traced data."""
    return jax.lax.switch(which, [
        lambda: baseline.act(ENV, state, key),
        lambda: random_bot.act(ENV, state, key),
        lambda: jnp.int32(99),  # no such action: illegal at every decision
    ])


def run(which, deals, **kw):
    return ev.evaluate(switch_policy, jnp.int32(which), deals=deals, chunk=8, **kw)


@pytest.fixture(scope="module")
def neutral():
    return run(BASELINE, 8)


def test_six_identical_policies_score_exactly_one_sixth_per_deal(neutral):
    np.testing.assert_allclose(neutral.per_deal, 1 / 6, atol=2e-6)
    assert abs(neutral.mean - 1 / 6) < 2e-6
    assert neutral.z == 0.0, neutral.summary()
    assert neutral.tournaments == 48 and neutral.illegal == 0 and neutral.unfinished == 0
    # Not a constant: within a deal the six seats score differently (the cards differ).
    assert neutral.scores.std(axis=1).min() > 0


def test_z_takes_float32_rounding_of_the_scores_as_no_difference():
    # A policy that played passive's own moves against five passive bots over 500 deals: the
    # per-deal rotation averages of float32 payouts were 1/6 to ~1e-8 and z read -3.26.
    mean, se = np.float32(1 / 6).item() - 3.3e-9, 1.0e-9
    assert ev.z_score(mean - 1 / 6, se) == 0.0
    assert ev.z_score(0.2 - 1 / 6, 0.001) == pytest.approx((0.2 - 1 / 6) / 0.001)
    assert ev.z_score(1e-3, 0.0) == np.inf and ev.z_score(-1e-3, 0.0) == -np.inf


def test_the_rotation_puts_the_policy_in_every_seat_once(neutral):
    for row in neutral.seats:
        assert sorted(row.tolist()) == list(range(6))
    # Deals differ: the seatings are not all the same.
    assert len({tuple(r) for r in neutral.seats.tolist()}) > 1


def test_a_random_policy_loses_to_five_baselines_with_significance():
    result = run(RANDOM, 8)
    assert result.mean < 0.12 and result.z < -3, result.summary()
    assert result.illegal == 0
    assert result.per_rotation.shape == (6,)


def test_a_second_evaluation_of_a_policy_neither_traces_nor_compiles(neutral):
    """A search calls `evaluate` hundreds of times with one policy: its check and its program
    are kept (the fixture evaluated this policy already; other params, same shapes)."""
    with CompileCounter() as counted:
        again = run(RANDOM, 8)
    assert counted.traces == 0 and counted.count == 0
    assert again.tournaments == 48


def test_illegal_actions_are_counted_and_penalised_not_crashing():
    result = run(OUT_OF_RANGE, 8)
    # The env's rule: an illegal action ends the game at once, the actor scoring -1; so every
    # tournament ends at the policy's first decision.
    assert result.illegal == result.tournaments == 48
    np.testing.assert_allclose(result.scores, -1.0)
    assert result.unfinished == 0


def test_a_policy_returning_the_wrong_thing_is_refused_by_name():
    with pytest.raises(ValueError, match="integer scalar"):
        ev.evaluate(lambda state, key: jnp.float32(1.0), deals=2)
    with pytest.raises(ValueError, match="deals"):
        ev.evaluate(lambda state, key: jnp.int32(1), deals=1)
    with pytest.raises(ValueError, match="env_id"):
        ev.evaluate(lambda state, key: jnp.int32(1), deals=2, env_id="kuhn_poker")


def test_cli_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        evaluate_cli.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--deals", "--greedy", "--opponent", "--out", "--plot", "advanced", "1/6"):
        assert flag in text, flag


def test_cli_reports_a_missing_checkpoint(capsys, tmp_path):
    assert evaluate_cli.main([str(tmp_path / "missing.msgpack"), "--deals", "2"]) == 2
    assert "missing.msgpack" in capsys.readouterr().err


def test_cli_refuses_a_critic_it_does_not_have(capsys):
    """``--luck-value critic`` takes the checkpoint's critic: refused (exit 2, named) for a
    reference bot, which has none; another value than the check-down without ``--luck`` too."""
    assert evaluate_cli.main(["baseline", "--luck", "--luck-value", "critic", "--deals", "2"]) == 2
    assert "critic" in (err := capsys.readouterr().err) and "baseline" in err
    for value in ("critic", "rollout"):
        assert evaluate_cli.main(["training/checkpoints/sng6_example.msgpack", "--luck-value",
                                  value, "--deals", "2"]) == 2
        assert f"--luck-value {value} needs --luck" in capsys.readouterr().err


# ------------------------------------------------------------------------------ the panel
def test_passive_and_allin_opponents_pick_what_they_say():
    """Both read only the legal mask: checked on every mask of the menu's shape that has
    CHECK_CALL legal (FOLD is offered only when facing a bet)."""
    import itertools
    import types

    from holdemjax.training import panel

    a = ENV.menu.num_actions
    masks = np.array([(f, True, *rest) for f in (False, True)
                      for rest in itertools.product((False, True), repeat=a - 2)])
    keys = jnp.zeros((len(masks), 2), jnp.uint32)

    def pick(name):
        bot = panel.opponent(name, ENV)
        return np.asarray(jax.jit(jax.vmap(lambda m, k: bot(
            types.SimpleNamespace(legal_action_mask=m), k)))(masks, keys))

    np.testing.assert_array_equal(pick("passive"), np.where(masks[:, 0], 0, 1))
    shove = ENV.menu.ALL_IN
    np.testing.assert_array_equal(pick("allin"), np.where(masks[:, shove], shove, 1))


def test_versus_pairs_the_policy_with_a_reference_on_the_same_deals():
    """``--versus NAME`` / `panel.run_versus`: the reference in the policy's seat on the same
    deals; the difference is per deal (docs/training.md, the evaluation panel)."""
    from holdemjax.training import panel

    results = panel.run_panel(switch_policy, jnp.int32(RANDOM), ["baseline"], deals=8, chunk=8)
    # the random bot as its own reference: the same moves (coordinate-keyed draws), so every
    # deal's difference is exactly 0 and z is 0, not a ratio of rounding
    [same] = panel.run_versus("random", results, deals=8, chunk=8)
    assert (same.reference, same.diff, same.se, same.z) == ("random", 0.0, 0.0, 0.0)
    assert same.mean == results[0][1].mean
    [v] = panel.run_versus("passive", results, deals=8, chunk=8)
    passive = ev.evaluate(panel.opponent("passive", ENV), deals=8, chunk=8)
    diff = results[0][1].per_deal - passive.per_deal
    assert v.mean == passive.mean and v.diff == pytest.approx(diff.mean(), abs=1e-12)
    assert v.se == pytest.approx(diff.std(ddof=1) / np.sqrt(8)) and v.z < -3
    rec = panel.record(results, [v], policy="random")
    assert rec["lineups"][0]["versus"]["reference"] == "passive"
    with pytest.raises(ValueError, match="deals"):
        panel.run_versus("passive", results, deals=16)


def test_the_cli_writes_the_paired_record(tmp_path, capsys):
    out = tmp_path / "panel.json"
    assert evaluate_cli.main(["random", "--opponent", "baseline", "--versus", "passive",
                              "--deals", "8", "--chunk", "8", "--quiet", "--out", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["reference"] == "passive" and "--versus passive" in rec["command"]
    [lineup] = rec["lineups"]
    assert lineup["versus"]["reference"] == "passive" and lineup["versus"]["z"] < -3
    assert "- passive on the same deals" in capsys.readouterr().out


def test_the_panel_runs_each_lineup_as_evaluate_does_and_reports_it(tmp_path):
    from holdemjax.training import panel

    direct = run(RANDOM, 8)  # the program compiled by the test above (baseline opponents)
    [(name, got)] = panel.run_panel(switch_policy, jnp.int32(RANDOM), ["baseline"], deals=8,
                                    chunk=8)
    assert name == "baseline"
    np.testing.assert_array_equal(got.scores, direct.scores)
    rec = panel.record([(name, got)], policy="random")
    assert rec["fair_share"] == 1 / 6 and "1/6" in rec["z"]
    assert rec["lineups"][0]["opponent"] == "baseline"
    assert rec["lineups"][0]["z"] == got.z < -3
    assert {"uname", "nproc"} <= set(rec["machine"]) and rec["versions"]["jax"]
    png = panel.plot([(name, got), ("again", direct)], tmp_path / "panel.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from rich.console import Console

    console = Console(record=True, width=140)
    console.print(panel.table([(name, got)]))
    text = console.export_text()
    assert "baseline" in text and f"{got.z:+.2f}" in text and "1/6" in text


def test_unknown_opponents_are_refused_by_name(capsys, tmp_path):
    from holdemjax.training import panel

    with pytest.raises(ValueError, match="'sharky'"):
        panel.opponent("sharky", ENV)
    with pytest.raises(ValueError, match="at least one"):
        panel.run_panel(switch_policy, jnp.int32(0), [], deals=2)
    assert evaluate_cli.main(["baseline", "--opponent", "passive", "--opponent", "sharky",
                             "--deals", "2"]) == 2
    assert "sharky" in capsys.readouterr().err
    assert evaluate_cli.main(["baseline", "--opponent", str(tmp_path / "gone.msgpack")]) == 2
    assert "gone.msgpack" in capsys.readouterr().err
    assert evaluate_cli.main(["baseline", "--versus", "nitbot", "--deals", "2"]) == 2
    assert "nitbot" in capsys.readouterr().err


def panel_rows(record: dict) -> list[str]:
    """The markdown rows of a panel record: mean ± SE, z vs 1/6, mean ± 2 SE, and with a paired
    reference its mean, the paired difference ± SE and its z."""
    rows = []
    for r in record["lineups"]:
        row = (f"| `{r['opponent']}` | {r['mean']:.4f} ± {r['se']:.4f} | {r['z']:+.2f} | "
               f"{r['mean'] - 2 * r['se']:.4f} .. {r['mean'] + 2 * r['se']:.4f} |")
        if "versus" in r:
            v = r["versus"]
            row += f" {v['mean']:.4f} | {v['diff']:+.5f} ± {v['se']:.5f} | {v['z']:+.2f} |"
        rows.append(row)
    return rows


def test_the_docs_panel_tables_are_the_committed_records():
    """docs/training.md's and docs/learner.md's panel tables, and any the README shows (each
    under a ``<!-- panel:NAME -->`` marker), are the line-ups of benchmarks/results/NAME.json,
    figure for figure: no score typed by hand."""
    import json
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    doc = "".join((root / "docs" / page).read_text() for page in ("training.md", "learner.md"))
    blocks = re.findall(r"<!-- panel:(\w+) -->\n((?:\|.*\n)+)", doc)
    assert {name for name, _ in blocks} == {"panel_sng6_example", "panel_sng6_example_greedy",
                                            "panel_sng6_pushfold_greedy",
                                            "panel_learned_greedy_vs_sng6_pushfold",
                                            "panel_learned_greedy_vs_passive",
                                            "panel_learned1200_greedy_vs_sng6_pushfold",
                                            "panel_learned_pfmix_greedy_vs_sng6_pushfold"}
    readme = re.findall(r"<!-- panel:(\w+) -->\n((?:\|.*\n)+)",
                        (root / "README.md").read_text())
    assert {name for name, _ in readme} <= {name for name, _ in blocks}
    for name, table in blocks + readme:
        record = json.loads((root / "benchmarks" / "results" / f"{name}.json").read_text())
        rows = [line for line in table.splitlines()[2:]]
        assert rows == panel_rows(record), name
        assert record["greedy"] == ("_greedy" in name)
        assert all(r["tournaments"] == 6 * record["deals"] and r["illegal"] == 0
                   for r in record["lineups"])
