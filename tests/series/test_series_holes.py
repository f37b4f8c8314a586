"""Issue #15's holes in the series host, each pinned by a test that failed before the fix:
table talk dropped silently, the engine version hard-coded, a module file read before its size
was checked, sit_in ignored in notification replies, replays missing the options that shaped
play. Scripted policies (tests/series/test_runner.py's) on the short `certify` format."""

from __future__ import annotations

import json
import pathlib

import pytest

from holdemjax.series import protocol, runner
from holdemjax.series import results as series_results
from holdemjax.series.wasm import PolicyLoadError, load_policy
from tests.series.test_runner import Scripted, _check_call


def _series(policies, **kw):
    kw.setdefault("variant", "certify-series")
    kw.setdefault("seed", 3)
    kw.setdefault("max_wall", None)
    return runner.run_series(policies, **kw)


def _others(n=5):
    return [Scripted(f"p{i}") for i in range(n)]


# ------------------------------------------------------------------------- table talk (7)
def test_every_dropped_line_is_counted_by_reason():
    """Finding 7: a say line on a default action, chat in a bad reply, an unknown emote and a
    line empty after cleaning were dropped without being counted."""
    def talker(msg):
        if msg["type"] != "act":
            return "ok", {"emote": "dance", "chat": ["\x07\x08"]}, 10  # unknown, empty
        if msg["hand"] % 2 == 0 and not msg["legal"]["check"]:  # not offered, with a say line
            return "ok", {"action": "check", "say": "hmm"}, 10
        return "ok", b'{"action":"pass","chat":["a","b"],"say":"c"}', 10  # a bad reply

    s = _series([Scripted("talker", talker)] + _others(), tournaments=1)
    doc = series_results.summarize(s, planned=1)["slots"][0]
    by = doc["chat_dropped_by"]
    assert by.get("say_not_admitted", 0) > 0
    assert by.get("bad_reply", 0) >= 3 and by["bad_reply"] % 3 == 0  # two chat lines + say
    assert by.get("unknown_emote", 0) > 0 and by.get("empty", 0) > 0
    assert by["unknown_emote"] == by["empty"]  # one of each per notification
    assert doc["chat_dropped"] == sum(by.values())
    # nothing of it reached the table
    talk = [e for t in s.tournaments for h in t["hands"] for e in h["events"]
            if e["type"] in ("chat", "emote") and e["seat"] == t["player_at_seat"].index(0)]
    assert talk == []


def test_an_away_seat_still_in_the_hand_may_not_emote():
    """Finding 7: an away seat's decision reply emoted though the seat was in the hand."""
    def away_emoter(msg):
        if msg["type"] == "act" and not msg["away"]:
            return "timeout", None, msg["_budget"]  # two in a row: away
        if msg["type"] == "act":
            return "ok", {"emote": "wave"}, 10
        return "no_reply", None, 10

    s = _series([Scripted("away", away_emoter)] + _others(), tournaments=1)
    emotes = [e for t in s.tournaments for h in t["hands"] for e in h["events"]
              if e["type"] == "emote"]
    assert emotes == []
    by = series_results.summarize(s)["slots"][0]["chat_dropped_by"]
    assert by.get("emote_in_hand", 0) > 0


def test_tournament_end_chat_goes_to_the_last_hand_played():
    """Finding 7: with the last hands auto-played (all-in from the blinds), tournament_end chat
    was attached to the last hand that had a decision."""
    def caller(msg):
        if msg["type"] == "tournament_end":
            return "ok", {"chat": ["gg all"]}, 10
        if msg["type"] != "act" or msg["away"]:
            return "no_reply", None, 10
        return "ok", {"action": "check" if msg["legal"]["check"] else "call"}, 10

    s = _series([Scripted(f"c{i}", caller) for i in range(6)], tournaments=2, seed=1)
    assert not s.tournaments[1]["hands"][-1]["actions"], "the last hand was auto-played"
    for t in s.tournaments:
        last = t["hands"][-1]
        gg = [h["hand"] for h in t["hands"] for e in h["events"]
              if e["type"] == "chat" and e["text"] == "gg all"]
        assert gg and set(gg) == {last["hand"]}, (gg, last["hand"])
    # The same series' HUD (issue 38; holdemjax/series/hud.py): six seats that only check or
    # call never raise, bet or fold, so nobody has a 3-bet, c-bet or fold-to-c-bet chance,
    # there is no post-flop bet and so no post-flop call (no AF), and every hand dealt goes to
    # a showdown: WTSD 100%. The big blind's checks are not voluntary, the limps are.
    huds = [slot["hud"] for slot in series_results.summarize(s)["slots"]]
    assert sum(h["won_at_showdown"] for h in huds) > 0
    for h in huds:
        assert h["hands"] > 0 and h["saw_flop"] == h["showdowns"] == h["hands"]
        assert (h["wtsd"], h["pfr"], h["af"]) == (100.0, 0.0, None)
        assert h["three_bet"] is h["cbet"] is h["fold_to_cbet"] is None
        assert h["postflop_bets"] == h["postflop_calls"] == 0
        assert 0 < h["vpip_hands"] < h["hands"]
        assert 0 <= h["won_at_showdown"] <= h["showdowns"]


# ---------------------------------------------------------------------- engine version (9)
def test_the_engine_version_is_the_environments(monkeypatch):
    """Finding 9: results.py wrote ``engine: "v0"`` whatever the rules engine was."""
    from holdemjax.envs.sng import SitAndGo

    s = _series(_others(6), tournaments=1)
    assert series_results.summarize(s)["versions"]["engine"] == "certify v0"
    monkeypatch.setattr(SitAndGo, "version", property(lambda self: "v7"))
    assert series_results.summarize(s)["versions"]["engine"] == "certify v7"
    # the fuel accounting is wasmtime's and the meter's (PROTOCOL §3): both are recorded
    from holdemjax.series.meter import METER_VERSION

    versions = series_results.summarize(s)["versions"]
    assert versions["meter"] == METER_VERSION and versions["wasmtime"]


# --------------------------------------------------------------- the module's size (8)
def test_load_policy_checks_the_size_before_reading(tmp_path, monkeypatch):
    """Finding 8: the whole file was read before the 16 MiB check."""
    big = tmp_path / "big.wasm"
    with open(big, "wb") as f:
        f.truncate(protocol.MAX_MODULE_BYTES + 1)  # sparse: nothing written
    read = []
    real = pathlib.Path.read_bytes
    monkeypatch.setattr(pathlib.Path, "read_bytes", lambda self: read.append(self) or real(self))
    with pytest.raises(PolicyLoadError, match=f"{protocol.MAX_MODULE_BYTES + 1} bytes, above"):
        load_policy(big, cache=False)
    assert read == []


# ------------------------------------------------------------- sit_in in notifications (5)
@pytest.mark.parametrize("note", ["hand_end", "tournament_end"])
def test_sit_in_in_a_notification_reply_brings_the_seat_back(note):
    """Finding 5 / PROTOCOL §4: a notification reply is read for sit_in; it was ignored."""
    state = {"timeouts": 0}

    def sleeper(msg):
        if msg["type"] == "act" and not msg["away"]:
            if state["timeouts"] < 2:  # two in a row: away
                state["timeouts"] += 1
                return "timeout", None, msg["_budget"]
            return _check_call(msg)
        if msg["type"] == note and state["timeouts"] == 2:
            state["timeouts"] = 3  # once
            return "ok", {"sit_in": True}, 10
        return "no_reply", None, 10

    p = Scripted("sleeper", sleeper)
    s = _series([p] + _others(), tournaments=2)
    msgs = p.messages
    back_at = next(i for i, m in enumerate(msgs) if m["type"] == note and state["timeouts"] == 3)
    events = [e["type"] for t in s.tournaments for h in t["hands"] for e in h["events"]]
    assert events.count("away") == 1, "the seat went away"
    later = [m for m in msgs[back_at + 1:] if m["type"] == "act"]
    assert later and not any(m["away"] for m in later)
    assert all(m["_budget"] > protocol.AWAY_NS for m in later)  # its bank is back in the budget
    assert events.count("back") == 1 and events.index("back") > events.index("away")


# ------------------------------------------------------------------ replays (3, finding 4)
ZOO = pathlib.Path(__file__).parent / "zoo"


def _wasm(tmp_path, name):
    import wasmtime

    path = tmp_path / f"{name}.wasm"
    path.write_bytes(bytes(wasmtime.wat2wasm((ZOO / f"{name}.wat").read_text())))
    return str(path)


def test_a_replay_with_clock_options_verifies(tmp_path, capsys):
    """Finding 3: `--shot-ms 5 --bank-s 0` was not recorded nor passed back by `replay`."""
    from holdemjax.cli import main
    from holdemjax.series import replay

    busy, out = _wasm(tmp_path, "busy"), tmp_path / "run"
    assert main(["series", busy, "--variant", "certify-series", "--shot-ms", "5", "--bank-s",
                 "0", "--out", str(out)]) == 0
    doc = replay.load(out / replay.REPLAY_NAME)
    assert doc["options"] == {"tournaments": 3, "shot_ns": 5 * protocol.MS, "bank_ns": 0,
                              "block": None}
    results = json.loads((out / "results.json").read_text())
    assert results["slots"][0]["timeouts"] > 0  # the clock shaped play
    capsys.readouterr()
    assert main(["replay", str(out / replay.REPLAY_NAME)]) == 0
    assert "reproduced: identical" in capsys.readouterr().out


def test_the_cut_tournament_of_a_stopped_series_is_compared(tmp_path, capsys):
    """Finding 4: the cut tournament was never compared (its hole cards and winnings could be
    changed and the replay still "reproduced")."""
    from holdemjax.cli import main
    from holdemjax.series import replay

    out = tmp_path / "cut"
    assert main(["series", "--variant", "series-10", "--max-wall", "0", "--out", str(out)]) == 0
    path = out / replay.REPLAY_NAME
    doc = replay.load(path)
    assert doc["stopped_early"] and doc["tournaments_played"] == 1
    assert replay.rerun_options(doc)["cut"] == (0, len(doc["tournaments"][0]["hands"]))
    same, report = replay.verify(path)
    assert same, report
    hand = doc["tournaments"][0]["hands"][-1]
    seat = next(s for s, h in enumerate(hand["hole"]) if h is not None)
    hand["hole"][seat] = ["2c", "2d"] if hand["hole"][seat] != ["2c", "2d"] else ["3c", "3d"]
    hand["winnings"][seat] += 1
    path.write_bytes(replay.encode_replay(doc))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    assert "NOT reproduced: differs first in tournament 0" in capsys.readouterr().out


def test_the_rerun_of_a_stopped_series_gets_the_planned_count():
    """Finding 4: the re-run's start message carried `tournaments_played` (1) where the
    original's carried the planned count (10)."""
    from holdemjax.series import replay

    first = [Scripted(f"p{i}") for i in range(6)]
    s = _series(first, variant="series-10", max_wall=0.0)
    doc = replay.replay_document(s, series_results.summarize(s))
    kwargs = replay.rerun_options(doc)
    again = [Scripted(f"p{i}") for i in range(6)]
    s2 = runner.run_series(again, **kwargs)
    assert [p.started["tournaments"] for p in again] == [10] * 6
    assert [p.started for p in again] == [p.started for p in first]
    assert replay.encode_replay(replay.replay_document(s2, series_results.summarize(s2))) \
        == replay.encode_replay(doc)
    # a series stopped between two tournaments: the re-run stops there too
    s3 = runner.run_series([Scripted(f"p{i}") for i in range(6)], variant="series-10",
                           max_wall=None, cut=(2, 0))
    assert s3.stopped_early and s3.tournaments_played == 2
    doc3 = replay.replay_document(s3, series_results.summarize(s3))
    assert replay.rerun_options(doc3)["cut"] == (2, 0)


# ------------------------------------------------- one instance per slot, research mode (6)
def test_one_instance_per_slot_for_the_whole_series(monkeypatch):
    """Finding 6: a series longer than a block reset every slot at each block (fresh
    instances and clocks; a benched slot played again). By default nothing is cut, however
    long the series: one start message, one fault, the seat benched to the end."""
    monkeypatch.setattr(runner, "BLOCK", 2)
    calls = {"n": 0}

    def trapper(msg):
        calls["n"] += 1
        if msg["type"] == "act" and msg["tournament"] == 0:
            return "trap", None, 10
        return _check_call(msg)

    p = Scripted("trapper", trapper)
    others = _others()
    s = _series([p] + others, tournaments=5)
    doc = series_results.summarize(s)
    assert doc["mode"] == "one instance per slot" and doc["blocks"] is None
    assert doc["options"]["block"] is None and s.timing["blocks"] == 1
    assert [f["faulted_at"] for f in doc["slots"][0]["faults"]] == [0]  # once, not per block
    assert not [m for m in p.messages if m["tournament"] > 0]  # benched: never called again
    starts = [m for m in others[0].messages if m["type"] == "act"]
    assert {m["tournament"] for m in starts} == set(range(5))


def _logger(tmp_path):
    import wasmtime

    wat = """
    ;; logger: logs "x" at every message, replies nothing
    (module
      (import "holdem" "log" (func $log (param i32 i32)))
      (memory (export "memory") 1)
      (data (i32.const 4096) "x")
      (func (export "holdem_abi_version") (result i32) (i32.const 1))
      (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
      (func (export "holdem_on_message") (param i32 i32) (result i64)
        (call $log (i32.const 4096) (i32.const 1)) (i64.const 0)))"""
    path = tmp_path / "logger.wasm"
    path.write_bytes(bytes(wasmtime.wat2wasm(wat)))
    return str(path)


def test_the_research_mode_says_so_and_keeps_every_blocks_records(tmp_path):
    """Finding 6: with blocks, later blocks' logs were not written, only block 0's SHA-256
    was recorded and a later block's load error escaped as a traceback."""
    from holdemjax.series import output
    from holdemjax.series.policies import bundled

    paths = [_logger(tmp_path), _wasm(tmp_path, "trap_nth")] + [bundled("random")] * 4
    s = runner.run_series([load_policy(p) for p in paths], variant="certify-series", seed=2,
                          tournaments=3, block=2, max_wall=None)
    doc = series_results.summarize(s)
    assert doc["mode"] == "blocks" and doc["options"]["block"] == 2
    assert [(b["first"], b["tournaments"]) for b in doc["blocks"]] == [(0, 2), (2, 1)]
    for b in doc["blocks"]:  # trap_nth traps in each block's fresh instance
        assert [(f["slot"], f["faulted_at"]) for f in b["faults"]] == [(1, b["first"])]
        assert b["sha256"] == [slot.sha256 for slot in s.slots]
    assert [f["faulted_at"] for f in doc["slots"][1]["faults"]] == [0, 2]
    files = output.write_all(s, doc, tmp_path / "out")
    log = next(f for f in files if f.name == "slot0.log").read_text()
    assert "[t2] x" in log and "[t0] x" in log
    # a file that changes between blocks: the series fails, naming the slot and the block
    broken = tmp_path / "broken.wasm"
    broken.write_bytes(pathlib.Path(paths[0]).read_bytes())
    pols = [load_policy(broken)] + [load_policy(p) for p in paths[1:]]
    broken.write_bytes(b"\0asm junk")
    with pytest.raises(runner.SeriesFailed, match=r"slot 0 .*block 1"):
        runner.run_series(pols, variant="certify-series", seed=2, tournaments=2, block=1,
                          max_wall=None)


def test_the_wall_time_limit_bounds_the_whole_series_in_workers():
    """Finding 6: each worker's block got the whole --max-wall of its own; now a block that
    starts after the series' limit plays nothing and stops the series."""
    import time

    from holdemjax.series.policies import bundled

    job = dict(variant="certify-series", seed=1, count=4, shot_ns=None, bank_ns=None, cut=None,
               trips={})
    part = runner._block_worker([bundled("random")] * 6, 1, range(2, 4), time.time() - 1, job)
    assert part["stopped_early"] and part["replays"] == []


# ------------------------------------------------------------ the machine-time guard (1)
_SPIN = """
;; spin: at any non-empty message, a plain loop until the budget runs out
(module
  (memory (export "memory") 1)
  (func (export "holdem_abi_version") (result i32) (i32.const 1))
  (func (export "holdem_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "holdem_on_message") (param $p i32) (param $n i32) (result i64)
    (local $i i32)
    (if (local.get $n) (then (loop $spin
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $spin))))
    (i64.const 0)))"""


def test_a_grow_loop_is_charged_and_times_out_like_plain_work(tmp_path):
    """Finding 1: memory.grow (also of 0 pages) cost 1 fuel unit and far more machine time; fuel
    was the only limit. Now each grow costs 1 + RUNTIME_CALL_NS units (PROTOCOL §3, the module
    rewritten at load): a grow loop runs out of its budget exactly as a plain loop does, the
    same outcome and fuel on every machine."""
    import wasmtime

    spin = tmp_path / "spin.wasm"
    spin.write_bytes(bytes(wasmtime.wat2wasm(_SPIN)))
    budget = protocol.SHOT_NS + protocol.DECISION_MAX_NS
    for policy in (load_policy(spin), load_policy(_wasm(tmp_path, "grow_loop"))):
        policy.start(b"")
        results = [policy.call(b'{"alive":[]}', budget) for _ in range(3)]
        assert [(r.outcome, r.used_ns) for r in results] == [("timeout", budget)] * 3
        assert policy.fault is None


def test_the_guard_still_faults_a_call_over_its_allowance(tmp_path, monkeypatch):
    """The machine-time guard stays as a safety net (PROTOCOL §3): with an allowance that a
    plain loop exceeds, the watchdog interrupts the call inside it ("wall_clock", before its fuel
    runs out) and the benched policy's store is freed at once."""
    import wasmtime

    from holdemjax.series import guard

    spin = tmp_path / "spin.wasm"
    spin.write_bytes(bytes(wasmtime.wat2wasm(_SPIN)))
    monkeypatch.setattr(guard, "MACHINE_PER_VIRTUAL", 0.01)
    monkeypatch.setattr(guard, "MACHINE_SLACK_S", 0.0)
    policy = load_policy(spin)
    policy.start(b"")
    budget = protocol.SHOT_NS + protocol.DECISION_MAX_NS
    result = policy.call(b"x", budget)
    assert result.outcome == protocol.WALL_CLOCK and policy.fault == protocol.WALL_CLOCK
    assert result.used_ns < budget  # stopped before its fuel ran out
    assert policy.memory_bytes == 0


def test_a_grow_loop_costs_no_more_wall_time_than_a_plain_loop(tmp_path):
    """Finding 1 / point 1: a grow-loop module stretched a certify-series to 5.8 times the wall
    time of the same series with the baseline in its slot, for the same virtual time as any
    policy that burns its budgets. With its grows charged, the series with it in a slot takes no
    longer than the series with a plain loop there (the costliest honest code per virtual ns)."""
    import time

    import wasmtime

    from holdemjax.series.policies import bundled

    # the same module with a plain loop (1 unit per turn) where grow_loop's grows are
    text = (ZOO / "grow_loop.wat").read_text()
    assert text.count("(drop (memory.grow (i32.const 0)))") == 1
    spin = tmp_path / "plain_loop.wasm"
    spin.write_bytes(bytes(wasmtime.wat2wasm(text.replace("(drop (memory.grow (i32.const 0)))",
                                                          "(nop)"))))

    def wall(first):
        pols = [load_policy(first)] + [load_policy(bundled("baseline")) for _ in range(5)]
        t0 = time.perf_counter()
        s = runner.run_series(pols, variant="certify-series", seed=4, tournaments=3,
                              max_wall=None)
        dt = time.perf_counter() - t0
        for p in pols:
            p.close()
        slot = series_results.summarize(s)["slots"][0]
        return dt, slot["faults"], slot["timeouts"]

    # The best of two runs of each side, interleaved, so that a burst of load on the machine
    # (the other test worker) does not decide the comparison (the grow loop's turns take about a
    # quarter of the plain loop's machine time per virtual ns).
    plain = hostile = float("inf")
    for _ in range(2):
        dt, faults, timeouts = wall(spin)
        plain = min(plain, dt)
        assert faults == [] and timeouts == 2
        dt, faults, timeouts = wall(_wasm(tmp_path, "grow_loop"))
        hostile = min(hostile, dt)
        assert faults == [] and timeouts == 2  # two timeouts and it is away, as the plain loop
    assert hostile < 1.5 * plain, (hostile, plain)
