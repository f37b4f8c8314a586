"""pyproject.toml ships what the code reads: every data file in the package is declared as
package data (a non-editable install has it), every declared pattern matches a file, and every
package directory is listed (issue 14: the viewer's static files; the stale duplicate entry)."""

from __future__ import annotations

import fnmatch
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _directory(package: str) -> pathlib.Path:
    """The source directory of a dotted package name under the package-dir mapping."""
    mapping = CONFIG["package-dir"]
    for cut in range(package.count(".") + 1, 0, -1):
        head = ".".join(package.split(".")[:cut])
        if head in mapping:
            rest = package.split(".")[cut:]
            return ROOT.joinpath(mapping[head], *rest)
    raise AssertionError(f"{package} is not under package-dir")


def _tracked_files(directory: pathlib.Path) -> list[pathlib.Path]:
    return [p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and not p.name.endswith(".pyc")]


def test_every_package_directory_is_listed():
    listed = set(CONFIG["packages"])
    for top in ("holdemjax", "holdemjax.envs", "holdemjax.training"):
        base = _directory(top)
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base).parts
            name = ".".join((top, *rel))
            assert name in listed, f"{name} has an __init__.py but is not in [tool.setuptools]"


def test_every_data_file_is_package_data():
    data = CONFIG["package-data"]
    for package in CONFIG["packages"]:
        base = _directory(package)
        own = [p for p in base.iterdir() if p.is_dir() and not (p / "__init__.py").exists()
               and p.name != "__pycache__"]
        files = [p for p in base.iterdir() if p.is_file()]
        files += [f for d in own for f in _tracked_files(d)]
        patterns = data.get(package, [])
        for f in files:
            if f.suffix in (".py", ".pyc"):
                continue
            rel = f.relative_to(base).as_posix()
            assert any(fnmatch.fnmatch(rel, pat) for pat in patterns), (
                f"{package}: {rel} is read by the package but not declared as package data")


def test_every_declared_pattern_matches_a_file():
    for package, patterns in CONFIG["package-data"].items():
        base = _directory(package)
        for pat in patterns:
            assert list(base.glob(pat)), f"{package}: package data {pat!r} matches nothing"
