"""The documentation site (mkdocs.yml) builds with --strict: no broken link or anchor, no page
left out of the nav, every API reference found. CI installs the docs extra (through the test
extra), so this skips only where mkdocs is not installed."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_docs_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    pytest.importorskip("material")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    site = tmp_path / "site"
    for page in ("index.html", "env-api/index.html", "api/holdemjax/index.html",
                 "api/poker/index.html", "api/training/index.html"):
        assert (site / page).is_file(), page
    # the API pages hold the public members, rendered from the docstrings
    api = (site / "api" / "holdemjax" / "index.html").read_text()
    for name in ("make", "available_envs", "api_test", "auto_reset", "act_randomly"):
        assert f"holdemjax.{name}" in api or f">{name}<" in api, name


def test_every_docs_page_is_in_the_nav():
    """A page in docs/ that the nav leaves out is a chapter nobody finds (mkdocs' omitted_files
    check fails the strict build too; this one names the page without mkdocs installed)."""
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    missing = [p for p in pages if f" {p}" not in nav]
    assert not missing, f"docs pages not in mkdocs.yml's nav: {missing}"
