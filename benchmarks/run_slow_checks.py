"""Run the checks marked ``slow`` (too long for CI) and commit what they found.

    python benchmarks/run_slow_checks.py [-n 2] [--json benchmarks/results/slow_checks.json]

CI deselects ``@pytest.mark.slow`` tests (pyproject's ``addopts``). They are not forgotten: this
script runs every one of them with pytest (its own progress output), reads pytest's JUnit XML
report and writes a results file (date, machine, versions, command, each test's outcome and
duration). tests/test_benchmarks.py checks that the committed file names exactly the slow tests
of the tree and that all of them passed, so a slow test added or changed without a new run fails
CI. Ctrl-C stops pytest and writes nothing.
"""

from __future__ import annotations

import argparse
import ast
import json
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from holdemjax.bench.core import header, results_dir  # noqa: E402

NAME = "slow_checks"


def _is_slow_mark(node: ast.expr) -> bool:
    """``pytest.mark.slow`` (or ``mark.slow``) as a decorator."""
    return isinstance(node, ast.Attribute) and node.attr == "slow" and (
        isinstance(node.value, ast.Attribute) and node.value.attr == "mark")


def _has_slow_param(decorator: ast.expr) -> bool:
    """A ``parametrize`` decorator with a ``pytest.param(..., marks=pytest.mark.slow)`` case
    (``marks=`` one mark or a list or tuple of them)."""
    for call in ast.walk(decorator):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "param"):
            continue
        for kw in call.keywords:
            if kw.arg == "marks":
                marks = kw.value.elts if isinstance(kw.value, ast.List | ast.Tuple) else [kw.value]
                if any(_is_slow_mark(m) for m in marks):
                    return True
    return False


def slow_tests(root: pathlib.Path = ROOT) -> list[str]:
    """The node ids (``path::function``) of the tests marked slow in ``tests/`` (the whole
    function, or some of its parameters: ``-m slow`` then runs only those), sorted."""
    found = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                    _is_slow_mark(d) or _has_slow_param(d) for d in node.decorator_list):
                found.append(f"{path.relative_to(root).as_posix()}::{node.name}")
    return sorted(found)


def _results(xml_path: pathlib.Path) -> list[dict]:
    """Per test case of a JUnit report: node id (parameters kept), outcome, seconds."""
    out = []
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        test_id = f"{module}.py::{case.get('name')}"
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
        out.append({"test": test_id, "outcome": outcome,
                    "seconds": round(float(case.get("time", 0.0)), 1)})
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", "--workers", type=int, default=1,
                   help="pytest-xdist workers (default 1: no xdist)")
    p.add_argument("--json", type=pathlib.Path, default=None,
                   help="results file (default benchmarks/results/slow_checks.json)")
    args = p.parse_args(argv)
    if args.workers < 1:
        p.error(f"--workers must be at least 1, got {args.workers}")
    wanted = slow_tests()
    if not wanted:
        print("no test is marked slow")
        return 0
    print(f"{len(wanted)} slow tests:", *wanted, sep="\n  ")
    load_before = [round(x, 2) for x in __import__("os").getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-m", "slow", "-p", "no:cacheprovider",
               f"--junitxml={report}", "-o", "junit_family=xunit1", *wanted]
        if args.workers > 1:
            cmd += ["-n", str(args.workers)]
        try:
            rc = subprocess.run(cmd, cwd=ROOT).returncode
        except KeyboardInterrupt:
            print("interrupted: nothing written")
            return 130
        if not report.exists():
            print(f"pytest wrote no report (exit {rc}): nothing written")
            return rc or 1
        tests = _results(report)
    doc = {**header(NAME, "The checks marked slow (deselected in CI), run in full",
                    load_before=load_before),
           "pytest_exit": rc, "all_passed": rc == 0 and all(t["outcome"] == "passed"
                                                           for t in tests),
           "tests": tests}
    path = args.json or results_dir() / f"{NAME}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path}: {sum(t['outcome'] == 'passed' for t in tests)} of {len(tests)} passed")
    return 0 if doc["all_passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
