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
    assert "unknown env id 'kuhn'" in capsys.readouterr().out


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
