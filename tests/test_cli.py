"""The `holdemjax` command."""

import json
import re

import pytest

from holdemjax.cli import main


def test_bench_prints_a_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "b.json"
    assert main(["bench", "kuhn_poker", "--batch", "2", "--seconds", "0.05", "--json",
                 str(out)]) == 0
    text = capsys.readouterr().out
    assert "kuhn_poker" in text and "steps/s" in text
    rows = json.loads(out.read_text())
    ours = [r for r in rows if r["who"] == "holdemjax"]
    assert len(ours) == 1 and ours[0]["batch"] == 2 and ours[0]["steps_per_s"] > 0
    pgx = [r for r in rows if r["who"] == "pgx"]
    assert len(pgx) == 1 and pgx[0]["batch"] == 2  # pgx is installed by the test extra
    printed = re.search(r"kuhn_poker.*?(\d+\.\d\d)x", text)
    assert printed, "no ratio printed on the kuhn_poker row"
    assert float(printed.group(1)) == round(ours[0]["steps_per_s"] / pgx[0]["steps_per_s"], 2)


def test_bench_unknown_env_exits_2(capsys):
    assert main(["bench", "kuhn", "--no-peer"]) == 2
    assert "holdemjax bench: unknown env id ('kuhn')" in capsys.readouterr().err


def test_bench_rejects_bad_batch(capsys):
    assert main(["bench", "kuhn_poker", "--batch", "0"]) == 2


def test_no_command_is_a_usage_error():
    with pytest.raises(SystemExit):
        main([])


def test_bench_plain_loops_measures_the_lax_forms_and_restores_gathering(capsys, monkeypatch):
    from holdemjax import sparse

    seen, real = [], sparse.set_gather

    def spy(enabled):
        seen.append(enabled)
        real(enabled)

    monkeypatch.setattr(sparse, "set_gather", spy)
    assert main(["bench", "kuhn_poker", "--batch", "4", "--seconds", "0.05", "--no-peer",
                 "--plain-loops"]) == 0
    assert "plain lax loops" in capsys.readouterr().out
    assert seen == [False, True] and sparse._GATHER is True


# ------------------------------------------- `holdemjax series`: errors on stderr, outputs kept
def _series_cli(tmp_path, *args):
    return main(["series", "--variant", "certify-series", "--tournaments", "1",
                 "--no-compile-cache", *args])


def _one_error_line(capsys, *parts):
    """The command printed one error line, on stderr, naming every part; nothing on stdout."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and all(part in lines[0] for part in parts), captured.err
    assert "Traceback" not in captured.err and captured.out.strip() == ""


def test_an_unwritable_out_fails_before_the_series_runs(tmp_path, capsys, monkeypatch):
    from holdemjax.series import runner

    def must_not_run(*args, **kwargs):
        raise AssertionError("the series ran before its outputs were checked")

    monkeypatch.setattr(runner, "run_series", must_not_run)
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    out = blocker / "run"
    assert _series_cli(tmp_path, "--out", str(out)) == 2
    _one_error_line(capsys, "--out", "cannot write the outputs to", str(out))


def test_a_missing_module_file_is_an_error_line(tmp_path, capsys):
    missing = tmp_path / "missing.wasm"
    assert _series_cli(tmp_path, str(missing)) == 2
    _one_error_line(capsys, "slot 0", "no such policy file", str(missing))


def test_a_file_that_is_not_wasm_is_an_error_line(tmp_path, capsys):
    text = tmp_path / "bot.wasm"
    text.write_text("(module)")
    assert _series_cli(tmp_path, str(text)) == 2
    _one_error_line(capsys, "slot 0", "bot.wasm", "not a WebAssembly binary")


def test_a_bad_seed_is_an_error_line(tmp_path, capsys):
    assert _series_cli(tmp_path, "--seed", "-1") == 2
    _one_error_line(capsys, "holdemjax series: --seed must be >= 0 (got -1)")


def test_an_unknown_variant_is_an_error_line(capsys):
    assert main(["series", "--variant", "series-7"]) == 2
    _one_error_line(capsys, "holdemjax series: unknown variant ('series-7')", "certify-series")


def test_an_unknown_format_is_an_error_line(capsys):
    assert main(["series", "--format", "sng-7"]) == 2
    _one_error_line(capsys, "holdemjax series: unknown --format ('sng-7')", "sng-6")


def test_a_batch_below_one_is_an_error_line(capsys):
    assert main(["bench", "kuhn_poker", "--batch", "0"]) == 2
    _one_error_line(capsys, "batch sizes must be >= 1", "[0]")


def test_a_missing_checkpoint_is_an_error_line(tmp_path, capsys):
    missing = tmp_path / "no-such-checkpoint"
    assert main(["export-wasm", str(missing), "--out", str(tmp_path / "x.wasm")]) == 2
    _one_error_line(capsys, "holdemjax export-wasm:", "no-such-checkpoint")


def test_an_interrupted_write_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    """The disk fills up while the outputs are written (from then on, a file-size limit of
    2,000 bytes, far below results.json): the command ends with an error line, and no output
    file is left cut short."""
    resource = pytest.importorskip("resource")
    signal = pytest.importorskip("signal")
    from holdemjax.series import output

    out = tmp_path / "run"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit: EFBIG
    write_results = output.write_results

    def disk_full(*args):  # (not earlier: wasmtime's memory images count too)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2_000, hard))
        return write_results(*args)

    monkeypatch.setattr(output, "write_results", disk_full)
    try:
        code = _series_cli(tmp_path, "--out", str(out))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)
    assert code == 2
    _one_error_line(capsys, "cannot write the outputs to", str(out))
    assert sorted(p.name for p in out.iterdir()) == []  # nothing cut short, no temporary file
