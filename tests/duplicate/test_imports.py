"""Duplicate imports what it uses (issue 53): the store loads no JAX, and a module that needs
only a match's definition imports `holdemjax.duplicate.spec`, not `match` (which brings the
engine)."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

from holdemjax.duplicate import spec

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "holdemjax" / "duplicate"
MATCH = "holdemjax.duplicate.match"


def test_importing_the_store_loads_no_jax():
    code = "import sys, holdemjax.duplicate.store; assert 'jax' not in sys.modules, 'jax loaded'"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr


def _names_from_match(tree: ast.AST) -> set[str]:
    """The names a module takes from `match`: imported from it, or read off its alias."""
    aliases, names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == MATCH:
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "holdemjax.duplicate":
            aliases |= {a.asname or a.name for a in node.names if a.name == "match"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases:
            names.add(node.attr)
    return names


def test_a_module_imports_match_only_for_what_spec_does_not_define():
    only_spec = {}
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "match.py":
            continue
        names = _names_from_match(ast.parse(path.read_text()))
        if names and names <= set(spec.__all__):
            only_spec[path.name] = sorted(names)
    assert not only_spec, only_spec
