"""The README is short and true: every Python code block runs as written, every relative link
resolves, the test command is the one CI runs, and the figures it states come from their files."""

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

def _python_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """(line, source, reason to skip or None) of every ```python block. A block the test does
    not run (a long run) has ``<!-- readme-test: skip (the reason) -->`` on the line above."""
    blocks = []
    for m in re.finditer(r"```python\n(.*?)```", text, re.S):
        skip = re.search(r"<!-- readme-test: skip \((.+?)\) -->\n$", text[:m.start()])
        blocks.append((text[:m.start()].count("\n") + 1, m.group(1),
                       skip.group(1) if skip else None))
    return blocks


def test_readme_is_short():
    assert len(README.read_text().splitlines()) <= 200


def test_readme_has_python_blocks_and_none_skipped_without_a_reason():
    blocks = _python_blocks(README.read_text())
    assert len(blocks) >= 2  # batched and eager first steps
    assert all(reason is None or reason.strip() for _, _, reason in blocks)


@pytest.mark.parametrize("index", range(len(_python_blocks(README.read_text()))))
def test_readme_python_block_runs(index, tmp_path, capsys, monkeypatch):
    """Each block runs in a fresh namespace, in a temporary folder (a block that writes a file
    leaves nothing in the checkout)."""
    line, source, reason = _python_blocks(README.read_text())[index]
    if reason:
        pytest.skip(f"README.md:{line}: {reason}")
    monkeypatch.chdir(tmp_path)
    exec(compile("\n" * line + source, "README.md", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    # what the block prints is there: each print's label ("mean return per player:", ...)
    for label in re.findall(r'print\("([^"]+?):', source):
        assert label in out, (line, label, out)


def test_readme_links_resolve():
    text = README.read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    for link in links:
        if re.match(r"[a-z]+://", link):
            continue
        assert (ROOT / link.split("#")[0]).exists(), f"README links to a missing file: {link}"


def test_readme_names_the_ci_test_command():
    text = README.read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test]' && pytest -n auto" in text
    assert "pip install -e '.[test]'" in ci and "pytest -n auto" in ci
    # the lint runs first (issue 14), configured in pyproject.toml
    assert ci.index("ruff check") < ci.index("pytest -n auto")


def test_the_install_lines_are_extras_of_pyproject():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    named = re.findall(r"pip install -e '\.\[([\w,]+)\]'", README.read_text())
    assert {"test", "pettingzoo", "sdk", "docs"} <= set(named)
    for group in named:
        assert set(group.split(",")) <= set(extras), group
    # the site's test must not skip in CI: the test extra brings the docs extra
    assert any("docs" in dep for dep in extras["test"] if dep.startswith("holdemjax["))


def test_the_eager_compile_figure_is_the_committed_one():
    """The README's first-call figures are sng-6's unbatched init and step compile times in
    benchmarks/results/compile.json."""
    doc = json.loads((ROOT / "benchmarks" / "results" / "compile.json").read_text())
    ours = next(r for r in doc["envs"] if r["env"] == "sng-6")["ours"]
    text = " ".join(README.read_text().split())
    assert (f"{ours['init']['total_s']:.1f} s and {ours['step']['total_s']:.1f} s on the "
            "project's 2-core CPU") in text


def test_the_main_jobs_output_folder_is_named_and_ignored():
    """`holdemjax series` writes VARIANT-seedSEED (series-100-seed0 by default): the README names
    it and .gitignore covers it, so the README's main job leaves `git status` clean."""
    import subprocess

    assert "`series-100-seed0/`" in README.read_text()
    assert 'f"{variant}-seed{args.seed}"' in (ROOT / "holdemjax" / "cli.py").read_text()
    for folder in ("series-100-seed0", "certify-series-seed0", "ring-9-series-seed7"):
        done = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index",
                               f"{folder}/results.json"], capture_output=True)
        if done.returncode == 128:
            pytest.skip(f"not a git checkout: {done.stderr.decode().strip()}")
        assert done.returncode == 0, f"{folder}/ is not ignored by .gitignore"
