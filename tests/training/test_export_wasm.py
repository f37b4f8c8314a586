"""`holdemjax export-wasm`: the shipped checkpoint as a protocol module that plays as its JAX
policy (holdemjax/training/export_wasm.py, sdk/export/policy_net.c, docs/export.md).

* the observation rebuilt from ``act`` messages (`act_features.observation`) equals the env's
  ``state.observation`` bit for bit, and the module's own equals it too (the probe);
* greedy and sampled replies of the two modules equal the JAX policy's at every checked decision
  of real tournaments (the full 20,000-decision run: benchmarks/parity_export_wasm.py);
* the module is small, imports only ``holdem.*``, answers in about a millisecond of fuel;
* in a duplicate match the checkpoint (`holdemjax duplicate run MATCH CHECKPOINT.msgpack`) and
  its export play identical lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib

import pytest

pytest.importorskip("wasmtime")
pytest.importorskip("ziglang")

from holdemjax import cli
from holdemjax.series import protocol as P
from holdemjax.training import act_features, export_parity, export_wasm

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKPOINT = ROOT / "training" / "checkpoints" / "sng6_example.msgpack"


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """The shipped checkpoint exported greedy (through the CLI) and sampled (the function)."""
    out = tmp_path_factory.mktemp("export")
    greedy, sampled = out / "greedy.wasm", out / "sampled.wasm"
    assert cli.main(["export-wasm", str(CHECKPOINT), "-o", str(greedy)]) == 0
    export_wasm.export_wasm(CHECKPOINT, sampled, greedy=False)
    return greedy, sampled


def test_module_is_small_and_imports_only_the_protocol(modules):
    build = export_wasm._sdk_build()
    for path in modules:
        assert path.stat().st_size < 1_000_000 < P.MAX_MODULE_BYTES
        assert {(m, n) for m, n, _ in build.wasm_imports(path.read_bytes())} <= \
            build.ALLOWED_IMPORTS


def test_export_is_reproducible(modules, tmp_path):
    again = export_wasm.export_wasm(CHECKPOINT, tmp_path / "again.wasm")
    assert again.read_bytes() == modules[0].read_bytes()


def test_parity_with_the_jax_policy(modules):
    res = export_parity.run_parity(CHECKPOINT, *modules, games=32, limit=1_000, every=2)
    detail = json.dumps(res.first_failures[:2])[:3000]
    assert res.decisions == 1_000
    assert res.obs_mismatches == 0, detail
    assert res.probe_obs_mismatches == 0, detail
    assert res.greedy_mismatches == 0, detail
    assert res.sampled_mismatches == 0, detail
    # the features differ from networks.features only where log1p rounds differently
    assert res.probe_feature_mismatches_not_log1p == 0, detail
    # float32 in another order (and log1p rounded otherwise): last bits only
    assert res.max_logit_diff < 1e-4
    # about 1 ms of the 20 ms shot clock
    assert res.max_fuel_ns < 5_000_000
    seen = res.coverage
    for key in ("street 1", "street 2", "reply fold", "reply raise", "an all-in seat",
                "raising closed"):
        assert seen[key] > 0, (key, dict(seen))


def test_street_chips_leave_out_the_blinds():
    m = {"stacks": [990, 980, 1000], "sb": 0, "bb": 1, "blinds": [10, 20, 0],
         "history": [[0, 2, 3, 60], [0, 0, 2, 60], [0, 1, 2, 60], [1, 0, 3, 40]]}
    chips = act_features.street_chips(m)
    assert chips[0].tolist() == [50, 40, 60]
    assert chips[1].tolist() == [40, 0, 0]
    assert act_features.street_raises(m)[0].tolist() == [0, 0, 1]


def test_export_refuses_a_missing_checkpoint(tmp_path, capsys):
    assert cli.main(["export-wasm", str(tmp_path / "nope.msgpack"), "-o",
                     str(tmp_path / "x.wasm")]) == 2
    assert "nope.msgpack" in capsys.readouterr().err


@pytest.fixture(scope="module")
def duplicate(modules, tmp_path_factory):
    """One match (fixed seed, 12 hands): the checkpoint's JAX policy and its export, greedy
    (``duplicate run MATCH X.msgpack``) and sampled (``X.msgpack --sample``); closed."""
    store = str(tmp_path_factory.mktemp("club") / "club.sqlite")

    def run(*args):  # (exit status, stdout, stderr): error lines go to stderr (issue 36)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["duplicate", args[0], "--store", store, *map(str, args[1:])])
        return code, out.getvalue(), err.getvalue()

    code, text, _ = run("create", "--seats", 6, "--hands", 12, "--seed", 7, "--json")
    assert code == 0, text
    match = json.loads(text)["match"]
    played = {name: run("run", match, *policy, "--name", name) for name, policy in (
        ("jax", [CHECKPOINT]), ("wasm", [modules[0]]),
        ("jax-s", [CHECKPOINT, "--sample"]), ("wasm-s", [modules[1]]))}
    assert run("close", match)[0] == 0
    return run, match, played


@pytest.mark.parametrize("a, b", [("jax", "wasm"), ("jax-s", "wasm-s")])
def test_duplicate_checkpoint_and_export_play_identical_lines(duplicate, a, b):
    run, match, played = duplicate
    for name in (a, b):
        assert played[name][:2] == (0, f"{name}: line finished\n"), played[name]
    code, text, _ = run("review", match, a, b, "--json")
    review = json.loads(text)
    assert code == 0 and review["hands_compared"] == 12
    assert review["divergent_hands"] == 0


def test_duplicate_sampled_line_is_sampled(duplicate, modules):
    """``--sample`` plays the sampled policy: its line parts from the greedy one on these deals;
    it is refused for a file that cannot be sampled."""
    run, match, _ = duplicate
    review = json.loads(run("review", match, "jax", "jax-s", "--json")[1])
    assert review["divergent_hands"] > 0
    code, _, text = run("run", match, modules[0], "--sample")
    assert code == 2 and "--sample plays a policy file that can be sampled" in text
    assert "greedy.wasm" in text


REFUSAL = ("export-wasm policy: plays 6-seat tables only (its network's input is for that "
           "many seats); the format {} has {} seats")


def test_a_series_at_another_table_size_fails_at_start(modules, tmp_path, capsys):
    """ring-9 (also what `holdemjax certify` plays): the module refuses the start message the
    protocol's way (it logs why, then traps), so the series fails naming the policy and why."""
    code = cli.main(["series", str(modules[0]), "--variant", "ring-9-series",
                     "--out", str(tmp_path / "ring")])
    out = " ".join(capsys.readouterr().err.split())  # rich wraps long lines; errors: stderr
    assert code == 2
    assert (f"the series fails: slot 0 ({modules[0]}), tournament 0: policy greedy.wasm: "
            "trapped on the start message (UNREACHABLE); it logged "
            + repr(REFUSAL.format("ring-9", 9))) in out
    assert not (tmp_path / "ring").exists()


def test_a_duplicate_match_of_another_size_is_refused(modules, tmp_path, capsys):
    """A 4-seat match: neither the export nor the checkpoint's JAX policy joins (exit 2)."""
    store = str(tmp_path / "four.sqlite")
    assert cli.main(["duplicate", "create", "--store", store, "--seats", "4", "--hands", "2",
                     "--json", "--references", "close"]) == 0
    match = json.loads(capsys.readouterr().out)["match"]
    for policy in (modules[1], CHECKPOINT):
        assert cli.main(["duplicate", "run", "--store", store, match, str(policy)]) == 2
    out = " ".join(capsys.readouterr().err.split())  # error lines go to stderr (issue 36)
    assert (f"policy sampled.wasm: trapped on the start message (UNREACHABLE); it logged "
            f"{REFUSAL.format('duplicate', 4)!r}: it does not join the match") in out
    assert (f"checkpoint {CHECKPOINT} plays 6-seat tables only (its network's input is for "
            f"that many seats); match {match} has 4 seats: it does not join the match") in out
    assert cli.main(["duplicate", "status", "--store", store, match]) == 0
    assert "took part" not in capsys.readouterr().out  # nobody joined


def test_the_commands_docs_export_shows_parse():
    """Every ``holdemjax`` command of docs/export.md's walk-through is one the CLI takes (what
    they do is tested above and by notebooks/export_wasm.ipynb)."""
    import shlex

    text = (ROOT / "docs" / "export.md").read_text()
    block = text.split("```")[1]
    commands = [line.split("  #")[0] for line in block.splitlines()
                if line.startswith("holdemjax ")]
    assert len(commands) >= 10
    parser = cli.build_parser()
    for command in commands:
        args = parser.parse_args(shlex.split(command)[1:])
        assert callable(args.func), command


def test_series_plays_cleanly(modules, tmp_path):
    """`holdemjax series bot.wasm` (certify-series: 3 short tournaments against five
    baselines): no fault, no timeout, every reply admitted, about 1 ms per decision."""
    out = tmp_path / "series"
    assert cli.main(["series", str(modules[0]), "--variant", "certify-series",
                     "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    mine = doc["slots"][0]
    assert mine["faulted_at"] is None and not mine["faults"]
    assert mine["timeouts"] == 0 and mine["away_hands"] == 0
    assert set(mine["replies"]) == {"ok"}, mine["replies"]
    decisions = mine["replies"]["ok"]
    assert decisions > 0
    assert mine["compute_ns"] / decisions < 5_000_000
