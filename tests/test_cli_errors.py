"""One voice for the `holdemjax` command's errors (issue 51 point 4): every subcommand, given
one bad input, prints one line ``holdemjax <command>: <what> (<the value>)`` on stderr, no
traceback, nothing on stdout, and exits with status 2; so do argparse's usage errors (the
value after them: the help to read)."""

from __future__ import annotations

import pathlib
import sys

import pytest

from holdemjax.cli import build_parser, main
from holdemjax.series.policies import bundled

CHECKPOINTS = pathlib.Path(__file__).parents[1] / "training" / "checkpoints"
CHECKPOINT = CHECKPOINTS / "sng6_pushfold.msgpack"


def _not_wasm(tmp):
    path = tmp / "notes.wasm"
    path.write_text("not a module")
    return str(path)


def _a_file(tmp):
    path = tmp / "a-file"
    path.write_text("in the way")
    return str(path)


# command -> (its arguments given a temporary folder, what the line must name)
CASES = {
    "bench": (lambda tmp: ["bench", "kuhn", "--no-peer"], ["'kuhn'"]),
    "bench --batch": (lambda tmp: ["bench", "kuhn_poker", "--batch", "0"], ["--batch", "[0]"]),
    "series": (lambda tmp: ["series", "--format", "sng-7"], ["unknown --format", "'sng-7'"]),
    "series --out": (lambda tmp: ["series", "--variant", "certify-series", "--out",
                                  _a_file(tmp) + "/run"], ["--out:", "a-file/run"]),
    "series slot": (lambda tmp: ["series", str(tmp / "gone.wasm")], ["slot 0", "gone.wasm"]),
    "certify": (lambda tmp: ["certify", _not_wasm(tmp)], ["notes.wasm", "not a WebAssembly"]),
    "replay": (lambda tmp: ["replay", str(tmp / "missing.json")],
               ["cannot read the replay", "missing.json"]),
    "replay not JSON": (lambda tmp: ["replay", _a_file(tmp)], ["a-file: not JSON ("]),
    "export-wasm": (lambda tmp: ["export-wasm", str(tmp / "nope.msgpack"), "-o",
                                 str(tmp / "x.wasm")], ["nope.msgpack"]),
    "league": (lambda tmp: ["league", bundled("baseline"), bundled("random"), "--out",
                            str(tmp / "l")], ["needs 6 bots", "has 2 (baseline, random)"]),
    "explore": (lambda tmp: ["explore", "nosuch"], ["unknown policy", "'nosuch'"]),
    "play": (lambda tmp: ["play", "--bots", "nosuch", "--out", str(tmp / "p")],
             ["bot 'nosuch'", "a bundled policy"]),
    "duplicate status": (lambda tmp: ["duplicate", "status", "--store", str(tmp / "d.sqlite"),
                                      "nomatch"], ["'nomatch'"]),
}


def _the_error_line(capsys, command: str, names) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"holdemjax {command}: "), captured.err
    assert all(name in lines[0] for name in names), lines[0]
    assert "Traceback" not in captured.err and captured.out.strip() == "", captured
    return lines[0]


def test_every_subcommand_is_walked():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {case.split(" ")[0] for case in CASES} == set(sub.choices)
    assert {args[0] for args in USAGE} == set(sub.choices)


@pytest.mark.parametrize("case", CASES)
def test_a_bad_input_is_one_line_in_the_command_s_voice(case, tmp_path, capsys):
    args, names = CASES[case]
    args = [str(a) for a in args(tmp_path)]
    command = args[0] if args[0] != "duplicate" else " ".join(args[:2])
    assert main(args) == 2
    _the_error_line(capsys, command, names)


# argparse's refusals: a value of the wrong type, a missing argument; one per subcommand
USAGE = [["bench", "kuhn_poker", "--batch", "x"], ["series", "--seed", "x"], ["certify"],
         ["replay"], ["export-wasm"], ["league", "--games", "many", "bots/"],
         ["duplicate", "status"], ["duplicate", "create", "--seats", "six"],
         ["explore", "baseline", "--stack", "deep"], ["play", "--seed", "x"]]


@pytest.mark.parametrize("args", USAGE, ids=" ".join)
def test_a_usage_error_is_one_line_in_the_command_s_voice(args, capsys):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    command = " ".join(args[:2] if args[0] == "duplicate" else args[:1])
    _the_error_line(capsys, command, [f"(holdemjax {command} --help)"])


def test_no_command_is_one_line_too(capsys):
    with pytest.raises(SystemExit) as stop:
        main([])
    assert stop.value.code == 2
    line = capsys.readouterr().err.strip()
    assert line == "holdemjax: the following arguments are required: command (holdemjax --help)"


def test_certify_speaks_of_the_policy_not_of_a_slot_or_a_series(tmp_path, capsys):
    assert main(["certify", _not_wasm(tmp_path)]) == 2
    line = _the_error_line(capsys, "certify", ["notes.wasm"])
    assert "slot" not in line and "series" not in line


def test_certify_of_a_module_that_fails_to_start_names_no_slot(tmp_path, capsys):
    """The policy traps on its start message (an exported checkpoint at ring-9 does)."""
    import wasmtime

    zoo = pathlib.Path(__file__).parent / "series" / "zoo" / "trap_start.wat"
    module = tmp_path / "start.wasm"
    module.write_bytes(wasmtime.wat2wasm(zoo.read_text()))
    assert main(["certify", str(module), "--no-compile-cache"]) == 2
    line = _the_error_line(capsys, "certify", ["the certification fails: tournament 0: policy "
                                               "start.wasm: trapped"])
    assert "slot" not in line and "series" not in line


def test_export_wasm_without_its_compiler_names_the_sdk_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ziglang", None)  # as if not installed
    assert main(["export-wasm", str(CHECKPOINT), "-o", str(tmp_path / "x.wasm")]) == 2
    _the_error_line(capsys, "export-wasm", ["ziglang", "pip install -e '.[sdk]'"])
    assert not (tmp_path / "x.wasm").exists()
