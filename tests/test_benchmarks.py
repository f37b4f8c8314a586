"""The benchmark harness (holdemjax.bench): fair peer drivers, statistics, results files, docs.

Speed itself is measured by the benchmarks (benchmarks/*.py), never here: these tests check
properties that do not depend on the machine's load.
"""

import importlib.util
import inspect
import json
import pathlib
import random
import re
import statistics
import sys

import pytest

from holdemjax import bench

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(name):
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------ OpenSpiel driver: O(1)
class _Legal:
    """OpenSpiel's full-game legal actions ``[0 (facing a bet), 1, lo..hi]`` without the list:
    counts every read and refuses the reads that cost O(n) (iteration, `in`, copies)."""

    def __init__(self, fold: bool, lo: int, hi: int, reads: dict):
        self.head = [0, 1] if fold else [1]
        self.lo, self.hi, self.reads = lo, hi, reads

    def __len__(self):
        self.reads["len"] += 1
        return len(self.head) + self.hi - self.lo + 1

    def __getitem__(self, i):
        self.reads["getitem"] += 1
        if not 0 <= i < len(self.head) + self.hi - self.lo + 1:
            raise IndexError(i)
        return self.head[i] if i < len(self.head) else self.lo + i - len(self.head)

    def __iter__(self):
        raise AssertionError("the driver iterated over the legal actions")

    def __contains__(self, item):
        raise AssertionError("the driver searched the legal actions")


class _FakeHand:
    """A hand shaped like universal_poker's: 3 chance nodes, then decisions until a fold
    ends it; `stack` sets how many raise-to amounts are legal."""

    def __init__(self, stack: int, calls: dict, reads: dict):
        self.stack, self.calls, self.reads = stack, calls, reads
        self.chance, self.decisions = 3, 0

    def current_player(self):
        self.calls["current_player"] += 1
        if self.chance:
            return -1
        return -4 if self.decisions >= 5 else self.decisions % 6

    def legal_actions(self):
        self.calls["legal_actions"] += 1
        if self.chance:
            return _Legal(False, 2, 40, self.reads)  # cards (any ids > 1)
        return _Legal(self.decisions % 2 == 1, 40, self.stack, self.reads)

    def apply_action(self, action):
        self.calls["apply_action"] += 1
        if self.chance:
            self.chance -= 1
        else:
            assert action in (0, 1) or 40 <= action <= self.stack
            self.decisions += 1


def _drive(stack: int, decisions: int = 200):
    calls = {"current_player": 0, "legal_actions": 0, "apply_action": 0}
    reads = {"len": 0, "getitem": 0}
    lines = [0]
    code = bench.play_openspiel.__code__

    def tracer(frame, event, arg):
        if frame.f_code is code:
            def local(frame, event, arg):
                if event == "line":
                    lines[0] += 1
                return local
            return local
        return None

    state = _FakeHand(stack, calls, reads)
    sys.settrace(tracer)
    try:
        bench.play_openspiel(lambda: _FakeHand(stack, calls, reads), state, decisions,
                             random.Random(0).random, bench.RAISE_SLOTS_MENU)
    finally:
        sys.settrace(None)
    return calls, reads, lines[0]


def test_openspiel_driver_work_per_decision_does_not_grow_with_the_legal_actions():
    # 60 raise-to amounts against 6 million: the driver makes the same calls, reads the same
    # number of entries and runs the same number of Python lines.
    small, big = _drive(100), _drive(6_000_000)
    assert small == big
    calls, reads, lines = small
    assert calls["apply_action"] == 200 + 3 * 40  # every decision and chance node applied once
    assert reads["getitem"] <= 2 * calls["legal_actions"]  # at most two entries read per node


def test_openspiel_driver_real_game_same_work_at_two_stack_depths():
    pyspiel = pytest.importorskip("pyspiel")  # the bench extra's peer; the fake above runs always

    def lines_per_decision(stack):
        game = pyspiel.load_game(bench.openspiel_game_string(6, stack, (10, 20)))
        code, counts = bench.play_openspiel.__code__, {}

        def tracer(frame, event, arg):
            if frame.f_code is not code:
                return None

            def local(frame, event, arg):
                if event == "line":
                    counts[frame.f_lineno] = counts.get(frame.f_lineno, 0) + 1
                return local
            return local

        sys.settrace(tracer)
        try:
            bench.play_openspiel(game.new_initial_state, game.new_initial_state(), 300,
                                 random.Random(1).random, bench.RAISE_SLOTS_MENU)
        finally:
            sys.settrace(None)
        return counts

    shallow, deep = lines_per_decision(200), lines_per_decision(20_000)  # ~180 vs ~20,000 raises
    # The lines of the decision branch run exactly once per decision at both depths.
    decision_lines = [n for n, c in shallow.items() if c == 300]
    assert len(decision_lines) >= 5
    assert all(deep.get(n) == 300 for n in decision_lines)
    # and no line runs more often than the loop turns (no inner loop over the actions).
    source, first = inspect.getsourcelines(bench.play_openspiel)
    turn = first + next(i for i, line in enumerate(source) if "state.current_player()" in line)
    for counts in (shallow, deep):
        assert max(counts.values()) <= counts[turn] + 1


# ------------------------------------------------------------------------ statistics
class _Fixed(bench.Side):
    def __init__(self, name, rates, log):
        super().__init__()
        self.name, self.rates, self.log = name, list(rates), log

    def _run(self, seconds):
        if seconds == 0:
            return {"count": 0, "seconds": 0.0}
        self.log.append(self.name)
        return {"count": self.rates.pop(0), "seconds": 1.0}


def test_interleave_rotates_and_medians_compare():
    log = []
    a = _Fixed("a", [10, 30, 20, 1000, 25], log)
    b = _Fixed("b", [10, 10, 10, 10, 5], log)
    bench.interleave([a, b], seconds=5, windows=5)
    assert log == ["a", "b", "b", "a", "a", "b", "b", "a", "a", "b"]
    ca, cb = a.cell(), b.cell()
    assert ca.median == 25 and cb.median == 10  # medians: an outlier window does not move them
    comp = bench.compare("a vs b", ca, cb, goal=2.0)
    assert comp.ratio == 2.5
    assert comp.round_ratios == [1.0, 3.0, 2.0, 100.0, 5.0]
    assert comp.q1 == 2.0 and comp.met is True
    assert bench.compare("a vs b", ca, cb, goal=2.5).met is False  # q1 under the goal
    t = bench.target("a", ca, 20)
    assert t["value"] == 25 and t["met"] is True and bench.target("a", ca, 26)["met"] is False


def test_write_results_keeps_every_window(tmp_path):
    log = []
    a, b = _Fixed("a", [3, 4, 5], log), _Fixed("b", [1, 2, 1], log)
    bench.interleave([a, b], 3, 3)
    comp = bench.compare("k", a.cell(), b.cell(), 2.0)
    path = bench.write_results("t", title="T", cells=[a.cell(), b.cell()], comparisons=[comp],
                               out_dir=tmp_path, command="python x.py --seconds 1")
    doc = json.loads(path.read_text())
    for key in ("date", "machine", "versions", "command", "cells", "comparisons", "statistic"):
        assert key in doc
    assert doc["versions"]["jax"] and doc["machine"]["cores"] >= 1
    assert [w["count"] for w in doc["cells"][0]["windows"]] == [3, 4, 5]
    assert doc["comparisons"][0]["ratio"] == 4.0 and doc["comparisons"][0]["met"] is True


# --------------------------------------------------------------- committed results, docs
# Speed results (written by holdemjax.bench.write_results); other results files there (the
# PokerKit oracle's) have no cells.
RESULTS = [p for p in sorted((ROOT / "benchmarks" / "results").glob("*.json"))
           if "cells" in json.loads(p.read_text())]


def test_committed_results_are_complete_and_their_ratios_follow_from_the_windows():
    assert RESULTS, "benchmarks/results/ has no results files"
    for path in RESULTS:
        doc = json.loads(path.read_text())
        assert doc["name"] == path.stem
        for key in ("date", "machine", "versions", "command", "cells"):
            assert doc.get(key), f"{path.name}: no {key}"
        cells = {}
        for c in doc["cells"]:
            assert c["windows"], f"{path.name}: {c['side']} has no windows"
            cell = bench.Cell(c["side"], c["unit"], c["windows"])
            assert cell.median == pytest.approx(c["median"], rel=1e-12)
            cells.setdefault(c["side"], []).append(cell)
        for comp in doc.get("comparisons", []):
            # The medians the ratio divides are those of windows in this file.
            assert any(o.median == pytest.approx(comp["ours_median"], rel=1e-12)
                       for o in cells[comp["ours"]]), f"{path.name}: {comp['key']}"
            assert any(p.median == pytest.approx(comp["peer_median"], rel=1e-12)
                       for p in cells[comp["peer"]]), f"{path.name}: {comp['key']}"
            assert comp["ratio"] == pytest.approx(comp["ours_median"] / comp["peer_median"])


def test_the_series_figures_follow_from_its_runs():
    """series.json's goal line (README row) is the median command wall of its runs, the upper
    quartile beside it, and the split the medians of the runs' engine / wasm / host times."""
    doc = json.loads((ROOT / "benchmarks" / "results" / "series.json").read_text())
    runs, (t,) = doc["cells"][0]["windows"], doc["targets"]
    walls = [w["seconds"] for w in runs]
    # (the windows keep milliseconds, the goal figures the unrounded times)
    assert t["value"] == pytest.approx(statistics.median(walls), abs=1e-3)
    assert t["q1"] == pytest.approx(max(walls) if len(walls) < 4 else
                                    statistics.quantiles(walls, n=4)[2], abs=1e-3)
    assert t["met"] == (t["value"] <= t["goal"] and t["q1"] <= t["goal"])
    med = {k: statistics.median(w[k] for w in runs) for k in ("series_s", "engine_s",
                                                               "policy_s", "host_s")}
    assert t["detail"] == (f"series {med['series_s']:.1f} s = engine {med['engine_s']:.1f} / "
                           f"wasm {med['policy_s']:.1f} / host {med['host_s']:.1f} s; first "
                           f"run, compiling: {walls[0]:.1f} s")


def test_benchmarks_doc_and_readme_table_are_generated_from_the_results():
    make = _load("make_benchmarks_doc")
    assert (ROOT / "docs" / "benchmarks.md").read_text() == make.render_doc(), (
        "docs/benchmarks.md is stale: run python benchmarks/make_benchmarks_doc.py")
    readme = (ROOT / "README.md").read_text()
    assert make.render_readme(readme) == readme, (
        "the README's benchmark table is stale: run python benchmarks/make_benchmarks_doc.py")


def test_check_floors_passes_and_fails(tmp_path):
    floors = _load("check_floors")
    log = []
    a, b = _Fixed("holdemjax", [30, 30, 30], log), _Fixed("pgx", [10, 10, 10], log)
    bench.interleave([a, b], 3, 3)
    a.info, b.info = {"env": "e", "batch": 8}, {"env": "e", "batch": 8}
    bench.write_results("fake", title="F", cells=[a.cell(), b.cell()],
                        comparisons=[bench.compare("e B=8", a.cell(), b.cell())],
                        out_dir=tmp_path)
    kind = bench.machine()["platform"]
    ok = floors.check({kind: {("fake", "e B=8"): 2.5}}, tmp_path)
    bad = floors.check({kind: {("fake", "e B=8"): 3.5}}, tmp_path)
    missing = floors.check({kind: {("fake", "other"): 1.0}}, tmp_path)
    assert [r["ok"] for r in ok] == [True]
    assert [r["ok"] for r in bad] == [False]
    assert [r["ok"] for r in missing] == [False] and "no result" in missing[0]["why"]


def test_slow_checks_are_run_and_their_result_committed():
    """The tests CI deselects (``@pytest.mark.slow``) ran in full: the committed results file
    names exactly the slow tests of this tree (a new or renamed slow test needs a new run of
    benchmarks/run_slow_checks.py), each passed, with the machine and command recorded."""
    slow = _load("run_slow_checks")
    want = slow.slow_tests()
    assert want, "no slow test found: the finder is broken (pyproject deselects some)"
    doc = json.loads((ROOT / "benchmarks" / "results" / "slow_checks.json").read_text())
    for key in ("date", "machine", "versions", "command"):
        assert doc.get(key), f"slow_checks.json: no {key}"
    ran = sorted({t["test"].split("[")[0] for t in doc["tests"]})
    assert ran == want, f"slow tests run {ran}, in the tree {want}"
    assert doc["all_passed"] and all(t["outcome"] == "passed" for t in doc["tests"]), (
        [t for t in doc["tests"] if t["outcome"] != "passed"])


def test_slow_test_finder_sees_the_mark(tmp_path):
    slow = _load("run_slow_checks")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_a():\n    pass\n\n"
        "@pytest.mark.parametrize('x', [1])\ndef test_b(x):\n    pass\n\n"
        "@pytest.mark.parametrize('x', [1, pytest.param(2, marks=pytest.mark.slow)])\n"
        "def test_c(x):\n    pass\n\n"
        "@pytest.mark.parametrize('x', [pytest.param(3, marks=[pytest.mark.xfail])])\n"
        "def test_d(x):\n    pass\n")
    assert slow.slow_tests(tmp_path) == ["tests/test_x.py::test_a", "tests/test_x.py::test_c"]


#: The benchmark-scale parity runs the side-game issues require (at least this many games), by
#: env id: 10,000 go 9x9 and 1,000 go 19x19 games (#18), 10,000 backgammon and 10,000 Gardner
#: chess games (#19), each through `benchmarks/parity_<game>.py --json`.
PARITY_RUNS = {"go_9x9": 10_000, "go_19x19": 1_000, "backgammon": 10_000,
               "gardner_chess": 10_000}


def test_committed_parity_runs_cover_the_required_games_with_no_mismatch():
    runs = {d["env"]: d for d in _load("make_benchmarks_doc").load_parity()}
    assert set(PARITY_RUNS) <= set(runs), f"missing parity runs: {set(PARITY_RUNS) - set(runs)}"
    for env, games in PARITY_RUNS.items():
        doc, report = runs[env], runs[env]["report"]
        assert doc["ok"] and report["games"] >= games, (env, report["games"])
        assert report["mismatched_games"] == 0 and not any(report["mismatches"].values()), env
        assert report["unfinished"] == 0 and not report["layout"], env
        # every game ended one way, and every kind of ending was reached
        assert sum(report["endings"].values()) == report["games"], env
        assert all(n > 0 for n in report["endings"].values()), (env, report["endings"])
        assert doc["command"].startswith("python benchmarks/parity_"), doc["command"]


# ------------------------------------------------- speed figures elsewhere in the docs
# Every speed figure outside docs/benchmarks.md and the README's generated table comes from a
# committed record, checked here; a rate typed into a page without one fails the last test.
def _md_table(text: str, header: str) -> list[list[str]]:
    from tests.envs.parity import markdown_table

    return markdown_table(text, header)


def test_cfr_doc_table_is_the_results_file():
    """docs/cfr.md's timing table: every row from benchmarks/results/cfr.json."""
    import statistics

    doc = json.loads((ROOT / "benchmarks" / "results" / "cfr.json").read_text())
    cells = doc["cells"]
    rows = []
    for ours, peer in zip(cells[::2], cells[1::2]):
        assert ours["side"].startswith("holdemjax") and ours["env"] == peer["env"]
        assert ours["iterations"] == peer["iterations"]
        a = ours["iterations"] / statistics.median(
            w["count"] / w["seconds"] for w in ours["windows"])
        b = peer["iterations"] / statistics.median(
            w["count"] / w["seconds"] for w in peer["windows"])
        rows.append([ours["env"], f"{ours['iterations']:,}", f"{a:.4f}", f"{b:.3f}",
                     f"**{b / a:.0f}×**", f"{ours['exploitability']:.3g}",
                     f"{peer['exploitability']:.3g}"])
    text = (ROOT / "docs" / "cfr.md").read_text()
    assert _md_table(text, "| env | iterations |") == rows
    assert f"Measured {doc['date'][:10]}" in text
    assert f"load average {doc['machine']['load_average_before'][0]:.1f}" in text


def test_training_doc_speed_table_is_the_checkpoints_run_info():
    """docs/training.md's training speed: the shipped checkpoint's recorded run info."""
    flax_serialization = pytest.importorskip("flax.serialization")
    raw = (ROOT / "training" / "checkpoints" / "sng6_example.msgpack").read_bytes()
    ckpt = flax_serialization.msgpack_restore(raw)
    info, config = json.loads(ckpt["info"]), json.loads(ckpt["config"])
    text = (ROOT / "docs" / "training.md").read_text()
    rows = _md_table(text, "| run | tables × steps |")
    assert rows == [[f"example run below ({info['iteration']} iterations, default config)",
                     f"{config['num_tables']} × {config['rollout_steps']}",
                     f"**{info['steps_per_s']:,.0f}**", f"{info['compile_s']:.0f} s"]]
    assert (f"{info['env_steps']:,} decisions in {info['train_s']:.0f} s of training plus "
            f"{info['compile_s']:.0f} s") in " ".join(text.split())


def test_export_doc_fuel_and_size_are_the_parity_results():
    doc = json.loads((ROOT / "benchmarks" / "results" / "export_wasm_parity.json").read_text())
    text = " ".join((ROOT / "docs" / "export.md").read_text().split())
    assert (f"About {doc['mean_fuel_ns'] / 1e6:.2f} ms of fuel (virtual time) per decision, at "
            f"most {doc['max_fuel_ns'] / 1e6:.2f} ms ({doc['decisions']:,} decisions") in text
    assert f"The module is about {doc['module_bytes']['greedy'] / 1000:.0f} KB" in text


#: A throughput figure: a number with a rate unit, or "N× faster / N× pgx".
_RATE = re.compile(
    r"\d[\d,.]*\s*(?:k|M|G|thousand|million)?\s*(?:steps|decisions|evals|iterations|hands|"
    r"games|tournaments|moves|actions|calls|deals)(?:/s|\s+(?:per|a|each)\s+second)"
    r"|\d[\d,.]*\s*(?:x|×)\s+(?:faster|slower|OpenSpiel|pgx|PokerKit)", re.I)


def test_no_rate_in_the_docs_without_a_results_file():
    """Outside the generated pages (docs/benchmarks.md, the README's table) a page may state a
    goal (">= 3x pgx", "Goal: 100 M evals/s") but no measured rate: measured figures live in the
    tables generated from, or checked against, a results file (the speed tables of go.md,
    backgammon.md, gardner_chess.md, cfr.md have no unit beside their numbers)."""
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    found = []
    for page in pages:
        text = page.read_text()
        if page.name == "benchmarks.md":
            continue
        if page.name == "README.md":
            before, rest = text.split("<!-- benchmarks:start -->")
            text = before + rest.split("<!-- benchmarks:end -->")[1]
        for m in _RATE.finditer(text):
            lead = text[max(0, m.start() - 12):m.start()].lower()
            if "≥" in lead or ">=" in lead or "goal" in lead:
                continue
            found.append(f"{page.name}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}")
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                found += [f"{nb.name}: {m.group(0)}" for m in _RATE.finditer("".join(
                    cell["source"]))]
    assert not found, f"speed figures without a results file: {found}"


# ----------------------------------------------------------------------- compile time
def _check_compile_doc(doc: dict) -> None:
    """A compile-time results document: every figure follows from its records (medians over
    the rounds), every ratio from the figures, every goal status from the ratios."""
    from holdemjax.bench import PROGRAMS

    for key in ("date", "machine", "versions", "command", "params", "envs", "records"):
        assert key in doc, f"compile: no {key}"
    fields = {"lower_s", "compile_s", "total_s", "fusions", "whiles"}
    for rec in doc["records"]:
        assert set(rec["programs"]) == set(PROGRAMS) and rec["side"] in ("holdemjax", "pgx")
        for p in rec["programs"].values():
            assert set(p) == fields and p["lower_s"] > 0 and p["compile_s"] > 0
            assert p["total_s"] == pytest.approx(p["lower_s"] + p["compile_s"])
            assert p["fusions"] >= 0 and p["whiles"] >= 0
    for row in doc["envs"]:
        ours = [r for r in doc["records"] if r["side"] == "holdemjax" and r["env"] == row["env"]]
        peer = {r["round"]: r for r in doc["records"]
                if r["side"] == "pgx" and r["env"] == row["peer"]}
        assert row["rounds"] == len(ours) >= 1 and peer
        for side, recs in (("ours", ours), ("pgx", list(peer.values()))):
            for name in PROGRAMS:
                for k in fields:
                    assert row[side][name][k] == pytest.approx(
                        statistics.median(r["programs"][name][k] for r in recs)), (row["env"],
                                                                                   side, name)

        def init_step(p, names=("init_batched", "step_batched")):
            return sum(p[n]["total_s"] for n in names)

        assert row["ours_s"] == pytest.approx(init_step(row["ours"]))
        assert row["pgx_s"] == pytest.approx(init_step(row["pgx"]))
        assert row["ratio"] == pytest.approx(row["ours_s"] / row["pgx_s"])
        assert row["ratio_unbatched"] == pytest.approx(
            init_step(row["ours"], ("init", "step")) / init_step(row["pgx"], ("init", "step")))
        rr = [init_step(r["programs"]) / init_step(peer[r["round"]]["programs"]) for r in ours]
        assert row["round_ratios"] == pytest.approx(rr)
        q3 = rr[0] if len(rr) == 1 else statistics.quantiles(rr, n=4, method="inclusive")[2]
        assert row["q3"] == pytest.approx(q3)
        if row["goal"] is None:
            assert row["met"] is None
        else:
            assert row["met"] == (row["ratio"] <= row["goal"] and row["q3"] <= row["goal"])


def test_compile_bench_measures_both_sides_and_its_ratios_follow_from_the_times(monkeypatch):
    pytest.importorskip("pgx")
    import jax

    # The bench clears JAX's caches before each program; here that would drop the programs
    # the worker's other tests compiled (this checks the record, not a time).
    monkeypatch.setattr(jax, "clear_caches", lambda: None)
    compile_bench, make = _load("bench_compile"), _load("make_benchmarks_doc")
    records = []
    summary = compile_bench.measure(["kuhn_poker"], rounds=1, batch=8, records=records)
    assert [(r["side"], r["env"], r["batch"], r["round"]) for r in records] == [
        ("holdemjax", "kuhn_poker", 8, 0), ("pgx", "kuhn_poker", 8, 0)]
    (row,) = summary
    assert row["env"] == row["peer"] == "kuhn_poker"
    assert row["goal"] == compile_bench.SIDE_GOAL
    assert compile_bench.goal_of("sng-6", "go_9x9") == compile_bench.FORMAT_GOAL
    # a compiled vmapped step has kernels on both sides
    assert row["ours"]["step_batched"]["fusions"] > 0 and row["pgx"]["step_batched"]["fusions"] > 0
    doc = compile_bench.document(records, summary, {"rounds": 1, "batch": 8,
                                                    "format_peer": "go_9x9"}, True)
    _check_compile_doc(doc)
    page = make.compile_section(doc)
    assert "| kuhn_poker |" in page and make.compile_rows(doc)


def test_committed_compile_results_follow_from_their_times():
    path = ROOT / "benchmarks" / "results" / "compile.json"
    assert path.exists(), "no compile.json: python benchmarks/bench_compile.py writes it"
    doc = json.loads(path.read_text())
    assert doc["name"] == "compile" and doc["kind"] == "compile"
    _check_compile_doc(doc)


def test_device_check_memory_figures():
    """device_check's bytes of one game's state (a batched state's leaves over the batch) and
    the device's memory figures (none reported on a CPU)."""
    import math

    import jax

    import holdemjax

    check = _load("device_check")
    env = holdemjax.make("kuhn_poker")
    state = jax.eval_shape(env.init, jax.eval_shape(lambda: jax.random.key(0)))
    one = sum(math.prod(x.shape) * x.dtype.itemsize for x in jax.tree.leaves(state))
    assert check.state_bytes(env, 8) == one > 0
    memory = check.device_memory()
    assert set(memory) == {"peak_bytes_in_use", "bytes_in_use", "bytes_limit"}
    if jax.devices()[0].platform == "cpu":
        assert all(v is None for v in memory.values())
