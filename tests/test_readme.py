"""The README's first code block runs as written."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_first_code_block_runs(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "mean return per player" in out


def test_readme_names_the_ci_test_command():
    text = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test]' && pytest -n auto" in text
    assert "pytest -n auto" in ci
    # the lint runs first (issue 14), configured in pyproject.toml
    assert ci.index("ruff check") < ci.index("pytest -n auto")
