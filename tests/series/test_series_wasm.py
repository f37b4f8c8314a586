"""Whole series with real wasm modules (PROTOCOL.md §3-§4, SPEC §3): hostile policies sit at the
table with the bundled baseline, each ends with its one recorded outcome, and the series always
completes; the replay reproduces byte for byte; the CLI's exit codes."""

from __future__ import annotations

import json
import pathlib

import pytest
import wasmtime

from holdemjax.cli import main
from holdemjax.series import output, replay, results, runner
from holdemjax.series.policies import bundled
from holdemjax.series.wasm import load_policy

ZOO = pathlib.Path(__file__).parent / "zoo"

# Canonical act messages start with {"alive": (keys sorted), start with {"alias":, notifications
# with {"events":. These modules look at bytes 2 and 5 to tell an act message from the others.
_IS_ACT = """
    (i32.and (i32.eq (i32.load8_u offset=2 (local.get $p)) (i32.const 97))
             (i32.eq (i32.load8_u offset=5 (local.get $p)) (i32.const 118)))"""

SLEEPY = f"""
;; sleepy: loops forever at every decision (timeouts, then away, never sits in again);
;; answers notifications at once.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (if {_IS_ACT} (then (loop $spin (br $spin))))
    (i64.const 0)))
"""

HOG = f"""
;; hog: grows its memory by 8 MiB at every decision: past 64 MiB at its ninth decision.
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (if {_IS_ACT} (then (drop (memory.grow (i32.const 128)))))
    (i64.const 0)))
"""


def _write(tmp_path, name, wat):
    path = tmp_path / f"{name}.wasm"
    path.write_bytes(bytes(wasmtime.wat2wasm(wat)))
    return str(path)


@pytest.fixture(scope="module")
def zoo_series(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("zoo")
    paths = [
        _write(tmp, "sleepy", SLEEPY),
        _write(tmp, "trap_nth", (ZOO / "trap_nth.wat").read_text()),
        _write(tmp, "long_reply", (ZOO / "long_reply.wat").read_text()),
        _write(tmp, "bad_json", (ZOO / "bad_json.wat").read_text()),
        _write(tmp, "hog", HOG),
        bundled("baseline"),
    ]
    series = runner.run_series([load_policy(p) for p in paths], variant="certify-series",
                               seed=21, max_wall=None)
    return paths, series


def test_hostile_policies_each_get_their_recorded_outcome(zoo_series):
    paths, series = zoo_series
    assert series.tournaments_played == 3 and not series.stopped_early
    doc = results.summarize(series, planned=3)
    slots = doc["slots"]
    for t in range(3):
        assert abs(sum(s.scores[t] for s in series.slots) - 1) < 1e-5
    sleepy, trap, long_reply, bad_json, hog, baseline = slots
    # sleepy: two timeouts, then away for the rest of the series, never faulted
    assert sleepy["timeouts"] == 2 and sleepy["away_hands"] >= 1 and sleepy["faulted_at"] is None
    # trap_nth: its third call traps (the start message is its first): benched in tournament 0
    assert trap["faulted_at"] == 0 and trap["faults"][0]["cause"] == "trap"
    assert trap["faults"][0]["detail"] == "UNREACHABLE"  # the trap's code, apart (issue 50)
    # every decision answered with 5,000 bytes: recorded, the default action taken
    assert set(long_reply["replies"]) == {"reply_too_long"} and long_reply["faulted_at"] is None
    assert set(bad_json["replies"]) == {"bad_reply"} and bad_json["faulted_at"] is None
    assert hog["faults"] and hog["faults"][0]["cause"] == "memory"
    assert baseline["faulted_at"] is None and baseline["timeouts"] == 0
    assert set(baseline["replies"]) == {"ok"}
    assert baseline["compute_ns"] > 0


def test_replay_reproduces_byte_for_byte(zoo_series, tmp_path):
    paths, series = zoo_series
    doc = results.summarize(series, planned=3)
    out = tmp_path / "out"
    written = output.write_all(series, doc, out)
    assert [p.name for p in written] == [replay.REPLAY_NAME, replay.VIEWER_NAME]
    same, report = replay.verify(out / replay.REPLAY_NAME)
    assert same, report
    # a changed policy file is refused by its hash
    tampered = tmp_path / "tampered.wasm"
    data = bytearray(pathlib.Path(paths[5]).read_bytes())
    tampered.write_bytes(bytes(data) + b"\0")
    with pytest.raises(ValueError, match="slot 5: .* has SHA-256"):
        replay.verify(out / replay.REPLAY_NAME, paths[:5] + [str(tampered)])


def test_cli_series_writes_results_replay_and_viewer(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["series", "--variant", "certify-series", "--seed", "4", "--out", str(out),
                 "--tournaments", "1"])
    assert code == 0
    doc = json.loads((out / "results.json").read_text())
    assert doc["tournaments_played"] == 1 and len(doc["slots"]) == 6
    assert all(s["policy"].endswith("baseline.wasm") for s in doc["slots"])
    assert (out / replay.REPLAY_NAME).is_file() and (out / replay.VIEWER_NAME).is_file()
    assert main(["replay", str(out / replay.REPLAY_NAME)]) == 0
    assert "reproduced" in capsys.readouterr().out


def test_cli_failures_exit_2(tmp_path, capsys):
    bad = tmp_path / "wasi.wasm"
    bad.write_bytes(bytes(wasmtime.wat2wasm((ZOO / "wasi_import.wat").read_text())))
    assert main(["series", str(bad), "--variant", "certify-series"]) == 2
    assert "imports wasi_snapshot_preview1" in capsys.readouterr().err
    start = tmp_path / "start.wasm"
    start.write_bytes(bytes(wasmtime.wat2wasm((ZOO / "trap_start.wat").read_text())))
    assert main(["series", str(start), "--variant", "certify-series"]) == 2
    assert "slot 0" in capsys.readouterr().err
    assert main(["series", str(tmp_path / "missing.wasm")]) == 2
    assert main(["series", "--variant", "series-7"]) == 2
    assert main(["series"] + [str(bad)] * 7) == 2


def test_certify_passes_the_baseline_and_fails_a_faulty_policy(tmp_path, capsys):
    """Issue #6 point 7: `holdemjax certify` plays 10 ring-9 games against random-action bots."""
    assert main(["certify", bundled("baseline"), "--out", str(tmp_path / "ok")]) == 0
    out = capsys.readouterr().out
    assert "PASSED" in out and "10 games" in out
    doc = json.loads((tmp_path / "ok" / "results.json").read_text())
    assert len(doc["slots"]) == 9 and doc["variant"] == "ring-9-series"
    assert all(s["policy"].endswith("random.wasm") for s in doc["slots"][1:])
    assert abs(sum(s["score"] for s in doc["slots"]) - 1) < 1e-5  # chips shares
    bad = tmp_path / "bad_json.wasm"
    bad.write_bytes(bytes(wasmtime.wat2wasm((ZOO / "bad_json.wat").read_text())))
    assert main(["certify", str(bad), "--out", str(tmp_path / "bad"), "--tournaments", "2"]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_ring_nine_series_clock_options_reach_the_policies(tmp_path):
    """`--format ring-9`: nine slots, 200 ms per action and a 30 s bank for the series by
    default (no refill between games), at most 1 s per decision; `--shot-ms` / `--bank-s`
    change them."""
    seen = []

    class Spy:
        name, sha256 = "spy", ""

        def __init__(self):
            self.inner = load_policy(bundled("baseline"))

        def start(self, data):
            seen.append(json.loads(data)["clock"])
            return self.inner.start(data)

        def call(self, data, budget):
            msg = json.loads(data)
            if msg["type"] == "act":
                seen.append(("budget", budget, msg["clock"]["bank_ns"]))
            return self.inner.call(data, budget)

    runner.run_series([Spy()] + [load_policy(bundled("random")) for _ in range(8)],
                      variant="ring-9-series", seed=1, tournaments=2)
    assert seen[0]["shot_ns"] == 200_000_000 and seen[0]["bank_ns"] == 30_000_000_000
    # issue 15: one decision may use at most 1 s (it could hold the series for 30.2 s virtual)
    assert seen[0]["bank_refills"] is False and seen[0]["decision_max_ns"] == 1_000_000_000
    budgets = [b for _, b, _ in seen[1:]]
    assert budgets and all(b == 1_000_000_000 for b in budgets)
    seen.clear()
    runner.run_series([Spy()] + [load_policy(bundled("random")) for _ in range(8)],
                      variant="ring-9-series", seed=1, tournaments=1, shot_ns=50_000_000,
                      bank_ns=0)
    assert seen[0]["shot_ns"] == 50_000_000 and {b for _, b, _ in seen[1:]} == {50_000_000}


def test_workers_give_the_results_of_one_process(monkeypatch):
    """Issue #6 point 8: the research mode's blocks (of `runner.BLOCK` tournaments, fresh
    instances per block) give the same replay and results in worker processes as in one."""
    monkeypatch.setattr(runner, "BLOCK", 3)  # blocks are cut in this process; 7 = 3 + 3 + 1
    paths = [bundled("baseline")] * 3 + [bundled("random")] * 3

    def run(workers):
        series = runner.run_series([load_policy(p) for p in paths], variant="certify-series",
                                   seed=5, tournaments=7, max_wall=None, workers=workers,
                                   block=3 if workers == 1 else None)
        doc = results.summarize(series, planned=7)
        timing = doc.pop("timing")
        document = replay.replay_document(series, {**doc, "timing": timing})
        return replay.encode_replay(document), doc, timing

    one, doc1, timing1 = run(1)
    two, doc2, timing2 = run(2)
    assert timing1["blocks"] == timing2["blocks"] == 3
    assert one == two and doc1 == doc2
    assert doc1["tournaments_played"] == 7
    assert doc1["mode"] == "blocks" and doc1["options"]["block"] == 3
    assert [(b["first"], b["tournaments"]) for b in doc1["blocks"]] == [(0, 3), (3, 3), (6, 1)]


def test_same_seed_same_files_in_fresh_processes(tmp_path):
    """Issue #6 point 8: two runs in fresh processes write a byte-identical replay and a
    results.json identical except its timing block."""
    import subprocess
    import sys

    outs = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        subprocess.run([sys.executable, "-m", "holdemjax.cli", "series", "--variant",
                        "certify-series", "--seed", "8", "--out", str(out)], check=True,
                       capture_output=True, timeout=600)
        outs.append(out)
    a, b = ((o / replay.REPLAY_NAME).read_bytes() for o in outs)
    assert a == b
    ra, rb = (json.loads((o / "results.json").read_text()) for o in outs)
    # timing (wall-clock seconds) may differ, nothing else; both runs report the same block
    ta, tb = ra.pop("timing"), rb.pop("timing")
    assert set(ta) == set(tb) == {"wall_s", "engine_s", "policy_s", "host_s", "blocks"}
    assert ta["blocks"] == tb["blocks"] and all(ta[k] >= 0 and tb[k] >= 0 for k in ta)
    assert ra == rb


def test_certify_passes_only_a_complete_run(tmp_path, capsys):
    """Issue #15 point 2: a certification cut by --max-wall (or with fewer than its 10 games) is
    INCOMPLETE: exit status 1 and the reason printed, never PASSED."""
    code = main(["certify", bundled("baseline"), "--max-wall", "0", "--out", str(tmp_path / "a")])
    out = capsys.readouterr().out
    assert code == 1 and "PASSED" not in out
    assert "INCOMPLETE" in out and "stopped early" in out and "of 10 games" in out
    doc = json.loads((tmp_path / "a" / "results.json").read_text())
    assert doc["stopped_early"] and doc["tournaments_played"] == 1
    # a complete-looking document of fewer games than planned, and one with fewer than 10
    doc.update(stopped_early=False, tournaments_played=1)
    passed, verdict = output.certify_verdict(doc)
    assert not passed and verdict.startswith("INCOMPLETE") and "1 of 10 games" in verdict
    doc.update(tournaments_planned=1)
    passed, verdict = output.certify_verdict(doc)
    assert not passed and "1 of 10 games" in verdict
