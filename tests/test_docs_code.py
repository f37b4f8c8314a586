"""Every Python code block of the docs pages runs as written (in a fresh namespace, in a
temporary folder). A block that cannot run here carries ``<!-- docs-test: skip (the reason) -->``
on the line above its fence: a long run, another machine, a fragment another test runs."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _blocks() -> list[tuple[str, int, str, str | None]]:
    """(page, line, source, reason to skip or None) of every ```python block in docs/."""
    out = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text()
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
            skip = re.search(r"<!-- docs-test: skip \((.+?)\) -->\n$", text[:m.start()])
            out.append((page.relative_to(ROOT).as_posix(), text[:m.start()].count("\n") + 1,
                        m.group(1), skip.group(1) if skip else None))
    return out


BLOCKS = _blocks()


def test_the_docs_have_code_blocks_and_every_skip_says_why():
    assert len(BLOCKS) >= 10
    assert all(reason is None or len(reason.split()) >= 3 for *_, reason in BLOCKS)


@pytest.mark.parametrize("page, line, source, reason", BLOCKS,
                         ids=[f"{page}:{line}" for page, line, *_ in BLOCKS])
def test_docs_python_block_runs(page, line, source, reason, tmp_path, monkeypatch):
    if reason:
        pytest.skip(f"{page}:{line}: {reason}")
    monkeypatch.chdir(tmp_path)
    exec(compile("\n" * line + source, page, "exec"), {"__name__": "__docs__"})
